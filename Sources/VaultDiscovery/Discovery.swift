import CAvahi
import Foundation
import Synchronization

/// A server announced on the LAN with DNS-SD (`_vault._tcp`), as `vault servers` lists it (issue 58).
public struct FoundServer: Sendable, Codable, Equatable {
    /// The name it announces (a classroom's, "Room 7").
    public var name: String
    public var url: String
    public var address: String
    public var port: Int
    /// Its key's fingerprint as announced: the student compares it with the one the teacher shows before trusting it.
    public var fingerprint: String
    /// The district it belongs to ("" for a district's own server).
    public var district: String
    public var apiVersion: String
    enum CodingKeys: String, CodingKey {
        case name, url, address, port, fingerprint, district
        case apiVersion = "api_version"
    }
}

/// Why the LAN could not be looked at.
public struct DiscoveryError: Error, Sendable, CustomStringConvertible {
    public let avahiCode: Int32
    /// The system's mDNS daemon is not running (or its bus cannot be reached).
    public var daemonMissing: Bool { avahiCode == AVAHI_ERR_NO_DAEMON || avahiCode == AVAHI_ERR_DISCONNECTED }
    public var description: String { String(cString: vault_avahi_error(avahiCode)) }
}

/// DNS-SD through Avahi, the system's mDNS daemon: what a classroom server announces and what a vault finds.
public enum Discovery {
    public static let serviceType = "_vault._tcp"
    /// The API version a server announces (its paths are /v1/...).
    public static let apiVersion = "1"

    /// The TXT strings a server announces.
    public static func txt(name: String, district: String, fingerprint: String) -> [String] {
        ["name=\(name)", "district=\(district)", "fp=\(fingerprint)", "api=\(apiVersion)"].map { String($0.utf8.prefix(250)) ?? "" }
    }

    /// The servers announced on the LAN, each once (the first address found), within `timeout`.
    public static func browse(timeout: Duration = .seconds(3)) throws(DiscoveryError) -> [FoundServer] {
        let capacity = 64
        let found = UnsafeMutablePointer<vault_found>.allocate(capacity: capacity)
        defer { found.deallocate() }
        var error: Int32 = 0
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let count = vault_browse(serviceType, milliseconds, found, Int32(capacity), &error)
        guard count >= 0 else { throw DiscoveryError(avahiCode: error) }
        var servers: [FoundServer] = []
        for index in 0..<Int(count) {
            let entry = found[index]
            var txt: [String: String] = [:]
            for line in Self.text(entry.txt).split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { txt[String(parts[0])] = String(parts[1]) }
            }
            let address = Self.text(entry.address)
            let name = txt["name"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.text(entry.name)
            guard !address.isEmpty, !servers.contains(where: { $0.name == name && $0.fingerprint == (txt["fp"] ?? "") }) else { continue }
            servers.append(
                FoundServer(
                    name: name,
                    url: "http://\(address):\(entry.port)",
                    address: address,
                    port: Int(entry.port),
                    fingerprint: txt["fp"] ?? "",
                    district: txt["district"] ?? "",
                    apiVersion: txt["api"] ?? ""
                )
            )
        }
        return servers.sorted { ($0.name, $0.url) < ($1.name, $1.url) }
    }

    /// A fixed-size C char array as text.
    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// A server's announcement, kept while it runs (again after the daemon restarts; the daemon follows the machine's
/// addresses), withdrawn by `stop()`.
public final class Announcer: Sendable {
    private let handle: Mutex<OpaquePointer?>

    /// Starts announcing; waits for the daemon when it is not running yet.
    public init(name: String, port: Int, txt: [String]) throws(DiscoveryError) {
        var error: Int32 = 0
        let pointer = Self.withCStrings(txt) { strings in
            vault_announce_start(name, Discovery.serviceType, UInt16(clamping: port), strings, Int32(txt.count), &error)
        }
        guard let pointer else { throw DiscoveryError(avahiCode: error) }
        handle = Mutex(OpaquePointer(pointer))
    }

    /// Whether the daemon confirmed the announcement, and its last error (nil for none).
    public var state: (established: Bool, error: DiscoveryError?) {
        handle.withLock { handle in
            guard let handle else { return (false, nil) }
            var error: Int32 = 0
            let established = vault_announce_state(UnsafeMutablePointer(handle), &error) != 0
            return (established, error == 0 ? nil : DiscoveryError(avahiCode: error))
        }
    }

    /// Withdraws the announcement (the LAN is told it is gone).
    public func stop() {
        handle.withLock { handle in
            if let handle { vault_announce_stop(UnsafeMutablePointer(handle)) }
            handle = nil
        }
    }

    deinit { stop() }

    static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer<CChar>($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
