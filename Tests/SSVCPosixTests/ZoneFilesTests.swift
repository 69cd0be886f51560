import Foundation
import SSVCCore
import SSVCPosix
import SSVCTestSupport
import Testing

/// The system's tzdata as ssvc reads it (RFC 8536 and the POSIX TZ
/// footer), against Python's `zoneinfo` on the same files, and the offer
/// windows' rule (SPEC §16) against a brute-force reading of it in Python.
@Suite("time zones and offer windows: agreement with Python's zoneinfo")
struct ZoneFilesTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/zone_oracle.py").path

    /// Whether a missing oracle is a failure rather than a skip.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    static var oracleIsAvailable: Bool {
        FileManager.default.fileExists(atPath: "/usr/bin/python3") && FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin")
    }

    /// Zones with every kind of rule: northern and southern daylight time,
    /// negative daylight time (Dublin), 30- and 45-minute offsets and
    /// shifts (Lord Howe, Chatham, Kathmandu), daylight time abolished
    /// (Sao Paulo), a skipped day (Apia), two-hour daylight time (Troll),
    /// Morocco's moving offsets, and local mean time before 1900.
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Chatham",
        "Asia/Kathmandu", "America/Sao_Paulo", "Pacific/Apia", "Antarctica/Troll", "Africa/Casablanca", "America/St_Johns",
        "Asia/Tehran", "Europe/London", "UTC",
    ]

    static func ask(_ questions: [[String: Any]]) async throws -> [String] {
        var input = Data()
        for question in questions {
            input.append(try JSONSerialization.data(withJSONObject: question))
            input.append(0x0A)
        }
        let result = try await Command.run(["/usr/bin/python3", script], input: input)
        try #require(result.status == 0, "the oracle failed: \(result.standardError)")
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("zoneinfo") == true)
        lines.removeFirst()
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    @Test("offsets agree with zoneinfo in 15 zones from 1850 to 2300, every transition's edges included",
          .enabled("python3 and tzdata are missing (make test-deps)") { ZoneFilesTests.isRequired || ZoneFilesTests.oracleIsAvailable })
    func offsetsAgree() async throws {
        var random = SplitMix64(seed: 0x7A6F_6E65)
        var questions: [[String: Any]] = []
        var instants: [[Int64]] = []
        var totalChanges = 0
        for name in Self.zones {
            let zone = try ZoneFiles.load(name)
            var list: [Int64] = []
            // Every 5 days and some hours, 1850 to 2300.
            var t: Int64 = -3_786_825_600
            while t < 10_413_792_000 {
                list.append(t + Int64.random(in: 0..<86_400, using: &random))
                t += 5 * 86_400
            }
            // Each change ssvc sees, and the seconds either side of it.
            var change = zone.nextChange(after: -3_786_825_600)
            var changes = 0
            while let at = change, at < 10_413_792_000 {
                list += [at - 1, at, at + 1]
                change = zone.nextChange(after: at)
                changes += 1
            }
            // Kathmandu has changed twice; Berlin well over a hundred times.
            if name != "UTC" { #expect(changes >= 2, "\(name): \(changes) changes") }
            totalChanges += changes
            instants.append(list)
            questions.append(["zone": name, "instants": list])
        }
        #expect(totalChanges > 1_000)
        let answers = try await Self.ask(questions)
        try #require(answers.count == Self.zones.count)
        var disagreements = 0
        for (index, name) in Self.zones.enumerated() {
            let zone = try ZoneFiles.load(name)
            let theirs = answers[index].split(separator: " ").compactMap { Int32($0) }
            try #require(theirs.count == instants[index].count, "\(name): \(theirs.count) answers")
            for (instant, offset) in zip(instants[index], theirs) where zone.offset(at: instant) != offset {
                disagreements += 1
                if disagreements <= 10 {
                    Issue.record("\(name) at \(instant): zoneinfo says \(offset) s, ssvc says \(zone.offset(at: instant)) s")
                }
            }
        }
        #expect(disagreements == 0)
    }

    @Test("the offer instant agrees with a brute-force reading of SPEC §16 in 300 random cases, over DST changes",
          .enabled("python3 and tzdata are missing (make test-deps)") { ZoneFilesTests.isRequired || ZoneFilesTests.oracleIsAvailable })
    func offersAgree() async throws {
        var random = SplitMix64(seed: 0x5749_4E44)
        // Zones whose offsets are whole minutes since 1970 (the oracle steps by minutes).
        let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Europe/Dublin", "Pacific/Chatham"]
        var cases: [(zone: String, windows: [OfferWindows.Window], from: Int64, position: Double)] = []
        // Around the changes of 2026 and 2027, where windows shrink and repeat.
        let changes: [Int64] = [1_774_746_000, 1_792_890_000, 1_773_558_000, 1_793_512_800, 1_775_314_800, 1_791_043_200, 1_806_195_600]
        for index in 0..<300 {
            let count = Int.random(in: 1...3, using: &random)
            var windows: [OfferWindows.Window] = []
            for _ in 0..<count {
                let days = Array(Set((0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0...6, using: &random) })).sorted()
                // Starts on the hour or half hour near the changes' wall times, and anywhere.
                let start = index % 2 == 0 ? Int.random(in: 0...47, using: &random) * 30 : Int.random(in: 0...1_439, using: &random)
                let minutes = [1, 30, 60, 90, 120, 240, 1_440, 3_000][Int.random(in: 0...7, using: &random)]
                windows.append(OfferWindows.Window(days: days, start: start, minutes: minutes))
            }
            let base = changes[Int.random(in: 0..<changes.count, using: &random)]
            let from = base + Int64.random(in: -8 * 86_400...86_400, using: &random)
            let position = [0, 0.25, 0.5, 0.999, 1, Double.random(in: 0..<1, using: &random)][Int.random(in: 0...5, using: &random)]
            cases.append((zones[index % zones.count], windows, from, position))
        }
        let answers = try await Self.ask(cases.map { item in
            [
                "zone": item.zone, "windows": item.windows.flatMap { window in window.days.map { [$0, window.start, window.minutes] } },
                "from": item.from, "position": item.position,
            ]
        })
        try #require(answers.count == cases.count)
        var disagreements = 0
        for (item, theirs) in zip(cases, answers) {
            let windows = OfferWindows(item.windows, zone: try ZoneFiles.load(item.zone))
            let ours = windows.offer(from: Date(timeIntervalSince1970: TimeInterval(item.from)), position: item.position)
            let oursText = ours.map { String(Int64($0.at.timeIntervalSince1970)) } ?? "none"
            if oursText != theirs {
                disagreements += 1
                if disagreements <= 10 { Issue.record("\(item): the brute force says \(theirs), ssvc says \(oursText)") }
            }
            // The window reported holds the offer.
            if let ours, let start = ours.windowStart, let end = ours.windowEnd {
                #expect(start <= ours.at && ours.at < end, "\(item): \(ours)")
            }
        }
        #expect(disagreements == 0)
    }

    @Test("a zone name is looked up only under the zoneinfo folder, and a missing or broken file is named")
    func namesAndFiles() throws {
        #expect(try ZoneFiles.load("UTC") == ZoneRules.utc)
        for bad in ["../../etc/passwd", "/etc/localtime", "Europe/../Berlin", "Europe//Berlin", "", "Europe/Ber lin", "Europe/\u{1B}[2J"] {
            #expect(throws: ZoneRulesError.self, "\(bad.debugDescription)") { try ZoneFiles.load(bad) }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-zones-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a zone".utf8).write(to: folder.appendingPathComponent("Broken"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Folder"), withIntermediateDirectories: true)
        #expect(mkfifo(folder.appendingPathComponent("Fifo").path, 0o600) == 0)
        func problem(_ name: String) -> String {
            do {
                _ = try ZoneFiles.load(name, zoneinfo: folder.path)
                return "read"
            } catch {
                return error.reason
            }
        }
        #expect(problem("Nowhere").contains("no zone 'Nowhere' in \(folder.path)"))
        #expect(problem("Broken").contains("not a TZif file"))
        // A FIFO or a folder in a zone's place is refused at once, never waited on.
        #expect(problem("Fifo") != "read")
        #expect(problem("Folder") != "read")
    }

    @Test("a damaged TZif file is refused, naming what is wrong, and never traps")
    func damagedFiles() throws {
        let berlin = try BoundedReader.read(path: "/usr/share/zoneinfo/Europe/Berlin", limit: ZoneRules.maximumBytes)
        _ = try ZoneRules(name: "Europe/Berlin", tzif: berlin)
        func reason(_ bytes: [UInt8]) -> String? {
            do {
                _ = try ZoneRules(name: "x", tzif: bytes)
                return nil
            } catch {
                return error.reason
            }
        }
        // Cut anywhere: an error, never a read past the end.
        for length in stride(from: 0, to: berlin.count, by: 7) {
            let cut = Array(berlin.prefix(length))
            if let problem = reason(cut) { #expect(!problem.isEmpty) }
        }
        #expect(reason(Array(berlin.prefix(30)))?.contains("not a TZif file") == true)
        var version = berlin
        version[4] = UInt8(ascii: "x")
        #expect(reason(version)?.contains("version") == true)
        // Counts past any zone's: refused before anything is allocated for them.
        var huge = berlin
        for index in 32..<36 { huge[index] = 0xFF }
        #expect(reason(huge)?.contains("past what a zone holds") == true)
        // A leap-second zone (right/…): its clock is not the system's.
        var leap = berlin
        leap[28..<32] = [0, 0, 0, 1]
        #expect(reason(leap) != nil)
        // Every single byte changed in turn: a zone or an error, never a trap.
        for index in berlin.indices {
            var changed = berlin
            changed[index] ^= 0xA5
            _ = reason(changed)
        }
    }

    @Test("a POSIX TZ footer: daylight time all year, negative daylight time, quoted names, and garbage refused")
    func footers() throws {
        func zone(_ footer: String) throws -> ZoneRules {
            // A version 2 file with no transitions and one type: the footer rules alone.
            var bytes: [UInt8] = []
            func header() {
                bytes += Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
                for count: UInt32 in [0, 0, 0, 0, 1, 4] { bytes += withUnsafeBytes(of: count.bigEndian, Array.init) }
            }
            header()
            bytes += [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
            header()
            bytes += [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
            bytes += [0x0A] + Array(footer.utf8) + [0x0A]
            return try ZoneRules(name: "test", tzif: bytes)
        }
        // 2030-07-01 and 2030-01-15, noon UTC.
        let july: Int64 = 1_909_137_600
        let january: Int64 = 1_894_622_400
        let berlin = try zone("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(berlin.offset(at: july) == 7_200 && berlin.offset(at: january) == 3_600)
        // Daylight time all year (RFC 8536 §3.3.1's example).
        let allYear = try zone("EST5EDT,0/0,J365/25")
        #expect(allYear.offset(at: july) == -14_400 && allYear.offset(at: january) == -14_400)
        // Dublin: "winter time" is the daylight-saving one, an hour behind.
        let dublin = try zone("IST-1GMT0,M10.5.0,M3.5.0/1")
        #expect(dublin.offset(at: july) == 3_600 && dublin.offset(at: january) == 0)
        let quoted = try zone("<+0330>-3:30")
        #expect(quoted.offset(at: july) == 12_600 && quoted.nextChange(after: july) == nil)
        // A rule holding a terminal escape is named escaped (found by attack).
        do {
            _ = try zone("CET-1CEST,M3.5.0,M10.5.0/3\u{1B}]0;PWNED\u{07}")
            Issue.record("a rule with an escape was read")
        } catch let error as ZoneRulesError {
            #expect(!error.reason.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(error.reason)")
            #expect(error.reason.contains("\\x1b]0;PWNED"), "\(error.reason)")
        }
        for garbage in ["CE", "CET", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "<+03-3", "CET-25", "CET-1CEST,J0,J365", "CET-1CEST,M3.5.0/168,M10.5.0"] {
            #expect(throws: ZoneRulesError.self, "\(garbage)") { try zone(garbage) }
        }
    }
}
