import Foundation
import Testing
import VaultTestSupport

@testable import VaultLanguage

@Suite("The student's language")
struct LanguageTests {
    @Test("the language asked for: --lang, then VAULT_LANG, then the system's; C, POSIX and what is not a language tag are passed over")
    func requested() {
        #expect(Language.requested(explicit: "fa", environment: ["VAULT_LANG": "es", "LANG": "fr_FR.UTF-8"]) == "fa")
        #expect(Language.requested(explicit: nil, environment: ["VAULT_LANG": "es", "LANG": "fr_FR.UTF-8"]) == "es")
        #expect(Language.requested(explicit: nil, environment: ["LANG": "fr_FR.UTF-8"]) == "fr_FR:fr")
        #expect(Language.requested(explicit: nil, environment: ["LC_MESSAGES": "sw_KE.UTF-8@x", "LANG": "fr_FR.UTF-8"]) == "sw_KE:sw")
        #expect(Language.requested(explicit: nil, environment: ["LANGUAGE": "pt_BR:pt", "LANG": "C.UTF-8"]) == "pt_BR:pt")
        #expect(Language.requested(explicit: nil, environment: ["LANG": "C.UTF-8"]) == nil)
        #expect(Language.requested(explicit: nil, environment: [:]) == nil)
        #expect(Language.requested(explicit: "../../etc/x", environment: ["LANG": "ar_EG.UTF-8"]) == "ar_EG:ar", "never a path")
        #expect(Language.requested(explicit: "C", environment: ["LANG": "ar_EG.UTF-8"]) == nil, "an explicit C is English")
    }

    @Test("placeholders filled after translation; right to left: the line marked, each value isolated, numbers in the language's digits")
    func filling() {
        let values: [(key: String, value: any Sendable)] = [("n", 12), ("id", "quiz-1")]
        #expect(Language.fill("Question {n}: run vault take {id}.", values: values, traits: .init()) == "Question 12: run vault take quiz-1.")
        let persian = Language.Traits(rightToLeft: true, digits: Array("۰۱۲۳۴۵۶۷۸۹"))
        #expect(
            Language.fill("پرسش {n}: vault take {id}", values: values, traits: persian)
                == "\u{200F}پرسش \u{2068}۱۲\u{2069}: vault take \u{2068}quiz-1\u{2069}"
        )
        #expect(Language.fill("{missing} stays", values: values, traits: .init()) == "{missing} stays")
        // A command is copied and typed as shown: nothing invisible inside its backticks, ASCII digits there.
        let command = Language.fill("با `vault take {id} --n {n}` برگرد.", values: values, traits: persian)
        #expect(command == "\u{200F}با \u{2066}`vault take quiz-1 --n 12`\u{2069} برگرد.")
        #expect(Language.number(-45, traits: persian) == "-۴۵")
    }

    @Test("glibc's gettext through the module map: a compiled catalog, Arabic's six plural forms, a LANGUAGE chain's fallback")
    func arabicPlurals() throws {
        let directory = TemporaryDirectory("catalog")
        let messages = directory.file("ar/LC_MESSAGES")
        try FileManager.default.createDirectory(atPath: messages, withIntermediateDirectories: true)
        // Message ids of this test's own: the product's messages stay English for every other test in this process.
        let po = """
            msgid ""
            msgstr ""
            "Content-Type: text/plain; charset=UTF-8\\n"
            "Plural-Forms: nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;\\n"

            msgid "test-only: {n} apple"
            msgid_plural "test-only: {n} apples"
            msgstr[0] "zero {n}"
            msgstr[1] "one {n}"
            msgstr[2] "two {n}"
            msgstr[3] "few {n}"
            msgstr[4] "many {n}"
            msgstr[5] "other {n}"

            msgid "test-only: hello"
            msgstr "مرحبا"

            """
        try po.write(toFile: directory.file("ar.po"), atomically: true, encoding: .utf8)
        let msgfmt = Process()
        msgfmt.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        msgfmt.arguments = ["--check", "-o", messages + "/vault.mo", directory.file("ar.po")]
        try msgfmt.run()
        msgfmt.waitUntilExit()
        try #require(msgfmt.terminationStatus == 0, "msgfmt (Debian's gettext) is needed")
        defer { Language.activate(nil, catalogs: directory.path) }

        Language.activate("ar_EG:ar", catalogs: directory.path)
        let forms = [0, 1, 2, 3, 11, 100, 102].map {
            Language.message("test-only: {n} apple", plural: "test-only: {n} apples", count: $0, [("n", $0)])
        }
        #expect(forms == ["zero 0", "one 1", "two 2", "few 3", "many 11", "other 100", "other 102"])
        #expect(Language.message("test-only: hello", []) == "مرحبا", "ar_EG falls back to ar")
        #expect(Language.message("test-only: not in the catalog", []) == "test-only: not in the catalog")

        Language.activate("fr", catalogs: directory.path)
        #expect(Language.message("test-only: hello", []) == "test-only: hello", "no French catalog: English")
    }
}
