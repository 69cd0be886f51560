import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("nsnumeric scheme")
struct NumericSchemeTests {
    @Test("orders as Foundation's numeric compare does", arguments: [
        ("1.10", "1.9", VersionComparison.newer),
        ("a01", "a1", .same),
        ("1", "1.0", .older),
        ("x09y", "x9z", .older),
        ("1.2b", "1.2a", .newer),
        ("a", "B", .newer),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.nsnumeric.compare(lhs, rhs) == expected)
    }

    @Test("agrees with Foundation's compare(_:options: .numeric) on 20,000 generated pairs")
    func agreesWithFoundation() throws {
        var random = SplitMix64(seed: 0x4E53)
        func text() -> String {
            String((0..<Int.random(in: 0...8, using: &random)).map { _ in
                "000123456789..-abAZ~ ".randomElement(using: &random)!
            })
        }
        var disagreements = 0
        for _ in 0..<20_000 {
            let a = text()
            let b = Bool.random(using: &random) ? text() : a + text()
            let expected: VersionComparison = switch a.compare(b, options: .numeric) {
            case .orderedAscending: .older
            case .orderedSame: .same
            case .orderedDescending: .newer
            }
            let ours = try VersionScheme.nsnumeric.compare(a, b)
            if ours != expected {
                disagreements += 1
                Issue.record("'\(a)' vs '\(b)': Foundation says \(expected), ssvc says \(ours)")
            }
            if disagreements > 10 { break }
        }
    }
}
