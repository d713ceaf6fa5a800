import Foundation
import Testing
import VaultAPI

/// Numbers from outside: bounded where they enter, converted without traps (issue 51).
struct NumbersTests {
    @Test("points print for any Double a document, a store or a hostile server can hold: none traps")
    func pointsText() {
        #expect(AttemptResult.pointsText(2) == "2")
        #expect(AttemptResult.pointsText(1.5) == "1.50")
        #expect(AttemptResult.pointsText(-10) == "-10")
        #expect(AttemptResult.pointsText(1e19) == "1e+19")
        #expect(AttemptResult.pointsText(1e308) == "1e+308")
        #expect(AttemptResult.pointsText(-9.3e18) == "-9.3e+18")
        #expect(AttemptResult.pointsText(.infinity) == "∞")
        #expect(AttemptResult.pointsText(.nan) == "?")
    }

    @Test("Int(saturating:) rounds toward zero and holds within range; NaN is 0")
    func saturating() {
        #expect(Int(saturating: 2.9) == 2 && Int(saturating: -2.9) == -2)
        #expect(Int(saturating: 1e19) == .max && Int(saturating: -1e19) == .min)
        #expect(Int(saturating: .infinity) == .max && Int(saturating: -.infinity) == .min && Int(saturating: .nan) == 0)
        #expect(Int(saturating: 9_223_372_036_854_774_784.0) == 9_223_372_036_854_774_784)
        #expect(Int(saturating: -9_223_372_036_854_775_808.0) == .min)
    }

    @Test("a page or count from a query: a whole number from 1, at most the limit; anything else nil")
    func positive() {
        #expect(Numbers.positive("1") == 1 && Numbers.positive("200") == 200)
        for text in ["0", "-1", "-9223372036854775808", "9223372036854775807", "1e3", "two", "", " 1", "+1", "1000001"] {
            #expect(Numbers.positive(text) == nil, "\(text)")
        }
        #expect(Numbers.positive(nil as String?) == nil)
    }

    @Test("the validator bounds points (above 0, at most 10,000), tolerances and a normal maximum")
    func validatorBounds() throws {
        func document(points: Double?, tolerance: Double? = nil) -> Assessment {
            Assessment(
                id: "n",
                title: "Numbers",
                questions: [Question(id: "q1", type: .numeric, prompt: "?", points: points, answerKey: [.number(1)], tolerance: tolerance)]
            )
        }
        for points in [1, 0.5, 10_000] as [Double] { #expect(throws: Never.self) { try AssessmentValidator.validate(document(points: points)) } }
        for points in [0, -10, 10_000.01, 1e19, 1e308, .infinity, .nan] as [Double] {
            #expect(throws: AssessmentValidator.Problem.self, "\(points)") { try AssessmentValidator.validate(document(points: points)) }
        }
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(document(points: 1, tolerance: 1e300)) }
        #expect(throws: Never.self) { try AssessmentValidator.validate(document(points: nil, tolerance: 0.5)) }
    }
}
