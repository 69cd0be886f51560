import Foundation
import SSVCTestSupport
import Testing
@testable import SSVCCore

@Suite("NumVersion packing")
struct NumVersionTests {
    @Test("packs keys that fit", arguments: [
        ("1.0", UInt64(16_809_984)), ("1.0.4", 17_072_128), ("1.1", 17_858_560),
        ("10.2.3", 270_761_984), ("99.15.15", 0x99FF_8000),
    ])
    func packs(key: String, number: UInt64) {
        #expect(NumVersion.pack(key) == number)
    }

    @Test("refuses keys that do not fit", arguments: ["1", "100.0", "1.16", "1.0.16", "1.0.0.0", "1.a", "", "1.", "-1.0", " 1.0"])
    func refuses(key: String) {
        #expect(NumVersion.pack(key) == nil)
    }

    @Test("a configured number wins over the packed one")
    func configuredWins() {
        #expect(RunningVersion(key: "1.0").number == 16_809_984)
        #expect(RunningVersion(key: "1.0", configuredNumber: 0).number == 0)
        #expect(RunningVersion(key: "1.0-beta").number == nil)
    }
}
