extension Duration {
    /// The duration in seconds as a `Double` (for `Date` arithmetic and reports).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension Duration {
    /// Whole milliseconds, rounded down (what the vault stores).
    public var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)  // numbers-check: Int64 division
    }
}
