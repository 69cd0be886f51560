/// A CVSS v3.0 or v3.1 vector string, read strictly, with its base score
/// and that score's severity rating, as FIRST's specifications define them
/// (v3.1: section 7.1 and Appendix A; v3.0: section 8.1).
///
/// Only the base metrics make the score: an advisory's `score` is its base
/// score. Temporal and environmental metrics may follow them and are
/// checked (a known name, a known value, once each) but not scored.
/// Metrics may come in any order.
public struct CVSSVector: Sendable, Hashable {
    /// The specification a vector names in its prefix.
    public enum Version: String, Sendable, CaseIterable {
        case v3_0 = "3.0"
        case v3_1 = "3.1"
    }

    /// The qualitative severity rating of a score (specification, section 5).
    public enum Rating: String, Sendable, CaseIterable {
        case none = "None"
        case low = "Low"
        case medium = "Medium"
        case high = "High"
        case critical = "Critical"

        /// The rating of a score from 0.0 to 10.0.
        ///
        /// | score      | rating   |
        /// |------------|----------|
        /// | 0.0        | None     |
        /// | 0.1 – 3.9  | Low      |
        /// | 4.0 – 6.9  | Medium   |
        /// | 7.0 – 8.9  | High     |
        /// | 9.0 – 10.0 | Critical |
        public init(score: Double) {
            switch score {
            case ..<0.1: self = .none
            case ..<4.0: self = .low
            case ..<7.0: self = .medium
            case ..<9.0: self = .high
            default: self = .critical
            }
        }
    }

    /// The most bytes a vector string may have: every metric of v3.1 with
    /// its longest value takes 150.
    public static let maximumLength = 256

    public let version: Version
    /// The eight base metrics in the specification's order
    /// (`AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`), whatever order the vector had.
    public let baseVector: String
    /// The base score, 0.0 to 10.0 with one decimal.
    public let baseScore: Double

    public var rating: Rating { Rating(score: baseScore) }

    /// Reads `text` (`CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`, optionally
    /// followed by temporal and environmental metrics). Throws, naming what
    /// was wrong, on another prefix or version (CVSS v2 vectors have no
    /// prefix; `CVSS:4.0` is another scoring system), an empty or malformed
    /// part, an unknown metric or value, a metric given twice, or a missing
    /// base metric.
    public init(parsing text: String) throws(CVSSError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong(bytes: text.utf8.count) }
        let bytes = Array(text.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let prefix = parts[0]
        guard prefix.starts(with: "CVSS:".utf8) else { throw .notCVSS3(CVSSError.shown(bytes[...])) }
        guard let version = Version(rawValue: String(decoding: prefix.dropFirst(5), as: UTF8.self)) else {
            throw .unsupportedVersion(CVSSError.shown(prefix.dropFirst(5)))
        }
        var values: [Metric: UInt8] = [:]
        for part in parts.dropFirst() {
            let pieces = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else { throw .malformedPart(CVSSError.shown(part)) }
            guard let metric = Metric(rawValue: String(decoding: pieces[0], as: UTF8.self)) else {
                throw .unknownMetric(CVSSError.shown(pieces[0]))
            }
            guard pieces[1].count == 1, let letter = pieces[1].first, metric.values.utf8.contains(letter) else {
                throw .unknownValue(metric: metric.rawValue, value: CVSSError.shown(pieces[1]))
            }
            guard values.updateValue(letter, forKey: metric) == nil else { throw .duplicateMetric(metric.rawValue) }
        }
        let missing = Metric.base.filter { values[$0] == nil }
        guard missing.isEmpty else { throw .missingBaseMetrics(missing.map(\.rawValue)) }

        self.version = version
        baseVector = Metric.base.map { "\($0.rawValue):\(Character(Unicode.Scalar(values[$0]!)))" }.joined(separator: "/")
        let changed = values[.S] == UInt8(ascii: "C")
        func weight(_ metric: Metric) -> Double { metric.weight(of: values[metric]!, scopeChanged: changed) }
        baseScore = Self.baseScore(
            version: version, scopeChanged: changed,
            exploitability: [Metric.AV, .AC, .PR, .UI].map(weight),
            impacts: [Metric.C, .I, .A].map(weight)
        )
    }

    /// The base equations (v3.1 section 7.1; v3.0 section 8.1 is the same
    /// but for Roundup), over the metrics' weights.
    static func baseScore(version: Version, scopeChanged: Bool, exploitability weights: [Double], impacts: [Double]) -> Double {
        let unaffected = impacts.reduce(1.0) { $0 * (1 - $1) }
        let impactSubScore = 1 - unaffected
        let impact: Double
        if scopeChanged {
            var power = 1.0
            for _ in 0..<15 { power *= impactSubScore - 0.02 }
            impact = 7.52 * (impactSubScore - 0.029) - 3.25 * power
        } else {
            impact = 6.42 * impactSubScore
        }
        guard impact > 0 else { return 0 }
        let exploitability = weights.reduce(8.22, *)
        let sum = scopeChanged ? 1.08 * (impact + exploitability) : impact + exploitability
        return roundUp(min(sum, 10), version: version)
    }

