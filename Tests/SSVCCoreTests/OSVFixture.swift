import Foundation
import SSVCCore
import Testing

/// OSV records as the fixtures hold them: real records from PyPA, the Go
/// vulnerability database, GitHub's advisory database, RustSec and the
/// schema's Debian example (Tests/Fixtures/osv).
enum OSVFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/osv")

    static func record(_ id: String) throws -> OSVRecord {
        try OSVRecord(parsing: Array(try Data(contentsOf: folder.appendingPathComponent("\(id).json"))))
    }

    static func evaluate(_ ids: [String], ecosystem: String, package: String, version: String) throws -> AdvisoryEvaluator {
        var evaluator = try AdvisoryEvaluator(ecosystem: ecosystem, package: package, version: version)
        for id in ids { evaluator.add(try record(id)) }
        return evaluator
    }

    /// A record of one package with `ranges` and `versions`, as JSON text.
    static func synthetic(
        id: String = "TEST-1", ecosystem: String = "PyPI", name: String = "pkg", ranges: String = "[]", versions: String = "[]",
        extra: String = ""
    ) throws -> OSVRecord {
        let text = """
            {"id": "\(id)", "modified": "2026-01-01T00:00:00Z"\(extra),
             "affected": [{"package": {"ecosystem": "\(ecosystem)", "name": "\(name)"}, "ranges": \(ranges), "versions": \(versions)}]}
            """
        return try OSVRecord(parsing: Array(text.utf8))
    }
}
