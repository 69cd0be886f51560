@preconcurrency import Glibc
import SSVCCore
import SSVCPosix

/// OSV records from local files, fed one at a time to an evaluator so
/// that a source of any size is read in bounded memory: an export zip
/// (`PyPI/all.zip`), a folder of `.json` records, or one `.json` file
/// holding a record, an array of records or an API answer (`{"vulns": …}`).
/// The daemon reads its mirrors and `ssvcctl evaluate --advisories` its
/// file through this one reader.
public enum AdvisoryFiles {
    public struct Budget: Sendable {
        /// The most bytes of one source (`advisories-max-bytes`): an export's
        /// records may inflate to `inflationFactor` times it, a folder's add up to it.
        public var totalBytes: Int
        /// The most bytes of one record: a larger one is skipped and named.
        public var recordBytes: Int
        /// The most files of a folder, or entries of an export, read.
        public var maximumRecords: Int
        /// The most bytes of one file that is neither an export nor a folder (an API answer).
        public var documentBytes: Int
        /// Whether a FIFO or a device may be read as one file (`ssvcctl
        /// evaluate --advisories <(curl …)`); never for the daemon, which must not wait on one.
        public var specialFiles: Bool
        /// When to give up (`MonotonicClock.seconds()`): checked between
        /// records and between a record's ranges, so that a read whose
        /// caller stopped waiting ends too.
        public var deadline: Double?
        /// Whether the caller stopped waiting for another reason (the
        /// daemon stops): asked where the deadline is, and as often.
        public var abandoned: (@Sendable () -> Bool)?

        public init(
            totalBytes: Int, recordBytes: Int = 8 << 20, maximumRecords: Int = 2_000_000, documentBytes: Int = 16 << 20,
            specialFiles: Bool = false, deadline: Double? = nil
        ) {
            self.deadline = deadline
            self.totalBytes = totalBytes
            self.recordBytes = recordBytes
            self.maximumRecords = maximumRecords
            self.documentBytes = documentBytes
            self.specialFiles = specialFiles
        }
    }

