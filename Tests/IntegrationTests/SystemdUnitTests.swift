import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// `make install` into a temporary root, and systemd's own tools on the result.
@Suite("systemd units and catalog, installed", .processSlot)
struct SystemdUnitTests {
    init() {}

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Installs the built binaries and the files into a fresh root.
    func install(prefix: String = "/usr") async throws -> TemporaryFolder {
        let root = try TemporaryFolder()
        let binaries = URL(fileURLWithPath: try Executable.path("ssvcd")).deletingLastPathComponent().path
        let result = try await Executable.run("/usr/bin/make", [
            "-C", Self.repository.path, "install", "NO_BUILD=1", "BIN_DIR=\(binaries)", "DESTDIR=\(root.url.path)", "PREFIX=\(prefix)",
        ])
        try #require(result.status == 0, "make install failed: \(result.standardError)")
        return root
    }

    @Test("make install puts every file where Debian expects it, honouring DESTDIR and PREFIX")
    func layout() async throws {
        let root = try await install()
        for path in [
            "usr/bin/ssvcd", "usr/bin/ssvcctl", "usr/lib/systemd/system/ssvcd.service", "usr/lib/systemd/system/ssvcd.socket",
            "usr/lib/systemd/catalog/ssvcd.catalog", "etc/ssvc/ssvcd.toml", "usr/share/doc/ssvc/README.md.gz",
            "usr/share/doc/ssvc/examples/apps.d/example.toml", "usr/share/ssvc/prometheus/ssvc.rules.yml",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.url.appendingPathComponent(path).path), "\(path) missing")
        }
        #expect(FileManager.default.isExecutableFile(atPath: root.url.appendingPathComponent("usr/bin/ssvcd").path))
        #expect(FileManager.default.contentsEqual(
            atPath: root.url.appendingPathComponent("usr/share/ssvc/prometheus/ssvc.rules.yml").path,
            andPath: Self.repository.appendingPathComponent("etc/prometheus/ssvc.rules.yml").path
        ), "the rules file is installed as it is in the tree")
        let local = try await install(prefix: "/usr/local")
        let unit = try String(contentsOf: local.url.appendingPathComponent("usr/lib/systemd/system/ssvcd.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/ssvcd\n"))
        #expect(unit.contains("ExecReload=/usr/local/bin/ssvcctl reload --quiet\n"))
        #expect(FileManager.default.fileExists(atPath: local.url.appendingPathComponent("usr/local/bin/ssvcctl").path))
    }

    /// A root systemd can judge the units in: its targets and slices.
    func systemdRoot() async throws -> TemporaryFolder {
        let root = try await install()
        let units = root.url.appendingPathComponent("usr/lib/systemd/system").path
        let copy = try await Executable.shell("cp /lib/systemd/system/*.target /lib/systemd/system/*.slice '\(units)/'")
        try #require(copy.status == 0, "\(copy.standardError)")
        return root
    }

    @Test("systemd-analyze verify accepts both units without a word")
    func verify() async throws {
        let root = try await systemdRoot()
        let result = try await Executable.run("/usr/bin/systemd-analyze", [
            "verify", "--man=no", "--root=\(root.url.path)", "/usr/lib/systemd/system/ssvcd.service", "/usr/lib/systemd/system/ssvcd.socket",
        ])
        #expect(result.status == 0)
        // verify reports bad values as warnings and still exits 0.
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
    }

    @Test("systemd-analyze security rates the sandbox 2.0 or lower")
    func security() async throws {
        let root = try await systemdRoot()
        let result = try await Executable.run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--root=\(root.url.path)", "ssvcd.service"])
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level for ssvcd.service:") })
        let score = try #require(Double(line.split(separator: ":").last?.split(separator: " ").first ?? ""))
        #expect(score <= 2.0, "\(line)")
    }

    @Test("journalctl --update-catalog accepts the catalog, with one entry per MESSAGE_ID")
    func catalog() async throws {
        let root = try await install()
        let update = try await Executable.run("/usr/bin/journalctl", ["--root=\(root.url.path)", "--update-catalog"])
        #expect(update.status == 0, "\(update.standardError)")
        #expect(update.standardError.isEmpty, "\(update.standardError)")
        let list = try await Executable.run("/usr/bin/journalctl", ["--root=\(root.url.path)", "--list-catalog"])
        let ids = Set(list.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(ids == Set(MessageID.allCases.map(\.rawValue)))
    }

    /// `make deb` on the built binaries (CI builds them in debug; `make deb`
    /// alone makes the release ones).
    func package() async throws -> (TemporaryFolder, String) {
        let folder = try TemporaryFolder()
        let deb = folder.url.appendingPathComponent("ssvc.deb").path
        let binaries = URL(fileURLWithPath: try Executable.path("ssvcd")).deletingLastPathComponent().path
        let result = try await Executable.run("/usr/bin/make", [
            "-C", Self.repository.path, "deb", "NO_BUILD=1", "BIN_DIR=\(binaries)",
            "DEB_ROOT=\(folder.url.path)/root", "DEB_FILE=\(deb)", "DEB_COMPRESS=none",
        ])
        try #require(result.status == 0, "make deb failed: \(result.standardError)")
        return (folder, deb)
    }

    @Test("make deb builds a package with the right control data and contents")
    func debian() async throws {
        let (folder, deb) = try await package()
        defer { withExtendedLifetime(folder) {} }
        let info = try await Executable.run("/usr/bin/dpkg-deb", ["--info", deb])
        #expect(info.status == 0)
        #expect(info.standardOutput.contains(" Package: ssvc\n"))
        #expect(info.standardOutput.contains(" Depends: libc6 (>= 2.36), libgcc-s1, libstdc++6, libsodium23, zlib1g, libdeflate0, tzdata, init-system-helpers"))
        for script in ["postinst", "prerm", "postrm", "conffiles"] { #expect(info.standardOutput.contains(script)) }
        let contents = try await Executable.run("/usr/bin/dpkg-deb", ["--contents", deb])
        let paths = Set(contents.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        for path in [
            "./usr/bin/ssvcd", "./usr/bin/ssvcctl", "./usr/lib/systemd/system/ssvcd.service", "./usr/lib/systemd/system/ssvcd.socket",
            "./usr/lib/systemd/catalog/ssvcd.catalog", "./etc/ssvc/ssvcd.toml", "./etc/ssvc/apps.d/", "./usr/share/doc/ssvc/README.md.gz",
        ] {
            #expect(paths.contains(path), "\(path) is not in the package")
        }
    }

    @Test("dpkg installs the package into a root, enables both units the Debian way and updates the catalog; purge removes it all")
    func dpkgInstall() async throws {
        let (folder, deb) = try await package()
        let root = folder.url.appendingPathComponent("target").path
        let dpkgSetup = try await Executable.shell("mkdir -p '\(root)'/var/lib/dpkg/info '\(root)'/var/lib/dpkg/updates && touch '\(root)'/var/lib/dpkg/status")
        try #require(dpkgSetup.status == 0)
        let install = try await Executable.run("/usr/bin/dpkg", ["--root=\(root)", "--force-script-chrootless", "--force-depends", "-i", deb])
        #expect(install.status == 0, "\(install.standardError)")
        let wants = [
            "etc/systemd/system/sockets.target.wants/ssvcd.socket", "etc/systemd/system/multi-user.target.wants/ssvcd.service",
        ]
        for link in wants {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(root)/\(link)")
            let name = String(link.split(separator: "/").last!)
            #expect(target == "/usr/lib/systemd/system/" + name || target == "/lib/systemd/system/" + name, "\(link): \(target ?? "none")")
        }
        #expect(FileManager.default.fileExists(atPath: "\(root)/var/lib/systemd/catalog/database"))
        let version = try await Executable.run("\(root)/usr/bin/ssvcd", ["--version"])
        #expect(version.standardOutput == "0.1.0\n")

        let purge = try await Executable.run("/usr/bin/dpkg", ["--root=\(root)", "--force-script-chrootless", "--purge", "ssvc"])
        #expect(purge.status == 0, "\(purge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "\(root)/usr/bin/ssvcd"))
        #expect(!FileManager.default.fileExists(atPath: "\(root)/etc/ssvc/ssvcd.toml"))
        for link in wants { #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(root)/\(link)")) == nil) }
    }
}
