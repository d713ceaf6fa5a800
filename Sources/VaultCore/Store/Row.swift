import Foundation
import VaultAPI

/// One result row, copied out of the statement so it outlives the next step.
public struct Row: Sendable {
    public let values: [DatabaseValue]

    public init(values: [DatabaseValue]) { self.values = values }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    public func int(_ index: Int) -> Int {
        switch values[index] {
        case .integer(let value): return Int(value)
        case .real(let value): return Int(saturating: value)
        case .text(let value): return Int(value) ?? 0
        default: return 0
        }
    }

    public func optionalInt(_ index: Int) -> Int? {
        if case .null = values[index] { return nil }
        return int(index)
    }

    public func double(_ index: Int) -> Double {
        switch values[index] {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        default: return 0
        }
    }

    public func optionalDouble(_ index: Int) -> Double? {
        if case .null = values[index] { return nil }
        return double(index)
    }

    public func string(_ index: Int) -> String {
        switch values[index] {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let value): return String(decoding: value, as: UTF8.self)
        case .null: return ""
        }
    }

    public func optionalString(_ index: Int) -> String? {
        if case .null = values[index] { return nil }
        return string(index)
    }

    public func data(_ index: Int) -> Data {
        switch values[index] {
        case .blob(let value): return value
        case .text(let value): return Data(value.utf8)
        default: return Data()
        }
    }
}
