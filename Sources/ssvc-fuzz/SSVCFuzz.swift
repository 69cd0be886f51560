@preconcurrency import Glibc
import SSVCPosix

/// libFuzzer's entry point: the target named by `SSVC_FUZZ_TARGET` runs
/// on each input (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    FuzzTarget.selected.run(bytes)
    return 0
}

extension FuzzTarget {
    /// `SSVC_FUZZ_TARGET`, read once.
    static let selected: FuzzTarget = {
        let name = ProcessEnvironment.variables()["SSVC_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            StandardError.writeLine("ssvc-fuzz: set SSVC_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(64)
        }
        return target
    }()
}

#if FUZZING
/// libFuzzer's driver, for the entry point SwiftPM links an executable
/// with (`<module>_main`, which it makes `main`).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

@_cdecl("ssvc_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { start, length in fuzzOneInput(start, length) }
}
#else
/// Without libFuzzer (an ordinary build): `ssvc-fuzz TARGET FILE...` runs
/// the files through one target, as a regression check of a corpus.
@main
struct Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            StandardError.writeLine("usage: ssvc-fuzz TARGET FILE...; targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            guard let bytes = try? BoundedReader.read(path: path, limit: 1 << 20) else {
                StandardError.writeLine("ssvc-fuzz: cannot read \(path)")
                exit(1)
            }
            target.run(bytes)
            count += 1
        }
        print("\(name): \(count) inputs")
    }
}
#endif
