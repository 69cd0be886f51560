import Foundation
import SSVCArchive
import SSVCTestSupport
import Testing

/// Makes the fixtures for the suite and removes them after its last test.
struct ZipFixturesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let folder = try await ZipFixtures.make()
        defer { ZipFixtures.remove(folder) }
        try await function()
    }
}

/// The archives `Tests/Fixtures/zip_fixtures.py` makes with Python's
/// zipfile (once per test run, in a temporary folder named after the
/// process; a run also removes those of runs that were killed), and what
/// zipfile reads from each.
enum ZipFixtures {
    /// Archives we refuse whole where zipfile reads some entries, and why.
    static let stricterThanZipfile = [
        "overlapping": "two entries share bytes",
        "out-of-order": "entries out of file order cannot be checked for overlaps in bounded memory",
        "offset-past-directory": "an entry starts past the central directory",
        "too-many-entries": "the end record lists more entries than the directory holds",
    ]

    private final class Made: @unchecked Sendable {
        let lock = NSLock()
        var folder: String?
    }

    private static let made = Made()

    static func make() async throws -> String {
        let temporary = FileManager.default.temporaryDirectory
        let folder = temporary.appendingPathComponent("ssvc-zip-\(getpid())").path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("ssvc-zip-") {
            guard let pid = pid_t(name.dropFirst("ssvc-zip-".count)), pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH) else { continue }
            try? FileManager.default.removeItem(atPath: temporary.appendingPathComponent(name).path)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/zip_fixtures.py").path
        let made = try await Command.run(["/usr/bin/env", "python3", script, folder])
        guard made.status == 0 else {
            throw Failure(description: "zip_fixtures.py failed: \(made.standardError)")
        }
        Self.made.lock.withLock { Self.made.folder = folder }
        return folder
    }

    static func remove(_ folder: String) {
        made.lock.withLock { made.folder = nil }
        try? FileManager.default.removeItem(atPath: folder)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func folder() throws -> String {
        guard let folder = made.lock.withLock({ made.folder }) else { throw Failure(description: "the suite has no ZipFixturesTrait") }
        return folder
    }

    static func path(_ name: String) throws -> String { try folder() + "/" + name + ".zip" }

    /// What zipfile read from one archive.
    struct Expectation {
        enum Outcome {
            case read(size: Int, crc: UInt64, bytes: [UInt8]?)
            case refused(String)
        }

        var openError: String?
        var entries: [(name: [UInt8], outcome: Outcome)] = []
    }

    static func expectation(_ name: String) throws -> Expectation {
        let base = try folder() + "/" + name
        let lines = try String(contentsOfFile: base + ".expect", encoding: .utf8).split(separator: "\n")
        // FileHandle, not Data(contentsOf:), which leaks its 4 KiB buffer on
        // an empty file (LeakSanitizer, make sanitize): some blobs are empty.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: base + ".blob"))
        defer { try? handle.close() }
        let blob = [UInt8](try handle.readToEnd() ?? Data())
        var expectation = Expectation()
        for line in lines {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "open-error": expectation.openError = fields[1]
            case "entry-error": expectation.entries.append((bytes(hex: fields[1]), .refused(fields[2])))
            case "entry":
                let name = bytes(hex: fields[1])
                let size = Int(fields[2])!
                let offset = Int(fields[4])!
                let bytes = offset < 0 ? nil : Array(blob[offset..<(offset + size)])
                expectation.entries.append((name, .read(size: size, crc: UInt64(fields[3])!, bytes: bytes)))
            default: continue
            }
        }
        return expectation
    }

    static func bytes(hex: String) -> [UInt8] {
        guard hex != "-" else { return [] }
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
    }

    /// What we read from one archive: every entry, read or refused, or
    /// the error that stopped the opening or the walk.
    struct Outcome {
        var failure: ZipError?
        var entries: [(ZipEntry, Result<[UInt8], ZipError>)] = []
    }

    static func readAll(_ name: String, limits: ZipBounds) -> Outcome {
        var outcome = Outcome()
        do throws(ZipError) {
            let archive = try ZipArchive(path: (try? path(name)) ?? "/nonexistent", limits: limits)
            var walk = archive.entries()
            while let entry = try walk.next() {
                outcome.entries.append((entry, Result { () throws(ZipError) in try archive.read(entry) }))
            }
        } catch {
            outcome.failure = error
        }
        return outcome
    }
}
