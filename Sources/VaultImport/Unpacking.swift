import CVaultZlib
import Foundation
import ZIPFoundation

/// A package's entries unpacked on every core at once: each worker opens its own reader of the same file and takes
/// every n-th entry. The caps hold across workers: what really comes out is counted (the sizes a zip declares can
/// lie), per entry and in all, and the first worker past them stops everyone.
enum Unpacking {
    /// An entry unpacked past the caps.
    struct TooLarge: Error {}

    /// The running total of unpacked bytes, shared by the workers.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var total = 0
        /// Adds `bytes`; false once the total is past `limit`.
        func add(_ bytes: Int, limit: Int) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            total += bytes
            return total <= limit
        }
    }

    /// The bytes of each entry, in order; an `ImportError` for the first entry (in order) that failed.
    static func read(_ entries: [Entry], from url: URL) throws -> [Data] {
        guard !entries.isEmpty else { return [] }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, entries.count))
        let outcomes = UnsafeMutableBufferPointer<Result<Data, ImportError>?>.allocate(capacity: entries.count)
        outcomes.initialize(repeating: nil)
        defer { outcomes.deallocate() }
        nonisolated(unsafe) let slots = outcomes
        nonisolated(unsafe) let entries = entries
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            guard let archive = try? Archive(url: url, accessMode: .read) else {
                slots[worker] = .failure(ImportError("The package could not be read."))
                return
            }
            for index in stride(from: worker, to: entries.count, by: workers) {
                let entry = entries[index]
                var bytes = Data()
                // The checksum by zlib's crc32 as the bytes come out (ZIPFoundation's own, in Swift, was a sixth of
                // unpacking); a mismatch is a damaged entry, as ZIPFoundation would say.
                var checksum = crc32(0, nil, 0)
                do {
                    _ = try archive.extract(entry, skipCRC32: true) { chunk in
                        bytes.append(chunk)
                        guard tally.add(chunk.count, limit: QTIPackage.maxTotalBytes), bytes.count <= QTIPackage.maxEntryBytes else {
                            throw TooLarge()
                        }
                        checksum = chunk.withUnsafeBytes { crc32(checksum, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)) }
                    }
                    guard UInt32(checksum) == entry.checksum else {
                        slots[index] = .failure(ImportError("The package's \(entry.path) is damaged; nothing was published."))
                        return
                    }
                    slots[index] = .success(bytes)
                } catch is TooLarge {
                    slots[index] = .failure(
                        ImportError("The package unpacks to more than \(QTIPackage.maxTotalBytes / 1024 / 1024) MB (a zip bomb?); nothing was read.")
                    )
                    return
                } catch {
                    slots[index] = .failure(ImportError("The package's \(entry.path) is damaged; nothing was published."))
                    return
                }
            }
        }
        var files: [Data] = []
        files.reserveCapacity(entries.count)
        for index in entries.indices {
            switch slots[index] {
            case .success(let bytes): files.append(bytes)
            case .failure(let error): throw error
            // A worker stopped before this entry: the reason is a failure recorded at an earlier or later entry.
            case nil:
                throw slots.lazy.compactMap { if case .failure(let error) = $0 { error } else { nil } }.first
                    ?? ImportError("The package could not be read.")
            }
        }
        return files
    }
}
