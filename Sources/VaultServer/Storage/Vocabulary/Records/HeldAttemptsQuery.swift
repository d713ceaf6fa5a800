import Foundation
import VaultAPI

/// `GET /v1/attempts`: how the rows of the user's attempts and their current answers (`ResultStatements`) become
/// `HeldAttempt`s.
public enum HeldAttemptsQuery {
    public struct AttemptRow: Sendable {
        public var id: String
        public var startedAt: Double?
        public var handedIn: Bool
        public init(id: String, startedAt: Double?, handedIn: Bool) {
            self.id = id
            self.startedAt = startedAt
            self.handedIn = handedIn
        }
    }

    public struct AnswerRow: Sendable {
        public var attemptID: String
        public var responseID: String
        public var questionID: String
        public var answer: String
        public var answeredAt: String
        public var version: Int
        public init(attemptID: String, responseID: String, questionID: String, answer: String, answeredAt: String, version: Int) {
            self.attemptID = attemptID
            self.responseID = responseID
            self.questionID = questionID
            self.answer = answer
            self.answeredAt = answeredAt
            self.version = version
        }
    }

    /// The attempts that have answers, oldest start first (then by id), their answers by question. An answer stored
    /// in a form that no longer decodes is a damaged row, named, never served as something else.
    public static func assemble(assessmentID: String, attempts: [AttemptRow], answers: [AnswerRow]) throws -> [HeldAttempt] {
        var byAttempt: [String: [AnswerRow]] = [:]
        for row in answers { byAttempt[row.attemptID, default: []].append(row) }
        return try attempts.compactMap { attempt -> HeldAttempt? in
            guard let rows = byAttempt[attempt.id], !rows.isEmpty else { return nil }
            let held = try rows.sorted { $0.questionID < $1.questionID }.map { row in
                guard let value = JSONReader.storedAnswer(row.answer) else {
                    throw StorageError.damaged("the stored answer \(row.responseID)")
                }
                return HeldAttempt.Answer(responseId: row.responseID, questionId: row.questionID, answer: value, answeredAt: row.answeredAt)
            }
            return HeldAttempt(
                attemptId: attempt.id,
                assessmentId: assessmentID,
                assessmentVersion: rows.map(\.version).max() ?? 1,
                startedAt: attempt.startedAt.map { Timestamp.string(epoch: $0) },
                extraMinutes: 0,
                state: attempt.handedIn ? .handedIn : .inProgress,
                answers: held
            )
        }
        .sorted { ($0.startedAt ?? "", $0.attemptId) < ($1.startedAt ?? "", $1.attemptId) }
    }
}
