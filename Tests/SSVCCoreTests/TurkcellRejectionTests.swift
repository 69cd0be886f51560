import Foundation
import Testing
@testable import SSVCCore

@Suite("Turkcell: malformed documents")
struct TurkcellRejectionTests {
    @Test("errors name the path of the bad value", arguments: [
        (#"{"packageName":"com.example.app","updates":{}}"#, "updates: expected an array, found an object"),
        (#"{"packageName":"com.example.app","updates":[{"targetPackageUrl":"u","descriptions":{"en":5}}]}"#,
         "updates[0].descriptions.en: expected an object or a string, found 5"),
        (#"{"packageName":"com.example.app","updates":[{},{},{"filters":{"deviceOsVersion":{"a":1}}}]}"#,
         "updates[2].filters.deviceOsVersion: expected a string, found an object"),
        (#"{"packageName":"com.example.app","messages":[{"displayAfterDate":"2012-13-01"}]}"#,
         "messages[0].displayAfterDate: '2012-13-01' is not a date: expected yyyy-MM-dd or yyyy-MM-dd HH:mm (UTC)"),
        (#"{"packageName":"com.example.app","messages":[{"displayBeforeDate":"01/02/2013"}]}"#,
         "messages[0].displayBeforeDate: '01/02/2013' is not a date: expected yyyy-MM-dd or yyyy-MM-dd HH:mm (UTC)"),
        (#"{"packageName":"com.example.app","messages":[{"maxDisplayCount":"many"}]}"#,
         #"messages[0].maxDisplayCount: expected an unsigned integer, found the string "many""#),
        (#"{"packageName":"com.example.app","updates":[{"targetPackageUrl":"u","forceUpdate":"maybe"}]}"#,
         #"updates[0].forceUpdate: expected true, false, 1 or 0, found the string "maybe""#),
        (#"{"updates":[]}"#, "packageName: missing"),
        (#"{"packageName":5}"#, "packageName: expected a string, found 5"),
        ("[]", "document: expected an object, found an array"),
    ])
    func rejected(document: String, message: String) {
        let error = #expect(throws: ResponseError.self) { try TurkcellFixture.decide(document) }
        #expect(error?.description == message)
    }

    @Test("numbers and booleans are read where the libraries read strings")
    func lenient() throws {
        let document = #"{"packageName":"com.example.app","updates":[{"filters":{"deviceIsTablet":false,"appVersionCode":">5"},"targetPackageUrl":"u","targetVersionCode":"12"}],"messages":[{"id":7,"maxDisplayCount":"500","displayPeriodInHours":"2"}]}"#
        let configuration = try TurkcellConfiguration(parsing: Array(document.utf8))
        #expect(configuration.updates[0].targetVersionCode == 12)
        #expect(configuration.messages[0].maxDisplayCount == 500)
        #expect(configuration.messages[0].displayPeriodInHours == 2)
        #expect(configuration.messages[0].key == "id:7")
        #expect(try TurkcellFixture.decide(document, TurkcellFixture.context(number: 6)).status == .updateAvailable)
    }
}
