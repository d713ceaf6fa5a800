import Foundation

/// A directory under $TMPDIR removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ prefix: String = "vault-test") {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(prefix).XXXXXX")
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: bytes)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Every regular file below the directory, recursively.
    public func allFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path + "/" + name)
            }
        }
        return files
    }
}
