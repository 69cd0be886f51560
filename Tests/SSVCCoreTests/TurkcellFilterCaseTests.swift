import Foundation
import Testing
@testable import SSVCCore

@Suite("Turkcell: the Updater's own filter cases")
struct TurkcellFilterCaseTests {
    @Test("each case selects the update or not", arguments: [
        (#"{"deviceIsTablet":"false","deviceLanguage":"en"}"#, "1.0", "en", UpdateStatus.updateAvailable),
        (#"{"deviceModel":"iPod2*"}"#, "1.0", "en", .upToDate),
        (#"{"deviceOsVersion":"5.1,6.0,6.1"}"#, "1.0", "en", .updateAvailable),
        (#"{"appVersionName":"*"}"#, "1.0", "en", .updateAvailable),
        (#"{"wrongFilterKey":"false"}"#, "1.0", "en", .upToDate),
        (#"{"appVersionName":"1.0,!1.0,2.0"}"#, "3.0", "en", .upToDate),
        (#"{"deviceLanguage":"''"}"#, "1.0", "", .updateAvailable),
        (#"{"deviceLanguage":"!''"}"#, "1.0", "en", .updateAvailable),
    ])
    func filterCase(filters: String, key: String, language: String, status: UpdateStatus) throws {
        let context = TurkcellFixture.context(key: key, language: language)
        #expect(try TurkcellFixture.decide(TurkcellFixture.document(filters: filters), context).status == status)
    }

    @Test("\"5.1,6.*\" does not select OS 4.3, and does select 6.1")
    func osVersionGlob() throws {
        let body = TurkcellFixture.document(filters: #"{"deviceOsVersion":"5.1,6.*"}"#)
        #expect(try TurkcellFixture.decide(body, TurkcellFixture.context(osVersion: "4.3")).status == .upToDate)
        #expect(try TurkcellFixture.decide(body, TurkcellFixture.context(osVersion: "6.1")).status == .updateAvailable)
    }

    @Test("the app's properties override the gathered ones")
    func propertiesOverride() throws {
        let body = TurkcellFixture.document(filters: #"{"deviceModel":"server*","x-channel":"beta"}"#)
        #expect(try TurkcellFixture.decide(body).status == .upToDate)
        let context = TurkcellFixture.context(properties: ["deviceModel": "Server R740", "x-channel": "beta"])
        #expect(try TurkcellFixture.decide(body, context).status == .updateAvailable)
    }

    @Test("the standard properties carry the running version, OS and language")
    func standardProperties() {
        let properties = TurkcellFixture.context(key: "2.1", number: 7, language: "tr").clientProperties
        #expect(properties == [
            "appPackageName": "com.example.app", "appVersionName": "2.1", "appVersionCode": "7",
            "deviceOsName": "linux", "deviceOsVersion": "6.0", "deviceModel": "iPad2,1",
            "deviceIsTablet": "false", "deviceLanguage": "tr",
        ])
    }
}
