import Foundation
import SSVCPosix
import Testing

@Suite("FileSystem.replace: whole files, and no link or shared folder turned against us")
struct FileSystemTests {
    func folder(mode: mode_t) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test("a link planted where the old temporary name was is never followed: the file it points to keeps its bytes and mode")
    func plantedLink() throws {
        let shared = try folder(mode: 0o1777)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let victim = shared + "/victim"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(chmod(victim, 0o600) == 0)
        for name in ["ssvc.prom.tmp-\(getpid())", "ssvc.prom.tmp"] {
            #expect(symlink(victim, shared + "/" + name) == 0)
        }
        try FileSystem.replace(shared + "/ssvc.prom", with: Array("metrics\n".utf8), mode: 0o644, durable: false)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret")
        var info = stat()
        #expect(stat(victim, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: shared + "/ssvc.prom", encoding: .utf8) == "metrics\n")
        #expect(stat(shared + "/ssvc.prom", &info) == 0 && info.st_mode & 0o777 == 0o644)
        let left = try FileManager.default.contentsOfDirectory(atPath: shared).filter { $0.contains(".tmp-") && !$0.hasSuffix("\(getpid())") }
        #expect(left.isEmpty, "no temporary left: \(left)")
    }

    @Test("a folder every user may write to is refused unless sticky")
    func sharedFolder() throws {
        let open = try folder(mode: 0o777)
        defer { try? FileManager.default.removeItem(atPath: open) }
        let error = #expect(throws: FileSystem.Failure.self) {
            try FileSystem.replace(open + "/state.json", with: [1], mode: 0o600, durable: true)
        }
        #expect(error?.description == "not writing \(open)/state.json: its folder \(open) is writable by every user and not sticky (mode 0777)")
        #expect(chmod(open, 0o1777) == 0)
        try FileSystem.replace(open + "/state.json", with: [1], mode: 0o600, durable: true)
        #expect(FileManager.default.contents(atPath: open + "/state.json") == Data([1]))
    }
}
