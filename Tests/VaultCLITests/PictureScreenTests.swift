import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Pictures on the student's screen (issue 56): drawn by libchafa from the vault's copy, through the real binaries in
/// a real terminal; hostile pictures end as their description.
@Suite(.ownThreads)
struct PictureScreenTests {
    static let simple = QTIPackageScreenTests.package.deletingLastPathComponent().appendingPathComponent(
        "1EdTech+qti-examples_qtiv3-examples_packaging_simple_simple.zip"
    )
    /// A 64x32 gradient JPEG made for these tests with libjpeg.
    static let gradient = Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCAAgAEADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDz1bb2rYW29q0Vtvaqa23tXrSr/wBjf3+f5Wt9/c46WJ9oZy23tWutt7VpLbe1U1tvasZV/wCxv7/P8rW+/uenSxPtDNW29q2FtvatFbb2qmtt7VjKv/Y39/n+Vrff3PSpYn2hnLbe1bC23tWitt7VTW29qxlX/sb+/wA/ytb7+56VLE+0M1bb2rYW29q0Vtvaqa23tWMq/wDY39/n+Vrff3PyqlifaGctt7VsLbe1aK23tVNbb2rGVf8Asb+/z/K1vv7npUsT7Qzltvathbb2rRW29qprbe1Yyr/2N/f5/la339z0qWJ9oZy23tWutt7Vorbe1VFtvasJV/7G/v8AP8rW+/uenSxPtD//2Q=="
    )!

    /// Rows drawn with block or braille characters (what chafa's symbols are made of).
    static func pictureRows(_ rows: [String]) -> Int {
        rows.filter { row in row.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) || (0x2801...0x28FF).contains($0.value) } }.count
    }

    @Test(
        "the 1EdTech simple package at 80x24 with 256 colours: the take screen and show draw its picture as symbols with its description under it; the header stays on row 1; the next question has none of it; screen-reader mode says the description with no escape; --json lists it"
    )
    func simplePackageShowsItsPicture() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        defer { withExtendedLifetime(server) {} }
        let published = try server.admin(["publish", Self.simple.path, "--id", "simple", "--json"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(try vault.unlocked(["download", "simple", "algebra-1"]).status == 0)
        let screen = try TmuxScreen(environment: ["TERM": "xterm-256color", "NO_COLOR": nil])
        try screen.type("\(Binaries.directory)/vault take simple --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        let rows = try screen.waitFor("Picture 1 of 1")
        #expect(rows[0].contains("Question 1 of 1"), "\(rows.joined(separator: "\n"))")
        #expect(Self.pictureRows(rows) >= 8, "\(rows.joined(separator: "\n"))")
        #expect(rows.joined().contains("NEVER LEAVE LUGGAGE UNATTENDED"))
        #expect(rows.allSatisfy { $0.count <= 80 })
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        try screen.type("clear")
        // Another assessment's question after it: nothing of the picture remains.
        try screen.type("\(Binaries.directory)/vault take algebra-1 --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        let next = try screen.waitFor("Question 1 of")
        #expect(Self.pictureRows(next) == 0, "\(next.joined(separator: "\n"))")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        try screen.type("clear; \(Binaries.directory)/vault show simple --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        let shown = try screen.waitFor("Picture 1 of 1")
        #expect(Self.pictureRows(shown) >= 8, "\(shown.joined(separator: "\n"))")

        let spoken = try vault.unlocked(["take", "simple", "--accessible"], extraInput: ":q\n")
        #expect(spoken.stdout.contains("Picture 1 of 1: NEVER LEAVE LUGGAGE UNATTENDED"), "\(spoken.stdout)")
        #expect(!spoken.stdout.contains("\u{1B}"))
        let listed = try vault.unlocked(["show", "simple", "--json"])
        let pictures = (listed.json?["questions"] as? [[String: Any]])?.first?["pictures"] as? [[String: Any]]
        #expect(
            pictures?.first?["mime_type"] as? String == "image/png" && pictures?.first?["description"] as? String == "NEVER LEAVE LUGGAGE UNATTENDED"
        )
    }

    /// A PNG whose header says 30,000 x 30,000 pixels (3.6 GB decoded), with a few bytes of data after it.
    static var hugePNG: Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in typed {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            crc ^= 0xFFFF_FFFF
            func be(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
            return be(UInt32(body.count)) + typed + be(crc)
        }
        let side: [UInt8] = [0, 0, 0x75, 0x30]  // 30,000
        let header = side + side + [8, 6, 0, 0, 0]  // 8 bits, RGBA
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", [])
        )
    }

    @Test(
        "hostile pictures: a 30,000 x 30,000 PNG, a truncated JPEG and a JPEG that says it is a PNG: each question shows at once, the first two with their description and that they cannot be shown, the third drawn; the vault's memory stays small"
    )
    func hostilePictures() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        defer { withExtendedLifetime(server) {} }
        func question(_ id: String, _ alt: String, _ mime: String, _ bytes: Data) -> String {
            """
            {"id":"\(id)","type":"short_text","prompt":"Look at the picture.","media":[{"name":"\(id)","mime_type":"\(mime)","data":"\(bytes.base64EncodedString())","alt":"\(alt)"}]}
            """
        }
        let document = vault.root.file("pictures.json")
        let questions = [
            question("q1", "a huge map", "image/png", Self.hugePNG),
            question("q2", "", "image/jpeg", Self.gradient.prefix(600)),
            question("q3", "a gradient", "image/png", Self.gradient),
            // An SVG with a script, named a picture (issue 70).
            question("q4", "a map", "image/svg+xml", Data("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".utf8)),
        ]
        try Data("{\"id\":\"pictures\",\"title\":\"Pictures\",\"questions\":[\(questions.joined(separator: ","))]}".utf8)
            .write(to: URL(fileURLWithPath: document))
        let published = try server.admin(["publish", document])
        #expect(published.status == 0, "\(published.stderr)")
        // The teacher is told of the picture without a description, by its question.
        #expect(published.stdout.contains("Question q2: picture 1 of 1 (q2) has no description"), "\(published.stdout)")
        #expect(try vault.unlocked(["download", "pictures"]).status == 0)
        let screen = try TmuxScreen(environment: ["TERM": "xterm-256color", "NO_COLOR": nil])
        try screen.type("\(Binaries.directory)/vault take pictures --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        let huge = try screen.waitFor("Picture 1 of 1: a huge map (the picture cannot be shown here)", timeout: .seconds(5))
        #expect(Self.pictureRows(huge) == 0)
        try screen.type("#2")
        try screen.waitFor("Picture 1 of 1 (no description) (the picture cannot be shown here)", timeout: .seconds(5))
        try screen.type("#3")
        let drawn = try screen.waitFor("Picture 1 of 1: a gradient", timeout: .seconds(5))
        #expect(Self.pictureRows(drawn) >= 4, "\(drawn.joined(separator: "\n"))")
        #expect(!drawn.joined().contains("cannot be shown"))
        // The most memory the vault process held so far (its high-water mark), while it showed all three.
        let pid = try #require(try screen.pid(of: "vault"))
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let peak =
            status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? .max
        #expect(peak < 200_000, "VmHWM \(peak) kB")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")

        // `vault picture`: the bytes as published; without --out, a private copy only while it is shown.
        let out = vault.root.file("gradient.jpg")
        #expect(try vault.unlocked(["picture", "pictures", "q3", "--out", out]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Self.gradient)
        let runtime = TemporaryDirectory("runtime")
        let bin = TemporaryDirectory("bin")
        let seen = runtime.file("seen")
        let opener = bin.file("xdg-open")
        try Data("#!/bin/sh\ncp \"$1\" '\(seen)'\necho \"$1\" > '\(seen).path'\n".utf8).write(to: URL(fileURLWithPath: opener))
        chmod(opener, 0o755)
        let shown = try vault.unlocked(
            ["picture", "pictures", "q3"],
            extraInput: "\n",
            environment: ["XDG_RUNTIME_DIR": runtime.path, "DISPLAY": ":99", "PATH": bin.path + ":/usr/bin:/bin"]
        )
        #expect(shown.status == 0 && shown.stdout.contains("Picture 1 of 1: a gradient"), "\(shown.stdout)\(shown.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: seen)) == Self.gradient)
        let path = try String(contentsOfFile: seen + ".path", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix(runtime.path) && !FileManager.default.fileExists(atPath: path), "\(path) is left behind")
        #expect(path.hasSuffix(".jpg"), "named by its bytes, not by the type it claims: \(path)")
        // An SVG with a script and a truncated JPEG are never handed to the viewer: said, and nothing written.
        for question in ["q4", "q2"] {
            try? FileManager.default.removeItem(atPath: seen)
            let refused = try vault.unlocked(
                ["picture", "pictures", question],
                extraInput: "\n",
                environment: ["XDG_RUNTIME_DIR": runtime.path, "DISPLAY": ":99", "PATH": bin.path + ":/usr/bin:/bin"]
            )
            #expect(refused.status == 65 && refused.stderr.contains("not a PNG or JPEG file"), "\(question): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: seen), "\(question) reached the viewer")
        }
        // No desktop: nothing is written, the student is told how to get a file.
        let headless = TemporaryDirectory("headless")
        let told = try vault.unlocked(
            ["picture", "pictures", "q3"],
            environment: ["XDG_RUNTIME_DIR": headless.path, "DISPLAY": "", "WAYLAND_DISPLAY": ""]
        )
        #expect(told.status == 0 && told.stdout.contains("--out FILE"), "\(told.stdout)")
        #expect(((try? FileManager.default.subpathsOfDirectory(atPath: headless.path)) ?? []).allSatisfy { !$0.contains("picture-") })
        let missing = try vault.unlocked(["picture", "pictures", "q3", "2"])
        #expect(missing.status != 0 && missing.stderr.contains("has 1 picture"), "\(missing.stderr)")
    }
}
