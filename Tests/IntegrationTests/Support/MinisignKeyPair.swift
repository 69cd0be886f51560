import Foundation
import SSVCTestSupport
import Testing

/// A key pair made by Debian's `minisign -G` for one test, and documents
/// signed with it by `minisign -S`: the tests check what the real tool
/// writes, not what we think it writes.
final class MinisignKeyPair {
    static let minisign = "/usr/bin/minisign"
    let folder: TemporaryFolder
    let secretKey: String
    let publicKeyFile: String
    /// The base64 line of `minisign.pub`, as `public-keys` takes it.
    let publicKey: String
    /// 16 upper-case hex digits, as minisign prints it when verifying
    /// (its `.pub` comment drops leading zeros).
    let keyID: String

    init() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.minisign), "\(Self.minisign) is missing: run 'make test'")
        folder = try TemporaryFolder()
        secretKey = folder.url.appendingPathComponent("minisign.key").path
        publicKeyFile = folder.url.appendingPathComponent("minisign.pub").path
        let made = try await Executable.run(Self.minisign, ["-G", "-W", "-p", publicKeyFile, "-s", secretKey])
        try #require(made.status == 0, "minisign -G: \(made.standardError)")
        let lines = try String(contentsOfFile: publicKeyFile, encoding: .utf8).split(separator: "\n")
        publicKey = String(try #require(lines.last))
        let digits = try #require(lines.first?.split(separator: " ").last)
        keyID = String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// `minisign -S` over `document`: prehashed (`ED`, the default) or, with
    /// `legacy`, the document itself (`Ed`). `signedAt` replaces the
    /// trusted comment with `timestamp:<then>` and the file name, as
    /// minisign writes it; nil keeps minisign's own (now).
    func sign(_ document: String, legacy: Bool = false, signedAt: Date? = nil) async throws -> String {
        let file = try folder.file("document-\(UUID().uuidString.prefix(8))", document)
        var arguments = ["-S", "-s", secretKey, "-m", file, "-x", file + ".minisig"]
        if legacy { arguments.append("-l") }
        if let signedAt { arguments += ["-t", "timestamp:\(Int(signedAt.timeIntervalSince1970))\tfile:v.json"] }
        let signed = try await Executable.run(Self.minisign, arguments)
        try #require(signed.status == 0, "minisign -S: \(signed.standardError)")
        return try String(contentsOfFile: file + ".minisig", encoding: .utf8)
    }

    /// `minisign -S` over the file at `path`, its signature written beside
    /// it as `path.minisig`: prehashed, or with `legacy` the file itself;
    /// `signedAt` puts that time in the trusted comment.
    func signFile(_ path: String, legacy: Bool = false, signedAt: Date? = nil) async throws {
        var arguments = ["-S", "-s", secretKey, "-m", path, "-x", path + ".minisig"]
        if legacy { arguments.append("-l") }
        if let signedAt { arguments += ["-t", "timestamp:\(Int(signedAt.timeIntervalSince1970))\tfile:\(URL(fileURLWithPath: path).lastPathComponent)"] }
        let signed = try await Executable.run(Self.minisign, arguments)
        try #require(signed.status == 0, "minisign -S: \(signed.standardError)")
    }

    /// Whether `minisign -V` itself accepts `signature` for `document`: a
    /// test's forged input is shown to be bad by the tool, not only by us.
    func verifies(_ document: String, _ signature: String) async throws -> Bool {
        let file = try folder.file("check-\(UUID().uuidString.prefix(8))", document)
        _ = try folder.file(URL(fileURLWithPath: file).lastPathComponent + ".minisig", signature)
        return try await Executable.run(Self.minisign, ["-V", "-p", publicKeyFile, "-m", file]).status == 0
    }
}
