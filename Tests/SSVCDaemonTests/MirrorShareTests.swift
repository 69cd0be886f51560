import Foundation
import NIOConcurrencyHelpers
import SSVCCore
@testable import SSVCDaemon
import Testing

/// `MirrorShare` with its source faked: what a pass reads, and what each
/// asking app is answered (issue 55).
@Suite("a mirror shared by apps")
struct MirrorShareUnitTests {
    /// A source that answers `kept` (nil: unchanged) and counts its fetches and the targets each read took.
    final class Source: Sendable {
        let kept: NIOLockedValueBox<MirrorShare.Kept?>
        let fetches = NIOLockedValueBox(0)
        let reads = NIOLockedValueBox<[[String]]>([])
        let failRead = NIOLockedValueBox(false)

        init(_ kept: MirrorShare.Kept?) {
            self.kept = NIOLockedValueBox(kept)
        }

        var work: MirrorShare.Work {
            MirrorShare.Work(
                fetch: { _, _, _ in
                    self.fetches.withLockedValue { $0 += 1 }
                    return self.kept.withLockedValue { $0 }
                },
                read: { _, evaluators throws(AdvisoryCheck.Failure) in
                    self.reads.withLockedValue { $0.append(evaluators.map(\.package)) }
                    if self.failRead.withLockedValue({ $0 }) {
                        // Long enough for another check to come and wait for it.
                        try? await Task.sleep(for: .milliseconds(300))
                        throw AdvisoryCheck.Failure(description: "the read failed")
                    }
                    return evaluators
                }
            )
        }
    }

    static func seed(_ package: String) throws -> AdvisoryEvaluator {
        try AdvisoryEvaluator(ecosystem: "PyPI", package: package, version: "1.0")
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func file(signedAt: Date? = nil) -> MirrorShare.Kept {
        MirrorShare.Kept(path: "/nonexistent/all.zip", etag: "\"e1\"", lastModified: nil, signedAt: signedAt, downloaded: true)
    }

    @Test("the packages the configuration names are read by the first pass; an app asking later is answered from it")
    func expectedReadFirst() async throws {
        let share = MirrorShare(download: "/nonexistent/d.zip")
        let source = Source(Self.file())
        share.expect(try ["a", "b", "c"].map(Self.seed))
        let asker = MirrorShare.Asker(etag: nil, lastModified: nil, sameVersion: false, newestSignature: nil)
        _ = try await share.read(try Self.seed("a"), asker: asker, reuse: 60, work: source.work, now: Self.now)
        guard case .read = try await share.read(try Self.seed("c"), asker: asker, reuse: 60, work: source.work, now: Self.now) else {
            Issue.record("c not answered from the pass")
            return
        }
        #expect(source.reads.withLockedValue { $0 }.map { Set($0) } == [["a", "b", "c"]], "one pass for all three")
        #expect(source.fetches.withLockedValue { $0 } == 1)
    }

    @Test("an app is not answered from a file signed before a signature it accepted: a rollback")
    func rollbackPerApp() async throws {
        let share = MirrorShare(download: "/nonexistent/d.zip")
        let source = Source(Self.file(signedAt: Self.now.addingTimeInterval(-200)))
        let older = MirrorShare.Asker(etag: nil, lastModified: nil, sameVersion: false, newestSignature: Self.now.addingTimeInterval(-300))
        let newer = MirrorShare.Asker(etag: nil, lastModified: nil, sameVersion: false, newestSignature: Self.now.addingTimeInterval(-100))
        guard case .read = try await share.read(try Self.seed("a"), asker: older, reuse: 60, work: source.work, now: Self.now) else {
            Issue.record("the app that accepted an older signature is answered")
            return
        }
        await #expect(throws: AdvisoryCheck.Failure.self) {
            _ = try await share.read(try Self.seed("a"), asker: newer, reuse: 60, work: source.work, now: Self.now)
        }
        let a = try Self.seed("a")
        do {
            _ = try await share.read(a, asker: newer, reuse: 60, work: source.work, now: Self.now)
            Issue.record("answered from a file signed before the app's newest signature")
        } catch {
            #expect(error.description.contains("refused as a rollback"), "\(error.description)")
        }
    }

    @Test("a failed pass fails the checks without an answer, not one whose package the last pass read")
    func failedPassSparesAnswered() async throws {
        let share = MirrorShare(download: "/nonexistent/d.zip")
        let source = Source(Self.file())
        let asker = MirrorShare.Asker(etag: nil, lastModified: nil, sameVersion: false, newestSignature: nil)
        _ = try await share.read(try Self.seed("a"), asker: asker, reuse: 60, work: source.work, now: Self.now)
        source.failRead.withLockedValue { $0 = true }
        // b's pass fails; a, asking meanwhile, has its finding.
        let (b, a) = (try Self.seed("b"), try Self.seed("a"))
        let failing = Task { try await share.read(b, asker: asker, reuse: 60, work: source.work, now: Self.now) }
        // a asks while b's pass runs, and waits for it.
        while source.reads.withLockedValue({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        if case .read = try await share.read(a, asker: asker, reuse: 60, work: source.work, now: Self.now) {} else { Issue.record("a not answered") }
        await #expect(throws: AdvisoryCheck.Failure.self) { _ = try await failing.value }
    }
}
