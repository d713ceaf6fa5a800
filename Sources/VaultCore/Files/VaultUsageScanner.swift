import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// `vault admin usage`: finds vault directories (those holding vault.key) and sums their files from metadata.
public enum VaultUsageScanner {
    public struct Usage: Codable, Sendable, Equatable {
        public var path: String
        public var bytes: Int
        public var files: Int
        public var modifiedAt: String
        /// The user the vault directory belongs to.
        public var owner: String

        enum CodingKeys: String, CodingKey {
            case path, bytes, files, owner
            case modifiedAt = "modified_at"
        }
    }

    /// A directory the scan could not read, and why: listed, never silently skipped.
    public struct Unreadable: Codable, Sendable, Equatable {
        public var path: String
        public var reason: String
    }

    public struct Report: Codable, Sendable, Equatable {
        /// Largest first.
        public var vaults: [Usage]
        public var unreadable: [Unreadable]
        public var totalBytes: Int
        public var totalFiles: Int

        enum CodingKeys: String, CodingKey {
            case vaults, unreadable
            case totalBytes = "total_bytes"
            case totalFiles = "total_files"
        }
    }

    /// Every vault under `root` with totals, and the directories that could not be read.
    public static func report(root: String, maxDepth: Int = 8) throws -> Report {
        var unreadable: [Unreadable] = []
        let vaults = try scan(root: root, maxDepth: maxDepth) { path, reason in unreadable.append(Unreadable(path: path, reason: reason)) }
            .sorted { ($0.bytes, $1.path) > ($1.bytes, $0.path) }
        return Report(
            vaults: vaults,
            unreadable: unreadable.sorted { $0.path < $1.path },
            totalBytes: vaults.reduce(0) { $0 + $1.bytes },
            totalFiles: vaults.reduce(0) { $0 + $1.files }
        )
    }

    /// Walks `root` (not following symlinks, at most `maxDepth` levels) and reports each vault directory.
    public static func scan(root: String, maxDepth: Int = 8, unreadable: (String, String) -> Void = { _, _ in }) throws -> [Usage] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VaultError(.notFound, tr("{root} is not a directory.", ["root": root]))
        }
        var found: [Usage] = []
        var pending: [(String, Int)] = [((root as NSString).standardizingPath, 0)]
        while let (directory, depth) = pending.popLast() {
            guard let names = try? manager.contentsOfDirectory(atPath: directory) else {
                unreadable(directory, access(directory, R_OK | X_OK) == 0 ? "could not be listed" : "permission denied")
                continue
            }
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
        var owner = stat()
        let ownerName = lstat(directory, &owner) == 0 ? UserName.of(uid: owner.st_uid) : "unknown"
        for name in names {
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            bytes += Int(info.st_size)
            files += 1
            newest = max(newest, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        }
        return Usage(path: directory, bytes: bytes, files: files, modifiedAt: Timestamp.string(epoch: newest), owner: ownerName)
    }
}
