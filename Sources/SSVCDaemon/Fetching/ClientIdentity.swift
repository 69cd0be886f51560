import NIOSSL
import SSVCPosix

/// A client certificate (PEM, the chain in order) and its private key, read
/// and checked against each other when the configuration is loaded, so a
/// wrong pair stops the start or the reload rather than a check.
package struct ClientIdentity: Sendable, Hashable {
    package let certificateFile: String
    package let keySource: SecretSource
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey

    /// Reads both files; the error says which one failed and why (never
    /// the key's contents).
    package static func load(certificateFile: String, key keySource: SecretSource, environment: [String: String]) throws(Failure) -> ClientIdentity {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(try BoundedReader.read(path: certificateFile, limit: Fetcher.maximumPEMBytes))
        } catch let error as BoundedReader.Failure {
            throw Failure(description: error.description)
        } catch {
            throw Failure(description: "\(certificateFile) is not a PEM certificate")
        }
        guard !chain.isEmpty else { throw Failure(description: "\(certificateFile) holds no PEM certificate") }

        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: try keySource.read(environment: environment, limit: Fetcher.maximumPEMBytes), format: .pem)
        } catch let error as SecretSource.Failure {
            throw Failure(description: error.description)
        } catch {
            throw Failure(description: "\(keySource) is not a PEM private key (or it is encrypted)")
        }

        // BoringSSL refuses a key that does not belong to the certificate
        // when both are set on a context. No trust roots: nothing is read
        // from the system's store for this.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([])
        tls.certificateChain = chain.map { .certificate($0) }
        tls.privateKey = .privateKey(key)
        do {
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw Failure(description: "the key in \(keySource) does not belong to the certificate in \(certificateFile)")
        }
        return ClientIdentity(certificateFile: certificateFile, keySource: keySource, chain: chain, key: key)
    }

    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `configuration` presenting this identity.
    func apply(to configuration: inout TLSConfiguration) {
        configuration.certificateChain = chain.map { .certificate($0) }
        configuration.privateKey = .privateKey(key)
    }
}
