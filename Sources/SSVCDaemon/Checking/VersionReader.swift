@preconcurrency import Glibc
import Dispatch
import SSVCCore
import SSVCPosix
import NIOConcurrencyHelpers

/// Reads an app's running version from its source, fresh before each check:
/// the product may have been upgraded since the last one.
package enum VersionReader {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// How long a `version-command` may run.
    package static let commandTimeout: Double = 5

    /// `commands`: the group a `version-command` joins, killed when its
    /// owner stops; nil runs it on its own.
    package static func read(_ source: VersionSource, commands: RunningCommands? = nil) async throws(Failure) -> String {
        let key = try await readUnchecked(source, commands: commands)
        if let problem = DisplayText.versionProblem(key) {
            throw Failure(description: "\(source.shown): not a version string: \(problem)")
        }
        return key
    }

    private static func readUnchecked(_ source: VersionSource, commands: RunningCommands?) async throws(Failure) -> String {
        switch source {
        case let .fixed(key):
            return key
        case let .file(path):
            let bytes: [UInt8]
            do {
                bytes = try BoundedReader.read(path: path, limit: 64 * 1024)
            } catch {
                throw Failure(description: "version-file: \(error)")
            }
            guard let line = firstLine(bytes) else { throw Failure(description: "version-file \(path) is empty") }
            return line
        case let .command(argv):
            // A serial queue of its own for each command, so that several
            // apps' commands run side by side without a global queue (which
            // would start libdispatch's once-a-second worker-pool monitor).
            let result = await withCheckedContinuation { continuation in
                DispatchQueue(label: "io.ssvc.version-command").async {
                    continuation.resume(returning: Result { () throws(Failure) in try CommandRunner.run(argv, timeout: commandTimeout, commands: commands) })
                }
            }
            let output = try result.get()
            guard let line = firstLine(output) else {
                throw Failure(description: "version-command \(argv[0]) printed nothing")
            }
            return line
        case let .package(name, database):
            // Parsed off the executor: dpkg's database may be tens of megabytes.
            let result = await Offload.run("io.ssvc.dpkg") {
                Result { () throws(BoundedReader.Failure) in try DpkgDatabase.shared.installedVersion(of: name, path: database) }
            }
            switch result {
            case let .success(version)?:
                return version
            case let .failure(error)?:
                throw Failure(description: "version-package: \(DisplayText.cut(error.description, bytes: 512))")
            case nil:
                throw Failure(description: "version-package: dpkg's database was not read")
            }
        }
    }

    /// The first line, white space trimmed; nil when empty.
    static func firstLine(_ bytes: [UInt8]) -> String? {
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line, as: UTF8.self).trimming(" \t\r")
        return text.isEmpty ? nil : text
    }
}

/// Runs a program without a shell and collects its standard output.
enum CommandRunner {
    static let outputLimit = 64 * 1024

    /// Standard input and error are /dev/null; the program, and whatever it
    /// started in its process group, is killed when it outlives `timeout`
    /// seconds, whether or not it still holds its output open, or when
    /// `commands` stops. Fails unless it exits with status 0.
    static func run(_ argv: [String], timeout: Double, commands: RunningCommands? = nil) throws(VersionReader.Failure) -> [UInt8] {
        let name = argv[0]
        let run: ChildProcess.Run
        do {
            run = try ChildProcess.run(argv, timeout: timeout, outputLimit: outputLimit, ownGroup: true) { pid in
                commands?.started(pid)
            }
        } catch {
            throw VersionReader.Failure(description: "version-command \(name): \(String(cString: strerror(error.code)))")
        }
        commands?.ended(run.pid)
        if run.timedOut { throw failure(name, "did not finish within \(Int(timeout)) s") }
        guard run.termination == .exited(0) else { throw failure(name, run.termination.description) }
        return run.output
    }

    private static func failure(_ name: String, _ problem: String) -> VersionReader.Failure {
        VersionReader.Failure(description: "version-command \(name) \(problem)")
    }
}

/// The programs one service runs: a check service's version commands, a
/// hook runner's hooks. When it stops, each is killed with its whole
/// process group, and one spawned after is killed as it starts: the stop
/// waits for its checks, none may hold it up to a command's 5 s limit (a
/// check may spawn its command just after the stop began, on a busy
/// machine), and no hook outlives the daemon.
package final class RunningCommands: Sendable {
    private let contents = NIOLockedValueBox<(groups: Set<pid_t>, stopped: Bool)>(([], false))

    package init() {}

    func started(_ group: pid_t) {
        contents.withLockedValue { contents in
            if contents.stopped { kill(-group, SIGKILL) } else { contents.groups.insert(group) }
        }
    }

    func ended(_ group: pid_t) {
        contents.withLockedValue { _ = $0.groups.remove(group) }
    }

    /// Kills every command running now, and every one started from now on.
    func stop() {
        contents.withLockedValue { contents in
            contents.stopped = true
            for group in contents.groups { kill(-group, SIGKILL) }
        }
    }
}
