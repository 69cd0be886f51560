import Foundation
import Glibc

/// The toml-test cases installed by `golang-github-burntsushi-toml-dev`
/// (or the folder named by `TOML_TEST_DIR`): `valid/**/*.toml` with the
/// expected tagged JSON beside each, and `invalid/**/*.toml`.
struct TOMLTestSuite {
    static let defaultFolder = "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"

    /// Valid cases left out, by path, each because it is outside TOML 1.0.0.
    static let skippedValid: [String: String] = [
        "valid/string/escape-esc.toml": "TOML 1.1: the \\e escape; 1.0.0 has no such escape (toml-test excludes it from 1.0.0 too)",
    ]

    /// Invalid cases left out, by path: none.
    static let skippedInvalid: [String: String] = [:]

    let folder: URL

    /// The suite, or nil when its folder is missing.
    static func locate() -> TOMLTestSuite? {
        let path = ProcessInfo.processInfo.environment["TOML_TEST_DIR"] ?? defaultFolder
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path + "/valid", isDirectory: &isFolder), isFolder.boolValue else { return nil }
        return TOMLTestSuite(folder: URL(fileURLWithPath: path))
    }

    /// Whether a missing suite is a failure rather than a skip.
    static var isRequired: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The `.toml` files under `valid` or `invalid`, as paths relative to the
    /// suite, sorted. Newer toml-test releases list their TOML 1.0.0 cases in
    /// `files-toml-1.0.0`; when that list is there only its cases count.
    func cases(_ kind: String) -> [String] {
        if let list = try? String(contentsOf: folder.appendingPathComponent("files-toml-1.0.0"), encoding: .utf8) {
            return list.split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix(kind + "/") && $0.hasSuffix(".toml") }
                .sorted()
        }
        let base = folder.appendingPathComponent(kind)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return walker.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".toml") }
            .map { kind + "/" + $0 }
            .sorted()
    }

    /// The case's bytes, read with stdio: FoundationEssentials'
    /// `Data(contentsOf:)` leaks its 4 KiB buffer on an empty file
    /// (LeakSanitizer, `make sanitize`), and the suite has empty cases.
    func bytes(_ path: String) throws -> [UInt8] {
        let full = folder.appendingPathComponent(path).path
        guard let file = fopen(full, "rb") else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: full]) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// The expected tagged JSON beside a valid case.
    func expected(_ path: String) throws -> Any {
        let json = folder.appendingPathComponent(String(path.dropLast(".toml".count)) + ".json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: json), options: [.fragmentsAllowed])
    }
}
