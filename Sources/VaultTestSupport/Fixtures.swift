import Foundation
import VaultAPI
import VaultModel

/// Documents and answers the server's and the rules' tests share.
public enum Fixtures {
    /// A quiz with six question types; `attempts` submitted attempts per student (tests submit several).
    public static func quiz(id: String = "quiz-1", q1Prompt: String = "2x = 10. x = ?", attempts: Int? = 10) -> Assessment {
        var quiz = Assessment(
            id: id,
            title: "Quiz",
            teacherContact: "t@school.example",
            questions: [
                Question(
                    id: "q1",
                    type: .singleChoice,
                    prompt: q1Prompt,
                    choices: [Choice(id: "a", text: "2"), Choice(id: "b", text: "5")],
                    answerKey: [.string("b")]
                ),
                Question(
                    id: "q2",
                    type: .multipleChoice,
                    prompt: "Pick two",
                    choices: [Choice(id: "a", text: "x"), Choice(id: "b", text: "y"), Choice(id: "c", text: "z")],
                    answerKey: [.string("a"), .string("c")]
                ),
                Question(id: "q3", type: .trueFalse, prompt: "True?", answerKey: [.bool(true)]),
                Question(id: "q4", type: .numeric, prompt: "Pi?", answerKey: [.number(3.14)], tolerance: 0.01),
                Question(id: "q5", type: .shortText, prompt: "Name it", maxLength: 20),
                Question(id: "q6", type: .essay, prompt: "Explain", maxLength: 2000),
            ]
        )
        quiz.attempts = attempts
        return quiz
    }

    public static func item(
        _ served: Assessment,
        question: String,
        answer: JSONValue,
        id: String = UUID().uuidString,
        attempt: String = "attempt-1",
        at time: String = "2026-11-20T10:00:00.000Z",
        force: Bool = false,
        version: Int? = nil
    ) -> ResponseItem {
        ResponseItem(
            id: id,
            attemptId: attempt,
            assessmentId: served.id,
            assessmentVersion: version ?? served.version ?? 1,
            questionId: question,
            questionHash: served.question(question)?.hash ?? "missing",
            answer: answer,
            timeSpentMs: 1200,
            answeredAt: time,
            force: force
        )
    }
}

extension SubmissionRequest {
    /// This request listing the current answers among `items` (the latest per question by answered_at, then id), as a
    /// vault lists its attempt's answers.
    public func listing(_ items: [ResponseItem]) -> SubmissionRequest {
        var latest: [String: ResponseItem] = [:]
        for item in items {
            if let held = latest[item.questionId], (held.answeredAt, held.id) > (item.answeredAt, item.id) { continue }
            latest[item.questionId] = item
        }
        var copy = self
        copy.answers = latest.values.sorted { $0.questionId < $1.questionId }.map {
            SubmittedAnswer(
                responseId: $0.id,
                questionId: $0.questionId,
                answerSha256: answerDigest(canonicalAnswer: (try? CanonicalJSON.encode($0.answer)) ?? Data())
            )
        }
        return copy
    }
}
