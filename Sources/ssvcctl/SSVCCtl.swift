import ArgumentParser
import SSVCCore

/// `ssvcctl`: the client of `ssvcd`, and an offline evaluator of responses.
@main
struct SSVCCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvcctl",
        abstract: "Query and control ssvcd; test version-server responses offline.",
        discussion: """
            --socket PATH (default /run/ssvc/io.ssvc.Daemon) and --timeout SECONDS may come \
            before or after the subcommand. Exit codes: 0 up to date (also ahead and unknown), \
            10 update available, 11 update required, 13 affected by an advisory, \
            14 end of life, 12 no update but a check failing, 15 restart pending (status and check; \
            over several apps the worst, 11, 13, 14, 12, 15, 10), 1 error, 64 usage. hold and unhold exit 0 once set. \
            ssvcctl --version prints the version.
            """,
        subcommands: [Status.self, Check.self, Watch.self, Reload.self, HoldCommand.self, UnholdCommand.self, Evaluate.self, Motd.self]
    )

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // By hand, not as the configuration's version: argument-parser
        // would then take evaluate's own --version KEY for it.
        if arguments == ["--version"] {
            print(SSVCVersion.current)
            return
        }
        if let unknown = unknownCommand(arguments) {
            let names = configuration.subcommands.map { $0._commandName }.joined(separator: ", ")
            exit(withError: ValidationError("unknown command '\(DisplayText.escaped(unknown, limit: 40))': one of \(names)"))
        }
        main(hoistingClientOptions(arguments))
    }

    /// The first word that is neither an option nor the value of
    /// `--socket` or `--timeout`, when it names no subcommand: `ssvcctl
    /// --socket S stauts` said "Unknown option '--socket'" (issue 51).
    static func unknownCommand(_ arguments: [String]) -> String? {
        // argument-parser's own: completion scripts and their callbacks.
        if arguments.contains(where: { $0.hasPrefix("---") || $0.hasPrefix("--generate-completion-script") || $0.hasPrefix("--experimental") }) {
            return nil
        }
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { return nil }
            if word == "--socket" || word == "--timeout" {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            // `help` is argument-parser's own.
            return word == "help" || configuration.subcommands.contains { $0._commandName == word } ? nil : word
        }
        return nil
    }

    /// `ssvcctl --socket PATH status` is the documented form; the parser
    /// wants subcommand options after the subcommand, so move them there.
    /// (`--timeout` likewise.)
    static func hoistingClientOptions(_ arguments: [String]) -> [String] {
        let names = Set(configuration.subcommands.map { $0._commandName })
        guard let command = arguments.firstIndex(where: { names.contains($0) }) else { return arguments }
        var leading = Array(arguments[..<command])
        var moved: [String] = []
        // Only what the subcommand takes: watch waits for ever, and has no --timeout.
        let options = arguments[command] == "watch" ? ["--socket"] : ["--socket", "--timeout"]
        while let index = leading.firstIndex(where: { option in options.contains { option == $0 || option.hasPrefix($0 + "=") } }) {
            let takesValue = options.contains(leading[index]) && index + 1 < leading.count
            moved += leading[index...(takesValue ? index + 1 : index)]
            leading.removeSubrange(index...(takesValue ? index + 1 : index))
        }
        return leading + [arguments[command]] + moved + arguments[(command + 1)...]
    }
}
