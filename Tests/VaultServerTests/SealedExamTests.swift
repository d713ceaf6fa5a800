import Foundation
import HTTPTypes
import Synchronization
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultTestSupport

final class WallClock: Sendable {
    let date = Mutex(Date(timeIntervalSince1970: 1_764_000_000))  // 2025-11-24
    var now: @Sendable () -> Date { { self.date.withLock { $0 } } }
}

struct SealedExamTests {
    static let canary = "CANARY-SEALED-7Q"

    static func sealedQuiz(prompt: String = "first") -> Assessment {
        var quiz = Fixtures.quiz(q1Prompt: "\(canary) \(prompt)")
        quiz.sealed = true
        quiz.opensAt = "2026-12-01T09:00:00.000Z"
        quiz.timeLimitSeconds = 1_800
        for index in quiz.questions.indices {
            quiz.questions[index].prompt += " \(canary)"
            if var choices = quiz.questions[index].wire.choices {
                for choice in choices.indices { choices[choice].text += " \(canary)" }
                quiz.questions[index].wire.choices = choices
            }
        }
        return quiz
    }

    @Test(
        "a sealed exam: no question text in any response before unsealing, signed; wrong codes fail, the right one unseals; the key endpoint opens at opens_at; a new version has a new code",
        arguments: Backend.all
    )
    func sealedExam(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.sealIterations = 1_000
        let clock = WallClock()
        harness.configuration.now = clock.now
        let exams = SealedExams(storage: harness.storage, receipts: ReceiptIssuer(storage: harness.storage), iterations: 1_000)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            #expect([.ok, .created].contains(try await api.publish(Self.sealedQuiz(), teacher: teacher).status))
            let key = try ServerPublicKey(try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self))

            let download = try await api.send(.get, APIPath.assessment("quiz-1"), token: student)
            #expect(download.status == .ok)
            let catalog = try await api.send(.get, APIPath.assessments, token: student)
            let early = try await api.send(.get, APIPath.sealedKey("quiz-1"), token: student)
            for reply in [download, catalog, early] {
                #expect(!String(decoding: reply.body, as: UTF8.self).contains(Self.canary), "question text leaked")
            }
            #expect(early.status == .forbidden)
            #expect(try early.decode(ErrorEnvelope.self).opensAt == "2026-12-01T09:00:00.000Z")

            let sealed = try download.decode(Assessment.self)
            #expect(sealed.questions.isEmpty && sealed.questionCount == 6 && sealed.timeLimitSeconds == 1_800 && sealed.title == "Quiz")
            try Sealing.verifySignature(sealed, key: key)
            // A hostile server's change to the ciphertext or the header is caught before any code is typed.
            var changed = sealed
            let reversed = String(sealed.sealedContent!.ciphertext.reversed())
            changed.sealedContent?.ciphertext = reversed
            #expect(throws: SealingError.damaged) { try Sealing.verifySignature(changed, key: key) }
            var retitled = sealed
            retitled.version = 7
            #expect(throws: SealingError.damaged) { try Sealing.verifySignature(retitled, key: key) }

            let material = try await exams.material(id: "quiz-1", version: 1)
            #expect(Sealing.normalized(material.startCode) != nil && material.startCode.count == 14)
            let wrapped = try #require(sealed.sealedContent?.wrappedKey)
            for wrong in ["AAAA-BBBB-CCCC", "not a code", String(material.startCode.reversed())] {
                #expect(throws: SealingError.self) { try Sealing.unwrap(wrapped, code: wrong, id: "quiz-1", version: 1) }
            }
            let contentKey = try Sealing.unwrap(wrapped, code: material.startCode.lowercased(), id: "quiz-1", version: 1)
            let unsealed = try Sealing.unseal(sealed, contentKey: contentKey)
            #expect(unsealed.questions.count == 6 && unsealed.questions[0].prompt.contains(Self.canary))
            #expect(unsealed.questions.allSatisfy { $0.wire.answerKey == nil })

