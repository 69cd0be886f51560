import Foundation
import SSVCCore
import Synchronization
import Testing

@Suite("OSV records decide as the schema's evaluation says")
struct AdvisoryEvaluationTests {
    @Test("real records from five databases", arguments: [
        // PyPA: an ECOSYSTEM range [2.3.0, 2.31.0), a GIT range, a versions list.
        ("PYSEC-2023-74", "PyPI", "requests", "2.30.0", "2.31.0"),
        ("PYSEC-2023-74", "PyPI", "requests", "2.3.0", "2.31.0"),
        ("PYSEC-2023-74", "PyPI", "requests", "2.31.0", nil),
        ("PYSEC-2023-74", "PyPI", "requests", "2.2.1", nil),
        // PEP 440's order: 2.31.0rc1 comes before 2.31.0.
        ("PYSEC-2023-74", "PyPI", "requests", "2.31.0rc1", "2.31.0"),
        // Go: SEMVER, a leading v dropped.
        ("GO-2020-0001", "Go", "github.com/gin-gonic/gin", "v1.5.0", "1.6.0"),
        ("GO-2020-0001", "Go", "github.com/gin-gonic/gin", "v1.6.0", nil),
        // RustSec: crates.io.
        ("RUSTSEC-2019-0033", "crates.io", "http", "0.1.19", "0.1.20"),
        ("RUSTSEC-2019-0033", "crates.io", "http", "0.1.20", nil),
        // GitHub: npm, an ECOSYSTEM range in SemVer.
        ("GHSA-r9p9-mrjm-926w", "npm", "elliptic", "6.5.3", "6.5.4"),
        ("GHSA-r9p9-mrjm-926w", "npm", "elliptic", "6.5.4", nil),
        // Debian: dpkg's order.
        ("DSA-3029-1", "Debian:7", "nginx", "1.2.1-2.2+wheezy2", "1.2.1-2.2+wheezy3"),
        ("DSA-3029-1", "Debian:7", "nginx", "1.2.1-2.2+wheezy3", nil),
        ("DSA-3029-1", "Debian:7", "nginx", "1.2.1-2.2+wheezy3~1", "1.2.1-2.2+wheezy3"),
    ] as [(String, String, String, String, String?)])
    func realRecords(id: String, ecosystem: String, package: String, version: String, fixed: String?) throws {
        let evaluator = try OSVFixture.evaluate([id], ecosystem: ecosystem, package: package, version: version)
        if let fixed {
            let finding = try #require(evaluator.findings.first, "\(id) should affect \(package) \(version)")
            #expect(finding.id == id)
            #expect(finding.fixed == fixed)
        } else {
            #expect(evaluator.findings.isEmpty, "\(id) should not affect \(package) \(version)")
        }
    }

