import Foundation
import Testing
import VaultCore
import VaultTestSupport

extension CLIVault {
    /// `vault login` to `server` as the demo student (vault password pw-1); the login's result.
    @discardableResult
    func signIn(to server: ServerProcess) throws -> Binaries.Result {
        let login = try run(
            ["login", "--server", server.url, "--user", "demo", "--vault", path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(login.status == 0, "\(login.stderr)")
        return login
    }
}

enum TemporaryDirectoryFiles {
    /// Every regular file directly in `path` (a vault directory).
    static func all(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).map { path + "/" + $0 }
    }
}
