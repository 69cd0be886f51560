@preconcurrency import Glibc

/// The few file-system operations ssvc needs, without Foundation.
public enum FileSystem {
    /// Why an operation failed: what was attempted and the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// `mkdir -p`: every missing folder of `path` is created with `mode`.
    public static func makeDirectories(_ path: String, mode: mode_t) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw Failure(description: "cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The entries of `directory` (without `.` and `..`); nil when it does
    /// not exist.
    public static func names(in directory: String) throws(Failure) -> [String]? {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return nil }
            throw Failure(description: "cannot read \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
