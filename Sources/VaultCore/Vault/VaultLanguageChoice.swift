import Foundation
import VaultLanguage
import VaultModel

/// The language a student chose with `vault config set lang fa`, kept beside the encrypted database in a small file
/// of its own (`language`, 0600): the vault must speak it before it is unlocked (the password prompt), so it cannot
/// live inside. It holds a language tag and nothing else, never anything of the student's work.
public enum VaultLanguageChoice {
    /// The saved language tag, or nil (none saved, or the file is not one tag: read as none, never trusted further).
    /// The rule is `save`'s own, so a saved "C" or "en" is a choice of English that the system's LANG does not override.
    public static func saved(in paths: VaultPaths) -> String? {
        guard SecureFiles.exists(paths.languageFile), let data = try? SecureFiles.read(paths.languageFile, limit: 64) else { return nil }
        let tag = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Language.isTag(tag) ? tag : nil
    }

    /// Saves `tag` ("fa", "pt_BR"); nil removes the choice. A value that is not a language tag is refused.
    public static func save(_ tag: String?, in paths: VaultPaths) throws {
        guard let tag else {
            if SecureFiles.exists(paths.languageFile) { try FileManager.default.removeItem(atPath: paths.languageFile) }
            return
        }
        guard Language.isTag(tag) else {
            throw VaultError(.usage, tr("The language is a code such as es, fr, pt_BR, sw, ar or fa (not {value}).", ["value": tag]))
        }
        try SecureFiles.atomicWrite(Data((tag + "\n").utf8), to: paths.languageFile)
    }
}

extension VaultPaths {
    /// The student's language choice (`VaultLanguageChoice`).
    public var languageFile: String { root + "/language" }
}
