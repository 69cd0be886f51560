import Foundation
import SSVCCore
import Testing

/// The recorded answers in `Tests/Fixtures/endoflife` (its README says whence).
enum EndOfLifeFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/endoflife")

    static func bytes(_ name: String) -> [UInt8] {
        Array((try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data())
    }

    static func answer(_ name: String) throws -> EndOfLifeAnswer {
        try EndOfLifeAnswer.read(bytes(name))
    }
}

/// 00:00 UTC of a `YYYY-MM-DD` day.
func day(_ text: String) -> Date {
    EndOfLifeAnswer.parseDay(text)!
}

@Suite("endoflife.date answers")
struct EndOfLifeAnswerTests {
    @Test("a product answer: every release, its dates, flags and latest version")
    func product() throws {
        let answer = try EndOfLifeFixture.answer("go.json")
        #expect(!answer.isRelease)
        #expect(answer.releases.count == 16)
        #expect(answer.skipped == 0)
        let go123 = try #require(answer.releases.first { $0.name == "1.23" })
        #expect(go123.endOfLife == .init(day: day("2025-08-12"), flag: true))
        #expect(go123.activeSupport == nil, "go has no isEoas/eoasFrom keys: no active-support phase")
        #expect(go123.extendedSupport == nil)
        #expect(go123.latest == "1.23.12")
        let go124 = try #require(answer.releases.first { $0.name == "1.24" })
        #expect(go124.endOfLife == .init(day: nil, flag: false))
    }

    @Test("a release answer: one release, all three phases")
    func release() throws {
        let answer = try EndOfLifeFixture.answer("ubuntu-22.04.json")
        #expect(answer.isRelease)
        let jammy = try #require(answer.releases.first)
        #expect(jammy.name == "22.04")
        #expect(jammy.label == "22.04 'Jammy Jellyfish' (LTS)")
        #expect(jammy.activeSupport == .init(day: day("2024-09-30"), flag: true))
        #expect(jammy.endOfLife == .init(day: day("2027-04-01"), flag: false))
        #expect(jammy.extendedSupport == .init(day: day("2032-04-09"), flag: false))
        #expect(jammy.latest == "22.04.5")
    }

    @Test("latest: null and isEol: true with eolFrom: null are read as given")
    func nulls() throws {
        let answer = try EndOfLifeFixture.answer("aws-lambda.json")
        #expect(answer.releases.count == 44)
        #expect(answer.releases.allSatisfy { $0.latest == nil })
        let dotnet7 = try #require(answer.releases.first { $0.name == "dotnet7" })
        #expect(dotnet7.endOfLife == .init(day: nil, flag: true))
    }

