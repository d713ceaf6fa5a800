extension Duration {
    /// The duration in seconds as a `Double` (for `Date` arithmetic and reports).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
