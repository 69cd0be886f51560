@preconcurrency import Glibc
import SSVCCore
import SSVCPosix
import TOMLKit

/// Configuration files read and parsed so that no file content can crash
/// the daemon.
///
/// TOMLKit's parser (toml++, C++) keeps its assertions in release builds
/// and recurses as deep as the input nests: a two-byte file (`[` and a line
/// feed) aborts the process, 100,000 nested `[` overflow its stack; and its
/// accessors leak what they allocate. So the bytes are parsed by a
/// short-lived child (`ssvcd --validate-toml`), on a 1 MiB stack, which
/// sends each tree back as JSON (`ConfigValue`). A file the child could not
/// get through is an error naming it and the line it stopped at. Without a
/// child (unit tests), the parse runs here on a 16 MiB stack.
struct TOMLDocuments {
    /// One file's bytes, read once: what the child parses is what the loader reads.
    struct Document {
        let file: String
        let text: String
    }

    /// The largest configuration file, main or app.
    static let maximumFileBytes = 1 << 20
    static let childStackBytes = 1 << 20
    static let parseStackBytes = 16 << 20
    /// How long the child may take for all the files of one load.
    static let childTimeout: Double = 10

    /// The `ssvcd` executable that checks files in a child; nil parses in
    /// this process only (unit tests, which feed no hostile files).
    let validator: String?

