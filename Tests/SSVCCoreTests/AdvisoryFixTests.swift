import Foundation
import SSVCCore
import Testing

/// What a record's fix is, and when an offer is it (SPEC §13, issue 51
/// items 2, 8, 9 and 13).
@Suite("advisory fixes, unread ranges and versions as written")
struct AdvisoryFixTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func evaluate(_ record: OSVRecord, version: String, written: String? = nil, ecosystem: String = "PyPI") throws -> AdvisoryEvaluator {
        var evaluator = try AdvisoryEvaluator(ecosystem: ecosystem, package: "pkg", version: version, written: written)
        evaluator.add(record)
        return evaluator
    }

    func verdict(_ evaluator: AdvisoryEvaluator, latest: String?) -> AdvisoryVerdict {
        let data = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: now)
        return AdvisoryVerdict(
            data: data, settings: AdvisorySettings(ecosystem: evaluator.ecosystem, package: "pkg"), latest: latest, hasServer: true,
            scheme: .pep440, now: now
        )
    }

    /// `[0, 1.2)` and `[1.0.5, 1.0.6)`: 1.0.6 lies in the first range.
    let overlapping = """
        [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.2"}]},
         {"type": "ECOSYSTEM", "events": [{"introduced": "1.0.5"}, {"fixed": "1.0.6"}]}]
        """

    @Test("the fix is the lowest fixed version the whole record leaves unaffected", arguments: ["1.0", "1.0.5", "1.1"])
    func wholeRecord(running: String) throws {
        let evaluator = try evaluate(try OSVFixture.synthetic(ranges: overlapping), version: running)
        let finding = try #require(evaluator.findings.first)
        #expect(finding.fixed == "1.2")
        // Offering 1.0.6 is no fix: the record still affects it.
        #expect(verdict(evaluator, latest: "1.0.6").requiredBy == nil)
        #expect(verdict(evaluator, latest: "1.2").requiredBy?.id == "TEST-1")
    }

    @Test("an offer above the fix that the record affects again is not the fix", arguments: [
        ("1.1", true), ("1.4", true), ("1.5", false), ("1.9.9", false), ("2.0", true), ("2.0.1", false), ("2.1", true),
    ] as [(String, Bool)])
    func affectedAgain(latest: String, required: Bool) throws {
        // [0, 1.1), [1.5, 2.0), and 2.0.1 listed.
        let record = try OSVFixture.synthetic(
            ranges: """
                [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.1"}, {"introduced": "1.5"}, {"fixed": "2.0"}]}]
                """,
            versions: #"["2.0.1"]"#
        )
        let evaluator = try evaluate(record, version: "1.0")
        let finding = try #require(evaluator.findings.first)
        #expect(finding.fixed == "1.1")
        #expect(finding.stillAffected == [AffectedSpan(from: "1.5", until: "2.0"), AffectedSpan(from: "2.0.1", through: "2.0.1")])
        let shown = verdict(evaluator, latest: latest)
        #expect((shown.requiredBy != nil) == required)
        #expect(shown.affectedWithoutFix == !required)
    }

    @Test("last_affected and limit are never taken for a fix")
    func notFixes() throws {
        let lastAffected = try OSVFixture.synthetic(ranges: """
            [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"last_affected": "1.5"}]}]
            """)
        #expect(try evaluate(lastAffected, version: "1.0").findings.first?.fixed == nil)
        let limited = try OSVFixture.synthetic(ranges: """
            [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"limit": "2.0"}]}]
            """)
        let finding = try #require(try evaluate(limited, version: "1.0").findings.first)
        #expect(finding.fixed == nil)
        #expect(finding.stillAffected == nil)
    }

    @Test("a SEMVER range SemVer cannot read against the running version is read in the ecosystem's order", arguments: [
        ("1.0", true), ("1.0.0.post1", true), ("1.0.0", true), ("1.1.0", false), ("1.1", false),
    ] as [(String, Bool)])
    func semverInPyPI(running: String, affected: Bool) throws {
        let record = try OSVFixture.synthetic(ranges: """
            [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.1.0"}]}]
            """)
        let evaluator = try evaluate(record, version: running)
        #expect(evaluator.findings.isEmpty == !affected)
        #expect(evaluator.unreadableRanges == 0)
        #expect(verdict(evaluator, latest: nil).state == (affected ? .affected : .clear))
    }

    @Test("a range no order reads is said, and leaves nothing clear")
    func unreadable() throws {
        // PyPI cannot read "1.x-next"; nor, in an unordered ecosystem, can SemVer read "1.0".
        let pypi = try OSVFixture.synthetic(ranges: """
            [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "1.x-next"}]}]
            """)
        let semver = try OSVFixture.synthetic(ecosystem: "Maven", ranges: """
            [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.1.0"}]}]
            """)
        for (record, ecosystem) in [(pypi, "PyPI"), (semver, "Maven")] {
            let evaluator = try evaluate(record, version: "1.0", ecosystem: ecosystem)
            #expect(evaluator.findings.isEmpty)
            #expect(evaluator.unreadableRanges == 1)
            let data = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: now)
            #expect(data.undecided == 1)
            #expect(data.notes.contains { $0.hasPrefix("1 ranges not evaluated") })
            #expect(verdict(evaluator, latest: nil).state == .unknown)
        }
        // Another record that affects decides it.
        var evaluator = try evaluate(pypi, version: "1.0")
        evaluator.add(try OSVFixture.synthetic(id: "TEST-2", ranges: overlapping))
        #expect(verdict(evaluator, latest: nil).state == .affected)
    }

    @Test("a versions entry matches the running version as written, and GIT ranges are said")
    func writtenVersion() throws {
        // OSS-Fuzz (no order here) lists versions with their v; the app's dotted scheme runs v0.28.1 as 0.28.1.
        let record = try OSVFixture.synthetic(
            id: "OSV-2023-1161", ecosystem: "OSS-Fuzz",
            ranges: #"[{"type": "GIT", "repo": "https://github.com/Exiv2/exiv2", "events": [{"introduced": "abc"}]}]"#,
            versions: #"["v0.28.0", "v0.28.1"]"#
        )
        let asWritten = try evaluate(record, version: "0.28.1", written: "v0.28.1", ecosystem: "OSS-Fuzz")
        #expect(asWritten.findings.first?.reason == "listed in versions as v0.28.1")
        #expect(asWritten.gitRanges == 1)
        let data = AdvisoryData().read(asWritten, etag: nil, lastModified: nil, at: now)
        #expect(data.notes.contains("1 GIT ranges not evaluated: only their versions lists count"))
        #expect(try evaluate(record, version: "0.28.2", written: "v0.28.2", ecosystem: "OSS-Fuzz").findings.isEmpty)
    }

    @Test("a record with too many events in a range, or in all, is refused and named")
    func eventBounds() throws {
        func events(_ count: Int) -> String {
            "[{\"introduced\": \"0\"}" + String(repeating: ", {\"fixed\": \"1.0\"}", count: count - 1) + "]"
        }
        let range = { (count: Int) in "{\"type\": \"ECOSYSTEM\", \"events\": \(events(count))}" }
        _ = try OSVFixture.synthetic(ranges: "[\(range(OSVRecord.maximumEventsPerRange))]")
        #expect {
            _ = try OSVFixture.synthetic(ranges: "[\(range(OSVRecord.maximumEventsPerRange + 1))]")
        } throws: { error in
            "\(error)".contains("TEST-1 has a range of 4097 events, more than 4096")
        }
        let full = Array(repeating: range(OSVRecord.maximumEventsPerRange), count: 4).joined(separator: ", ")
        _ = try OSVFixture.synthetic(ranges: "[\(full)]")
        #expect {
            _ = try OSVFixture.synthetic(ranges: "[\(full), \(range(1))]")
        } throws: { error in
            "\(error)".contains("TEST-1 has more than 16384 range events in all")
        }
    }
}

