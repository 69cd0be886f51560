import FoundationEssentials
import SSVCControl

/// App names for shell completion, asked from the daemon: the socket
/// typed on the command line so far, else the default. Nothing when the
/// daemon does not answer within a second.
enum AppNames {
    static func complete(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        var socket = "/run/ssvc/io.ssvc.Daemon"
        for (position, word) in words.enumerated() {
            if word == "--socket", position + 1 < words.count, position + 1 != index { socket = words[position + 1] }
            if word.hasPrefix("--socket=") { socket = String(word.dropFirst("--socket=".count)) }
        }
        guard let client = try? VarlinkClient(path: socket, replyTimeout: 1),
              let reply = try? client.call(.getStatus),
              let apps = try? JSONDecoder().decode(AppList.self, from: Data(reply)).apps
        else { return [] }
        return apps.map(\.name).filter { $0.hasPrefix(prefix) }
    }
}
