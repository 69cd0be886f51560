import Foundation
import SSVCCore
import SSVCPosix
import Testing

@Suite("machine facts from the file system")
struct MachineFactsReaderTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-facts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("reads VERSION_ID and the DMI product name")
    func reads() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("etc/os-release", "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n")
        try write("usr/lib/os-release", "VERSION_ID=\"11\"\n")
        try write("sys/class/dmi/id/product_name", "PowerEdge R740\n")
        #expect(MachineFactsReader.gather(root: root.path) == MachineFacts(osVersion: "12", model: "PowerEdge R740"))
    }

    @Test("falls back to /usr/lib/os-release and the machine type")
    func fallsBack() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("usr/lib/os-release", "VERSION_ID=11\n")
        let facts = MachineFactsReader.gather(root: root.path)
        #expect(facts.osVersion == "11")
        var names = utsname()
        uname(&names)
        let machine = withUnsafeBytes(of: names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(facts.model == machine)
        #expect(!facts.model.isEmpty)
    }

    @Test("an empty root yields empty facts but the machine type")
    func nothing() {
        let facts = MachineFactsReader.gather(root: root.path + "/missing")
        #expect(facts.osVersion.isEmpty)
        #expect(!facts.model.isEmpty)
    }
}