    /// Reads `file`: a regular file of at most 1 MiB of UTF-8 text without NUL.
    static func read(_ file: String) throws(ConfigurationError) -> Document {
        let bytes: [UInt8]
        do {
            bytes = try BoundedReader.read(path: file, limit: maximumFileBytes)
        } catch {
            throw ConfigurationError(file: file, problem: error.description)
        }
        if let nul = bytes.firstIndex(of: 0) {
            throw ConfigurationError(file: file, problem: "line \(line(of: nul, in: bytes)): a NUL byte; a configuration file is text")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: file, problem: "not UTF-8 text")
        }
        return Document(file: file, text: text)
    }

    /// The 1-based line of the byte at `offset`.
    static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].count { $0 == UInt8(ascii: "\n") } + 1
    }

    /// The tables of `documents`, in order, or the first file's error. With
    /// a validator, the child parses them and sends each back as toml-test's
    /// JSON, which becomes a `ConfigTable` here: this process never parses
    /// TOML, nor holds a TOMLKit value (they leak on every read).
    func parse(_ documents: [Document]) throws(ConfigurationError) -> [ConfigTable] {
        guard let validator else {
            var tables: [ConfigTable] = []
            for document in documents {
                let text = document.text
                let result = StackThread.run(stackSize: Self.parseStackBytes) { Self.parseHere(text) }
                switch result {
                case let .success(tagged):
                    guard case let .table(table)? = ConfigValue(tagged: tagged) else {
                        throw ConfigurationError(file: document.file, problem: "the TOML parser's reading could not be used")
                    }
                    tables.append(table)
                case let .failure(problem): throw ConfigurationError(file: document.file, problem: problem.description)
                }
            }
            return tables
        }
        let verdicts = try Self.check(documents.map { Array($0.text.utf8) }, validator: validator, files: documents.map(\.file))
        var tables: [ConfigTable] = []
        for (document, verdict) in zip(documents, verdicts) {
            switch verdict {
            case let .rejected(problem): throw ConfigurationError(file: document.file, problem: problem)
            case let .parsed(table): tables.append(table)
            }
        }
        return tables
    }

    /// A parse failure in words, with its place.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// One parse on the calling thread: the document in toml-test's JSON form.
    static func parseHere(_ text: String) -> Result<JSONValue, Problem> {
        do {
            return .success(tagged(try TOMLTable(string: text)))
        } catch let error as TOMLParseError {
            let message = String(error.description.prefix(300).map { $0.isNewline ? " " : $0 })
            return .failure(Problem(description: "\(message) (line \(error.source.begin.line), column \(error.source.begin.column))"))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
    }

    // MARK: The child

    enum Verdict: Equatable {
        case parsed(ConfigTable)
        case rejected(String)
    }

    /// Has `validator --validate-toml` parse each document; the verdicts in order.
    static func check(_ documents: [[UInt8]], validator: String, files: [String]) throws(ConfigurationError) -> [Verdict] {
        let (verdicts, ending) = try runChild(documents, validator: validator, file: files.first ?? "configuration")
        guard verdicts.count < documents.count else { return verdicts }
        // The child died on document `verdicts.count`: find the line it
        // could not get past, by halving the prefixes of lines it is given.
        let index = verdicts.count
        let bytes = documents[index]
        var lineEnds = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
        if lineEnds.last != bytes.count { lineEnds.append(bytes.count) }
        var (low, high) = (1, lineEnds.count)
        while low < high {
            let middle = (low + high) / 2
            let prefix = Array(bytes[..<lineEnds[middle - 1]])
            let (partial, _) = (try? runChild([prefix], validator: validator, file: files[index])) ?? ([], "")
            if partial.isEmpty { high = middle } else { low = middle + 1 }
        }
        return verdicts + [.rejected("line \(low): not valid TOML (the TOML parser \(ending) on this line)")]
    }

    /// One child over `documents`: the verdicts it gave before it ended,
    /// and how it ended when that was early ("crashed", "ran out of time").
    private static func runChild(_ documents: [[UInt8]], validator: String, file: String) throws(ConfigurationError) -> ([Verdict], String) {
        var input: [UInt8] = []
        for document in documents {
            withUnsafeBytes(of: UInt32(document.count).littleEndian) { input.append(contentsOf: $0) }
            input.append(contentsOf: document)
        }
        let run: ChildProcess.Run
        do {
            // The trees come back as JSON: a few times the files' size.
            run = try ChildProcess.run(
                [validator, "--validate-toml"], input: input, timeout: childTimeout, outputLimit: 8 * input.count + (1 << 20), ownGroup: true
            )
        } catch {
            throw ConfigurationError(file: file, problem: "cannot start \(validator) to check the file: \(error)")
        }
        let lines = run.output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        // `ok<TAB>tree` or `error<TAB>problem`; a line cut short (the child
        // died while writing it) counts as no answer.
        var verdicts: [Verdict] = []
        for line in lines {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")) else { break }
            let rest = Array(line[(tab + 1)...])
            if line[line.startIndex..<tab].elementsEqual("ok".utf8) {
                // The child read it; a tree the JSON reader refuses nests
                // deeper than it reads, which no configuration needs.
                guard let tree = try? JSONParser.parse(rest), case let .table(table)? = ConfigValue(tagged: tree) else {
                    verdicts.append(.rejected("tables nested deeper than \(JSONParser.maximumDepth - 1) levels"))
                    continue
                }
                verdicts.append(.parsed(table))
            } else {
                verdicts.append(.rejected(String(decoding: rest, as: UTF8.self)))
            }
        }
        let ending = run.timedOut ? "took longer than \(Int(childTimeout)) s" : "crashed, \(run.termination),"
        return (Array(verdicts.prefix(documents.count)), ending)
    }

    /// `ssvcd --validate-toml`: reads length-prefixed documents from
    /// standard input and writes, for each, `ok` or `error<TAB>problem` on
    /// a line of its own, written at once, so that the parent knows which
    /// document a crash was on. Returns the exit status.
    static func validateStandardInput() -> Int32 {
        // A crash here is expected on some files: no core dump for it.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        guard let input = try? BoundedReader.read(descriptor: STDIN_FILENO, name: "standard input", limit: 256 << 20) else { return 2 }
        var offset = 0
        while offset + 4 <= input.count {
            let length = input[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard length <= input.count - offset else { return 2 }
            let text = String(decoding: input[offset..<offset + length], as: UTF8.self)
            offset += length
            let result = StackThread.run(stackSize: childStackBytes) { parseHere(text) }
            var line: String
            switch result {
            // Canonical text has no raw line feed: one document, one line.
            case let .success(tree): line = "ok\t" + tree.canonicalText + "\n"
            case let .failure(problem): line = "error\t" + problem.description.filter { $0 != "\n" && $0 != "\t" } + "\n"
            }
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
        return 0
    }
}

extension TOMLDocuments {
    /// `value` in toml-test's JSON form (`{"type": "integer", "value": "42"}`
    /// for scalars, plain arrays and objects), so that what the loader read
    /// can be compared with another TOML parser's reading.
    static func tagged(_ value: any TOMLValueConvertible) -> JSONValue {
        func scalar(_ type: String, _ text: String) -> JSONValue {
            .object([("type", .string(type)), ("value", .string(text))])
        }
        switch value.type {
        case .table:
            return .object((value.table ?? TOMLTable()).map { ($0.0, tagged($0.1)) })
        case .array:
            return .array((value.array ?? TOMLArray()).map { tagged($0) })
        case .string: return scalar("string", value.string ?? "")
        case .int: return scalar("integer", String(value.int ?? 0))
        case .double: return scalar("float", "\(value.double ?? 0)")
        case .bool: return scalar("bool", value.bool == true ? "true" : "false")
        case .date: return scalar("date-local", value.debugDescription)
        case .time: return scalar("time-local", value.debugDescription)
        case .dateTime: return scalar("datetime", value.debugDescription)
        }
    }
}

extension ConfigurationLoader {
    /// The hidden `ssvcd --validate-toml` mode, for `TOMLDocuments`' child.
    public static func validateTOMLFromStandardInput() -> Int32 {
        TOMLDocuments.validateStandardInput()
    }

    /// The hidden `ssvcd --print-toml FILE` mode, for the tests that compare
    /// the loader with Python's tomllib: the file read as a start reads it
    /// (bounded, checked in a child first), printed in toml-test's JSON
    /// form; or the error, exit 78.
    public static func printTOML(_ file: String, validator: String) -> Int32 {
        do {
            let table = try TOMLDocuments(validator: validator).parse([TOMLDocuments.read(file)])[0]
            print(ConfigValue.table(table).tagged.canonicalText)
            return 0
        } catch {
            StandardError.writeEscapedLine("ssvcd: \(error)")
            return DaemonMain.configurationErrorExit
        }
    }
}
