import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// What a new operator meets, from the README and the built executables.
@Suite("what an operator meets: exit codes, stale marks, overrides", .processSlot)
struct OperatorExperienceTests {
    @Test("a check that failed exits 12, never 0; an update still exits 10 or 11 whatever else fails")
    func failingExitCode() async throws {
        let server = try await VersionServer(scenario: ["body": #"{"SSVCLatestVersionKey":"1.0"}"#])
        let folder = try TemporaryFolder()
        let apps = appTable("gone", url: server.url("/gone")) + "\n" + appTable("fine", url: "file://" + (try folder.file("r.json", #"{"SSVCLatestVersionKey":"1.0"}"#)))
        let daemon = try DaemonProcess(apps: apps, folder: folder)
        #expect(await daemon.wait { daemon.app("gone")?["lastSuccess"] != nil && daemon.app("fine")?["lastSuccess"] != nil })
        func run(_ arguments: [String]) async throws -> Int32 {
            try await Executable.run("ssvcctl", ["--socket", daemon.socketPath] + arguments + ["--timeout", "60"]).status
        }
        #expect(try await run(["status"]) == 0)
        try server.set(["status": 404, "body": ""])
        #expect(try await run(["check", "gone"]) == 12)
        #expect(try await run(["status", "gone"]) == 12)
        #expect(try await run(["status"]) == 12, "the worst over the apps shown")
        #expect(try await run(["status", "fine"]) == 0)
        try server.set(["body": goodBody])
        #expect(try await run(["check", "gone"]) == 10)
        #expect(await daemon.stop() == 0)
    }

    @Test("an app whose checks have never worked is not stale at first: Nagios says WARNING, never OK, and claims no kept answer")
    func notStaleAtFirstFailure() async throws {
        let daemon = try DaemonProcess(apps: appTable("new", url: "http://127.0.0.1:9/v.json"))
        #expect(await daemon.wait { (daemon.app("new")?["consecutiveFailures"] as? Int ?? 0) >= 1 })
        let status = try await daemon.statusByApp()["new"]
        #expect(status?["stale"] as? Bool == false)
        let failures = try #require(status?["consecutiveFailures"] as? Int)
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "60"])
        #expect(nagios.status == 1, "\(nagios.standardOutput)")
        #expect(nagios.standardOutput == """
            SSVC WARNING - checks failing: new (\(failures) in a row, no good answer yet) \
            | 'apps'=1;;;0; 'update_available'=0;;;0; 'update_required'=0;;;0; 'stale'=0;;;0; 'failing'=1;;;0;

            """, "\(nagios.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("an app failing after a success: Nagios WARNING names when the kept answer was had")
    func failingAfterSuccess() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let daemon = try DaemonProcess(apps: appTable("kept", url: server.url("/v")))
        #expect(await daemon.wait { daemon.app("kept")?["lastSuccess"] != nil })
        try server.set(["body": goodBody, "status": 500])
        _ = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "check", "kept", "--timeout", "60"])
        let status = try #require(try await daemon.statusByApp()["kept"])
        let success = try #require(status["lastSuccess"] as? String)
        let nagios = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--nagios", "--timeout", "60"])
        #expect(nagios.status == 1, "\(nagios.standardOutput)")
        #expect(nagios.standardOutput.hasPrefix(
            "SSVC WARNING - update available: kept (1.0 -> 1.1); checks failing: kept (1 in a row, last good answer \(success) kept) | "
        ), "\(nagios.standardOutput)")
        #expect(await daemon.stop() == 0)
    }

    @Test("--socket on the command line moves the default metrics file with it")
    func socketOverrideMovesMetrics() async throws {
        let folder = try TemporaryFolder()
        let elsewhere = folder.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let socket = elsewhere.appendingPathComponent("io.ssvc.Daemon").path
        let config = """
            [daemon]
            state-dir = "state"
            socket = "/nonexistent/ssvc/io.ssvc.Daemon"
            first-check-window-seconds = 0
            """
        let daemon = try DaemonProcess(folder: folder, config: config, daemon: "", apps: "", arguments: ["--socket", socket], environment: [:])
        await #expect(daemon.wait { FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("ssvc.prom").path) }, "\(daemon.log)")
        #expect(!daemon.log.contains("cannot write the metrics file"))
        await #expect(daemon.stop() == 0)
    }
}

@Suite("ssvcd --check-config", .processSlot)
struct CheckConfigTests {
    func layout(_ main: String, apps: [String: String]) throws -> (TemporaryFolder, String) {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
        for (name, text) in apps { _ = try folder.file("apps.d/" + name, text) }
        let path = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\napps-dir = \"apps.d\"\n" + main)
        return (folder, path)
    }

    @Test("a good configuration: one line per app and a warning per skipped file, exit 0, no state or socket made")
    func good() async throws {
        let (folder, path) = try layout(
            "[[app]]\nname = \"one\"\nurl = \"https://u:secret@o.example/v\"\nversion = \"1\"\n",
            apps: ["two.toml": "url = \"file:///srv/v.json\"\nversion-file = \"/opt/two/VERSION\"\nschedule = \"weekly\"\nformat = \"turkcell\"\n", "foo.conf": "", "bar.TOML": "", ".two.toml.swp": ""]
        )
        let result = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("one: format ssvc, schedule daily, version 1, url https://***@o.example/v"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("two: format turkcell, schedule weekly, version-file /opt/two/VERSION, url file:///srv/v.json"))
        #expect(result.standardError.contains("warning: \(folder.url.path)/apps.d/foo.conf: skipped: only files named *.toml are read"), "\(result.standardError)")
        #expect(result.standardError.contains("apps.d/bar.TOML: skipped"))
        #expect(!result.standardError.contains(".swp"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["apps.d", "ssvcd.toml"])
    }

    @Test("problems a start let through before: each an error naming file, app, key and line, exit 78", arguments: [
        ("[[app]]\nname = \"one\"\nurl = \"https://o/v\"\nversion = \"1\"\n[[app]]\nname = \"two\"\nurl = \"http://exa mple .com:99999/x\"\nversion = \"1\"\n", "ssvcd.toml: app.url: 'http://exa mple .com:99999/x': holds a space or a control character; write it percent-encoded (%20) ([[app]] 'two', line 11)"),
        ("[[app]]\nurl = \"http://[::1/x\"\nversion = \"1\"\n", "ssvcd.toml: app.name: missing ([[app]] number 1, line 5)"),
        ("[[app]]\nname = \"a\"\nurl = \"https://o/v\"\nversion = \"1\"\nshedule = \"daily\"\n", "ssvcd.toml: app.shedule: unknown key (did you mean `schedule`?) ([[app]] 'a', line 9)"),
    ])
    func bad(main: String, expected: String) async throws {
        let (folder, path) = try layout(main, apps: [:])
        defer { withExtendedLifetime(folder) {} }
        let result = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(result.status == 78)
        #expect(result.standardError.contains(expected), "\(result.standardError)")
    }

    @Test("a file's control characters reach the terminal escaped, in the error and in the apps listed")
    func escaped() async throws {
        let (folder, path) = try layout("", apps: ["one.toml": "url = \"https://o/v\"\nversion-file = \"/opt/one\\u001b[2J/VERSION\"\n"])
        defer { withExtendedLifetime(folder) {} }
        let listed = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("one: format ssvc, schedule daily, version-file /opt/one\\x1b[2J/VERSION, url https://o/v"), "\(listed.standardOutput)")
        _ = try folder.file("ssvcd.toml", "[daemon]\n\"state\\u001b]0;owned\\u0007\" = 1\n")
        let refused = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(refused.status == 78)
        #expect(refused.standardError.contains("daemon.state\\x1b]0;owned\\x07: unknown key"), "\(refused.standardError)")
        #expect(!(listed.standardOutput + refused.standardError).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test("a state folder anyone may write to: --check-config says 78 as the start refuses it; a metrics folder likewise is a warning")
    func unsafeStateFolder() async throws {
        let (folder, path) = try layout("", apps: ["one.toml": "url = \"https://o/v\"\nversion = \"1\"\n"])
        let state = folder.url.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: state)
        let checked = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(checked.status == 78)
        #expect(checked.standardError.contains("daemon.state-dir: cannot write \(state)/state.json: its folder \(state) is writable by every user and not sticky (mode 0777)"), "\(checked.standardError)")
        let started = try await Executable.shell("exec timeout 10 '\(try Executable.path("ssvcd"))' --config '\(path)' --log-target stderr")
        #expect(started.status == 73, "\(started.standardError)")
        #expect(started.standardError.contains("is writable by every user and not sticky"), "\(started.standardError)")

        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: state)
        let metrics = folder.url.appendingPathComponent("metrics").path
        try FileManager.default.createDirectory(atPath: metrics, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: metrics)
        _ = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\nsocket = \"c.sock\"\napps-dir = \"apps.d\"\nmetrics-file = \"metrics/ssvc.prom\"\n")
        let warned = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(warned.status == 0, "\(warned.standardError)")
        #expect(warned.standardError.contains("warning: daemon.metrics-file: \(metrics)/ssvc.prom cannot be written: its folder \(metrics) is writable by every user"), "\(warned.standardError)")
    }

    @Test("a file name that is not UTF-8 in apps.d is skipped alone, named escaped; the other apps load and the daemon starts")
    func undecodableFileName() async throws {
        let (folder, path) = try layout("", apps: ["good.toml": "url = \"https://o/v\"\nversion = \"1\"\n"])
        let bad = Array((folder.url.path + "/apps.d/bad").utf8) + [0xFF] + Array(".toml".utf8) + [0]
        let descriptor = bad.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
        #expect(descriptor >= 0)
        close(descriptor)
        let result = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(result.status == 0, "\(result.standardError)")
        // The byte is written \xff, and standard error escapes that backslash as every other.
        #expect(result.standardError.contains("warning: \(folder.url.path)/apps.d/bad\\\\xff.toml: skipped: the file's name is not UTF-8; rename it"), "\(result.standardError)")
        #expect(result.standardOutput.contains("1 app, configuration OK"), "\(result.standardOutput)")
    }

    @Test("an apps-dir that does not exist is an error, not a start with no apps")
    func missingAppsDirectory() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.file("ssvcd.toml", "[daemon]\nstate-dir = \"state\"\napps-dir = \"/nonexistent/apps.d\"\n")
        let result = try await Executable.run("ssvcd", ["--config", path, "--check-config"])
        #expect(result.status == 78)
        #expect(result.standardError.contains("daemon.apps-dir: /nonexistent/apps.d does not exist"), "\(result.standardError)")
    }
}

@Suite("fetch failures in words of our own", .processSlot)
struct FetchFailureWordsTests {
    @Test("each failure a loopback server can provoke reads as one phrase naming host and port, the same in lastError, ssvcctl and the journal", arguments: [
        ("refused", "cannot connect to 127.0.0.1:PORT: connection refused"),
        ("drop", "the server at 127.0.0.1:PORT closed the connection before a whole response"),
        ("rst", "the server at 127.0.0.1:PORT reset the connection"),
        ("plain", "TLS to 127.0.0.1:PORT: the server does not speak TLS there (plain http on an https port?)"),
        ("hang", "the request to 127.0.0.1:PORT took longer than timeout-seconds (1 s)"),
    ])
    func phrase(kind: String, expected: String) async throws {
        let server = try await VersionServer(scenario: ["mode": kind == "plain" ? "normal" : kind])
        let port = kind == "refused" ? try freeLoopbackPort() : Int(server.url("/").split(separator: ":").last!.prefix { $0.isNumber })!
        let url = (kind == "plain" ? "https" : "http") + "://127.0.0.1:\(port)/v.json"
        let daemon = try DaemonProcess(daemon: "timeout-seconds = 1", apps: appTable("f", url: url))
        #expect(await daemon.wait { daemon.app("f")?["lastError"] != nil }, "\(daemon.log)")
        let phrase = expected.replacingOccurrences(of: "PORT", with: String(port))
        #expect(daemon.app("f")?["lastError"] as? String == phrase)
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "status", "--timeout", "5"])
        #expect(status.standardOutput.contains(phrase), "\(status.standardOutput)")
        #expect(daemon.lines(for: "f").last?.contains("SSVC_ERROR=\(phrase)") == true, "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }
}

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
