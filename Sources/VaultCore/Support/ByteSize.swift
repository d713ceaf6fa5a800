import Foundation
import VaultLanguage

/// Sizes for people: 512 B, 1.2 KB, 3.4 MB (powers of 1000, one decimal), for messages and the CLI alike.
public enum ByteSize {
    public static func text(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return Language.digits(unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit]))
    }
}
