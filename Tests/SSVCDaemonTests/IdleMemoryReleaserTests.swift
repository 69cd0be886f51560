import Dispatch
import Foundation
import SSVCPosix
import Synchronization
import SSVCTestSupport
import Testing
@testable import SSVCDaemon

@Suite("IdleMemoryReleaser")
struct IdleMemoryReleaserTests {
    @Test("releases once, a quiet period after the last work, not after the first")
    func afterTheLast() async throws {
        let counter = ReleaseCounter()
        let releaser = counter.releaser(quiet: .seconds(2))
        // The work is noted from a thread of its own, whose 1 s sleep a busy
        // test pool cannot stretch past the quiet period; the release is
        // timed by the releaser's thread.
        let lastWork = await withCheckedContinuation { continuation in
            DispatchQueue(label: "io.ssvc.test.work").async {
                releaser.noteActivity()
                usleep(1_000_000)  // off the pool: on a serial queue of its own, so a busy pool cannot stretch it
                let now = DispatchTime.now().uptimeNanoseconds
                releaser.noteActivity()
                continuation.resume(returning: now)
            }
        }
        #expect(await eventually(within: 6, every: 0.02) { counter.value == 1 }, "no release after the quiet period")
        let waited = Double(Int64(counter.lastRelease.load(ordering: .relaxed)) - Int64(lastWork)) / 1e9
        #expect(waited >= 1.99 && waited < 2.5, "released \(waited) s after the last work, with a quiet period of 2 s")
        try await Task.sleep(for: .seconds(1))
        #expect(counter.value == 1, "released again with no work in between")
    }

    @Test("work after a release arms the next one; with none, nothing runs")
    func rearms() async throws {
        let counter = ReleaseCounter()
        let releaser = counter.releaser(quiet: .milliseconds(100))
        try await Task.sleep(for: .milliseconds(300))
        #expect(counter.value == 0, "released without any work")
        for _ in 0..<1_000 { releaser.noteActivity() }
        #expect(await eventually(within: 5, every: 0.02) { counter.value == 1 })
        releaser.noteActivity()
        #expect(await eventually(within: 5, every: 0.02) { counter.value == 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(counter.value == 2)
    }

    @Test("releasing drops this very process's code pages, and it runs on")
    func releaseNow() throws {
        let before = try residentFileKiB()
        let codeBefore = try residentCodeKiB()
        let advised = IdleMemoryReleaser.releaseNow()
        let codeAfter = try residentCodeKiB()
        let after = try residentFileKiB()
        #expect(advised > 1 << 20, "advised only \(advised) bytes")
        #expect(after < before, "file-backed RSS \(before) KiB before, \(after) KiB after")
        // A quarter at least: the other tests of this process run meanwhile
        // and fault back the code they execute (beside Tests/busy half came
        // back before smaps was read: 49,028 KiB before, 24,896 after).
        #expect(codeAfter * 4 < codeBefore * 3, "code mapped from files: \(codeBefore) KiB resident before, \(codeAfter) KiB after")
        // Code dropped runs again, mapped back from the page cache.
        let parsed = try JSONSerialization.jsonObject(with: Data(#"{"a":[1,2.5,"x"]}"#.utf8)) as? [String: Any]
        #expect((parsed?["a"] as? [Any])?.count == 3)
        #expect(try residentFileKiB() > after, "nothing mapped back")
    }

    /// The resident KiB of code mapped from files: every executable
    /// mapping with a path in /proc/self/smaps, this test binary's and its
    /// libraries'.
    private func residentCodeKiB() throws -> Int {
        var total = 0
        var inCode = false
        for line in try procLines("/proc/self/smaps") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
                inCode = fields[1].contains("x") && fields.count >= 6 && fields[5].hasPrefix("/")
            } else if inCode, fields.first == "Rss:", fields.count >= 2 {
                total += try #require(Int(fields[1]))
            }
        }
        try #require(total > 0, "no resident code mapped from a file")
        return total
    }

    /// A /proc file's lines, read to its end: a ThreadSanitizer process's
    /// smaps runs to most of a megabyte, and read with
    /// `String(contentsOfFile:)` it showed none of the code mappings.
    private func procLines(_ path: String) throws -> [Substring] {
        String(decoding: try BoundedReader.read(path: path, limit: 64 << 20), as: UTF8.self).split(separator: "\n")
    }

    private func residentFileKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
