@preconcurrency import Glibc
import ArgumentParser
import SSVCArchive
import SSVCCore
import SSVCPosix

/// Reading an OSV export as the daemon would: every `.json` entry of a zip
/// archive inflated once, or, given a package and version, every record
/// read and evaluated as the daemon reads a mirror; with the time taken
/// and the process's peak RSS.
struct Archive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk a zip archive and inflate every .json entry, or evaluate its OSV records; print the time and peak RSS.",
        discussion: """
            Tests/Fixtures/osv_export.py makes a synthetic OSV export to measure (--package adds records \
            of one package), Tests/Fixtures/osv_filter.py does the same filtering with zipfile and json.
            """
    )

    @Argument(help: "The zip archive (an OSV export such as PyPI/all.zip).") var path: String
    @Option(help: "The most bytes one entry may inflate to (without --package).") var maximumEntryBytes = 16 << 20
    @Option(help: "With --package and --version: the ecosystem whose records are evaluated (PyPI, npm, Go, Debian:12, ...).") var ecosystem: String?
    @Option(help: "The package evaluated.") var package: String?
    @Option(name: .customLong("version"), help: "The version evaluated.") var versionKey: String?
    @Option(help: "With --package: Tests/Fixtures/osv_filter.py, run on the same file after the pass, its time set beside ssvc's.")
    var python: String?

    func validate() throws {
        let given = [ecosystem, package, versionKey].compactMap { $0 }.count
        guard given == 0 || given == 3 else { throw ValidationError("give all of --ecosystem, --package and --version, or none") }
    }

    func run() throws {
        if let ecosystem, let package, let versionKey { return try evaluate(ecosystem: ecosystem, package: package, version: versionKey) }
        let before = Self.peakRSSKiB()
        let started = MonotonicClock.seconds()
        var entries = 0
        var read = 0
        var inflated = 0
        var refused: [String] = []
        do {
            let archive = try ZipArchive(path: path, limits: ZipBounds(maximumEntryBytes: maximumEntryBytes, maximumTotalBytes: Int.max))
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

    /// `AdvisoryFiles.read` into an `AdvisoryEvaluator` with the daemon's
    /// default limits (`advisories-max-bytes`), as ssvcd reads a mirror.
    private func evaluate(ecosystem: String, package: String, version: String) throws {
        var evaluator: AdvisoryEvaluator
        do {
            evaluator = try AdvisoryEvaluator(ecosystem: ecosystem, package: package, version: version)
        } catch {
            throw ValidationError("--version: \(error)")
        }
        let before = Self.peakRSSKiB()
        let started = MonotonicClock.seconds()
        do {
            try AdvisoryFiles.read(path: path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: AdvisorySettings.defaultMaxBytes))
        } catch {
            throw ValidationError("ssvc-bench: \(path): \(error)")
        }
        let seconds = MonotonicClock.seconds() - started
        let affecting = evaluator.findings.count + evaluator.omittedFindings
        let fixed = evaluator.findings.filter { $0.fixed != nil }.count
        let parsed = evaluator.recordsRead - evaluator.passedOver
        print(
            "advisories: \(evaluator.recordsRead) records read (\(parsed) parsed, the rest unable to name the package), "
                + "\(affecting) affecting \(package) \(version) in \(ecosystem) (\(fixed) with a fix; "
                + "\(evaluator.problemCount) unreadable, \(evaluator.unevaluatedRanges) ranges not evaluated) in \(String(format2: seconds)) s; "
                + "peak RSS \(String(mebibytes: before)) MiB before, \(String(mebibytes: Self.peakRSSKiB())) MiB after "
                + "[\(Machine.summary); debug or release as built, AdvisoryFiles.read into an AdvisoryEvaluator with advisories-max-bytes' default, "
                + "getrusage ru_maxrss]"
        )
        for problem in evaluator.problems { print("  skipped: \(problem)") }
        if let python { try compare(seconds: seconds, affecting: affecting, script: python, ecosystem: ecosystem, package: package, version: version) }
    }

    /// The script's run on the same file, and how many times its time ssvc's pass is.
    private func compare(seconds: Double, affecting: Int, script: String, ecosystem: String, package: String, version: String) throws {
        let run: ChildProcess.Run
        do {
            run = try ChildProcess.run(
                ["/usr/bin/python3", script, path, "--ecosystem", ecosystem, "--package", package, "--version", version],
                timeout: 600, outputLimit: 1 << 20, errors: true
            )
        } catch {
            throw ValidationError("ssvc-bench: \(script): \(error)")
        }
        let text = String(decoding: run.output, as: UTF8.self)
        print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
        // "... in 2.02 s; ..." and "N affecting": the script's own words.
        guard run.termination == .exited(0), let match = text.firstMatch(of: #/ in ([0-9.]+) s;/#), let theirs = Double(match.1) else {
            throw ValidationError("ssvc-bench: \(script) said no time: \(text)")
        }
        let agree = text.contains(" \(affecting) affecting ")
        print(
            "export pass: ssvc \(String(format2: seconds)) s, Python's zipfile + json \(String(format2: theirs)) s: "
                + "\(String(format1: theirs / max(seconds, 0.001)))× its speed; findings \(agree ? "the same" : "DIFFER") (\(affecting))"
        )
    }

    /// The process's peak resident set so far, in KiB.
    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