    @Test("past its time, the evaluator stops between a record's ranges and takes no record after (issue 51)")
    func expired() throws {
        // Three ranges of the package; only the third affects 1.5.
        let record = try OSVRecord(parsing: Array(#"""
            {"id":"A-1","modified":"x","affected":[{"package":{"ecosystem":"PyPI","name":"p"},"ranges":[
              {"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"1.0"}]},
              {"type":"ECOSYSTEM","events":[{"introduced":"1.1"},{"fixed":"1.2"}]},
              {"type":"ECOSYSTEM","events":[{"introduced":"1.4"},{"fixed":"1.6"}]}]}]}
            """#.utf8))
        var onTime = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.5")
        onTime.expired = { false }
        onTime.add(record)
        #expect(onTime.findings.map(\.id) == ["A-1"] && !onTime.ranOutOfTime)
        // The time is up as the second range is reached.
        final class Asked: Sendable {
            let count = Mutex(0)
        }
        let asked = Asked()
        var late = try AdvisoryEvaluator(ecosystem: "PyPI", package: "p", version: "1.5")
        late.expired = { asked.count.withLock { count in count += 1; return count >= 2 } }
        late.add(record)
        #expect(late.ranOutOfTime)
        #expect(late.findings.isEmpty, "the third range was never read")
        #expect(asked.count.withLock { $0 } == 2)
        late.add(record)
        #expect(late.recordsRead == 1, "nothing taken after")
    }

    @Test("a record of another ecosystem or release never affects")
    func otherEcosystem() throws {
        #expect(try OSVFixture.evaluate(["DSA-3029-1"], ecosystem: "Debian:12", package: "nginx", version: "1.2.1-2.2").findings.isEmpty)
        #expect(try OSVFixture.evaluate(["GHSA-r9p9-mrjm-926w"], ecosystem: "PyPI", package: "elliptic", version: "6.5.3").findings.isEmpty)
    }

    @Test("PyPI names compare as PEP 503 normalises them; a versions entry matches in PEP 440's order")
    func pythonNames() throws {
        // The record names "Gradio"; 4.36.1 is listed, and "4.36.-1" (not a version) is skipped.
        let evaluator = try OSVFixture.evaluate(["GHSA-9v2f-6vcg-3hgv"], ecosystem: "PyPI", package: "gradio", version: "4.36.1.0")
        let finding = try #require(evaluator.findings.first)
        #expect(finding.reason == "listed in versions as 4.36.1")
        #expect(finding.fixed == nil)
        #expect(finding.severity == "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H")
        #expect(finding.score == 9.8)
        #expect(finding.aliases == ["CVE-2024-39236"])
        #expect(finding.url == "https://nvd.nist.gov/vuln/detail/CVE-2024-39236")
        #expect(try OSVFixture.evaluate(["GHSA-9v2f-6vcg-3hgv"], ecosystem: "PyPI", package: "gradio", version: "4.36.2").findings.isEmpty)
    }

    @Test("the reason names the range and the events that decided")
    func reason() throws {
        // 2.30.1 was never released, so no versions entry names it: the range decides.
        let evaluator = try OSVFixture.evaluate(["PYSEC-2023-74"], ecosystem: "PyPI", package: "requests", version: "2.30.1")
        #expect(evaluator.findings.first?.reason == "ECOSYSTEM range 2: introduced 2.3.0, fixed 2.31.0")
        let listed = try OSVFixture.evaluate(["PYSEC-2023-74"], ecosystem: "PyPI", package: "requests", version: "2.3.0")
        #expect(listed.findings.first?.reason == "listed in versions as 2.3.0")
    }

    @Test("last_affected leaves after its version, fixed at it, limit bounds the range", arguments: [
        (#"[{"introduced":"0"},{"last_affected":"1.5"}]"#, "1.5", true),
        (#"[{"introduced":"0"},{"last_affected":"1.5"}]"#, "1.5.1", false),
        (#"[{"introduced":"0"},{"fixed":"1.5"}]"#, "1.5", false),
        (#"[{"introduced":"0"},{"fixed":"1.5"}]"#, "1.4.99", true),
        (#"[{"introduced":"1.0"},{"fixed":"1.2"},{"introduced":"3.0"},{"fixed":"3.2.5"}]"#, "2.0", false),
        (#"[{"introduced":"1.0"},{"fixed":"1.2"},{"introduced":"3.0"},{"fixed":"3.2.5"}]"#, "3.1", true),
        // Events in any order: they are sorted in the ecosystem's order first.
        (#"[{"fixed":"3.2.5"},{"introduced":"3.0"},{"fixed":"1.2"},{"introduced":"1.0"}]"#, "1.1", true),
        (#"[{"fixed":"3.2.5"},{"introduced":"3.0"},{"fixed":"1.2"},{"introduced":"1.0"}]"#, "1.5", false),
        (#"[{"introduced":"0"},{"limit":"2.0"}]"#, "1.9", true),
        (#"[{"introduced":"0"},{"limit":"2.0"}]"#, "2.0", false),
        (#"[{"introduced":"0"},{"limit":"*"}]"#, "99", true),
        (#"[{"introduced":"0"}]"#, "0.0.1", true),
        // introduced and fixed at one version: an empty range.
        (#"[{"introduced":"2.0"},{"fixed":"2.0"}]"#, "2.0", false),
    ])
    func events(events: String, version: String, affected: Bool) throws {
        let record = try OSVFixture.synthetic(ranges: #"[{"type":"ECOSYSTEM","events":\#(events)}]"#)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: version)
        evaluator.add(record)
        #expect(evaluator.findings.isEmpty == !affected, "\(events) at \(version)")
    }

    @Test("the fix is the lowest fixed version above the running one that no range still affects")
    func lowestFix() throws {
        let record = try OSVFixture.synthetic(
            ranges: #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"2.0"}]},{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"1.10"}]}]"#
        )
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.9")
        evaluator.add(record)
        // 1.10 ends one range but lies in the other (issue 51): 2.0 is the fix.
        #expect(evaluator.findings.first?.fixed == "2.0")
    }

    @Test("a withdrawn record never affects")
    func withdrawn() throws {
        let record = try OSVFixture.synthetic(
            ranges: #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"}]}]"#, extra: #", "withdrawn": "2026-02-01T00:00:00Z""#
        )
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        evaluator.add(record)
        #expect(evaluator.findings.isEmpty)
    }

    @Test("an ecosystem without an order: versions match as strings, ranges are counted as not evaluated")
    func unorderedEcosystem() throws {
        let ranges = #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"5"}]}]"#
        var evaluator = try AdvisoryEvaluator(ecosystem: "Maven", package: "pkg", version: "1.0")
        evaluator.add(try OSVFixture.synthetic(id: "A", ecosystem: "Maven", ranges: ranges, versions: #"["1.0"]"#))
        evaluator.add(try OSVFixture.synthetic(id: "B", ecosystem: "Maven", ranges: ranges, versions: #"["1.0.0"]"#))
        #expect(evaluator.findings.map(\.id) == ["A"])
        #expect(evaluator.unevaluatedRanges == 2)
        // SEMVER ranges are evaluated in any ecosystem.
        var semver = try AdvisoryEvaluator(ecosystem: "Maven", package: "pkg", version: "1.0.0")
        semver.add(try OSVFixture.synthetic(ecosystem: "Maven", ranges: #"[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"2.0.0"}]}]"#))
        #expect(semver.findings.count == 1)
        #expect(semver.findings.first?.fixed == "2.0.0", "a SEMVER range's fix, in SemVer's order")
        #expect(semver.unevaluatedRanges == 0)
    }

    @Test("GIT ranges are not evaluated: only versions count for them")
    func gitRanges() throws {
        let record = try OSVFixture.synthetic(
            ranges: #"[{"type":"GIT","repo":"https://example.invalid/r","events":[{"introduced":"0"},{"fixed":"abc"}]}]"#
        )
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        evaluator.add(record)
        #expect(evaluator.findings.isEmpty)
        #expect(evaluator.unevaluatedRanges == 0)
    }

    @Test("a range whose event the ecosystem cannot read does not affect, and is counted")
    func unreadableEvent() throws {
        let record = try OSVFixture.synthetic(ranges: #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"not a version"}]}]"#)
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        evaluator.add(record)
        #expect(evaluator.findings.isEmpty)
    }

    @Test("a running version the ecosystem cannot read is an error naming it")
    func unreadableRunning() {
        #expect(throws: VersionError.self) { try AdvisoryEvaluator(ecosystem: "npm", package: "x", version: "1.0") }
        #expect(throws: VersionError.self) { try AdvisoryEvaluator(ecosystem: "Debian:12", package: "x", version: "1.0 beta") }
    }

    @Test("records that do not follow the schema are refused, naming what is wrong", arguments: [
        (#"{"modified":"x","affected":[]}"#, "no \"id\""),
        (#"{"id":"A","affected":[]}"#, "A has no \"modified\""),
        (#"{"id":"A","modified":"x","affected":[{"package":{"name":"p"}}]}"#, "needs both"),
        (#"{"id":"A","modified":"x","affected":[{"ranges":[{"type":"SEMVER","events":[{"introduced":"0","fixed":"1.0.0"}]}]}]}"#, "exactly one"),
        (#"{"id":"A","modified":"x","affected":[{"ranges":[{"type":"SEMVER","events":[{"fixed":"1.0.0"}]}]}]}"#, "at least one \"introduced\""),
        (#"{"id":"A","modified":"x","affected":[{"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.0.0"},{"last_affected":"2.0.0"}]}]}]}"#, "not both"),
        (#"{"id":"A","modified":"x","affected":[{"ranges":[{"type":"GIT","events":[{"introduced":"0"}]}]}]}"#, "needs a \"repo\""),
        (#"{"id":"A","modified":"x","affected":{}}"#, "expected an array"),
        (#"{"id":"","modified":"x"}"#, "an id of 1 to 256 bytes"),
        (#"[1]"#, "expected an object"),
        (#"{"id":"GO-1|'fake'=9","modified":"x"}"#, "holds a character ids do not have"),
        (#"{"id":"GO-3 space id","modified":"x"}"#, "holds a character ids do not have"),
        (#"{"id":"GO-2\u0000NUL","modified":"x"}"#, "holds a character ids do not have"),
        (#"{"id":"A","modified":"x""#, "not valid JSON"),
    ])
    func badRecords(text: String, problem: String) {
        do {
            _ = try OSVRecord(parsing: Array(text.utf8))
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.description.contains(problem), "\(error.description)")
        }
    }

    @Test("a skipped record is named and the others still count")
    func skippedNamed() throws {
        var evaluator = try AdvisoryEvaluator(ecosystem: "Go", package: "github.com/gin-gonic/gin", version: "1.5.0")
        evaluator.skip("bad.json", problem: "not valid JSON: unexpected end at line 1, column 9")
        evaluator.add(try OSVFixture.record("GO-2020-0001"))
        #expect(evaluator.findings.count == 1)
        #expect(evaluator.problemCount == 1)
        #expect(evaluator.problems == ["bad.json: not valid JSON: unexpected end at line 1, column 9"])
    }

    @Test("aliases and upstream ids are bounded and must be ids; a fix that is no version string is not one")
    func boundedRecordText() throws {
        let aliases = (0..<32_000).map { "\"CVE-2026-\($0)\"" }.joined(separator: ",")
        let huge = String(repeating: "9", count: 100_000)
        let record = try OSVFixture.synthetic(
            ranges: #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"\#(huge)"}]}]"#,
            extra: #", "aliases": [\#(aliases), "bad id", "x\u001b"], "upstream": ["CVE-1", "a|b"]"#
        )
        #expect(record.aliases.count == OSVRecord.maximumAliases)
        #expect(!record.aliases.contains("bad id") && record.upstream == ["CVE-1"])
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        evaluator.add(record)
        #expect(evaluator.findings.first?.fixed == nil, "a 100,000-digit fix is stored nowhere")
    }

    @Test("ignored advisories never push a real one out of the kept findings; the rest are counted")
    func ignoredKeptApart() throws {
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        evaluator.ignoring = Set((0..<AdvisoryEvaluator.maximumFindings).map { "IGN-\($0)" })
        for index in 0..<AdvisoryEvaluator.maximumFindings { evaluator.add(try OSVFixture.synthetic(id: "IGN-\(index)", versions: #"["1.0"]"#)) }
        evaluator.add(try OSVFixture.synthetic(id: "REAL-1", versions: #"["1.0"]"#))
        let settings = AdvisorySettings(ecosystem: "PyPI", package: "pkg", ignores: evaluator.ignoring.map { AdvisoryIgnore(id: $0) })
        let now = Date()
        let data = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: now)
        let verdict = AdvisoryVerdict(data: data, settings: settings, latest: nil, hasServer: true, scheme: .pep440, now: now)
        #expect(verdict.state == .affected)
        #expect(verdict.advisories.map(\.id) == ["REAL-1"])
        #expect(verdict.ignored.count == AdvisoryEvaluator.maximumFindings)
        // Past the kept ones, the count stays exact.
        var many = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        for index in 0..<300 { many.add(try OSVFixture.synthetic(id: "M-\(index)", versions: #"["1.0"]"#)) }
        let counted = AdvisoryVerdict(
            data: AdvisoryData().read(many, etag: nil, lastModified: nil, at: now), settings: AdvisorySettings(ecosystem: "PyPI", package: "pkg"),
            latest: nil, hasServer: true, scheme: .pep440, now: now
        )
        #expect(counted.count == 300 && counted.omitted == 300 - AdvisoryEvaluator.maximumFindings)
    }

    @Test("a range with an event the order cannot read is counted and noted, not dropped silently")
    func unreadableNoted() throws {
        var evaluator = try AdvisoryEvaluator(ecosystem: "Go", package: "pkg", version: "1.0.0")
        evaluator.add(try OSVFixture.synthetic(ecosystem: "Go", ranges: #"[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"not-a-version"}]}]"#))
        evaluator.add(try OSVFixture.synthetic(id: "T-2", ecosystem: "Go", ranges: #"[{"type":"WEIRD","events":[{"introduced":"0"}]}]"#))
        #expect(evaluator.findings.isEmpty)
        let notes = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: Date()).notes
        #expect(notes == [
            "1 ranges not evaluated: of a range type ssvc does not know",
            "1 ranges not evaluated: an event's version, or the running version, is not one their order reads",
        ])
    }

    @Test("file:// in any case names a folder or an export, as the URL's scheme is read", arguments: [
        ("FILE:///srv/osv/records", AdvisorySourceKind.folder), ("file:///srv/osv/all.ZIP", .zip), ("https://m.example/osv/all.zip?x=1", .zip),
        ("https://api.osv.dev/v1/query", .api),
    ])
    func sourceKinds(source: String, kind: AdvisorySourceKind) {
        #expect(AdvisorySourceKind(source) == kind)
    }

    @Test("findings are bounded; the same id twice counts once")
    func bounded() throws {
        var evaluator = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        for index in 0..<(AdvisoryEvaluator.maximumFindings + 10) {
            evaluator.add(try OSVFixture.synthetic(id: "T-\(index)", versions: #"["1.0"]"#))
        }
        evaluator.add(try OSVFixture.synthetic(id: "T-0", versions: #"["1.0"]"#))
        #expect(evaluator.findings.count == AdvisoryEvaluator.maximumFindings)
        #expect(evaluator.omittedFindings == 10)
    }

    @Test("the API query names the package, never the version")
    func query() throws {
        let body = String(decoding: OSVQuery.body(ecosystem: "PyPI", package: "requests", pageToken: "t1"), as: UTF8.self)
        #expect(body == #"{"package":{"ecosystem":"PyPI","name":"requests"},"page_token":"t1"}"#)
        let page = try OSVQuery.page(Array(#"{"vulns":[{"id":"A","modified":"x"},{"id":1}],"next_page_token":"n"}"#.utf8))
        #expect(page.records.count == 2)
        #expect(page.nextPageToken == "n")
        if case .success = page.records[1] { Issue.record("a bad record read") }
    }
}
