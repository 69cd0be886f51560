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
        let writer = try ChildProcess(["sh", "-c", "printf hello > \(path)"])
        // The read waits for the writer to open the FIFO: off the pool.
        #expect(try await offPool { try BoundedReader.read(path: path, limit: 10, specialFiles: true) } == Array("hello".utf8))
        _ = await writer.exited()
    }
}
