import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("dotted scheme")
struct DottedSchemeTests {
    @Test("orders as the spec says", arguments: [
        ("2.1", "2.1.0", VersionComparison.same),
        ("2.31", "2.4", .newer),
        ("1.10", "1.9", .newer),
        ("1.0", "1.0.1", .older),
        ("1.01", "1.1", .same),
        ("1.a", "1.b", .older),
        ("1.2", "1.10a", .newer),  // "2" against "10a" is text: "2" > "1"
        ("99999999999999999999.1", "99999999999999999998.9", .newer),
        ("1..2", "1.0.2", .same),
        (" 1.2 ", "1.2", .same),
        ("", "0", .same),
    ])
    func order(lhs: String, rhs: String, expected: VersionComparison) throws {
        #expect(try VersionScheme.dotted.compare(lhs, rhs) == expected)
        #expect(try VersionScheme.dotted.compare(rhs, lhs) == expected.reversed)
    }
}
