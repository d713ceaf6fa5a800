import VaultAPI

/// Who publishes: a teacher (who owns what they create) or an administrator (who acts on everything). The server's own
/// command line on the server machine publishes as no one in particular (`nil`), with an administrator's rights.
public struct Publisher: Sendable, Equatable {
    public var name: String
    public var role: Role
    public init(name: String, role: Role) {
        self.name = name
        self.role = role
    }
}

/// A teacher's standing on one assessment.
public enum TeacherAccess: String, Sendable, Equatable, Codable {
    /// Published it (or was made owner): shares it with co-teachers.
    case owner
    /// Shared with them by the owner or an administrator (or kept from before ownership: every teacher of the time).
    case coTeacher = "co_teacher"
}

/// The ownership rules, one place for both stores and every route: who may read or change an assessment.
public enum Ownership {
    /// May someone with `role` and `access` act on an assessment (read its answers, grade, close, release, export,
    /// replace, delete)? An administrator always; a teacher with access; never a student.
    public static func mayAct(role: Role, access: TeacherAccess?) -> Bool {
        switch role {
        case .admin: true
        case .teacher: access != nil
        case .student: false
        }
    }

    /// May `publisher` publish into an id that already holds an assessment (`exists`, deleted or not) with these
    /// teachers? Into a new id, any teacher may (and becomes its owner).
    public static func mayPublish(exists: Bool, teachers: [String], publisher: Publisher?) -> Bool {
        guard let publisher else { return true }
        guard exists else { return publisher.role != .student }
        return mayAct(role: publisher.role, access: teachers.contains(publisher.name) ? .coTeacher : nil)
    }

    /// May someone with `role` and `access` add or remove co-teachers? The owner and administrators.
    public static func mayShare(role: Role, access: TeacherAccess?) -> Bool {
        role == .admin || (role == .teacher && access == .owner)
    }
}
