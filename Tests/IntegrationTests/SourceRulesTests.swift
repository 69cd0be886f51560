import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("source rules", .processSlot)
struct SourceRulesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("no source file uses a global or a concurrent Dispatch queue")
    func noGlobalQueues() throws {
        let forbidden = ["DispatchQueue.global", ".global(", "attributes: .concurrent", ".concurrent]", "target: .global"]
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "found only \(files.count) Swift files under \(Self.sources.path)")
        var offences: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                for pattern in forbidden where code.contains(pattern) {
                    offences.append("\(file):\(number + 1): \(pattern)")
                }
            }
        }
        #expect(
            offences.isEmpty,
            """
            Work on a global or concurrent queue (or a serial queue targeting one) arms libdispatch's \
            worker-pool monitor, a 1 s timer that wakes the daemon for the rest of its life. Use a \
            DispatchQueue(label:) of your own, or Swift concurrency (MainQueueExecutor): \(offences)
            """
        )
    }
}
