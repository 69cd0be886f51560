import Foundation
import Testing
@testable import SSVCCore

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
