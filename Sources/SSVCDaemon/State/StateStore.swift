@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore
import SSVCPosix

/// `<state-dir>/state.json`, written so that a crash at any instant leaves
/// the old file or the new one, never a torn one.
package struct StateStore: Sendable {
    package let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    package var path: String { directory + "/state.json" }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A state file that could not be used and was moved aside.
    package struct Recovery: Sendable {
        package let movedTo: String
        package let reason: String
    }

    /// What `load` found.
    package struct Loaded: Sendable {
        package var state: DaemonState
        /// The file could not be used and was moved aside.
        package var recovery: Recovery?
        /// The schema of a file written by a newer ssvc: kept as it is,
        /// and never written over by this one.
        package var newerSchema: Int?
        /// Fields whose numbers were out of range, each reset, fields and
        /// records dropped, values cut to their bounds, in words.
        package var repairs: [String] = []
        /// With bounds: the apps no longer configured whose hold alone is
        /// kept for the first time, and the oldest such holds dropped.
        package var holdsKept: [String] = []
        package var holdsDropped = 0
        /// Holds set or lifted by lines of the holds log (written since the
        /// state file was, before a crash or a kill).
        package var holdsReplayed = 0
    }

    /// The saved state; a fresh one when there is none.
    ///
    /// | the file                         | result                                              |
    /// |----------------------------------|-----------------------------------------------------|
    /// | absent                           | a fresh state                                       |
    /// | this schema                      | its state; numbers out of range reset, fields and records that cannot be read dropped (`repairs`) |
    /// | a newer schema                   | a fresh state in memory, the file left (`newerSchema`) |
    /// | unreadable, corrupt, older, special | moved to `state.json.corrupt-<time>` (`recovery`) |
    /// With `bounds`, what a write would not keep is not kept on read
    /// either, record by record, so a large file never takes much more
    /// memory than what stays (issue 52).
    package func load(now: Date, bounds: DaemonState.ReadBounds? = nil) throws(Failure) -> Loaded {
        try makeDirectory()
        if let problem = FileSystem.folderProblem(directory) { throw Failure(description: "cannot write \(path): \(problem)") }
        removeLeftoverTemporaries()
        var loaded: Loaded
        switch Result(catching: { () throws(BoundedReader.Failure) in try BoundedReader.read(path: path, limit: Self.maximumBytes) }) {
        case let .failure(error) where error.code == ENOENT:
            loaded = Loaded(state: DaemonState())
        case let .failure(error):
            loaded = Loaded(state: DaemonState(), recovery: try moveAside(now: now, reason: error.description))
        case let .success(bytes):
            switch DaemonState.reading(bytes, decoder: Self.decoder, bounds: bounds) {
            case let .state(state, notes, holdsKept, holdsDropped):
                loaded = Loaded(state: state, repairs: notes, holdsKept: holdsKept, holdsDropped: holdsDropped)
            case let .newer(schema):
                // The log belongs to the newer ssvc's state as well: left as it is.
                return Loaded(state: DaemonState(), newerSchema: schema)
            case let .unusable(reason):
                loaded = Loaded(state: DaemonState(), recovery: try moveAside(now: now, reason: reason))
            }
        }
        try replayHoldLog(into: &loaded, now: now, bounds: bounds)
        return loaded
    }

    /// The holds set and lifted since the state file was last written
    /// (`HoldLog`): applied over it, then written into it and the log
    /// removed, so that the daemon starts with an empty log. A log that
    /// cannot be read is moved aside as the state file is.
    private func replayHoldLog(into loaded: inout Loaded, now: Date, bounds: DaemonState.ReadBounds?) throws(Failure) {
        let log = HoldLog(directory: directory)
        func moveAside(_ reason: String) throws(Failure) {
            let target = "\(log.path).corrupt-\(String(RFC3339.format(now).filter { $0 != ":" }))"
            guard rename(log.path, target) == 0 else { throw failure("cannot move the unreadable \(log.path) aside (\(reason))") }
            loaded.repairs.append("holds.jsonl: \(reason); moved to \(target), and the holds set since the state was last written are lost")
        }
        // The daemon writes it without following a link; a link is not
        // followed on read either (to /etc/shadow, its lines' first
        // characters would be said in the journal).
        var info = stat()
        if lstat(log.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            return try moveAside("\(log.path) is a symbolic link, not read")
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedReader.read(path: log.path, limit: 2 * HoldLog.maximumBytes)
        } catch {
            guard error.code != ENOENT else { return }
            return try moveAside(error.description)
        }
        let replay = loaded.state.replay(holdLog: bytes, decoder: Self.decoder, bounds: bounds)
        loaded.repairs += replay.notes
        loaded.holdsDropped += replay.holdsDropped
        loaded.holdsReplayed = replay.applied
        // Written into the state now: the log then starts empty. When the
        // state cannot be written (a full disk), the log stays, without a
        // last line a crash cut short, for the next line to follow.
        do {
            if !bytes.isEmpty { try save(loaded.state) }
            try log.replace(with: [])
        } catch {
            loaded.repairs.append("holds.jsonl: cannot write its holds into \(path) (\(error)); the log is kept")
            if let last = bytes.lastIndex(of: UInt8(ascii: "\n")).map({ $0 + 1 }) ?? (bytes.isEmpty ? nil : 0), last < bytes.count {
                _ = truncate(log.path, off_t(last))
            }
        }
    }

    /// Takes `state.lock` in the folder for the rest of the process's life
    /// (`flock`, released by the kernel when the process ends, however it
    /// ends), so that a second daemon on the same folder cannot overwrite
    /// this one's results. The file holds the holder's pid, for the
    /// message the second one gives.
    ///
    /// | the lock                 | result                                          |
    /// |--------------------------|-------------------------------------------------|
    /// | free                     | taken; the descriptor is kept open (close-on-exec) |
    /// | held by another process  | `Failure` naming its pid                        |
    /// | the folder unusable      | `Failure` with the system's reason              |
    package func lock() throws(Failure) {
        try makeDirectory()
        let lockPath = directory + "/state.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot open \(lockPath)") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Failure(description: "\(lockPath) is not a regular file")
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let reason = errno
            var holder = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &holder, holder.count, 0)
            close(descriptor)
            guard reason == EWOULDBLOCK else { throw Failure(description: "cannot lock \(lockPath): \(String(cString: strerror(reason)))") }
            let pid = String(decoding: holder.prefix(max(count, 0)), as: UTF8.self).filter(\.isNumber)
            throw Failure(description: "another ssvcd\(pid.isEmpty ? "" : " (pid \(pid))") is running on the state folder \(directory)")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, text, text.count, 0)
        // Kept open on purpose: the lock lives as long as the descriptor.
    }

    /// The most a state file may hold: `load` reads no more.
    package static let maximumBytes = 64 << 20

    /// Writes a temporary file, fsyncs it, renames it over `state.json`, and
    /// fsyncs the directory so that the rename itself is durable.
    ///
    /// A state past `maximumBytes` (a thousand apps' documents of a
    /// megabyte each) would be written and then refused at the next start,
    /// losing every app's history: the largest stored responses are left
    /// out of the file instead, with their ETags (those apps fetch their
    /// document whole after a restart). Returns the apps left out, largest first.
    @discardableResult
    package func save(_ state: DaemonState) throws(Failure) -> [String] {
        var state = state
        var data = try Self.encode(state)
        var leftOut: [String] = []
        var largest = state.apps.compactMap { name, app in app.response.map { (name, $0.utf8.count) } }.sorted { $0.1 > $1.1 }[...]
        while data.count > Self.maximumBytes, !largest.isEmpty {
            // Each response is in the file at least as long as it is.
            var excess = data.count - Self.maximumBytes
            while excess > 0, let (name, size) = largest.popFirst() {
                state.apps[name]?.response = nil
                state.apps[name]?.etag = nil
                leftOut.append(name)
                excess -= size
            }
            data = try Self.encode(state)
        }
        guard data.count <= Self.maximumBytes else {
            throw Failure(description: "cannot save the state: \(data.count) bytes even without the stored responses, past the \(Self.maximumBytes) a state file may hold")
        }
        do {
            try FileSystem.replace(path, with: Array(data), mode: 0o600, durable: true)
        } catch {
            throw Failure(description: error.description)
        }
        return leftOut
    }

    private static func encode(_ state: DaemonState) throws(Failure) -> Data {
        do {
            return try encoder.encode(state)
        } catch {
            throw Failure(description: "cannot encode the state: \(error)")
        }
    }

    private func makeDirectory() throws(Failure) {
        do {
            try FileSystem.makeDirectories(directory, mode: 0o750)
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// A writer killed between creating its temporary and renaming it
    /// leaves `state.json.tmp-<pid>` (or the holds log's) behind; the file
    /// itself is whole. A killed daemon leaves its mirrors' downloads too
    /// (`.advisories-*`), which only that daemon could read.
    private func removeLeftoverTemporaries() {
        let leftovers = ["state.json.tmp-", "holds.jsonl.tmp-", ".advisories-"]
        for name in (try? FileSystem.names(in: directory)) ?? [] where leftovers.contains(where: { name.hasPrefix($0) }) {
            unlink(directory + "/" + name)
        }
    }

    private func moveAside(now: Date, reason: String) throws(Failure) -> Recovery {
        let stamp = String(RFC3339.format(now).filter { $0 != ":" })
        let target = "\(path).corrupt-\(stamp)"
        guard rename(path, target) == 0 else { throw failure("cannot move the unreadable \(path) aside (\(reason))") }
        return Recovery(movedTo: target, reason: reason)
    }

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // Compact: a pretty file is 1.55–1.7× larger, and a compact one that
        // loads must save under the same limit (issue 52).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
