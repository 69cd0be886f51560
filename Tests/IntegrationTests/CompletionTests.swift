import Foundation
import SSVCTestSupport
import Testing

/// ssvcctl's bash completion, driven as bash drives it: the generated
/// script sourced, `_ssvcctl` called with COMP_WORDS set.
@Suite("shell completion", .processSlot)
struct CompletionTests {
    /// COMPREPLY for each line, sorted and joined by spaces.
    func complete(_ lines: [String], socket: String) async throws -> [String] {
        let ssvcctl = try Executable.path("ssvcctl")
        let folder = URL(fileURLWithPath: ssvcctl).deletingLastPathComponent().path
        let script = """
            shopt -s extglob
            export PATH='\(folder)':"$PATH"
            source <(ssvcctl --generate-completion-script bash)
            complete_line() {
              COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
              read -ra COMP_WORDS <<< "$COMP_LINE"
              [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
              COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
              COMPREPLY=()
              _ssvcctl ssvcctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
              printf '%s\\n' "${COMPREPLY[@]}" | sort | tr '\\n' ' ' | sed 's/ *$//'; echo
            }
            \(lines.map { "complete_line '\($0.replacingOccurrences(of: "SOCKET", with: socket))'" }.joined(separator: "\n"))
            """
        let result = try await Executable.shell(script)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test("bash completes subcommands, options, and app names asked from the daemon; no app names when it is down")
    func bash() async throws {
        let daemon = try await controlDaemon()
        let replies = try await complete([
            "ssvcctl st", "ssvcctl ch", "ssvcctl status --", "ssvcctl status --socket SOCKET ", "ssvcctl check --socket SOCKET a",
            "ssvcctl watch --socket SOCKET b",
        ], socket: daemon.socketPath)
        #expect(replies.count == 6, "\(replies)")
        guard replies.count == 6 else { return }
        #expect(replies[0] == "status")
        #expect(replies[1] == "check")
        #expect(replies[2].split(separator: " ").contains("--nagios") && replies[2].split(separator: " ").contains("--timeout"), "\(replies[2])")
        #expect(replies[3] == "alpha beta")
        #expect(replies[4] == "alpha")
        #expect(replies[5] == "beta")
        #expect(await daemon.stop() == 0)
        let down = try await complete(["ssvcctl status --socket SOCKET "], socket: daemon.socketPath)
        #expect(down == [""], "nothing when the daemon is down: \(down)")
    }

    @Test("zsh and fish scripts are generated for the package")
    func otherShells() async throws {
        for shell in ["zsh", "fish"] {
            let script = try await Executable.run("ssvcctl", ["--generate-completion-script", shell])
            #expect(script.status == 0 && script.standardOutput.contains("ssvcctl"), "\(shell): \(script.standardError)")
        }
    }
}
