import Foundation
import SSVCTestSupport
import Testing

/// The documentation as one place per fact: the README for operators, at
/// most 700 lines, and every section the units, the code and the examples
/// point to exists where they say.
@Suite("documentation pointers", .processSlot)
struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `README, "Section"` or `docs/NAME.md, "Section"` in the files
    /// under `folders`, with the file it was found in.
    func pointers() throws -> [(source: String, document: String, section: String)] {
        var found: [(String, String, String)] = []
        let pattern = try Regex(#"(README|docs/[a-z-]+\.md),\s*(?:#\s*)?"([^"]+)""#)
        for folder in ["Sources", "systemd", "etc", "packaging", "Makefile"] {
            let root = Self.repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: root.path).map { $0.compactMap { $0 as? String }.map { root.appendingPathComponent($0).path } }
                ?? [root.path]
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                // A pointer may wrap onto the next comment line.
                let joined = text.replacingOccurrences(of: "\n#", with: "").replacingOccurrences(of: "\n///", with: "")
                for match in joined.matches(of: pattern) {
                    found.append((file, String(match.output[1].substring ?? ""), String(match.output[2].substring ?? "")))
                }
            }
        }
        return found
    }

    @Test("every section the units, the code and the examples point to exists")
    func sectionsExist() throws {
        let all = try pointers()
        #expect(all.count >= 6, "the scan found \(all.count) pointers")
        for pointer in all {
            let document = pointer.document == "README" ? "README.md" : pointer.document
            let text = (try? String(contentsOf: Self.repository.appendingPathComponent(document), encoding: .utf8)) ?? ""
            let headings = text.split(separator: "\n").filter { $0.hasPrefix("#") }
            let section = pointer.section.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(headings.contains { $0.contains(section) }, "\(pointer.source) points to \(document), \"\(section)\", which has no such heading")
        }
    }

    @Test("the README is for operators first and at most 700 lines")
    func readmeLength() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count <= 700)
        #expect(!text.contains("../shared/"), "no link out of the tree")
        let order = ["## Installing", "## ssvcctl", "## Configuration", "## Monitoring", "## Operating it", "## The two commands"]
        let positions = order.compactMap { text.range(of: $0)?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "operators' sections first, the developers' last")
    }
}
