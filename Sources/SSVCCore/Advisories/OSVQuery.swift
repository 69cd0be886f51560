/// The osv.dev API's query (`POST /v1/query`), by package only: the
/// running version is never sent, so the server learns which package a
/// machine has, not which version of it.
public enum OSVQuery {
    /// The most pages followed for one package: 1,000 records each at osv.dev.
    public static let maximumPages = 100

    /// The request body for one page.
    public static func body(ecosystem: String, package: String, pageToken: String? = nil) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("package", .object([("name", .string(package)), ("ecosystem", .string(ecosystem))])),
        ]
        if let pageToken { members.append(("page_token", .string(pageToken))) }
        return Array(JSONValue.object(members).canonicalText.utf8)
    }

    /// One page of the answer: its records (each read on its own, so that
    /// one bad record is skipped, not the page) and the next page's token.
    public struct Page: Sendable {
        public var records: [Result<OSVRecord, DocumentError>]
        public var nextPageToken: String?
    }

    public static func page(_ bytes: [UInt8]) throws(DocumentError) -> Page {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw DocumentError(path: "", problem: error.description)
        }
        let answer = JSONField(root: root)
        try answer.requireObject()
        var records: [Result<OSVRecord, DocumentError>] = []
        if let vulns = answer.member("vulns") {
            for vuln in try vulns.elements() {
                do {
                    records.append(.success(try OSVRecord(vuln)))
                } catch {
                    records.append(.failure(error))
                }
            }
        }
        var token: String?
        if let next = answer.member("next_page_token") {
            let text = try next.string()
            guard text.utf8.count <= 4096 else { throw next.invalid("a page token of more than 4096 bytes") }
            token = text.isEmpty ? nil : text
        }
        return Page(records: records, nextPageToken: token)
    }
}
