import Foundation
import VaultAPI

/// What each question told us, with Moodle's quiz statistics definitions (Moodle Docs, "Quiz statistics
/// calculations"): per question the facility index, standard deviation, discrimination index (the correlation of
/// the question's marks with the rest of the test) and discriminative efficiency; for the test the average,
/// median, standard deviation, coefficient of internal consistency (CIC), error ratio and standard error.
///
/// The attempts analysed are handed-in attempts with every answer graded; a late hand-in the teacher gave 0 is left
/// out (its zeros say nothing about the questions), and so is an attempt still waiting for a teacher's points (its
/// total is not known yet). Both are counted so the page can say so. A hand-in kept apart (a revoked device's, not
/// accepted) is not the student's and is not analysed.
public struct ItemAnalysis: Sendable, Equatable {
    /// Which attempts of a student count: the first (the default, as in Moodle), or every one.
    public enum Attempts: String, Sendable, CaseIterable {
        case first
        case all
    }

    /// Why a question deserves a second look.
    public enum Concern: String, Sendable, Equatable {
        /// Facility under 10 %: almost nobody got it.
        case veryHard = "very_hard"
        /// Facility over 90 %: almost everybody got it.
        case veryEasy = "very_easy"
        /// Students who did well on the rest of the test did worse on this one.
        case negativeDiscrimination = "negative_discrimination"

        public var sentence: String {
            switch self {
            case .veryHard: "Very hard: fewer than 1 in 10 marks were earned."
            case .veryEasy: "Very easy: more than 9 in 10 marks were earned."
            case .negativeDiscrimination: "Students who did well on the rest of the test did worse on this question: check its key."
            }
        }
    }

    public struct QuestionStatistics: Sendable, Equatable {
        public var id: String
        public var prompt: String
        public var maxPoints: Double
        /// Attempts that count for it.
        public var attempts: Int
        public var averagePoints: Double?
        /// Average mark as a fraction of the question's points (0...1).
        public var facility: Double?
        /// Standard deviation of the marks as a fraction of the question's points.
        public var standardDeviation: Double?
        /// 100 × the correlation of its marks with the rest of the test (-100...100).
        public var discriminationIndex: Double?
        /// 100 × its covariance with the rest of the test over the most that covariance could be.
        public var discriminativeEfficiency: Double?
        public var concerns: [Concern]
    }

    public struct TestStatistics: Sendable, Equatable {
        public var attempts: Int
        public var maxPoints: Double
        public var average: Double?
        public var median: Double?
        public var standardDeviation: Double?
        /// Coefficient of internal consistency, percent.
        public var internalConsistency: Double?
        /// Error ratio, percent.
        public var errorRatio: Double?
        /// Standard error, in points.
        public var standardError: Double?
    }

    public var attempts: Attempts
    public var test: TestStatistics
    public var questions: [QuestionStatistics]
    /// Attempts left out because a teacher has not graded all their answers yet.
    public var waitingForGrading: Int
    /// Late hand-ins given 0, left out.
    public var zeroedLate: Int
    /// Each student drew their own questions (pools): a question's attempts are those who drew it.
    public var pooled: Bool = false

