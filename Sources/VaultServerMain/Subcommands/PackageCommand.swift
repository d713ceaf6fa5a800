import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

/// `vault-server package ID (--user NAME | --group G | --all) --out DIR`: one file per student, for schools with no
/// network at all (issue 57).
struct PackageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Write each student's assessment to a file (DIR/USER-ID.vaultpkg) for `vault import` with no network.",
        discussion:
            "Each file holds that student's own document (their draw, their extra time; a sealed exam stays sealed: the start code is still needed), this server's public key, a one-time enrolment secret and the server's signature over all of it, the document and the secret sealed under the student's slip code. Give each student their code on paper (--codes FILE writes the sheet; printed otherwise), never on the stick: without it a package imports nothing. The student's hand-in file made from it is accepted by `vault-server import` for that student only. A package copied to a second device cannot hand in once the first device's hand-in bound the student's vault key."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "One student.") var user: String?
    @Option(help: "Every student of this group.") var group: String?
    @Flag(help: "Every student expected on the assessment's roster.") var all = false
    @Option(help: "The directory the files are written to (created private, 0700).") var out: String
    @Option(help: "Refuse the package after this time (RFC 3339; default 30 days from now, at most the assessment's not_after).")
    var expires: String?
    @Flag(
        help:
            "Replace the students' earlier packages of this assessment (a stick lost or copied): those stop handing in, and a vault that used one signs in no more until it takes the new one."
    )
    var replace = false
    @Option(help: "Write the slip codes sheet here (private, 0600): one code per student, to print; never on the stick.") var codes: String?
    @Flag(help: "Print {\"packages\":[{\"user\",\"file\",\"expires_at\"}]} as JSON (the codes only in --codes FILE).") var json = false

    struct Written: Encodable {
        let user: String
        let file: String
        let expiresAt: String
        enum CodingKeys: String, CodingKey {
            case user, file
            case expiresAt = "expires_at"
        }
    }

    func validate() throws {
        guard [user != nil, group != nil, all].filter({ $0 }).count == 1 else {
            throw ValidationError("Name the students: one of --user NAME, --group G or --all.")
        }
        if let expires, Timestamp.date(expires) == nil { throw ValidationError("--expires must be an RFC 3339 time such as 2026-12-31T23:59:59Z.") }
        if json, codes == nil { throw ValidationError("--json needs --codes FILE: the slip codes never go in the JSON.") }
    }

    func run() async throws {
        let storage = try await options.storage()
        let now = Date()
        let expiresAt = expires.flatMap(Timestamp.date) ?? now.addingTimeInterval(30 * 24 * 3600)
        let packages = StudentPackages(storage: storage, sealIterations: options.sealIterations)
        let students = try await packages.students(assessmentID: id, user: user, group: group, now: now)
        guard !students.isEmpty else { throw ValidationError("No student to write a package for.") }
        try SecureFiles.createDirectory(out)
        var written: [Written] = []
        var slips: [(user: String, code: String)] = []
        for student in students {
            let package: AssessmentPackage
            do {
                let made = try await packages.package(assessmentID: id, user: student, expiresAt: expiresAt, replacing: replace, now: now)
                package = made.package
                slips.append((student, made.code))
            } catch let problem as StudentPackages.Problem {
                throw ValidationError(problem.description)
            }
            let file = "\(out)/" + StudentPackages.fileName(user: student, assessmentID: id)
            try SecureFiles.atomicWrite(try CanonicalJSON.encode(package), to: file)
            written.append(Written(user: student, file: file, expiresAt: package.expiresAt))
        }
        let fingerprint = try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
        let sheet = StudentPackages.codesSheet(slips, assessmentID: id, fingerprint: fingerprint)
        if let codes { try SecureFiles.atomicWrite(Data(sheet.utf8), to: codes) }
        if json {
            print(String(decoding: try CanonicalJSON.encode(["packages": written]), as: UTF8.self))
            return
        }
        for entry in written { TerminalText.line("\(entry.file) (\(entry.user), until \(Timestamp.readable(entry.expiresAt)))") }
        if let codes {
            TerminalText.line("The slip codes are in \(codes): print it and give each student their own code; never put it on the stick.")
        } else {
            TerminalText.line("")
            for line in sheet.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { TerminalText.line(String(line)) }
        }
        TerminalText.line("Students check the server key's fingerprint at import: \(fingerprint).")
    }
}
