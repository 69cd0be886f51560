@preconcurrency import Glibc
import SSVCControl
import SSVCCore
import SSVCPosix

extension DaemonFigures {
    /// The daemon's peak memory at start with the worst state file the
    /// read limit admits (issue 52, item 5: at most 4 times the file plus
    /// the usual idle): one app, held, and copies of its record under the
    /// names of apps no longer configured until the file is just under
    /// 64 MiB. The daemon keeps 1,000 such holds and drops the rest.
    func worstStateFile() throws(BenchError) {
        let daemon = try DaemonUnderTest(ssvcd: ssvcd, apps: 1, url: server.url)
        try daemon.waitForFirstChecks()
        try daemon.connect().roundTrip(VarlinkClient.message(.hold, parameters: ["app": "app0", "version": "0.9"]))
        daemon.stop()
        let path = daemon.folder + "/state/state.json"
        let bytes: [UInt8]
        let root: JSONValue
        do {
            bytes = try BoundedReader.read(path: path, limit: 1 << 20)
            root = try JSONParser.parse(bytes)
        } catch {
            throw BenchError("\(path): \(error)")
        }
        guard case let .object(members) = root, case let .object(apps)? = root["apps"], let record = apps.first?.value else {
            throw BenchError("\(path): no app's record")
        }
        let limit = (64 << 20) - 4096
        var text = "{" + members.filter { $0.key != "apps" }.map { "\(JSONValue.string($0.key).canonicalText):\($0.value.canonicalText)," }.joined()
        text += "\"apps\":{\"app0\":\(record.canonicalText)"
        let copy = record.canonicalText
        var copies = 0
        while text.utf8.count + copy.utf8.count + 32 < limit {
            text += ",\"gone\(copies)\":" + copy
            copies += 1
        }
        text += "}}"
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        let written = fputs(text, file)
        guard fclose(file) == 0, written >= 0 else { throw BenchError("cannot write \(path)") }
        let size = text.utf8.count

        try daemon.restart()
        let started = MonotonicClock.seconds()
        var answered: Double?
        while answered == nil {
            if (try? VarlinkClient(path: daemon.socketPath)) != nil { answered = MonotonicClock.seconds() - started }
            guard daemon.process.isRunning else { throw BenchError("ssvcd exited while reading a \(size)-byte state file") }
            guard MonotonicClock.seconds() - started < 120 else { throw BenchError("ssvcd's socket did not answer within 120 s") }
            usleep(5_000)
        }
        let peak = daemon.peakRSS
        sleep(Self.settle)
        let idle = daemon.memory()
        daemon.stop()
        let writtenBack = (try? BoundedReader.read(path: path, limit: 64 << 20).count) ?? 0
        report(
            "peak memory at start with the worst state file",
            "\(String(mebibytes: size / 1024)) MiB file (\(copies) holds of apps no longer configured): socket answered after "
                + "\(String(format2: answered ?? 0)) s; peak VmHWM \(String(mebibytes: peak)) MiB (\(String(format2: Double(peak) * 1024 / Double(size)))× the file); "
                + "\(Self.settle) s after: \(idle); written back at stop: \(String(mebibytes: writtenBack / 1024)) MiB",
            target: "issue 52: peak at most 4× the file plus the usual idle",
            method: "release ssvcd, 1 app held through Varlink, stopped; its record copied under other names into state.json up to 64 MiB "
                + "(the read limit); started again, VmHWM since exec read once the socket answered"
        )
    }
}
