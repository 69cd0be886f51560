import Foundation
import SSVCTestSupport
import Testing

/// The manual pages as the package installs them: every command-line
/// option the executables take is on its page, and mandoc finds nothing.
@Suite("manual pages", .processSlot)
struct ManualPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func source(_ page: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent("docs/man/\(page).scd"), encoding: .utf8)
    }

    /// The long options a help text shows.
    func options(_ help: String) -> Set<String> {
        Set(help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init).filter { $0.hasPrefix("--") && $0.count > 2 })
    }

    @Test("every option of ssvcd and of each ssvcctl subcommand is on its manual page", arguments: [
        ("ssvcd", [String](), "ssvcd.8"),
        ("ssvcctl", ["status"], "ssvcctl.1"), ("ssvcctl", ["check"], "ssvcctl.1"), ("ssvcctl", ["watch"], "ssvcctl.1"),
        ("ssvcctl", ["reload"], "ssvcctl.1"), ("ssvcctl", ["motd"], "ssvcctl.1"), ("ssvcctl", ["evaluate"], "ssvcctl.1"),
    ])
    func options(program: String, subcommand: [String], page: String) async throws {
        let help = try await Executable.run(program, subcommand + ["--help"])
        let text = try source(page)
        let shown = options(help.standardOutput).subtracting(["--help"])
        #expect(!shown.isEmpty)
        for option in shown.sorted() {
            #expect(text.contains("*\(option)*"), "\(page) does not describe \(program) \(subcommand.joined()) \(option)")
        }
    }

    @Test("the built pages are clean under mandoc -T lint (warnings and worse)", arguments: ["ssvcd.8", "ssvcctl.1", "ssvcd.toml.5"])
    func lint(page: String) async throws {
        let built = Self.repository.appendingPathComponent(".build/man/\(page)").path
        try #require(FileManager.default.fileExists(atPath: built), "run 'make man' (make test does)")
        let result = try await Executable.run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", built])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
    }
}
