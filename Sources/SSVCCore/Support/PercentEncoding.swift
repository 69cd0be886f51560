/// Query strings as RFC 3986 writes them.
public enum PercentEncoding {
    /// Keeps the unreserved characters (`A–Z a–z 0–9 - . _ ~`) and writes every
    /// other byte of the UTF-8 form as `%XX`, so a space is `%20`.
    public static func encode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// `base` with `parameters` added to its query: after `?` when it has no
    /// query yet, after `&` when it has one, before any `#fragment`.
    public static func appendingQuery(to base: String, _ parameters: [(name: String, value: String)]) -> String {
        guard !parameters.isEmpty else { return base }
        var url = Substring(base)
        var fragment: Substring = ""
        if let hash = url.firstIndex(of: "#") {
            fragment = url[hash...]
            url = url[..<hash]
        }
        let separator: String
        if !url.contains("?") {
            separator = "?"
        } else if url.hasSuffix("?") || url.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        let query = parameters.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
        return url + separator + query + fragment
    }
}
