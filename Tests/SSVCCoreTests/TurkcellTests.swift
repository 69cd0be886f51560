import Foundation
import Testing
@testable import SSVCCore

/// Shared fixtures: a context for a tablet-less Linux machine running 1.0.
enum TurkcellFixture {
    static let appID = "com.example.app"

    static func context(
        key: String = "1.0", number: UInt64? = nil, language: String = "en",
        osVersion: String = "6.0", model: String = "iPad2,1", properties: [String: String] = [:],
        now: Date = Date(timeIntervalSince1970: 1_700_000_000), records: [String: MessageDisplayRecord] = [:]
    ) -> EvaluationContext {
        EvaluationContext(
            running: RunningVersion(key: key, configuredNumber: number),
            appID: appID, locale: LocaleSettings(language: language, country: ""),
            machine: MachineFacts(osVersion: osVersion, model: model), properties: properties,
            now: now, messageRecords: records
        )
    }

    /// A document with one valid update entry guarded by `filters` (JSON object text).
    static func document(filters: String) -> [UInt8] {
        Array(#"{"packageName":"\#(appID)","updates":[{"filters":\#(filters),"targetPackageUrl":"https://x/pkg"}]}"#.utf8)
    }

    static func decide(_ body: [UInt8], _ context: EvaluationContext = context()) throws -> Decision {
        try ResponseFormat.turkcell.evaluate(body, context: context).decision
    }

    static func decide(_ text: String, _ context: EvaluationContext = context()) throws -> Decision {
        try decide(Array(text.utf8), context)
    }
}

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

@Suite("Turkcell: update selection")
struct TurkcellUpdateSelectionTests {
    func updates(_ entries: String) -> String {
        #"{"packageName":"com.example.app","updates":[\#(entries)]}"#
    }

    @Test("forceUpdate or forceExit (true, \"true\" or \"1\") requires", arguments: [
        #"{"targetPackageUrl":"u","forceUpdate":true}"#, #"{"targetPackageUrl":"u","forceUpdate":"true"}"#,
        #"{"targetPackageUrl":"u","forceUpdate":"1"}"#, #"{"targetPackageUrl":"u","forceUpdate":1}"#,
        #"{"forceExit":true}"#,
    ])
    func forced(entry: String) throws {
        #expect(try TurkcellFixture.decide(updates(entry)).status == .updateRequired)
    }

    @Test("without force, an update is available", arguments: [
        #"{"targetPackageUrl":"u"}"#, #"{"targetWebsiteUrl":"u","forceUpdate":false}"#,
        #"{"targetPackageUrl":"u","forceUpdate":"false"}"#, #"{"targetPackageUrl":"u","forceUpdate":"0"}"#,
    ])
    func optional(entry: String) throws {
        #expect(try TurkcellFixture.decide(updates(entry)).status == .updateAvailable)
    }

