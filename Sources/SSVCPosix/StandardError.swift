@preconcurrency import Glibc
import SSVCCore

/// Diagnostics on standard error, unbuffered: a line must not sit in a
/// buffer when the process exits or is killed.
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Writes `line` and a newline.
    public static func writeLine(_ line: String) {
        var stream = StandardError()
        stream.write(line + "\n")
    }

    /// Writes `line`, which carries text from outside (a file's key or
    /// value, a path), with control characters and backslashes escaped as
    /// the journal shows them: nothing from a file reaches the terminal.
    public static func writeEscapedLine(_ line: String) {
        writeLine(DisplayText.escaped(line, limit: .max))
    }
}
