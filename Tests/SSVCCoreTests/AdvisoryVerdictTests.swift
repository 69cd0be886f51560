import Foundation
import SSVCCore
import Testing

@Suite("advisory verdicts")
struct AdvisoryVerdictTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func data(_ findings: [AdvisoryFinding], checkedDaysAgo days: Double = 0) -> AdvisoryData {
        var data = AdvisoryData()
        data.findings = findings
        data.checked = now.addingTimeInterval(-days * 86_400)
        return data
    }

    let finding = AdvisoryFinding(id: "GHSA-1", aliases: ["CVE-2026-1"], upstream: ["CVE-2026-9"], fixed: "2.0", reason: "r")

    @Test("stale or missing data is unknown, never clear")
    func stale() {
        let settings = AdvisorySettings(ecosystem: "PyPI", package: "pkg", maxAgeDays: 7)
        #expect(AdvisoryVerdict(data: nil, settings: settings, latest: nil, hasServer: true, scheme: .dotted, now: now).state == .unknown)
        #expect(AdvisoryVerdict(data: data([], checkedDaysAgo: 8), settings: settings, latest: nil, hasServer: true, scheme: .dotted, now: now).state == .unknown)
        #expect(AdvisoryVerdict(data: data([], checkedDaysAgo: 6), settings: settings, latest: nil, hasServer: true, scheme: .dotted, now: now).state == .clear)
    }

    @Test("stale findings are unknown but keep deciding: a fix offered stays required, to the exact 7-day boundary (issue 51)", arguments: [
        (6.99, AdvisoryState.affected), (7.0, .affected), (7.01, .unknown), (8, .unknown),
    ] as [(Double, AdvisoryState)])
    func staleStillDecides(days: Double, state: AdvisoryState) {
        let settings = AdvisorySettings(ecosystem: "PyPI", package: "pkg", maxAgeDays: 7)
        let verdict = AdvisoryVerdict(data: data([finding], checkedDaysAgo: days), settings: settings, latest: "2.0", hasServer: true, scheme: .dotted, now: now)
        #expect(verdict.state == state)
        #expect(verdict.requiredBy?.id == "GHSA-1", "required stays required")
        #expect(verdict.advisories.map(\.id) == ["GHSA-1"])
        let unfixed = AdvisoryVerdict(data: data([finding], checkedDaysAgo: days), settings: settings, latest: "1.9", hasServer: true, scheme: .dotted, now: now)
        #expect(unfixed.requiredBy == nil && unfixed.affectedWithoutFix)
    }

    @Test("a fix at or below the server's latest makes the update required; above it, affected only", arguments: [
        ("2.0", true), ("2.1", true), ("1.9", false), (nil, false),
    ] as [(String?, Bool)])
    func required(latest: String?, required: Bool) {
        let settings = AdvisorySettings(ecosystem: "PyPI", package: "pkg")
        let verdict = AdvisoryVerdict(data: data([finding]), settings: settings, latest: latest, hasServer: true, scheme: .dotted, now: now)
        #expect(verdict.state == .affected)
        #expect((verdict.requiredBy != nil) == required)
        #expect(verdict.affectedWithoutFix == !required)
        if required { #expect(verdict.requiredNote == "required: GHSA-1 is fixed in 2.0") }
    }

    @Test("an ecosystem with no order: the offer is the fix by the app's scheme, and not where the record affects it again (issue 51)", arguments: [
        ("2.0", true), ("10.0", true), ("1.9", false), ("3.5", false), ("4.0", true),
    ] as [(String, Bool)])
    func unorderedEcosystem(latest: String, required: Bool) {
        // Maven has no order here; 2.0 is no SemVer and 10.0 sorts before 2.0 as text.
        let finding = AdvisoryFinding(id: "MAVEN-1", fixed: "2.0", stillAffected: [AffectedSpan(from: "3.0", until: "4.0")], reason: "r")
        let verdict = AdvisoryVerdict(
            data: data([finding]), settings: AdvisorySettings(ecosystem: "Maven", package: "pkg"), latest: latest, hasServer: true,
            scheme: .dotted, now: now
        )
        #expect(verdict.state == .affected)
        #expect((verdict.requiredBy?.id == "MAVEN-1") == required, "\(latest)")
        #expect(verdict.affectedWithoutFix == !required)
    }

    @Test("without a version server, any fix counts as offered")
    func noServer() {
        let verdict = AdvisoryVerdict(
            data: data([finding]), settings: AdvisorySettings(ecosystem: "PyPI", package: "pkg"), latest: nil, hasServer: false,
            scheme: .dotted, now: now
        )
        #expect(verdict.requiredBy?.id == "GHSA-1")
    }

    @Test("ignore entries match the id, an alias or an upstream id, and lapse after until", arguments: ["GHSA-1", "CVE-2026-1", "CVE-2026-9"])
    func ignores(name: String) {
        var settings = AdvisorySettings(ecosystem: "PyPI", package: "pkg", ignores: [AdvisoryIgnore(id: name)])
        var verdict = AdvisoryVerdict(data: data([finding]), settings: settings, latest: "3.0", hasServer: true, scheme: .dotted, now: now)
        #expect(verdict.state == .clear)
        #expect(verdict.ignored == ["GHSA-1"])
        #expect(verdict.requiredBy == nil)
        settings.ignores = [AdvisoryIgnore(id: name, lapsesAt: now)]
        verdict = AdvisoryVerdict(data: data([finding]), settings: settings, latest: "3.0", hasServer: true, scheme: .dotted, now: now)
        #expect(verdict.state == .affected)
        #expect(AdvisoryVerdict.lapsed(["GHSA-1"], settings: settings, findings: [finding], now: now) == ["GHSA-1"])
    }

    @Test("a state file without advisory fields reads as before")
    func oldState() throws {
        let decoded = try JSONDecoder().decode(AdvisoryData.self, from: Data(#"{"checked": 0}"#.utf8))
        #expect(decoded.findings.isEmpty)
        #expect(decoded.consecutiveFailures == 0)
    }
}
