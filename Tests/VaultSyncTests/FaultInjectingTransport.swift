import Foundation
import VaultCore
import VaultModel
import VaultSync

/// Wraps a real transport and injects failures by script, per request: the fault-injecting transport for retry
/// logic, in front of the real server.
final class FaultInjectingTransport: HTTPTransport, @unchecked Sendable {
    enum Fault: Sendable {
        case pass
        /// No connection at all.
        case unreachable
        /// Times out before the server sees the request.
        case timeoutBefore
        /// The server applies the request, then the answer is lost on the way back.
        case lostResponse
        /// A made-up answer instead of the server's.
        case reply(status: Int, headers: [String: String], body: String)
    }

    let inner: any HTTPTransport
    private let lock = NSLock()
    private var script: [Fault]
    private(set) var requests: [(method: String, path: String, bodyBytes: Int)] = []
    /// Decides a fault for requests not covered by the script (e.g. by path or size).
    var rule: (@Sendable (HTTPRequestSpec) -> Fault)?

    init(inner: any HTTPTransport, script: [Fault] = []) {
        self.inner = inner
        self.script = script
    }

    func send(_ request: HTTPRequestSpec, maxResponseBytes: Int, progress: (@Sendable (Int, Int?) -> Void)?) async throws -> HTTPReply {
        let fault: Fault = lock.withLock {
            requests.append((request.method, request.path, request.body?.count ?? 0))
            if request.path.hasSuffix("/health") { return .pass }
            if !script.isEmpty { return script.removeFirst() }
            return rule?(request) ?? .pass
        }
        switch fault {
        case .pass:
            return try await inner.send(request, maxResponseBytes: maxResponseBytes, progress: progress)
        case .unreachable:
            throw TransportError.unreachable("injected")
        case .timeoutBefore:
            throw TransportError.timedOut
        case .lostResponse:
            _ = try await inner.send(request, maxResponseBytes: maxResponseBytes, progress: progress)
            throw TransportError.timedOut
        case .reply(let status, let headers, let body):
            return HTTPReply(status: status, headers: headers, body: Data(body.utf8))
        }
    }

    /// Faults for the next requests, after those already scripted.
    func script(_ faults: [Fault]) { lock.withLock { script += faults } }

    /// Requests sent so far to paths ending with `suffix`.
    func count(_ suffix: String) -> Int { lock.withLock { requests.filter { $0.path.hasSuffix(suffix) }.count } }

    var batchRequests: Int { lock.withLock { requests.filter { $0.path.hasSuffix("/responses/batch") }.count } }
}

/// Records the waits the engine asks for and, instead of waiting, moves its clock forward.
final class RecordedSleeps: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var waits: [Duration] = []
    private var offset: TimeInterval = 0
    func sleep(_ duration: Duration) async throws {
        lock.withLock {
            waits.append(duration)
            offset += duration.inSeconds
        }
    }
    func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
}
