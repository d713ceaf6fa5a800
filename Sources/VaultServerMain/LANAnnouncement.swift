import Foundation
import Logging
import VaultCore
import VaultDiscovery
import VaultServer

/// What `serve --announce` tells the LAN (issue 58): its name, its district, its key's fingerprint, the API version.
enum LANAnnouncement {
    struct Facts: Sendable {
        var name: String
        var district: String
        var fingerprint: String
    }

    static func facts(_ storage: some ServerStorage, name: String?) async throws -> Facts {
        let link = try await storage.classroomLink()
        let fingerprint = try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
        let district = link.flatMap { URL(string: $0.upstream)?.host } ?? ""
        let machine = ProcessInfo.processInfo.hostName
        return Facts(name: name ?? link.map { "\($0.teacher)'s classroom" } ?? machine, district: district, fingerprint: fingerprint)
    }

    /// Starts the announcement; a machine with no mDNS daemon is told so in the log, and the server runs on.
    static func start(_ facts: Facts, port: Int, logger: Logger) -> Announcer? {
        do {
            let announcer = try Announcer(
                name: facts.name,
                port: port,
                txt: Discovery.txt(name: facts.name, district: facts.district, fingerprint: facts.fingerprint)
            )
            logger.notice("announcing on the LAN", metadata: ["name": "\(facts.name)", "type": "\(Discovery.serviceType)", "port": "\(port)"])
            return announcer
        } catch {
            logger.warning(
                "not announced on the LAN: the mDNS daemon (avahi-daemon) cannot be reached; a typed address still works",
                metadata: ["reason": "\(error)"]
            )
            return nil
        }
    }
}
