import FoundationEssentials
@testable import SSVCCore
import Testing

/// What a check does to an app's stored state and to its next check,
/// without a daemon: `AppState.recording(_:running:at:)` and the planner.
@Suite("app state: what each check outcome records")
struct AppStateRecordingTests {
    let running = RunningVersion(key: "1.0")
    let start = utc("2026-03-01T10:00:00Z")
    let planner = SchedulePlanner(schedule: .daily, phase: 0.5)

    static let newer = #"{"SSVCLatestVersionKey":"1.1","SSVCLatestVersionNumber":17858560}"#
    static let same = #"{"SSVCLatestVersionKey":"1.0","SSVCLatestVersionNumber":16809984}"#

    func success(_ body: String, running: RunningVersion? = nil, etag: String? = "\"v1\"", fetched: Bool = true) throws -> CheckOutcome {
        let context = EvaluationContext(running: running ?? self.running, appID: "", locale: LocaleSettings(language: "en", country: ""), now: start)
        let evaluation = try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context)
        return .success(evaluation, body: body, etag: etag, fetched: fetched)
    }

    /// A state with one good answer (update available) from an hour before.
    func goodState() throws -> AppState {
        AppState().recording(try success(Self.newer), running: running, at: start.addingTimeInterval(-3_600))
    }

    @Test("a success stores the response, its ETag and decision, and clears the failures")
    func successRecords() throws {
        var failing = try goodState().recording(.failure("HTTP 500", retryAfter: start.addingTimeInterval(600), fetched: true), running: running, at: start.addingTimeInterval(-60))
        failing.consecutiveFailures = 3
        let after = failing.recording(try success(Self.same, etag: "\"v2\""), running: running, at: start)
        #expect(after.response == Self.same)
        #expect(after.etag == "\"v2\"")
        #expect(after.decision?.status == .upToDate)
        #expect(after.lastCheck == start)
        #expect(after.lastSuccess == start)
        #expect(after.lastFetch == start)
        #expect(after.consecutiveFailures == 0)
        #expect(after.lastError == nil)
        #expect(after.retryNotBefore == nil)
        #expect(planner.plan(now: start, history: after.history, atStart: false, jitter: 0).reason == .schedule)
    }

    @Test("a failed check keeps the last good response and decision, and counts the failure")
    func failureKeepsLastGood() throws {
        let before = try goodState()
        let after = before.recording(.failure("cannot connect: refused", retryAfter: nil, fetched: true), running: running, at: start)
        #expect(after.response == before.response)
        #expect(after.etag == before.etag)
        #expect(after.decision == before.decision)
        #expect(after.decision?.status == .updateAvailable)
        #expect(after.lastSuccess == before.lastSuccess)
        #expect(after.lastCheck == start)
        #expect(after.lastFetch == start)
        #expect(after.consecutiveFailures == 1)
        #expect(after.lastError == "cannot connect: refused")
        let twice = after.recording(.failure("cannot connect: refused", retryAfter: nil, fetched: true), running: running, at: start.addingTimeInterval(60))
        #expect(twice.consecutiveFailures == 2)
        let next = planner.plan(now: start, history: after.history, atStart: false, jitter: 0)
        #expect(next.reason == .retry)
        // One failure, no jitter: half of a minute's backoff, which the minimum interval allows.
        #expect(next.at == utc("2026-03-01T10:00:30Z"), "\(next)")
    }

    @Test("a rejected response is a failure that sent a request: the minimum interval counts it")
    func rejectedResponse() throws {
        let before = try goodState()
        let after = before.recording(.failure("response rejected: not JSON", retryAfter: nil, fetched: true), running: running, at: start)
        #expect(after.lastFetch == start)
        #expect(after.response == before.response)
        let unread = before.recording(.failure("running version: no such file", retryAfter: nil, fetched: false), running: nil, at: start)
        #expect(unread.lastFetch == before.lastFetch, "no request went out")
        #expect(unread.currentVersion == "1.0", "the version read last time stays")
    }

    @Test("a Retry-After is kept and the next check waits for it")
    func retryAfter() throws {
        let later = start.addingTimeInterval(7_200)
        let after = try goodState().recording(.failure("HTTP 503", retryAfter: later, fetched: true), running: running, at: start)
        #expect(after.retryNotBefore == later)
        let next = planner.plan(now: start, history: after.history, atStart: false, jitter: 0)
        #expect(next == NextCheck(at: later, reason: .retryAfter))
    }

    @Test("a 304 decides on the stored body again, for the version running now")
    func notModified() throws {
        let before = try goodState()
        let upgraded = RunningVersion(key: "1.1")
        let after = before.recording(
            try success(try #require(before.response), running: upgraded, etag: before.etag), running: upgraded, at: start
        )
        #expect(after.response == before.response)
        #expect(after.etag == before.etag)
        #expect(after.decision?.status == .upToDate)
        #expect(after.currentVersion == "1.1")
        #expect(after.currentVersionNumber == upgraded.number)
        #expect(after.lastSuccess == start)
    }

    @Test("the running version found is recorded even when the check then fails")
    func versionChange() throws {
        let upgraded = RunningVersion(key: "2.0")
        let after = try goodState().recording(.failure("HTTP 500", retryAfter: nil, fetched: true), running: upgraded, at: start)
        #expect(after.currentVersion == "2.0")
        #expect(after.currentVersionNumber == upgraded.number)
        #expect(after.decision?.status == .updateAvailable, "the decision is the last good one, made for 1.0")
    }

    @Test("each message shown is counted, at the check's time")
    func messagesCounted() throws {
        let notice = MessageNotice(key: "id:m1", description: UpdateDescription(message: "Maintenance"))
        let evaluation = Evaluation(decision: Decision(decided: true), messages: [notice])
        let once = AppState().recording(.success(evaluation, body: "{}", etag: nil, fetched: true), running: running, at: start)
        let twice = once.recording(.success(evaluation, body: "{}", etag: nil, fetched: true), running: running, at: start.addingTimeInterval(60))
        #expect(once.messages["id:m1"] == MessageDisplayRecord(count: 1, lastShown: start))
        #expect(twice.messages["id:m1"] == MessageDisplayRecord(count: 2, lastShown: start.addingTimeInterval(60)))
    }

    @Test("stale means two periods without success: since the first check when there was none, not at the first failure")
    func staleSinceFirstCheck() {
        let failed = AppState().recording(.failure("HTTP 500", retryAfter: nil, fetched: true), running: running, at: start)
        #expect(failed.firstCheck == start)
        #expect(!failed.isStale(now: start.addingTimeInterval(60), schedule: .daily), "a first failure a minute ago is not stale")
        let again = failed.recording(.failure("HTTP 500", retryAfter: nil, fetched: true), running: running, at: start.addingTimeInterval(86_400))
        #expect(again.firstCheck == start)
        #expect(!again.isStale(now: start.addingTimeInterval(2 * 86_400 - 1), schedule: .daily))
        #expect(again.isStale(now: start.addingTimeInterval(2 * 86_400 + 1), schedule: .daily))
        #expect(!AppState().isStale(now: start, schedule: .daily), "never checked: not stale")
        var earlier = AppState()
        earlier.lastCheck = start
        earlier.consecutiveFailures = 4
        #expect(!earlier.isStale(now: start.addingTimeInterval(3_600), schedule: .hourly), "a file without firstCheck counts from its last check")
        #expect(earlier.isStale(now: start.addingTimeInterval(3 * 3_600), schedule: .hourly))
    }
}
