import CGettext
import Foundation
import Synchronization
import VaultLanguage

/// The language the vault speaks to the student: messages from the gettext catalogs in `po/` (compiled by
/// `scripts/catalogs` to `share/locale/<lang>/LC_MESSAGES/vault.mo`), read through glibc's gettext. Chosen once at
/// start (`activate`); English, the messages as written in the code, when nothing is chosen or no catalog matches.
///
/// Foundation's localization does not work on Linux (no `String(localized:)`, `Locale.current` ignores LANG), so
/// this is gettext through a module map, the way the platform's own tools do it.
public enum Language {
    /// The gettext domain: `vault.mo`.
    public static let domain = "vault"

    /// What the active catalog says of its language: direction and digits.
    public struct Traits: Sendable, Equatable {
        /// Written right to left (Arabic, Persian): messages are marked so that bidi-aware terminals show them so.
        public var rightToLeft = false
        /// The digits 0 to 9 as the language writes them (ASCII unless the catalog says otherwise).
        public var digits: [Character] = Array("0123456789")
        /// What separates a number's whole part from its fraction ("," in Spanish, "٫" in Persian).
        public var decimalSeparator: Character = "."
        public init(rightToLeft: Bool = false, digits: [Character] = Array("0123456789"), decimalSeparator: Character = ".") {
            self.rightToLeft = rightToLeft
            self.digits = digits
            self.decimalSeparator = decimalSeparator
        }
    }

    private static let state = Mutex<(active: Bool, traits: Traits, identifier: String?)>((false, Traits(), nil))

    /// The active catalog's language ("fa", "pt_BR", from its header), nil for English: dates are written in it.
    public static var identifier: String? { state.withLock { $0.identifier } }

    /// The active language's traits (left to right, ASCII digits until `activate` finds a catalog saying otherwise).
    public static var traits: Traits { state.withLock { $0.traits } }

    /// The language asked for, as a gettext LANGUAGE chain ("fa", "pt_BR:pt"), or nil for English. The first that
    /// names one wins: `--lang`, then VAULT_LANG, then LANGUAGE, LC_ALL, LC_MESSAGES and LANG as the system gives
    /// them ("fa_IR.UTF-8" → "fa_IR:fa"). "C", "POSIX" and anything that is not a language tag are passed over, so a
    /// hostile value never reaches the catalog's path.
    public static func requested(explicit: String?, environment: [String: String]) -> String? {
        let sources = [
            explicit, environment["VAULT_LANG"], environment["LANGUAGE"], environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"],
        ]
        for source in sources {
            guard let source, !source.isEmpty else { continue }
            var chain: [String] = []
            for part in source.split(separator: ":") {
                // "fa_IR.UTF-8@calendar" → "fa_IR", then its language alone as the fallback.
                let tag = String(part.prefix { $0 != "." && $0 != "@" })
                guard tag != "C", tag != "POSIX", Self.isTag(tag) else { continue }
                chain.append(tag)
                if let base = tag.split(separator: "_").first.map(String.init), base != tag { chain.append(base) }
            }
            if !chain.isEmpty { return Self.unique(chain).joined(separator: ":") }
            // An explicit "C" or "POSIX" means English: later sources are not asked.
            if source == explicit || source == environment["VAULT_LANG"], ["C", "POSIX"].contains(source.prefix { $0 != "." }) { return nil }
        }
        return nil
    }