            // Online after opens_at: the key without the code.
            clock.date.withLock { $0 = Timestamp.date("2026-12-01T09:00:01.000Z")! }
            // A year on by the server's clock: the token from the start has expired (tokens expire by the injected
            // clock, not the machine's), so the student and the teacher sign in again.
            #expect(try await api.send(.get, APIPath.sealedKey("quiz-1"), token: student).status == .unauthorized)
            let again = try await api.token("student")
            let teacherAgain = try await api.token("teacher")
            let opened = try await api.send(.get, APIPath.sealedKey("quiz-1"), token: again)
            #expect(opened.status == .ok)
            #expect(try opened.decode(SealedKeyResponse.self).contentKey == contentKey.base64EncodedString())
            #expect(try await api.send(.get, APIPath.sealedKey("quiz-1")).status == .unauthorized)

            // A new version: a new code; the old one does not open it.
            #expect([.ok, .created].contains(try await api.publish(Self.sealedQuiz(prompt: "second"), teacher: teacherAgain).status))
            let next = try await api.send(.get, APIPath.assessment("quiz-1"), token: again).decode(Assessment.self)
            #expect(next.version == 2)
            let nextMaterial = try await exams.material(id: "quiz-1", version: 2)
            #expect(nextMaterial.startCode != material.startCode)
            #expect(throws: SealingError.wrongCode) {
                try Sealing.unwrap(next.sealedContent!.wrappedKey, code: material.startCode, id: "quiz-1", version: 2)
            }
            #expect(
                try Sealing.unseal(
                    next,
                    contentKey: Sealing.unwrap(next.sealedContent!.wrappedKey, code: nextMaterial.startCode, id: "quiz-1", version: 2)
                ).version == 2
            )
        }
    }
}

struct AccommodationTests {
    @Test(
        "extra time: the same exam served with each student's own time limit, each a valid document; a per-assessment setting beats the default",
        arguments: Backend.all
    )
    func extraTime(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            var quiz = Fixtures.quiz()
            quiz.timeLimitSeconds = 1_800
            try await api.publish(quiz, teacher: teacher)
            var other = Fixtures.quiz(id: "quiz-2")
            other.timeLimitSeconds = 600
            try await api.publish(other, teacher: teacher)
            try await harness.storage.setAccommodation(assessmentID: nil, user: "student2", extraMinutes: 10)
            try await harness.storage.setAccommodation(assessmentID: "quiz-1", user: "student2", extraMinutes: 15)

            let student = try await api.token("student")
            let student2 = try await api.token("student2")
            let plain = try await api.send(.get, APIPath.assessment("quiz-1"), token: student)
            let extended = try await api.send(.get, APIPath.assessment("quiz-1"), token: student2)
            let plainDocument = try plain.decode(Assessment.self)
            let extendedDocument = try extended.decode(Assessment.self)
            #expect(plainDocument.timeLimitSeconds == 1_800 && extendedDocument.timeLimitSeconds == 2_700)
            try ServedDocument.verify(plainDocument)
            try ServedDocument.verify(extendedDocument)
            #expect(plain.headers[.eTag] != extended.headers[.eTag])
            #expect(plainDocument.questions.map(\.hash) == extendedDocument.questions.map(\.hash), "answers stay valid across limits")
            #expect(try await api.served("quiz-2", token: student2).timeLimitSeconds == 1_200)
            #expect(try await api.served("quiz-2", token: student).timeLimitSeconds == 600)
        }
    }
}

struct NotSealedTests {
    @Test("an assessment that only quotes \"sealed\":true in a question is served as it is, readable, and has no key", arguments: Backend.all)
    func quotingIsNotSealing(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(q1Prompt: #"Is the JSON "sealed":true valid?"#), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            #expect(served.sealedContent == nil && served.questions.count == 6)
            try ServedDocument.verify(served)
            #expect(try await api.send(.get, APIPath.sealedKey("quiz-1"), token: student).status == .notFound)
        }
    }
}
