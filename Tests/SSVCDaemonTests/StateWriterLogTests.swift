import Foundation
import Logging
import NIOConcurrencyHelpers
import SSVCCore
@testable import SSVCDaemon
import Testing

/// The state writer's holds log, driven as the check service drives it:
/// one actor, its wake-ups coming back to it.
@Suite("the state writer's holds log")
struct StateWriterLogTests {
    actor Harness {
        var writer: StateWriter!
        var state = DaemonState()
        var next = 0
        /// Called once, in the turn that handles the first end of a write of the log.
        var afterFirstLogWrite: (@Sendable (isolated Harness) -> Void)?

        init() {}

        func setUp(_ store: StateStore) {
            writer = StateWriter(
                store: store, metricsPath: nil, clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                wake: { [weak self] event in await self?.due(event) }
            )
        }

        var source: StateWriter.Source { StateWriter.Source(state: { self.state }, metrics: { [] }) }

        func due(_ event: StateWriter.Event) {
            writer.due(event, source)
            if case .logged = event, let after = afterFirstLogWrite {
                afterFirstLogWrite = nil
                after(self)
            }
        }

        /// `count` holds of app `a`, each at another version, in this turn.
        @discardableResult
        func holds(_ count: Int) -> StateWriter.Ticket? {
            var ticket: StateWriter.Ticket?
            for _ in 0..<count {
                next += 1
                let hold = Hold(version: "1.\(next)", since: Date(timeIntervalSince1970: 1_800_000_000))
                state.apps["a"] = AppState(hold: hold)
                ticket = writer.logHold(HoldLogRecord(app: "a", hold: hold), source)
            }
            return ticket
        }

        func set(after: @escaping @Sendable (isolated Harness) -> Void) { afterFirstLogWrite = after }

        func written(_ ticket: StateWriter.Ticket) -> Bool { writer.isWritten(ticket) }

        func run<T: Sendable>(_ body: @Sendable (isolated Harness) -> T) -> T { body(self) }

        func settled() async {
            await withCheckedContinuation { writer.whenIdle(then: $0) }
        }
    }

    @Test("the log stays within its bound while a write of it runs: the lines being written count, past the bound holds wait for the state file")
    func boundCountsTheWriteUnderWay() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-writer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder where the state file is renamed to: every state write
        // fails, and the log is never absorbed.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("state.json/x"), withIntermediateDirectories: true)
        let harness = Harness()
        await harness.setUp(StateStore(directory: folder.path))
        // 30,000 lines (2.5 MiB) queued behind the first hold's append;
        // while they are written, 30,000 more: before the fix the 2.5 MiB
        // under way were not counted and the log passed its bound.
        await harness.set { harness in harness.holds(30_000) }
        await harness.holds(1)
        await harness.holds(30_000)
        // The writes end, and their ends start the next, until none is left.
        for _ in 0..<20 { await harness.settled() }
        let path = folder.appendingPathComponent("holds.jsonl").path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size <= HoldLog.maximumBytes && size > HoldLog.maximumBytes - 200, "\(size) bytes, the bound \(HoldLog.maximumBytes)")
    }

    @Test("a hold is answered once its own line is on disk: the end of an earlier append answers only the holds it carried")
    func answeredByItsOwnAppend() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-writer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let harness = Harness()
        await harness.setUp(StateStore(directory: folder.path))
        let path = folder.appendingPathComponent("holds.jsonl").path
        let seen = NIOLockedValueBox<(first: Bool, second: Bool, lines: Int)?>(nil)
        // In one turn: the first line's append starts, the second is queued behind it.
        let (_, second) = await harness.run { harness in
            let first = harness.holds(1)!
            let second = harness.holds(1)!
            harness.afterFirstLogWrite = { harness in
                // The turn that handles the end of the first append; the second's runs.
                let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").count
                seen.withLockedValue { $0 = (harness.writer.isWritten(first), harness.writer.isWritten(second), lines) }
            }
            return (first, second)
        }
        for _ in 0..<5 { await harness.settled() }
        let (firstWritten, secondWritten, lines) = try #require(seen.withLockedValue { $0 })
        #expect(firstWritten && lines == 1)
        #expect(!secondWritten, "answered before its line was written")
        #expect(await harness.written(second))
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 2)
    }
}
