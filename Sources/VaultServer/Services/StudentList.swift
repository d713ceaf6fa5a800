import Foundation
import VaultAPI
import VaultCore
import VaultRules

/// A class list a teacher pastes or exports from a spreadsheet: one student per line, `name,group[,password]`
/// (RFC 4180 quoting, a byte-order mark dropped, a header line naming `name` is skipped). Read whole and checked
/// before anything is stored: a bad line refuses the list, with its line number, and nothing is added. Names follow
/// `AccountNames`: no invisible characters, no mixed alphabets, and two names that differ only in case or Unicode
/// form are one name.
public struct StudentList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var group: String?
        /// From the file; nil: one is generated and shown once.
        public var password: String?
        public init(name: String, group: String?, password: String?) {
            self.name = name
            self.group = group
            self.password = password
        }
    }

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooMany(max: Int)
        case badLine(Int, String)

        public var description: String {
            switch self {
            case .empty: "The list has no students. Put one student per line: name, group, and a password if you have one."
            case .tooMany(let max): "A list adds at most \(max) students at a time. Split it and add each part. Nothing was added."
            case .badLine(let line, let why): "Line \(line): \(why) Nothing was added."
            }
        }
    }

    public static let maxStudents = 500
    public static let minPasswordLength = 8

    public var entries: [Entry]

    /// What a header line's first cell says.
    static let headers: Set<String> = ["name", "username", "user", "student", "login"]

    public init(csv text: String) throws {
        var entries: [Entry] = []
        var names = Set<String>()
        // A spreadsheet's UTF-8 export starts with a byte-order mark: it is not part of the first name.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        for (index, fields) in Self.records(text).enumerated() {
            let number = index + 1
            let cells = fields.map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.allSatisfy(\.isEmpty) { continue }
            if index == 0, let first = cells.first, Self.headers.contains(first.lowercased()) { continue }
            guard cells.count <= 3 else { throw Problem.badLine(number, "a line has at most three cells: name, group, password.") }
            let name = cells[0]
            guard !name.isEmpty, name.count <= 200, Identifiers.isClean(name) else {
                throw Problem.badLine(number, "a name is 1 to 200 characters without control characters.")
            }
            if let problem = AccountNames.problem(name) { throw Problem.badLine(number, problem) }
            guard names.insert(AccountNames.key(name)).inserted else { throw Problem.badLine(number, "\(name) is in the list twice.") }
            let group = cells.count > 1 && !cells[1].isEmpty ? cells[1] : nil
            if let group, group.count > 64 || !Identifiers.isClean(group) {
                throw Problem.badLine(number, "a group is at most 64 characters without control characters.")
            }
            let password = cells.count > 2 && !cells[2].isEmpty ? fields[2] : nil
            if let password, password.count < Self.minPasswordLength {
                throw Problem.badLine(number, "a password is at least \(Self.minPasswordLength) characters (leave it empty to have one made).")
            }
            entries.append(Entry(name: name, group: group, password: password))
            guard entries.count <= Self.maxStudents else { throw Problem.tooMany(max: Self.maxStudents) }
        }
        guard !entries.isEmpty else { throw Problem.empty }
        self.entries = entries
    }

    /// The records of RFC 4180 text: cells split at commas outside quotes, `""` inside quotes a quote, lines at
    /// CRLF or LF outside quotes.
    static func records(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        var pending: Character?
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            pending = next
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                fields.append(field)
                records.append(fields)
                fields = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append(fields)
        }
        return records
    }

    /// A password to read out or print: 12 letters and digits from an alphabet without look-alikes (no 0/O, 1/l/I),
    /// in three groups (about 60 bits).
    public static func newPassword() throws -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var characters: [Character] = []
        for byte in try CryptoRandom.bytes(12) {
            // 248 = 8 × 31: bytes above it would favour the first letters.
            var value = byte
            while value >= 248 { value = try CryptoRandom.bytes(1)[0] }
            characters.append(alphabet[Int(value) % alphabet.count])
        }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }
}