    @Test("an entry with neither a target URL nor forceExit does not count")
    func invalidEntrySkipped() throws {
        #expect(try TurkcellFixture.decide(updates(#"{"forceUpdate":true},{"targetPackageUrl":"  "}"#)).status == .upToDate)
        let decision = try TurkcellFixture.decide(updates(#"{"forceUpdate":true},{"targetWebsiteUrl":"https://w"}"#))
        #expect(decision.status == .updateAvailable)
        #expect(decision.description?.targetUrl == "https://w")
    }

    @Test("the first applying entry decides")
    func firstWins() throws {
        let decision = try TurkcellFixture.decide(updates(#"""
            {"filters":{"deviceOsName":"windows"},"targetPackageUrl":"a","forceUpdate":true},
            {"targetPackageUrl":"b","targetVersionName":"1.5"},
            {"targetPackageUrl":"c","forceUpdate":true}
            """#))
        #expect(decision.status == .updateAvailable)
        #expect(decision.description?.targetUrl == "b")
        #expect(decision.latestVersion == "1.5")
    }

    @Test("an entry targeting the running version or older does not apply")
    func targetVersions() throws {
        let context = TurkcellFixture.context(key: "2.0", number: 20)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionCode":20}"#), context).status == .upToDate)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionCode":"21"}"#), context).status == .updateAvailable)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"2.0.0"}"#), context).status == .upToDate)
        #expect(try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"2.10"}"#), context).status == .updateAvailable)
        let both = try TurkcellFixture.decide(updates(#"{"targetPackageUrl":"u","targetVersionName":"3.0","targetVersionCode":19}"#), context)
        #expect(both.status == .upToDate)
    }

    @Test("no update entries means up to date")
    func noUpdates() throws {
        #expect(try TurkcellFixture.decide(#"{"packageName":"com.example.app"}"#).status == .upToDate)
        #expect(try TurkcellFixture.decide(#"{"packageName":"com.example.app","updates":null}"#).status == .upToDate)
    }

    @Test("packageName must match the app id, white space removed")
    func packageName() throws {
        #expect(try TurkcellFixture.decide(#"{"packageName":" com.example .app "}"#).status == .upToDate)
        let error = #expect(throws: ResponseError.self) {
            try TurkcellFixture.decide(#"{"packageName":"com.other.app"}"#)
        }
        #expect(error?.description == "packageName 'com.other.app' does not match app-id 'com.example.app'")
    }
}

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

@Suite("Turkcell: messages")
struct TurkcellMessageTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func configuration(_ message: String) throws -> TurkcellConfiguration {
        try TurkcellConfiguration(parsing: Array(#"{"packageName":"com.example.app","messages":[\#(message)]}"#.utf8))
    }

    /// Runs the daemon's loop by hand: ask what is due, record each showing.
    func showings(_ configuration: TurkcellConfiguration, at times: [Date]) -> [Bool] {
        var records: [String: MessageDisplayRecord] = [:]
        return times.map { now in
            let due = configuration.messagesDue(for: TurkcellFixture.context(now: now, records: records))
            for notice in due { records[notice.key] = (records[notice.key] ?? MessageDisplayRecord()).shown(at: now) }
            return !due.isEmpty
        }
    }

    @Test("maxDisplayCount 3 shows three times, then stops")
    func maxDisplayCount() throws {
        let message = try configuration(#"{"descriptions":{"*":"Offer"},"maxDisplayCount":3}"#)
        let times = (0..<5).map { start.addingTimeInterval(Double($0) * 60) }
        #expect(showings(message, at: times) == [true, true, true, false, false])
    }

    @Test("displayPeriodInHours 5 hides at +4h30 and shows at +5h")
    func displayPeriod() throws {
        let message = try configuration(#"{"descriptions":{"*":"Offer"},"displayPeriodInHours":5}"#)
        let times = [start, start.addingTimeInterval(4.5 * 3_600), start.addingTimeInterval(5 * 3_600)]
        #expect(showings(message, at: times) == [true, false, true])
    }

    /// Times as seconds since 1970, UTC (in the comments as Turkcell writes them).
    @Test("the date window: shown inside, not before or after", arguments: [
        (1_338_984_000, true), (1_325_375_940, false), (1_370_390_400, false),  // 2012-06-06 12:00, 2011-12-31 23:59, 2013-06-05 00:00
        (1_325_376_000, true), (1_357_002_060, true), (1_357_002_120, false),  // 2012-01-01 00:00, 2013-01-01 01:01, 2013-01-01 01:02
    ])
    func dateWindow(seconds: Int, shown: Bool) throws {
        let message = try configuration(#"{"descriptions":{"*":"Offer"},"displayAfterDate":"2012-01-01","displayBeforeDate":"2013-01-01 01:01"}"#)
        #expect(showings(message, at: [Date(timeIntervalSince1970: TimeInterval(seconds))]) == [shown])
    }

    @Test("filters guard messages too")
    func filtered() throws {
        let message = try configuration(#"{"descriptions":{"*":"Offer"},"filters":{"deviceOsName":"ios"}}"#)
        #expect(showings(message, at: [start]) == [false])
    }

    @Test("the notice carries the description in the machine's language and the target")
    func notice() throws {
        let message = try configuration(#"{"id":"m1","descriptions":{"*":{"title":"Offer","message":"Try it"},"tr":{"message":"Dene"}},"targetWebsiteUrl":"https://w"}"#)
        let due = message.messagesDue(for: TurkcellFixture.context(now: start))
        #expect(due == [MessageNotice(key: "id:m1", description: UpdateDescription(message: "Try it", title: "Offer", targetUrl: "https://w"))])
    }

    @Test("a document's messages past the first hundred are not read, and the decision says so")
    func messageCap() throws {
        let entries = (0..<150).map { #"{"id":"m\#($0)","descriptions":{"*":"Offer"}}"# }.joined(separator: ",")
        let body = Array(#"{"packageName":"com.example.app","messages":[\#(entries)]}"#.utf8)
        let configuration = try TurkcellConfiguration(parsing: body)
        #expect(configuration.messages.count == 100 && configuration.ignoredMessages == 50)
        let evaluation = try ResponseFormat.turkcell.evaluate(body, context: TurkcellFixture.context(now: start))
        #expect(evaluation.messages.count == 100)
        #expect(evaluation.decision.notes.contains("50 messages past the first 100 not read"))
        #expect(evaluation.messageKeys?.count == 100)
    }

    @Test("the display records of messages a document no longer lists are dropped; the others are kept")
    func recordsPruned() throws {
        var state = AppState()
        state.messages = ["id:gone": MessageDisplayRecord(count: 2), "id:kept": MessageDisplayRecord(count: 1)]
        let body = Array(#"{"packageName":"com.example.app","messages":[{"id":"kept","descriptions":{"*":"Offer"},"maxDisplayCount":1}]}"#.utf8)
        let evaluation = try ResponseFormat.turkcell.evaluate(body, context: TurkcellFixture.context(now: start, records: state.messages))
        let after = state.recording(.success(evaluation, body: "", etag: nil, fetched: true), running: nil, at: start)
        #expect(Set(after.messages.keys) == ["id:kept"])
        #expect(after.messages["id:kept"]?.count == 1, "not due (count reached): kept as it was")
    }

    @Test("one id listed twice is one message, shown once; a record at its largest count stays there")
    func duplicateIDs() throws {
        let twice = try configuration(#"{"id":"m","descriptions":{"*":"A"},"maxDisplayCount":18446744073709551615},{"id":"m","descriptions":{"*":"B"},"maxDisplayCount":18446744073709551615}"#.replacingOccurrences(of: "},{", with: "},{"))
        let records = ["id:m": MessageDisplayRecord(count: 18_446_744_073_709_551_614)]
        let due = twice.messagesDue(for: TurkcellFixture.context(now: start, records: records))
        #expect(due.map(\.key) == ["id:m"])
        var state = AppState()
        state.messages = records
        let evaluation = Evaluation(decision: Decision(), messages: due)
        let after = state.recording(.success(evaluation, body: "{}", etag: nil, fetched: true), running: nil, at: start)
            .recording(.success(evaluation, body: "{}", etag: nil, fetched: true), running: nil, at: start)
        #expect(after.messages["id:m"]?.count == .max)
    }

    @Test("a message without id keeps one key however it is written, and a new key when its text changes")
    func stableKey() throws {
        let a = try configuration(#"{"descriptions":{"*":{"message":"Hi","title":"T"}},"maxDisplayCount":3}"#)
        let b = try configuration(#"{ "maxDisplayCount" : 4, "descriptions" : { "*" : { "title" : "T", "message" : "Hi" } } }"#)
        let c = try configuration(#"{"descriptions":{"*":{"message":"Hello","title":"T"}}}"#)
        #expect(a.messages[0].key == b.messages[0].key)
        #expect(a.messages[0].key != c.messages[0].key)
        #expect(a.messages[0].key.hasPrefix("hash:"))
    }
}
