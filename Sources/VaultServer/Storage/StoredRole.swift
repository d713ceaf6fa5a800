import VaultAPI

/// How a `Role` is stored, the same on both engines: `users.role` is 'student' or 'teacher' (its CHECK predates
/// administrators) and `users.admin` is 1 for an administrator, a teacher who acts on everything.
public enum StoredRole {
    /// The role as a column of a query over `users` (aliased or not: pass the alias with its dot).
    public static func column(_ alias: String = "") -> String {
        "CASE WHEN \(alias)admin <> 0 THEN 'admin' ELSE \(alias)role END"
    }

    /// The two columns a role is written as.
    public static func columns(_ role: Role) -> (role: String, admin: Int) {
        role == .admin ? (Role.teacher.rawValue, 1) : (role.rawValue, 0)
    }
}
