import FoundationEssentials
import SSVCTestSupport
import Testing
@testable import SSVCCore

/// Offer windows (SPEC §16): what is inside, merging, the spread of a
/// fleet over a window, and the wall clock over daylight-saving changes.
@Suite("offer windows: the rule of SPEC §16")
struct OfferWindowsTests {
    /// A zone of a POSIX TZ rule alone: a version 2 TZif file with no
    /// transitions, whose footer decides every instant.
    static func zone(_ rule: String) throws -> ZoneRules {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            bytes += Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
            for count: UInt32 in [0, 0, 0, 0, 1, 4] { bytes += withUnsafeBytes(of: count.bigEndian, Array.init) }
            bytes += [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
        }
        bytes += [0x0A] + Array(rule.utf8) + [0x0A]
        return try ZoneRules(name: rule, tzif: bytes)
    }

    static func at(_ text: String) -> Date { RFC3339.parse(text)! }
    static func text(_ date: Date?) -> String { date.map(RFC3339.format) ?? "nil" }

    /// Saturday and Sunday 23:30 for an hour, in UTC.
    static let weekend = OfferWindows([OfferWindows.Window(days: [5, 6], start: 23 * 60 + 30, minutes: 60)], zone: .utc)

    @Test("an offer due outside a window waits for the next; inside one, it is made at once")
    func waitsForTheWindow() throws {
        // 2026-11-25 is a Wednesday.
        let due = Self.weekend.offer(from: Self.at("2026-11-25T10:00:00Z"), position: 0)
        #expect(Self.text(due?.at) == "2026-11-28T23:30:00Z")
        #expect(Self.text(due?.windowStart) == "2026-11-28T23:30:00Z")
        #expect(Self.text(due?.windowEnd) == "2026-11-29T00:30:00Z")
        let inside = Self.weekend.offer(from: Self.at("2026-11-29T00:10:07Z"), position: 0)
        #expect(Self.text(inside?.at) == "2026-11-29T00:10:07Z")
        // The window's last second, then the first after it.
        #expect(Self.text(Self.weekend.offer(from: Self.at("2026-11-29T00:29:59Z"), position: 0)?.at) == "2026-11-29T00:29:59Z")
        #expect(Self.text(Self.weekend.offer(from: Self.at("2026-11-29T00:30:00Z"), position: 0)?.at) == "2026-11-29T23:30:00Z")
        // Sunday's window crosses into Monday, and the week's end.
        #expect(Self.text(Self.weekend.offer(from: Self.at("2026-11-30T00:20:00Z"), position: 0)?.at) == "2026-11-30T00:20:00Z")
    }

    @Test("a fleet spreads over the window by position; a machine due late in a window is offered at once")
    func spreadsByPosition() {
        let from = Self.at("2026-11-25T10:00:00Z")
        #expect(Self.text(Self.weekend.offer(from: from, position: 0.5)?.at) == "2026-11-29T00:00:00Z")
        // floor(0.999 × 60) = 59 minutes: the window's last minute.
        #expect(Self.text(Self.weekend.offer(from: from, position: 0.999)?.at) == "2026-11-29T00:29:00Z")
        // p = 1 (a pinned rollout-position) takes the last minute too, never past the window.
        #expect(Self.text(Self.weekend.offer(from: from, position: 1)?.at) == "2026-11-29T00:29:00Z")
        // Due 40 minutes into the window, a machine at p = 0.5 is past its 30 minutes: at once.
        #expect(Self.text(Self.weekend.offer(from: Self.at("2026-11-29T00:10:00Z"), position: 0.5)?.at) == "2026-11-29T00:10:00Z")
        // Due 10 minutes in, it waits for its 30.
        #expect(Self.text(Self.weekend.offer(from: Self.at("2026-11-28T23:40:00Z"), position: 0.5)?.at) == "2026-11-29T00:00:00Z")
        // NaN or out of range positions are taken within [0, 1].
        #expect(Self.text(Self.weekend.offer(from: from, position: .nan)?.at) == "2026-11-28T23:30:00Z")
        #expect(Self.text(Self.weekend.offer(from: from, position: -3)?.at) == "2026-11-28T23:30:00Z")
    }

