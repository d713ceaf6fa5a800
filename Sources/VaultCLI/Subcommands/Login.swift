import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultDiscovery
import VaultLanguage
import VaultModel
import VaultSync
import VaultTake

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in to a server; the address and token are kept inside the encrypted vault.",
        discussion: "The server password comes from --server-password-stdin, $VAULT_SERVER_PASSWORD_FILE, or a prompt."
    )

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Option(help: "The server, e.g. http://127.0.0.1:8080 (default: the one used last).") var server: String?
    @Option(help: "Your user name on the server (default: the one used last).") var user: String?
    @Flag(help: "Read the server password from a line of stdin (after the vault password when both are there).")
    var serverPasswordStdin = false
    @Option(help: "The server key fingerprint your teacher gave you; sign-in stops if the server's differs.") var serverKey: String?
    @Flag(help: "Accept a server key that differs from the one this vault pinned (only when your teacher confirms it).")
    var acceptNewServerKey = false
    @Flag(help: "Sign in with this vault's own key instead of a password (the key must be registered to you already).")
    var withVaultKey = false
    @Flag(help: "Sign in to a classroom server for the first time with the one-time class code your teacher gave you (read like a password).")
    var classCode = false
    @Flag(help: "Find the server on this network (a classroom's) instead of typing its address; its key fingerprint is confirmed first.")
    var discover = false

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let previous = try vault.account()
        guard !(discover && self.server != nil) else { throw ValidationError(tr("Give --server URL or --discover, not both.")) }
        let found = discover ? try Discovered.choose(serverKey: serverKey, console: context.console) : nil
        guard let server = found?.url ?? server ?? previous?.serverURL, let user = user ?? previous?.user else {
            throw ValidationError(tr("Give --server URL and --user NAME the first time."))
        }
        // A server found on the LAN is held to the fingerprint it announced (and the student confirmed).
        let serverKey = serverKey ?? found?.fingerprint
        // With the vault's key, no password is asked for or sent: the server sends a challenge the key signs.
        guard !(withVaultKey && classCode) else { throw ValidationError(tr("Give --with-vault-key or --class-code, not both.")) }
        // A class code is read as a password is: never an argument. Read only once the server is known (below): a
        // classroom server is never sent a password, and the student is not asked for one.
        let readSecret = { [serverPasswordStdin, classCode] in
            try PasswordReader.read(
                fromStdin: serverPasswordStdin,
                fileVariable: "VAULT_SERVER_PASSWORD_FILE",
                environment: ProcessInfo.processInfo.environment,
                prompt: (classCode ? tr("Class code for {user}:", ["user": user]) : tr("Server password for {user}:", ["user": user])) + " ",
                confirm: false,
                flag: "--server-password-stdin"
            )
        }
        let device = try vault.deviceKey()
        let pinned = try vault.pinnedServerKey()
        // A rural link drops requests: each is tried again on the sync schedule, within the command's deadline.
        let retry = RequestRetry()
        let (token, key, classroom) = try await NetworkSession.with(vault: vault, serverURL: server, pinnedKey: false) { session in
            let key = try await retry.run { try await session.client.serverKey() }
            do {
                _ = try ServerPublicKey(key)
            } catch {
                throw VaultError(.invalidData, tr("The server's key is not valid, so this vault will not sign in to it."))
            }
            if let serverKey, serverKey.lowercased() != key.fingerprint {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "The server's key ({fingerprint}) is not the one you gave ({server_key}). Nothing was sent; check the address and the fingerprint.",
                        ["fingerprint": key.fingerprint, "server_key": serverKey]
                    )
                )
            }
            if let pinned, pinned.key != key, !acceptNewServerKey, serverKey == nil {
                throw NetworkSession.keyChanged(pinned: pinned.key.fingerprint, served: key.fingerprint)
            }
            // What the server is, before anything secret is sent (issue 68): a classroom server (a teacher's laptop)
            // is never sent a student's password; the class code or the vault's key signs in there.
            let classroom = try await retry.run { try await session.client.health() }.classroom == true
            if classroom, !withVaultKey, !classCode {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "This is a classroom server: your password is never sent to it. Sign in with the class code your teacher gives you (`vault login --server {server} --user {user} --class-code`), or with this vault's key if it signed in at the district before (`--with-vault-key`).",
                        ["server": server, "user": user]
                    )
                )
            }
            let password = withVaultKey ? nil : try readSecret()
            let token = try await retry.run {
                guard let password else {
                    do {
                        return try await session.client.signIn(user: user, serverFingerprint: key.fingerprint, deviceKey: device.publicKey) {
                            try device.signature(for: $0)
                        }
                    } catch ServerError.badCredentials {
                        throw VaultError(
                            .notAllowed,
                            tr(
                                "The server does not know this vault's key as {user}'s. Sign in once with your password (`vault login` without --with-vault-key); a vault that came by file is known after its first hand-in is imported.",
                                ["user": user]
                            )
                        )
                    }
                }
                if classCode {
                    let code = password.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                    do {
                        return try await session.client.enrol(user: user, code: code, serverFingerprint: key.fingerprint, deviceKey: device.publicKey)
                        {
                            try device.signature(for: $0)
                        }
                    } catch ServerError.badCredentials {
                        throw VaultError(
                            .notAllowed,
                            tr(
                                "This class code does not sign in {user} here: check your name and the code, or ask your teacher for a new one.",
                                ["user": user]
                            )
                        )
                    }
                }
                return try await session.client.signIn(user: user, password: password)
            }
            // This vault's signing key, registered to the user: hand-in files are signed with it.
            var client = session.client
            client.token = token.token
            let publicKey = device.publicKey
            _ = try await retry.run { [client] in try await client.registerDeviceKey(publicKey) }
            // A classroom server passes answers on to its district: the sync signs each one for it.
            return (token, key, classroom)
        }
        try vault.pinServerKey(key, serverURL: server)
        try vault.setMeta([Vault.serverClassroomKey: classroom ? "1" : "0"])
        try vault.saveAccount(
            Account(
                serverURL: server,
                user: user,
                token: token.token,
                tokenExpiresAt: Timestamp.date(token.expiresAt),
                role: token.role.rawValue
            )
        )
        context.console.line(tr("Signed in to {server} as {user}.", ["server": server, "user": user]))
        context.console.line(
            pinned?.key == key
                ? tr("Server key: {key}", ["key": key.fingerprint])
                : tr("Server key: {key} (pinned now; ask your teacher to confirm it)", ["key": key.fingerprint])
        )
        context.console.emit(["server": server, "user": user, "expires_at": token.expiresAt, "server_key": key.fingerprint])
    }
}