    /// Speaks `chain` (from `requested`) from the catalogs in `directory` (nil: `VAULT_LOCALEDIR`, else
    /// `share/locale` beside the executable's directory). Sets the messages' locale itself, to C.UTF-8 when the
    /// system's is missing or C, so a machine with only C.UTF-8 still speaks Persian.
    @discardableResult
    public static func activate(
        _ chain: String?,
        catalogs directory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> Traits
    {
        setenv("LANGUAGE", chain ?? "en", 1)
        for category in [LC_CTYPE, LC_MESSAGES] {
            let set = setlocale(category, "").map { String(cString: $0) }
            if set == nil || set == "C" || set == "POSIX" { setlocale(category, "C.UTF-8") }
        }
        if let directory = directory ?? Self.catalogDirectory(environment: environment) {
            bindtextdomain(domain, directory)
            bind_textdomain_codeset(domain, "UTF-8")
        }
        // Translators: write rtl here if your language is written right to left (Arabic, Persian); leave ltr otherwise.
        let direction = lookUp("ltr")
        // Translators: the digits zero to nine as your language writes them, in order (Persian: ۰۱۲۳۴۵۶۷۸۹).
        let digits = Array(lookUp("0123456789"))
        var traits = Traits(rightToLeft: direction == "rtl", digits: digits.count == 10 ? digits : Array("0123456789"))
        // The catalog's header (gettext's answer for the empty id) names its language; the pseudo-language has none
        // that dates know, so it keeps English dates.
        let header = lookUp(String())
        let named = header.split(separator: "\n").first { $0.hasPrefix("Language: ") }.map {
            String($0.dropFirst(10)).trimmingCharacters(in: .whitespaces)
        }
        let identifier = named.flatMap { $0.isEmpty || $0 == "qps" || $0 == "en" ? nil : $0 }
        state.withLock { $0 = (true, traits, identifier) }
        // Translators: the decimal separator of your language, one character ("," in Spanish, "٫" in Persian).
        // (Without the right-to-left marks a message of Arabic or Persian is given.)
        let separator = String(
            String.UnicodeScalarView(trc("decimal separator", ".").unicodeScalars.filter { $0.properties.generalCategory != .format })
        )
        if separator.count == 1, separator != "." {
            traits.decimalSeparator = Character(separator)
            state.withLock { $0.traits = traits }
        }
        return traits
    }

    /// Where the compiled catalogs are: `VAULT_LOCALEDIR`, else `share/locale` beside the executable's directory (an
    /// installed /usr/bin/vault finds /usr/share/locale) or one above it (a build in .build/<triple>/debug finds
    /// .build/share/locale, where scripts/catalogs writes).
    static func catalogDirectory(environment: [String: String]) -> String? {
        if let set = environment["VAULT_LOCALEDIR"], !set.isEmpty { return set }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let bin = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return [bin.deletingLastPathComponent(), bin.deletingLastPathComponent().deletingLastPathComponent()]
            .map { $0.appendingPathComponent("share/locale").path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    /// A message from the catalog, its `{name}` placeholders filled.
    static func message(
        _ id: String,
        plural: String? = nil,
        count: Int = 0,
        context: String? = nil,
        _ values: [(key: String, value: any Sendable)]
    ) -> String {
        let active = state.withLock { $0.active }
        var text: String
        if !active {
            text = plural.map { count == 1 ? id : $0 } ?? id
        } else if let plural {
            text = Self.lookUp(id, plural: plural, count: count)
        } else if let context {
            // gettext's msgctxt: the context and the id joined by EOT; a catalog without it answers with the key.
            let key = context + "\u{4}" + id
            text = Self.lookUp(key)
            if text == key { text = id }
        } else {
            text = Self.lookUp(id)
        }
        return fill(text, values: values, traits: traits)
    }

    /// gettext answers with the id's own pointer when the catalog lacks it: the ids' storage is kept alive until
    /// the answer is copied.
    static func lookUp(_ id: String, plural: String? = nil, count: Int = 0) -> String {
        id.withCString { id in
            guard let plural else { return String(cString: dgettext(domain, id)) }
            return plural.withCString { plural in String(cString: dngettext(domain, id, plural, UInt(max(count, 0)))) }
        }
    }

    /// Fills `{name}` placeholders: a number in the language's digits. In a right-to-left language the line begins
    /// with a right-to-left mark (a bidi-aware terminal lays it out right to left), every value is isolated
    /// (U+2068…U+2069) so an id or the student's own words keep their direction, and a `command` is isolated left to
    /// right as a whole (U+2066…U+2069) with nothing invisible inside it, so the student can copy and type it as shown.
    static func fill(_ text: String, values: [(key: String, value: any Sendable)], traits: Traits) -> String {
        var result = ""
        var inCommand = false
        var rest = Substring(text)
        while let next = rest.firstIndex(where: { $0 == "{" || $0 == "`" }) {
            result += rest[..<next]
            if rest[next] == "`" {
                if traits.rightToLeft { result += inCommand ? "`\u{2069}" : "\u{2066}`" } else { result += "`" }
                inCommand.toggle()
                rest = rest[rest.index(after: next)...]
                continue
            }
            guard let close = rest[next...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: next)..<close])
            if let value = values.first(where: { $0.key == name })?.value {
                let shown = (value as? Int).map { inCommand ? String($0) : number($0, traits: traits) } ?? "\(value)"
                result += traits.rightToLeft && !inCommand ? "\u{2068}" + shown + "\u{2069}" : shown
            } else {
                result += rest[next...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return traits.rightToLeft && !result.isEmpty ? "\u{200F}" + result : result
    }

    /// Parts of one phrase one after another with the language's comma: "in progress, 7 min left" (Persian "،").
    public static func listed(_ parts: [String]) -> String { parts.joined(separator: trc("between parts of a phrase", ", ")) }

    /// A line the code composed itself (a choice's letter and text): begun with a right-to-left mark in a
    /// right-to-left language, so it is laid out like the sentences around it. A line already marked (a message from
    /// the catalog) is left as it is.
    public static func marked(_ line: String) -> String {
        traits.rightToLeft && !line.isEmpty && !line.hasPrefix("\u{200F}") ? "\u{200F}" + line : line
    }

    /// Every line of `text` marked like `marked` (a wrapped sentence's second line too).
    public static func markedLines(_ text: String) -> String {
        guard traits.rightToLeft else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { marked(String($0)) }.joined(separator: "\n")
    }

    /// A whole number in the active language's digits ("۱۲" in Persian).
    public static func number(_ value: Int) -> String { number(value, traits: traits) }

    /// A decimal written with a point ("2.5", as `AttemptResult.pointsText` gives it) in the active language's digits
    /// and decimal separator ("2,5" in Spanish, "۲٫۵" in Persian).
    public static func decimal(_ text: String) -> String {
        let traits = traits
        return digits(String(text.map { $0 == "." ? traits.decimalSeparator : $0 }))
    }

    /// Digits of any text in the active language's (the clock "03:06" → "۰۳:۰۶"); everything else unchanged.
    public static func digits(_ text: String) -> String {
        let traits = traits
        guard traits.digits != Array("0123456789") else { return text }
        return String(text.map { $0.isASCII && $0.isNumber ? traits.digits[Int($0.asciiValue! - 48)] : $0 })
    }

    static func number(_ value: Int, traits: Traits) -> String {
        let ascii = String(value)
        guard traits.digits != Array("0123456789") else { return ascii }
        return String(ascii.map { $0.isNumber ? traits.digits[Int($0.asciiValue! - 48)] : $0 })
    }

    public static func isTag(_ tag: String) -> Bool {
        !tag.isEmpty && tag.count <= 16 && tag.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_") } && tag.first!.isLetter
    }

    private static func unique(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.filter { seen.insert($0).inserted }
    }
}

/// A message in the student's language: `tr("Question {n} of {count}.", ["n": 2, "count": 6])`. The id is the
/// English sentence, whole (never pieces glued together, so every language keeps its own word order); `{name}`
/// placeholders are filled after translation. Only a literal may be an id: `scripts/catalogs` finds them in the code.
public func tr(_ id: StaticString, _ values: KeyValuePairs<String, any Sendable> = [:]) -> String {
    Language.message(id.description, Array(values))
}

/// A message whose English serves in more than one place and may not in another language: `context` tells them
/// apart (gettext's msgctxt), as `trc("attempt", "none")` (Spanish "ninguno") beside `tr("none")` ("ninguna").
public func trc(_ context: StaticString, _ id: StaticString, _ values: KeyValuePairs<String, any Sendable> = [:]) -> String {
    Language.message(id.description, context: context.description, Array(values))
}

/// A message that depends on a count, by the language's own plural rules (Arabic has six forms): `{n}` is the count.
/// `trn("{n} question", "{n} questions", 3)`.
public func trn(_ singular: StaticString, _ plural: StaticString, _ count: Int, _ values: KeyValuePairs<String, any Sendable> = [:]) -> String {
    Language.message(singular.description, plural: plural.description, count: count, [(key: "n", value: count)] + Array(values))
}
