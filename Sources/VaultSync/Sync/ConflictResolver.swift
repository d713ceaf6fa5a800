import Foundation
import VaultCore

/// What the student decided about answers to questions that changed on the server.
public enum ConflictChoice: String, Sendable, CaseIterable {
    /// Send them anyway (force).
    case submit
    /// Drop them and download the new version.
    case discard
    /// Keep them pending and contact the teacher.
    case keep
}

/// Asks (or answers by policy) what to do with a conflict group.
public protocol ConflictResolver: Sendable {
    func decide(_ conflict: ConflictGroup) async -> ConflictChoice
}

/// The same answer for every conflict: `--on-conflict submit|discard|keep`.
public struct FixedConflictPolicy: ConflictResolver {
    public let choice: ConflictChoice
    public init(_ choice: ConflictChoice) { self.choice = choice }
    public func decide(_ conflict: ConflictGroup) async -> ConflictChoice { choice }
}
