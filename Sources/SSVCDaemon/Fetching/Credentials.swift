import SSVCPosix

/// systemd's credentials: files in `$CREDENTIALS_DIRECTORY`, which
/// `LoadCredential=` and `LoadCredentialEncrypted=` fill for the service
/// and which only the service can read.
enum Credentials {
    /// The path of credential `name`, or a reason it has none.
    static func path(_ name: String, environment: [String: String]) -> Result<String, Missing> {
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: "/")), name != ".", name != ".." else {
            return .failure(Missing(description: "'\(name)' is not a credential name"))
        }
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else {
            return .failure(Missing(description: "credential \(name): CREDENTIALS_DIRECTORY is not set (LoadCredential= in the unit sets it)"))
        }
        return .success(directory + "/" + name)
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }
}

/// Where an app's bearer token is read from, afresh before each check.
public enum BearerTokenSource: Sendable, Equatable, CustomStringConvertible {
    /// `bearer-token-file`: its first line.
    case file(String)
    /// `bearer-token-credential`: the credential's first line.
    case credential(String)

    public var description: String {
        switch self {
        case let .file(path): "bearer-token-file \(path)"
        case let .credential(name): "bearer-token-credential \(name)"
        }
    }

    /// The token; an error naming the source (never the token) when it
    /// cannot be read, is empty, or would not fit in a header.
    func read(environment: [String: String]) throws(FetchError) -> String {
        let path: String
        switch self {
        case let .file(file):
            path = file
        case let .credential(name):
            switch Credentials.path(name, environment: environment) {
            case let .success(found): path = found
            case let .failure(missing): throw FetchError("bearer token: \(missing.description)")
            }
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedReader.read(path: path, limit: 16 * 1024)
        } catch {
            throw FetchError("bearer token (\(self)): \(error.description)")
        }
        let firstLine = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let token = String(decoding: firstLine, as: UTF8.self).trimming(" \t\r")
        guard !token.isEmpty else { throw FetchError("bearer token (\(self)): the first line is empty") }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw FetchError("bearer token (\(self)): holds characters a header cannot carry")
        }
        return token
    }
}
