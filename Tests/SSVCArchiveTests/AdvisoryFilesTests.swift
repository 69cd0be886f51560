import Foundation
import SSVCArchive
import SSVCCore
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

    @Test("a read past its deadline is given up between records")
    func deadline() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<10 {
            try record("R-\(index)").write(to: folder.appendingPathComponent("R-\(index).json"), atomically: true, encoding: .utf8)
        }
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.0")
        #expect(throws: AdvisoryFiles.Failure.self) {
            try AdvisoryFiles.read(path: folder.path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20, deadline: 0))
        }
        #expect(evaluator.recordsRead == 0)
    }
}
