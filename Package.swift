// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "vault",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vault", targets: ["VaultCLI"]),
        .library(name: "VaultCore", targets: ["VaultCore"]),
        .library(name: "VaultAPI", targets: ["VaultAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // The vault: storage, crypto, compression, cache. The only target that touches the C modules.
        .target(
            name: "VaultCore",
            dependencies: [
                "CSQLCipher", "COpenSSL", "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The wire contract shared by client and server: Codable + Sendable values only.
        .target(name: "VaultAPI"),

        .executableTarget(
            name: "VaultCLI",
            dependencies: [
                "VaultCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .target(name: "VaultTestSupport", dependencies: ["VaultCore"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["VaultCore", "VaultTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "VaultCLITests",
            dependencies: ["VaultCore", "VaultTestSupport"]
        ),
    ]
)
