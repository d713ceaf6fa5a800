import Foundation
import VaultAPI
import VaultScoring

/// Scoring from the answer keys. A question scores its `points` (1 when unset) or 0; nil means the teacher decides.
public enum Scoring {
    /// A question's points: its own (1 when unset), held within what the validator allows, so that a document stored
    /// before points were bounded (`points: 1e308`) still adds up to a finite total.
    public static func maxPoints(_ question: Question) -> Double {
        guard let points = question.points else { return 1 }
        return points.isFinite ? min(Numbers.maxPoints, max(0, points)) : points > 0 ? Numbers.maxPoints : 0
    }

    /// The points `answer` earns, or nil when only a teacher can say (an essay; a short text without accepted answers).
    public static func points(for answer: JSONValue?, question: Question) -> Double? {
        let full = maxPoints(question)
        if let processing = question.processing, !isEssay(question) {
            // The item's own rules, as its author wrote them: their SCORE is in the question's points. Rules that run
            // out of their work budget on this answer score nothing automatically: the teacher grades it.
            guard let score = ResponseEvaluator.score(processing, answer: answer) else { return nil }
            return bounded(score * (processing.weight ?? 1), full)
        }
        // Nothing written (no answer, or only white space) earns nothing, and is not the teacher's to grade: a blank
        // essay is not "to grade" unless the teacher gives it points.
        guard let answer, !isBlank(answer) else { return 0 }
        switch question.body {
        case .singleChoice(let body) where isWeighted(body.choices):
            // Partial credit: the chosen choice's weight (the keyed choice earns full credit unless weighed).
            return bounded(full * weight(of: answer.stringValue, in: body.choices, key: body.answerKey), full)
        case .multipleChoice(let body) where isWeighted(body.choices):
            // Partial credit: the weights of the chosen choices added up (a wrong choice may cost), within [0, points].
            guard case .array(let values) = answer else { return 0 }
            let chosen = Set(values.compactMap(\.stringValue))
            return bounded(full * chosen.map { weight(of: $0, in: body.choices, key: body.answerKey) }.reduce(0, +), full)
        case .singleChoice(let body):
            guard let key = body.answerKey?.first else { return nil }
            return answer == key ? full : 0
        case .trueFalse(let body):
            guard let key = body.answerKey?.first else { return nil }
            return answer == key ? full : 0
        case .multipleChoice(let body):
            guard let key = body.answerKey else { return nil }
            // All or nothing: exactly the keyed choices, in any order.
            guard case .array(let values) = answer else { return 0 }
            return Set(values.compactMap(\.stringValue)) == Set(key.compactMap(\.stringValue)) && values.count == key.count ? full : 0
        case .numeric(let body):
            guard let key = body.answerKey?.first?.numberValue else { return nil }
            guard let value = answer.numberValue else { return 0 }
            return abs(value - key) <= (body.tolerance ?? 0) + 1e-9 ? full : 0
        case .shortText(let body):
            guard !body.acceptedAnswers.isEmpty else { return nil }
            guard let text = answer.stringValue else { return 0 }
            return bounded(full * textWeight(text, accepted: body.acceptedAnswers, weights: body.acceptedAnswerWeights), full)
        case .essay:
            return nil
        case .matching(let body):
            // Partial credit: each right pair earns its share; a wrong pair earns nothing (never below 0).
            guard let key = body.answerKey?.compactMap(AnswerRules.pair), !key.isEmpty else { return nil }
            let right = Set(key.map { "\($0.left)\u{0}\($0.right)" })
            let given = (answer.arrayValue ?? []).compactMap(AnswerRules.pair).filter { right.contains("\($0.left)\u{0}\($0.right)") }
            return bounded(full * Double(given.count) / Double(key.count), full)
        case .ordering(let body):
            // Partial credit: the share of items in their right place.
            guard let key = body.answerKey?.compactMap(\.stringValue), !key.isEmpty else { return nil }
            let given = (answer.arrayValue ?? []).compactMap(\.stringValue)
            let placed = zip(key, given).filter { $0 == $1 }.count
            return bounded(full * Double(placed) / Double(key.count), full)
        case .fillInBlanks(let body):
            // Partial credit: the share of blanks filled right.
            guard !needsTeacher(question), !body.blanks.isEmpty else { return nil }
            guard case .object(let values) = answer else { return 0 }
            // Each blank earns its share, times the weight of what fills it.
            let earned = body.blanks.map { blank -> Double in
                guard let value = values[blank.id]?.stringValue else { return 0 }
                switch blank.kind {
                case .choice(let choices, let answer): return weight(of: value, in: choices, key: answer.map { [.string($0)] })
                case .text(_, let weights, let tolerances?): return numberWeight(value, tolerances: tolerances, weights: weights)
                case .text(let accepted, let weights, nil): return textWeight(value, accepted: accepted, weights: weights)
                }
            }
            return bounded(full * earned.reduce(0, +) / Double(body.blanks.count), full)
        }
    }

