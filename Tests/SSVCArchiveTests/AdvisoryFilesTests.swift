import Foundation
@testable import SSVCArchive
import SSVCCore
import SSVCPosix
import SSVCTestSupport
import Testing

/// OSV records from files, as the daemon reads its mirrors: the hostile
/// sizes of issue 41, each bounded and named.
@Suite("advisory files")
struct AdvisoryFilesTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-advisory-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func record(_ id: String, package: String = "p") -> String {
        #"{"id":"\#(id)","modified":"2026-01-01T00:00:00Z","affected":[{"package":{"ecosystem":"PyPI","name":"\#(package)"},"versions":["1.0"]}]}"#
    }

    /// `R-0.json` … in `folder`, each a record of package `p` listing 1.0.
    func writeRecords(_ count: Int, in folder: URL) throws {
        for index in 0..<count {
            try record("R-\(index)").write(to: folder.appendingPathComponent("R-\(index).json"), atomically: true, encoding: .utf8)
        }
    }

    @Test("a record of 50 MB in a folder is skipped and named; the others count")
    func hugeRecord() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try record("GOOD-1").write(to: folder.appendingPathComponent("GOOD-1.json"), atomically: true, encoding: .utf8)
        let big = folder.appendingPathComponent("BIG-1.json").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 50 << 20) == 0)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        try AdvisoryFiles.read(path: folder.path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 512 << 20))
        #expect(evaluator.findings.map(\.id) == ["GOOD-1"])
        #expect(evaluator.problemCount == 1)
        #expect(evaluator.problems.first?.hasPrefix("BIG-1.json: ") == true, "\(evaluator.problems)")
        #expect(evaluator.problems.first?.contains("larger than \(8 << 20) bytes") == true, "\(evaluator.problems)")
    }

    @Test("100,000 records for one package in an export: read in bounded memory, 256 listed, every one counted")
    func manyRecords() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("all.zip").path
        let made = try await Command.run(["/usr/bin/env", "python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for n in range(100000):
                    z.writestr("R-%d.json" % n, '{"id":"R-%d","modified":"x","affected":[{"package":{"ecosystem":"PyPI","name":"p"},"versions":["1.0"]}]}' % n)
            """, zip])
        try #require(made.status == 0, "\(made.standardError)")
        // Seconds of work (a minute under ThreadSanitizer): off the pool.
        let evaluator = try await offPool {
            var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
            try AdvisoryFiles.read(path: zip, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 512 << 20))
            return Handed(evaluator)
        }.value
        #expect(evaluator.recordsRead == 100_000)
        #expect(evaluator.findings.count == AdvisoryEvaluator.maximumFindings)
        #expect(evaluator.findings.count + evaluator.omittedFindings == 100_000)
    }

    /// 3,000 records at `zip`, a third of them requests'; every 97th
    /// entry's data damaged after it was written, a few unsafe names,
    /// broken JSON and undated records that name requests, and one large
    /// entry that ends a batch alone.
    static func makeExport(_ zip: String) async throws {
        let made = try await Command.run(["/usr/bin/env", "python3", "-c", """
            import sys, zipfile
            path = sys.argv[1]
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                for n in range(3000):
                    name = ["requests", "django", "Requests", "flask"][n % 4]
                    record = '{"id":"R-%d","modified":"2026-01-01T00:00:00Z","details":"%s","affected":[{"package":{"ecosystem":"PyPI","name":"%s"},"versions":["1.0"]}]}' % (n, "x" * (n % 500), name)
                    if n % 211 == 5: record = '{"id":"BROKEN-%d","affected":[{"package":{"name":"requests"' % n
                    if n % 211 == 6: record = '{"id":"UNDATED-%d","affected":[{"package":{"ecosystem":"PyPI","name":"requests"}}]}' % n
                    z.writestr(("../R-%d.json" if n % 401 == 7 else "R-%d.json") % n, record)
                z.writestr("BIG.json", '{"id":"BIG","modified":"2026-01-01T00:00:00Z","details":"%s"}' % ("requests " * 800000))
            damaged = [i for n, i in enumerate(zipfile.ZipFile(path).infolist()) if n % 97 == 3]
            with open(path, "r+b") as f:
                for info in damaged:
                    f.seek(info.header_offset + 26)
                    head = f.read(4)
                    start = info.header_offset + 30 + int.from_bytes(head[:2], "little") + int.from_bytes(head[2:], "little")
                    f.seek(start + info.compress_size // 2)
                    byte = f.read(1)
                    f.seek(start + info.compress_size // 2)
                    f.write(bytes([byte[0] ^ 0x55]))
            """, zip])
        try #require(made.status == 0, "\(made.standardError)")
    }

    @Test("an export inflated on four threads is evaluated as on one: the same findings, problems in the same order, the same counts (issue 55)")
    func severalThreads() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("all.zip").path
        try await Self.makeExport(zip)
        let evaluators = try await offPool {
            try [0, 3].map { helpers in
                var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "requests", version: "1.0")
                try AdvisoryFiles.read(path: zip, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 512 << 20), helpers: helpers)
                return evaluator
            }
        }
        let (one, four) = (evaluators[0], evaluators[1])
        #expect(one.recordsRead == 3_001)
        #expect(one.findings.count > 1_000 / 4 && one.passedOver > 1_000, "\(one.findings.count) found, \(one.passedOver) passed over")
        #expect(one.problemCount > 30, "damaged, unsafe and broken entries: \(one.problems)")
        #expect(four.findings == one.findings)
        #expect(four.problems == one.problems)
        #expect(four.problemCount == one.problemCount && four.recordsRead == one.recordsRead && four.passedOver == one.passedOver)
        #expect(four.skippedOfPackage == one.skippedOfPackage && one.skippedOfPackage > 0)
    }

    @Test("one pass for several packages ends each evaluator as a read of its own: findings, problems, counts (issue 55)")
    func onePassForSeveral() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("all.zip").path
        try await Self.makeExport(zip)
        let packages = ["requests", "django", "flask", "absent"]
        let (alone, shared) = try await offPool {
            let alone = try packages.map { package in
                var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: package, version: "1.0")
                try AdvisoryFiles.read(path: zip, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 512 << 20), helpers: 3)
                return evaluator
            }
            var shared = try packages.map { try AdvisoryEvaluator(ecosystem: "PyPI", package: $0, version: "1.0") }
            let parsed = try AdvisoryFiles.read(path: zip, into: &shared, limits: AdvisoryFiles.Budget(totalBytes: 512 << 20), helpers: 3)
            return (alone, (shared, parsed))
        }
        for (one, together) in Swift.zip(alone, shared.0) {
            #expect(together.findings == one.findings && together.problems == one.problems, "\(one.package)")
            #expect(together.problemCount == one.problemCount && together.recordsRead == one.recordsRead && together.passedOver == one.passedOver, "\(one.package)")
            #expect(together.skippedOfPackage == one.skippedOfPackage, "\(one.package)")
        }
        #expect(alone[0].findings.count > 200 && alone[1].findings.count > 200 && alone[3].findings.isEmpty)
        // Each record parsed once for all, so at most the records some package's sieve let through.
        let letThrough = alone.map { $0.recordsRead - $0.passedOver }
        #expect(shared.1 > 0 && shared.1 <= letThrough.reduce(0, +), "\(shared.1) parsed; let through alone \(letThrough)")
    }

    @Test("a record skipped that names the package leaves the verdict undecided, never clear; one of another package does not (issue 51)")
    func skippedOfPackage() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = (0..<5_000).map { #"{"introduced":"1.\#($0)"}"# }.joined(separator: ",")
        for (id, package) in [("BIG-1", "p"), ("BIG-2", "other")] {
            try #"{"id":"\#(id)","modified":"x","affected":[{"package":{"ecosystem":"PyPI","name":"\#(package)"},"ranges":[{"type":"ECOSYSTEM","events":[\#(events)]}]}]}"#
                .write(to: folder.appendingPathComponent("\(id).json"), atomically: true, encoding: .utf8)
        }
        // Not JSON at all: whose it was is not known.
        try "{".write(to: folder.appendingPathComponent("BAD-1.json"), atomically: true, encoding: .utf8)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "P", version: "1.0")
        try AdvisoryFiles.read(path: folder.path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20))
        #expect(evaluator.problemCount == 3)
        #expect(evaluator.skippedOfPackage == 1, "BIG-1 names p, as PEP 503 reads P")
        let data = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: Date())
        #expect(data.undecided == 1)
        #expect(data.notes.contains("1 of the records skipped name P: they could affect it"), "\(data.notes)")
        let verdict = AdvisoryVerdict(data: data, settings: AdvisorySettings(ecosystem: "PyPI", package: "P"), latest: nil, hasServer: true, scheme: .pep440, now: Date())
        #expect(verdict.state == .unknown)
    }

    @Test("a read past its deadline is given up between records")
    func deadline() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeRecords(10, in: folder)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        #expect {
            try AdvisoryFiles.read(path: folder.path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, deadline: 0))
        } throws: { error in
            "\(error)".contains("the read took too long and was given up") && (error as? AdvisoryFiles.Failure)?.timedOut == true
        }
        #expect(evaluator.recordsRead == 0)
        // A deadline that passes between records: the read stops there.
        // 100 records of a range of 2,000 events in no order take a debug
        // build about 2 s to sort; a thread that waits past the 0.3 s
        // before its first record (a busy machine) stops before any, so
        // that case is tried again.
        let heavy = folder.appendingPathComponent("heavy")
        // Seconds of work under ThreadSanitizer: off the pool.
        let read = try await offPool { () throws -> [Int] in
            try FileManager.default.createDirectory(at: heavy, withIntermediateDirectories: true)
            for index in 0..<100 {
                let events = (0..<2_000).map { event in
                    #"{"\#(event % 2 == 0 ? "introduced" : "fixed")":"\#((event * 7_919 + index) % 1_000).\#(event % 97)"}"#
                }
                try #"{"id":"H-\#(index)","modified":"x","affected":[{"package":{"ecosystem":"PyPI","name":"p"},"ranges":[{"type":"ECOSYSTEM","events":[\#(events.joined(separator: ","))]}]}]}"#
                    .write(to: heavy.appendingPathComponent("H-\(index).json"), atomically: true, encoding: .utf8)
            }
            var read: [Int] = []
            for _ in 0..<5 where read.allSatisfy({ $0 == 0 }) {
                var partway = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
                let soon = MonotonicClock.seconds() + 0.3
                do {
                    try AdvisoryFiles.read(path: heavy.path, into: &partway, limits: AdvisoryFiles.Budget(totalBytes: 64 << 20, deadline: soon))
                    read.append(-1)
                } catch {
                    read.append((error as? AdvisoryFiles.Failure)?.timedOut == true ? partway.recordsRead : -2)
                }
            }
            return read
        }
        #expect(read.contains { $0 > 0 && $0 < 100 }, "given up between records: \(read) read")
    }

    @Test("a folder or an export of more records than maximumRecords is refused, the bound named (issue 51)")
    func tooManyRecords() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeRecords(5, in: folder)
        // At the bound: every record read.
        var exact = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        try AdvisoryFiles.read(path: folder.path, into: &exact, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, maximumRecords: 5))
        #expect(exact.recordsRead == 5)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        #expect {
            try AdvisoryFiles.read(path: folder.path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, maximumRecords: 3))
        } throws: { error in
            "\(error)".contains("holds 5 records, more than the 3 read")
        }
        #expect(evaluator.recordsRead == 0)
        let zip = folder.appendingPathComponent("all.zip").path
        let made = try await Command.run(["/usr/bin/env", "python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for n in range(5):
                    z.writestr("R-%d.json" % n, '{"id":"R-%d","modified":"x","affected":[]}' % n)
            """, zip])
        try #require(made.status == 0, "\(made.standardError)")
        var zipExact = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        try AdvisoryFiles.read(path: zip, into: &zipExact, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, maximumRecords: 5))
        #expect(zipExact.recordsRead == 5)
        var fromZip = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        #expect {
            try AdvisoryFiles.read(path: zip, into: &fromZip, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, maximumRecords: 3))
        } throws: { error in
            "\(error)".contains("the archive lists 5 entries, more than the 3 allowed")
        }
        #expect(fromZip.recordsRead == 0, "refused before any record is read")
    }

    @Test("an export whose records inflate past inflationFactor times its budget is refused (issue 51)")
    func inflation() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("all.zip").path
        // Ten records of 4 KiB of spaces each (a zip of under 2 KiB): 40 KiB inflated, past 16 x 2 KiB.
        let made = try await Command.run(["/usr/bin/env", "python3", "-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for n in range(10):
                    z.writestr("R-%d.json" % n, '{"id":"R-%d","modified":"x","affected":[]}' % n + " " * 4096)
            """, zip])
        try #require(made.status == 0, "\(made.standardError)")
        let budget = 2 << 10
        #expect(try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int ?? .max < budget, "the zip itself fits the budget")
        #expect(AdvisoryFiles.inflationFactor == 16)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        #expect {
            try AdvisoryFiles.read(path: zip, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: budget))
        } throws: { error in
            "\(error)".contains("more than the \(budget * AdvisoryFiles.inflationFactor) bytes allowed for one archive")
        }
        #expect(evaluator.recordsRead < 10)
        // The same export within a budget it fits: every record read.
        var fits = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        try AdvisoryFiles.read(path: zip, into: &fits, limits: AdvisoryFiles.Budget(totalBytes: 4 * budget))
        #expect(fits.recordsRead == 10)
    }
}
