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

    /// Replaces `path` whole with `bytes`: written to a temporary beside it
    /// and renamed over it, so that a reader sees the old file or the new,
    /// never a part. `mode` is set with fchmod, whatever the umask. With
    /// `durable`, the data and then the folder are fsynced (a crash leaves
    /// one or the other); without, it is for files in /run.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t, durable: Bool) throws(Failure) {
        let temporary = "\(path).tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        let complete = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                written += count
            }
            return true
        }
        guard complete, fchmod(descriptor, mode) == 0, !durable || fsync(descriptor) == 0 else {
            let error = failure("cannot write \(temporary)")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot replace \(path)")
            unlink(temporary)
            throw error
        }
        guard durable else { return }
        let slash = path.lastIndex(of: "/")
        let name = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let folder = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// "what failed: the system's reason", from errno.
    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
