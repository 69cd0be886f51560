import Foundation
import SSVCCore
import Testing

/// `make install` into a temporary root, and systemd's own tools on the result.
@Suite("systemd units and catalog, installed")
struct SystemdUnitTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Installs the built binaries and the files into a fresh root.
    func install(prefix: String = "/usr") throws -> TemporaryFolder {
        let root = try TemporaryFolder()
        let binaries = URL(fileURLWithPath: try Executable.path("ssvcd")).deletingLastPathComponent().path
        let result = try Executable.run("/usr/bin/make", [
            "-C", Self.repository.path, "install", "NO_BUILD=1", "BIN_DIR=\(binaries)", "DESTDIR=\(root.url.path)", "PREFIX=\(prefix)",
        ])
        try #require(result.status == 0, "make install failed: \(result.standardError)")
        return root
    }

    @Test("make install puts every file where Debian expects it, honouring DESTDIR and PREFIX")
    func layout() throws {
        let root = try install()
        for path in [
            "usr/bin/ssvcd", "usr/bin/ssvcctl", "lib/systemd/system/ssvcd.service", "lib/systemd/system/ssvcd.socket",
            "usr/lib/systemd/catalog/ssvcd.catalog", "etc/ssvc/ssvcd.toml", "usr/share/doc/ssvc/README.md",
            "usr/share/doc/ssvc/examples/apps.d/example.toml",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.url.appendingPathComponent(path).path), "\(path) missing")
        }
        #expect(FileManager.default.isExecutableFile(atPath: root.url.appendingPathComponent("usr/bin/ssvcd").path))
        let local = try install(prefix: "/usr/local")
        let unit = try String(contentsOf: local.url.appendingPathComponent("lib/systemd/system/ssvcd.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/ssvcd\n"))
        #expect(FileManager.default.fileExists(atPath: local.url.appendingPathComponent("usr/local/bin/ssvcctl").path))
    }

    /// A root systemd can judge the units in: its targets, and /bin/kill for ExecReload.
    func systemdRoot() throws -> TemporaryFolder {
        let root = try install()
        let units = root.url.appendingPathComponent("lib/systemd/system").path
        let copy = try Executable.shell("cp /lib/systemd/system/*.target /lib/systemd/system/*.slice '\(units)/' && mkdir -p '\(root.url.path)/bin' && cp /bin/kill '\(root.url.path)/bin/'")
        try #require(copy.status == 0, "\(copy.standardError)")
        return root
    }

    @Test("systemd-analyze verify accepts both units without a word")
    func verify() throws {
        let root = try systemdRoot()
        let result = try Executable.run("/usr/bin/systemd-analyze", [
            "verify", "--man=no", "--root=\(root.url.path)", "/lib/systemd/system/ssvcd.service", "/lib/systemd/system/ssvcd.socket",
        ])
        #expect(result.status == 0)
        // verify reports bad values as warnings and still exits 0.
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
    }

    @Test("systemd-analyze security rates the sandbox 2.0 or lower")
    func security() throws {
        let root = try systemdRoot()
        let result = try Executable.run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--root=\(root.url.path)", "ssvcd.service"])
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level for ssvcd.service:") })
        let score = try #require(Double(line.split(separator: ":").last?.split(separator: " ").first ?? ""))
        #expect(score <= 2.0, "\(line)")
    }

    @Test("journalctl --update-catalog accepts the catalog, with one entry per MESSAGE_ID")
    func catalog() throws {
        let root = try install()
        let update = try Executable.run("/usr/bin/journalctl", ["--root=\(root.url.path)", "--update-catalog"])
        #expect(update.status == 0, "\(update.standardError)")
        #expect(update.standardError.isEmpty, "\(update.standardError)")
        let list = try Executable.run("/usr/bin/journalctl", ["--root=\(root.url.path)", "--list-catalog"])
        let ids = Set(list.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(ids == Set(MessageID.allCases.map(\.rawValue)))
    }
}
