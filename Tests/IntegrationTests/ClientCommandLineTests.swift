import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("ssvcctl as a new operator types it", .processSlot)
struct ClientCommandLineTests {
    func ssvcctl(_ arguments: [String]) async throws -> CommandResult {
        try await Executable.run("ssvcctl", arguments)
    }

    @Test("--version, --socket in the top help, --timeout before motd, and no --timeout offered for watch")
    func options() async throws {
        let version = try await ssvcctl(["--version"])
        #expect(version.status == 0 && version.standardOutput.split(separator: ".").count == 3, "\(version.standardOutput)\(version.standardError)")
        let help = try await ssvcctl(["--help"])
        #expect(help.standardOutput.contains("--socket PATH") && help.standardOutput.contains("--timeout SECONDS"))
        #expect(help.standardOutput.contains("ssvcctl --version prints the version"))
        #expect(help.standardOutput.contains("12 no update but a check failing"))
        let motd = try await ssvcctl(["--timeout", "2", "motd", "--socket", "/nonexistent/s"])
        #expect(motd.status == 0 && motd.standardOutput.isEmpty && motd.standardError.isEmpty, "\(motd.standardError)")
        let watch = try await ssvcctl(["help", "watch"])
        #expect(!watch.standardOutput.contains("--timeout"), "\(watch.standardOutput)")
        // A misspelt command is named as such, whatever option comes first (issue 51).
        for arguments in [["--socket", "/nonexistent/s", "stauts"], ["stauts"], ["--timeout", "3", "chekc", "a"]] {
            let typo = try await ssvcctl(arguments)
            let word = arguments.first { !$0.hasPrefix("-") && $0 != "/nonexistent/s" && $0 != "3" } ?? ""
            #expect(typo.status == 64 && typo.standardError.contains("unknown command '\(word)': one of status, check"), "\(typo.standardError)")
            #expect(!typo.standardError.contains("Unknown option"), "\(typo.standardError)")
        }
    }

    @Test("a socket path that is a folder, a file, a dead socket or missing says what is wrong", arguments: [
        ("folder", "it is a directory, not a socket"),
        ("file", "it is a file, not a socket"),
        ("dead", "nobody is listening there (ssvcd stopped without removing its socket?)"),
        ("missing", "no such socket (is ssvcd running? is --socket right?)"),
    ])
    func socketProblems(kind: String, expected: String) async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent(kind).path
        switch kind {
        case "folder": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        case "file": _ = try folder.file(kind, "")
        case "dead":
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            _ = UnixSocket.bind(listener, to: path)
            close(listener)
        default: break
        }
        let result = try await ssvcctl(["--socket", path, "status"])
        #expect(result.status == 1)
        #expect(result.standardError == "ssvcctl: cannot connect to \(path): \(expected)\n")
    }

    @Test("status and check take several apps; an unknown one is an error naming it")
    func severalApps() async throws {
        let daemon = try await controlDaemon()
        let both = try await ssvcctl(["--socket", daemon.socketPath, "status", "beta", "alpha", "--json"])
        let apps = try #require(try JSONSerialization.jsonObject(with: Data(both.standardOutput.utf8)) as? [String: Any])["apps"] as? [[String: Any]]
        #expect(apps?.compactMap { $0["name"] as? String } == ["beta", "alpha"])
        let unknown = try await ssvcctl(["--socket", daemon.socketPath, "status", "alpha", "gamma"])
        #expect(unknown.status == 1 && unknown.standardError == "ssvcctl: no such app: gamma\n")
        #expect(await daemon.stop() == 0)
    }

    @Test("tables show local time and how far from now; only ASCII under LC_ALL=C; --json keeps RFC 3339 UTC")
    func times() async throws {
        let daemon = try await controlDaemon()
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        environment["TZ"] = "Asia/Tokyo"
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status"], environment: environment)
        #expect(status.standardOutput.unicodeScalars.allSatisfy { $0.isASCII }, "\(status.standardOutput)")
        #expect(status.standardOutput.contains(" JST (now)") || status.standardOutput.contains(" min ago)"), "\(status.standardOutput)")
        #expect(status.standardOutput.contains(" JST (in "), "the next check, in local time: \(status.standardOutput)")
        let json = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--json"], environment: environment)
        #expect(json.standardOutput.contains("Z\""), "\(json.standardOutput)")
        #expect(!json.standardOutput.contains("JST"))
        #expect(await daemon.stop() == 0)
    }
}
