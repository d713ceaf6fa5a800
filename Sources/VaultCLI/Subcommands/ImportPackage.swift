import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel

#if canImport(Glibc)
import Glibc
#endif

/// `vault import FILE [--server-key FINGERPRINT]`: an assessment from the teacher's package, with no network at all.
struct ImportPackage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Take an assessment from a package file your teacher gave you (no network needed).",
        discussion:
            "The package is checked against its server's key: the one this vault already trusts, or, for a vault that never met a server, the fingerprint you confirm against what your teacher shows (--server-key for scripts). Importing the same package twice changes nothing; an older one, an expired one, one for another student or another server, and a damaged one are refused with nothing stored. Hand in with `vault hand-in ID --out FILE`."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The package file (USER-ID.vaultpkg).") var file: String
    @Option(help: "The server key's fingerprint as your teacher gave it.") var serverKey: String?
    @Flag(help: ArgumentHelp(tr("Read the slip code from a line of stdin (after the vault password)."))) var codeStdin = false

    static let codeFileVariable = "VAULT_SLIP_CODE_FILE"

    struct Output: Encodable {
        let id: String
        let version: Int
        let stored: Bool
    }

    func run() throws {
        let context = CommandContext(globals)
        let data: Data
        do {
            data = try SecureFiles.read(file, limit: AssessmentPackage.maxBytes)
        } catch {
            throw VaultError(.usage, tr("Cannot read {file}.", ["file": file]))
        }
        let vault = try context.openVault(credentials)
        let console = context.console
        let outcome = try vault.importPackage(data, fingerprint: serverKey) { fingerprint in
            // A vault that never met a server: the student compares the fingerprint with the teacher's.
            guard isatty(STDIN_FILENO) == 1 else { return false }
            FileHandle.standardError.write(
                Data(
                    (tr(
                        "The package is signed by the server key {fingerprint}. Is it the one your teacher shows? [y/N]",
                        ["fingerprint": fingerprint]
                    ) + " ")
                    .utf8
                )
            )
            return readLine().map { ["y", "yes", tr("yes").lowercased()].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
        } slipCode: { user in
            // Asked like a password (never echoed, never an argument): the code on the paper slip from the teacher.
            try PasswordReader.code(
                fromStdin: codeStdin,
                fileVariable: Self.codeFileVariable,
                prompt: tr("Slip code for {user}'s package (from your teacher, on paper):", ["user": user]) + " ",
                flag: "--code-stdin"
            )
        }
        switch outcome {
        case .stored(let id, let version, let user):
            console.line(
                tr(
                    "{id} (version {version}) is ready offline for {user}. Hand in with `vault hand-in {id} --out FILE`.",
                    ["id": id, "version": version, "user": user]
                )
            )
            console.emit(Output(id: id, version: version, stored: true))
        case .renewed(let id, let version):
            console.line(
                tr(
                    "{id} (version {version}) was already here; the new package from your teacher is in place. Hand in again with `vault hand-in {id} --out FILE`.",
                    ["id": id, "version": version]
                )
            )
            console.emit(Output(id: id, version: version, stored: true))
        case .alreadyHeld(let id, let version):
            console.line(tr("{id} (version {version}) was already here; nothing changed.", ["id": id, "version": version]))
            console.emit(Output(id: id, version: version, stored: false))
        }
    }
}
