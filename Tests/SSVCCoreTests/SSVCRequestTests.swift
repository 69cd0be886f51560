import Foundation
import Testing
@testable import SSVCCore

@Suite("SSVC request URL")
struct SSVCRequestTests {
    let running = RunningVersion(key: "1.0", configuredNumber: 16_809_984)
    let locale = LocaleSettings(language: "en", country: "GB")

    func count(_ character: Character, in text: String) -> Int {
        text.filter { $0 == character }.count
    }

    @Test("a URL without a query gets one '?' and four '&'")
    func withoutQuery() {
        let url = SSVCRequest.url(base: "https://example.com/check", running: running, locale: locale)
        #expect(url == "https://example.com/check?SSVCLatestVersionKey=1.0&SSVCLatestVersionNumber=16809984&SSVCLanguage=en&SSVCCountry=GB&SSVCClientProtocolVersion=1")
        #expect(count("?", in: url) == 1)
        #expect(count("&", in: url) == 4)
    }

    @Test("a URL with a query keeps its '?' and joins with '&'")
    func withQuery() {
        let url = SSVCRequest.url(base: "https://example.com/check?app=a&b=c", running: running, locale: locale)
        #expect(url.hasPrefix("https://example.com/check?app=a&b=c&SSVCLatestVersionKey=1.0&"))
        #expect(count("?", in: url) == 1)
        #expect(count("&", in: url) == 6)
    }

    @Test("each SSVC parameter appears exactly once", arguments: [
        "https://example.com/check", "https://example.com/check?x=1", "https://example.com/check?",
    ])
    func eachParameterOnce(base: String) {
        let url = SSVCRequest.url(base: base, running: running, locale: locale)
        for name in ["SSVCLatestVersionKey", "SSVCLatestVersionNumber", "SSVCLanguage", "SSVCCountry", "SSVCClientProtocolVersion"] {
            #expect(url.components(separatedBy: "\(name)=").count == 2, "\(name) in \(url)")
        }
        #expect(!url.contains("?&") && !url.contains("&&"))
    }

    @Test("values are percent-encoded as RFC 3986 says")
    func encoding() {
        let url = SSVCRequest.url(
            base: "http://h/c", running: RunningVersion(key: "1.0 beta+1/ü~_-.", configuredNumber: nil),
            locale: LocaleSettings(language: "en", country: "")
        )
        #expect(url.contains("SSVCLatestVersionKey=1.0%20beta%2B1%2F%C3%BC~_-.&"))
        #expect(url.contains("SSVCLatestVersionNumber=0&"))
        #expect(url.contains("SSVCCountry=&"))
    }

    @Test("extra query parameters follow, in order, encoded")
    func extras() {
        let url = SSVCRequest.url(base: "http://h/c", running: running, locale: locale, extraQuery: [("channel", "beta one"), ("a", "&")])
        #expect(url.hasSuffix("SSVCClientProtocolVersion=1&channel=beta%20one&a=%26"))
    }

    @Test("a fragment stays at the end")
    func fragment() {
        let url = SSVCRequest.url(base: "http://h/c#top", running: running, locale: locale)
        #expect(url.hasPrefix("http://h/c?SSVCLatestVersionKey="))
        #expect(url.hasSuffix("&SSVCClientProtocolVersion=1#top"))
    }
}
