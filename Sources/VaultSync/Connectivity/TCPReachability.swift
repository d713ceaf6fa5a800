import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP connect to the server's address: a refused or unroutable connection answers at once, where an
/// HTTP client would retry until its connect timeout. Only says whether a connection can be made.
public enum TCPReachability {
    public static func canConnect(to url: String, timeout: Duration = .seconds(3)) -> Bool {
        guard let parsed = URL(string: url), let host = parsed.host else { return false }
        let port = parsed.port ?? (parsed.scheme == "https" ? 443 : 80)
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return false }
        defer { freeaddrinfo(results) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            if connect(info.pointee, timeout: timeout) { return true }
            candidate = info.pointee.ai_next
        }
        return false
    }

    private static func connect(_ info: addrinfo, timeout: Duration) -> Bool {
        let descriptor = socket(info.ai_family, info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) == 1 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        return failure == 0
    }
}
