import FoundationEssentials

/// What an app's configuration asks of its documents: a minisign signature
/// by one of `publicKeys`, and, with `maxAgeDays`, a recent one.
package struct SignatureRequirement: Sendable, Equatable {
    /// Several for a rotation: any one of them may have signed.
    package var publicKeys: [Minisign.PublicKey]
    /// `signature-url`, or the configured URL with `.minisig` on its path.
    package var url: String
    package var maxAgeDays: Int?

    package init(publicKeys: [Minisign.PublicKey], url: String, maxAgeDays: Int? = nil) {
        self.publicKeys = publicKeys
        self.url = url
        self.maxAgeDays = maxAgeDays
    }

    /// `url` with `.minisig` appended to its path, before any query or
    /// fragment: `https://h/v.json?x=1` → `https://h/v.json.minisig?x=1`.
    package static func defaultURL(for url: String) -> String {
        let end = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        return url[..<end] + ".minisig" + url[end...]
    }

    /// The key that made `signature`, by its key id.
    package func key(for signature: Minisign.Signature) throws(SignatureProblem) -> Minisign.PublicKey {
        guard let key = publicKeys.first(where: { $0.keyID == signature.keyID }) else {
            let known = publicKeys.map(\.keyID.description).joined(separator: ", ")
            throw SignatureProblem("signed by key \(signature.keyID), which is not among public-keys (\(known))")
        }
        return key
    }

    /// Whether a verified signature made at `signedAt` may be accepted at
    /// `now`, when the newest one accepted before was made at `newestAccepted`.
    ///
    /// | the signature                                            | throws       |
    /// |----------------------------------------------------------|--------------|
    /// | is dated more than `futureTolerance` past `now`          | future       |
    /// | is older than `maxAgeDays`                               | expired      |
    /// | is older than `newestAccepted`                           | rollback     |
    /// | has no timestamp, with `maxAgeDays` or `newestAccepted`  | no timestamp |
    /// | otherwise                                                | nothing      |
    package func checkFreshness(signedAt: Date?, now: Date, newestAccepted: Date?) throws(SignatureProblem) {
        guard let signedAt else {
            if let maxAgeDays {
                throw SignatureProblem("the trusted comment has no timestamp:, which max-signature-age-days \(maxAgeDays) needs")
            }
            if let newestAccepted {
                throw SignatureProblem(
                    "the trusted comment has no timestamp:, which the rollback check needs (a signature made \(RFC3339.format(newestAccepted)) was accepted before)"
                )
            }
            return
        }
        // Stored, a time from the future would refuse every genuine
        // signature after it as a rollback: a publisher's wrong clock must
        // not freeze the fleet.
        if signedAt.timeIntervalSince(now) > Self.futureTolerance {
            throw SignatureProblem(
                "signed \(RFC3339.format(signedAt)), more than \(Int(Self.futureTolerance / 3_600)) h after this machine's clock (\(RFC3339.format(now))): refused; one of the two clocks is wrong"
            )
        }
        if let maxAgeDays, now.timeIntervalSince(signedAt) > Double(maxAgeDays) * 86_400 {
            throw SignatureProblem("signed \(Self.day(signedAt)), older than max-signature-age-days \(maxAgeDays)")
        }
        if let newestAccepted, signedAt < newestAccepted {
            throw SignatureProblem(
                "signed \(RFC3339.format(signedAt)), before the signature already accepted (\(RFC3339.format(newestAccepted))): refused as a rollback"
            )
        }
    }

    /// How far past this machine's clock a signature's time may be: clocks
    /// of a fleet and its publisher disagree by minutes, not by a day.
    package static let futureTolerance: TimeInterval = 86_400

    /// Whether the signature of what is stored has outlived `maxAgeDays` at `now`.
    package func hasExpired(signedAt: Date?, now: Date) -> Bool {
        guard let maxAgeDays, let signedAt else { return false }
        return now.timeIntervalSince(signedAt) > Double(maxAgeDays) * 86_400
    }

    /// `2026-10-01`, the day in UTC.
    private static func day(_ date: Date) -> String {
        String(RFC3339.format(date).prefix(10))
    }
}

/// Why a document's signature was not accepted, in words for the journal.
package struct SignatureProblem: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// The signature of the stored response, kept so that a 304 can reuse it
/// and the status can say who signed what and when.
package struct AcceptedSignature: Sendable, Equatable, Codable {
    /// The `.minisig` file as fetched.
    package var text: String
    /// Its `ETag`, for a conditional request when the document was not modified.
    package var etag: String?
    /// As minisign prints it: 16 upper-case hex digits.
    package var keyID: String
    /// The trusted comment's `timestamp:`, when it has one.
    package var signedAt: Date?

    package init(text: String, etag: String?, keyID: String, signedAt: Date?) {
        self.text = text
        self.etag = etag
        self.keyID = keyID
        self.signedAt = signedAt
    }
}
