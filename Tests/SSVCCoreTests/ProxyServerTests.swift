import Testing
import SSVCCore

@Suite("ProxyServer: proxy URLs as curl takes them")
struct ProxyServerTests {
    @Test("host, port, user and password; http assumed; port 1080 by default")
    func parses() throws {
        let full = try ProxyServer(parsing: "http://ops:s%40cret@proxy.example:3128")
        #expect(full == ProxyServer(host: "proxy.example", port: 3128, user: "ops", password: "s@cret"))
        #expect(try ProxyServer(parsing: "proxy.example:8080") == ProxyServer(host: "proxy.example", port: 8080))
        #expect(try ProxyServer(parsing: " http://proxy.example/ ") == ProxyServer(host: "proxy.example", port: 1080))
        #expect(try ProxyServer(parsing: "http://[::1]:3128") == ProxyServer(host: "::1", port: 3128))
    }

    @Test("the description hides the user and password, and so does every error")
    func redacts() throws {
        #expect(try ProxyServer(parsing: "http://ops:hunter2@proxy:3128").description == "http://***@proxy:3128")
        #expect(try ProxyServer(parsing: "http://TOKEN@proxy:3128").description == "http://***@proxy:3128")
        #expect(try ProxyServer(parsing: "http://[::1]:3128").description == "http://[::1]:3128")
        for bad in ["socks5://ops:hunter2@proxy:1080", "http://ops:hunter2@proxy:3128/path", "http://ops:hunter2@:3128", "http://ops:hunter2@proxy:99999"] {
            #expect(throws: ProxyServer.Invalid.self, "\(bad)") { try ProxyServer(parsing: bad) }
            do {
                _ = try ProxyServer(parsing: bad)
            } catch {
                #expect(!error.description.contains("hunter2") && !error.description.contains("ops"), "\(error.description)")
                #expect(error.description.contains("proxy"), "\(error.description)")
            }
        }
    }
}
