import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTerminal

/// `vault-server classroom`: a server on the teacher's laptop that serves a class with no network and passes what the
/// students sent on to the district (issue 58). No password is kept: the classroom signs in to the district with its
/// own key, registered at `init` as the teacher's classroom (issue 69): it pulls and pushes for that class, never
/// acts as the teacher, and ends with `vault-server classroom revoke` at the district.
struct ClassroomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classroom",
        abstract: "A classroom server: serve a class with no network, then pass everything on to the district.",
        subcommands: [Init.self, Pull.self, Push.self, Status.self, Code.self, DeskCodeCommand.self, List.self, Revoke.self]
    )

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link this server to the district as the teacher's classroom; the teacher's password is read from the first line of stdin.",
            discussion: """
                The password signs in once, to register this server's own key to the teacher at the district; it is never \
                stored. Then `vault-server classroom pull` fetches the class and `vault-server serve` serves it.
                """
        )
        @OptionGroup var options: DataOptions
        @Option(help: "The district's server (http://HOST:PORT).") var upstream: String
        @Option(help: "The teacher's account at the district.") var teacher: String
        @Flag(
            help: ArgumentHelp(
                "Lock this server's store with a passphrase, read from the second line of stdin.",
                discussion: "With --store-key-file PATH too (or instead), a new key file is written there: keep it on removable media."
            )
        )
        var storePassphraseStdin = false

        func run() async throws {
            SecureFiles.restrictUmask()
            guard let password = readPasswordLine(), !password.isEmpty else {
                throw ValidationError("Give the teacher's password on the first line of standard input.")
            }
            // The store is locked under SQLCipher here, which cannot happen under a running server (issue 69).
            let serving = try options.postgresLocation() == nil ? try ServingLock.take(directory: options.dataDirectory, exclusive: true) : nil
            if try options.postgresLocation() == nil, serving == nil {
                throw ValidationError(
                    "A `vault-server serve` is running on \(options.dataDirectory). Stop it, run `classroom init` again, then start `serve`: it serves as the classroom from then on."
                )
            }
            defer { withExtendedLifetime(serving) {} }
            let storage: any ServerStorage
            if let key = try encryptStore() {
                storage = try SQLiteServerStorage(directory: options.dataDirectory, key: key)
            } else {
                storage = try await options.storage()
            }
            let identity = try await ReceiptIssuer(storage: storage).identity()
            let transport = AsyncHTTPTransport(baseURL: upstream)
            defer { Task { await transport.shutdown() } }
            var client = ServerClient(transport: transport)
            // A rural link drops requests: each is tried again on the sync schedule.
            let retry = RequestRetry(tries: 6, longestWait: .seconds(8), deadline: .seconds(60))
            do {
                let districtKey = try await retry.run { [client] in try await client.serverKey() }
                _ = try ServerPublicKey(districtKey)
                client.token = try await retry.run { [client] in try await client.signIn(user: teacher, password: password) }.token
                let signingKey = identity.publicKey.response.signingKey
                _ = try await retry.run { [client] in try await client.registerClassroom(signingKey) }
                try? await client.signOut()
                try await storage.setClassroomLink(ClassroomLink(upstream: transport.baseURL, teacher: teacher, districtKey: districtKey))
                TerminalText.line(
                    "This server is \(teacher)'s classroom of the district at \(transport.baseURL) (district key \(districtKey.fingerprint))."
                )
                TerminalText.line("Next: `vault-server classroom pull`, then `vault-server serve --host 0.0.0.0`.")
            } catch let error as ServerError {
                throw ClassroomCommand.fail(error)
            } catch is ReceiptError {
                throw ClassroomCommand.fail(.badResponse("the district's key is not valid"))
            }
        }

        /// A classroom keeps everything encrypted at rest (issue 69): the first `init` locks its store with the
        /// passphrase, a new key file, or both, copying what a plaintext store held so far. Nil when there is nothing
        /// to do (PostgreSQL, or a store already locked).
        func encryptStore() throws -> StoreKey? {
            guard try options.postgresLocation() == nil, try StoreLock.read(directory: options.dataDirectory) == nil else { return nil }
            var passphrase: SecretBytes?
            if storePassphraseStdin {
                guard let line = readPasswordLine(), line.count >= 8 else {
                    throw ValidationError("Give the store's passphrase, 8 characters or more, on the second line of standard input.")
                }
                passphrase = line
            }
            let keyFile = options.storeKeyFile ?? ServerEnvironment.current[StoreLock.keyFileVariable]
            guard passphrase != nil || keyFile != nil else {
                throw ValidationError(
                    "A classroom keeps its store encrypted (a stolen laptop must yield nothing). Give --store-passphrase-stdin (the passphrase on the second line of stdin; `vault-server unlock` opens it each day) or --store-key-file PATH (a new key file, kept on removable media for a laptop that runs unattended), or both."
                )
            }
            if let keyFile {
                let file = URL(fileURLWithPath: keyFile).standardizedFileURL.path
                let data = URL(fileURLWithPath: options.dataDirectory).standardizedFileURL.path
                guard !file.hasPrefix(data + "/") else {
                    throw ValidationError(
                        "The key file must not be kept in the data directory (a stolen laptop would carry it): put it on removable media."
                    )
                }
                guard !SecureFiles.exists(keyFile) else {
                    throw ValidationError(
                        "\(keyFile) exists already; a new store key file is written to a path where nothing is. Nothing was changed."
                    )
                }
            }
            let key = try StoreLock.encrypt(
                directory: options.dataDirectory,
                passphrase: passphrase,
                keyFilePath: keyFile,
                iterations: options.passwordIterations,
                now: Date()
            )
            TerminalText.line(
                "This server's store is encrypted"
                    + (passphrase != nil ? "; each day, `vault-server unlock` opens it with the passphrase" : "")
                    + (keyFile.map { (passphrase != nil ? ", or " : "; ") + "its key file \($0) opens it: keep that on removable media" } ?? "") + "."
            )
            return key
        }
    }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch from the district what the class needs: the teacher's assessments, the students and their vault keys, extra time, draws."
        )
        @OptionGroup var options: DataOptions
        @Option(help: "Only the students of this group (7b); every student of the district otherwise.") var group: String?

        func run() async throws {
            let storage = try await options.storage()
            let pulled: ClassroomUpstream.Pulled?
            do {
                // What is asked now is what the server's own pulls fetch from now on (no --group: everyone).
                pulled = try await ClassroomUpstream.pull(storage, group: .some(group))
            } catch let error as ServerError {
                throw ClassroomCommand.fail(error)
            }
            guard let pulled else { throw ClassroomCommand.notAClassroom }
            let pull = pulled.pull
            let keyed = pull.students.count { !$0.deviceKeys.isEmpty }
            TerminalText.line(
                "Pulled \(pull.assessments.count) assessments and \(pull.students.count) students (\(keyed) with a vault key) from the district"
                    + (pulled.fetched == pull.assessments.count ? "." : "; \(pulled.fetched) of the assessments were new or changed.")
            )
            if pulled.results.changed > 0 { TerminalText.line(ClassroomCommand.broughtDown(pulled.results)) }
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the district every answer and hand-in the class sent here, exactly once; run again to go on after a cut."
        )
        @OptionGroup var options: DataOptions
        @Option(help: "Items per request.") var chunk = 200

        func run() async throws {
            guard (1...ClassroomPushRequest.maxItems).contains(chunk) else {
                throw ValidationError("A chunk is 1 to \(ClassroomPushRequest.maxItems) items.")
            }
            let storage = try await options.storage()
            guard try await storage.classroomLink() != nil else { throw ClassroomCommand.notAClassroom }
            let pushed: ClassroomUpstream.Pushed?
            do {
                pushed = try await ClassroomUpstream.push(storage, chunk: chunk)
            } catch let error as ServerError {
                throw ClassroomCommand.fail(error)
            }
            guard let pushed else { throw ClassroomCommand.notAClassroom }
            var line = "The district holds \(pushed.stored) more items."
            if pushed.refused > 0 { line += " It refused \(pushed.refused): `vault-server classroom status` names them." }
            if pushed.waiting > 0 { line += " \(pushed.waiting) wait for the next push." }
            TerminalText.line(line)
            // What the district decided (and the class as it is now) comes down once what was decided here went up.
            do {
                if let pulled = try await ClassroomUpstream.pull(storage, group: nil), pulled.results.changed > 0 {
                    TerminalText.line(ClassroomCommand.broughtDown(pulled.results))
                }
            } catch let error as ServerError {
                throw ClassroomCommand.fail(error)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What waits to go up to the district, what it refused, and when it was last reached."
        )
        @OptionGroup var options: DataOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let storage = try await options.storage()
            guard let link = try await storage.classroomLink() else {
                throw ValidationError("This server is not a classroom: `vault-server classroom init --upstream URL --teacher NAME` makes it one.")
            }
            let summary = try await storage.upstreamSummary()
            // The key students check when their vault first meets this classroom (issue 69).
            let fingerprint = try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
            if json {
                let refused: [JSONValue] = summary.refused.map {
                    .object([
                        "kind": .string($0.kind.rawValue), "id": .string($0.itemID), "user": .string($0.user), "message": .string($0.message ?? ""),
                    ])
                }
                let value: JSONValue = .object([
                    "upstream": .string(link.upstream), "teacher": .string(link.teacher), "district_key": .string(link.districtKey.fingerprint),
                    "fingerprint": .string(fingerprint),
                    "pulled_at": link.pulledAt.map { .string(Timestamp.string($0)) } ?? .null,
                    "group": link.group.map(JSONValue.string) ?? .null,
                    "results_at": link.resultsAt.map { .string(Timestamp.string($0)) } ?? .null,
                    "pushed_at": link.pushedAt.map { .string(Timestamp.string($0)) } ?? .null,
                    "waiting_answers": .number(Double(summary.waitingAnswers)), "waiting_hand_ins": .number(Double(summary.waitingHandIns)),
                    "stored_answers": .number(Double(summary.storedAnswers)), "stored_hand_ins": .number(Double(summary.storedHandIns)),
                    "waiting_marks": .number(Double(summary.waitingMarks)), "stored_marks": .number(Double(summary.storedMarks)),
                    "refused": .array(refused),
                ])
                print(try CanonicalJSON.text(value))
                return
            }
            let check = "Students check this classroom's key when their vault first meets it: \(fingerprint)."
            for line in link.statusLines + [check] + summary.lines { TerminalText.line(line) }
        }
    }

    /// What bringing the district's results down changed, in a sentence.
    static func broughtDown(_ brought: ResultsBroughtDown) -> String {
        "From the district: \(brought.released) results released, \(brought.hidden) hidden, \(brought.grades) points, "
            + "\(brought.feedback) feedback and \(brought.late) late decisions."
    }

    static let notAClassroom = ValidationError(
        "This server is not a classroom: `vault-server classroom init --upstream URL --teacher NAME` makes it one."
    )

    /// `ClassroomUpstream.withDistrict` for a command: the district's trouble as a sentence and an exit code.
    static func withDistrict(_ storage: some ServerStorage, _ body: (ServerClient, RequestRetry) async throws -> Void) async throws {
        do {
            guard try await ClassroomUpstream.withDistrict(storage, body) != nil else { throw notAClassroom }
        } catch let error as ServerError {
            throw fail(error)
        }
    }

    /// The district's trouble in a sentence on stderr, exit 69 when it cannot be reached (what waits stays).
    static func fail(_ error: ServerError) -> ExitCode {
        switch error {
        case .offline, .degraded, .serverFailure, .rateLimited:
            TerminalText.errorLine("Error: The district cannot be reached now; nothing was lost. Run this again when it can.")
            return ExitCode(69)
        case .badCredentials:
            TerminalText.errorLine(
                "Error: The district did not take this classroom's sign-in: its key was revoked there, or the teacher's password changed. Run `vault-server classroom init` again with the teacher's password."
            )
            return ExitCode(77)
        case .accountDisabled:
            TerminalText.errorLine(
                "Error: The district has turned the teacher's account off, so this classroom cannot pull or push. Nothing was lost here; ask the district's admin."
            )
            return ExitCode(77)
        case .forbidden, .signInExpired:
            TerminalText.errorLine(
                "Error: The district does not take this server as a classroom. Run `vault-server classroom init` again with the teacher's password."
            )
            return ExitCode(77)
        case .tooLarge:
            TerminalText.errorLine(
                "Error: What the district sends or takes is larger than one request may be; nothing was lost. Push with a smaller --chunk, or pull a group at a time (--group)."
            )
            return ExitCode(76)
        case .badResponse(let what):
            TerminalText.errorLine("Error: The district answered something this classroom cannot use (\(what)); nothing was changed here.")
            return ExitCode(76)
        case .refused(_, let message):
            TerminalText.errorLine("Error: The district refused: \(message)")
            return ExitCode(76)
        default:
            // Never a raw Swift error (issue 70): the client's own sentence.
            TerminalText.errorLine("Error: \(error.vaultError.message)")
            return ExitCode(76)
        }
    }
}
