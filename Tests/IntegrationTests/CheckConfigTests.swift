import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

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
