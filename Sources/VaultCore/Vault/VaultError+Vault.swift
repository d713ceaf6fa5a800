import VaultLanguage
import VaultModel

/// The vault's own failures (its password, its database).
extension VaultError {
    static let wrongPassword = VaultError(
        .wrongPassword,
        tr("The password is not correct. Nothing was changed; try again.")
    )

    static func databaseDamaged(_ path: String, _ error: any Error) -> VaultError {
        VaultError(
            .databaseDamaged,
            tr("The vault database {path} is damaged or has been tampered with. Restore it from a backup.", ["path": path]),
            detail: "\(error)"
        )
    }
}
