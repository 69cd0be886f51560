@preconcurrency import Glibc
import SSVCCore

/// Gathers the machine's facts for Turkcell filters from the places a
/// Linux system keeps them.
public enum MachineFactsReader {
    /// `VERSION_ID` from `/etc/os-release` (else `/usr/lib/os-release`), and
    /// the DMI product name (else the kernel's machine type). `root` prefixes
    /// every path, for tests.
    public static func gather(root: String = "") -> MachineFacts {
        let release = smallFile(root + "/etc/os-release") ?? smallFile(root + "/usr/lib/os-release") ?? ""
        let product = smallFile(root + "/sys/class/dmi/id/product_name")?
            .trimming(" \t\n") ?? ""
        return MachineFacts(
            osVersion: OSRelease.parse(release)["VERSION_ID"] ?? "",
            model: product.isEmpty ? machineType() : product
        )
    }

    private static func smallFile(_ path: String) -> String? {
        guard let bytes = try? BoundedReader.read(path: path, limit: 64 * 1024) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `uname -m`.
    private static func machineType() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "" }
        return withUnsafeBytes(of: names.machine) { buffer in
            String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
