@preconcurrency import Glibc
import SSVCArchive
import SSVCCore
import SSVCPosix

/// The `zip` target: the input as a zip archive, opened from a file (the
/// reader takes a descriptor), walked, and every entry read, under limits
/// small enough for a run: 1 MiB an entry, 8 MiB an archive.
enum ZipFuzzing {
    static let limits = ZipBounds(maximumEntries: 100_000, maximumNameBytes: 1024, maximumEntryBytes: 1 << 20, maximumTotalBytes: 8 << 20)

    /// One unlinked file under `TMPDIR`, rewritten for each input.
    static let descriptor: CInt = {
        let base = ProcessEnvironment.variables()["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/ssvc-fuzz-zip.XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            StandardError.writeLine("ssvc-fuzz: cannot make a file under \(base)")
            exit(1)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }()

    static func run(_ bytes: [UInt8]) {
        guard ftruncate(descriptor, 0) == 0 else { fatalError("ftruncate failed") }
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        precondition(written == bytes.count, "the input was not written whole")
        guard let archive = try? ZipArchive(fileDescriptor: descriptor, limits: limits) else { return }
        precondition(archive.entryCount <= limits.maximumEntries)
        var walk = archive.entries()
        while let entry = try? walk.next() {
            precondition(entry.name.count <= limits.maximumNameBytes)
            // What is shown of a name carries no control character.
            precondition(!entry.displayName.unicodeScalars.contains(where: DisplayText.isControl), "a name shown unescaped")
            guard let data = try? archive.read(entry) else { continue }
            precondition(UInt64(data.count) == entry.uncompressedSize, "an entry read at a size other than declared")
            precondition(data.count <= limits.maximumEntryBytes)
        }
        precondition(archive.inflatedBytes <= UInt64(limits.maximumTotalBytes))
    }
}
