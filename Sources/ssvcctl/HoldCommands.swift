import ArgumentParser
import FoundationEssentials
import SSVCControl
import SSVCCore
import SSVCPosix

/// The reply of `Hold` and `Unhold`.
struct OneApp: Decodable {
    let app: AppStatus
}

func decodeApp(_ bytes: [UInt8]) throws -> AppStatus {
    do {
        return try JSONDecoder().decode(OneApp.self, from: Data(bytes)).app
    } catch {
        StandardError.writeLine("ssvcctl: the daemon sent an unexpected reply: \(error)")
        throw ExitStatus.failure
    }
}

/// Says on stderr when the daemon could not put a hold or a lift on disk
/// (a full disk): it is in force, but a restart would lose it.
func warnIfNotOnDisk(_ shown: AppStatus, _ what: String) {
    let parts = shown.note?.split(separator: "; ") ?? []
    guard let first = parts.firstIndex(where: { $0.hasPrefix(AppStatus.notOnDisk + ": ") }) else { return }
    StandardError.writeLine("ssvcctl: warning: \(shown.name): the \(what) is \(parts[first...].joined(separator: "; "))")
}

struct HoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Offer an app nothing newer than a version until unhold (root or the control-group).",
        discussion: """
            Without VERSION the app is held at the version running now. The hold is kept in the state file \
            across restarts and upgrades; holding again moves it. It defers optional updates only: \
            a required update still shows, and status still exits 11 for it.
            """
    )

    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.", completion: .custom { AppNames.complete($0, $1, $2) }) var app: String
    @Argument(help: "No offer above this version, in the app's scheme (default: the running version).") var version: String?
    @Flag(help: "Print the app as JSON.") var json = false

    func run() throws {
        // Said here, as the daemon would say it: a 70 KB version would pass
        // the socket's message bound and only be cut off (issue 52).
        if let version, let problem = DisplayText.versionProblem(version) {
            StandardError.writeLine("ssvcctl: cannot hold: not a version string: \(problem)")
            throw ExitStatus.failure
        }
        var parameters = ["app": app]
        if let version { parameters["version"] = version }
        let held = try decodeApp(try request(try client.connect(defaultTimeout: 10), .hold, parameters: parameters))
        warnIfNotOnDisk(held.shownToPeople, "hold")
        guard !json else {
            print(ConsoleJSON.text(["app": held]))
            return
        }
        let shown = held.shownToPeople
        let required = shown.status == .updateRequired ? "; the update\(shown.latestVersion.map { " to \($0)" } ?? "") is required: the hold does not defer it" : ""
        print("\(shown.name) held at \(shown.hold ?? "?")" + (shown.heldVersion.map { "; \($0) is kept back" } ?? "") + required)
        if let below = shown.note?.split(separator: "; ").first(where: { $0.contains(" is below the running version ") }) {
            StandardError.writeLine("ssvcctl: warning: \(below)")
        }
        print(AppTable.render([held]))
    }
}

struct UnholdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unhold", abstract: "Lift an app's hold (root or the control-group).")

    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.", completion: .custom { AppNames.complete($0, $1, $2) }) var app: String
    @Flag(help: "Print the app as JSON.") var json = false

    func run() throws {
        let connection = try client.connect(defaultTimeout: 10)
        // Asked first only to say which it was: a hold lifted, or none. An
        // app no longer configured has no status, but the daemon may keep
        // its hold, which Unhold lifts (or answers NoSuchApp).
        var configured = true
        var before: String?
        do {
            let status = try request(connection, .getStatus, app: app) { error in
                configured = error.remoteName != .noSuchApp
                return !configured
            }
            before = try decodeApps(status).first?.hold
        } catch {
            if configured { throw error }
        }
        let released = try decodeApp(try request(connection, .unhold, app: app))
        warnIfNotOnDisk(released.shownToPeople, "lift")
        guard !json else {
            print(ConsoleJSON.text(["app": released]))
            return
        }
        let name = DisplayText.escaped(released.name)
        guard configured else {
            // "not configured: its hold at 1.5 is lifted", from the daemon.
            print("\(name): \(DisplayText.escaped(released.note ?? "hold lifted"))")
            return
        }
        print(before.map { "\(name): hold at \(DisplayText.escaped($0)) lifted" } ?? "\(name) was not held")
        print(AppTable.render([released]))
    }
}
