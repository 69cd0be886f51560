@preconcurrency import Glibc
import Dispatch
import Logging
import SSVCCore
import SSVCPosix

/// Runs the executables of `hooks-dir` when an app's status changes or a
/// Turkcell message is shown: in name order, without a shell, standard
/// input on /dev/null, each for at most 30 s (then its process group is
/// killed). They run on a few serial queues of their own, an app always on
/// the same one, so that one app's hooks run one at a time and hooks never
/// hold up checks or the socket; a slow hook delays only the apps that
/// share its queue. With no hooks in the folder nothing is queued at all.
/// Their output goes to the journal line by line; a failure is logged and
/// changes nothing else.
public final class HookRunner: Sendable {
    /// What happened, as the hook's environment tells it.
    public struct Event: Sendable {
        public enum Kind: String, Sendable {
            case statusChanged = "status-changed"
            case notice
        }

        public var kind: Kind
        public var app: String
        public var status: UpdateStatus
        public var previousStatus: UpdateStatus
        public var currentVersion: String?
        public var latestVersion: String?
        public var url: String
        /// The notice's text (notices only).
        public var message: String?

        public init(
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
            return variables
        }
    }

    public static let timeout: Double = 30
    /// Output kept per hook run; past it the hook's next write fails (SIGPIPE).
    static let outputLimit = 64 * 1024

    private let directory: String
    private let environment: [String: String]
    private let logger: Logger
    /// At most this many hooks run at once, and as many threads serve them.
    static let lanes = 4
    private let queues = (0..<HookRunner.lanes).map { _ in DispatchQueue(label: "io.ssvc.hooks") }

    /// `environment` is the daemon's, which hooks inherit under the `SSVC_` variables.
    public init(directory: String, environment: [String: String], logger: Logger) {
        self.directory = directory
        self.environment = environment
        self.logger = logger
    }

    /// Queues `event` for the hooks the folder holds now and returns at
    /// once (the listing is one `readdir`).
    public func run(_ event: Event) {
        let names = hooks()
        guard !names.isEmpty else { return }
        let lane = Int(event.app.utf8.reduce(UInt32(0)) { $0 &* 31 &+ UInt32($1) } % UInt32(Self.lanes))
        queues[lane].async { [self] in
            for name in names { runOne(name, event) }
        }
    }

    /// The executables in the folder, by name; hidden files, folders and
    /// files without an execute bit are skipped.
    func hooks() -> [String] {
        let names: [String]
        do {
            names = try FileSystem.names(in: directory) ?? []
        } catch {
            logger.warning("hooks: \(error)", metadata: ["SSVC_ERROR": "\(error)"])
            return []
        }
        return names.sorted().filter { name in
            guard !name.hasPrefix(".") else { return false }
            var info = stat()
            let path = directory + "/" + name
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
        }
    }

    private func runOne(_ name: String, _ event: Event) {
        let path = directory + "/" + name
        var metadata: Logger.Metadata = ["SSVC_HOOK": "\(name)", "SSVC_APP": "\(event.app)", "SSVC_EVENT": "\(event.kind.rawValue)"]
        let run: ChildProcess.Run
        do {
            run = try ChildProcess.run(
                [path], environment: environment.merging(event.variables) { _, new in new }, timeout: Self.timeout,
                outputLimit: Self.outputLimit, errors: true, ownGroup: true
            )
        } catch {
            fail(name, event, "cannot start: \(String(cString: strerror(error.code)))", &metadata)
            return
        }
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