    /// The analysis of `inputs` (every handed-in attempt) against the questions of `document` (the current version).
    public static func analyse(_ inputs: [ResultInput], document: Assessment, attempts: Attempts = .first) -> ItemAnalysis {
        // A hand-in kept apart (a revoked device's) is not the student's attempt.
        var chosen = inputs.filter { !$0.record.keptApart }.sorted {
            ($0.record.user, $0.record.receivedAt, $0.record.attemptID) < ($1.record.user, $1.record.receivedAt, $1.record.attemptID)
        }
        if attempts == .first {
            var seen = Set<String>()
            chosen = chosen.filter { seen.insert($0.record.user).inserted }
        }
        var waiting = 0
        var zeroed = 0
        // One row per attempt: its total, and each current question's mark (nil: not asked in that attempt).
        var totals: [Double] = []
        var marks: [[Double?]] = []
        let pooled = document.sections?.contains { $0.count < $0.questions.count } ?? false
        let drawn = pooled || (document.questionCount ?? document.questions.count) < document.questions.count
        for input in chosen {
            if input.record.lateDecision == .zeroed {
                zeroed += 1
                continue
            }
            let sums = Scoring.totals(for: input.record, document: input.document, answers: input.answers, grades: input.grades)
            if sums.pending > 0 {
                waiting += 1
                continue
            }
            totals.append(sums.score)
            marks.append(
                document.questions.map { current in
                    // An attempt of an older version counts with its own version of the question, if it had one; a
                    // question drawn from a pool counts in the attempts that drew it (the student's draw, where the
                    // server keeps one: a blank is a wrong answer among those who drew it), else in those that
                    // answered it.
                    guard let asked = input.document.question(current.id) else { return nil }
                    if drawn, input.draw == nil, input.answers[current.id] == nil, input.grades[current.id] == nil { return nil }
                    return Scoring.awarded(asked, record: input.record, answers: input.answers, grades: input.grades)
                }
            )
        }
        var questions: [QuestionStatistics] = []
        var sumOfMarkVariance = 0.0
        for (index, question) in document.questions.enumerated() {
            var own: [Double] = []
            var others: [Double] = []
            for (row, total) in zip(marks, totals) {
                guard let mark = row[index] else { continue }
                own.append(mark)
                others.append(total - mark)
            }
            let statistics = Self.question(question, marks: own, rest: others)
            sumOfMarkVariance += statistics.variance ?? 0
            questions.append(statistics.result)
        }
        return ItemAnalysis(
            attempts: attempts,
            test: Self.test(
                totals,
                maxPoints: document.questions.map(Scoring.maxPoints).reduce(0, +),
                questionCount: document.questions.count,
                sumOfMarkVariance: sumOfMarkVariance
            ),
            questions: questions,
            waitingForGrading: waiting,
            zeroedLate: zeroed,
            pooled: pooled
        )
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

    /// One question's statistics from its marks and, attempt by attempt, the rest of the test's marks.
    static func question(_ question: Question, marks: [Double], rest: [Double]) -> (result: QuestionStatistics, variance: Double?) {
        let full = Scoring.maxPoints(question)
        var result = QuestionStatistics(id: question.id, prompt: question.prompt, maxPoints: full, attempts: marks.count, concerns: [])
        guard !marks.isEmpty else { return (result, nil) }
        let average = mean(marks)
        result.averagePoints = average
        if full != 0 { result.facility = average / full }
        var variance: Double?
        let s = Double(marks.count)
        if marks.count > 1 {
            let restAverage = mean(rest)
            var markSquares = 0.0
            var restSquares = 0.0
            var products = 0.0
            for (mark, other) in zip(marks, rest) {
                markSquares += (mark - average) * (mark - average)
                restSquares += (other - restAverage) * (other - restAverage)
                products += (mark - average) * (other - restAverage)
            }
            // The largest covariance these marks could have with these totals: both sorted, paired in order.
            let maximum = zip(marks.sorted(), rest.sorted()).reduce(0.0) { $0 + ($1.0 - average) * ($1.1 - restAverage) }
            let markVariance = markSquares / (s - 1)
            let restVariance = restSquares / (s - 1)
            let covariance = products / (s - 1)
            variance = markVariance
            if full != 0 { result.standardDeviation = markVariance.squareRoot() / full }
            if markVariance * restVariance != 0 { result.discriminationIndex = 100 * covariance / (markVariance * restVariance).squareRoot() }
            if maximum != 0 { result.discriminativeEfficiency = 100 * covariance / (maximum / (s - 1)) }
        }
        if let facility = result.facility {
            if facility < 0.1 { result.concerns.append(.veryHard) }
            if facility > 0.9 { result.concerns.append(.veryEasy) }
        }
        if let index = result.discriminationIndex, index < 0 { result.concerns.append(.negativeDiscrimination) }
        return (result, variance)
    }

    static func test(_ totals: [Double], maxPoints: Double, questionCount: Int, sumOfMarkVariance: Double) -> TestStatistics {
        var test = TestStatistics(attempts: totals.count, maxPoints: maxPoints)
        guard !totals.isEmpty else { return test }
        let average = mean(totals)
        test.average = average
        let sorted = totals.sorted()
        let middle = sorted.count / 2
        test.median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        let s = Double(totals.count)
        guard totals.count > 1 else { return test }
        let variance = totals.reduce(0.0) { $0 + ($1 - average) * ($1 - average) } / (s - 1)
        let deviation = variance.squareRoot()
        test.standardDeviation = deviation
        // As Moodle: CIC needs more than two attempts, more than one question and totals that differ.
        if totals.count > 2, questionCount > 1, variance != 0 {
            let p = Double(questionCount)
            let cic = 100 * p / (p - 1) * (1 - sumOfMarkVariance / variance)
            let errorRatio = 100 * max(0, 1 - cic / 100).squareRoot()
            test.internalConsistency = cic
            test.errorRatio = errorRatio
            test.standardError = errorRatio * deviation / 100
        }
        return test
    }
}
