import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

/// `Tests/Fixtures/version_server.py` on a loopback port: a real HTTP(S)
/// server whose behaviour a test sets by writing its scenario.
final class VersionServer {
    let folder: TemporaryFolder
    let process: ChildProcess
    let port: Int
    let scheme: String
    /// The loopback address it listens on: 127.0.0.1, or ::1.
    let host: String
    private let scenarioPath: String
    private let logPath: String

    static var fixture: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/version_server.py").path
    }

    /// `networkOf` runs the server in the network namespace of that
    /// process (a booted container's PID 1), on that namespace's loopback.
    /// `clientCA` makes the server require a client certificate signed by it.
    init(
        scenario: [String: Any] = ["body": "{}"], tls: TestCertificates? = nil, networkOf: pid_t? = nil, host: String = "127.0.0.1",
        clientCA: String? = nil
    ) async throws {
        self.host = host
        folder = try TemporaryFolder()
        scenarioPath = folder.url.appendingPathComponent("scenario.json").path
        logPath = folder.url.appendingPathComponent("requests.log").path
        let portFile = folder.url.appendingPathComponent("port").path
        #expect(FileManager.default.createFile(atPath: logPath, contents: Data()))
        var command = [
            "/usr/bin/env", "python3", Self.fixture, "--scenario", scenarioPath, "--log", logPath, "--port-file", portFile, "--host", host,
        ]
        if let tls { command += ["--cert", tls.serverCertificate, "--key", tls.serverKey] }
        if let clientCA { command += ["--client-ca", clientCA] }
        if let networkOf { command = ["/usr/bin/nsenter", "--target=\(networkOf)", "--net", "--"] + command }
        scheme = tls == nil ? "http" : "https"
        try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: scenarioPath))
        process = try ChildProcess(command[0], Array(command.dropFirst()))
        var found: Int?
        let process = process
        _ = await eventually(within: 10, every: 0.02) {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            return found != nil || !process.isRunning
        }
        port = try #require(found, "the test server did not start")
    }


    func url(_ path: String) -> String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)"
    }

    func set(_ scenario: [String: Any]) throws {
        try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: scenarioPath))
    }

    /// Every request so far: path, query, headers.
    func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A CA and a server certificate for 127.0.0.1, made with openssl for one test.
struct TestCertificates {
    let folder: TemporaryFolder
    let caCertificate: String
    let serverCertificate: String
    let serverKey: String

    init() async throws {
        folder = try TemporaryFolder()
        let path = folder.url.path
        let script = """
            set -e
            cd '\(path)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
              -days 2 -subj /CN=ssvc-test-ca 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr \
              -subj /CN=127.0.0.1 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' > ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
              -extfile ext 2>/dev/null
            """
        let result = try await Executable.shell(script)
        try #require(result.status == 0, "openssl failed: \(result.standardError)")
        caCertificate = path + "/ca.pem"
        serverCertificate = path + "/server.pem"
        serverKey = path + "/server.key"
    }

    /// A client certificate with common name `name`, signed by the CA:
    /// the paths of its PEM certificate and key.
    func client(_ name: String) async throws -> (certificate: String, key: String) {
        let script = """
            set -e
            cd '\(folder.url.path)'
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout \(name).key -out \(name).csr \
              -subj /CN=\(name) 2>/dev/null
            printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' > \(name).ext
            openssl x509 -req -in \(name).csr -CA ca.pem -CAkey ca.key -CAcreateserial -out \(name).pem -days 2 \
              -extfile \(name).ext 2>/dev/null
            """
        let result = try await Executable.shell(script)
        try #require(result.status == 0, "openssl failed: \(result.standardError)")
        return (folder.url.path + "/\(name).pem", folder.url.path + "/\(name).key")
    }
}
