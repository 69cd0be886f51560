import Foundation
import SSVCPosix
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
        #expect(directory?.description == "cannot read /tmp: is a directory")
        #expect(directory?.code == EISDIR)
    }
}
