@preconcurrency import Glibc
import SSVCControl
import SSVCCore
import SSVCPosix

extension DaemonFigures {
    /// The daemon's memory around reading a large OSV export (SPEC §13:
    /// idle RSS after it within 2 MiB of before). One app with advisories
    /// only, its `advisories-url` a `file://` link that points first to a
    /// two-record export; once idle, the link is pointed at `export` and a
    /// `Check` reads it, VmHWM reset just before and read `tail` seconds
    /// after the reply. Then `reads - 1` times more: back to the small
    /// export, `Check`, the large one, `Check`.
    func advisories(export: String, ecosystem: String, package: String, reads: Int = 2) throws(BenchError) {
        guard let resolved = realpath(export, nil) else { throw BenchError("\(export): \(String(cString: strerror(errno)))") }
        let target = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw BenchError("\(export) is not a file") }
        var template = Array("/tmp/ssvc-bench-osv.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot make a temporary folder") }
        let folder = String(cString: made)
        let small = folder + "/small.zip", mirror = folder + "/all.zip"
        defer {
            unlink(mirror)
            unlink(small)
            rmdir(folder)
        }
        try SmallExport.write(to: small, ecosystem: ecosystem, package: package)
        try Self.point(mirror, at: small)
        let (daemon, connection, before) = try mirrorDaemon(apps: 1, link: mirror, ecosystem: ecosystem, package: package)
        var readings: [String] = []
        var peakReset = true
        for read in 1...reads {
            if read > 1 {
                try Self.point(mirror, at: small)
                _ = try Self.checkAdvisories(connection)
            }
            try Self.point(mirror, at: target)
            peakReset = daemon.resetPeak() && peakReset
            let sampler = try MemorySampler(pid: daemon.process.pid)
            let started = MonotonicClock.seconds()
            let found: String
            do throws(BenchError) {
                found = try Self.checkAdvisories(connection)
            } catch {
                _ = sampler.stop()
                throw error
            }
            let seconds = MonotonicClock.seconds() - started
            // The check's journal entry, metrics and events go on after
            // the reply; the release comes 10 s after it.
            sleep(Self.tail)
            let sampled = sampler.stop()
            let peak = daemon.peakRSS
            sleep(Self.settle - Self.tail)
            let after = daemon.memory()
            readings.append(
                "read \(read): \(String(format2: seconds)) s, \(found); peak during: VmHWM \(String(mebibytes: peak)) MiB "
                    + "(sampled: RSS \(String(mebibytes: sampled.rss)), anonymous \(String(mebibytes: sampled.anonymous))); "
                    + "\(Self.settle) s after: \(after), \(Self.difference(after, before))"
            )
        }
        daemon.stop()
        let size = String(format1: Double(info.st_size) / 1_048_576)
        report(
            "memory around reading a \(size) MiB OSV export",
            "idle before: \(before); " + readings.joined(separator: "; "),
            target: "idle RSS after within 2 MiB of before",
            method: "release ssvcd, 1 app with advisories only (\(ecosystem) \(package) 1.0), advisories-url a file:// link to a two-record export, "
                + "then to \(target) and a Varlink Check; \(peakReset ? "VmHWM reset through /proc/PID/clear_refs before each read" : "VmHWM since the start (clear_refs refused)"), "
                + "VmRSS and RssAnon sampled every 10 ms, from the Check to \(Self.tail) s after its reply; "
                + "idle readings \(Self.settle) s after the last call, /proc/PID/status and smaps_rollup"
        )
    }

    /// A daemon of `apps` apps with advisories only, each reading the
    /// `file://` mirror `link`, once every first read is done and the
    /// daemon has been idle `settle` seconds: it, a connection, its memory.
    func mirrorDaemon(
        apps: Int, link: String, ecosystem: String, package: String
    ) throws(BenchError) -> (DaemonUnderTest, VarlinkClient, DaemonUnderTest.Memory) {
        let daemon = try advisoryDaemon(apps: apps, source: "file://" + link, ecosystem: ecosystem, package: package, minimumInterval: 0)
        try daemon.waitForFirstChecks(member: "advisoriesChecked")
        let connection = try daemon.connect()
        sleep(Self.settle)
        return (daemon, connection, daemon.memory())
    }

    /// A daemon of `apps` apps with advisories only from `source`; each
    /// asks about `package`, or about its own name when nil.
    func advisoryDaemon(apps: Int, source: String, ecosystem: String, package: String?, minimumInterval: Int) throws(BenchError) -> DaemonUnderTest {
        try DaemonUnderTest(
            ssvcd: ssvcd, apps: apps, url: nil, minimumInterval: minimumInterval,
            appSettings: """
                advisories = "osv"
                advisories-url = "\(source)"
                advisories-ecosystem = "\(ecosystem)"
                \(package.map { "advisories-package = \"\($0)\"" } ?? "")
                """
        )
    }

    /// Seconds the peak is still watched after the read's `Check` returns.
    static let tail: UInt32 = 5

    /// `after` against `before`: RSS and anonymous, in KiB with a sign.
    private static func difference(_ after: DaemonUnderTest.Memory, _ before: DaemonUnderTest.Memory) -> String {
        let signed = { (kibibytes: Int) in (kibibytes < 0 ? "−" : "+") + "\(abs(kibibytes))" }
        return "\(signed(after.rss - before.rss)) KiB RSS (anonymous \(signed(after.anonymous - before.anonymous)) KiB) against before"
    }

    /// Points the symbolic link `link` at `target`, replacing it at once:
    /// a new identity (device, inode, size, time), so the daemon reads it.
    static func point(_ link: String, at target: String) throws(BenchError) {
        let next = link + ".next"
        unlink(next)
        guard symlink(target, next) == 0, rename(next, link) == 0 else {
            throw BenchError("cannot link \(link) to \(target): \(String(cString: strerror(errno)))")
        }
    }

    /// A Varlink Check of every app, which returns once the read is done:
    /// the advisories it found, or the error.
    private static func checkAdvisories(_ connection: VarlinkClient) throws(BenchError) -> String {
        guard let app = try connection.apps(.check).first else { throw BenchError("Check: no app in the reply") }
        if let error = try? app.member("lastError")?.string() { throw BenchError("the advisories were not read: \(error)") }
        let state = (try? app.member("advisoryState")?.string()) ?? "no state"
        let count = (try? app.member("advisories")?.elements().count) ?? 0
        return "\(state), \(count) advisories"
    }
}
