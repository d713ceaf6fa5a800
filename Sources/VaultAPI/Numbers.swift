import Foundation

/// Numbers from outside (a document, a stored row, a query, a server's reply) are bounded where they enter and
/// converted without traps. `Int(someDouble)` traps on NaN, infinity and anything past ±9.2e18, and one such number
/// in a file took the whole server down: Sources never call it on data (`scripts/numbers-check` keeps to that).
public enum Numbers {
    /// The points one question may be worth: above 0, at most this.
    public static let maxPoints = 10_000.0
    /// The largest tolerance, mapped value or bound a document may state (far past any real answer, far inside
    /// what a Double adds up without becoming infinite).
    public static let maxMagnitude = 1e12

    /// `value` when it is a number of points a question may be worth, else nil.
    public static func points(_ value: Double) -> Double? {
        value.isFinite && value > 0 && value <= maxPoints ? value : nil
    }

    /// A page or count from a query (`?page=3`): a whole positive number of at most `limit` digits' worth, else nil.
    /// Nothing it returns overflows when a caller subtracts one or multiplies by a page size.
    public static func positive(_ text: Substring?, atMost limit: Int = 1_000_000) -> Int? {
        guard let text, !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text) else {
            return nil
        }
        return value >= 1 && value <= limit ? value : nil
    }

    /// A positive query value given as a `String`.
    public static func positive(_ text: String?, atMost limit: Int = 1_000_000) -> Int? {
        positive(text.map { $0[...] }, atMost: limit)
    }
}

extension Int {
    /// `value` rounded toward zero and held within Int's range; NaN is 0. The conversion of any floating value that
    /// came from data (a stored REAL, a duration a server sent, a date): it never traps.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_808.0 {
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value.rounded(.towardZero))  // numbers-check: bounded on both sides just above
        }
    }
}
