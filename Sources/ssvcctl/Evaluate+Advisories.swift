import ArgumentParser
import FoundationEssentials
import SSVCArchive
import SSVCCore
import SSVCPosix

/// `ssvcctl evaluate --advisories`: OSV records evaluated offline against
/// one package and version, by the daemon's own evaluator (SPEC §13).
extension Evaluate {
    func validateAdvisories() throws {
        guard response == nil else { throw ValidationError("give only one of --response and --advisories") }
        guard let ecosystem else { throw ValidationError("--advisories needs --ecosystem: PyPI, npm, Go, crates.io, Debian:12, ...") }
        guard let package else { throw ValidationError("--advisories needs --package: the package name in \(ecosystem)") }
        guard let versionKey, !versionKey.isEmpty else { throw ValidationError("--advisories needs --version: the version to evaluate") }
        // Problems carry the text cut, not escaped: escaped here, once.
        try refuse("ecosystem", AppKeyRules.advisoryNameProblem(ecosystem).map { DisplayText.escaped($0) })
        if case let .miscased(right) = OSVEcosystems.spelling(of: ecosystem) {
            throw ValidationError("--ecosystem: '\(DisplayText.escaped(ecosystem, limit: 60))' is spelt \"\(right)\" in OSV records")
        }
        try refuse("package", AppKeyRules.advisoryNameProblem(package).map { DisplayText.escaped($0) })
        if let problem = DisplayText.versionProblem(versionKey) { throw ValidationError("--version: not a version string: \(problem)") }
        do {
            _ = try AdvisoryEvaluator(ecosystem: ecosystem, package: package, version: versionKey)
        } catch {
            throw ValidationError("--version: \(error)")
        }
    }

    func runAdvisories(_ source: String) throws {
        var evaluator: AdvisoryEvaluator
        do {
            evaluator = try AdvisoryEvaluator(ecosystem: ecosystem ?? "", package: package ?? "", version: versionKey ?? "")
        } catch {
            StandardError.writeLine("ssvcctl: --version: \(error)")
            throw ExitStatus.failure
        }
        var path = source
        if source.lowercased().hasPrefix("file://") {
            guard let local = URL(string: source)?.path, !local.isEmpty else {
                StandardError.writeLine("ssvcctl: --advisories: '\(DisplayText.escaped(source))' is not a file URL")
                throw ExitStatus.failure
            }
            path = local
        } else if source.lowercased().hasPrefix("http://") || source.lowercased().hasPrefix("https://") {
            StandardError.writeLine(
                "ssvcctl: --advisories: ssvcctl evaluates offline: fetch \(URLText.masked(source)) first (curl -o FILE) and pass the file"
            )
            throw ExitStatus.failure
        }
        do {
            try AdvisoryFiles.read(path: path, into: &evaluator, limits: AdvisoryFiles.Budget(totalBytes: AdvisorySettings.defaultMaxBytes, specialFiles: true))
        } catch {
            StandardError.writeLine("ssvcctl: --advisories \(DisplayText.escaped(path)): \(error)")
            throw ExitStatus.failure
        }
        let data = AdvisoryData().read(evaluator, etag: nil, lastModified: nil, at: Date())
        let findings = data.findings
        let state: AdvisoryState = !findings.isEmpty ? .affected : data.undecided > 0 ? .unknown : .clear
        if json {
            print(ConsoleJSON.text(AdvisoryAnswer(advisoryState: state, advisories: findings, notes: data.notes, recordsRead: evaluator.recordsRead)))
        } else {
            print(Self.advisoryText(evaluator: evaluator, data: data))
        }
        if findings.isEmpty {
            if state == .unknown { throw ExitStatus.checksFailing }
            return
        }
        throw findings.contains { $0.fixed != nil } ? ExitStatus.updateRequired : ExitStatus.affected
    }

    /// `--json`'s answer.
    struct AdvisoryAnswer: Encodable {
        var advisoryState: AdvisoryState
        var advisories: [AdvisoryFinding]
        var notes: [String]
        var recordsRead: Int
    }

    /// The text answer: the verdict, then each advisory and why it affects.
    static func advisoryText(evaluator: AdvisoryEvaluator, data: AdvisoryData) -> String {
        let shown = { (text: String) in DisplayText.escaped(text) }
        let subject = "\(shown(evaluator.package)) \(shown(evaluator.version)) in \(shown(evaluator.ecosystem))"
        var lines: [String] = []
        if data.findings.isEmpty, data.undecided > 0 {
            lines.append(
                "unknown: no advisory of \(evaluator.recordsRead) records read affects \(subject), "
                    + "but \(data.undecided) ranges or records that could were not evaluated"
            )
        } else if data.findings.isEmpty {
            lines.append("clear: no advisory of \(evaluator.recordsRead) records read affects \(subject)")
        } else {
            lines.append("affected: \(data.findings.count) advisories of \(evaluator.recordsRead) records read affect \(subject)")
        }
        for finding in data.findings {
            let fixed = finding.fixed.map { "fixed in \(shown($0))" } ?? "no fix"
            let score = finding.score.map { ", score \($0)" } ?? ""
            lines.append("  \(shown(finding.id)) (\(fixed)\(score))" + (finding.summary.map { ": " + DisplayText.escaped($0, limit: 160) } ?? ""))
            if !finding.aliases.isEmpty { lines.append("    aliases: " + finding.aliases.map(shown).joined(separator: ", ")) }
            if let severity = finding.severity { lines.append("    severity: \(shown(severity))") }
            lines.append("    why: \(shown(finding.reason))")
            if let url = finding.url { lines.append("    \(shown(url))") }
        }
        if data.omitted > 0 { lines.append("  ... and \(data.omitted) more") }
        lines += data.notes.map { "note: \(shown($0))" }
        return lines.joined(separator: "\n")
    }
}
