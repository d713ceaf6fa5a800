import Foundation
import VaultAPI
import VaultCore
import VaultRules
import VaultScoring

/// `serve --demo`: a student `demo` / `demo-password`, a teacher `teacher` / `teacher-password`, and the samples.
public enum DemoSeeder {
    public static let student = (name: "demo", password: "demo-password")
    public static let teacher = (name: "teacher", password: "teacher-password")

    public static func sampleAssessments() throws -> [Assessment] {
        guard let directory = Bundle.module.url(forResource: "Samples", withExtension: nil) else { return [] }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map { try JSONDecoder().decode(Assessment.self, from: Data(contentsOf: $0)) }
    }

    /// Idempotent: existing users are kept, unchanged samples keep their version.
    public static func seed(_ storage: some ServerStorage, passwordIterations: Int, now: @Sendable () -> Date) async throws {
        for (name, password, role) in [(student.name, student.password, Role.student), (teacher.name, teacher.password, Role.teacher)] {
            if try await storage.user(named: name) == nil {
                try await storage.createUser(
                    PasswordHasher.makeRecord(name: name, role: role, password: SecretBytes(Array(password.utf8)), iterations: passwordIterations),
                    now: now()
                )
            }
        }
        for assessment in try sampleAssessments() {
            try PublishCheck.validate(assessment)
            // The demo teacher owns the samples (the desk shows a teacher what they own or share).
            _ = try await storage.publish(assessment, now: now(), by: Publisher(name: teacher.name, role: .teacher))
        }
    }
}
