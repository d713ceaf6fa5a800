import Foundation
import Synchronization

/// A one-line progress bar on stderr, drawn only on a terminal and never with --json or --quiet.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let label: String
    /// The percentage last drawn (-1: nothing yet); updates come from the transport's threads.
    private let lastDrawn = Mutex(-1)

    init(label: String, console: Console) {
        self.label = label
        enabled = Console.stderrIsTerminal && !console.json && !console.quiet
    }

    /// Draws `done` of `total` (bytes or items); unknown totals show a count.
    func update(_ done: Int, of total: Int?) {
        guard enabled else { return }
        let percent = total.map { $0 > 0 ? min(100, done * 100 / $0) : 100 } ?? -1
        lastDrawn.withLock { last in
            guard percent != last || percent < 0 else { return }
            last = percent
            let text = total.map { Console.bar(fraction: Double(done) / Double(max($0, 1)), width: 24) } ?? "\(Console.bytes(done))"
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(label) \(text)".utf8))
        }
    }

    func finish() {
        guard enabled, lastDrawn.withLock({ $0 }) != -1 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
