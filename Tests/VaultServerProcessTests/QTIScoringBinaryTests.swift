import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// The IMS samples through the real binaries on each store: published by `vault-server publish`, answered offline
/// in a real vault, synced, released, and the results the student reads are the ones the items' authors give.
struct QTIScoringBinaryTests {
    @Test(
        "through vault-server and vault: \"york\" earns 0.5 of 1, three right pairs of four 2.5 of 3, a wrong order 0 of 1; a second file into a taken id is refused without --replace",
        arguments: Store.here
    )
    func authoredScores(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "qti") : nil
        let server = try ServerProcess(database: database)
        let vault = CLIVault()
        try vault.initialize()
        let login = try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(login.status == 0, "\(login.stderr)")
        // Both items ask for shuffling (shuffle="true"), so the student answers by the letters they were shown: the
        // match's right pairs are C-R, D-M and P-T by id; the order as shown is never the right one.
        let samples = [
            ("york", "qtiv2p2-examples_items_text_entry.xml", "york"),
            ("match", "qtiv2p2-examples_items_match.xml", "1 R, 2 M, 4 T"),
            ("order", "qtiv2p2-examples_items_order.xml", "a b c"),
        ]
        for (id, file, wanted) in samples {
            let path = QTIExamples.root.appendingPathComponent("items/\(file)").path
            let published = try server.admin(["publish", path, "--id", id])
            #expect(published.status == 0, "\(published.stderr)")
            #expect(try vault.unlocked(["download", id]).status == 0)
            var answer = wanted
            if id == "match" {
                let shown = try #require(try vault.unlocked(["show", id, "--json"]).json?["questions"] as? [[String: Any]])
                let right = (shown.first?["right"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                func letter(_ choice: String) -> String { right.firstIndex(of: choice).map { String(UnicodeScalar(UInt8(97 + $0))) } ?? "?" }
                answer = "1\(letter("R")) 2\(letter("M")) 4\(letter("T"))"
            }
            let saved = try vault.answer(id, "q1", answer)
            #expect(saved.status == 0, "\(id): \(saved.stderr)")
            #expect(try vault.unlocked(["submit", id]).status == 0)
        }
        // Another file into a taken id changes nothing without --replace.
        let other = QTIExamples.root.appendingPathComponent("items/qtiv2p2-examples_items_choice.xml").path
        let refused = try server.admin(["publish", other, "--id", "york"])
        #expect(refused.status == 65 && refused.stderr.contains("--replace"), "\(refused.stderr)")
        let catalog = try server.admin(["publish", other, "--id", "york", "--dry-run", "--json"])
        #expect(catalog.json?["existing_version"] as? Int == 1 && catalog.json?["replaces"] as? Bool == true, "\(catalog.stdout)")

        #expect(try vault.unlocked(["sync"]).status == 0)
        for (id, _, _) in samples { #expect(try server.admin(["release", id]).status == 0) }
        let synced = try vault.unlocked(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let results = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
        var scores: [String: [Double]] = [:]
        for result in results {
            if let id = result["assessment_id"] as? String, let score = result["score"] as? Double, let most = result["max_score"] as? Double {
                scores[id] = [score, most]
            }
        }
        #expect(scores == ["york": [0.5, 1], "match": [2.5, 3], "order": [0, 1]], "\(results)")
    }
}
