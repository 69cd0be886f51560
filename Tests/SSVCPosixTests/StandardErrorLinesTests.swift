import Foundation
import Glibc
import SSVCPosix
import SSVCTestSupport
import Synchronization
import Testing

@Suite("StandardErrorLines: a reader that stops never stops the writer")
struct StandardErrorLinesTests {
    /// A pipe: the lines' writer end and a reader end read only when asked.
    struct Ends: ~Copyable {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            (read, write) = (ends[0], ends[1])
        }

        deinit {
            close(read)
            close(write)
        }

        /// What the pipe gives until it ends with `suffix` or `seconds`
        /// pass, read on a thread of its own: with the pool busy (the
        /// sanitized suite), a reader that waited for its turns read too
        /// rarely to drain the queue in 20 s.
        func take(until suffix: String, within seconds: Double) async -> [UInt8] {
            await offPool { [descriptor = read] in
                let end = Array(suffix.utf8)
                let deadline = Date().addingTimeInterval(seconds)
                var all: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while Date() < deadline, !all.suffix(end.count).elementsEqual(end) {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, 100) > 0 else { continue }
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0 { all += buffer[..<count] }
                }
                return all
            }
        }

        /// Everything in the pipe now, without waiting for more.
        func drain() -> [UInt8] {
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                if count <= 0 { return all }
                all += buffer[..<count]
            }
        }
    }

    @Test("lines to a pipe nobody reads: none waits; past the pipe they queue in order, past the bound they are counted, and once read all come out in order and the count after them")
    func stalledReader() async throws {
        let pipe = try Ends()
        let lines = StandardErrorLines(descriptor: pipe.write, limit: 256 << 10)
        let line = String(repeating: "x", count: 1_000)
        // Written off the pool: were a write to wait for this reader, only
        // this thread would hang, and the test fail.
        let outcomes = Mutex<[StandardErrorLines.Outcome]?>(nil)
        Thread.detachNewThread {
            let all = (0..<1_000).map { lines.write("\($0) \(line)") }
            outcomes.withLock { $0 = all }
        }
        let returned = await eventually(within: 20, every: 0.05) { outcomes.withLock { $0 != nil } }
        try #require(returned, "1,000 lines to a pipe nobody reads did not all return")
        let all = try #require(outcomes.withLock { $0 })
        let written = all.prefix { $0 == .written }.count
        // The pipe's 64 KiB take about 64 lines; 256 KiB queue about 256 more.
        #expect((50...70).contains(written), "\(written) written at once")
        let queued = all.filter { $0 == .queued }.count
        #expect((200...270).contains(queued), "\(queued) queued")
        let dropped = all.filter { $0 == .dropped }.count
        #expect(written + queued + dropped == 1_000 && dropped > 600)
        // The queue's thread may have put a few more in the pipe's last page.
        #expect(lines.backlog.dropped == dropped && (queued - 8...queued).contains(lines.backlog.lines), "\(lines.backlog)")
        // Once a line waits, none is written past it: the order holds.
        let firstQueued = try #require(all.firstIndex(of: .queued))
        #expect(!all[firstQueued...].contains(.written))

        // The reader reads: every line kept arrives whole and in order, then
        // the one that says how many were dropped.
        let text = await pipe.take(until: "KiB waited\n", within: 60)
        let received = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        let kept = all.indices.filter { all[$0] != .dropped }
        #expect(received.dropLast().map { $0.prefix { $0 != " " } } == kept.map { Substring("\($0)") })
        #expect(received.dropLast().allSatisfy { $0.hasSuffix(line) })
        #expect(received.last == "<4>ssvcd: \(dropped) lines for standard error dropped while its reader read nothing: more than 256 KiB waited")
        #expect(lines.backlog == (0, 0))
        // Caught up: the next line is written at once again.
        #expect(lines.write("after") == .written)
        #expect(String(decoding: pipe.drain(), as: UTF8.self) == "after\n")
    }

    @Test("a line longer than the pipe is begun at once and finished when the reader reads, whole; an exit waits for it only as long as it is told")
    func longLine() async throws {
        let pipe = try Ends()
        let lines = StandardErrorLines(descriptor: pipe.write, limit: 1 << 10)
        let long = String(repeating: "y", count: 100_000)
        #expect(lines.write(long) == .queued, "a line begun is finished, though past the bound")
        #expect(lines.write("next") == .dropped)
        let waited = Date()
        let gaveUp = await withCheckedContinuation { done in lines.afterWritten(within: 0.3) { done.resume(returning: Date()) } }
        #expect(gaveUp.timeIntervalSince(waited) >= 0.25, "did not wait for the line")
        // The count is written after the line's wait is over.
        let text = await pipe.take(until: "KiB waited\n", within: 60)
        let received = String(decoding: text, as: UTF8.self)
        #expect(received.hasPrefix(long + "\n<4>ssvcd: 1 line for standard error dropped"))
        // Nothing waits: an exit goes at once.
        let ready = await withCheckedContinuation { done in lines.afterWritten(within: 10) { done.resume(returning: true) } }
        #expect(ready)
    }

    @Test("a reader gone costs the line, never the writer: nothing waits, nothing is written (no SIGPIPE)")
    func readerGone() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[1]) }
        close(ends[0])
        let lines = StandardErrorLines(descriptor: ends[1])
        for _ in 0..<100 { #expect(lines.write("to no one") == .written) }
        #expect(lines.backlog == (0, 0))
    }
}
