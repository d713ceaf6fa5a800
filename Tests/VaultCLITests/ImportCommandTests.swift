import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// `vault-server publish` of a teacher's own file, then taken offline through the real binaries and scored.
@Suite(.ownThreads)
struct ImportCommandTests {
    static let gift = #"""
        // Written for this project.
        ::Light::Sound travels faster than light.{F}

        ::Planet::Which planet is closest to the sun? {=Mercury ~Venus ~Earth}

        ::Gases::Which are noble gases? {~%50%Neon ~%50%Argon ~%-100%Oxygen}

        ::Name::Who wrote "On the Origin of Species"? {=Darwin =Charles Darwin}

        ::Pi::Pi to two places? {#3.14:0.005}

        ::Essay::Explain why the sky is blue. {}

        ::Match::Match the pairs. {=a -> 1 =b -> 2}

        ::Intro::Read every question twice.
        """#

    @Test("publish --dry-run: the import report (questions by type, points, skipped with reasons, an existing version) and nothing published")
    func dryRun() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        let file = vault.root.file("Physics Quiz.gift")
        try Data(Self.gift.utf8).write(to: URL(fileURLWithPath: file))
        let first = try server.admin(["publish", file, "--dry-run"])
        #expect(first.status == 0, "\(first.stderr)")
        for text in [
            "Would publish physics-quiz, \"Physics Quiz\": 7 questions, 7 points.", "  essay: 1", "  matching: 1", "  true false: 1",
            "Would skip \"Intro\":", "Nothing was published (--dry-run).",
        ] {
            #expect(first.stdout.contains(text), "\(text)\n\(first.stdout)")
        }
        #expect(!first.stdout.contains("exists"))
        // Nothing was published: the catalog does not have it, and a student cannot download it.
        #expect(try vault.unlocked(["download", "physics-quiz"]).status != 0)
        #expect(try server.admin(["publish", file]).status == 0)
        let again = try server.admin(["publish", file, "--dry-run", "--json"])
        let report = try #require(again.json)
        #expect(report["existing_version"] as? Int == 1 && report["questions"] as? Int == 7, "\(again.stdout)")
        #expect((report["types"] as? [String: Int])?["multiple_choice"] == 1, "\(again.stdout)")
    }

    @Test("a GIFT file published (a description skipped and named), taken offline with a matching question, synced and scored on release")
    func giftEndToEnd() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        let file = vault.root.file("Physics Quiz.gift")
        try Data(Self.gift.utf8).write(to: URL(fileURLWithPath: file))
        let strict = try server.admin(["publish", file, "--strict"])
        #expect(strict.status == 65 && strict.stderr.contains("--strict"), "\(strict.stderr)")
        let published = try server.admin(["publish", file, "--json"])
        #expect(published.status == 0, "\(published.stderr)")
        let output = try #require(published.json)
        #expect(output["id"] as? String == "physics-quiz" && output["questions"] as? Int == 7)
        #expect((output["skipped"] as? [[String: Any]])?.first?["item"] as? String == "\"Intro\"")
        #expect(try vault.unlocked(["download", "physics-quiz"]).status == 0)
        // GIFT's choices are shuffled for each student (as Moodle imports GIFT): the student answers by the letters
        // they see. Both left items paired with one option is one right pair of two whatever the order.
        let shown = try #require(try vault.unlocked(["show", "physics-quiz", "--json"]).json?["questions"] as? [[String: Any]])
        func letter(_ question: String, _ text: String) -> String {
            let choices = shown.first { $0["id"] as? String == question }?["choices"] as? [[String: Any]] ?? []
            return choices.firstIndex { $0["text"] as? String == text }.map { String(UnicodeScalar(UInt8(97 + $0))) } ?? "?"
        }
        for (question, value) in [
            ("q1", "false"), ("q2", letter("q2", "Mercury")), ("q3", "\(letter("q3", "Neon")),\(letter("q3", "Argon"))"),
            ("q4", "charles darwin"), ("q5", "3.141"), ("q6", "Rayleigh scattering."), ("q7", "1a 2a"),
        ] {
            let saved = try vault.answer("physics-quiz", question, value)
            #expect(saved.status == 0, "\(question): \(saved.stderr)")
        }
        #expect(try vault.unlocked(["submit", "physics-quiz"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try server.admin(["release", "physics-quiz"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let results = try #require(try vault.unlocked(["results", "physics-quiz", "--json"]).json?["results"] as? [[String: Any]])
        let result = try #require(results.first)
        // Six automatic points of seven: the matching question earns half (one pair of two), the essay waits.
        #expect(result["score"] as? Double == 5.5 && result["max_score"] as? Double == 7, "\(result)")
        #expect(result["pending"] as? Int == 1)
    }

    @Test("a malformed Moodle XML file and one with an external entity publish nothing and say why (65)")
    func hostileXML() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        let broken = vault.root.file("broken.xml")
        try Data("<quiz>\n<question type=\"essay\">\n<questiontext><text>Oops</questiontext>\n</quiz>\n".utf8).write(to: URL(fileURLWithPath: broken))
        let malformed = try server.admin(["publish", broken])
        #expect(malformed.status == 65 && malformed.stderr.contains("line"), "\(malformed.stderr)")
        let entity = vault.root.file("entity.xml")
        try Data(#"<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]><quiz/>"#.utf8).write(
            to: URL(fileURLWithPath: entity)
        )
        let external = try server.admin(["publish", entity])
        #expect(external.status == 65 && external.stderr.contains("DTD") && !external.stderr.contains("root:"), "\(external.stderr)")
        let catalog = try #require(try vault.unlocked(["catalog", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(!catalog.contains { ($0["id"] as? String) == "broken" || ($0["id"] as? String) == "entity" })
    }
}
