import Foundation
import Testing
import VaultTestSupport

/// Ownership on the server's command line (an administrator's rights): `publish --owner`, `share`, `user add --role
/// admin`; a teacher named as owner cannot replace another teacher's assessment.
@Suite(.ownThreads)
struct OwnershipCommandTests {
    @Test("publish --owner, share and its refusals, an administrator account")
    func commands() throws {
        let server = try ServerProcess()
        for (name, role) in [("kim", "teacher"), ("lee", "teacher"), ("ada", "admin")] {
            let added = try server.admin(["user", "add", name, "--role", role, "--password-iterations", "1000"], stdin: "\(name)-password\n")
            #expect(added.status == 0 && added.stdout.contains("Added \(role) \(name)"), "\(added.stderr)")
        }
        let file = server.directory.file("quiz.json")
        let document: [String: Any] = [
            "id": "kims-quiz", "title": "Kim's quiz", "questions": [["id": "q1", "type": "essay", "prompt": "Why?"]],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
        #expect(try server.admin(["publish", file, "--owner", "kim"]).status == 0)
        // Lee named as the owner of a changed copy: refused, nothing replaced.
        let changed: [String: Any] = ["id": "kims-quiz", "title": "Lee's now", "questions": [["id": "q1", "type": "essay", "prompt": "How?"]]]
        let other = server.directory.file("other.json")
        try JSONSerialization.data(withJSONObject: changed).write(to: URL(fileURLWithPath: other))
        let refused = try server.admin(["publish", other, "--owner", "lee"])
        #expect(refused.status == 65 && refused.stderr.contains("belongs to other teachers"), "\(refused.stderr)")
        let nobody = try server.admin(["publish", other, "--owner", "nobody"])
        #expect(nobody.status != 0 && nobody.stderr.contains("no teacher called nobody"))

        let shared = try server.admin(["share", "kims-quiz", "--teacher", "lee"])
        #expect(shared.status == 0 && shared.stdout.contains("lee is now a co-teacher of kims-quiz"), "\(shared.stderr)")
        // Now lee may replace it as a co-teacher (another title and question: not a revision, so --replace).
        #expect(try server.admin(["publish", other, "--owner", "lee"]).status == 65)
        #expect(try server.admin(["publish", other, "--owner", "lee", "--replace"]).status == 0)
        let owner = try server.admin(["share", "kims-quiz", "--teacher", "kim", "--remove"])
        #expect(owner.status != 0 && owner.stderr.contains("kim owns kims-quiz"))
        let missing = try server.admin(["share", "kims-quiz", "--teacher", "zed"])
        #expect(missing.status != 0 && missing.stderr.contains("There is no teacher called zed"))
        let removed = try server.admin(["share", "kims-quiz", "--teacher", "lee", "--remove"])
        #expect(removed.status == 0 && removed.stdout.contains("lee is no longer a co-teacher"))
        #expect(try server.admin(["share", "nope", "--teacher", "lee"]).stderr.contains("There is no assessment nope"))
    }
}
