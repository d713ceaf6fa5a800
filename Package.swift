// swift-tools-version:6.1
import PackageDescription

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
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.21.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Ed25519 and X25519 (receipts, the hand-in key): typed keys over BoringSSL with prefixed symbols, already in
        // the build through postgres-nio. Everything else (PBKDF2, AES-GCM of the vault, SHA-256) stays on OpenSSL.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // QTI content packages are zip files: read with ZIPFoundation, never by hand.
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // The teacher's desk: server-rendered pages from Mustache templates (escaped by default).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
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
            name: "CVaultZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's gettext and setlocale (part of libc: nothing to link; msgfmt from `gettext` builds the catalogs).
        .systemLibrary(name: "CGettext"),

        // The vault: storage, crypto, compression, cache. The only target that touches the C modules.
        .target(
            name: "VaultCore",
            dependencies: [
                "CSQLCipher", "COpenSSL", "CVaultZlib", "CKeyutils", "VaultAPI", "VaultLanguage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The wire contract shared by client and server: Codable + Sendable values only.
        .target(name: "VaultAPI"),

        // The sync engine: HTTP transport, connectivity, download, batching, retries, conflicts.
        .target(
            name: "VaultSync",
            dependencies: [
                "VaultCore", "VaultAPI", "VaultLanguage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The server's rules, independent of any storage backend: what is accepted, superseded, outdated or
        // refused, and how a teacher's document becomes the served one. Pure functions over values.
        .target(name: "VaultRules", dependencies: ["VaultCore", "VaultAPI"]),
        // The reference server as a library: routes, storage, auth; buildApplication(...).
        .target(
            name: "VaultServer",
            dependencies: [
                "VaultCore", "VaultAPI", "VaultRules", "VaultImport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [.copy("Samples")]
        ),
        // The PostgreSQL backend of the server's storage (postgres-nio, pooled): a district's deployment, several
        // `vault-server` processes on one database.
        .target(
            name: "VaultServerPostgres",
            dependencies: [
                "VaultServer", "VaultRules", "VaultAPI", "VaultCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "VaultServerMain",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultAPI", "VaultCore", "VaultImport", "VaultTerminal", "VaultRules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Teachers' files (Moodle XML, GIFT, Aiken) into our document, with what was skipped and why; no storage.
        .target(name: "VaultImport", dependencies: ["VaultAPI", "CVaultZlib", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        // Text for terminals: display widths (CJK, emoji, bidi marks), wrapping, aligned tables. `vault` and
        // `vault-server` print with it.
        .target(name: "VaultTerminal"),
        // The student's language: messages from gettext catalogs (po/), plurals by the language's rules, right to
        // left marked where the language needs it.
        .target(name: "VaultLanguage", dependencies: ["CGettext"]),
        // The take screen as a state machine (events in, effects out), with no terminal and no storage in it.
        .target(name: "VaultTake", dependencies: ["VaultCore", "VaultAPI", "VaultLanguage"]),
        .executableTarget(
            name: "VaultCLI",
            dependencies: [
                "VaultCore", "VaultSync", "VaultAPI", "VaultTake", "VaultTerminal", "VaultLanguage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `scripts/bench`: every figure beside a baseline measured in the same run.
        .executableTarget(
            name: "VaultBench",
            dependencies: [
                "VaultCore", "VaultAPI", "VaultSync", "VaultTake", "VaultImport", "VaultRules",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // scripts/load: seeds a server's store, drives it with concurrent students, measures the raw engine.
        .executableTarget(
            name: "VaultLoad",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultCore", "VaultAPI", "VaultRules",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .target(name: "VaultTestSupport", dependencies: ["VaultCore", "VaultAPI"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["VaultCore", "VaultTestSupport", "CVaultZlib"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "VaultServerTests",
            dependencies: [
                "VaultServer", "VaultServerPostgres", "VaultRules", "VaultAPI", "VaultCore", "VaultTestSupport", "VaultImport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "VaultSyncTests",
            dependencies: [
                "VaultSync", "VaultServer", "VaultAPI", "VaultCore", "VaultTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "VaultTakeTests",
            dependencies: ["VaultTake", "VaultCore", "VaultAPI", "VaultTestSupport"]
        ),
        .testTarget(name: "VaultTerminalTests", dependencies: ["VaultTerminal"]),
        .testTarget(name: "VaultLanguageTests", dependencies: ["VaultLanguage", "VaultTestSupport"]),
        // Exam-day faults with real parts: a PostgreSQL cluster of the test's own (stopped, started, its backends
        // terminated, its tables locked), real `vault-server` processes and real vaults.
        .testTarget(name: "VaultFaultTests", dependencies: ["VaultTestSupport"]),
        .testTarget(
            name: "VaultCLITests",
            dependencies: ["VaultCore", "VaultTestSupport", "VaultTerminal"]
        ),
    ]
)
