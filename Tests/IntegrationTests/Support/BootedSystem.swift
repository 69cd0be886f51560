import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

/// A minimal Debian system booted with systemd as PID 1 under
/// `systemd-nspawn --boot`, for tests that depend on how a real service
/// manager runs the units.
///
/// The tree is made once by `Tests/Systemd/make-tree` (debootstrap) and kept
/// under `SSVC_TREES` (default /var/tmp/ssvc-trees), outside the clone. Each
/// boot is `--volatile=overlay`: what a test changes lives in a tmpfs and is
/// gone when the container stops, so the tree stays clean. The container has
/// a network of its own (`--private-network`): only its loopback.
///
/// This machine's PID 1 need not be systemd, so nothing is registered with
/// machined (`--register=no --keep-unit`) and commands reach the container
/// with `nsenter` into its PID 1. nspawn runs in a cgroup of its own, made
/// here, so that two containers never share `payload`/`supervisor`, and so
/// that everything left over can be killed and removed: at the end, and
/// before a boot, in case an earlier run was killed.
final class BootedSystem {
    let suite: String
    let machine: String
    /// The container's PID 1, as this machine sees it.
    let leader: pid_t
    private let nspawn: ChildProcess
    private let cgroups: [String]
    let consoleLog: String
    private var stopped = false

