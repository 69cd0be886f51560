import Foundation
import PackagePlugin

/// Embeds the target's Varlink interface definition
/// (`Control/io.ssvc.Daemon.varlink`) as the constant `interfaceDescription`.
@main
struct EmbedInterface: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = target.directoryURL.appending(path: "Control/io.ssvc.Daemon.varlink")
        let output = context.pluginWorkDirectoryURL.appending(path: "InterfaceDescription.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(input.lastPathComponent)",
                executable: try context.tool(named: "embed-text").url,
                arguments: [input.path, output.path, "interfaceDescription"],
                inputFiles: [input],
                outputFiles: [output]
            ),
        ]
    }
}
