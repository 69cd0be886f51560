/// Why a document was refused and where. Lines count from 1 and end at line
/// feeds; columns count from 1 in Unicode scalars (a tab is one column, a byte
/// order mark at the start is none). The loader prefixes the file's name.
public struct TOMLError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    /// Short and lowercase: what was expected and what was found, with any
    /// control character from the input shown escaped.
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `3:14: expected '=' after a key, found '2'`
    public var description: String { "\(line):\(column): \(message)" }
}
