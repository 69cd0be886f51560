import Foundation
import SSVCTestSupport
import Testing

/// Reloads as an operator's scripts send them: many at once, by signal and
/// by call, while checks run against a slow server and the configuration
/// changes under them.
@Suite("ssvcd: reloads one at a time", .processSlot)
struct ReloadStormTests {
    @Test("reloads more often than the first-check window do not put first checks off (found by ssvc-bench soak)")
    func reloadsKeepPlans() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody])
        let apps = (1...6).map { appTable("app-\($0)", url: server.url("/a\($0)")) }.joined(separator: "\n")
        let daemon = try DaemonProcess(daemon: "first-check-window-seconds = 3", apps: apps)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        // A reload every 0.25 s for 10 s: each app keeps the first-check
        // time planned at start, within 3 s of it; re-planned at each
        // reload, none would be checked before the reloads end. The 7 s
        // after the window are for the checks on a loaded machine (issue 49).
        let started = Date()
        while Date().timeIntervalSince(started) < 10 {
            kill(daemon.process.pid, SIGHUP)
            await pause(0.25)
        }
        let checked = (1...6).filter { daemon.app("app-\($0)")?["lastCheck"] != nil }
        #expect(checked.count == 6, "checked: \(checked) \(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    @Test("50 SIGHUPs and 50 Reload calls during slow checks: ssvcd answers, checks, and ends on the last configuration")
    func storm() async throws {
        let server = try await VersionServer(scenario: ["body": goodBody, "delay": 2])
        let folder = try TemporaryFolder()
        let appsFolder = folder.url.appendingPathComponent("apps.d").path
        try FileManager.default.createDirectory(atPath: appsFolder, withIntermediateDirectories: true)
        let apps = (1...5).map { appTable("slow-\($0)", url: server.url("/slow-\($0)")).replacingOccurrences(of: "daily", with: "hourly") }
        let daemon = try DaemonProcess(apps: apps.joined(separator: "\n"), folder: folder)
        #expect(await daemon.wait { FileManager.default.fileExists(atPath: daemon.socketPath) })
        #expect(await eventually(within: 10) { server.requests().count >= 5 }, "checks are running")

        // The main file flips its fetch settings (a new HTTP client each
        // time) and an app file comes and goes, while the reloads arrive.
        let main = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        let (configPath, pid, extraURL) = (daemon.configPath, daemon.process.pid, server.url("/extra"))
        let rewrite: @Sendable (Int) -> Void = { round in
            let timeout = "timeout-seconds = \(20 + round % 3)\n"
            try? main.replacingOccurrences(of: "[daemon]\n", with: "[daemon]\n" + timeout)
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let extra = appsFolder + "/extra.toml"
            if round % 2 == 0 {
                try? "url = \"\(extraURL)\"\nversion = \"1.0\"\n".write(toFile: extra, atomically: true, encoding: .utf8)
            } else {
                try? FileManager.default.removeItem(atPath: extra)
            }
        }
        let socket = ["--socket", daemon.socketPath, "--timeout", "60"]
        let failed = await withTaskGroup(of: [String].self) { lanes in
            for lane in 0..<4 {
                lanes.addTask {
                    var failed: [String] = []
                    for round in 0..<25 {
                        switch lane {
                        case 0:
                            rewrite(round)
                            kill(pid, SIGHUP)
                            kill(pid, SIGHUP)
                        case 1, 2:
                            let reload = try? await Executable.run("ssvcctl", socket + ["reload"])
                            if reload?.status != 0 { failed.append("reload: \(reload?.standardError ?? "not run")") }
                        case _ where round % 5 == 0:
                            _ = try? await Executable.run("ssvcctl", socket + ["check", "slow-\(round / 5 + 1)"])
                        default:
                            break
                        }
                        await pause(0.02)
                    }
                    return failed
                }
            }
            return await lanes.reduce(into: []) { $0 += $1 }
        }
        #expect(failed.isEmpty, "\(failed.prefix(3))")

        // The configuration last written: the apps of the main file, the
        // extra one gone, and one more that arrives now.
        rewrite(1)
        _ = try folder.file("apps.d/last.toml", "url = \"\(server.url("/last"))\"\nversion = \"1.0\"\n")
        let last = try await Executable.run("ssvcctl", socket + ["reload"])
        #expect(last.status == 0, "\(last.standardError)")
        #expect(daemon.process.isRunning, "\(daemon.log.split(separator: "\n").filter { $0.contains("Fatal error") })")
        let status = try await Executable.run("ssvcctl", ["--socket", daemon.socketPath, "--timeout", "4", "status", "--json"])
        #expect(status.status == 10, "\(status.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
        let names = ((object?["apps"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
        #expect(names == ["last", "slow-1", "slow-2", "slow-3", "slow-4", "slow-5"])
        let check = try await Executable.run("ssvcctl", socket + ["check", "last"])
        #expect(check.status == 10, "checks still run: \(check.standardError)")
        #expect(await daemon.stop() == 0)
    }
}
