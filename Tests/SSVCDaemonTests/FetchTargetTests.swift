@testable import SSVCDaemon
import Testing

@Suite("fetch targets: what decides a request's route and credentials")
struct FetchTargetTests {
    @Test("loopback is localhost, 127.0.0.0/8 and ::1; nothing that only looks like it", arguments: [
        ("http://localhost:8080/v", true), ("http://LOCALHOST/v", true), ("http://a.localhost/v", true),
        ("http://127.0.0.1/v", true), ("http://127.1.2.3:9/v", true), ("http://[::1]:8080/v", true),
        ("http://127.0.0.1.example.com/v", false), ("http://localhost.example.com/v", false), ("http://10.0.0.1/v", false),
        ("http://[::2]/v", false), ("http://128.0.0.1/v", false),
    ])
    func loopback(url: String, expected: Bool) {
        #expect(FetchTarget.isLoopback(url) == expected, "\(url)")
    }

    @Test("host lower case and without brackets; the Host header's authority keeps the port and the brackets")
    func parts() throws {
        let six = try #require(FetchTarget("https://[::1]:8443/v?x=1"))
        #expect(six.scheme == "https" && six.host == "::1" && six.port == 8443)
        #expect(six.authority == "[::1]:8443")
        let name = try #require(FetchTarget("HTTP://Updates.Example/v"))
        #expect(name.scheme == "http" && name.host == "updates.example" && name.port == nil)
        #expect(name.authority == "updates.example")
        #expect(FetchTarget("not a url") == nil)
    }

    @Test("a deadline's message names the limit that applied: a mirror's download has 20 times timeout-seconds (issue 51)")
    func limitText() {
        #expect(Fetcher.limitText(timeoutSeconds: 5, factor: 1) == "timeout-seconds (5 s)")
        #expect(Fetcher.limitText(timeoutSeconds: 5, factor: AdvisoryCheck.downloadFactor) == "20 times timeout-seconds (100 s)")
        #expect(Fetcher.limitText(timeoutSeconds: 0.5, factor: 20) == "20 times timeout-seconds (10 s)")
    }
}
