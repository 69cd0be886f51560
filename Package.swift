// swift-tools-version:6.1
import PackageDescription

/// The sanitized builds (`SSVC_SANITIZING=address` or `thread`, set by the
/// Makefile) leave out the integration tests and the executables only they
/// start: those are built and run in the ordinary build, and leaving them
/// out keeps `make test` within its time (docs/testing.md). The
/// AddressSanitizer build is also the fuzz build: its Swift code carries
/// libFuzzer's coverage instrumentation and only the fuzz tool links
/// libFuzzer; the ThreadSanitizer build has no fuzz tool.
let sanitizer = Context.environment["SSVC_SANITIZING"]
let notSanitized: Set<String> = sanitizer == "thread" ? ["IntegrationTests", "SSVCDTests", "ssvcd", "ssvcctl", "ssvc-fuzz"] : ["IntegrationTests", "SSVCDTests", "ssvcd", "ssvcctl"]

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
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Pure logic: formats, version schemes, decisions, state transitions. No I/O.
        .target(name: "SSVCCore"),

        // The system calls ssvc makes, once each: bounded reads, files,
        // standard error, child processes, Unix sockets, the clock.
        .target(
            name: "SSVCPosix",
            dependencies: ["SSVCCore", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),

        // The control protocol: methods, calls, replies, errors, wire values,
        // framing, and the blocking client. No NIO.
        .target(
            name: "SSVCControl",
            dependencies: ["SSVCCore", "SSVCPosix"],
            resources: [.embedInCode("io.ssvc.Daemon.varlink")]
        ),

        // systemd's protocols in C, without libsystemd: the native journal
        // (iovecs, a sealed memfd passed with SCM_RIGHTS), socket activation
        // and the watchdog's variables.
        .target(name: "CSystemd"),
        .target(
            name: "SSVCSystemd",
            dependencies: ["CSystemd", "SSVCCore", "SSVCPosix", .product(name: "Logging", package: "swift-log"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),

        // The other C boundary: libsodium, for minisign's Ed25519 and BLAKE2b,
        // and the HMAC-SHA256 of the app-specific machine id.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // Signed documents: minisign signatures verified, as minisign does.
        .target(name: "SSVCSigning", dependencies: ["CSodium", "SSVCCore"]),

        // The third C boundary: zlib's raw inflate, for zip archives' entries
        // libdeflate refuses (to say why) or that are inflated from the file.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The fourth: libdeflate, which inflates a whole entry in one call
        // about twice as fast as zlib (issue 55); zlib stays for the entries
        // it refuses, to say why, and for those read from the file as they
        // are inflated.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // Zip archives (OSV exports such as PyPI/all.zip), read entry by
        // entry with pread in bounded memory. The container is read here by
        // hand and only inflate is zlib's: ZIPFoundation would bring all of
        // Foundation and ICU into a daemon whose idle RSS is 5 MiB. The
        // OSV records of an export, a folder or a file are read here too,
        // one at a time, for the daemon and `ssvcctl evaluate` alike.
        .target(name: "SSVCArchive", dependencies: ["CDeflate", "CZlib", "SSVCCore", "SSVCPosix"]),

        // glibc's heap trimming, which Swift's Glibc module leaves out.
        .target(name: "CMemory"),

        // I/O and lifetimes.
        .target(
            name: "SSVCDaemon",
            dependencies: [
                "CMemory",
                "SSVCArchive",
                "SSVCControl",
                "SSVCCore",
                "SSVCPosix",
                "SSVCSigning",
                "SSVCSystemd",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        .executableTarget(
            name: "ssvcd",
            dependencies: [
                "SSVCDaemon",
                "SSVCPosix",
                "SSVCSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The client and the benchmark stay off NIO, AsyncHTTPClient
        // and the journal: they link the core, the protocol and the POSIX
        // layer, and the client the signature check for `evaluate`.
        .executableTarget(
            name: "ssvcctl",
            dependencies: [
                "SSVCArchive",
                "SSVCControl",
                "SSVCCore",
                "SSVCPosix",
                "SSVCSigning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ssvc-bench",
            dependencies: [
                "SSVCArchive",
                "SSVCControl",
                "SSVCCore",
                "SSVCPosix",
                "SSVCSigning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // libFuzzer targets over every parser of outside input (make fuzz,
        // built with -sanitize=fuzzer,address -DFUZZING); in an ordinary
        // build, a tool that runs a corpus through them.
        .executableTarget(
            name: "ssvc-fuzz", dependencies: ["SSVCArchive", "SSVCControl", "SSVCCore", "SSVCDaemon", "SSVCPosix", "SSVCSigning"]
        ),

        // What every test waits with: processes, sleeps and polls awaited,
        // never a thread of Swift's cooperative pool held (docs/testing.md).
        .target(name: "SSVCTestSupport", dependencies: ["SSVCPosix"], path: "Tests/Support"),

        .testTarget(name: "SSVCCoreTests", dependencies: ["SSVCCore", "SSVCTestSupport"]),
        .testTarget(name: "SSVCPosixTests", dependencies: ["SSVCPosix", "SSVCCore", "SSVCTestSupport"]),
        .testTarget(name: "SSVCSigningTests", dependencies: ["SSVCSigning", "SSVCCore"]),
        .testTarget(name: "SSVCArchiveTests", dependencies: ["SSVCArchive", "SSVCCore", "SSVCPosix", "SSVCTestSupport"]),
        .testTarget(name: "SSVCControlTests", dependencies: ["SSVCControl", "SSVCCore"]),
        .testTarget(
            name: "SSVCSystemdTests",
            dependencies: ["SSVCPosix", "SSVCSigning", "SSVCSystemd", "SSVCTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "SSVCDaemonTests",
            dependencies: [
                "SSVCDaemon", "SSVCControl", "SSVCCore", "SSVCPosix", "SSVCTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SSVCDTests",
            dependencies: ["ssvcd", "SSVCSystemd", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "BenchTests", dependencies: ["ssvc-bench", "SSVCArchive", "SSVCCore", "SSVCTestSupport"]),
        .testTarget(name: "IntegrationTests", dependencies: ["SSVCCore", "SSVCPosix", "SSVCTestSupport"]),
    ]
)

if sanitizer != nil {
    package.targets.removeAll { notSanitized.contains($0.name) }
    package.products.removeAll { notSanitized.contains($0.name) }
}
if sanitizer == "address" {
    package.targets.first { $0.name == "ssvc-fuzz" }?.linkerSettings = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    // libFuzzer's coverage only in this package's libraries, the code the
    // targets fuzz: libFuzzer scans and clears every counter after each
    // input, and with every dependency instrumented (NIO, swift-crypto…)
    // that was half of a small target's time (issue 55).
    let covered: Set<String> = ["SSVCCore", "SSVCPosix", "SSVCArchive", "SSVCControl", "SSVCSigning", "SSVCSystemd", "SSVCDaemon"]
    // And optimized (-O, as ASan's own documentation advises): a debug
    // build's code made 700,000 counters and ran the config target at 1,300
    // exec/s; optimized, 147,000 and 3,000. The harness is optimized too.
    let coverage = SwiftSetting.unsafeFlags(["-sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table", "-O"])
    for target in package.targets where covered.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [coverage]
    }
    package.targets.first { $0.name == "ssvc-fuzz" }?.swiftSettings = [.unsafeFlags(["-O"])]
}
