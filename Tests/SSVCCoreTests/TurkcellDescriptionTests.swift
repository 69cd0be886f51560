import Foundation
import Testing
@testable import SSVCCore

@Suite("Turkcell: descriptions")
struct TurkcellDescriptionTests {
    func description(_ descriptions: String, language: String) throws -> UpdateDescription? {
        let body = #"{"packageName":"com.example.app","updates":[{"targetPackageUrl":"u","descriptions":\#(descriptions)}]}"#
        return try TurkcellFixture.decide(body, TurkcellFixture.context(language: language)).description
    }

    @Test("the exact language wins, else the last wildcard")
    func selection() throws {
        let texts = #"{"*":{"message":"star"},"tr":{"message":"merhaba","whatIsNew":"yeni","warnings":"dikkat"},"":{"message":"empty"}}"#
        let turkish = try description(texts, language: "tr")
        #expect(turkish == UpdateDescription(message: "merhaba", whatIsNew: "yeni", warnings: "dikkat", targetUrl: "u"))
        #expect(try description(texts, language: "de")?.message == "empty")
        #expect(try description(#"{"":{"message":"empty"},"*":{"message":"star"}}"#, language: "de")?.message == "star")
        #expect(try description(#"{"EN":{"message":"hi"}}"#, language: "en")?.message == "hi")
        #expect(try description(#"{"fr":{"message":"salut"}}"#, language: "en")?.message == nil)
    }

    @Test("a plain string is the message")
    func plainString() throws {
        #expect(try description(#"{"*":"New version"}"#, language: "en")?.message == "New version")
    }
}
