import Testing
import SSVCCore

@Suite("NoProxyList: curl's NO_PROXY")
struct NoProxyListTests {
    @Test("a name matches itself and its subdomains, with or without a leading dot, in any case")
    func names() {
        let list = NoProxyList(parsing: " example.com, .internal ,LOCALHOST")
        #expect(list.bypasses("example.com"))
        #expect(list.bypasses("updates.Example.com"))
        #expect(!list.bypasses("badexample.com"))
        #expect(list.bypasses("internal"))
        #expect(list.bypasses("a.b.internal"))
        #expect(list.bypasses("localhost"))
        #expect(!list.bypasses("example.org"))
    }

    @Test("addresses match exactly, IPv6 with or without brackets; * matches all; empty matches none")
    func addresses() {
        let list = NoProxyList(parsing: "10.0.0.1,[::1],fe80::2")
        #expect(list.bypasses("10.0.0.1"))
        #expect(!list.bypasses("110.0.0.1"))
        #expect(!list.bypasses("10.0.0.10"))
        #expect(list.bypasses("::1"))
        #expect(list.bypasses("[fe80::2]"))
        #expect(NoProxyList(parsing: "*").bypasses("anything.example"))
        #expect(!NoProxyList(parsing: "").bypasses("example.com"))
        #expect(!NoProxyList(parsing: ",,").bypasses("example.com"))
    }
}
