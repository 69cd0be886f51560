import ArgumentParser
import SSVCCore

/// The core's enumerations as command-line values (`--format`, `--version-scheme`).
extension ResponseFormat: ExpressibleByArgument {}
extension VersionScheme: ExpressibleByArgument {}