    /// How many times `advisories-max-bytes` an export's records may
    /// inflate to in all: JSON deflates about 8 to 1, and each entry is
    /// also held to the zip reader's ratio bound against bombs.
    public static let inflationFactor = 16

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// The read passed its deadline: the caller names the limit that applied.
        public var timedOut = false
    }

    /// Reads every record at `path` into `evaluator`. A record that cannot
    /// be read is skipped and named in the evaluator; a source that cannot
    /// be read at all (not a zip, cut short, over its bounds) throws.
    public static func read(path: String, into evaluator: inout AdvisoryEvaluator, limits: Budget) throws(Failure) {
        try read(path: path, into: &evaluator, limits: limits, helpers: InflateCrew.helpersHere)
    }

    /// `read` for several evaluators in one pass (apps that share a
    /// mirror, issue 55): each record is inflated and parsed once, and
    /// evaluated by each evaluator whose package its text may name; each
    /// ends as it would have read the source alone. Returns how many
    /// records were parsed (the others were passed over by every evaluator).
    @discardableResult
    public static func read(path: String, into evaluators: inout [AdvisoryEvaluator], limits: Budget) throws(Failure) -> Int {
        try read(path: path, into: &evaluators, limits: limits, helpers: InflateCrew.helpersHere)
    }

    /// `read`, an export's entries inflated by `helpers` threads beside the caller's.
    static func read(path: String, into evaluator: inout AdvisoryEvaluator, limits: Budget, helpers: Int) throws(Failure) {
        var evaluators = [evaluator]
        defer { evaluator = evaluators[0] }
        _ = try read(path: path, into: &evaluators, limits: limits, helpers: helpers)
    }

    @discardableResult
    static func read(path: String, into evaluators: inout [AdvisoryEvaluator], limits: Budget, helpers: Int) throws(Failure) -> Int {
        // A read that waited its turn past its deadline begins nothing.
        try checkDeadline(limits)
        // Within a record too, between its ranges.
        if limits.deadline != nil || limits.abandoned != nil {
            let deadline = limits.deadline ?? .infinity
            let abandoned = limits.abandoned
            for index in evaluators.indices { evaluators[index].expired = { MonotonicClock.seconds() > deadline || abandoned?() == true } }
        }
        defer { for index in evaluators.indices { evaluators[index].expired = nil } }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Failure(description: "cannot read \(DisplayText.escaped(path)): \(String(cString: strerror(errno)))")
        }
        var parsed = 0
        if info.st_mode & S_IFMT == S_IFDIR {
            try readFolder(path, into: &evaluators, limits: limits, parsed: &parsed)
        } else if path.lowercased().hasSuffix(".zip") || isZip(path) {
            try readZip(path, into: &evaluators, limits: limits, helpers: helpers, parsed: &parsed)
        } else if info.st_mode & S_IFMT != S_IFREG, !limits.specialFiles {
            // One regular file is one document (a record, an array, an API
            // answer), for the daemon as for ssvcctl evaluate (issue 51);
            // a FIFO or a device only for the latter, which may wait on it.
            throw Failure(description: "\(DisplayText.escaped(path)) is neither a folder of records, an export .zip nor a file of records")
        } else {
            let bytes: [UInt8]
            do {
                bytes = try BoundedReader.read(path: path, limit: min(limits.documentBytes, limits.totalBytes), specialFiles: limits.specialFiles)
            } catch {
                throw Failure(description: error.description)
            }
            parsed = try readDocument(bytes, name: path.split(separator: "/").last.map(String.init) ?? path, into: &evaluators)
        }
        return parsed
    }

    /// A local mirror's validator: its device, inode, size and modification
    /// time, so that an unchanged file is not read again; nil when it cannot be had.
    public static func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Whether a regular file begins as a zip archive does (a local file
    /// header, or an empty archive's end record); opened without waiting.
    private static func isZip(_ path: String) -> Bool {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return false }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: 4)
        guard pread(file, &head, 4, 0) == 4 else { return false }
        return head[0] == 0x50 && head[1] == 0x4B && (head[2] == 3 || head[2] == 5)
    }

    /// Throws once the read's deadline has passed.
    private static func checkDeadline(_ limits: Budget) throws(Failure) {
        if let deadline = limits.deadline, MonotonicClock.seconds() > deadline { throw late }
        if limits.abandoned?() == true { throw late }
    }

    /// Throws when an evaluator saw the deadline pass within a record.
    private static func checkDeadline(_ evaluators: [AdvisoryEvaluator]) throws(Failure) {
        if evaluators.contains(where: \.ranOutOfTime) { throw late }
    }

    private static let late = Failure(description: "the read took too long and was given up", timedOut: true)

    private static func readZip(_ path: String, into evaluators: inout [AdvisoryEvaluator], limits: Budget, helpers: Int, parsed: inout Int) throws(Failure) {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(
                path: path,
                limits: ZipBounds(
                    maximumEntries: limits.maximumRecords, maximumEntryBytes: limits.recordBytes,
                    maximumTotalBytes: limits.totalBytes.multipliedReportingOverflow(by: inflationFactor).overflow
                        ? Int.max : limits.totalBytes * inflationFactor
                )
            )
        } catch {
            throw Failure(description: error.description)
        }
        // Entries are checked and read here in order, inflated a batch at
        // a time on every core, then evaluated here in order.
        let crew = InflateCrew(helpers: helpers)
        defer { crew.stop() }
        var batch: [(name: String, loaded: ZipLoadedEntry)] = []
        var batchBytes: UInt64 = 0
        let sieves = evaluators.map(\.sieve)
        func evaluateBatch() throws(Failure) {
            // Inflated, and sieved for each evaluator, on every core; each slot written by one thread.
            let loaded = batch.map(\.loaded)
            var slots = [(contents: Result<[UInt8], ZipError>, mayName: [Bool])?](repeating: nil, count: loaded.count)
            slots.withUnsafeMutableBufferPointer { slots in
                crew.perform(loaded.count) { index in
                    let contents = Result { () throws(ZipError) in try loaded[index].contents() }
                    let mayName = (try? contents.get()).map { bytes in sieves.map { $0.mayName(bytes) } } ?? []
                    slots[index] = (contents, mayName)
                }
            }
            for ((name, _), slot) in Swift.zip(batch, slots) {
                guard let (result, mayName) = slot else { continue }
                switch result {
                case let .success(bytes):
                    if take(bytes, name: name, mayName: mayName, into: &evaluators) { parsed += 1 }
                case let .failure(error):
                    guard error.concernsOneEntry else { throw Failure(description: error.description) }
                    skip(name, problem: error.description, in: &evaluators)
                }
                try checkDeadline(evaluators)
            }
            batch = []
            batchBytes = 0
        }
        var entries = archive.entries()
        while true {
            let entry: ZipEntry
            do {
                guard let next = try entries.next() else { break }
                entry = next
            } catch {
                throw Failure(description: error.description)
            }
            try checkDeadline(limits)
            guard !entry.isDirectory, entry.name.count > 5,
                  Array(entry.name.suffix(5)).map({ $0 | 0x20 }) == Array(".json".utf8) else { continue }
            if let problem = entry.nameProblem {
                try evaluateBatch()
                skip(entry.textName, problem: "unsafe name (\(problem.rawValue))", in: &evaluators)
                continue
            }
            do {
                batch.append((entry.textName, try archive.load(entry)))
                batchBytes += entry.uncompressedSize
            } catch {
                guard error.concernsOneEntry else { throw Failure(description: error.description) }
                try evaluateBatch()
                skip(entry.textName, problem: error.description, in: &evaluators)
                continue
            }
            if batchBytes >= batchBytesBound || batch.count >= batchEntriesBound { try evaluateBatch() }
        }
        try evaluateBatch()
    }

    /// A batch ends at this many declared bytes or entries: the memory a
    /// pass holds beyond one entry's.
    static let batchBytesBound: UInt64 = 1 << 20
    static let batchEntriesBound = 256

    private static func readFolder(_ path: String, into evaluators: inout [AdvisoryEvaluator], limits: Budget, parsed: inout Int) throws(Failure) {
        let names: [String]
        do {
            guard let listed = try FileSystem.names(in: path) else {
                throw Failure(description: "\(DisplayText.escaped(path)) is not a folder")
            }
            names = listed
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(description: "cannot list \(DisplayText.escaped(path)): \(error)")
        }
        let records = names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        guard records.count <= limits.maximumRecords else {
            throw Failure(description: "\(DisplayText.escaped(path)) holds \(records.count) records, more than the \(limits.maximumRecords) read")
        }
        var total = 0
        for name in records {
            try checkDeadline(limits)
            let bytes: [UInt8]
            do {
                bytes = try BoundedReader.read(path: path + "/" + name, limit: limits.recordBytes)
            } catch {
                skip(name, problem: error.description, in: &evaluators)
                continue
            }
            total += bytes.count
            guard total <= limits.totalBytes else {
                throw Failure(description: "the records of \(DisplayText.escaped(path)) add up to more than \(limits.totalBytes) bytes")
            }
            if take(bytes, name: name, into: &evaluators) { parsed += 1 }
            try checkDeadline(evaluators)
        }
    }

    /// A record that could not be read at all, named to every evaluator.
    private static func skip(_ name: String, problem: String, in evaluators: inout [AdvisoryEvaluator]) {
        for index in evaluators.indices { evaluators[index].skip(name, problem: problem) }
    }

    /// One record's text: passed over by each evaluator whose package it
    /// cannot name; parsed once for the others, and added, or skipped and
    /// named (as one of the package's when its tree names it).
    /// `mayName`: the sieves' answers, one per evaluator, when they were
    /// asked on another thread. Returns whether the text was parsed.
    private static func take(_ bytes: [UInt8], name: String, mayName: [Bool] = [], into evaluators: inout [AdvisoryEvaluator]) -> Bool {
        let wanting = evaluators.indices.map { index in
            evaluators[index].mayConcern(bytes, mayName: index < mayName.count ? mayName[index] : nil)
        }
        for index in evaluators.indices where !wanting[index] { evaluators[index].passOver() }
        guard wanting.contains(true) else { return false }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, memoryLimit: OSVRecord.maximumTreeBytes)
        } catch {
            let problem = DocumentError(path: "", problem: error.description).description
            for index in evaluators.indices where wanting[index] { evaluators[index].skip(name, problem: problem) }
            return true
        }
        let record = Result { () throws(DocumentError) in try OSVRecord(JSONField(root: root)) }
        for index in evaluators.indices where wanting[index] {
            switch record {
            case let .success(record): evaluators[index].add(record)
            case let .failure(error): evaluators[index].skip(name, problem: error.description, record: root)
            }
        }
        return true
    }

    /// One file: a record, an array of records, or an API answer. Its
    /// records are kept as parsed and read one at a time. Returns how many records it holds.
    static func readDocument(_ bytes: [UInt8], name: String, into evaluators: inout [AdvisoryEvaluator]) throws(Failure) -> Int {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, memoryLimit: OSVRecord.maximumTreeBytes)
        } catch {
            throw Failure(description: "\(DisplayText.escaped(name)): \(error)")
        }
        // A list's records, each named by its position; else the one record.
        let found: (records: [JSONValue], path: String)?
        if case let .array(elements) = root {
            found = (elements, "")
        } else if let vulns = JSONField(root: root).member("vulns") {
            guard case let .array(elements) = vulns.value else { throw Failure(description: "\(DisplayText.escaped(name)): \(vulns.mismatch("an array"))") }
            found = (elements, "vulns")
        } else {
            found = nil
        }
        guard let list = found else {
            add(Result { () throws(DocumentError) in try OSVRecord(JSONField(root: root)) }, name: name, tree: root, to: &evaluators)
            try checkDeadline(evaluators)
            return 1
        }
        for (index, record) in list.records.enumerated() {
            let read = Result { () throws(DocumentError) in try OSVRecord(JSONField(value: record, path: "\(list.path)[\(index)]")) }
            add(read, name: list.records.count == 1 ? name : "\(name)[\(index)]", tree: record, to: &evaluators)
            try checkDeadline(evaluators)
        }
        return list.records.count
    }

    /// A record as read, added to every evaluator, or skipped by each.
    private static func add(_ read: Result<OSVRecord, DocumentError>, name: String, tree: JSONValue, to evaluators: inout [AdvisoryEvaluator]) {
        for index in evaluators.indices {
            switch read {
            case let .success(record): evaluators[index].add(record)
            case let .failure(error): evaluators[index].skip(name, problem: error.description, record: tree)
            }
        }
    }
}
