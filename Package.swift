// swift-tools-version:6.1
import PackageDescription

/// As the anchors do: `any` written where a type is existential, and a member visible only where its module is
/// imported (a file says what it uses).
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "vault",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vault", targets: ["VaultCLI"]),
        .executable(name: "vault-server", targets: ["VaultServerMain"]),
        .library(name: "VaultCore", targets: ["VaultCore"]),
        .library(name: "VaultAPI", targets: ["VaultAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.21.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // TLS to PostgreSQL (issue 70): `sslmode` in the database URL.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Ed25519 and X25519 (receipts, the hand-in key): typed keys over BoringSSL with prefixed symbols, already in
        // the build through postgres-nio. Everything else (PBKDF2, AES-GCM of the vault, SHA-256) stays on OpenSSL.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // QTI content packages are zip files: read with ZIPFoundation, never by hand.
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // The teacher's desk: server-rendered pages from Mustache templates (escaped by default).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // Already in the build through Hummingbird and async-http-client; named because our code imports them.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
    ],
    targets: [
        // C libraries: each a system-library target holding only module.modulemap and shim.h.
        .systemLibrary(
            name: "CSQLCipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CKeyutils",
            providers: [.apt(["libkeyutils-dev"])]
        ),
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .systemLibrary(
            name: "CVaultZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's gettext and setlocale (part of libc: nothing to link; msgfmt from `gettext` builds the catalogs).
        .systemLibrary(name: "CGettext"),

        // The vault: storage, crypto, compression, cache. The only target that touches SQLCipher, OpenSSL and the keyring.
        .target(
            name: "VaultCore",
            dependencies: [
                "CSQLCipher", "COpenSSL", "CVaultZlib", "CKeyutils", "VaultAPI", "VaultLanguage", "VaultModel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // What the vault, the rules and the take screen share, with no C library in it: attempts and their clocks,
        // answers parsed, the vault's errors, served documents' hashes (SHA-256 on swift-crypto), hex.
        .target(
            name: "VaultModel",
            dependencies: ["VaultAPI", "VaultLanguage", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // The wire contract shared by client and server: Codable + Sendable values only.
        .target(name: "VaultAPI", swiftSettings: strict),

        // DNS-SD on the LAN through Avahi (issue 58): a classroom server's announcement, the servers a vault finds.
        .target(name: "VaultDiscovery", dependencies: ["CAvahi"], swiftSettings: strict),
        // The sync engine: HTTP transport, connectivity, download, batching, retries, conflicts.
        .target(
            name: "VaultSync",
            dependencies: [
                "VaultCore", "VaultModel", "VaultAPI", "VaultLanguage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The server's rules, independent of any storage backend: what is accepted, superseded, outdated or
        // refused, and how a teacher's document becomes the served one. Pure functions over values.
        .target(name: "VaultRules", dependencies: ["VaultModel", "VaultAPI", "VaultScoring"], swiftSettings: strict),
        // An item's own response processing evaluated as written (IMS QTI), bounded in work; and the publish check
        // that refuses what it cannot score. Pure Swift over the wire's values.
        .target(name: "VaultScoring", dependencies: ["VaultAPI"], swiftSettings: strict),
        // The reference server as a library: routes, storage, auth; buildApplication(...).
        .target(
            name: "VaultServer",
            dependencies: [
                "VaultCore", "VaultModel", "VaultAPI", "VaultRules", "VaultScoring", "VaultImport",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            resources: [.copy("Samples")],
            swiftSettings: strict
        ),
        // The PostgreSQL backend of the server's storage (postgres-nio, pooled): a district's deployment, several
        // `vault-server` processes on one database.
        .target(
            name: "VaultServerPostgres",
            dependencies: [
                "VaultServer", "VaultRules", "VaultAPI", "VaultModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "VaultServerMain",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultAPI", "VaultCore", "VaultImport", "VaultTerminal", "VaultRules", "VaultSync",
                "VaultDiscovery", "VaultModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Teachers' files (Moodle XML, GIFT, Aiken) into our document, with what was skipped and why; no storage.
        .target(
            name: "VaultImport",
            dependencies: ["VaultAPI", "VaultScoring", "CVaultZlib", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        // Text for terminals: display widths (CJK, emoji, bidi marks), wrapping, aligned tables. `vault` and
        // `vault-server` print with it.
        // Pictures on a terminal: libchafa, with libpng and libjpeg-turbo decoding (the C shim holds libjpeg's longjmp).
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev", "libpng-dev", "libjpeg62-turbo-dev"])]),
        .target(name: "VaultTerminal", dependencies: ["CChafa"], swiftSettings: strict),
        // The student's language: messages from gettext catalogs (po/), plurals by the language's rules, right to
        // left marked where the language needs it.
        .target(name: "VaultLanguage", dependencies: ["CGettext"], swiftSettings: strict),
        // The take screen as a state machine (events in, effects out), with no terminal and no storage in it.
        .target(name: "VaultTake", dependencies: ["VaultModel", "VaultAPI", "VaultLanguage"], swiftSettings: strict),
        .executableTarget(
            name: "VaultCLI",
            dependencies: [
                "VaultCore", "VaultModel", "VaultSync", "VaultAPI", "VaultTake", "VaultTerminal", "VaultLanguage", "VaultDiscovery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // `scripts/bench`: every figure beside a baseline measured in the same run.
        .executableTarget(
            name: "VaultBench",
            dependencies: [
                "VaultCore", "VaultModel", "VaultAPI", "VaultSync", "VaultTake", "VaultImport", "VaultRules",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        // scripts/load: seeds a server's store, drives it with concurrent students, measures the raw engine.
        .executableTarget(
            name: "VaultLoad",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultCore", "VaultModel", "VaultAPI", "VaultRules",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        .target(name: "VaultTestSupport", dependencies: ["VaultCore", "VaultModel", "VaultAPI"], swiftSettings: strict),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["VaultCore", "VaultModel", "VaultAPI", "VaultTestSupport", "CVaultZlib"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VaultServerTests",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultRules", "VaultScoring", "VaultAPI", "VaultCore", "VaultModel", "VaultTestSupport",
                "VaultImport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            // Read from the repository by path (hostile files), never bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        // The PostgreSQL backend's own cases: its locations and password files, its schema against SQLite's.
        .testTarget(
            name: "VaultServerPostgresTests",
            dependencies: ["VaultServer", "VaultServerPostgres", "VaultTestSupport", "VaultCore"],
            swiftSettings: strict
        ),
        // The real `vault-server` binary: its subcommands, its files, the QTI samples through it and a real vault,
        // three processes on one PostgreSQL database.
        .testTarget(
            name: "VaultServerProcessTests",
            dependencies: ["VaultAPI", "VaultCore", "VaultTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VaultSyncTests",
            dependencies: [
                "VaultSync", "VaultServer", "VaultAPI", "VaultCore", "VaultModel", "VaultTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VaultTakeTests",
            dependencies: ["VaultTake", "VaultCore", "VaultModel", "VaultAPI", "VaultLanguage", "VaultTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "VaultTerminalTests", dependencies: ["VaultTerminal"], swiftSettings: strict),
        // A test target per library: the rules as table tests of pure functions, the importers on the 1EdTech
        // samples and hostile files, the wire contract's encodings.
        .testTarget(name: "VaultRulesTests", dependencies: ["VaultRules", "VaultModel", "VaultAPI", "VaultTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "VaultImportTests",
            dependencies: [
                "VaultImport", "VaultRules", "VaultScoring", "VaultAPI", "VaultTestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "VaultAPITests", dependencies: ["VaultAPI"], swiftSettings: strict),
        .testTarget(name: "VaultLanguageTests", dependencies: ["VaultLanguage", "VaultTestSupport"], swiftSettings: strict),
        // Exam-day faults with real parts: a PostgreSQL cluster of the test's own (stopped, started, its backends
        // terminated, its tables locked), real `vault-server` processes and real vaults.
        .testTarget(name: "VaultFaultTests", dependencies: ["VaultTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "VaultModelTests",
            dependencies: ["VaultModel", "VaultAPI"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VaultCLITests",
            dependencies: ["VaultCore", "VaultModel", "VaultAPI", "VaultTestSupport", "VaultTerminal", "VaultLanguage"],
            // Read from the repository by path (a vault made by an earlier release), never bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
    ]
)