    /// The specification's Roundup: the smallest number with one decimal
    /// that is at least `value`, for `value` in 0...10.
    ///
    /// v3.0 defines it as that and nothing more, a ceiling on the value
    /// as computed. v3.1 (Appendix A) first rounds to five decimals in
    /// integers, so that a sum that binary floating point makes
    /// 4.000000000000001 rounds up to 4.0, not 4.1. Over the 2,592 base
    /// vectors no exact sum comes within 0.0003 of a tenth except the cap
    /// of 10.0, so both give every base score the same.
    static func roundUp(_ value: Double, version: Version) -> Double {
        switch version {
        case .v3_0:
            return (value * 10).rounded(.up) / 10
        case .v3_1:
            let whole = Int((value * 100_000).rounded())
            if whole % 10_000 == 0 { return Double(whole) / 100_000 }
            return Double(whole / 10_000 + 1) / 10
        }
    }
}

/// Why a CVSS vector string was refused. Quoted parts of the string are
/// escaped (`DisplayText`) and cut short: the string is a server's text.
public enum CVSSError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLong(bytes: Int)
    /// No `CVSS:` prefix (a CVSS v2 vector has none).
    case notCVSS3(String)
    /// `CVSS:` followed by a version other than 3.0 or 3.1.
    case unsupportedVersion(String)
    /// A part that is not `NAME:VALUE` (an empty one included).
    case malformedPart(String)
    case unknownMetric(String)
    case unknownValue(metric: String, value: String)
    case duplicateMetric(String)
    case missingBaseMetrics([String])

    public var description: String {
        switch self {
        case let .tooLong(bytes): "a CVSS vector of \(bytes) bytes is longer than any valid one (\(CVSSVector.maximumLength))"
        case let .notCVSS3(text): "'\(text)' is not a CVSS v3 vector (no 'CVSS:3.x/' prefix)"
        case let .unsupportedVersion(version): "CVSS version '\(version)' is not scored here (only 3.0 and 3.1)"
        case let .malformedPart(part): "'\(part)' in the CVSS vector is not METRIC:VALUE"
        case let .unknownMetric(name): "'\(name)' is not a CVSS v3 metric"
        case let .unknownValue(metric, value): "'\(value)' is not a value of the CVSS v3 metric \(metric)"
        case let .duplicateMetric(name): "the CVSS metric \(name) is given twice"
        case let .missingBaseMetrics(names): "the CVSS vector lacks the base metric\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))"
        }
    }

    /// Outside text as an error quotes it.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String { DisplayText.escaped(String(decoding: bytes, as: UTF8.self), limit: 40) }
}

/// The metrics of CVSS v3.0 and v3.1 (the same names and values in both)
/// and the weights of the base ones.
private enum Metric: String, CaseIterable {
    case AV, AC, PR, UI, S, C, I, A
    case E, RL, RC
    case CR, IR, AR, MAV, MAC, MPR, MUI, MS, MC, MI, MA

    static let base: [Metric] = [.AV, .AC, .PR, .UI, .S, .C, .I, .A]

    /// Each value's letter; `X` is Not Defined, allowed outside the base group.
    var values: String {
        switch self {
        case .AV: "NALP"
        case .AC: "LH"
        case .PR: "NLH"
        case .UI: "NR"
        case .S: "UC"
        case .C, .I, .A: "HLN"
        case .E: "XHFPU"
        case .RL: "XUWTO"
        case .RC: "XCRU"
        case .CR, .IR, .AR: "XHML"
        case .MAV: "XNALP"
        case .MAC: "XLH"
        case .MPR: "XNLH"
        case .MUI: "XNR"
        case .MS: "XUC"
        case .MC, .MI, .MA: "XHLN"
        }
    }

    /// A base metric's weight (v3.1 section 7.4); Privileges Required
    /// weighs more when the scope changes. 0 for S and the other groups,
    /// which the base equations do not weigh.
    func weight(of letter: UInt8, scopeChanged: Bool) -> Double {
        switch (self, Unicode.Scalar(letter)) {
        case (.AV, "N"), (.PR, "N"), (.UI, "N"): 0.85
        case (.AV, "A"): 0.62
        case (.AV, "L"): 0.55
        case (.AV, "P"): 0.2
        case (.AC, "L"): 0.77
        case (.AC, "H"): 0.44
        case (.PR, "L"): scopeChanged ? 0.68 : 0.62
        case (.PR, "H"): scopeChanged ? 0.5 : 0.27
        case (.UI, "R"): 0.62
        case (.C, "H"), (.I, "H"), (.A, "H"): 0.56
        case (.C, "L"), (.I, "L"), (.A, "L"): 0.22
        default: 0
        }
    }
}
