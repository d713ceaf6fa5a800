import Foundation
import Testing
import VaultTestSupport

/// The 1EdTech BBQs test package (../shared/qti-examples) as a student takes it: published by `vault-server`,
/// downloaded, and every question opened on the take screen of the real `vault` in a real 80x24 terminal.
@Suite(.ownThreads)
struct QTIPackageScreenTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(
            "shared/qti-examples/packages/1EdTech+qti-examples_qtiv3-examples_packaging_BBQsTest_BBQsTest.zip"
        )

    @Test("the BBQs package at 80x24: each of its 19 questions opens with its header, nothing wider than the screen; an answer given there is kept")
    func bbqsAtEightyColumns() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        defer { withExtendedLifetime(server) {} }
        let published = try server.admin(["publish", Self.package.path, "--id", "bbqs", "--json"])
        #expect(published.status == 0 && published.json?["questions"] as? Int == 19, "\(published.stdout)\(published.stderr)")
        #expect(try vault.unlocked(["download", "bbqs"]).status == 0)
        let screen = try TmuxScreen()
        try screen.type("\(Binaries.directory)/vault take bbqs --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        try screen.waitFor("Question 1 of 19")
        for number in 1...19 {
            try screen.type("#\(number)")
            let rows = try screen.waitFor("Question \(number) of 19")
            #expect(rows.allSatisfy { $0.count <= 80 }, "question \(number):\n\(rows.joined(separator: "\n"))")
            #expect(
                !rows.joined().contains("qti-") && !rows.joined().contains("<"),
                "question \(number) shows markup:\n\(rows.joined(separator: "\n"))"
            )
        }
        // The true/false item (q1): answered on the screen, kept in the vault.
        try screen.type("#1")
        try screen.waitFor("Question 1 of 19")
        try screen.type("b")
        try screen.waitFor("Saved")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        let shown = try #require(try vault.unlocked(["show", "bbqs", "--json"]).json?["questions"] as? [[String: Any]])
        #expect(shown.first?["answer"] as? String == "ChoiceB", "\(String(describing: shown.first))")
    }
}
