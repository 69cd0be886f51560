@testable import ssvc_bench
@preconcurrency import Glibc
import SSVCArchive
import SSVCCore
import Testing

@Suite("the small export the advisories figure starts from")
struct SmallExportTests {
    @Test("the daemon's reader takes it whole: two records, the first affecting 1.0 with a fix in 1.1")
    func readsAsTheDaemonDoes() throws {
        var template = Array("/tmp/ssvc-small-export.XXXXXX".utf8CString)
        let folder = String(cString: try #require(mkdtemp(&template)))
        let path = folder + "/small.zip"
        defer {
            unlink(path)
            rmdir(folder)
        }
        try SmallExport.write(to: path, ecosystem: "PyPI", package: "Requests")
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "requests", version: "1.0")
        try AdvisoryFiles.read(path: path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: 1 << 20))
        #expect(evaluator.recordsRead == 2)
        #expect(evaluator.problems == [])
        #expect(evaluator.findings.map(\.id) == ["BENCH-1"])
        #expect(evaluator.findings.first?.fixed == "1.1")
    }
}
