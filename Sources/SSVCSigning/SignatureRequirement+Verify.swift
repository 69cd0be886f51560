import CSodium
public import FoundationEssentials
public import SSVCCore

extension SignatureRequirement {
    /// Accepts `signature` (a `.minisig` file's bytes) for `document` as
    /// `minisign -V` would, then checks its age: parsed, made by one of the
    /// keys, the document's signature good (over the document for `Ed`, over
    /// its BLAKE2b-512 hash for `ED`), the global signature over signature
    /// and trusted comment good, and fresh enough at `now`.
    public func accept(
        _ document: [UInt8], signature bytes: [UInt8], etag: String?, now: Date, newestAccepted: Date?
    ) throws(SignatureProblem) -> AcceptedSignature {
        let signature: Minisign.Signature
        do {
            signature = try Minisign.Signature(parsing: bytes)
        } catch {
            throw SignatureProblem(error.description)
        }
        let key = try key(for: signature)
        let signed = signature.algorithm == .prehashed ? Sodium.blake2b512(document) : document
        guard Sodium.verify(signature.signature, of: signed, key: key.key) else {
            throw SignatureProblem("the signature by key \(key.keyID) does not match the document")
        }
        guard Sodium.verify(signature.globalSignature, of: signature.globallySignedBytes, key: key.key) else {
            throw SignatureProblem("the global signature by key \(key.keyID) does not match the trusted comment: it was altered")
        }
        let signedAt = signature.timestamp
        try checkFreshness(signedAt: signedAt, now: now, newestAccepted: newestAccepted)
        return AcceptedSignature(text: String(decoding: bytes, as: UTF8.self), etag: etag, keyID: key.keyID.description, signedAt: signedAt)
    }
}

/// The two libsodium calls minisign's verification makes.
enum Sodium {
    /// `sodium_init` once per process, before any other call, as libsodium
    /// asks: it picks the implementations for this CPU. It fails only
    /// without a random source, which verification does not use.
    static let initialized: Bool = sodium_init() >= 0

    /// Ed25519: whether `signature` is `key`'s over `message`.
    static func verify(_ signature: [UInt8], of message: [UInt8], key: [UInt8]) -> Bool {
        _ = initialized
        guard signature.count == Int(crypto_sign_BYTES), key.count == Int(crypto_sign_PUBLICKEYBYTES) else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), key) == 0
    }

    /// BLAKE2b with a 64-byte output and no key, as `minisign -S` hashes.
    static func blake2b512(_ message: [UInt8]) -> [UInt8] {
        _ = initialized
        var hash = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MAX))
        _ = crypto_generichash(&hash, hash.count, message, UInt64(message.count), nil, 0)
        return hash
    }
}
