// Writes a Swift file holding a text file's contents as a string constant,
// so that a resource has exactly one source and needs no bundle at run time.
// Usage: embed-text INPUT OUTPUT NAME
import FoundationEssentials
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    fputs("usage: embed-text INPUT OUTPUT NAME\n", stderr)
    exit(64)
}
let text = try String(contentsOfFile: arguments[1], encoding: .utf8)
var fence = "#"
while text.contains("\"" + fence) { fence += "#" }
let swift = """
    // Generated from \(URL(fileURLWithPath: arguments[1]).lastPathComponent) by embed-text. Do not edit.
    let \(arguments[3]) = \(fence)\"\"\"
    \(text)
    \"\"\"\(fence)

    """
try swift.write(toFile: arguments[2], atomically: true, encoding: .utf8)
