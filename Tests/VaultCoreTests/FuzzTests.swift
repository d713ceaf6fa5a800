import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// Bounded-time mutation fuzzing of the parsers that read untrusted bytes: key file, gzip, assessment, server
/// replies. Each target mutates valid seeds (bit flips, truncation, splices, byte insertions) from a fixed seed so
/// failures reproduce; a parser may refuse, but must never crash or accept a mangled key file.
@Suite(.ownThreads)
struct FuzzTests {
    static let budget: Duration = .seconds(2)

    static func mutate(_ seed: Data, _ random: inout SplitMix64) -> Data {
        var data = seed
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where !data.isEmpty:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let index = Int.random(in: 0..<data.count, using: &random)
                data[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            }
        case 1 where !data.isEmpty:
            data = data.prefix(Int.random(in: 0..<data.count, using: &random))
        case 2:
            let junk = (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            data.insert(contentsOf: junk, at: Int.random(in: 0...data.count, using: &random))
        case 3 where data.count > 4:
            let start = Int.random(in: 0..<data.count, using: &random)
            let end = Int.random(in: start...data.count, using: &random)
            data.append(data[start..<end])
        default:
            let tokens = ["null", "[]", "{}", "\"\"", "1e999", "-0", "true", "\"\\u0000\"", String(repeating: "[", count: 300)]
            let token = Data(tokens[Int.random(in: 0..<tokens.count, using: &random)].utf8)
            data.insert(contentsOf: token, at: Int.random(in: 0...data.count, using: &random))
        }
        return data
    }

    /// Runs `body` on mutations of `seeds` until the budget is spent; returns how many inputs ran.
    static func fuzz(_ seeds: [Data], seed: UInt64, _ body: (Data) -> Void) -> Int {
        var random = SplitMix64(seed: seed)
        let deadline = ContinuousClock.now + budget
        var runs = 0
        while ContinuousClock.now < deadline {
            var input = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            for _ in 0..<Int.random(in: 1...3, using: &random) { input = mutate(input, &random) }
            body(input)
            runs += 1
        }
        return runs
    }

    @Test("key file parser: mangled files are refused, and one that still parses never unlocks with a wrong password")
    func keyFile() throws {
        let directory = TemporaryDirectory()
        _ = try TestVault.create(in: directory)
        let valid = try Data(contentsOf: URL(fileURLWithPath: directory.file("vault/vault.key")))
        let original = try KeyFile.decode(valid)
        var parsedMutants = 0
        let runs = Self.fuzz([valid], seed: 11) { input in
            guard let file = try? KeyFile.decode(input) else { return }
            parsedMutants += 1
            // Whatever parses must be semantically the original (whitespace-only changes).
            #expect(file == original)
        }
        #expect(runs > 100)
        print("key file fuzz: \(runs) inputs, \(parsedMutants) parsed")
    }

    @Test("gzip: mangled members are refused or decoded within the caps")
    func gzip() throws {
        let seeds = [
            try Gzip.compress(Data(String(repeating: "question ", count: 400).utf8)), try Gzip.compress(Data()),
            try Gzip.compress(Data(count: 300_000)),
        ]
        let limits = Gzip.Limits(maxOutputBytes: 1_000_000)
        var decoded = 0
        let runs = Self.fuzz(seeds, seed: 12) { input in
            #expect(throws: Never.self) { try GzipTests.requireGzipContract(input, limits: limits) }
            if (try? Gzip.decompress(input, limits: limits)) != nil { decoded += 1 }
        }
        // Mutants that still decode must exist, or the contract above was never exercised on output.
        #expect(decoded > 0)
        #expect(runs > 100)
    }

    @Test("assessment documents: decoding and validation refuse garbage without crashing")
    func assessment() throws {
        let sample = try Data(contentsOf: Binaries.sampleURL("algebra-1"))
        let reading = try Data(contentsOf: Binaries.sampleURL("reading-fa-en"))
        var valid = 0
        let runs = Self.fuzz([sample, reading], seed: 13) { input in
            guard let document = try? JSONDecoder().decode(Assessment.self, from: input) else { return }
            if (try? AssessmentValidator.validate(document)) != nil { valid += 1 }
            _ = try? CanonicalJSON.contentBytes(document)
        }
        #expect(runs > 100)
        print("assessment fuzz: \(runs) inputs, \(valid) still valid")
    }

    @Test("server replies: batch results, receipts, catalogs and error envelopes refuse garbage without crashing")
    func serverResponses() throws {
        let seeds = [
            Data(#"{"results":[{"id":"a","status":"accepted"},{"id":"b","status":"conflict","current_version":2,"message":"m"}]}"#.utf8),
            Data(
                #"{"receipt_id":"rcpt-1","attempt_id":"a","assessment_id":"x","assessment_version":1,"received_at":"2026-01-01T00:00:00Z","response_count":2}"#
                    .utf8
            ),
            Data(#"{"assessments":[{"id":"a","title":"t","version":1,"content_hash":"h","size_bytes":5,"updated_at":"2026-01-01T00:00:00Z"}]}"#.utf8),
            Data(#"{"error":{"code":"c","message":"m","missing":["x"]},"current_version":3}"#.utf8),
        ]
        var decoded = 0
        let runs = Self.fuzz(seeds, seed: 14) { input in
            decoded += Self.stableRoundTrip(ItemResult.self, input) + Self.stableRoundTrip(SubmissionReceipt.self, input)
            decoded += Self.stableRoundTrip(CatalogEntry.self, input) + Self.stableRoundTrip(JSONValue.self, input)
            if let batch = try? JSONDecoder().decode(BatchResponse.self, from: input) {
                for result in batch.results { decoded += Self.stableRoundTrip(ItemResult.self, try! Self.encoder.encode(result)) }
            }
            if let catalog = try? JSONDecoder().decode(CatalogResponse.self, from: input) {
                for entry in catalog.assessments { decoded += Self.stableRoundTrip(CatalogEntry.self, try! Self.encoder.encode(entry)) }
            }
            _ = try? JSONDecoder().decode(ErrorEnvelope.self, from: input)
        }
        #expect(runs > 100)
        #expect(decoded > 0)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A reply either fails to decode, or re-encodes to JSON that decodes to the same value and the same bytes.
    /// Returns 1 when it decoded (so a run can show the property was exercised).
    static func stableRoundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) -> Int {
        guard let value = try? JSONDecoder().decode(T.self, from: data) else { return 0 }
        #expect(throws: Never.self, "\(T.self)") {
            let first = try encoder.encode(value)
            let again = try JSONDecoder().decode(T.self, from: first)
            #expect(again == value)
            #expect(try encoder.encode(again) == first)
        }
        return 1
    }
}
