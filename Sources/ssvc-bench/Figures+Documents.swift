@preconcurrency import Glibc
import SSVCControl
import SSVCCore
import SSVCPosix

extension DaemonFigures {
    /// The daemon's peak memory while three apps read, at once, each of
    /// the worst documents of records the size caps admit (issue 51, item
    /// 4): 16 MiB of `{}`, of `1` and of 16-byte strings, and 8 MiB of
    /// records shaped as osv.dev's are. Each is one file of records behind a
    /// `file://` mirror, read as an API page is (one tree of the whole
    /// document); VmHWM reset before each `Check` of the three.
    func worstDocuments() throws(BenchError) {
        var template = Array("/tmp/ssvc-bench-documents.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot make a temporary folder") }
        let folder = String(cString: made)
        let link = folder + "/records.json", empty = folder + "/empty.json", document = folder + "/document.json"
        defer {
            for path in [link, empty, document] { unlink(path) }
            rmdir(folder)
        }
        try Self.write("[]", to: empty)
        try Self.point(link, at: empty)
        let (daemon, connection, idle) = try mirrorDaemon(apps: 3, link: link, ecosystem: "PyPI", package: "requests")
        let bytes = (16 << 20) - 64
        var readings: [String] = []
        // The last: 8 MiB of records shaped as osv.dev's, more than its pages of 1,000 hold, read.
        for (name, item) in [("{}", "{}"), ("1", "1"), ("16-byte strings", #""aaaaaaaaaaaaaaaa""#), ("8 MiB of osv.dev-shaped records", "")] {
            try Self.write(item.isEmpty ? Self.records(bytes: 8 << 20) : Self.repeated(item, bytes: bytes), to: document)
            try Self.point(link, at: document)
            // The last read's memory given back first (10 s after the last work).
            sleep(Self.settle)
            let reset = daemon.resetPeak()
            let started = MonotonicClock.seconds()
            let apps = try connection.apps(.check)
            let seconds = MonotonicClock.seconds() - started
            let outcome: String
            if let error = apps.first.flatMap({ try? $0.member("lastError")?.string() }) {
                outcome = "\"\(DisplayText.escaped(error, limit: 100))\""
            } else {
                let count = apps.first.flatMap { try? $0.member("advisories")?.elements().count } ?? 0
                outcome = "\(apps.first.flatMap { try? $0.member("advisoryState")?.string() } ?? "no state"), \(count) advisories"
            }
            readings.append(
                "\(name): peak VmHWM \(String(mebibytes: daemon.peakRSS)) MiB\(reset ? "" : " (since the start)"), "
                    + "3 reads in \(String(format2: seconds)) s, \(outcome)"
            )
            unlink(document)
            try Self.point(link, at: empty)
            _ = try connection.apps(.check)
        }
        daemon.stop()
        report(
            "peak memory while 3 apps read the worst 16 MiB documents of records",
            "idle before: \(idle); " + readings.joined(separator: "; "),
            target: "issue 51: under 128 MiB",
            method: "release ssvcd, 3 apps with advisories only (PyPI requests 1.0), advisories-url a file:// link to one file of "
                + "\(bytes) bytes (an API answer {\"vulns\":[…]}; the records' one 8 MiB), then a Varlink Check of all three; "
                + "VmHWM reset through /proc/PID/clear_refs \(Self.settle) s after the last read"
        )
    }

    /// `{"vulns":[item,item,…]}` of at most `bytes`.
    private static func repeated(_ item: String, bytes: Int) -> String {
        let count = (bytes - 16) / (item.utf8.count + 1)
        return "{\"vulns\":[" + Array(repeating: item, count: count).joined(separator: ",") + "]}"
    }

    /// `{"vulns":[…]}` of records as osv.dev writes them (compact; a
    /// summary, details, aliases, ranges, 40 versions and references),
    /// each of another package than the one asked about but the first.
    private static func records(bytes: Int) -> String {
        var text = "{\"vulns\":["
        var index = 0
        while true {
            let versions = (0..<40).map { "\"0.\($0).\(index % 7)\"" }.joined(separator: ",")
            let record = """
                {"schema_version":"1.6.0","id":"BENCH-\(index)","modified":"2026-11-28T00:00:00Z","published":"2026-01-01T00:00:00Z",\
                "aliases":["CVE-2026-\(10_000 + index)","GHSA-bnch-\(index)"],"summary":"ssvc-bench's advisory \(index) of a package",\
                "details":"\(String(repeating: "A flaw in the parsing of requests lets a remote server do something unexpected. ", count: 4))",\
                "affected":[{"package":{"ecosystem":"PyPI","name":"\(index == 0 ? "requests" : "package-\(index % 1_000)")",\
                "purl":"pkg:pypi/package-\(index % 1_000)"},"ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.0"}]}],\
                "versions":[\(versions)],"database_specific":{"source":"https://example.invalid/\(index).json"}}],\
                "references":[{"type":"ADVISORY","url":"https://example.invalid/advisory/\(index)"},\
                {"type":"FIX","url":"https://example.invalid/fix/\(index)"},{"type":"PACKAGE","url":"https://pypi.org/project/package/"}]}
                """
            guard text.utf8.count + record.utf8.count + 3 <= bytes else { break }
            text += (index == 0 ? "" : ",") + record
            index += 1
        }
        return text + "]}"
    }

    private static func write(_ text: String, to path: String) throws(BenchError) {
        unlink(path)
        guard let file = fopen(path, "wx") else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = fputs(text, file)
        guard fclose(file) == 0, written >= 0 else { throw BenchError("cannot write \(path)") }
    }
}