    static func isWeighted(_ choices: [Choice]) -> Bool { choices.contains { $0.weight != nil } }

    /// An essay is always the teacher's, even with the item's own processing.
    /// An answer with nothing in it: text of white space only, or a fill-in with no blank filled.
    static func isBlank(_ answer: JSONValue) -> Bool {
        switch answer {
        case .string(let text): text.allSatisfy(\.isWhitespace)
        case .object(let values): values.values.allSatisfy { $0.stringValue?.allSatisfy(\.isWhitespace) ?? false }
        default: false
        }
    }

    static func isEssay(_ question: Question) -> Bool {
        if case .essay = question.body { true } else { false }
    }

    /// A choice's share: its weight, else full for a keyed choice and nothing for another.
    static func weight(of id: String?, in choices: [Choice], key: [JSONValue]?) -> Double {
        guard let id, let choice = choices.first(where: { $0.id == id }) else { return 0 }
        return choice.weight ?? ((key ?? []).contains(.string(id)) ? 1 : 0)
    }

    /// A text's share: the best weight among the accepted answers it matches (full when not weighed), else 0.
    static func textWeight(_ text: String, accepted: [String], weights: [String: Double]?) -> Double {
        let given = normalized(text)
        return accepted.filter { normalized($0) == given }.map { weights?[$0] ?? 1 }.max() ?? 0
    }

