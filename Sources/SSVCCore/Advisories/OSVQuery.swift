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

    /// One page of the answer: its records and the next page's token.
    /// The records are kept as parsed and each is read when asked for, so
    /// that one bad record is skipped, not the page, and a page of many
    /// records never holds them twice (issue 51: 16 MiB of `{},` took 1.3 GiB).
    public struct Page: Sendable {
        let vulns: [JSONValue]
        public var nextPageToken: String?

        /// Record `index` as parsed, for naming one that could not be read.
        public func parsed(_ index: Int) -> JSONValue { vulns[index] }

        /// Each record, read as it is reached.
        public var records: LazyMapCollection<Range<Int>, Result<OSVRecord, DocumentError>> {
            (0..<vulns.count).lazy.map { index in
                let field = JSONField(value: vulns[index], path: "vulns[\(index)]")
                do throws(DocumentError) {
                    return .success(try OSVRecord(field))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    public static func page(_ bytes: [UInt8]) throws(DocumentError) -> Page {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, memoryLimit: OSVRecord.maximumTreeBytes)
        } catch {
            throw DocumentError(path: "", problem: error.description)
        }
        let answer = JSONField(root: root)
        try answer.requireObject()
        var vulns: [JSONValue] = []
        if let field = answer.member("vulns") {
            guard case let .array(elements) = field.value else { throw field.mismatch("an array") }
            vulns = elements
        }
        var token: String?
        if let next = answer.member("next_page_token") {
            let text = try next.string()
            guard text.utf8.count <= 4096 else { throw next.invalid("a page token of more than 4096 bytes") }
            token = text.isEmpty ? nil : text
        }
        return Page(vulns: vulns, nextPageToken: token)
    }
}
