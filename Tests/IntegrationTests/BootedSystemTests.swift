import Foundation
import SSVCTestSupport
import SSVCCore
import Testing

/// The release package that `make deb` builds, installed with `dpkg -i` on
/// Debian systems booted with systemd as PID 1 (`systemd-nspawn --boot`),
/// and driven as an operator drives it: socket activation, checks, the
/// journal and its catalog, reloads good and bad, an unprivileged user, the
/// watchdog, an idle daemon, stop, the sandbox's rating, purge; and on trixie, systemd's own
/// Varlink client.
///
/// `make test` and `make test-systemd` build the package and name it in
/// `SSVC_DEB`. Without it the suite does not run, except in CI, where it
/// fails: it never skips there.
@Suite(
    "the package under a real systemd (PID 1)", .processSlot,
    .enabled(if: releasePackage != nil || ProcessInfo.processInfo.environment["CI"] == "true", "needs SSVC_DEB: run make test-systemd")
)
struct BootedSystemTests {
    static let socket = "/run/ssvc/io.ssvc.Daemon"
    static let latest = #"{"SSVCLatestVersionKey":"1.1","SSVCMinimumSupportedVersionNumber":0}"#

    @Test("an operator's day on Debian 12 (systemd 252) and Debian 13 (systemd 257)", arguments: ["bookworm", "trixie"])
    func operatorsDay(suite: String) async throws {
        let deb = try #require(releasePackage, "SSVC_DEB names no package: run make test or make test-systemd")
        try #require(FileManager.default.fileExists(atPath: deb), "no package at \(deb)")
        let logs = try TemporaryFolder()
        let folder = URL(fileURLWithPath: deb).deletingLastPathComponent().path
        let file = URL(fileURLWithPath: deb).lastPathComponent
        let system = try await BootedSystem(suite: suite, bindReadOnly: [(folder, "/mnt/ssvc")], logFolder: logs)
        try await withCleanup {
            let day = OperatorsDay(system: system, server: try await VersionServer(scenario: ["body": Self.latest], networkOf: system.leader))

            try await day.install("/mnt/ssvc/\(file)")
            try await day.activateThroughSocket()
            try await day.checkAndJournal()
            try await day.integrations()
            try await day.journalShipping()
            try await day.reloads()
            try await day.unprivilegedUser()
            if suite == "trixie" { try await day.varlinkctl() }
            try await day.watchdog()
            try await day.credentials()
            try await day.signedDocument()
            try await day.proxyFromEnvironmentFile(try await TinyProxy(user: "fleet", password: "pw-\(UUID().uuidString.prefix(8))", networkOf: system.leader))
            try await day.idle()
            try await day.stopAndRating()
            try await day.purge()
        } cleanup: {
            await system.shutdown()
        }
    }
}

/// The package `make deb` built, named by the Makefile in `SSVC_DEB`.
private let releasePackage = ProcessInfo.processInfo.environment["SSVC_DEB"].flatMap { $0.isEmpty ? nil : $0 }

/// The steps of `BootedSystemTests`, in the order an operator meets them.
struct OperatorsDay {
    let system: BootedSystem
    let server: VersionServer

    /// Runs a shell script in the container; the result, with what it printed.
    @discardableResult
    func sh(_ script: String, timeout: Int = 60) async throws -> CommandResult {
        try await system.shell(script, timeout: timeout)
    }

