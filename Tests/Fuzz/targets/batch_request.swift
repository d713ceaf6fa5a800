import Foundation
import VaultAPI
import VaultCore
import VaultRules

// The server's batch-request decode and per-item rules, against a fixed assessment published as version 1 and
// changed (q1's prompt) in version 2. Every item gets a result under its own id; what is accepted really fits its
// question; a conflict names the current version; and no message repeats the student's answer.

let v1 = try! AssessmentPublisher.serve(fixture(q1Prompt: "2x = 10"), version: 1).document
let v2 = try! AssessmentPublisher.serve(fixture(q1Prompt: "3x = 12"), version: 2).document

func fixture(q1Prompt: String) -> Assessment {
    Assessment(
        id: "fuzz-quiz",
        title: "Fuzz quiz",
        questions: [
            Question(
                id: "q1",
                type: .singleChoice,
                prompt: q1Prompt,
                choices: [.init(id: "a", text: "4"), .init(id: "b", text: "5")],
                answerKey: [.string("b")]
            ),
            Question(
                id: "q2",
                type: .multipleChoice,
                prompt: "Primes",
                choices: [.init(id: "a", text: "2"), .init(id: "b", text: "4"), .init(id: "c", text: "5")]
            ),
            Question(id: "q3", type: .numeric, prompt: "pi", tolerance: 0.01),
            Question(id: "q4", type: .shortText, prompt: "Name", maxLength: 40),
        ]
    )
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if count == 0, ProcessInfo.processInfo.environment["FUZZ_PRINT_SEED"] != nil { printSeed() }
    let data = Data(bytes: start, count: count)
    let decoded = try? JSONDecoder().decode(BatchRequest.self, from: data)
    // The server's hand reader either steps aside or reads exactly what JSONDecoder reads.
    if let fast = JSONReader.batchRequest(data) {
        require(
            decoded?.responses == fast.responses && decoded?.device == fast.device,
            "the hand-written batch reader disagrees with JSONDecoder"
        )
    }
    guard let batch = decoded else { return 0 }
    for item in batch.responses {
        require(
            (try? CanonicalJSON.text(item.answer)) == (try? CanonicalJSON.encode(item.answer)).map { String(decoding: $0, as: UTF8.self) },
            "an answer's canonical text differs from JSONEncoder's"
        )
        let answered = item.assessmentVersion == 1 ? v1 : item.assessmentVersion == 2 ? v2 : nil
        let result = ResponseRules.judge(item, answeredVersion: answered, current: v2)
        require(result.id == item.id, "a result under another id")
        if case .string(let text) = item.answer, text.count >= 8, let message = result.message {
            require(!message.contains(text), "a message repeats the answer")
        }
        switch result.status {
        case .accepted:
            guard let question = answered?.question(item.questionId) else {
                require(false, "accepted an answer to a question that is not in its version")
                return 0
            }
            require(question.hash == item.questionHash, "accepted a forged question hash")
            require(AnswerRules.problem(with: item.answer, for: question) == nil, "accepted an answer the rule refuses")
            require(Timestamp.milliseconds(item.answeredAt) != nil, "accepted an unreadable answered_at")
            require(
                item.assessmentVersion == v2.version || item.force || v2.question(item.questionId)?.hash == item.questionHash,
                "accepted an answer to a changed question without force"
            )
        case .conflict:
            require(result.currentVersion == v2.version, "a conflict that does not name the current version")
        default:
            break
        }
    }
    return 0
}

/// `FUZZ_PRINT_SEED=1 batch_request /dev/null`-style runs print a valid batch for the seed corpus.
func printSeed() {
    func item(_ id: String, _ version: Assessment, _ question: String, _ answer: JSONValue, force: Bool = false) -> ResponseItem {
        ResponseItem(
            id: id,
            attemptId: "att-1",
            assessmentId: version.id,
            assessmentVersion: version.version ?? 0,
            questionId: question,
            questionHash: version.question(question)?.hash ?? "",
            answer: answer,
            timeSpentMs: 1200,
            answeredAt: "2026-11-22T09:00:00.000Z",
            force: force
        )
    }
    let batch = BatchRequest(responses: [
        item("r1", v1, "q1", .string("b")), item("r2", v2, "q2", .array([.string("a"), .string("c")])),
        item("r3", v1, "q3", .number(3.14)), item("r4", v2, "q4", .string("Ada Lovelace")), item("r5", v1, "q1", .string("a"), force: true),
    ])
    print(String(decoding: try! canonicalEncoder().encode(batch), as: UTF8.self))
}
