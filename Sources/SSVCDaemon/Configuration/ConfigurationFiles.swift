@preconcurrency import Glibc
import SSVCPosix

/// Where the loader finds its files: the file system (`ConfigurationDisk`,
/// what every start and reload reads), or a few files held in memory
/// (`ConfigurationMemory`, the fuzzer's, which loads thousands of
/// configurations a second without writing one).
package protocol ConfigurationFiles {
    /// The file's bytes, at most `limit`; nil when `missingIsNil` and the
    /// file does not exist (a dangling link is an error, not absence).
    func bytes(of file: String, limit: Int, missingIsNil: Bool) throws(ConfigurationFileFailure) -> [UInt8]?
    /// Whether anything is at `path`, following links.
    func exists(_ path: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    /// The names in `directory` (and those that are not UTF-8), or nil when it does not exist.
    func listing(in directory: String) throws(ConfigurationFileFailure) -> (names: [String], undecodable: [String])?
    /// Whether the two paths name one file.
    func sameFile(_ a: String, _ b: String) -> Bool
}

/// The file system, read bounded.
package struct ConfigurationDisk: ConfigurationFiles {
    package init() {}

    package func bytes(of file: String, limit: Int, missingIsNil: Bool) throws(ConfigurationFileFailure) -> [UInt8]? {
        do {
            return try BoundedReader.read(path: file, limit: limit)
        } catch {
            // Gone itself, not a link left dangling (that is the operator's
            // to mend). What is there now may be a file put back since the
            // open (a package's churn): absent when opened all the same.
            var info = stat()
            let gone = lstat(file, &info) != 0 ? errno == ENOENT : (info.st_mode & S_IFMT) != S_IFLNK
            if missingIsNil, error.code == ENOENT, gone { return nil }
            throw ConfigurationFileFailure(description: error.description)
        }
    }

    package func exists(_ path: String) -> Bool { FileSystem.exists(path) }
    package func isDirectory(_ path: String) -> Bool { FileSystem.isDirectory(path) }
    package func listing(in directory: String) throws(ConfigurationFileFailure) -> (names: [String], undecodable: [String])? {
        do {
            return try FileSystem.listing(in: directory)
        } catch {
            throw ConfigurationFileFailure(description: error.description)
        }
    }
    package func sameFile(_ a: String, _ b: String) -> Bool { FileSystem.sameFile(a, b) }
}

/// Files held in memory, by absolute path; a folder is any prefix of a
/// file's path, and `folders` names empty ones.
package struct ConfigurationMemory: ConfigurationFiles {
    package var files: [String: [UInt8]]
    package var folders: Set<String>

    package init(files: [String: [UInt8]], folders: Set<String> = []) {
        self.files = files
        self.folders = folders
    }

    package func bytes(of file: String, limit: Int, missingIsNil: Bool) throws(ConfigurationFileFailure) -> [UInt8]? {
        guard let bytes = files[file] else {
            if missingIsNil { return nil }
            throw ConfigurationFileFailure(description: "cannot open \(file): No such file or directory")
        }
        guard bytes.count <= limit else { throw ConfigurationFileFailure(description: "\(file) is larger than \(limit) bytes") }
        return bytes
    }

    package func exists(_ path: String) -> Bool { files[path] != nil || isDirectory(path) }

    package func isDirectory(_ path: String) -> Bool {
        folders.contains(path) || files.keys.contains { $0.hasPrefix(path + "/") }
    }

    package func listing(in directory: String) throws(ConfigurationFileFailure) -> (names: [String], undecodable: [String])? {
        guard isDirectory(directory) else { return nil }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let names = files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count).prefix { $0 != "/" }) }
        return (Array(Set(names)), [])
    }

    /// The same path once `.` and `..` are taken out: memory has no links.
    package func sameFile(_ a: String, _ b: String) -> Bool { Self.lexical(a) == Self.lexical(b) }

    static func lexical(_ path: String) -> [Substring] {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return parts
    }
}

/// Why a configuration file or folder cannot be read, as `FileSystem` says it.
package struct ConfigurationFileFailure: Error, CustomStringConvertible {
    package let description: String
}
