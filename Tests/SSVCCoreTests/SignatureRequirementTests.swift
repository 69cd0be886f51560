import FoundationEssentials
import SSVCCore
import Testing

/// What an app asks of signatures, without the cryptography: where the
/// signature is, which key, how fresh; and what the state keeps of it.
@Suite("signature requirement: URL, key, freshness and rollback")
struct SignatureRequirementTests {
    let now = utc("2026-11-01T00:00:00Z")

    func requirement(maxAgeDays: Int? = nil) throws -> SignatureRequirement {
        SignatureRequirement(
            publicKeys: [try Minisign.PublicKey(parsing: "RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw")],
            url: "https://h/v.json.minisig", maxAgeDays: maxAgeDays
        )
    }

    @Test(".minisig goes on the path, before the query and the fragment", arguments: [
        ("https://h.example/v.json", "https://h.example/v.json.minisig"),
        ("https://h.example/v.json?channel=stable&x=1", "https://h.example/v.json.minisig?channel=stable&x=1"),
        ("https://h.example/v#frag", "https://h.example/v.minisig#frag"),
        ("file:///srv/v.json", "file:///srv/v.json.minisig"),
    ])
    func defaultURL(url: String, expected: String) {
        #expect(SignatureRequirement.defaultURL(for: url) == expected)
    }

    @Test("within the age and not before the newest accepted: accepted, also at equal times")
    func accepted() throws {
        let signedAt = now.addingTimeInterval(-29 * 86_400)
        try requirement(maxAgeDays: 30).checkFreshness(signedAt: signedAt, now: now, newestAccepted: signedAt)
        try requirement().checkFreshness(signedAt: nil, now: now, newestAccepted: nil)
    }

    @Test("a signature dated more than a day past the machine's clock is refused, near Int64.max too; a few hours ahead is accepted")
    func future() throws {
        try requirement().checkFreshness(signedAt: now.addingTimeInterval(6 * 3_600), now: now, newestAccepted: nil)
        let tomorrow = #expect(throws: SignatureProblem.self) {
            try requirement().checkFreshness(signedAt: now.addingTimeInterval(86_401), now: now, newestAccepted: nil)
        }
        #expect(tomorrow?.description == "signed 2026-11-02T00:00:01Z, more than 24 h after this machine's clock (2026-11-01T00:00:00Z): refused; one of the two clocks is wrong")
        let far = Date(timeIntervalSince1970: Double(Int64.max - 1))
        #expect(throws: SignatureProblem.self) { try requirement().checkFreshness(signedAt: far, now: now, newestAccepted: nil) }
    }

    @Test("older than max-signature-age-days: expired, with the day it was signed")
    func expired() throws {
        let problem = #expect(throws: SignatureProblem.self) {
            try requirement(maxAgeDays: 30).checkFreshness(signedAt: utc("2026-10-01T08:00:00Z"), now: now, newestAccepted: nil)
        }
        #expect(problem?.description == "signed 2026-10-01, older than max-signature-age-days 30")
        #expect(try requirement(maxAgeDays: 30).hasExpired(signedAt: utc("2026-10-01T08:00:00Z"), now: now))
        #expect(try !requirement(maxAgeDays: 31).hasExpired(signedAt: utc("2026-10-01T08:00:00Z"), now: now))
        #expect(try !requirement().hasExpired(signedAt: utc("2020-01-01T00:00:00Z"), now: now))
    }

    @Test("older than the newest signature accepted: a rollback")
    func rollback() throws {
        let problem = #expect(throws: SignatureProblem.self) {
            try requirement().checkFreshness(signedAt: utc("2026-10-01T00:00:00Z"), now: now, newestAccepted: utc("2026-10-02T00:00:00Z"))
        }
        #expect(problem?.description == "signed 2026-10-01T00:00:00Z, before the signature already accepted (2026-10-02T00:00:00Z): refused as a rollback")
    }

    @Test("no timestamp: refused when an age limit or an accepted signature needs one, and says which")
    func noTimestamp() throws {
        let age = #expect(throws: SignatureProblem.self) {
            try requirement(maxAgeDays: 7).checkFreshness(signedAt: nil, now: now, newestAccepted: nil)
        }
        #expect(age?.description == "the trusted comment has no timestamp:, which max-signature-age-days 7 needs")
        let rollback = #expect(throws: SignatureProblem.self) {
            try requirement().checkFreshness(signedAt: nil, now: now, newestAccepted: utc("2026-10-02T00:00:00Z"))
        }
        #expect(rollback?.description.hasPrefix("the trusted comment has no timestamp:, which the rollback check needs") == true)
    }

    @Test("a signature by a key not configured names its id and the configured ones")
    func unknownKey() throws {
        let signature = try Minisign.Signature(parsing: Array(MinisignFixture.file("other.minisig").utf8))
        let problem = #expect(throws: SignatureProblem.self) { try requirement().key(for: signature) }
        #expect(problem?.description == "signed by key 943C30A59AED68CE, which is not among public-keys (475416EDBA99E22F)")
    }
}
