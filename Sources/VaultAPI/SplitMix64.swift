import Foundation

/// SplitMix64: a small generator whose values depend only on its seed, on every machine. A template item's instance
/// must not change between two publishes of the same file; tests and benchmarks use it so a failure repeats.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<bound (0 when bound is 0), by the remainder: the same on every platform.
    public mutating func next(below bound: UInt64) -> UInt64 { bound == 0 ? 0 : next() % bound }
    public mutating func advance() { _ = next() }
}