    @Test("overlapping or touching windows are one window, for the share of minutes too, across the week's end")
    func merging() {
        // Sun 22:00-24:00 and Mon 00:00-02:00 touch: one 240-minute window.
        let touching = OfferWindows([
            OfferWindows.Window(days: [6], start: 22 * 60, minutes: 120), OfferWindows.Window(days: [0], start: 0, minutes: 120),
        ], zone: .utc)
        let offer = touching.offer(from: Self.at("2026-11-25T10:00:00Z"), position: 0.5)
        // 2026-11-29 is a Sunday: 22:00 + 120 minutes.
        #expect(Self.text(offer?.at) == "2026-11-30T00:00:00Z")
        #expect(Self.text(offer?.windowStart) == "2026-11-29T22:00:00Z")
        #expect(Self.text(offer?.windowEnd) == "2026-11-30T02:00:00Z")
        // Overlapping, listed out of order.
        let overlapping = OfferWindows([
            OfferWindows.Window(days: [2], start: 3 * 60, minutes: 60), OfferWindows.Window(days: [2], start: 2 * 60, minutes: 90),
        ], zone: .utc)
        let merged = overlapping.offer(from: Self.at("2026-11-23T00:00:00Z"), position: 0)
        #expect(Self.text(merged?.windowStart) == "2026-11-25T02:00:00Z" && Self.text(merged?.windowEnd) == "2026-11-25T04:00:00Z")
        // A whole week, however it is cut, is always open: no window to wait for.
        let always = OfferWindows([OfferWindows.Window(days: [3], start: 12 * 60, minutes: 10_080)], zone: .utc)
        #expect(always.alwaysOpen)
        let open = always.offer(from: Self.at("2026-11-25T10:00:00Z").addingTimeInterval(0.25), position: 0.7)
        #expect(Self.text(open?.at) == "2026-11-25T10:00:01Z" && open?.windowStart == nil)
        let days = OfferWindows([OfferWindows.Window(days: Array(0...6), start: 6 * 60, minutes: 1_440)], zone: .utc)
        #expect(days.alwaysOpen)
        let almost = OfferWindows([OfferWindows.Window(days: Array(0...6), start: 6 * 60, minutes: 1_439)], zone: .utc)
        #expect(!almost.alwaysOpen)
    }

    @Test("over daylight-saving changes a window follows the wall clock: skipped, shrunk, or entered twice and offered once")
    func daylightSaving() throws {
        let berlin = try Self.zone("CET-1CEST,M3.5.0,M10.5.0/3")
        // 2026-03-29: 02:00 CET jumps to 03:00 CEST. Sunday 02:00-03:00 does not exist that day.
        let skipped = OfferWindows([OfferWindows.Window(days: [6], start: 2 * 60, minutes: 60)], zone: berlin)
        let spring = skipped.offer(from: Self.at("2026-03-28T12:00:00Z"), position: 0)
        #expect(Self.text(spring?.at) == "2026-04-05T00:00:00Z", "a week later, 02:00 CEST")
        // 01:30-02:30 shrinks to 01:30-02:00 CET; a machine at p = 0.5 (30 minutes in) has no time left that day.
        let shrunk = OfferWindows([OfferWindows.Window(days: [6], start: 90, minutes: 60)], zone: berlin)
        let early = shrunk.offer(from: Self.at("2026-03-28T12:00:00Z"), position: 0)
        #expect(Self.text(early?.at) == "2026-03-29T00:30:00Z")
        #expect(Self.text(early?.windowEnd) == "2026-03-29T01:00:00Z", "the window ends where the clock jumps")
        #expect(Self.text(shrunk.offer(from: Self.at("2026-03-28T12:00:00Z"), position: 0.5)?.at) == "2026-04-05T00:00:00Z")
        // 2026-10-25: 03:00 CEST goes back to 02:00 CET; 02:00-03:00 is lived twice, one window of two hours.
        let twice = OfferWindows([OfferWindows.Window(days: [6], start: 2 * 60, minutes: 60)], zone: berlin)
        let autumn = twice.offer(from: Self.at("2026-10-24T12:00:00Z"), position: 0)
        #expect(Self.text(autumn?.at) == "2026-10-25T00:00:00Z")
        #expect(Self.text(autumn?.windowStart) == "2026-10-25T00:00:00Z")
        #expect(Self.text(autumn?.windowEnd) == "2026-10-25T02:00:00Z")
        // Due in the second pass, it is offered then: once, inside the window.
        #expect(Self.text(twice.offer(from: Self.at("2026-10-25T01:20:00Z"), position: 0)?.at) == "2026-10-25T01:20:00Z")
        // A window that starts in the skipped hour opens when the clock jumps into it.
        let into = OfferWindows([OfferWindows.Window(days: [6], start: 2 * 60 + 30, minutes: 60)], zone: berlin)
        let jump = into.offer(from: Self.at("2026-03-28T12:00:00Z"), position: 0)
        #expect(Self.text(jump?.at) == "2026-03-29T01:00:00Z")
        #expect(Self.text(jump?.windowStart) == "2026-03-29T01:00:00Z")
        #expect(Self.text(jump?.windowEnd) == "2026-03-29T01:30:00Z")
    }

