import Foundation
import SSVCCore
@testable import SSVCDaemon
import Testing

/// The checking logic alone: the service on a manual clock, its servers and
/// running versions in memory (`CheckService.Runtime.transport` and
/// `readVersion`), no socket and no process.
///
/// The time limit is a guard against a hang, not a speed bound (see
/// `VirtualTimeTests`).
@Suite("the check service with its servers in memory", .timeLimit(.minutes(10)))
struct InMemoryCheckTests {
    static let epoch = VirtualDaemon.epoch
    static let documentURL = "https://updates.example/a.json"
    static let advisoriesURL = "https://osv.example/v1/query"

    static func document(_ latest: String) -> MemoryTransport.Answer {
        .document(#"{"SSVCLatestVersionKey":"\#(latest)"}"#)
    }

    /// An API page naming `records`, each affecting `demo` below its fix.
    static func page(_ records: [(id: String, fixed: String)]) -> MemoryTransport.Answer {
        let vulns = records.map { record in
            #"{"id":"\#(record.id)","modified":"2026-01-01T00:00:00Z","affected":[{"package":{"ecosystem":"PyPI","name":"demo"},"#
                + #""ranges":[{"type":"ECOSYSTEM","events":[{"introduced":"0"},{"fixed":"\#(record.fixed)"}]}]}]}"#
        }
        return .document(#"{"vulns":[\#(vulns.joined(separator: ","))]}"#)
    }

    static func app(advisories: Bool = false) -> String {
        """
        [[app]]
        name = "a"
        url = "\(documentURL)"
        version-command = ["/nonexistent/never-run"]
        \(advisories ? "advisories = \"osv\"\nadvisories-url = \"\(advisoriesURL)\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-package = \"demo\"" : "")

        """
    }

    @Test("a failing server is retried after 1, 2, 4 … minutes, capped at an hour, and a success ends it: no socket, no process")
    func backoffInMemory() async throws {
        let transport = MemoryTransport()
        transport.answer(Self.documentURL, .status(500))
        let versions = MemoryVersions("1.0")
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app(), transport: transport, versions: versions)
        await daemon.start()
        await daemon.clock.advance(by: 60 + 120 + 240 + 480 + 960 + 1_920 + 3_600 + 3_600)
        let times = transport.times(Self.documentURL, since: Self.epoch)
        #expect(zip(times.dropFirst(), times).map { $0 - $1 } == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600], "\(times)")
        #expect(daemon.record.count("a: check failed: HTTP 500") == 9)
        #expect(versions.count == 9, "the running version is read at every check, from memory")
        transport.answer(Self.documentURL, Self.document("2.0"))
        await daemon.clock.advance(by: 3_600)
        let after = await daemon.status("a")
        #expect(after?.consecutiveFailures == 0 && after?.status == "update-available", "\(String(describing: after))")
        await daemon.stop()
    }

    @Test("a Retry-After holds the next try back to its time")
    func retryAfterInMemory() async throws {
        let transport = MemoryTransport()
        transport.answer(Self.documentURL, .status(503, retryAfter: Self.epoch.addingTimeInterval(7_200)))
        let daemon = try VirtualDaemon(daemon: "first-check-window-seconds = 0", apps: Self.app(), transport: transport, versions: MemoryVersions("1.0"))
        await daemon.start()
        await daemon.clock.advance(by: 7_199)
        #expect(transport.times(Self.documentURL, since: Self.epoch) == [0])
        #expect(await daemon.status("a")?.nextCheckReason == "retry-after")
        await daemon.clock.advance(by: 1)
        #expect(transport.times(Self.documentURL, since: Self.epoch) == [0, 7_200])
        await daemon.stop()
    }

    @Test("an advisory source's Retry-After holds the app's next check back to its time, as a document's does (issue 51)")
    func advisoryRetryAfter() async throws {
        let transport = MemoryTransport()
        transport.answer(Self.documentURL, Self.document("1.0"))
        transport.answer(Self.advisoriesURL, .retry(429, after: 3_600))
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0", apps: Self.app(advisories: true), transport: transport, versions: MemoryVersions("1.0")
        )
        await daemon.start()
        await daemon.clock.advance(by: 1)
        let failed = await daemon.status("a")
        #expect(failed?.consecutiveFailures == 1 && failed?.nextCheckReason == "retry-after", "\(String(describing: failed))")
        await daemon.clock.advance(by: 3_598)
        #expect(transport.times(Self.advisoriesURL, since: Self.epoch) == [0], "not asked again within the hour (a retry would have come at 60 s)")
        transport.answer(Self.advisoriesURL, Self.page([]))
        await daemon.clock.advance(by: 1)
        #expect(transport.times(Self.advisoriesURL, since: Self.epoch) == [0, 3_600])
        #expect(await daemon.status("a")?.consecutiveFailures == 0)
        await daemon.stop()
    }

    @Test("an advisory whose fix the server offers makes the update required and is said once over repeated checks; its end is said once")
    func advisoriesSaidOnce() async throws {
        let transport = MemoryTransport()
        transport.answer(Self.documentURL, Self.document("2.0"))
        transport.answer(Self.advisoriesURL, Self.page([("X-1", "2.0")]))
        let versions = MemoryVersions("1.0")
        let daemon = try VirtualDaemon(
            daemon: "first-check-window-seconds = 0", apps: Self.app(advisories: true), transport: transport, versions: versions
        )
        await daemon.start()
        await daemon.clock.advance(by: 2 * 86_400)
        #expect(transport.times(Self.advisoriesURL, since: Self.epoch).count >= 2, "asked at every daily check")
        #expect(transport.requests.first { $0.url == Self.advisoriesURL }?.post?.contains(#""name":"demo""#) == true)
        let required = await daemon.status("a")
        #expect(required?.status == "update-required" && required?.latestVersion == "2.0", "\(String(describing: required))")
        #expect(daemon.record.count("a: 1.0 is affected by X-1 (fixed in 2.0): update required") == 1)
        // The fix is installed: the advisory no longer affects it.
        versions.set("2.0")
        transport.answer(Self.advisoriesURL, Self.page([]))
        await daemon.clock.advance(by: 2 * 86_400)
        #expect(daemon.record.count("a: no known advisory affects 2.0") == 1)
        #expect(await daemon.status("a")?.status == "up-to-date")
        await daemon.stop()
    }
}
