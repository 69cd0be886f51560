import SSVCCore
import Testing

@Suite("URLs as shown: user information masked")
struct URLTextTests {
    @Test("a URL's user and password become ***; host, path and query stay", arguments: [
        ("http://alice:s3cret@host.example/v.json?x=1", "http://***@host.example/v.json?x=1"),
        ("https://alice:p%40ss@h:8443/v", "https://***@h:8443/v"),
        ("https://ghp_TOKEN123@h/v", "https://***@h/v"),
        ("https://h/v?mail=a@b:c", "https://h/v?mail=a@b:c"),
        ("file:///srv/v.json", "file:///srv/v.json"),
        ("https://a:b:c@h/", "https://***@h/"),
        ("https://a@b@h/", "https://***@h/"),
        ("user:pw@proxy:3128", "***@proxy:3128"),
        ("not a url", "not a url"),
        ("", ""),
        // Read as bytes: a combining mark, a multi-byte user, `://` twice.
        ("https://u\u{301}@h/", "https://***@h/"),
        ("https://ü:ß@h/v", "https://***@h/v"),
        ("a://b://c@d/e", "a://b://c@d/e"),
        ("@", "***@"),
        (":/", ":/"),
    ])
    func masked(url: String, shown: String) {
        #expect(URLText.masked(url) == shown)
    }
}
