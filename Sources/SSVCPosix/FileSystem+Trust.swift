@preconcurrency import Glibc

extension FileSystem {
    /// Why `path` may not be trusted to run as the daemon, as ssh's
    /// `StrictModes` judges a key file; nil when it may. The path is
    /// resolved first (links followed), then it and every folder above it
    /// must be owned by root or `user` and writable by neither group nor
    /// others: anyone else who could write one of them could put their own
    /// program in its place. A folder writable by all but sticky and owned
    /// by root (`/tmp`) is accepted above the file's own folder, since
    /// nobody there can rename or remove another user's entry.
    ///
    /// | found                                             | result                         |
    /// |---------------------------------------------------|--------------------------------|
    /// | cannot be resolved or read                        | "cannot read …: reason"        |
    /// | owned by another user                             | "… is owned by uid N"          |
    /// | writable by group or others (not a sticky parent) | "… is writable by group/others (mode 0777)" |
    public static func trustProblem(_ path: String, user: uid_t = geteuid()) -> String? {
        guard let resolved = realpath(path, nil) else {
            return "cannot read \(path): \(String(cString: strerror(errno)))"
        }
        let real = String(cString: resolved)
        free(resolved)
        var current = real
        var isOwnFolder = true
        var isTarget = true
        while true {
            var info = stat()
            guard lstat(current, &info) == 0 else { return "cannot read \(current): \(String(cString: strerror(errno)))" }
            if info.st_uid != 0 && info.st_uid != user {
                return "\(current) is owned by uid \(info.st_uid), neither root nor the daemon's user"
            }
            let writableByOthers = info.st_mode & (S_IWGRP | S_IWOTH) != 0
            let stickyRootFolder = !isTarget && !isOwnFolder && info.st_uid == 0 && info.st_mode & S_ISVTX != 0
            if writableByOthers && !stickyRootFolder {
                let mode = String(info.st_mode & 0o7777, radix: 8)
                return "\(current) is writable by \(info.st_mode & S_IWOTH != 0 ? "others" : "its group") (mode 0\(mode))"
            }
            if current == "/" { return nil }
            if !isTarget { isOwnFolder = false }
            isTarget = false
            current = folder(of: current)
        }
    }
}
