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
        .target(name: "SSVCSystemd", dependencies: ["CSystemd"]),

        // I/O and lifetimes.
        .target(name: "SSVCDaemon", dependencies: ["SSVCCore", "SSVCSystemd"]),

        .executableTarget(
            name: "ssvcd",
            dependencies: [
                "SSVCDaemon",
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

        .testTarget(name: "SSVCCoreTests", dependencies: ["SSVCCore"]),
        .testTarget(name: "SSVCSystemdTests", dependencies: ["SSVCSystemd"]),
        .testTarget(name: "SSVCDaemonTests", dependencies: ["SSVCDaemon", "SSVCCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["SSVCCore"]),
    ]
)
