@preconcurrency import Glibc
import SSVCPosix

/// `<state-dir>/holds.jsonl`: the holds set and lifted since `state.json`
/// was last written, one line each (`HoldLogRecord`). Appending a line and
/// fdatasyncing it puts a hold on disk in a fraction of a millisecond,
/// where a state file of 10,000 apps took a write of 8 MiB (issue 52).
/// Absent while the state file holds everything.
struct HoldLog: Sendable {
    let path: String

    init(directory: String) {
        path = directory + "/holds.jsonl"
    }

    /// The most the log may hold: past it, holds wait for the state file's
    /// write instead, as they did before the log. Only a state file that
    /// cannot be written lets it grow: the log is emptied at every write.
    static let maximumBytes = 4 << 20

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Appends `bytes` (whole lines) and fdatasyncs them; returns the
    /// file's size after. A write that fails part of the way (a full disk)
    /// is cut off again, so that no torn line is left for the next to
    /// follow. The file is created 0600 on the first append and its folder
    /// fsynced, so the name outlives a crash as its lines do.
    func append(_ bytes: [UInt8]) throws(Failure) -> Int {
        var created = false
        var descriptor = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            created = true
        }
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("cannot read \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(path) is not a regular file") }
        let before = Int(info.st_size)
        let written = FileSystem.writeAll(descriptor, bytes)
        guard written == bytes.count, fdatasync(descriptor) == 0 else {
            let error = failure("cannot write \(path)")
            if written > 0 { _ = ftruncate(descriptor, off_t(before)) }
            throw error
        }
        if created { syncFolder() }
        return before + written
    }

    /// Replaces the log by `bytes` (the lines a state file does not hold
    /// yet), or removes it when there are none.
    func replace(with bytes: [UInt8]) throws(Failure) {
        guard !bytes.isEmpty else {
            guard unlink(path) == 0 || errno == ENOENT else { throw failure("cannot remove \(path)") }
            syncFolder()
            return
        }
        do {
            try FileSystem.replace(path, with: bytes, mode: 0o600, durable: true)
        } catch {
            throw Failure(description: error.description)
        }
    }

    private func syncFolder() {
        let folder = open(FileSystem.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
