import ArgumentParser
import FoundationEssentials
import SSVCCore
import SSVCPosix

/// `ssvcctl evaluate --offer-windows`: when an offer due at --at is made
/// on a machine at --position, by the daemon's own rule (SPEC §16).
extension Evaluate {
    func validateOfferWindows() throws {
        guard response == nil, advisories == nil, lifecycle == nil else {
            throw ValidationError("give only one of --response, --advisories, --lifecycle and --offer-windows")
        }
        guard let at else { throw ValidationError("--offer-windows needs --at: the time the offer is due from (RFC 3339)") }
        guard RFC3339.parse(at) != nil else { throw ValidationError("--at '\(at)': expected an RFC 3339 time such as 2026-01-02T03:04:05Z") }
        if let position, !(position.isFinite && (0...1).contains(position)) {
            throw ValidationError("--position: must be from 0 to 1, found \(position)")
        }
    }

    func runOfferWindows(_ file: String) throws {
        let windows: OfferWindows
        do {
            windows = try Self.readOfferWindows(file)
        } catch {
            StandardError.writeLine("ssvcctl: \(DisplayText.escaped(file)): \(error.reason)")
            throw ExitStatus.usage
        }
        let due = at.flatMap(RFC3339.parse) ?? Date()
        guard let offer = windows.offer(from: due, position: position ?? 0) else {
            StandardError.writeLine("ssvcctl: no offer window opens within 400 days (or 4,096 changes of the offset) of \(RFC3339.format(due)) in \(windows.zone.name)")
            throw ExitStatus.failure
        }
        if json {
            print(ConsoleJSON.text(WindowAnswer(
                offerAt: RFC3339.format(offer.at), windowStart: offer.windowStart.map(RFC3339.format),
                windowEnd: offer.windowEnd.map(RFC3339.format)
            )))
            return
        }
        var lines = ["offered at \(RFC3339.format(offer.at))"]
        if let start = offer.windowStart, let end = offer.windowEnd {
            lines.append("  in the window from \(RFC3339.format(start)) to \(RFC3339.format(end)) (\(windows.zone.name))")
        } else {
            lines.append("  the windows cover the whole week")
        }
        print(lines.joined(separator: "\n"))
    }

    /// `--json`'s answer; the window is null when the windows cover the week.
    struct WindowAnswer: Encodable {
        var offerAt: String
        var windowStart: String?
        var windowEnd: String?

        enum CodingKeys: String, CodingKey { case offerAt, windowStart, windowEnd }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(offerAt, forKey: .offerAt)
            try container.encode(windowStart, forKey: .windowStart)
            try container.encode(windowEnd, forKey: .windowEnd)
        }
    }

    /// A TOML file holding `offer-windows` and, optionally,
    /// `windows-time-zone`, read by the daemon's rules: each problem
    /// names its key.
    static func readOfferWindows(_ path: String) throws(ZoneRulesError) -> OfferWindows {
        let table: ConfigTable
        do {
            table = try TOMLParser().parse(try BoundedReader.read(path: path, limit: 1 << 20, specialFiles: true))
        } catch let error as BoundedReader.Failure {
            throw ZoneRulesError(error.description)
        } catch {
            throw ZoneRulesError("\(error)")
        }
        let known = [WindowKeys.offerWindows.name, WindowKeys.timeZone.name]
        for (key, _) in table where !known.contains(key) {
            throw ZoneRulesError("\(DisplayText.escaped(DisplayText.cut(key, bytes: 64))): unknown key: the file holds offer-windows and windows-time-zone")
        }
        guard let value = table[WindowKeys.offerWindows.name] else { throw ZoneRulesError("offer-windows: missing") }
        let list: [OfferWindows.Window]
        do {
            list = try WindowKeys.windows(value)
        } catch {
            throw ZoneRulesError("offer-windows\(error.member): \(error.description)")
        }
        var zone = ZoneRules.utc
        if let zoneValue = table[WindowKeys.timeZone.name] {
            do {
                zone = try ZoneFiles.load(try WindowKeys.timeZone.decode(zoneValue))
            } catch let error as KeyProblem {
                throw ZoneRulesError("windows-time-zone: \(error.description)")
            } catch let error as ZoneRulesError {
                throw ZoneRulesError("windows-time-zone: \(error.reason)")
            } catch {
                throw ZoneRulesError("windows-time-zone: \(error)")
            }
        }
        return OfferWindows(list, zone: zone)
    }
}