    func output(_ script: String) async throws -> String {
        try await sh(script).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` for up to `seconds`.
    func wait(_ seconds: Double = 15, until condition: () async throws -> Bool) async rethrows -> Bool {
        try await eventually(within: seconds, every: 0.2, condition)
    }

    /// `ssvcctl status --json` as root: app name → App.
    func apps() async throws -> [String: [String: Any]] {
        let result = try await system.run(["ssvcctl", "status", "--json"])
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              let apps = object["apps"] as? [[String: Any]]
        else { return [:] }
        return Dictionary(apps.compactMap { app in (app["name"] as? String).map { ($0, app) } }) { first, _ in first }
    }

    /// The journal entries of the service as JSON objects (`filters` are journalctl matches).
    func journal(_ filters: String = "") async throws -> [[String: Any]] {
        let result = try await sh("journalctl -o json --no-pager _SYSTEMD_UNIT=ssvcd.service \(filters)")
        return result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func mainPID() async throws -> String { try await output("systemctl show -p MainPID --value ssvcd.service") }

    func install(_ deb: String) async throws {
        // Where Debian's node_exporter reads text files: the package links its metrics there.
        try await sh("mkdir -p /var/lib/prometheus/node-exporter")
        let install = try await sh("dpkg -i \(deb)")
        try #require(install.status == 0, "dpkg -i: \(install.standardOutput) \(install.standardError)")
        #expect(try await output("systemctl is-enabled ssvcd.socket ssvcd.service") == "enabled\nenabled")
        #expect(try await output("systemctl is-active ssvcd.socket") == "active")
        // The socket's folder is a plain folder anyone may enter, not a
        // link into /run/private.
        #expect(try await output("stat -c '%F %a %U' /run/ssvc") == "directory 755 root")
        #expect(try await output("stat -c '%F %a' \(BootedSystemTests.socket)") == "socket 666")
    }

    /// An app dropped in; the daemon stopped; the first `ssvcctl status`
    /// starts it again through the socket, on the new configuration.
    func activateThroughSocket() async throws {
        try await sh("""
            printf '[daemon]\\nmin-interval-seconds = 0\\n' > /etc/ssvc/ssvcd.toml
            printf 'url = "\(server.url("/billing"))"\\nversion = "1.0"\\n' > /etc/ssvc/apps.d/billing.toml
            systemctl stop ssvcd.service
            """)
        #expect(try await output("systemctl is-active ssvcd.service") == "inactive")
        #expect(try await output("systemctl is-active ssvcd.socket") == "active")
        let status = try await system.run(["ssvcctl", "status", "billing"])
        #expect(status.status == 0, "\(status.standardOutput) \(status.standardError)")
        #expect(status.standardOutput.contains("billing"), "\(status.standardOutput)")
        #expect(try await output("systemctl is-active ssvcd.service") == "active")
        // Never checked: the first check is spread over the first-check window.
        #expect(try await apps()["billing"]?["nextCheckReason"] as? String == "first-check")
        #expect(server.requests().isEmpty)

        // A dynamic user, with the state under /var/lib/private.
        let uid = try #require(await Int(try output("stat -c %u /proc/$(systemctl show -p MainPID --value ssvcd.service)")))
        #expect((61184...65519).contains(uid), "ssvcd runs as uid \(uid)")
        #expect(try await output("stat -c '%F' /var/lib/private/ssvc; readlink /var/lib/ssvc") == "directory\nprivate/ssvc")
    }

    func checkAndJournal() async throws {
        let check = try await system.run(["ssvcctl", "check", "billing"])
        #expect(check.status == 10, "\(check.standardOutput) \(check.standardError)")
        #expect(server.requests().count == 1)
        #expect(try await sh("grep -q '\"billing\"' /var/lib/private/ssvc/state.json").status == 0)

        let id = MessageID.updateAvailable.rawValue
        // journald writes the entry a moment after the check's answer (later on a busy machine).
        var entries: [[String: Any]] = []
        _ = try await wait { entries = try await journal("SSVC_APP=billing MESSAGE_ID=\(id)"); return !entries.isEmpty }
        let entry = try #require(entries.last, "no update-available entry for billing in the journal")
        #expect(entry["PRIORITY"] as? String == "5")
        #expect(entry["SYSLOG_IDENTIFIER"] as? String == "ssvcd")
        #expect(entry["SSVC_STATUS"] as? String == "update-available")
        #expect(entry["SSVC_CURRENT_VERSION"] as? String == "1.0")
        #expect(entry["SSVC_LATEST_VERSION"] as? String == "1.1")
        #expect(entry["SSVC_URL"] as? String == server.url("/billing"))
        #expect(entry["SSVC_CONSECUTIVE_FAILURES"] as? String == "0")
        #expect((entry["SSVC_NEXT_CHECK"] as? String)?.hasSuffix("Z") == true)
        let explained = try await output("journalctl -x --no-pager -u ssvcd.service MESSAGE_ID=\(id)")
        #expect(explained.contains("Subject: An update is available for billing"), "\(explained)")
        #expect(explained.contains("offers 1.1 of"), "\(explained)")
    }

    /// `systemctl reload` with a new app, then with a broken app file.
    func reloads() async throws {
        try await sh("printf 'url = \"\(server.url("/agent"))\"\\nversion = \"2.0\"\\n' > /etc/ssvc/apps.d/agent.toml")
        let pid = try await mainPID()
        #expect(try await sh("systemctl reload ssvcd.service").status == 0)
        #expect(try await wait { try await apps().keys.sorted() == ["agent", "billing"] }, "the new app after a reload")

        try await sh("printf 'url = \"\(server.url("/x"))\"\\nversion = \"1\"\\nschedule = \"fortnightly\"\\n' > /etc/ssvc/apps.d/broken.toml")
        // ExecReload waits for the answer: the reload job fails.
        #expect(try await sh("systemctl reload ssvcd.service").status != 0)
        let id = MessageID.configurationError.rawValue
        #expect(try await wait {
           try await journal("MESSAGE_ID=\(id)").contains { ($0["MESSAGE"] as? String)?.contains("broken.toml: schedule") == true }
        }, "the configuration error in the journal")
        #expect(try await output("systemctl is-active ssvcd.service") == "active")
        #expect(try await mainPID() == pid)
        #expect(try await apps().keys.sorted() == ["agent", "billing"], "the running configuration is kept")
        try await sh("rm /etc/ssvc/apps.d/broken.toml")
    }

    /// A user who is neither root nor in control-group reads and watches,
    /// and is refused Check and Reload.
    func unprivilegedUser() async throws {
        let status = try await system.run(["ssvcctl", "status", "billing"], user: "nobody")
        #expect(status.status == 10, "\(status.standardOutput) \(status.standardError)")
        try await sh("runuser -u nobody -- timeout 60 ssvcctl watch --json > /tmp/watch.nobody 2>&1 &")
        // Nothing tells when the watch is in place (a loaded machine may
        // start it after a check): check until it has seen one (issue 49).
        let seen = try await wait(45) {
            #expect(try await system.run(["ssvcctl", "check", "agent"]).status == 0)
            return try await wait(3) { try await output("cat /tmp/watch.nobody").contains(#""name":"agent""#) }
        }
        #expect(seen, "nobody's watch saw a check")
        for mutating in [["check", "billing"], ["reload"]] {
            let refused = try await system.run(["ssvcctl"] + mutating, user: "nobody")
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("permission denied"), "\(refused.standardError)")
        }
    }

    /// systemd 257's own Varlink client against the socket.
    func varlinkctl() async throws {
        let socket = BootedSystemTests.socket
        let info = try await sh("varlinkctl info \(socket)")
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains("io.ssvc.Daemon"), "\(info.standardOutput)")
        let introspect = try await sh("varlinkctl introspect \(socket) io.ssvc.Daemon")
        #expect(introspect.status == 0, "\(introspect.standardError)")
        #expect(introspect.standardOutput.contains("method GetStatus"), "\(introspect.standardOutput)")
        let call = try await sh("varlinkctl call \(socket) io.ssvc.Daemon.GetStatus '{\"app\":\"billing\"}'")
        #expect(call.status == 0, "\(call.standardError)")
        #expect(call.standardOutput.contains("\"update-available\""), "\(call.standardOutput)")

        try await sh("timeout 60 varlinkctl call --more \(socket) io.ssvc.Daemon.Watch '{}' > /tmp/watch.varlinkctl 2>&1 &")
        // As above: check until the watch, in place at some point, saw one.
        let seen = try await wait(45) {
            #expect(try await system.run(["ssvcctl", "check", "billing"]).status == 10)
            return try await wait(3) { try await output("cat /tmp/watch.varlinkctl").contains("\"check\"") }
        }
        #expect(seen, "varlinkctl's Watch saw a check")

        let pid = try await mainPID()
        let bad = try await sh("varlinkctl call \(socket) io.ssvc.Daemon.GetStatus '{\"app\":5}'")
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("InvalidParameter"), "\(bad.standardError)")
        #expect(try await system.run(["ssvcctl", "status"]).status == 10, "the daemon carries on")
        #expect(try await mainPID() == pid)
    }

    /// A hung daemon is killed by the watchdog and restarted; the stored
    /// result answers at once, without a fetch; idle, nothing restarts it.
    func watchdog() async throws {
        try await sh("""
            mkdir -p /etc/systemd/system/ssvcd.service.d
            printf '[Service]\\nWatchdogSec=15s\\nTimeoutAbortSec=2s\\n' > /etc/systemd/system/ssvcd.service.d/watchdog.conf
            systemctl daemon-reload
            systemctl restart ssvcd.service
            """)
        let before = try #require(try await apps()["billing"]?["lastCheck"] as? String)
        let requests = server.requests().count
        let restarts = try await output("systemctl show -p NRestarts --value ssvcd.service")
        let hung = try await mainPID()
        #expect(try await sh("kill -STOP \(hung)").status == 0)
        #expect(try await wait(45) {
            let now = try await mainPID()
            let active = try await output("systemctl is-active ssvcd.service") == "active"
            return now != hung && now != "0" && active
        }, "the watchdog restarted the daemon")
        #expect(try await output("systemctl show -p NRestarts --value ssvcd.service") == String((Int(restarts) ?? 0) + 1))
        let timeout = try await output("journalctl --no-pager -u ssvcd.service -g 'Watchdog timeout'")
        #expect(!timeout.isEmpty, "systemd logged the watchdog timeout")
        let after = try await apps()["billing"]
        #expect(after?["lastCheck"] as? String == before)
        #expect(after?["status"] as? String == "update-available")
        #expect(server.requests().count == requests, "no fetch after the restart")

        // Idle with a 15 s watchdog: the pings (every 7.5 s) keep it alive
        // for more than two of its periods. (Beside Tests/busy and a second
        // booted system, bookworm's systemd took a ping 1 s late for a hang
        // with 2 s, and one 3 s late with 6 s; operators set minutes.)
        let alive = try await mainPID()
        await pause(31)
        #expect(try await mainPID() == alive)
        #expect(try await output("systemctl show -p NRestarts --value ssvcd.service") == String((Int(restarts) ?? 0) + 1))
        try await sh("rm -r /etc/systemd/system/ssvcd.service.d && systemctl daemon-reload")
    }

    /// A token in a root-only file reaches the sandboxed daemon through
    /// `LoadCredential=`, which it cannot read itself; the token goes to the
    /// server as a bearer token and appears nowhere else.
    func credentials() async throws {
        let token = "booted-\(UUID().uuidString.prefix(12))"
        try await sh("""
            install -d -m 0700 /etc/ssvc/private
            printf '\(token)\\n' > /etc/ssvc/private/token && chmod 0600 /etc/ssvc/private/token
            mkdir -p /etc/systemd/system/ssvcd.service.d
            printf '[Service]\\nLoadCredential=update-token:/etc/ssvc/private/token\\n' > /etc/systemd/system/ssvcd.service.d/credentials.conf
            printf 'url = "\(server.url("/with-credential"))"\\nversion = "1.0"\\nbearer-token-credential = "update-token"\\n' > /etc/ssvc/apps.d/tokened.toml
            printf 'url = "\(server.url("/with-file"))"\\nversion = "1.0"\\nbearer-token-file = "/etc/ssvc/private/token"\\n' > /etc/ssvc/apps.d/direct.toml
            systemctl daemon-reload
            systemctl restart ssvcd.service
            """)
        #expect(try await system.run(["ssvcctl", "check", "tokened"]).status == 10)
        let request = server.requests().last { $0["path"] as? String == "/with-credential" }
        #expect((request?["headers"] as? [String: String])?["Authorization"] == "Bearer \(token)", "\(request ?? [:])")
        _ = try await system.run(["ssvcctl", "check", "direct"])
        let refused = try await apps()["direct"]?["lastError"] as? String ?? ""
        #expect(refused.contains("cannot open /etc/ssvc/private/token"), "the sandboxed daemon read a root-only file: \(refused)")
        #expect(!server.requests().contains { $0["path"] as? String == "/with-file" })
        let places = try await output("journalctl --no-pager -o export -u ssvcd.service; ssvcctl status --json; cat /var/lib/private/ssvc/state.json")
        #expect(!places.contains(token), "the token leaked to the journal, the status or the state")
        try await sh("""
            rm -r /etc/systemd/system/ssvcd.service.d /etc/ssvc/apps.d/tokened.toml /etc/ssvc/apps.d/direct.toml /etc/ssvc/private
            systemctl daemon-reload
            """)
    }

    /// The operators' integrations under the full sandbox: the metrics file
    /// in the unit's runtime folder, readable by any user through the
    /// package's link for node_exporter; the login banner; the Nagios mode;
    /// a hook run as the daemon's user, which may write its state folder
    /// and nothing of the system's.
    func integrations() async throws {
        #expect(try await output("readlink /var/lib/prometheus/node-exporter/ssvc.prom") == "/run/ssvc/metrics/ssvc.prom")
        #expect(try await output("stat -c '%a' /run/ssvc/metrics /run/ssvc/metrics/ssvc.prom") == "755\n644")
        let metrics = try await sh("setpriv --reuid=nobody --regid=nogroup --clear-groups cat /var/lib/prometheus/node-exporter/ssvc.prom")
        #expect(metrics.standardOutput.contains(#"ssvc_update_available{app="billing"} 1"#), "\(metrics.standardOutput) \(metrics.standardError)")
        let banner = try await output("/etc/update-motd.d/85-ssvc")
        #expect(banner.contains("billing: update available: 1.0 -> 1.1"), "\(banner)")
        let nagios = try await sh("ssvcctl status --nagios billing")
        #expect(nagios.status == 1 && nagios.standardOutput.hasPrefix("SSVC WARNING - update available: billing"), "\(nagios.standardOutput)")

        try await sh("""
            printf '#!/bin/sh\\necho "$SSVC_APP is $SSVC_STATUS, was $SSVC_PREVIOUS_STATUS"\\necho "$SSVC_APP" > "$STATE_DIRECTORY/hook-ran"\\ntouch /etc/ssvc/hooked\\n' \\
              > /etc/ssvc/hooks.d/10-note && chmod 755 /etc/ssvc/hooks.d/10-note
            printf 'url = "\(server.url("/hooked"))"\\nversion = "1.0"\\n' > /etc/ssvc/apps.d/hooked.toml
            systemctl reload ssvcd.service
            """)
        #expect(try await system.run(["ssvcctl", "check", "hooked"]).status == 10)
        #expect(try await wait { try await journal("SSVC_HOOK=10-note").contains { ($0["MESSAGE"] as? String)?.contains("hooked is update-available, was unknown") == true } })
        #expect(try await wait { try await sh("cat /var/lib/private/ssvc/hook-ran").standardOutput == "hooked\n" })
        #expect(try await wait { try await !journal("SSVC_HOOK=10-note MESSAGE_ID=\(MessageID.hookFailed.rawValue)").isEmpty }, "touching /etc fails the hook")
        #expect(try await sh("test -e /etc/ssvc/hooked").status != 0, "a hook may not write /etc")
        try await sh("rm /etc/ssvc/hooks.d/10-note /etc/ssvc/apps.d/hooked.toml && systemctl reload ssvcd.service")
    }

    /// The journal shipped as README, "A fleet" says: systemd-journal-upload
    /// to a systemd-journal-remote collector (here on the same machine's
    /// loopback, over plain HTTP). The collector's files hold ssvcd's
    /// entries with their MESSAGE_ID and every SSVC_ field, and journalctl
    /// there explains them from the catalog.
    func journalShipping() async throws {
        let collected = "/var/log/journal/remote"
        let started = try await sh("""
            mkdir -p \(collected)
            systemd-run --unit=ssvc-collector /lib/systemd/systemd-journal-remote --listen-http=19532 --output=\(collected)/
            printf '[Upload]\\nURL=http://127.0.0.1:19532\\n' > /etc/systemd/journal-upload.conf
            sleep 1
            systemctl start systemd-journal-upload.service
            """)
        try #require(started.status == 0, "\(started.standardOutput) \(started.standardError)")
        let id = MessageID.updateAvailable.rawValue
        let local = try #require(try await journal("SSVC_APP=billing MESSAGE_ID=\(id)").last, "no local entry to ship")
        var shipped: [String: Any]?
        let arrived = try await wait(30) {
            let result = try await sh("journalctl -D \(collected) -o json --no-pager SYSLOG_IDENTIFIER=ssvcd SSVC_APP=billing MESSAGE_ID=\(id)")
            shipped = result.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.last
            return shipped != nil
        }
        let collector = arrived ? "" : (try? await output("ls -l \(collected); systemctl status systemd-journal-upload ssvc-collector --no-pager")) ?? ""
        #expect(arrived, "ssvcd's entry at the collector: \(collector)")
        let fields = local.keys.filter { $0.hasPrefix("SSVC_") }
        #expect(fields.count >= 7, "\(fields)")
        for field in fields + ["MESSAGE_ID", "MESSAGE", "PRIORITY"] {
            #expect(shipped?[field] as? String == local[field] as? String, "\(field) at the collector")
        }
        let explained = try await output("journalctl -x -D \(collected) --no-pager MESSAGE_ID=\(id)")
        #expect(explained.contains("Subject: An update is available for billing"), "\(explained)")
        try await sh("systemctl stop systemd-journal-upload.service ssvc-collector.service")
    }

    /// A document minisign signed is verified by the sandboxed daemon (libsodium
    /// from the package's Depends), the journal names the key, and a
    /// tampered document is refused with the catalog's entry.
    func signedDocument() async throws {
        let keys = try await MinisignKeyPair()
        let signed = #"{"SSVCLatestVersionKey":"1.2","SSVCMinimumSupportedVersionNumber":0}"#
        let paths = await ["/signed.json": ["body": signed], "/signed.json.minisig": ["body": try keys.sign(signed)]]
        try server.set(["body": BootedSystemTests.latest, "paths": paths])
        try await sh("""
            printf 'url = "\(server.url("/signed.json"))"\\nversion = "1.0"\\npublic-keys = ["\(keys.publicKey)"]\\nmax-signature-age-days = 7\\n' \\
              > /etc/ssvc/apps.d/signed.toml
            systemctl reload ssvcd.service
            """)
        #expect(try await system.run(["ssvcctl", "check", "signed"]).status == 10)
        let app = try await apps()["signed"]
        #expect(app?["signatureKeyId"] as? String == keys.keyID, "\(app ?? [:])")
        #expect(app?["latestVersion"] as? String == "1.2")
        #expect(try await wait { try await journal("SSVC_APP=signed").last?["SSVC_KEY_ID"] as? String == keys.keyID })

        try server.set(["body": BootedSystemTests.latest, "paths": ["/signed.json": ["body": BootedSystemTests.latest], "/signed.json.minisig": paths["/signed.json.minisig"]!]])
        _ = try await system.run(["ssvcctl", "check", "signed"])
        let id = MessageID.signatureRejected.rawValue
        var rejected: [[String: Any]] = []
        #expect(try await wait {
            rejected = try await journal("SSVC_APP=signed MESSAGE_ID=\(id)")
            return (rejected.last?["SSVC_ERROR"] as? String)?.contains("does not match the document") == true
        }, "\(rejected)")
        #expect(try await apps()["signed"]?["latestVersion"] as? String == "1.2")
        let explained = try await output("journalctl -x --no-pager -u ssvcd.service MESSAGE_ID=\(id)")
        #expect(explained.contains("must carry a valid minisign signature"), "\(explained)")
        try await sh("rm /etc/ssvc/apps.d/signed.toml && systemctl reload ssvcd.service")
        try server.set(["body": BootedSystemTests.latest])
    }

    /// Proxy variables with a password, from a root-only file named by
    /// `EnvironmentFile=`: the check goes through tinyproxy (on the
    /// container's loopback), the status names the proxy, and the password
    /// appears nowhere.
    func proxyFromEnvironmentFile(_ proxy: TinyProxy) async throws {
        try await sh("""
            printf 'http_proxy=\(proxy.url)\\nhttps_proxy=\(proxy.url)\\n' > /etc/ssvc/proxy.env && chmod 0600 /etc/ssvc/proxy.env
            mkdir -p /etc/systemd/system/ssvcd.service.d
            printf '[Service]\\nEnvironmentFile=/etc/ssvc/proxy.env\\n' > /etc/systemd/system/ssvcd.service.d/proxy.conf
            systemctl daemon-reload
            systemctl restart ssvcd.service
            """)
        #expect(try await system.run(["ssvcctl", "check", "billing"]).status == 10)
        #expect(proxy.forwarded(toPort: server.port) == 1, "\(proxy.log)")
        #expect(try await apps()["billing"]?["proxy"] as? String == "http://***@127.0.0.1:\(proxy.port)")
        let places = try await output("journalctl --no-pager -o export -u ssvcd.service; ssvcctl status --json; cat /var/lib/private/ssvc/state.json")
        #expect(!places.contains(proxy.password ?? "?"), "the proxy password leaked to the journal, the status or the state")
        try await sh("rm -r /etc/systemd/system/ssvcd.service.d /etc/ssvc/proxy.env && systemctl daemon-reload")
        await proxy.stop()
    }

    /// Under the full sandbox as without it: 10 s after the last work the
    /// daemon has given its code pages back, and then nothing wakes it.
    func idle() async throws {
        try await sh("systemctl restart ssvcd.service")
        #expect(try await system.run(["ssvcctl", "status"]).status == 10)
        let pid = try await mainPID()
        let busy = try await residentFileKiB(pid)
        await pause(12)
        let idle = try await residentFileKiB(pid)
        #expect(idle * 2 < busy, "file-backed RSS \(busy) KiB after a call, \(idle) KiB 12 s later")
        let switches = "cat /proc/\(pid)/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'"
        let before = try await output(switches)
        await pause(10)
        #expect(try await output(switches) == before, "context switches while idle")
        #expect(try await mainPID() == pid)
    }

    private func residentFileKiB(_ pid: String) async throws -> Int {
        try await #require(Int(try output("awk '/^RssFile:/ { print $2 }' /proc/\(pid)/status")))
    }

    func stopAndRating() async throws {
        let before = try await output("stat -c %Y /var/lib/private/ssvc/state.json")
        await pause(1.1)
        #expect(try await sh("systemctl stop ssvcd.service").status == 0)
        #expect(try await output("systemctl show -p Result --value ssvcd.service") == "success")
        #expect(try await output("systemctl show -p ExecMainStatus --value ssvcd.service") == "0")
        let after = try await output("stat -c %Y /var/lib/private/ssvc/state.json")
        #expect((Int(after) ?? 0) > (Int(before) ?? .max), "the state was written at stop")
        #expect(try await sh("grep -q '\"agent\"' /var/lib/private/ssvc/state.json").status == 0)

        // Every line ssvcd wrote is a native entry with fields: nothing came
        // through standard output/error or syslog(3).
        let transports = try await journal().compactMap { entry -> String? in
            guard let transport = entry["_TRANSPORT"] as? String, transport != "journal" else { return nil }
            return "\(transport): \(entry["MESSAGE"] ?? "")"
        }
        #expect(transports.isEmpty, "unstructured lines: \(transports)")
        #expect(try await journal().count >= 5)

        let security = try await output("systemd-analyze security --no-pager ssvcd.service | grep 'Overall exposure level'")
        let rated = security.components(separatedBy: "ssvcd.service:").last?.split(separator: " ").first
        let score = rated.flatMap { Double($0) }
        #expect(score != nil && score! <= 1.5, "\(security)")
        print("\(system.suite): \(security)")
    }

    func purge() async throws {
        let purge = try await sh("dpkg --purge ssvc")
        #expect(purge.status == 0, "\(purge.standardOutput) \(purge.standardError)")
        for path in [
            "/lib/systemd/system/ssvcd.service", "/lib/systemd/system/ssvcd.socket", "/usr/bin/ssvcd", "/var/lib/private/ssvc",
            "/var/lib/ssvc", "/etc/ssvc/ssvcd.toml", "/etc/systemd/system/sockets.target.wants/ssvcd.socket",
            "/var/lib/prometheus/node-exporter/ssvc.prom", "/etc/update-motd.d/85-ssvc",
        ] {
            #expect(try await sh("test -e \(path) || test -L \(path)").status != 0, "\(path) is left after purge")
        }
        #expect(try await output("systemctl is-active ssvcd.socket ssvcd.service || true") == "inactive\ninactive")
    }
}
