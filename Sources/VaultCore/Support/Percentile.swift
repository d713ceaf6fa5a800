import VaultAPI

/// One percentile rule for every figure we print (`scripts/bench`, `scripts/load`): the nearest rank, index
/// round((n - 1) * p) of the sorted values; 0 for no values.
public enum Percentile {
    public static func of(sorted values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        return values[min(values.count - 1, max(0, Int(saturating: (Double(values.count - 1) * p).rounded())))]
    }
}
