import ArgumentParser
import VaultCore
import VaultLanguage
import VaultModel

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a new encrypted vault.")

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    @OptionGroup var kdf: KDFOptions

    func run() throws {
        let context = CommandContext(globals)
        if SecureFiles.exists(context.paths.keyFile) || SecureFiles.exists(context.paths.database) {
            throw VaultError(
                .vaultExists,
                tr("A vault already exists in {directory}. It was left untouched.", ["directory": context.paths.directory])
            )
        }
        let iterations = kdf.iterations()
        if iterations < KDFParameters.defaultIterations {
            context.console.warn(
                tr(
                    "{count} key-derivation rounds is below the recommended {recommended}; use this only for tests.",
                    ["count": iterations, "recommended": KDFParameters.defaultIterations]
                )
            )
        }
        let password = try PasswordReader.new(credentials.newPasswordStdin ? credentials : CredentialSources(stdinForNew: credentials.passwordStdin))
        let vault = try Vault.create(paths: context.paths, password: password, iterations: iterations, logger: context.logger)
        context.console.line(tr("Created an encrypted vault in {directory}.", ["directory": context.paths.directory]))
        context.console.emit(InitResult(vault: context.paths.directory, vaultId: vault.vaultID, kdfIterations: iterations))
    }

    struct InitResult: Encodable {
        let vault: String
        let vaultId: String
        let kdfIterations: Int
        enum CodingKeys: String, CodingKey {
            case vault
            case vaultId = "vault_id"
            case kdfIterations = "kdf_iterations"
        }
    }
}

extension CredentialSources {
    /// `init` takes its one password as the new password; `--password-stdin` is accepted for it too.
    init(stdinForNew: Bool) {
        self.init()
        newPasswordStdin = stdinForNew
    }
}