@Suite("advisory ecosystems: spelt as OSV spells them")
struct OSVEcosystemTests {
    @Test("OSV's names, with a release or without, are known; a case-only difference names the right spelling", arguments: [
        ("PyPI", OSVEcosystems.Spelling.known), ("Debian:12", .known), ("Alpine:v3.20", .known), ("crates.io", .known),
        ("pypi", .miscased("PyPI")), ("debian:12", .miscased("Debian:12")), ("NPM", .miscased("npm")), ("Foo", .unknown), ("", .unknown),
    ] as [(String, OSVEcosystems.Spelling)])
    func spelling(name: String, spelling: OSVEcosystems.Spelling) {
        #expect(OSVEcosystems.spelling(of: name) == spelling)
    }

    @Test("when no record read is of the app's ecosystem, the note says so")
    func noRecordOfTheEcosystem() throws {
        var evaluator = try AdvisoryEvaluator(ecosystem: "Foo", package: "pkg", version: "1.0")
        evaluator.add(try OSVFixture.synthetic(versions: #"["1.0"]"#))
        let notes = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: Date()).notes
        #expect(notes.contains("none of the 1 records read is of Foo: is advisories-ecosystem spelt as OSV does?"), "\(notes)")
        var pypi = try AdvisoryEvaluator(ecosystem: "PyPI", package: "pkg", version: "1.0")
        pypi.add(try OSVFixture.synthetic(versions: #"["1.0"]"#))
        #expect(!AdvisoryData().read(pypi, etag: nil, lastModified: nil, at: Date()).notes.contains { $0.hasPrefix("none of") })
    }
}