    static var treesFolder: String {
        ProcessInfo.processInfo.environment["SSVC_TREES"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/tmp/ssvc-trees"
    }

    /// Makes the tree when it is missing (1–2 minutes), boots it with the
    /// host folders in `bindReadOnly` (host path → container path) and waits
    /// until the system is up.
    init(suite: String, bindReadOnly: [(String, String)], logFolder: TemporaryFolder) async throws {
        self.suite = suite
        machine = "ssvc-test-\(suite)"
        let tree = try await Self.tree(suite)
        cgroups = try Self.cgroupFolders(named: machine)
        await Self.removeLeftovers(cgroups, machine: machine)
        for folder in cgroups {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }
        consoleLog = logFolder.url.appendingPathComponent("console-\(suite).log").path
        _ = FileManager.default.createFile(atPath: consoleLog, contents: Data())
        var arguments = [
            "--boot", "--directory=\(tree)", "--machine=\(machine)", "--volatile=overlay", "--private-network",
            "--register=no", "--keep-unit", "--console=passive",
        ]
        arguments += bindReadOnly.map { "--bind-ro=\($0.0):\($0.1)" }
        // The shell moves itself into the cgroups, then becomes nspawn.
        let join = cgroups.map { "echo $$ > '\($0)/cgroup.procs'" }.joined(separator: " && ")
        nspawn = try ChildProcess(
            "/bin/sh", ["-c", "\(join) && exec systemd-nspawn \"$@\"", "sh"] + arguments,
            output: consoleLog, error: consoleLog
        )
        var found: pid_t?
        let nspawn = nspawn
        _ = await eventually(within: 20, every: 0.05) {
            found = Self.child(of: nspawn.pid)
            return found != nil || !nspawn.isRunning
        }
        guard let found else {
            let console = (try? String(contentsOfFile: consoleLog, encoding: .utf8)) ?? ""
            await Self.removeLeftovers(cgroups, machine: machine)
            throw BootError(description: "\(suite) did not boot:\n\(console.suffix(3000))")
        }
        leader = found
        // Early on, systemctl finds no manager to ask ("offline"): ask again.
        var up = CommandResult(status: 1, standardOutput: "", standardError: "")
        let booted = Date().addingTimeInterval(60)
        repeat {
            up = try await run(["systemctl", "is-system-running", "--wait"], timeout: 60)
            if up.status != 0 { await pause(0.1) }
        } while up.status != 0 && Date() < booted && nspawn.isRunning
        guard ["running", "degraded"].contains(up.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            let failed = (try? await run(["systemctl", "--failed", "--no-pager"]).standardOutput) ?? ""
            await shutdown()
            throw BootError(description: "\(suite) did not come up: \(up.standardOutput) \(up.standardError)\n\(failed)")
        }
    }

    /// A system its test did not shut down (it threw first) is killed
    /// without waiting; the next boot of the suite removes what is left.
    deinit {
        guard !stopped else { return }
        for pid in cgroups.flatMap(Self.processes(below:)) { kill(pid, SIGKILL) }
        kill(nspawn.pid, SIGKILL)
    }

    struct BootError: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `command` inside the container, as root or as `user`, with a
    /// clean environment; killed after `timeout` seconds.
    @discardableResult
    func run(_ command: [String], user: String? = nil, timeout: Int = 60) async throws -> CommandResult {
        var inside = ["/usr/bin/env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"]
        if let user { inside = ["/usr/sbin/runuser", "-u", user, "--"] + inside }
        return try await Executable.run("/usr/bin/timeout", [
            "--kill-after=5", String(timeout), "/usr/bin/nsenter", "--target=\(leader)", "--all", "--",
        ] + inside + command)
    }

    /// Runs a POSIX shell script inside the container, as root.
    @discardableResult
    func shell(_ script: String, timeout: Int = 60) async throws -> CommandResult {
        try await run(["/bin/sh", "-c", script], timeout: timeout)
    }

    /// Powers the container off (nspawn turns SIGTERM into an orderly
    /// shutdown), then kills whatever is left and removes the cgroups.
    func shutdown() async {
        guard !stopped else { return }
        stopped = true
        if nspawn.isRunning {
            kill(nspawn.pid, SIGTERM)
            _ = await eventually(within: 15, every: 0.05) { !nspawn.isRunning }
        }
        await Self.removeLeftovers(cgroups, machine: machine)
        if nspawn.isRunning { kill(nspawn.pid, SIGKILL) }
        _ = await nspawn.exited()
    }

    /// The tree for `suite`, made with debootstrap when missing.
    static func tree(_ suite: String) async throws -> String {
        let tree = "\(treesFolder)/\(suite)-\(treeRevision)"
        if FileManager.default.fileExists(atPath: tree + "/usr/lib/systemd/systemd") { return tree }
        let script = SystemdUnitTests.repository.appendingPathComponent("Tests/Systemd/make-tree").path
        let made = try await Executable.run(script, [suite, tree])
        guard made.status == 0 else {
            throw BootError(description: "cannot make the \(suite) tree in \(tree): \(made.standardError)")
        }
        return tree
    }

    /// Bumped whenever `make-tree` changes what a tree holds.
    static let treeRevision = 4

    /// A folder named `name` in each cgroup hierarchy nspawn uses (the
    /// unified one, and systemd's named v1 one on a hybrid host), under the
    /// cgroup this process is in.
    static func cgroupFolders(named name: String) throws -> [String] {
        let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8).split(separator: "\n")
        let own = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8).split(separator: "\n")
        var folders: [String] = []
        for mount in mounts {
            let fields = mount.split(separator: " ")
            guard fields.count >= 4 else { continue }
            let (point, type, options) = (String(fields[1]), fields[2], fields[3])
            let path: Substring?
            if type == "cgroup2" {
                path = own.first { $0.hasPrefix("0::") }?.dropFirst(3)
            } else if type == "cgroup", options.split(separator: ",").contains("name=systemd") {
                path = own.first { $0.contains(":name=systemd:") }?.split(separator: ":", maxSplits: 2).last
            } else {
                continue
            }
            guard let path else { continue }
            folders.append(point + (path == "/" ? "" : String(path)) + "/" + name)
        }
        try #require(!folders.isEmpty, "no cgroup hierarchy for systemd-nspawn in /proc/self/mounts")
        return folders
    }

    /// Kills every process in `cgroups` (and below) and removes the folders,
    /// deepest first; forgets nspawn's propagation folder for `machine`.
    static func removeLeftovers(_ cgroups: [String], machine: String) async {
        for _ in 0..<50 {
            var alive = false
            for folder in cgroups {
                for pid in processes(below: folder) {
                    alive = true
                    kill(pid, SIGKILL)
                }
            }
            if !alive { break }
            await pause(0.1)
        }
        for folder in cgroups {
            for subfolder in folders(below: folder).reversed() { rmdir(subfolder) }
        }
        try? FileManager.default.removeItem(atPath: "/run/systemd/nspawn/propagate/\(machine)")
    }

    /// `folder` and every folder below it, parents first.
    private static func folders(below folder: String) -> [String] {
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return [folder] + children.sorted().flatMap { child -> [String] in
            var isFolder: ObjCBool = false
            let path = folder + "/" + child
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [] }
            return folders(below: path)
        }
    }

    private static func processes(below folder: String) -> [pid_t] {
        folders(below: folder).flatMap { path -> [pid_t] in
            let text = (try? String(contentsOfFile: path + "/cgroup.procs", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { pid_t($0) }
        }
    }

    /// The child of `parent` that is PID 1 in its own namespace: nspawn's
    /// is the container's init (its short-lived helper is not).
    private static func child(of parent: pid_t) -> pid_t? {
        let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }.first { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let ids = status.split(separator: "\n").first { $0.hasPrefix("NSpid:") }?.split(whereSeparator: \.isWhitespace)
            return ids?.count == 3 && ids?.last == "1"
        }
    }
}
