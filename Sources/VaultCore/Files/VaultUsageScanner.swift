import Foundation
import VaultAPI

/// `vault admin usage`: finds vault directories (those holding vault.key) and sums their files from metadata.
public enum VaultUsageScanner {
    public struct Usage: Codable, Sendable, Equatable {
        public var path: String
        public var bytes: Int
        public var files: Int
        public var modifiedAt: String

        enum CodingKeys: String, CodingKey {
            case path, bytes, files
            case modifiedAt = "modified_at"
        }
    }

    /// Walks `root` (not following symlinks, at most `maxDepth` levels) and reports each vault directory.
    public static func scan(root: String, maxDepth: Int = 8) throws -> [Usage] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VaultError(.notFound, "\(root) is not a directory.")
        }
        var found: [Usage] = []
        var pending: [(String, Int)] = [((root as NSString).standardizingPath, 0)]
        while let (directory, depth) = pending.popLast() {
            guard let names = try? manager.contentsOfDirectory(atPath: directory) else { continue }
            if names.contains("vault.key") || names.contains("vault.db") {
                found.append(usage(of: directory, names: names))
                continue
            }
            guard depth < maxDepth else { continue }
            for name in names {
                let path = directory + "/" + name
                var info = stat()
                if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { pending.append((path, depth + 1)) }
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    private static func usage(of directory: String, names: [String]) -> Usage {
        var bytes = 0
        var files = 0
        var newest = 0.0
        for name in names {
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            bytes += Int(info.st_size)
            files += 1
            newest = max(newest, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        }
        return Usage(path: directory, bytes: bytes, files: files, modifiedAt: Timestamp.string(epoch: newest))
    }
}
