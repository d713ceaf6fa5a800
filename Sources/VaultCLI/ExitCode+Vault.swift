import ArgumentParser
import VaultCore
import VaultLanguage
import VaultModel
import VaultSync

/// The exit codes of docs/cli.md.
enum VaultExit {
    static let ok: Int32 = 0
    static let attention: Int32 = 3
    static let usage: Int32 = 64
    static let badData: Int32 = 65
    static let noInput: Int32 = 66
    static let offline: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let io: Int32 = 74
    static let temporary: Int32 = 75
    static let denied: Int32 = 77

    static func code(for error: VaultError) -> Int32 {
        switch error.code.kind {
        case .denied: denied
        case .badData: badData
        case .noInput: noInput
        case .cannotCreate: cannotCreate
        case .io: io
        case .temporary: temporary
        case .offline: offline
        case .usage: usage
        }
    }

    /// A failure of the vault's own as the student reads it (never an HTTP code or a database number); nil for
    /// anything else (an argument error keeps ArgumentParser's message). The one mapping for every command.
    static func vaultError(for error: any Error) -> VaultError? {
        switch error {
        case let error as VaultError: error
        case let error as ServerError: error.vaultError
        case let error as DatabaseError: error.vaultError
        case let error as StoredValueError: error.vaultError
        case let error as CryptoError:
            VaultError(.io, tr("A cryptographic operation failed unexpectedly; nothing was changed."), detail: "\(error)")
        case let error as Gzip.Failure: VaultError(.invalidData, tr("Stored data could not be decompressed ({error}).", ["error": error]))
        default: nil
        }
    }

    /// The snake_case name used in `--json` error documents.
    static func name(for error: VaultError) -> String {
        var name = ""
        for character in error.code.description {
            if character.isUppercase { name += "_" + character.lowercased() } else { name.append(character) }
        }
        return name
    }
}
