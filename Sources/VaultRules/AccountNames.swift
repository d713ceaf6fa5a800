import Foundation

/// What an account's name may be, and when two names are the same person's. Names come from class lists pasted out
/// of spreadsheets: a byte-order mark, an invisible character or a letter of another script makes an account that
/// looks like another (`KIM`, `kim`, Cyrillic `kіm`) and that a teacher cannot tell apart on a roster.
public enum AccountNames {
    /// The name as uniqueness compares it: NFC, case-folded.
    public static func key(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.folding(options: [.caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Why `name` cannot be an account's, in a sentence, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.unicodeScalars.contains(where: isInvisible) {
            return "a name may not hold invisible or direction-changing characters (such as a byte-order mark or U+202E)."
        }
        let scripts = Set(name.unicodeScalars.compactMap(script))
        if scripts.count > 1 {
            return "a name mixes letters of different alphabets (\(scripts.sorted().joined(separator: " and "))), so it would look like another name."
        }
        return nil
    }

    /// Format and invisible characters: bidi controls, zero-width spaces, the byte-order mark, and the other `Cf`
    /// characters; controls (`Cc`) too. Not the zero-width non-joiner and joiner, which Persian and Indic names are
    /// spelled with.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value == 0x200C || scalar.value == 0x200D { return false }
        return switch scalar.properties.generalCategory {
        case .format, .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// The alphabet a letter belongs to, for the scripts whose letters look alike (Latin, Greek, Cyrillic); nil for
    /// anything else (digits, punctuation, other scripts, which cannot be mistaken for these).
    static func script(_ scalar: Unicode.Scalar) -> String? {
        guard scalar.properties.isAlphabetic else { return nil }
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: return "Latin"
        case 0x370...0x3FF, 0x1F00...0x1FFF: return "Greek"
        case 0x400...0x52F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return "Cyrillic"
        default: return nil
        }
    }
}
