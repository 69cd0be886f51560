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

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
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
    /// not exist. Names that are not UTF-8 are left out (`listing` has them).
    public static func names(in directory: String) throws(Failure) -> [String]? {
        try listing(in: directory)?.names
    }

    /// The entries of `directory` (without `.` and `..`), and apart from
    /// them the names that are not UTF-8, written with their bytes escaped
    /// (`bad\xff.toml`): such a name cannot be given back to `open` as a
    /// Swift string, so it is only ever shown. Nil when it does not exist.
    public static func listing(in directory: String) throws(Failure) -> (names: [String], undecodable: [String])? {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return nil }
            throw Failure(description: "cannot read \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var names: [String] = []
        var undecodable: [String] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                undecodable.append(bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined())
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return (names, undecodable)
    }

    /// Replaces `path` whole with `bytes`: written to a temporary beside it
    /// and renamed over it, so that a reader sees the old file or the new,
    /// never a part. `mode` is set with fchmod, whatever the umask. With
    /// `durable`, the data and then the folder are fsynced (a crash leaves
    /// one or the other); without, it is for files in /run.
    ///
    /// Nothing that exists is ever opened: the temporary has an
    /// unpredictable name and is created with `O_EXCL | O_NOFOLLOW` in the
    /// folder opened once, so a link another user planted is never
    /// followed. A folder every user may write to is refused unless it is
    /// sticky (as /tmp is), where nobody can rename or remove our files.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t, durable: Bool) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let folderPath = folder(of: path)
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let folder = open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure("cannot open the folder \(folderPath)") }
        defer { close(folder) }
        var info = stat()
        guard fstat(folder, &info) == 0 else { throw failure("cannot read the folder \(folderPath)") }
        if let problem = sharedFolderProblem(info, folderPath) { throw Failure(description: "not writing \(path): \(problem)") }
        let temporary = "\(name).tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("cannot create \(folderPath)/\(temporary)") }
        let complete = writeAll(descriptor, bytes) == bytes.count
        guard complete, fchmod(descriptor, mode) == 0, !durable || fsync(descriptor) == 0 else {
            let error = failure("cannot write \(folderPath)/\(temporary)")
            close(descriptor)
            unlinkat(folder, temporary, 0)
            throw error
        }
        close(descriptor)
        guard renameat(folder, temporary, folder, name) == 0 else {
            let error = failure("cannot replace \(path)")
            unlinkat(folder, temporary, 0)
            throw error
        }
        if durable { fsync(folder) }
    }

    /// Writes all of `bytes` to `descriptor`, again after a signal;
    /// returns how many were written, fewer when a write failed (errno
    /// says why).
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
        var written = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                written += count
            }
        }
        return written
    }

    /// Why files may not be replaced in the folder `path`: it is writable
    /// by every user and not sticky, so anyone could rename our file away
    /// or put theirs in its place. Nil when it is safe, or does not exist
    /// (it is made with a safe mode then). `ssvcd --check-config` and the
    /// start apply it to the state folder, `replace` to every folder.
    public static func folderProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT ? nil : "cannot read \(path): \(String(cString: strerror(errno)))" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "\(path) is not a folder" }
        return sharedFolderProblem(info, path)
    }

    private static func sharedFolderProblem(_ info: stat, _ path: String) -> String? {
        guard info.st_mode & S_IWOTH != 0 && info.st_mode & S_ISVTX == 0 else { return nil }
        return "its folder \(path) is writable by every user and not sticky (mode 0\(String(info.st_mode & 0o7777, radix: 8)))"
    }

    /// Whether `a` and `b` name one file: the same device and inode when
    /// both exist; otherwise the same name in the same folder, the folders
    /// compared the same way (`./x/f` and `x/f`, or a folder reached through
    /// a symbolic link).
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var (x, y) = (stat(), stat())
        if stat(a, &x) == 0, stat(b, &y) == 0 { return x.st_dev == y.st_dev && x.st_ino == y.st_ino }
        let name = { (path: String) in path.split(separator: "/").last.map(String.init) ?? "" }
        guard !name(a).isEmpty, name(a) == name(b) else { return false }
        let (left, right) = (folder(of: a), folder(of: b))
        if stat(left, &x) == 0, stat(right, &y) == 0 { return x.st_dev == y.st_dev && x.st_ino == y.st_ino }
        return left == right
    }

    /// The folder `path` is in: `/run/ssvc` of `/run/ssvc/ssvc.prom`, `/`
    /// of `/x`, `.` of a bare name.
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// "what failed: the system's reason", from errno.
    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
