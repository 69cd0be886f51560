import SSVCCore

/// The OSV record reader and the evaluator over any bytes: a record that
/// reads is evaluated in every ecosystem it names (and an unordered one)
/// at versions taken from its own events, which must never trap, and the
/// verdict must not depend on the order records arrive in.
enum OSVFuzzing {
    static func run(_ bytes: [UInt8]) {
        guard let record = try? OSVRecord(parsing: bytes) else { return }
        var targets: [(ecosystem: String, package: String)] = record.affected.compactMap { affected in
            guard let ecosystem = affected.ecosystem, let name = affected.name else { return nil }
            return (ecosystem, name)
        }
        targets.append(("Unknown", "x"))
        let versions = record.affected.flatMap { $0.ranges.flatMap { $0.events.map(\.version) } + $0.versions }.prefix(16)
        for target in targets.prefix(8) {
            for version in ["0", "1.0.0", "1:1.0-1"] + versions {
                guard var evaluator = try? AdvisoryEvaluator(ecosystem: target.ecosystem, package: target.package, version: version) else { continue }
                evaluator.add(record)
                evaluator.add(record)
                precondition(evaluator.findings.count <= 1, "one record affects at most once")
                if let finding = evaluator.findings.first {
                    precondition(finding.id == record.id, "a finding names its record")
                    precondition(record.withdrawn == nil, "a withdrawn record affected \(version)")
                    if let fixed = finding.fixed, case let .ordered(scheme) = evaluator.order {
                        precondition((try? scheme.compare(fixed, version)) == .newer, "the fix \(fixed) is not above \(version)")
                    }
                    precondition(finding.fixed.map { $0 != version } ?? true, "the running version \(version) is its own fix")
                }
            }
        }
        // Each record of a page is read as it is reached.
        if let page = try? OSVQuery.page(bytes) {
            for case .success(let record) in page.records { precondition(!record.id.isEmpty, "a record without an id read") }
        }
    }
}
