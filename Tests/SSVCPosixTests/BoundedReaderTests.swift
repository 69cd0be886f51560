import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

@Suite("BoundedReader: whole inputs with a cap, and why a read failed")
struct BoundedReaderTests {
    @Test("reads a whole file and refuses one past the limit, with no error number")
    func limit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-bounded-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 65, count: 200_000).write(to: URL(fileURLWithPath: path))
        #expect(try BoundedReader.read(path: path, limit: 200_000).count == 200_000)
        let error = #expect(throws: BoundedReader.Failure.self) { try BoundedReader.read(path: path, limit: 199_999) }
        #expect(error?.description == "\(path) is larger than 199999 bytes")
        #expect(error?.code == nil)
    }

    @Test("names the file and the reason, and keeps the error number of the call that failed")
    func failures() {
        let missing = #expect(throws: BoundedReader.Failure.self) { try BoundedReader.read(path: "/nonexistent", limit: 10) }
        #expect(missing?.description == "cannot open /nonexistent: No such file or directory")
        #expect(missing?.code == ENOENT)
        let directory = #expect(throws: BoundedReader.Failure.self) { try BoundedReader.read(path: "/tmp", limit: 10) }
        #expect(directory?.description == "/tmp is a directory, not a regular file")
        #expect(directory?.code == EISDIR)
    }

    @Test("a FIFO or a device is refused at once, never read with a wait; an operator's pipe is read when asked")
    func specialFiles() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let fifo = #expect(throws: BoundedReader.Failure.self) { try BoundedReader.read(path: path, limit: 10) }
        #expect(fifo?.description == "\(path) is a FIFO, not a regular file")
        let device = #expect(throws: BoundedReader.Failure.self) { try BoundedReader.read(path: "/dev/zero", limit: 10) }
        #expect(device?.description == "/dev/zero is a character device, not a regular file")
        // A writer that came and went while the pipe was held open (as a
        // reader's own first open holds it): its bytes wait in the pipe, and
        // no writer will open it again. Opening the FIFO a second time to
        // wait for one waited for ever (found under ASan).
        let held = open(path, O_RDONLY | O_NONBLOCK)
        #expect(held >= 0)
        #expect(try await ChildProcess(["sh", "-c", "printf hello > \(path)"]).exited() == .exited(0))
        #expect(try await readWithoutHanging(path) == Array("hello".utf8))
        close(held)
        // The reader first, then the writer: the read waits for it.
        let reading = Task { try await readWithoutHanging(path) }
        await pause(0.2)
        _ = try await ChildProcess(["sh", "-c", "printf again > \(path)"]).exited()
        #expect(try await reading.value == Array("again".utf8))
    }

    /// The FIFO read as an operator's pipe, off the pool. A read still
    /// waiting after 10 s is let go (the FIFO opened for writing and
    /// closed) and recorded as a failure, so that the test fails rather
    /// than hangs.
    private func readWithoutHanging(_ path: String) async throws -> [UInt8] {
        let (bytes, released) = try await withThrowingTaskGroup(of: ([UInt8], Bool)?.self) { group in
            group.addTask { (try await offPool { try BoundedReader.read(path: path, limit: 10, specialFiles: true) }, false) }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                let release = open(path, O_WRONLY | O_NONBLOCK)
                if release >= 0 { close(release) }
                return nil
            }
            var read: ([UInt8], Bool)?
            var timedOut = false
            while read == nil, let next = try await group.next() {
                if let next {
                    read = next
                    group.cancelAll()
                } else {
                    timedOut = true
                }
            }
            return (read?.0 ?? [], timedOut)
        }
        #expect(!released, "the read of \(path) still waited after 10 s")
        return bytes
    }
}
