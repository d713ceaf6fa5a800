import Foundation
import Testing

@testable import VaultImport

/// The importers' text rule, written twice for speed: the ASCII path must give what the general one gives.
struct TidyTests {
    @Test("tidy: the ASCII fast path gives what the scalar path gives, on random text of spaces, tabs, returns, newlines and letters")
    func asciiMatchesScalars() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = [" ", " ", "\t", "\r", "\n", "\n", "a", "b", "-"]
        for _ in 0..<5_000 {
            let text = String((0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(ImportSupport.tidyASCII(text) == ImportSupport.tidyScalars(text), "\(text.debugDescription)")
        }
    }
}
