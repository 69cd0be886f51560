import ArgumentParser
@testable import ssvcd
import SSVCSystemd
import Testing

@Suite("ssvcd's start line read without ArgumentParser")
struct StartArgumentsTests {
    /// Lines the fast path must take: the unit's, the tests', `make run`'s.
    @Test("a service manager's start line is read at once, as ArgumentParser reads it", arguments: [
        [],
        ["--config", "/etc/ssvc/ssvcd.toml"],
        ["--config", "/tmp/a b/ssvcd.toml", "--log-target", "stderr"],
        ["--config=/x=y.toml", "--state-dir=state", "--socket", "s", "--log-target=journal"],
        ["--log-target", "auto", "--socket", "/run/ssvc/io.ssvc.Daemon"],
    ])
    func taken(_ line: [String]) throws {
        let fast = try #require(StartArguments.parse(line))
        let parsed = try #require(try SSVCD.parseAsRoot(line) as? SSVCD)
        #expect(!parsed.checkConfig && parsed.printToml == nil)
        #expect(fast == StartArguments(config: parsed.config, stateDirectory: parsed.stateDirectory, socket: parsed.socket, logTarget: parsed.logTarget))
    }

    /// Everything else is ArgumentParser's: its help, its errors, its exit codes.
    @Test("any other line is left to ArgumentParser", arguments: [
        ["--help"], ["-h"], ["--version"], ["--check-config"], ["--config", "x", "--check-config"],
        ["--print-toml", "x"], ["--config"], ["--config", ""], ["--config="], ["--config", "--socket", "s"],
        ["--config", "a", "--config", "b"], ["--log-target", "Stderr"], ["--log-target=syslog"],
        ["--conf", "x"], ["-c", "x"], ["x"], ["--", "--config", "x"], ["--config", "-"], ["--socket"],
    ])
    func left(_ line: [String]) {
        #expect(StartArguments.parse(line) == nil)
    }
}