    /// A numeric blank's share: the best weight among the accepted numbers it is within the tolerance of, else 0.
    static func numberWeight(_ text: String, tolerances: [String: Double], weights: [String: Double]?) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = Double(trimmed) ?? Double(trimmed.replacingOccurrences(of: ",", with: ".")), value.isFinite else { return 0 }
        return tolerances.filter { accepted, tolerance in Double(accepted).map { abs(value - $0) <= tolerance + 1e-9 } ?? false }
            .map { weights?[$0.key] ?? 1 }.max() ?? 0
    }

    /// Only a teacher can score it: an essay, a short text without accepted answers, a blank with no key.
    /// Whether the teacher gives this question's points (an essay; a short text without accepted answers; a blank
    /// without its answer): its grading page and a points box on the answer sheet. A blank answer to it still
    /// scores 0 by itself.
    public static func isTeacherGraded(_ question: Question) -> Bool { needsTeacher(question) }

    static func needsTeacher(_ question: Question) -> Bool {
        if question.processing != nil, !isEssay(question) { return false }
        return switch question.body {
        case .essay: true
        case .shortText(let body): body.acceptedAnswers.isEmpty
        case .fillInBlanks(let body): body.blanks.contains { $0.rightAnswer == nil }
        case .singleChoice, .multipleChoice, .trueFalse, .numeric, .matching, .ordering: false
        }
    }

    /// A score within [0, points], rounded to hundredths.
    /// Not a number (the rules' `inf - inf`) scores nothing; infinity scores full.
    static func bounded(_ points: Double, _ full: Double) -> Double {
        guard !points.isNaN else { return 0 }
        return min(full, max(0, (points * 100).rounded() / 100))
    }

    /// What a released result shows as the right answer.
    static func correctAnswer(_ question: Question) -> [JSONValue]? {
        switch question.body {
        case .fillInBlanks(let body):
            var values: [String: JSONValue] = [:]
            for blank in body.blanks { if let right = blank.rightAnswer { values[blank.id] = .string(right) } }
            return [.object(values)]
        case .shortText(let body):
            return body.acceptedAnswers.isEmpty ? nil : fullCredit(body.acceptedAnswers, weights: body.acceptedAnswerWeights).map(JSONValue.string)
        case .essay:
            return nil
        case .singleChoice, .multipleChoice, .trueFalse, .numeric, .matching, .ordering:
            return question.body.answerKey
        }
    }

    /// The accepted texts a student should learn from: those earning full credit (else the best partial ones), never
    /// a catch-all pattern (`*`, which GIFT and Moodle use to give feedback on any other answer).
    static func fullCredit(_ accepted: [String], weights: [String: Double]?) -> [String] {
        let candidates = accepted.filter { text in !text.isEmpty && !text.allSatisfy { $0 == "*" || $0 == " " } }
        let best = candidates.map { weights?[$0] ?? 1 }.max() ?? 0
        return best > 0 ? candidates.filter { (weights?[$0] ?? 1) == best } : []
    }

    /// The points a question of a submitted attempt stands at: the teacher's grade over the automatic points; a late
    /// hand-in the teacher zeroed scores nothing, one they accepted counts like any other. Nil: waiting for the teacher.
    /// The automatic points are the ones kept with the record's totals when it has them (worked out once, when its
    /// answers last changed), else scored from `answers`.
    public static func awarded(_ question: Question, record: SubmissionRecord, answers: [String: JSONValue], grades: [String: Double]) -> Double? {
        if record.lateDecision == .zeroed { return 0 }
        if let grade = grades[question.id] { return grade }
        // A key kept with null is the teacher's question: nil, not scored again.
        if let automatic = record.totals?.automatic, let kept = automatic[question.id] { return kept }
        return points(for: answers[question.id], question: question)
    }

    /// Score, maximum and questions waiting for the teacher of one handed-in attempt, as a store keeps them beside
    /// its submission: worked out when it is handed in and again whenever its answers or grades change, so a roster
    /// shows a class's scores without reading their answers. A late hand-in the teacher zeroed is zeroed when read
    /// (`for(_:)`), so a late decision changes nothing stored.
    public struct Totals: Sendable, Equatable {
        public var score: Double
        public var maxScore: Double
        public var pending: Int
        /// Each question's automatic points (nil: the teacher's to give), before the teacher's grades: what results
        /// read instead of scoring the answers again. Nil for totals kept before these were.
        public var automatic: [String: Double?]?
        public init(score: Double, maxScore: Double, pending: Int, automatic: [String: Double?]? = nil) {
            self.score = score
            self.maxScore = maxScore
            self.pending = pending
            self.automatic = automatic
        }

        /// Totals are equal when they add up the same: `automatic` is how they were reached, not what they are.
        public static func == (a: Totals, b: Totals) -> Bool {
            a.score == b.score && a.maxScore == b.maxScore && a.pending == b.pending
        }

        /// `automatic` as a store keeps it: canonical JSON, a question id to its points or null.
        public var automaticText: String? {
            guard let automatic else { return nil }
            let values = automatic.mapValues { points in points.map(JSONValue.number) ?? .null }
            return try? CanonicalJSON.text(.object(values))
        }

        /// `automatic` from a store's text; throws on text that is not what `automaticText` writes.
        public static func automatic(stored text: String) throws -> [String: Double?] {
            guard case .object(let values) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw CocoaError(.coderReadCorrupt)
            }
            return try values.mapValues { value -> Double? in
                switch value {
                case .null: return nil
                case .number(let points) where points.isFinite: return points
                default: throw CocoaError(.coderReadCorrupt)
                }
            }
        }

        /// What the record's attempt stands at: nothing when the teacher zeroed it.
        public func `for`(_ record: SubmissionRecord) -> Totals {
            record.lateDecision == .zeroed ? Totals(score: 0, maxScore: maxScore, pending: 0, automatic: automatic) : self
        }
    }

    /// The totals a store keeps for an attempt, from the rows it holds: the teacher's document of the attempt's
    /// version, its current answers (as stored) and the teacher's grades. Nil when the document cannot be read (the
    /// roster then scores the attempt from its answers, as for a submission stored before totals were kept).
    /// `draw`: the student's stored draw (pools): only their questions count.
    public static func kept(
        source: Data,
        draw: String? = nil,
        answers: [(questionID: String, answer: String)],
        grades: [(questionID: String, points: Double)]
    ) -> Totals? {
        guard var document = try? JSONDecoder().decode(Assessment.self, from: source) else { return nil }
        if let draw {
            guard let drawn = try? JSONDecoder().decode(Draw.self, from: Data(draw.utf8)) else { return nil }
            document = DrawPlan.asked(document, draw: drawn)
        }
        var values: [String: JSONValue] = [:]
        for row in answers { values[row.questionID] = JSONReader.storedAnswer(row.answer) }
        return totals(
            document: document,
            answers: values,
            grades: Dictionary(grades.map { ($0.questionID, $0.points) }, uniquingKeysWith: { _, last in last })
        )
    }

    /// Score, maximum and questions waiting for the teacher, as `result` counts them, without building the result
    /// (a roster sums thousands of attempts).
    public static func totals(
        for record: SubmissionRecord,
        document: Assessment,
        answers: [String: JSONValue],
        grades: [String: Double]
    ) -> (score: Double, maxScore: Double, pending: Int) {
        let totals = totals(document: document, answers: answers, grades: grades).for(record)
        return (totals.score, totals.maxScore, totals.pending)
    }

    /// The totals before a late decision: the teacher's grade over the automatic points, question by question.
    static func totals(document: Assessment, answers: [String: JSONValue], grades: [String: Double]) -> Totals {
        var totals = Totals(score: 0, maxScore: 0, pending: 0)
        var automatic: [String: Double?] = [:]
        for question in document.questions {
            totals.maxScore += maxPoints(question)
            let scored = points(for: answers[question.id], question: question)
            automatic[question.id] = scored
            if let points = grades[question.id] ?? scored {
                totals.score += points
            } else {
                totals.pending += 1
            }
        }
        totals.automatic = automatic
        return totals
    }

    /// Case-folded, trimmed, inner whitespace collapsed to one space, Unicode NFC.
    public static func normalized(_ text: String) -> String {
        // ASCII (most answers): the same result byte by byte, without Foundation's normalization (a roster scores
        // every short answer of a class: this was a third of its time).
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            var space = false
            for byte in text.utf8 {
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    space = !bytes.isEmpty
                    continue
                }
                if space {
                    bytes.append(0x20)
                    space = false
                }
                bytes.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The result of a submitted attempt: automatic points, the teacher's grades over them, correct answers only
    /// once released.
    public static func result(
        for record: SubmissionRecord,
        document: Assessment,
        answers: [String: JSONValue],
        grades: [String: Double],
        feedback: [String: String] = [:],
        released: Bool
    ) -> AttemptResult {
        var questions: [AttemptResult.QuestionResult] = []
        for question in document.questions {
            let points = Self.awarded(question, record: record, answers: answers, grades: grades)
            let correct: [JSONValue]? = released ? correctAnswer(question) : nil
            questions.append(
                .init(
                    questionId: question.id,
                    points: points,
                    maxPoints: maxPoints(question),
                    correctAnswer: correct,
                    feedback: feedback[question.id]
                )
            )
        }
        return AttemptResult(
            attemptId: record.attemptID,
            assessmentId: record.assessmentID,
            assessmentVersion: record.assessmentVersion,
            user: record.user,
            released: released,
            score: questions.compactMap(\.points).reduce(0, +),
            maxScore: questions.map(\.maxPoints).reduce(0, +),
            pending: questions.filter { $0.points == nil }.count,
            questions: questions
        )
    }
}

