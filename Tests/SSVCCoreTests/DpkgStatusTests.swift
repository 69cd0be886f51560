import Foundation
@testable import SSVCCore
import Testing

@Suite("dpkg's database")
struct DpkgStatusTests {
    let status = DpkgStatus(parsing: SourceFixture.bytes("dpkg-status"))

    @Test("an installed package's version, as dpkg-query shows it", arguments: [
        ("billing-agent", "1:2.4.0-1"), ("waiting-trigger", "5.1-3"), ("libmulti", "2.0-1"), ("libmulti:i386", "2.0-1"),
        ("libskew:i386", "1.9-1"), ("libskew:amd64", "2.0-1"),
    ])
    func installed(name: String, version: String) throws {
        #expect(try status.installedVersion(of: name) == version)
    }

    @Test("a package that is not installed names its dpkg state", arguments: [
        ("half-done", "package half-done is not installed (dpkg state: half-installed)"),
        ("removed-tool", "package removed-tool is not installed (dpkg state: config-files)"),
        ("unpacked-only", "package unpacked-only is not installed (dpkg state: unpacked)"),
        ("nosuch", "package nosuch is not installed (dpkg knows nothing of it)"),
        ("libmulti:arm64", "package libmulti:arm64 is not installed (dpkg knows nothing of it)"),
        ("libskew", "package libskew is installed for several architectures with different versions (amd64 2.0-1, i386 1.9-1): name one, as libskew:amd64"),
    ])
    func notInstalled(name: String, message: String) {
        #expect(throws: DpkgStatus.Problem(description: message)) { try status.installedVersion(of: name) }
    }

    @Test("a continuation line is not a field, and garbage is skipped without a crash")
    func robustness() throws {
        #expect(try status.installedVersion(of: "billing-agent") == "1:2.4.0-1")
        let garbage = DpkgStatus(parsing: Array("\u{0}\u{ff}Package\n: x\n\n\n:::\nStatus: a b c\n".utf8))
        #expect(garbage.entries.isEmpty)
        let crlf = DpkgStatus(parsing: Array("Package: x\r\nStatus: install ok installed\r\nVersion: 1.0\r\n\r\n".utf8))
        #expect(try crlf.installedVersion(of: "x") == "1.0")
    }
}
