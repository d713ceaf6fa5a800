import Foundation
import Synchronization

/// Dates and times as the student's language writes them: "Thu 26 Nov" and "14:05" in English (the vault's own
/// format), "jue, 26 nov" in Spanish, "پنجشنبه ۵ آذر" in Persian (its calendar and digits), from the platform's ICU
/// data for the active catalog's language. Local time. Never in `--json`, which keeps RFC 3339.
public enum PeopleDates {
    /// "Thu 26 Nov".
    public static func day(_ date: Date) -> String { formatters.withLock { $0.day(for: Language.identifier).string(from: date) } }
    /// "14:05".
    public static func clock(_ date: Date) -> String { formatters.withLock { $0.clock(for: Language.identifier).string(from: date) } }
    /// "Thu 26 Nov 14:05".
    public static func dayAndClock(_ date: Date) -> String {
        formatters.withLock { $0.dayAndClock(for: Language.identifier).string(from: date) }
    }

    /// Formatters are costly to make: one of each per language, made when first asked for.
    private static let formatters = Mutex(Cache())

    private struct Cache: ~Copyable {
        var made: [String: DateFormatter] = [:]

        mutating func day(for language: String?) -> DateFormatter { formatter("day", language, english: "EEE d MMM", template: "EEEdMMM") }
        mutating func clock(for language: String?) -> DateFormatter { formatter("clock", language, english: "HH:mm", template: "HHmm") }
        mutating func dayAndClock(for language: String?) -> DateFormatter {
            formatter("both", language, english: "EEE d MMM HH:mm", template: "EEEdMMMHHmm")
        }

        private mutating func formatter(_ kind: String, _ language: String?, english: String, template: String) -> DateFormatter {
            let key = kind + "/" + (language ?? "")
            if let made = made[key] { return made }
            let formatter = DateFormatter()
            if let language {
                formatter.locale = Locale(identifier: language)
                formatter.setLocalizedDateFormatFromTemplate(template)
            } else {
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.dateFormat = english
            }
            made[key] = formatter
            return formatter
        }
    }
}
