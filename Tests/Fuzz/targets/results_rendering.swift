import Foundation
import VaultAPI
import VaultModel
import VaultRules

// Results and the roster over documents and rows as a store may hold them: never validated (stored before a bound
// existed, or damaged), with any number a Double can be (points 1e19, 1e308, NaN through a mapping, negative), kept
// totals of any size, times anywhere. Nothing traps; totals and scores stay finite; every number prints.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    // The input's tail (after a NUL) gives numbers; the head is the document.
    let parts = data.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    guard let document = try? JSONDecoder().decode(Assessment.self, from: Data(parts[0])) else { return 0 }
    var numbers = (parts.count > 1 ? Array(parts[1]) : []).makeIterator()
    func number() -> Double {
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(numbers.next() ?? 0x41) }
        return Double(bitPattern: bits)
    }
    var answers: [String: JSONValue] = [:]
    var grades: [String: Double] = [:]
    var automatic: [String: Double?] = [:]
    for question in document.questions.prefix(64) {
        switch (numbers.next() ?? 0) % 5 {
        case 0: answers[question.id] = .number(number())
        case 1: answers[question.id] = .string(question.id)
        case 2: answers[question.id] = .array([.string("a"), .number(number())])
        case 3: grades[question.id] = number()
        default: automatic[question.id] = number()
        }
    }
    let totals = Scoring.Totals(score: number(), maxScore: number(), pending: Int(numbers.next() ?? 0), automatic: automatic)
    var record = SubmissionRecord(
        attemptID: "a-1",
        user: "ana",
        assessmentID: document.id,
        assessmentVersion: 1,
        submittedAt: "2026-11-20T10:10:00.000Z",
        forced: false,
        receiptID: "r-1",
        receivedAt: number(),
        responseCount: answers.count,
        startedAt: "2026-11-20T10:00:00.000Z",
        timeUsedMilliseconds: Int(saturating: number()),
        clockMovedBackMilliseconds: Int(saturating: number())
    )
    record.totals = (numbers.next() ?? 0) % 2 == 0 ? totals : nil
    let input = ResultInput(record: record, document: document, answers: answers, grades: grades, released: true)
    let result = input.result
    require(result.maxScore.isFinite, "a result's maximum is not finite: \(result.maxScore)")
    for item in result.questions {
        _ = AttemptResult.pointsText(item.maxPoints)
        if let points = item.points { _ = AttemptResult.pointsText(points) }
    }
    _ = AttemptResult.pointsText(result.score)
    _ = AttemptResult.pointsText(number())
    let kept = Scoring.totals(for: record, document: document, answers: answers, grades: [:])
    require(kept.maxScore.isFinite, "kept totals' maximum is not finite")
    let facts = RosterFacts(
        assessmentID: document.id,
        document: document,
        version: 1,
        closedAt: number(),
        released: true,
        students: [RosterFacts.Student(name: "ana", group: nil)],
        downloads: [RosterFacts.Download(user: "ana", version: 1, at: number())],
        extraMinutes: ["ana": Int(numbers.next() ?? 0)],
        results: [input],
        inProgress: [RosterFacts.InProgress(user: "ana", attemptID: "a-2", answered: 1, lastReceivedAt: number(), startedAt: number())]
    )
    let roster = RosterPlan.roster(facts, group: nil, now: Date(timeIntervalSince1970: number().isFinite ? min(max(number(), 0), 4e9) : 0))
    for student in roster.students {
        if let score = student.score { _ = AttemptResult.pointsText(score) }
    }
    _ = TimeAuthority.judge(
        startedAt: number(),
        limitSeconds: document.timeLimitSeconds,
        extraMinutes: Int(numbers.next() ?? 0),
        answers: [TimeAuthority.AnswerTime(answeredAtMilliseconds: Int64(Int(saturating: number())), receivedAt: number())],
        submittedAt: "2026-11-20T10:10:00.000Z",
        now: Date()
    )
    return 0
}
