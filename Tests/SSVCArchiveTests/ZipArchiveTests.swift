import Foundation
@preconcurrency import Glibc
import SSVCArchive
import SSVCTestSupport
import Testing

@Suite("zip archives", ZipFixturesTrait())
struct ZipArchiveTests {
    /// Limits no fixture reaches, for reading archives as zipfile does.
    static let generous = ZipBounds(maximumEntryBytes: 128 << 20, maximumTotalBytes: 1 << 30, maximumRatio: 1 << 20)

    @Test("every archive reads as Python's zipfile reads it: the same entries, names and bytes, and the same ones refused")
    func agreesWithZipfile() async throws {
        let folder = try ZipFixtures.folder()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".zip") }.sorted().map { String($0.dropLast(4)) }
        #expect(names.count >= 30)
        // Every archive inflated (seconds under ThreadSanitizer): off the pool.
        let outcomes = await offPool { Handed(names.map { ZipFixtures.readAll($0, limits: Self.generous) }) }.value
        for (name, ours) in zip(names, outcomes) {
            let expected = try ZipFixtures.expectation(name)
            if let reason = ZipFixtures.stricterThanZipfile[name] {
                // zipfile reads some of these; we refuse the archive whole.
                #expect(ours.failure != nil, "\(name) should be refused: \(reason)")
                continue
            }
            if name == "comment-signature" {
                // zipfile takes the signature in the comment for the record.
                #expect(expected.openError != nil)
                #expect(ours.failure == nil && ours.entries.count == 1, "\(name): \(String(describing: ours.failure))")
                continue
            }
            if let pythonError = expected.openError {
                #expect(ours.failure != nil, "\(name): zipfile refuses it (\(pythonError)), we read \(ours.entries.count) entries")
                continue
            }
            #expect(ours.failure == nil, "\(name): \(String(describing: ours.failure))")
            #expect(ours.entries.count == expected.entries.count, "\(name)")
            for (entry, (ourEntry, result)) in zip(expected.entries, ours.entries) {
                // zipfile cuts a name at a NUL byte.
                if !ourEntry.name.contains(0) {
                    #expect(ourEntry.name == entry.name, "\(name): entry \(ourEntry.index)")
                }
                switch (entry.outcome, result) {
                case let (.read(size, crc, bytes), .success(data)):
                    #expect(data.count == size, "\(name): \(ourEntry.displayName)")
                    #expect(UInt32(crc) == ourEntry.crc32, "\(name): \(ourEntry.displayName)")
                    if let bytes {
                        let same = data == bytes
                        #expect(same, "\(name): \(ourEntry.displayName) differs")
                    }
                case (.read, let .failure(error)):
                    // zipfile also reads bzip2 and LZMA, which we do not.
                    guard case .unsupportedMethod = error else {
                        Issue.record("\(name): \(ourEntry.displayName): zipfile reads it, we refuse it: \(error)")
                        continue
                    }
                case (.refused, .failure):
                    break
                case let (.refused(pythonError), .success):
                    Issue.record("\(name): \(ourEntry.displayName): zipfile refuses it (\(pythonError)), we read it")
                }
            }
        }
    }

    @Test("an OSV export: entries chosen by name, read, the rest never inflated")
    func chosenByName() throws {
        let archive = try ZipArchive(path: ZipFixtures.path("normal"))
        #expect(archive.entryCount == 20)
        var walk = archive.entries()
        var read = 0
        while let entry = try walk.next() {
            guard entry.displayName.hasSuffix("1.json") else { continue }
            let bytes = try archive.read(entry)
            #expect(bytes.starts(with: Array("{\n \"id\": \"PYSEC-2026-".utf8)))
            read += 1
        }
        #expect(read == 2)  // 1 and 11
        #expect(archive.inflatedBytes > 0 && archive.inflatedBytes < 4000)
        // The walk is over, and stays over.
        #expect(try walk.next() == nil)
    }

    @Test("a descriptor the caller opened is read and left open")
    func fileDescriptor() throws {
        let descriptor = open(try ZipFixtures.path("mixed"), O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        do {
            let archive = try ZipArchive(fileDescriptor: descriptor)
            var walk = archive.entries()
            var sizes: [UInt64] = []
            while let entry = try walk.next() { sizes.append(UInt64(try archive.read(entry).count)) }
            #expect(sizes == [619, 817, 0, 0, 0, 70000, 300_000, 746])
        }
        #expect(fcntl(descriptor, F_GETFD) >= 0)
    }

    @Test("ZIP64: forced local headers, zipfile's end records past 65,535 entries, every field in the extra field")
    func zip64() async throws {
        for (name, count) in [("zip64-forced", 5), ("many", 70000), ("zip64-hand", 2)] {
            let outcome = await offPool { Handed(ZipFixtures.readAll(name, limits: ZipBounds())) }.value
            #expect(outcome.failure == nil, "\(name): \(String(describing: outcome.failure))")
            #expect(outcome.entries.count == count, "\(name)")
            #expect(outcome.entries.allSatisfy { (try? $0.1.get()) != nil }, "\(name)")
        }
    }

    @Test("an entry over the per-entry limit is refused by name and limit before anything is inflated; the others still read")
    func entryLimit() throws {
        let archive = try ZipArchive(path: ZipFixtures.path("large"), limits: ZipBounds(maximumEntryBytes: 16 << 20))
        var walk = archive.entries()
        let small = try #require(try walk.next())
        _ = try archive.read(small)
        let before = archive.inflatedBytes
        let large = try #require(try walk.next())
        #expect(large.uncompressedSize > 50_000_000)
        let error = #expect(throws: ZipError.self) { try archive.read(large) }
        #expect(error == .entryTooLarge(entry: "large.json", size: large.uncompressedSize, limit: 16 << 20))
        #expect(error?.concernsOneEntry == true)
        #expect(archive.inflatedBytes == before)
        #expect(try archive.read(small).count == Int(small.uncompressedSize))
    }

    @Test("a zip bomb (100 MB of zeros) is refused by its compression ratio; the entries around it read")
    func bomb() throws {
        let outcome = ZipFixtures.readAll("bomb", limits: ZipBounds(maximumEntryBytes: 256 << 20))
        #expect(outcome.failure == nil)
        let results = outcome.entries.map(\.1)
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect((try? results[2].get()) != nil)
        guard case let .failure(.compressionRatio(entry, compressed, uncompressed, limit)) = results[1] else {
            Issue.record("the bomb was not refused by its ratio: \((try? results[1].get()).map { "\($0.count) bytes read" } ?? "\(results[1])")")
            return
        }
        #expect(entry == "zeros.json" && uncompressed == 100_000_000 && compressed < 100_000 && limit == 1000)
        // Below the ratio-free size, a file of zeros is read however well it compresses.
        let mixed = ZipFixtures.readAll("mixed", limits: ZipBounds())
        #expect(mixed.entries.allSatisfy { (try? $0.1.get()) != nil })
    }

    @Test("what an archive's entries inflate to in all is bounded")
    func totalLimit() throws {
        let archive = try ZipArchive(path: ZipFixtures.path("normal"), limits: ZipBounds(maximumTotalBytes: 5000))
        var walk = archive.entries()
        var read = 0
        var refusal: ZipError?
        while let entry = try walk.next() {
            do throws(ZipError) {
                _ = try archive.read(entry)
                read += 1
            } catch {
                refusal = error
                break
            }
        }
        #expect(read >= 3 && read < 20)
        #expect(refusal == .archiveTooLarge(limit: 5000))
        #expect(archive.inflatedBytes <= 5000)
    }

    @Test("names that are not plain relative paths are reported, and shown escaped")
    func unsafeNames() throws {
        let outcome = ZipFixtures.readAll("evil", limits: ZipBounds())
        #expect(outcome.failure == nil)
        let found = outcome.entries.map { ($0.0.displayName, $0.0.nameProblem) }
        let expected: [(String, ZipEntry.NameProblem?)] = [
            ("../evil.json", .parentComponent), ("/etc/evil.json", .absolute), ("dir\\\\evil.json", .backslash),
            ("a/../../evil.json", .parentComponent), ("C:evil.json", .absolute), ("esc-\\x1b[31m-\\u{202E}.json", nil),
            ("NUL\\x00evil.json", .nul), ("BYTE\\xffevil.json", nil), ("fine/../../../is-not.json", .parentComponent), ("fine.json", nil),
        ]
        #expect(found.count == expected.count)
        for ((shown, problem), (expectedShown, expectedProblem)) in zip(found, expected) {
            #expect(shown == expectedShown)
            #expect(problem == expectedProblem, "\(shown)")
        }
        // The raw bytes are kept as they are.
        #expect(outcome.entries[7].0.name == Array("BYTE".utf8) + [0xFF] + Array("evil.json".utf8))
        // Reported, not refused: the caller decides.
        #expect(outcome.entries.allSatisfy { (try? $0.1.get()) != nil })
    }

    @Test("cut, random and empty files are each a clear error, never a trap", arguments: [
        ("cut-0", "notZip"), ("cut-3", "notZip"), ("cut-100", "truncated"), ("random", "notZip"), ("random-pk", "truncated"),
    ])
    func notArchives(name: String, kind: String) throws {
        #expect(ZipFixtures.readAll(name, limits: ZipBounds()).failure?.kind == kind)
    }

    @Test("an archive cut anywhere in its last part says it was cut")
    func cutArchives() throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: ZipFixtures.path("normal"))[.size] as? Int)
        for cut in [size / 2, size - 23, size - 22, size - 10, size - 1] {
            let failure = ZipFixtures.readAll("cut-\(cut)", limits: ZipBounds()).failure
            #expect(failure?.kind == "truncated", "cut at \(cut) of \(size): \(String(describing: failure))")
        }
    }

    @Test("an empty archive has no entries")
    func emptyArchive() throws {
        let archive = try ZipArchive(path: ZipFixtures.path("empty"))
        #expect(archive.entryCount == 0)
        var walk = archive.entries()
        #expect(try walk.next() == nil)
    }

    @Test("patched archives: each defect is named, for the entry or for the archive", arguments: [
        ("encrypted", [1], "encrypted"), ("bad-crc", [0], "badCRC"), ("no-local-header", [1], "badLocalHeader"),
        ("bad-deflate", [1], "corruptData"), ("local-name-differs", [2], "badLocalHeader"), ("unsupported", [1, 2], "unsupportedMethod"),
    ])
    func entryDefects(name: String, indexes: [Int], kind: String) throws {
        let outcome = ZipFixtures.readAll(name, limits: ZipBounds())
        #expect(outcome.failure == nil)
        for (entry, result) in outcome.entries {
            if indexes.contains(entry.index) {
                guard case let .failure(error) = result else {
                    Issue.record("\(name): entry \(entry.index) was read")
                    continue
                }
                #expect(error.kind == kind, "\(error)")
                #expect(error.concernsOneEntry)
            } else {
                #expect((try? result.get()) != nil, "\(name): entry \(entry.index) refused")
            }
        }
    }

    @Test("patched central directories: the archive is refused, naming the defect", arguments: [
        ("overlapping", "overlapping"), ("out-of-order", "overlapping"), ("directory-too-large", "directoryOutOfBounds"),
        ("offset-past-directory", "offsetOutOfBounds"), ("too-many-entries", "badEndRecord"),
    ])
    func archiveDefects(name: String, kind: String) throws {
        let failure = ZipFixtures.readAll(name, limits: ZipBounds()).failure
        #expect(failure?.kind == kind, "\(String(describing: failure))")
        #expect(failure?.concernsOneEntry == false)
    }

    @Test("the bounds on entries and names hold before anything is read")
    func directoryBounds() throws {
        #expect(throws: ZipError.tooManyEntries(70000, limit: 10000)) {
            try ZipArchive(path: ZipFixtures.path("many"), limits: ZipBounds(maximumEntries: 10000))
        }
        let archive = try ZipArchive(path: ZipFixtures.path("normal"), limits: ZipBounds(maximumNameBytes: 8))
        var walk = archive.entries()
        #expect(throws: ZipError.badDirectoryRecord(index: 0, "a name of 17 bytes, more than the 8 allowed")) { try walk.next() }
    }

    @Test("errors read as sentences")
    func descriptions() {
        #expect(ZipError.notZip.description == "not a zip archive (no end of central directory record)")
        #expect(
            ZipError.compressionRatio(entry: "zeros.json", compressed: 97000, uncompressed: 100_000_000, limit: 1000).description
                == "entry 'zeros.json' inflates 97000 bytes to 100000000, more than 1000 times: a zip bomb"
        )
        #expect(
            ZipError.badCRC(entry: "one.json", expected: 0x1234, actual: 0xABCDEF01).description
                == "entry 'one.json' has CRC-32 0xabcdef01, not the 0x00001234 its directory record declares"
        )
    }
}

extension ZipError {
    /// The case's name, for tables of expected errors.
    var kind: String {
        switch self {
        case .notZip: "notZip"
        case .notRegularFile: "notRegularFile"
        case .multipleDisks: "multipleDisks"
        default: Mirror(reflecting: self).children.first?.label ?? "\(self)"
        }
    }
}
