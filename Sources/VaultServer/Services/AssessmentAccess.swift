import VaultAPI
import VaultRules

extension PublishingStore {
    /// The one check every API route and desk page that reads or changes an assessment makes (`Ownership.mayAct`):
    /// an administrator always; a teacher who owns it or with whom it was shared; nobody else. Callers answer "not
    /// found" when it is false, so a teacher learns nothing of another's assessments.
    public func mayAct(user: String?, role: Role?, onAssessment id: String) async throws -> Bool {
        guard let user, let role, role.teaches else { return false }
        if role == .admin { return true }
        return Ownership.mayAct(role: role, access: try await teacherAccess(assessmentID: id, teacher: user))
    }
}
