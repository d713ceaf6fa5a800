import Foundation
import Testing
import VaultLanguage
import VaultTestSupport

/// A vault made by an earlier release's binaries (`scripts/upgrade-fixture`, kept under Fixtures/upgrade/) opens with
/// today's: every answer, receipt, result and dead letter still there, and its timed attempt's deadline where it was
/// (long past, so the first command hands the attempt in at that deadline and says so).
@Suite(.ownThreads)
struct UpgradeFixtureTests {
    /// `expected.json`: what the fixture was made with (no secret).
    struct Expected: Decodable {
        var receiptID: String
        var algebraAnswers: Int
        var deadLetters: Int
        var timedStartedAfter: Double
        var timedStartedBefore: Double
        var timeLimitSeconds: Double
        enum CodingKeys: String, CodingKey {
            case receiptID = "receipt_id"
            case algebraAnswers = "algebra_answers"
            case deadLetters = "dead_letters"
            case timedStartedAfter = "timed_started_after"
            case timedStartedBefore = "timed_started_before"
            case timeLimitSeconds = "time_limit_seconds"
        }
    }

    static let folder = Binaries.repositoryRoot + "/Tests/VaultCLITests/Fixtures/upgrade"
    static var fixtures: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

    @Test("the kept fixtures are there (a test over none would prove nothing)")
    func fixturesExist() {
        #expect(!Self.fixtures.isEmpty)
    }

    @Test("a vault made by an earlier release opens with every answer, receipt, result, dead letter and deadline", arguments: fixtures)
    func opens(fixture: String) throws {
        let source = Self.folder + "/" + fixture
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: source + "/expected.json")))
        // A copy (the fixture stays as it was made), private as a vault's files must be (git keeps no modes).
        let vault = CLIVault()
        try FileManager.default.copyItem(atPath: source + "/vault", toPath: vault.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: vault.path)
        for file in try FileManager.default.contentsOfDirectory(atPath: vault.path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: vault.path + "/" + file)
        }

        // The first command hands in the timed attempt at its deadline: the start plus the limit, as it was kept. A
        // fixture made minutes ago has its deadline ahead still: the vault's wall clock runs a day ahead (the shim).
        let shim = try #require(CarryOnCommandTests.wallClockShim, "the wall-clock shim builds")
        var later = ["LD_PRELOAD": shim, "WALL_OFFSET_SECONDS": "86400"]
        // The vault writes the deadline in its time zone; this test reads it in its own: the same one.
        if let zone = ProcessInfo.processInfo.environment["TZ"] { later["TZ"] = zone }
        let status = try vault.unlocked(["status"], environment: later)
        #expect(status.status == 0 || status.status == 3, "\(status.stderr)")
        let deadlines = Set(
            [expected.timedStartedAfter, expected.timedStartedBefore].map {
                PeopleDates.dayAndClock(Date(timeIntervalSince1970: $0 + expected.timeLimitSeconds))
            }
        )
        let said = status.stdout + status.stderr
        #expect(said.contains("ran out at") && deadlines.contains { said.contains($0) }, "\(deadlines): \(said)")

        let verify = try vault.unlocked(["verify"])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        let receipts = try #require(try vault.unlocked(["receipts", "--json"]).json?["receipts"] as? [[String: Any]])
        #expect(receipts.count == 1 && receipts[0]["receipt_id"] as? String == expected.receiptID)
        #expect((receipts[0]["responses"] as? [Any])?.count == expected.algebraAnswers)
        // Its signature still verifies against the pinned server key, and it names the answers this vault holds.
        let file = vault.root.file("receipt.json")
        #expect(try vault.unlocked(["receipts", "export", expected.receiptID, "--out", file]).status == 0)
        let check = try vault.unlocked(["receipts", "verify", file])
        #expect(check.status == 0 && check.stdout.contains("It names every answer of the attempt"), "\(check.stdout) \(check.stderr)")
        let results = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
        #expect(results.count == 1 && results[0]["assessment_id"] as? String == "algebra-1" && results[0]["released"] as? Bool == true)
        let letters = try vault.unlocked(["dead-letters", "list", "--json"])
        let dead = try #require(letters.json?["dead_letters"] as? [[String: Any]], "\(letters.stdout)")
        #expect(dead.count == expected.deadLetters)
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        let states = Dictionary(
            list.map { ($0["id"] as? String ?? "", $0["attempt_state"] as? String ?? "") },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(states["algebra-1"] == "synced" && states["science-timed"] == "submitted", "\(states)")
    }
}
