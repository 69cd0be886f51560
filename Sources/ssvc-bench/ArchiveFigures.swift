@preconcurrency import Glibc
import ArgumentParser
import SSVCArchive
import SSVCPosix

/// Reading an OSV export as the daemon would: every `.json` entry of a zip
/// archive inflated once, with the time taken and the process's peak RSS.
struct Archive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk a zip archive and inflate every .json entry; print the time and peak RSS.",
        discussion: "Tests/Fixtures/osv_export.py makes a synthetic OSV export to measure."
    )

    @Argument(help: "The zip archive (an OSV export such as PyPI/all.zip).") var path: String
    @Option(help: "The most bytes one entry may inflate to.") var maximumEntryBytes = 16 << 20

    func run() throws {
        let before = Self.peakRSSKiB()
        let started = MonotonicClock.seconds()
        var entries = 0
        var read = 0
        var inflated = 0
        var refused: [String] = []
        do {
            let archive = try ZipArchive(path: path, limits: ZipLimits(maximumEntryBytes: maximumEntryBytes, maximumTotalBytes: Int.max))
            var walk = archive.entries()
            while let entry = try walk.next() {
                entries += 1
                guard entry.name.last == UInt8(ascii: "n"), entry.displayName.hasSuffix(".json") else { continue }
                do throws(ZipError) {
                    inflated += try archive.read(entry).count
                    read += 1
                } catch {
                    if refused.count < 5 { refused.append(error.description) }
                }
            }
            let seconds = MonotonicClock.seconds() - started
            let size = Double(archive.fileSize) / 1_048_576
            print(
                "archive: \(entries) entries, \(read) .json read, \(String(format1: size)) MiB → \(String(format1: Double(inflated) / 1_048_576)) MiB inflated "
                    + "in \(String(format2: seconds)) s; peak RSS \(String(mebibytes: before)) MiB before, \(String(mebibytes: Self.peakRSSKiB())) MiB after "
                    + "[\(Machine.summary); debug or release as built, getrusage ru_maxrss]"
            )
            for reason in refused { print("  refused: \(reason)") }
        } catch {
            throw ValidationError("ssvc-bench: \(path): \(error)")
        }
    }

    /// The process's peak resident set so far, in KiB.
    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