    @Test("instants at the ends of time: no trap, and the last offer is the last second RFC 3339 writes")
    func limits() {
        for seconds in [-1e300, -62_167_219_200, 0, 253_402_300_799, 1e300, .infinity, -.infinity, .nan] {
            for position in [0, 0.5, 1] {
                _ = Self.weekend.offer(from: Date(timeIntervalSince1970: seconds), position: position)
            }
        }
        #expect(Self.weekend.offer(from: Date(timeIntervalSince1970: 253_402_300_799), position: 0) != nil)
    }

    @Test("offer-windows is read as SPEC §16 writes it, and each fault names its part")
    func reading() throws {
        func windows(_ toml: String) throws(KeyProblem) -> [OfferWindows.Window] {
            let table = try! TOMLParser().parse(toml)
            return try WindowKeys.windows(table["offer-windows"]!)
        }
        func problem(_ toml: String) -> String {
            do {
                return "read \(try windows(toml))"
            } catch {
                return error.member + ": " + error.description
            }
        }
        let read = try windows(#"offer-windows = [ { days = ["Sat", "Sun", "Sat"], start = "23:30", minutes = 60 }, { days = ["Tue"], start = "00:00", minutes = 10080 } ]"#)
        #expect(read == [OfferWindows.Window(days: [5, 6], start: 1_410, minutes: 60), OfferWindows.Window(days: [1], start: 0, minutes: 10_080)])
        #expect(problem("offer-windows = []").contains(": empty"))
        #expect(problem(#"offer-windows = "Sat 23:30""#).contains("expected an array of tables"))
        #expect(problem(#"offer-windows = [ { days = ["sat"], start = "23:30", minutes = 60 } ]"#).hasPrefix("[0].days[0]: expected one of Mon, Tue"))
        #expect(problem(#"offer-windows = [ { days = [], start = "23:30", minutes = 60 } ]"#).hasPrefix("[0].days: empty"))
        #expect(problem(#"offer-windows = [ { start = "23:30", minutes = 60 } ]"#).hasPrefix("[0].days: missing"))
        for bad in ["24:00", "7:30", "07:60", "07:30:00", " 07:30", "０７:30"] {
            #expect(problem(#"offer-windows = [ { days = ["Mon"], start = "\#(bad)", minutes = 60 } ]"#).hasPrefix("[0].start: expected \"HH:MM\""), "\(bad)")
        }
        #expect(problem(#"offer-windows = [ { days = ["Mon"], start = 730, minutes = 60 } ]"#).hasPrefix("[0].start: expected a string"))
        for bad in ["0", "10081", "-1", "9223372036854775807"] {
            #expect(problem(#"offer-windows = [ { days = ["Mon"], start = "07:30", minutes = \#(bad) } ]"#).hasPrefix("[0].minutes: must be from 1 to 10080"), "\(bad)")
        }
        #expect(problem(#"offer-windows = [ { days = ["Mon"], start = "07:30", minutes = 60, end = "08:30" } ]"#).hasPrefix("[0].end: unknown key"))
        #expect(problem(#"offer-windows = [ { days = ["Mon"], start = "07:30", minutes = 60 }, 5 ]"#).hasPrefix("[1]: expected a table"))
        let many = Array(repeating: #"{ days = ["Mon"], start = "07:30", minutes = 1 }"#, count: 65).joined(separator: ", ")
        #expect(problem("offer-windows = [\(many)]").contains("more than 64"))
    }
}
