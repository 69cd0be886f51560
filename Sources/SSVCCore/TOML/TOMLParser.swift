/// Reads TOML 1.0.0 documents into `ConfigTable`s, in plain Swift.
///
/// The input is bytes: a document that is not UTF-8, or that holds a control
/// character TOML does not allow (anything but tab, LF and CRLF), is refused
/// with the position of the first bad byte. A byte order mark at the start is
/// skipped. Time and memory grow linearly with the input; the reader never
/// recurses, and tables and arrays nest at most `maxDepth` deep.
///
/// Dates and times come back as `ConfigValue.other` with their text as
/// written; in multi-line strings a CRLF becomes LF.
public struct TOMLParser: Sendable {
    /// How many tables and arrays may enclose one another below the root:
    /// `a = [[1]]` nests 2 deep, `[a.b]` 2, `[[a]]` 2 (the array, then its
    /// table). The default, 100, is far beyond any configuration and keeps
    /// code that walks the result recursively shallow on a small thread
    /// stack: `==`, `TOMLWriter`, and Swift freeing the tree all recurse
    /// once per level (`taggedJSON` does not). Raise it only for trusted input.
    public var maxDepth: Int

    public init(maxDepth: Int = 100) {
        self.maxDepth = maxDepth
    }

    /// The document's root table, or the first error in it.
    public func parse(_ bytes: some Collection<UInt8>) throws(TOMLError) -> ConfigTable {
        let input = Array(bytes)
        let result = input.withUnsafeBufferPointer { buffer -> Result<ConfigTable, TOMLError> in
            var reader = TOMLReader(bytes: buffer, maxDepth: maxDepth)
            do throws(TOMLError) {
                return .success(try reader.readDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The document's root table, or the first error in it.
    public func parse(_ text: String) throws(TOMLError) -> ConfigTable {
        try parse(Array(text.utf8))
    }
}
