import SSVCPosix

/// Where a secret is read from: a file, or one of systemd's credentials
/// (a file in `$CREDENTIALS_DIRECTORY`, which `LoadCredential=` and
/// `LoadCredentialEncrypted=` fill for the service and which only the
/// service can read).
package enum SecretSource: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case credential(String)

    /// The path, or `credential NAME`: what errors name, never the secret.
    package var description: String {
        switch self {
        case let .file(path): path
        case let .credential(name): "credential \(name)"
        }
    }

    /// The whole secret; an error naming the source when it cannot be read.
    func read(environment: [String: String], limit: Int) throws(Failure) -> [UInt8] {
        let path: String
        switch self {
        case let .file(file):
            path = file
        case let .credential(name):
            guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: "/")), name != ".", name != ".." else {
                throw Failure(description: "'\(name)' is not a credential name")
            }
            guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else {
                throw Failure(description: "credential \(name): CREDENTIALS_DIRECTORY is not set (LoadCredential= in the unit sets it)")
            }
            path = directory + "/" + name
        }
        do {
            return try BoundedReader.read(path: path, limit: limit)
        } catch {
            throw Failure(description: error.description)
        }
    }

    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String
    }
}

extension SecretSource {
    /// An app's bearer token: the first line, read afresh before each
    /// check; an error naming the source (never the token) when it cannot
    /// be read, is empty, or would not fit in a header.
    func bearerToken(environment: [String: String]) throws(FetchError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try read(environment: environment, limit: 16 * 1024)
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
