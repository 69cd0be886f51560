import FoundationEssentials

/// minisign's public keys and detached signatures, read exactly as
/// minisign writes them (`src/minisign.c`). Parsing only: checking the
/// signatures needs Ed25519 and BLAKE2b, which come from libsodium outside
/// the core.
package enum Minisign {
    /// A signature file longer than this is refused unread.
    package static let maximumSignatureBytes = 4096

    /// Something that is not a minisign key or signature, and why.
    package struct Invalid: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The 8 bytes naming a key pair, in every signature it makes.
    package struct KeyID: Hashable, Sendable, CustomStringConvertible {
        package let bytes: [UInt8]

        /// As minisign prints it: the bytes as a little-endian number, in
        /// 16 upper-case hex digits.
        package var description: String {
            bytes.reversed().map { byte in
                let digits = Array("0123456789ABCDEF")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }.joined()
        }
    }

    /// An Ed25519 public key: `"Ed" ‖ key id (8) ‖ key (32)`, base64.
    package struct PublicKey: Hashable, Sendable {
        package let keyID: KeyID
        package let key: [UInt8]

        /// The base64 line of a `minisign.pub`, or the whole file with its
        /// untrusted comment.
        package init(parsing text: String) throws(Invalid) {
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimming(" \t") }.filter { !$0.isEmpty }
            let line = lines.first { !$0.hasPrefix("untrusted comment:") } ?? ""
            guard let bytes = Data(base64Encoded: line).map(Array.init), bytes.count == 42 else {
                throw Invalid(description: "'\(line.prefix(60))' is not a minisign public key (the base64 line of minisign.pub)")
            }
            guard bytes[0] == UInt8(ascii: "E"), bytes[1] == UInt8(ascii: "d") else {
                throw Invalid(description: "public key \(line.prefix(12))…: not an Ed25519 minisign key")
            }
            keyID = KeyID(bytes: Array(bytes[2..<10]))
            key = Array(bytes[10..<42])
        }
    }

    /// A `.minisig` file: an untrusted comment, the signature, a trusted
    /// comment and the global signature over signature and trusted comment.
    package struct Signature: Sendable, Equatable {
        package enum Algorithm: Sendable, Equatable {
            /// `Ed`: the document itself is signed (minisign -l, and old versions).
            case plain
            /// `ED`: its BLAKE2b-512 hash is signed (the default of recent minisign).
            case prehashed
        }

        package let algorithm: Algorithm
        package let keyID: KeyID
        /// The Ed25519 signature of the document, or of its hash.
        package let signature: [UInt8]
        /// The text after `trusted comment: `.
        package let trustedComment: String
        /// The Ed25519 signature of `signature ‖ trustedComment`.
        package let globalSignature: [UInt8]

        package init(parsing bytes: [UInt8]) throws(Invalid) {
            guard bytes.count <= Minisign.maximumSignatureBytes else {
                throw Invalid(description: "signature of \(bytes.count) bytes is larger than \(Minisign.maximumSignatureBytes) bytes")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw Invalid(description: "signature is not UTF-8 text") }
            // "\r\n" is one Character: split on any line break. Like
            // minisign, keep the trusted comment's own spaces (they are
            // signed) and forgive them after base64.
            let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().map { index, line in
                var trimmed = Substring(line)
                while index != 2, let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
                return trimmed
            }
            guard lines.count >= 4 else { throw Invalid(description: "signature has \(lines.count) lines, not the 4 of a .minisig file") }
            guard lines[0].hasPrefix("untrusted comment: ") else {
                throw Invalid(description: "signature line 1 does not start with 'untrusted comment: '")
            }
            guard let signed = Data(base64Encoded: String(lines[1])).map(Array.init), signed.count == 74 else {
                throw Invalid(description: "signature line 2 is not a base64 minisign signature")
            }
            switch (signed[0], signed[1]) {
            case (UInt8(ascii: "E"), UInt8(ascii: "d")): algorithm = .plain
            case (UInt8(ascii: "E"), UInt8(ascii: "D")): algorithm = .prehashed
            default: throw Invalid(description: "signature algorithm '\(String(decoding: signed[0..<2], as: UTF8.self))' is neither Ed nor ED")
            }
            keyID = KeyID(bytes: Array(signed[2..<10]))
            signature = Array(signed[10..<74])
            let prefix = "trusted comment: "
            guard lines[2].hasPrefix(prefix) else { throw Invalid(description: "signature line 3 does not start with 'trusted comment: '") }
            trustedComment = String(lines[2].dropFirst(prefix.count))
            guard trustedComment.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
                throw Invalid(description: "the trusted comment holds control characters")
            }
            guard let global = Data(base64Encoded: String(lines[3])).map(Array.init), global.count == 64 else {
                throw Invalid(description: "signature line 4 is not a base64 global signature")
            }
            globalSignature = global
            for extra in lines.dropFirst(4) where !extra.isEmpty {
                throw Invalid(description: "signature has text after its 4 lines")
            }
        }

        /// What the global signature signs: the signature, then the trusted comment.
        package var globallySignedBytes: [UInt8] {
            signature + Array(trustedComment.utf8)
        }

        /// The `timestamp:` of the trusted comment (minisign writes
        /// `timestamp:<unix seconds>` there unless told otherwise), as a
        /// date; nil when it has none.
        package var timestamp: Date? {
            for field in trustedComment.split(whereSeparator: { $0 == "\t" || $0 == " " }) where field.hasPrefix("timestamp:") {
                let digits = field.dropFirst("timestamp:".count)
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(digits) else { return nil }
                return Date(timeIntervalSince1970: TimeInterval(seconds))
            }
            return nil
        }
    }
}
