import CSodium

/// This machine's id as ssvc alone sees it, derived as systemd's
/// `sd_id128_get_machine_app_specific()` derives one: HMAC-SHA256 keyed
/// with the 16 bytes of `/etc/machine-id` over ssvc's application id, cut
/// to 16 bytes and marked as a version 4 UUID. Phased offers hash this, so
/// nothing derived from the raw machine id is ever computed from it alone.
package enum AppSpecificID {
    /// ssvc's application id, fixed forever: changing it would move every
    /// machine's place in every rollout.
    package static let application: [UInt8] = bytes(hex: "7304e881716d41dca01e669961e7bafa")!

    /// The id for `machineID` (32 hex digits, as `/etc/machine-id` holds
    /// it), as 32 lower-case hex digits. A machine id of another shape (the
    /// host name that stands in for it in a container) keys the HMAC with
    /// its own bytes.
    package static func derive(machineID: String) -> String {
        let key = bytes(hex: machineID) ?? Array(machineID.utf8)
        var id = Array(hmacSHA256(key: key, message: application).prefix(16))
        id[6] = (id[6] & 0x0F) | 0x40
        id[8] = (id[8] & 0x3F) | 0x80
        return id.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        _ = Sodium.initialized
        var state = crypto_auth_hmacsha256_state()
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &output)
        return output
    }

    /// 32 hex digits as 16 bytes; nil for anything else.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
