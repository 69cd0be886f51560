/// The offer windows' keys (SPEC §16), an app's or `[daemon]`'s default,
/// each declared once; ssvcd.toml(5) describes each.
package enum WindowKeys {
    package static let offerWindows = ConfigurationKey<ConfigValue>(
        "offer-windows", .written("[ { days = [ _day_, ... ], start = \"_HH:MM_\", minutes = _integer_ }, ... ]"),
        "A new optional version is offered, and its hooks run, only inside these weekly windows."
    )
    package static let timeZone = ConfigurationKey<String>(
        "windows-time-zone", .name, default: "UTC", "The time zone of offer-windows: an IANA name, localtime or UTC."
    )

    package static let all: [KeyEntry] = [offerWindows.entry, timeZone.entry]

    /// The most windows a list may have: far more than a week needs.
    package static let maximumWindows = 64

    /// The windows `value` lists, or what is wrong with it, the part named
    /// (`[1].start`).
    package static func windows(_ value: ConfigValue) throws(KeyProblem) -> [OfferWindows.Window] {
        guard let list = value.array else { throw KeyProblem("expected an array of tables, found \(value.type)") }
        guard !list.isEmpty else { throw KeyProblem("empty: list at least one window, or leave the key out") }
        guard list.count <= maximumWindows else { throw KeyProblem("\(list.count) windows, more than \(maximumWindows)") }
        var windows: [OfferWindows.Window] = []
        for (index, element) in list.enumerated() {
            let at = "[\(index)]"
            guard let table = element.table else {
                throw KeyProblem(member: at, "expected a table { days, start, minutes }, found \(element.type)")
            }
            for (member, _) in table where !["days", "start", "minutes"].contains(member) {
                throw KeyProblem(member: "\(at).\(DisplayText.cut(member, bytes: 64))", "unknown key: a window has days, start and minutes")
            }
            windows.append(OfferWindows.Window(
                days: try days(table["days"], at: at + ".days"),
                start: try start(table["start"], at: at + ".start"),
                minutes: try minutes(table["minutes"], at: at + ".minutes")
            ))
        }
        return windows
    }

    private static func days(_ value: ConfigValue?, at: String) throws(KeyProblem) -> [Int] {
        let names = OfferWindows.dayNames.joined(separator: ", ")
        guard let value else { throw KeyProblem(member: at, "missing: the weekdays, from \(names)") }
        guard let list = value.array else { throw KeyProblem(member: at, "expected an array of weekdays, found \(value.type)") }
        guard !list.isEmpty else { throw KeyProblem(member: at, "empty: list at least one of \(names)") }
        var days: [Int] = []
        for (index, element) in list.enumerated() {
            guard let name = element.string, let day = OfferWindows.dayNames.firstIndex(of: name) else {
                let found = element.string.map { "'\(DisplayText.escaped(DisplayText.cut($0, bytes: 64)))'" } ?? element.type
                throw KeyProblem(member: "\(at)[\(index)]", "expected one of \(names), found \(found)")
            }
            if !days.contains(day) { days.append(day) }
        }
        return days
    }

    /// "HH:MM", 00:00 to 23:59, as minutes after midnight.
    private static func start(_ value: ConfigValue?, at: String) throws(KeyProblem) -> Int {
        guard let value else { throw KeyProblem(member: at, "missing: the window's first minute, \"HH:MM\"") }
        guard let text = value.string else { throw KeyProblem(member: at, "expected a string \"HH:MM\", found \(value.type)") }
        let bytes = Array(text.utf8)
        let digit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"), digit(bytes[0]), digit(bytes[1]), digit(bytes[3]), digit(bytes[4]) else {
            throw KeyProblem(member: at, "expected \"HH:MM\" (00:00 to 23:59), found '\(DisplayText.escaped(DisplayText.cut(text, bytes: 64)))'")
        }
        let hours = Int(bytes[0] - 0x30) * 10 + Int(bytes[1] - 0x30)
        let minutes = Int(bytes[3] - 0x30) * 10 + Int(bytes[4] - 0x30)
        guard hours < 24, minutes < 60 else { throw KeyProblem(member: at, "expected \"HH:MM\" (00:00 to 23:59), found '\(text)'") }
        return hours * 60 + minutes
    }

    private static func minutes(_ value: ConfigValue?, at: String) throws(KeyProblem) -> Int {
        guard let value else { throw KeyProblem(member: at, "missing: the window's length in minutes, 1 to \(OfferWindows.minutesPerWeek)") }
        guard let number = value.int else { throw KeyProblem(member: at, "expected an integer, found \(value.type)") }
        if let problem = (1...OfferWindows.minutesPerWeek).problem(number) { throw KeyProblem(member: at, problem) }
        return number
    }

    /// What `windows-time-zone` names: UTC without a file, else the file's
    /// path (`localtime`: /etc/localtime) under `zoneinfo`; or why the
    /// name cannot be a zone's.
    package static func zonePath(_ name: String, zoneinfo: String = "/usr/share/zoneinfo") -> Result<String?, KeyProblem> {
        if name == "UTC" { return .success(nil) }
        if name == "localtime" { return .success("/etc/localtime") }
        if let problem = ZoneRules.nameProblem(name) { return .failure(KeyProblem(problem)) }
        return .success(zoneinfo + "/" + name)
    }
}