    @Test("answers that are not API v1 answers are refused, naming what is wrong", arguments: [
        ("<html><body>502 Bad Gateway</body></html>", "not valid JSON"),
        ("[]", "expected an object"),
        (#"{"schema_version":"1.2.0"}"#, "no result"),
        (#"{"schema_version":"2.0.0","result":{}}"#, "schema_version: '2.0.0' is not a version of API v1's schema"),
        (#"{"result":{"releases":{}}}"#, "result.releases: expected an array"),
        (#"{"result":{"name":"1.0"}}"#, "result: neither eolFrom nor isEol"),
        (#"{"result":{"name":"1.0","isEol":null,"eolFrom":null}}"#, "result: neither eolFrom nor isEol"),
        (#"{"result":{"name":"1.0","eolFrom":"2027-02-30"}}"#, "result.eolFrom: '2027-02-30' is not a date"),
        (#"{"result":{"name":"1.0","eolFrom":"27-02-03"}}"#, "is not a date"),
        (#"{"result":{"name":"1.0","isEol":"yes"}}"#, "result.isEol: expected true, false or null"),
        (#"{"result":{"name":"","isEol":true}}"#, "an empty release name"),
        (#"{"result":{"name":"1.0\u001b[31m","isEol":true}}"#, "a release name holding U+001B, a control or formatting character"),
        (#"{"result":{"name":"1.0","isEol":true,"latest":{"name":"1.0\u202e"}}}"#, "result.latest.name: not a version string"),
    ])
    func refused(text: String, expected: String) {
        #expect {
            _ = try EndOfLifeAnswer.read(Array(text.utf8))
        } throws: { error in
            String(describing: error).contains(expected)
        }
    }

    @Test("a bad release in a product answer is skipped and named; the others are read")
    func skipped() throws {
        let text = #"{"result":{"releases":[{"name":"1.0","eolFrom":"yesterday"},{"name":"2.0","eolFrom":"2030-01-01"}]}}"#
        let answer = try EndOfLifeAnswer.read(Array(text.utf8))
        #expect(answer.releases.map(\.name) == ["2.0"])
        #expect(answer.skipped == 1)
        #expect(answer.problems == ["result.releases[0].eolFrom: 'yesterday' is not a date (YYYY-MM-DD)"])
    }

    @Test("more releases than a product has are refused before any is read")
    func tooMany() {
        let release = #"{"name":"1","isEol":true}"#
        let text = #"{"result":{"releases":["# + Array(repeating: release, count: EndOfLifeAnswer.maximumReleases + 1).joined(separator: ",") + "]}}"
        #expect {
            _ = try EndOfLifeAnswer.read(Array(text.utf8))
        } throws: { error in
            String(describing: error).contains("4097 releases, more than 4096")
        }
    }

    @Test("days at the ends of the years read: 0000-01-01 and 9999-12-31; impossible days are not days", arguments: [
        ("0000-01-01", true), ("9999-12-31", true), ("2024-02-29", true), ("2023-02-29", false), ("2024-13-01", false),
        ("2024-1-01", false), ("+024-01-01", false), ("2024-01-01T00:00:00Z", false), ("", false),
    ])
    func days(text: String, valid: Bool) {
        let parsed = EndOfLifeAnswer.parseDay(text)
        #expect((parsed != nil) == valid)
        if let parsed { #expect(EndOfLifeAnswer.format(parsed) == text) }
    }
}

@Suite("matching the running version to a release")
struct EndOfLifeMatchTests {
    @Test("the version itself or its longest prefix at a component boundary", arguments: [
        ("1.24.6", "1.24"), ("1.24", "1.24"), ("1.24rc1", "1.24"), ("1.24-1", "1.24"), ("1.25.0", "1.25"),
        ("1.245.0", nil), ("1.2", nil), ("2.0", nil), ("1.10.8", "1.10"), ("1.1", nil),
    ] as [(String, String?)])
    func go(version: String, expected: String?) throws {
        let answer = try EndOfLifeFixture.answer("go.json")
        #expect(EndOfLifeRelease.matching(version, in: answer.releases)?.name == expected)
    }

    @Test("an epoch is no part of the release line: 1:10.11.8-1 (debian) and 1!2.0 (pep440) are in 10.11 and 2.0, never in 1 (found by attack)")
    func epochs() {
        let releases = ["1", "2.0", "10.11"].map { EndOfLifeRelease(name: $0, endOfLife: .init(day: nil, flag: false)) }
        #expect(EndOfLifeRelease.matching("1:10.11.8-1", in: releases)?.name == "10.11")
        #expect(EndOfLifeRelease.matching("1!2.0", in: releases)?.name == "2.0")
        #expect(EndOfLifeRelease.matching("1.2.3", in: releases)?.name == "1")
    }

    @Test("22.04 for 22.04.5; the longest of two prefixes wins")
    func longest() {
        let releases = ["22", "22.04", "22.04.1x"].map { EndOfLifeRelease(name: $0, endOfLife: .init(day: nil, flag: false)) }
        #expect(EndOfLifeRelease.matching("22.04.5", in: releases)?.name == "22.04")
        #expect(EndOfLifeRelease.matching("22.10", in: releases)?.name == "22")
        #expect(EndOfLifeRelease.matching("220", in: releases) == nil)
    }

    @Test("lifecycle-release names the release whatever the version")
    func named() throws {
        let answer = try EndOfLifeFixture.answer("aws-lambda.json")
        #expect(EndOfLifeRelease.matching("18.20.4", in: answer.releases) == nil)
        #expect(EndOfLifeRelease.matching("18.20.4", in: answer.releases, named: "nodejs18.x")?.label == "Node.js 18")
        #expect(EndOfLifeRelease.matching("18.20.4", in: answer.releases, named: "nodejs19.x") == nil)
    }
}

@Suite("lifecycle verdicts")
struct LifecycleVerdictTests {
    let settings = LifecycleSettings(source: LifecycleSettings.defaultSource, product: "p")

    func verdict(_ answer: String, version: String, named: String? = nil, now: Date, checked: Date? = nil, settings: LifecycleSettings? = nil) throws -> LifecycleVerdict {
        let data = LifecycleData().read(try EndOfLifeFixture.answer(answer), version: version, named: named, etag: nil, lastModified: nil, at: checked ?? now)
        return LifecycleVerdict(data: data, settings: settings ?? self.settings, running: version, scheme: .dotted, now: now)
    }

    @Test("the dates decide, not the frozen booleans: nodejs18.x said isEol false in August 2025, its eolFrom passed in March 2026")
    func frozenFlag() throws {
        let verdict = try verdict("aws-lambda.json", version: "18.20.4", named: "nodejs18.x", now: day("2026-11-28"))
        #expect(verdict.state == .endOfLife)
        #expect(verdict.endOfLife == day("2026-03-09"))
        #expect(verdict.supportEnds == day("2025-09-01"))
    }

    @Test("end of life from the day after eolFrom, not on it", arguments: [
        ("2027-03-31T23:59:59Z", LifecycleState.ending), ("2027-04-01T00:00:00Z", .ending), ("2027-04-01T23:59:59Z", .ending),
        ("2027-04-02T00:00:00Z", .endOfLife),
    ])
    func eolDay(now: String, state: LifecycleState) throws {
        let verdict = try verdict("ubuntu-22.04.json", version: "22.04.5", now: RFC3339.parse(now)!)
        #expect(verdict.state == state)
    }

    @Test("ending from lifecycle-warn-days before eolFrom; security-only before that", arguments: [
        ("2026-12-31", LifecycleState.securityOnly), ("2027-01-01", .ending), ("2024-09-30", .supported), ("2024-10-01", .securityOnly),
    ])
    func warnBoundary(today: String, state: LifecycleState) throws {
        // 2027-04-01 less 90 days is 2027-01-01; active support ended 2024-09-30.
        let verdict = try verdict("ubuntu-22.04.json", version: "22.04.5", now: day(today).addingTimeInterval(43_200), checked: day(today))
        #expect(verdict.state == state)
    }

    @Test("after the end of life, extendedUntil says until when extended support lasts")
    func extended() throws {
        let during = try verdict("ubuntu-22.04.json", version: "22.04.5", now: day("2030-01-01"))
        #expect(during.state == .endOfLife)
        #expect(during.extendedUntil == day("2032-04-09"))
        let after = try verdict("ubuntu-22.04.json", version: "22.04.5", now: day("2032-04-10"))
        #expect(after.state == .endOfLife)
        #expect(after.extendedUntil == nil)
    }

    @Test("a boolean counts only where its date is null: isEol true with eolFrom null is end of life")
    func flagWithoutDate() throws {
        let dotnet7 = try verdict("aws-lambda.json", version: "7.0.1", named: "dotnet7", now: day("2025-01-01"))
        #expect(dotnet7.state == .endOfLife)
        #expect(dotnet7.endOfLife == nil)
        let supported = try self.verdict("go.json", version: "1.24.6", now: day("2026-11-28"))
        #expect(supported.state == .supported, "isEol false, eolFrom null: supported")
    }

    @Test("unknown, with the reason: never read, stale, no matching release")
    func unknown() throws {
        let never = LifecycleVerdict(data: nil, settings: settings, running: "1.0", scheme: .dotted, now: day("2026-11-28"))
        #expect(never.state == .unknown && never.reason == "end of life not read yet")
        let stale = try verdict("go.json", version: "1.24.6", now: day("2026-11-28"), checked: day("2026-10-28").addingTimeInterval(-1))
        #expect(stale.state == .unknown)
        #expect(stale.reason?.contains("more than lifecycle-max-age-days (30) ago") == true)
        let fresh = try verdict("go.json", version: "1.24.6", now: day("2026-11-28"), checked: day("2026-10-29"))
        #expect(fresh.state == .supported)
        let unmatched = try verdict("go.json", version: "2.0.1", now: day("2026-11-28"))
        #expect(unmatched.state == .unknown)
        #expect(unmatched.reason == "no release of the 16 read is 2.0.1 or a prefix of it: set lifecycle-release")
        let otherRelease = try verdict("go-1.24.json", version: "1.25.0", now: day("2026-11-28"))
        #expect(otherRelease.reason == "the answer is of release 1.24, not of 1.25.0")
    }

    @Test("latestInRelease newer than the running version is told, in the app's scheme")
    func latestInRelease() throws {
        let behind = try verdict("go.json", version: "1.24.2", now: day("2026-11-28"))
        #expect(behind.latestInRelease == "1.24.6" && behind.newerInRelease)
        let current = try verdict("go.json", version: "1.24.6", now: day("2026-11-28"))
        #expect(!current.newerInRelease)
    }

    @Test("a latest name that is no version in the app's scheme is never newer, and an empty one is none (found by attack)")
    func latestNotAVersion() throws {
        for (name, shown) in [("stable", "stable"), ("", nil)] as [(String, String?)] {
            let text = #"{"result":{"name":"1.2","eolFrom":"2099-01-01","latest":{"name":"\#(name)"}}}"#
            let data = LifecycleData().read(try EndOfLifeAnswer.read(Array(text.utf8)), version: "1.2.3", named: nil, etag: nil, lastModified: nil, at: day("2026-11-28"))
            let verdict = LifecycleVerdict(data: data, settings: settings, running: "1.2.3", scheme: .dotted, now: day("2026-11-28"))
            #expect(!verdict.newerInRelease, "\(name)")
            #expect(verdict.latestInRelease == shown)
        }
    }

    @Test("the instants at which the state changes with no read: the warning's start and the day after each date")
    func changes() throws {
        let verdict = try verdict("ubuntu-22.04.json", version: "22.04.5", now: day("2026-11-28"))
        #expect(verdict.state == .securityOnly)
        #expect(verdict.changesAt.contains(day("2027-01-01")))
        #expect(verdict.changesAt.contains(day("2027-04-02")))
        #expect(verdict.changesAt.contains(day("2032-04-10")))
        #expect(verdict.changesAt.contains(day("2026-11-28").addingTimeInterval(30 * 86_400)), "the age limit")
        #expect(verdict.changesAt.allSatisfy { $0 > day("2026-11-28") })
    }

    @Test("dates at year 0 and 9999 decide without trapping")
    func extremes() throws {
        let text = #"{"result":{"releases":[{"name":"1","eolFrom":"0000-01-01","eoasFrom":"0000-01-01"},{"name":"2","eolFrom":"9999-12-31","eoesFrom":"9999-12-31"}]}}"#
        let answer = try EndOfLifeAnswer.read(Array(text.utf8))
        let now = day("2026-11-28")
        for (version, state) in [("1.0", LifecycleState.endOfLife), ("2.0", .supported)] {
            let data = LifecycleData().read(answer, version: version, named: nil, etag: nil, lastModified: nil, at: now)
            #expect(LifecycleVerdict(data: data, settings: settings, running: version, scheme: .dotted, now: now).state == state)
        }
    }
}

@Suite("restart pending")
struct RestartPendingTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("installed and running differ in the app's scheme: pending since first seen, kept while the same")
    func pending() {
        let first = RestartData().read(installed: "2.0", running: "1.9", scheme: .dotted, at: t0)
        #expect(first.since == t0)
        let later = first.read(installed: "2.0", running: "1.9", scheme: .dotted, at: t0.addingTimeInterval(3_600))
        #expect(later.since == t0, "since is when it was first seen")
        let newer = later.read(installed: "2.1", running: "1.9", scheme: .dotted, at: t0.addingTimeInterval(7_200))
        #expect(newer.since == t0.addingTimeInterval(7_200), "another installed version starts again")
        let restarted = newer.read(installed: "2.1", running: "2.1", scheme: .dotted, at: t0.addingTimeInterval(9_000))
        #expect(restarted.since == nil)
        #expect(RestartVerdict(data: restarted, criticalDays: 7, now: t0).pending == nil)
    }

    @Test("the same version spelt otherwise is no restart: 1.0 and 1.0.0 in dotted, 1:2.0-1 in debian compares as itself")
    func sameInScheme() {
        #expect(RestartData().read(installed: "1.0.0", running: "1.0", scheme: .dotted, at: t0).since == nil)
        #expect(RestartData().read(installed: "v1.0", running: "1.0", scheme: .dotted, at: t0).since == nil)
        #expect(RestartData().read(installed: "1:2.0-1", running: "2.0-1", scheme: .debian, at: t0).since == t0)
    }

    @Test("critical past restart-pending-critical-days, and when it turns so", arguments: [(6.99, false), (7.0, true), (30, true)])
    func critical(days: Double, critical: Bool) {
        let data = RestartData().read(installed: "2.0", running: "1.9", scheme: .dotted, at: t0)
        let verdict = RestartVerdict(data: data, criticalDays: 7, now: t0.addingTimeInterval(days * 86_400))
        #expect(verdict.pending?.installed == "2.0")
        #expect(verdict.critical == critical)
        #expect(verdict.changesAt == (critical ? [] : [t0.addingTimeInterval(7 * 86_400)]))
    }

    @Test("a failed read keeps the last good data and counts")
    func failed() {
        let data = RestartData().read(installed: "2.0", running: "1.9", scheme: .dotted, at: t0).failed("version-file: gone", at: t0.addingTimeInterval(60))
        #expect(data.since == t0 && data.installed == "2.0")
        #expect(data.consecutiveFailures == 1 && data.lastError == "version-file: gone")
    }
}