/// What the store reads for one submitted attempt's result.
public struct ResultInput: Sendable {
    public var record: SubmissionRecord
    /// The teacher's document for the submitted version (answer keys included).
    public var document: Assessment
    public var answers: [String: JSONValue]
    public var grades: [String: Double]
    /// The teacher's written feedback per question.
    public var feedback: [String: String]
    /// The teacher released the results (or the assessment shows them at submission).
    public var released: Bool
    /// The student's draw, where the assessment draws per student (pools, shuffling, template items); nil: every
    /// question as written.
    public var draw: Draw?
    public init(
        record: SubmissionRecord,
        document: Assessment,
        answers: [String: JSONValue],
        grades: [String: Double],
        feedback: [String: String] = [:],
        released: Bool
    ) {
        self.feedback = feedback
        self.record = record
        self.document = document
        self.answers = answers
        self.grades = grades
        self.released = released
    }

    public var result: AttemptResult {
        Scoring.result(for: record, document: document, answers: answers, grades: grades, feedback: feedback, released: released)
    }
}

/// Which results a student may see.
public enum ResultRules {
    /// Shown once the teacher released the results or the assessment shows them at submission, except a hand-in that
    /// arrived after closing which the teacher has not decided on yet (its released results, the correct answers,
    /// would reach the student before the teacher accepted or zeroed it), and a hand-in kept apart (a revoked device's).
    public static func visible(_ input: ResultInput) -> Bool {
        guard input.released || input.document.results == .onSubmit else { return false }
        return !input.record.awaitsDecision && !input.record.keptApart
    }
}
