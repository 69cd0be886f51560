import ArgumentParser

/// `ssvcctl`: the client of `ssvcd`, and an offline evaluator of responses.
@main
struct SSVCCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssvcctl",
        abstract: "Query and control ssvcd; test version-server responses offline.",
        discussion: """
            Exit codes: 0 up to date (also ahead and unknown), 10 update available, \
            11 update required, 1 error, 64 usage.
            """,
        subcommands: [Evaluate.self]
    )
}
