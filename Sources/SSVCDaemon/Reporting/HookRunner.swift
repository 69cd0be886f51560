@preconcurrency import Glibc
import Dispatch
import Logging
import NIOConcurrencyHelpers
import SSVCCore
import SSVCPosix

/// Runs the executables of `hooks-dir` when an app's status changes or a
/// Turkcell message is shown: in name order, without a shell, standard
/// input on /dev/null, each for at most 30 s (then its process group is
/// killed). They run on a few serial queues of their own, an app always on
/// the same one, so that one app's hooks run one at a time and hooks never
/// hold up checks or the socket; a slow hook delays only the apps that
/// share its queue. A hook runs only when it is as trusted as the daemon
/// (owned by root or the daemon's user, writable by nobody else, its folders
/// too), as ssh's `StrictModes` judges a key file.
/// Their output goes to the journal line by line; a failure is logged and
/// changes nothing else.
package final class HookRunner: Sendable {
    /// What happened, as the hook's environment tells it.
    package struct Event: Sendable {
        /// `SSVC_EVENT`: `status-changed`, `notice`, or an input's own
        /// (each input declares its kind beside it).
        package struct Kind: RawRepresentable, Sendable, Equatable {
            package var rawValue: String
            package init(rawValue: String) { self.rawValue = rawValue }

            package static let statusChanged = Self(rawValue: "status-changed")
            package static let notice = Self(rawValue: "notice")
        }

        package var kind: Kind
        package var app: String
        package var status: UpdateStatus
        package var previousStatus: UpdateStatus
        package var currentVersion: String?
        package var latestVersion: String?
        /// Empty for an app without a version server.
        package var url: String
        /// The notice's text (notices only).
        package var message: String?
        /// What the app's inputs add (`AppInput`), each `SSVC_` variable by name.
        package var inputVariables: [String: String] = [:]

        package init(
            kind: Kind, app: String, status: UpdateStatus, previousStatus: UpdateStatus, currentVersion: String?, latestVersion: String?,
            url: String, message: String? = nil
        ) {
            self.kind = kind
            self.app = app
            self.status = status
            self.previousStatus = previousStatus
            self.currentVersion = currentVersion
            self.latestVersion = latestVersion
            self.url = url
            self.message = message
        }

        /// The `SSVC_` variables.
        var variables: [String: String] {
            var variables = [
                "SSVC_EVENT": kind.rawValue, "SSVC_APP": app, "SSVC_STATUS": status.rawValue,
                "SSVC_PREVIOUS_STATUS": previousStatus.rawValue, "SSVC_CURRENT_VERSION": currentVersion ?? "",
                "SSVC_LATEST_VERSION": latestVersion ?? "", "SSVC_URL": url,
            ]
            if let message { variables["SSVC_MESSAGE"] = message }
            variables.merge(inputVariables) { own, _ in own }
            return variables
        }
    }

    package static let timeout: Double = 30
    /// Output kept per hook run; past it the hook's next write fails (SIGPIPE).
    static let outputLimit = 64 * 1024

    private let directory: String
    private let environment: [String: String]
    private let logger: Logger
    /// At most this many hooks run at once, and as many threads serve them.
    static let lanes = 4
    private let queues = (0..<HookRunner.lanes).map { _ in DispatchQueue(label: "io.ssvc.hooks") }

    /// The hooks running now, each with its process group: killed when
    /// the daemon stops, and any started after as it starts, so that none
    /// outlives the daemon (outside systemd no cgroup would end it).
    private let running: RunningCommands

    /// `environment` is the daemon's, which hooks inherit under the `SSVC_`
    /// variables; `running` is shared by the runners a reload replaces.
    package init(directory: String, environment: [String: String], logger: Logger, running: RunningCommands = RunningCommands()) {
        self.running = running
        self.directory = directory
        self.environment = environment
        self.logger = logger
    }

    /// Queues `event` for the hooks the folder holds when its turn comes,
    /// and returns at once: the folder is listed and each hook's ownership
    /// checked on the hooks' own queue, never on the daemon's executor.
    package func run(_ event: Event) {
        let lane = Int(event.app.utf8.reduce(UInt32(0)) { $0 &* 31 &+ UInt32($1) } % UInt32(Self.lanes))
        queues[lane].async { [self] in
            for name in hooks() { runOne(name, event) }
        }
    }

    /// Refusals already in the journal, each said once ("name: problem").
    private let refusalsSaid = NIOLockedValueBox<Set<String>>([])

    /// The executables in the folder that may run, by name; hidden files,
    /// folders and files without an execute bit are skipped, and a hook
    /// that is not as trusted as the daemon (`refusals`) is refused, named
    /// in the journal the first time.
    func hooks() -> [String] {
        let (names, refused) = Self.listing(directory)
        for (name, problem) in refused {
            let said = "\(name): \(problem)"
            guard refusalsSaid.withLockedValue({ $0.insert(said).inserted }) else { continue }
            logger.warning("\(name == "*" ? "hooks in \(directory)" : "hook \(name)") refused: \(problem)", metadata: [
                "MESSAGE_ID": "\(MessageID.hookFailed.rawValue)", "SSVC_HOOK": "\(name)", "SSVC_ERROR": "\(problem)",
            ])
        }
        return names
    }

    /// The hooks of `directory` that would run, and those refused with the
    /// reason: the folder (and its parents) or the file owned by another
    /// user than root and the daemon's, or writable by group or others
    /// (`FileSystem.trustProblem`). A refused folder refuses every hook in
    /// it (named "*"). `ssvcd --check-config` prints the same refusals.
    package static func listing(_ directory: String) -> (runnable: [String], refused: [(name: String, problem: String)]) {
        let names: [String]
        do {
            names = try FileSystem.names(in: directory) ?? []
        } catch {
            return ([], [("*", error.description)])
        }
        let executables = names.sorted().filter { name in
            guard !name.hasPrefix(".") else { return false }
            var info = stat()
            let path = directory + "/" + name
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
        }
        guard !executables.isEmpty else { return ([], []) }
        if let problem = FileSystem.trustProblem(directory) {
            return ([], [("*", "the hooks folder is not safe: \(problem)")])
        }
        var runnable: [String] = []
        var refused: [(name: String, problem: String)] = []
        for name in executables {
            if let problem = FileSystem.trustProblem(directory + "/" + name) {
                refused.append((name, problem))
            } else {
                runnable.append(name)
            }
        }
        return (runnable, refused)
    }

    private func runOne(_ name: String, _ event: Event) {
        let path = directory + "/" + name
        var metadata: Logger.Metadata = ["SSVC_HOOK": "\(name)", "SSVC_APP": "\(event.app)", "SSVC_EVENT": "\(event.kind.rawValue)"]
        let run: ChildProcess.Run
        do {
            run = try ChildProcess.run(
                [path], environment: environment.merging(event.variables) { _, new in new }, timeout: Self.timeout,
                outputLimit: Self.outputLimit, errors: true, ownGroup: true
            ) { [running] pid in
                running.started(pid)
            }
        } catch {
            fail(name, event, "cannot start: \(String(cString: strerror(error.code)))", &metadata)
            return
        }
        running.ended(run.pid)
        for line in run.output.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            logger.info("hook \(name) (\(event.app)): \(String(decoding: line, as: UTF8.self))", metadata: metadata)
        }
        if run.timedOut {
            fail(name, event, "did not finish within \(Int(Self.timeout)) s and was killed", &metadata)
        } else if run.termination != .exited(0) {
            fail(name, event, run.termination.description, &metadata)
        }
    }

    private func fail(_ name: String, _ event: Event, _ problem: String, _ metadata: inout Logger.Metadata) {
        metadata["MESSAGE_ID"] = "\(MessageID.hookFailed.rawValue)"
        metadata["SSVC_ERROR"] = "\(problem)"
        logger.warning("hook \(name) (\(event.app), \(event.kind.rawValue)) failed: \(problem)", metadata: metadata)
    }
}
