import Foundation
import VaultAPI

/// The `dead_letters` row: its columns, in order, and how a row becomes a `DeadLetter`.
extension DeadLetter {
    enum Column: Int, CaseIterable {
        case id, kind, refID, assessmentID, reason, createdAt, payload
        var name: String {
            switch self {
            case .id: "id"
            case .kind: "kind"
            case .refID: "ref_id"
            case .assessmentID: "assessment_id"
            case .reason: "reason"
            case .createdAt: "created_at"
            case .payload: "payload"
            }
        }
    }

    static let selection = Column.allCases.map(\.name).joined(separator: ", ")

    init(_ row: Row) throws {
        // The payload is what this vault wrote (canonical JSON of what was kept); one that does not read back is
        // damage, named, never a dead letter shown without what it kept.
        let payload: JSONValue
        do {
            payload = try JSONDecoder().decode(JSONValue.self, from: try row.data(Column.payload.name))
        } catch {
            throw DamagedRow(table: "dead_letters", key: "\(try row.int(Column.id.name))", reason: "its payload does not decode: \(error)").error
        }
        self.init(
            id: try row.int(Column.id.name),
            kind: try row.state(QueueKind.self, Column.kind.name),
            refID: try row.string(Column.refID.name),
            assessmentID: try row.optionalString(Column.assessmentID.name),
            reason: try row.string(Column.reason.name),
            createdAt: Timestamp.string(try row.date(Column.createdAt.name)),
            payload: payload
        )
    }
}