/// `vault login --discover`: a server announced on this network, picked and its fingerprint confirmed by the student.
enum Discovered {
    static func choose(serverKey: String?, console: Console) throws -> FoundServer {
        let found = try Servers.look(seconds: 3)
        guard !found.isEmpty else {
            throw VaultError(
                .offline,
                tr("No server announces itself on this network. Type the address your teacher gives you: `vault login --server URL`.")
            )
        }
        // With the fingerprint the teacher gave, the server is the one announcing it; nothing else is asked.
        if let serverKey {
            guard let match = found.first(where: { $0.fingerprint == serverKey.lowercased() }) else {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "No server on this network announces the key {fingerprint}. Nothing was sent; check the fingerprint with your teacher.",
                        ["fingerprint": serverKey]
                    )
                )
            }
            return match
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw VaultError(
                .usage,
                tr("Give --server-key FINGERPRINT (the one your teacher shows) to pick a server found on this network without a terminal.")
            )
        }
        for (index, server) in found.enumerated() {
            console.line("\(index + 1). \(server.name)  \(server.url)  " + tr("key {fingerprint}", ["fingerprint": server.fingerprint]))
        }
        var chosen = found[0]
        if found.count > 1 {
            FileHandle.standardOutput.write(Data((tr("Which one? Type its number.") + " ").utf8))
            guard let reply = readLine(), let number = Int(reply.trimmingCharacters(in: .whitespaces)), found.indices.contains(number - 1) else {
                throw VaultError(.usage, tr("Nothing was chosen, so nothing was sent."))
            }
            chosen = found[number - 1]
        }
        FileHandle.standardOutput.write(
            Data((tr("Is {fingerprint} the key fingerprint your teacher shows? [y/N]", ["fingerprint": chosen.fingerprint]) + " ").utf8)
        )
        guard let reply = readLine(), TakeSession.isYes(reply) else {
            throw VaultError(.notAllowed, tr("The fingerprint was not confirmed, so nothing was sent. Ask your teacher which server is theirs."))
        }
        return chosen
    }
}
