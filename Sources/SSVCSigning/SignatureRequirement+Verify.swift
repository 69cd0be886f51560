import CSodium
@preconcurrency import Glibc
import FoundationEssentials
import SSVCCore

extension SignatureRequirement {
    /// Accepts `signature` (a `.minisig` file's bytes) for `document` as
    /// `minisign -V` would, then checks its age: parsed, made by one of the
    /// keys, the document's signature good (over the document for `Ed`, over
    /// its BLAKE2b-512 hash for `ED`), the global signature over signature
    /// and trusted comment good, and fresh enough at `now`.
    package func accept(
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

extension SignatureRequirement {
    /// The most bytes of a file a legacy (`Ed`) signature is checked over:
    /// it signs the whole file, which would have to be in memory.
    package static let maximumLegacyFileBytes = 16 << 20

    /// Accepts `signature` for the file at `path` as `accept` does for a
    /// document, hashing the file as it is read (an export of hundreds of
    /// megabytes is never in memory): a prehashed (`ED`) signature, as
    /// minisign makes by default, over any size; a legacy one over at most
    /// `maximumLegacyFileBytes`.
    package func acceptFile(
        at path: String, signature bytes: [UInt8], etag: String?, now: Date, newestAccepted: Date?
    ) throws(SignatureProblem) -> AcceptedSignature {
        let signature: Minisign.Signature
        do {
            signature = try Minisign.Signature(parsing: bytes)
        } catch {
            throw SignatureProblem(error.description)
        }
        guard signature.algorithm == .prehashed else {
            let document: [UInt8]
            do {
                document = try BoundedFile.read(path, limit: Self.maximumLegacyFileBytes)
            } catch {
                throw SignatureProblem("\(error.description): a file this large needs a prehashed signature (minisign's default; -H on old versions)")
            }
            return try accept(document, signature: bytes, etag: etag, now: now, newestAccepted: newestAccepted)
        }
        let key = try key(for: signature)
        let hash: [UInt8]
        do {
            hash = try Sodium.blake2b512(file: path)
        } catch {
            throw SignatureProblem(error.description)
        }
        guard Sodium.verify(signature.signature, of: hash, key: key.key) else {
            throw SignatureProblem("the signature by key \(key.keyID) does not match the file")
        }
        guard Sodium.verify(signature.globalSignature, of: signature.globallySignedBytes, key: key.key) else {
            throw SignatureProblem("the global signature by key \(key.keyID) does not match the trusted comment: it was altered")
        }
        try checkFreshness(signedAt: signature.timestamp, now: now, newestAccepted: newestAccepted)
        return AcceptedSignature(text: String(decoding: bytes, as: UTF8.self), etag: etag, keyID: key.keyID.description, signedAt: signature.timestamp)
    }
}

/// A file read whole, or hashed in chunks, with its error in words.
enum BoundedFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        try chunks(path) { (chunk: UnsafeRawBufferPointer) throws(Failure) in
            guard bytes.count + chunk.count <= limit else { throw Failure(description: "\(path) is larger than \(limit) bytes") }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }

    /// Calls `body` with each 64 KiB of the regular file at `path`.
    static func chunks(_ path: String, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard file >= 0 else { throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(path) is not a regular file") }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "reading \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { return }
            let failure = buffer.withUnsafeBytes { all -> Failure? in
                do throws(Failure) {
                    try body(UnsafeRawBufferPointer(rebasing: all[..<count]))
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }
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

    /// The BLAKE2b-512 of the file at `path`, read 64 KiB at a time.
    static func blake2b512(file path: String) throws(BoundedFile.Failure) -> [UInt8] {
        _ = initialized
        // The state is 64-byte aligned, which Swift imports as opaque: allocated here.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer { memory.deallocate() }
        let state = OpaquePointer(memory)
        crypto_generichash_init(state, nil, 0, Int(crypto_generichash_BYTES_MAX))
        try BoundedFile.chunks(path) { (chunk: UnsafeRawBufferPointer) throws(BoundedFile.Failure) in
            _ = crypto_generichash_update(state, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(chunk.count))
        }
        var hash = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MAX))
        _ = crypto_generichash_final(state, &hash, hash.count)
        return hash
    }

    /// BLAKE2b with a 64-byte output and no key, as `minisign -S` hashes.
    static func blake2b512(_ message: [UInt8]) -> [UInt8] {
        _ = initialized
        var hash = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MAX))
        _ = crypto_generichash(&hash, hash.count, message, UInt64(message.count), nil, 0)
        return hash
    }
}
