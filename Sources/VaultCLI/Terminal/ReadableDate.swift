import Foundation
import VaultAPI
import VaultLanguage

/// Dates as a person reads them: relative and in local time ("in 6 days, Sat 29 Nov", "2 hours ago").
enum ReadableDate {
    /// `short`: the phrase alone ("in 6 days"), for a table on a narrow terminal.
    static func relative(_ date: Date, now: Date = Date(), calendar: Calendar = .current, short: Bool = false) -> String {
        let seconds = date.timeIntervalSince(now)
        let magnitude = abs(seconds)
        let amount: String
        switch magnitude {
        case ..<60: return seconds >= 0 ? tr("in under a minute") : tr("just now")
        case ..<3_600: amount = trn("{n} minute", "{n} minutes", Int(saturating: magnitude / 60))
        case ..<86_400: amount = trn("{n} hour", "{n} hours", Int(saturating: magnitude / 3_600))
        default: amount = trn("{n} day", "{n} days", Int(saturating: (magnitude / 86_400).rounded()))
        }
        let when = magnitude < 86_400 ? clock(date) : day(date)
        switch (seconds >= 0, short) {
        case (true, true): return tr("in {amount}", ["amount": amount])
        case (false, true): return tr("{amount} ago", ["amount": amount])
        case (true, false): return tr("in {amount}, {when}", ["amount": amount, "when": when])
        case (false, false): return tr("{amount} ago, {when}", ["amount": amount, "when": when])
        }
    }

    /// An RFC 3339 timestamp as relative text; unreadable text is shown as it is.
    static func relative(_ text: String, now: Date = Date(), short: Bool = false) -> String {
        Timestamp.date(text).map { relative($0, now: now, short: short) } ?? text
    }

    /// "Sat 29 Nov" and "14:05", in local time, as the student's language writes them.
    static func day(_ date: Date) -> String { PeopleDates.day(date) }
    static func clock(_ date: Date) -> String { PeopleDates.clock(date) }
}
