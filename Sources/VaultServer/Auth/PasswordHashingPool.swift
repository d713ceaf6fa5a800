import Foundation
import NIOPosix
import Synchronization
import VaultAPI
import VaultCore

/// Runs password derivations on a few threads of their own, so a flood of logins never blocks the event loop
/// that answers everything else; logins beyond the pool's threads wait their turn.
public final class PasswordHashingPool: Sendable {
    private let pool: NIOThreadPool
    let iterations: Int
    /// Verified against when the user name is unknown, so that an unknown name costs what a known one costs.
    private let dummy: UserRecord
    private let verifications = Atomic<Int>(0)

    /// How many password derivations `verify` has run (tests check an unknown name costs one too).
    public var derivationsRun: Int { verifications.load(ordering: .relaxed) }

    public init(threads: Int, iterations: Int) throws {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.iterations = iterations
        dummy = try PasswordHasher.makeRecord(
            name: "",
            role: .student,
            password: SecretBytes(try CryptoRandom.bytes(16)),
            iterations: iterations
        )
    }

    deinit { try? pool.syncShutdownGracefully() }

    /// Checks `password` against `record`, or against the dummy record (always false) when there is none.
    public func verify(_ password: SecretBytes, against record: UserRecord?) async throws -> Bool {
        let dummy = self.dummy
        return try await pool.runIfActive {
            self.verifications.add(1, ordering: .relaxed)
            let matches = PasswordHasher.verify(password, against: record ?? dummy)
            return record != nil && matches
        }
    }

    /// A new account's record at the current cost, derived on the pool's threads.
    public func newRecord(name: String, role: Role, password: SecretBytes) async throws -> UserRecord {
        let iterations = self.iterations
        return try await pool.runIfActive { try PasswordHasher.makeRecord(name: name, role: role, password: password, iterations: iterations) }
    }

    /// A new hash at the current cost (for raising an older hash after a successful login).
    public func rehash(_ record: UserRecord, password: SecretBytes) async throws -> UserRecord {
        let iterations = self.iterations
        return try await pool.runIfActive {
            try PasswordHasher.makeRecord(name: record.name, role: record.role, password: password, iterations: iterations)
        }
    }
}
