import SSVCCore
import SSVCPosix

/// One configuration file, read once and parsed in this process.
///
/// The bytes are read bounded (a regular file of at most 1 MiB) and handed
/// to `TOMLParser` (SSVCCore), which refuses what is not UTF-8 or holds a
/// control character, never recurses, and nests tables and arrays at most
/// 100 deep: no file's content can crash or hold up the daemon, and an error
/// names the file, the line and the column.
struct ConfigurationDocument {
    /// The largest configuration file, main or app.
    static let maximumFileBytes = 1 << 20

    let file: String
    let bytes: [UInt8]

    /// Reads `file`, or says why it cannot be read.
    static func read(_ file: String, from files: some ConfigurationFiles = ConfigurationDisk()) throws(ConfigurationError) -> ConfigurationDocument {
        do {
            return ConfigurationDocument(file: file, bytes: try files.bytes(of: file, limit: maximumFileBytes, missingIsNil: false) ?? [])
        } catch {
            throw ConfigurationError(file: file, problem: error.description)
        }
    }

    /// Reads `file` as `read` does; nil when it no longer exists: an app
    /// file removed between the directory's listing and its read (a
    /// package upgrade) is one that was not listed (issue 52).
    static func readIfPresent(_ file: String, from files: some ConfigurationFiles = ConfigurationDisk()) throws(ConfigurationError) -> ConfigurationDocument? {
        do {
            return try files.bytes(of: file, limit: maximumFileBytes, missingIsNil: true).map { ConfigurationDocument(file: file, bytes: $0) }
        } catch {
            throw ConfigurationError(file: file, problem: error.description)
        }
    }

    /// The file's text, for finding a key's line in it once it has parsed.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The file's root table, or the parser's error at its line and column.
    func table() throws(ConfigurationError) -> ConfigTable {
        do {
            return try TOMLParser().parse(bytes)
        } catch {
            throw ConfigurationError(file: file, problem: error.message, line: error.line, column: error.column)
        }
    }
}

extension ConfigurationLoader {
    /// The hidden `ssvcd --print-toml FILE` mode, for the tests that compare
    /// the loader with Python's tomllib: the file read as a start reads it,
    /// printed in toml-test's JSON form; or the error, exit 78.
    package static func printTOML(_ file: String) -> Int32 {
        do {
            print(try ConfigurationDocument.read(file).table().taggedJSON)
            return 0
        } catch {
            StandardError.writeEscapedLine("ssvcd: \(error)")
            return DaemonMain.configurationErrorExit
        }
    }
}
