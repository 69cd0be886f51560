// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "ssvc",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ssvcd", targets: ["ssvcd"]),
        .executable(name: "ssvcctl", targets: ["ssvcctl"]),
        .library(name: "SSVCCore", targets: ["SSVCCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure logic: formats, version schemes, decisions. No I/O.
        .target(name: "SSVCCore"),

        // The C boundary: the only module that sees libsystemd.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "SSVCSystemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")]
        ),

        // glibc's heap trimming, which Swift's Glibc module leaves out.
        .target(name: "CMemory"),

        // Build tooling: embeds the Varlink interface definition.
        .executableTarget(name: "embed-text", path: "Sources/embed-text"),
        .plugin(name: "EmbedInterface", capability: .buildTool(), dependencies: ["embed-text"]),

        // I/O and lifetimes.
        .target(
            name: "SSVCDaemon",
            dependencies: [
                "CMemory",
                "SSVCCore",
                "SSVCSystemd",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            exclude: ["Control/io.ssvc.Daemon.varlink"],
            plugins: ["EmbedInterface"]
        ),

        .executableTarget(
            name: "ssvcd",
            dependencies: [
                "SSVCDaemon",
                "SSVCSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ssvcctl",
            dependencies: [
                "SSVCCore",
                "SSVCDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "ssvc-bench",
            dependencies: [
                "SSVCCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        .testTarget(name: "SSVCCoreTests", dependencies: ["SSVCCore"]),
        .testTarget(
            name: "SSVCSystemdTests",
            dependencies: ["SSVCSystemd", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "SSVCDaemonTests", dependencies: ["SSVCDaemon", "SSVCCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["SSVCCore"]),
    ]
)
