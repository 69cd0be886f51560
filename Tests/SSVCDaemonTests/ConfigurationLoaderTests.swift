import Foundation
import SSVCCore
@testable import SSVCDaemon
import SSVCTestSupport
import Synchronization
import Testing

@Suite("configuration loading")
struct ConfigurationLoaderTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("apps.d"), withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func load(_ main: String, environment: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        let path = (try? write("ssvcd.toml", main)) ?? ""
        return try ConfigurationLoader.load(.init(mainFile: path), environment: environment)
    }

    @Test("metrics-file may not name the state file, the socket or a configuration file", arguments: [
        ("state/state.json", "the state file"), ("./state/../state/state.json", "the state file"), ("control.sock", "the control socket"),
        ("ssvcd.toml", "the configuration file"), ("apps.d/x.toml", "an app's configuration file"),
    ])
    func metricsFileTaken(path: String, what: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        _ = try write("apps.d/x.toml", "url = \"https://example.com/x\"\nversion = \"1\"\n")
        let main = "[daemon]\nstate-dir = \"state\"\nsocket = \"control.sock\"\napps-dir = \"apps.d\"\nmetrics-file = \"\(path)\"\n"
        #expect {
            _ = try load(main)
        } throws: { error in
            let text = "\(error)"
            return text.contains("metrics-file") && text.contains("is \(what), which metrics would overwrite")
        }
        let fine = main.replacingOccurrences(of: "metrics-file = \"\(path)\"", with: "metrics-file = \"state/ssvc.prom\"")
        #expect(throws: Never.self) { _ = try load(fine) }
    }

    @Test("files held in memory (the fuzzer's) load as the same files on disk do, errors and skipped names included", arguments: [
        ["apps.d/a.toml": "url = \"https://example.com/a\"\nversion = \"1\"\n", "apps.d/b.toml": "url = \"https://example.com/b\"\nversion = \"2\"\nschedule = \"weekly\"\n"],
        ["apps.d/a.toml": "url = \"https://example.com/a\"\nversion = \"1\"\n", "apps.d/notes.conf": "x"],
        ["apps.d/a.toml": "url = \"https://example.com/a\"\nversion = \"1\"\n", "apps.d/a2.toml": "name = \"a\"\nurl = \"https://example.com/a\"\nversion = \"1\"\n"],
        ["apps.d/bad.toml": "url = \"https://example.com/a\"\nversion = 1\n"],
        ["apps.d/x.toml": "url = \"https://example.com/x\"\nversion = \"1\"\nmetrics-file = \"a\"\n"],
    ])
    func inMemory(apps: [String: String]) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = "[daemon]\napps-dir = \"apps.d\"\nmetrics-file = \"ssvc.prom\"\n\n[[app]]\nname = \"m\"\nurl = \"https://example.com/m\"\nversion = \"3\"\n"
        var files = ["ssvcd.toml": main]
        files.merge(apps) { $1 }
        var memory: [String: [UInt8]] = [:]
        for (name, text) in files { memory[try write(name, text)] = Array(text.utf8) }
        let overrides = ConfigurationLoader.Overrides(mainFile: folder.appendingPathComponent("ssvcd.toml").path)
        let fromDisk = Result { () throws(ConfigurationError) in try ConfigurationLoader.load(overrides, environment: [:]) }
        let fromMemory = Result { () throws(ConfigurationError) in
            try ConfigurationLoader.load(overrides, environment: [:], files: ConfigurationMemory(files: memory, folders: [folder.path]))
        }
        #expect(fromMemory == fromDisk)
        if case let .success(configuration) = fromDisk { #expect(configuration.apps.count == 1 + apps.keys.filter { $0.hasSuffix(".toml") }.count) }
    }

    @Test("an app file removed between the listing and its read is one not listed; a dangling link is still an error (issue 52)")
    func vanishingAppFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = try write("ssvcd.toml", "[daemon]\napps-dir = \"apps.d\"\n")
        _ = try write("apps.d/a.toml", "url = \"https://example.com/a\"\nversion = \"1\"\n")
        let toggled = folder.appendingPathComponent("apps.d/b.toml").path
        #expect(try ConfigurationDocument.readIfPresent(toggled) == nil)
        try FileManager.default.createSymbolicLink(atPath: toggled, withDestinationPath: folder.appendingPathComponent("nowhere.toml").path)
        #expect {
            _ = try ConfigurationDocument.readIfPresent(toggled)
        } throws: { error in
            "\(error)".contains("b.toml") && "\(error)".contains("No such file")
        }
        try FileManager.default.removeItem(atPath: toggled)
        // A package upgrade's churn: b.toml comes and goes (each step atomic) while the apps are read.
        let staged = folder.appendingPathComponent("apps.d/.b.staged").path
        let text = "url = \"https://example.com/b\"\nversion = \"1\"\n"
        // The churn stops when the reads are done and is waited for before
        // the folder goes: a thread left running past the test wrote into a
        // removed folder and, when the process ended mid-write, showed as a
        // leak under ASan (CI at ae87f2e). The thread starts here, not from
        // a Task: under ASan, with the pool busy, such a Task had not
        // begun after 30 s.
        let stop = Mutex(false)
        defer { stop.withLock { $0 = true } }
        let turns = Mutex(0)
        let finished = Mutex(false)
        Thread.detachNewThread {
            while !stop.withLock({ $0 }), turns.withLock({ $0 }) < 20_000 {
                guard FileManager.default.createFile(atPath: staged, contents: Data(text.utf8)) else { break }
                rename(staged, toggled)
                unlink(toggled)
                turns.withLock { $0 += 1 }
            }
            finished.withLock { $0 = true }
        }
        let churning = await eventually(within: 30, every: 0.01) { turns.withLock { $0 } > 0 }
        var counts: Set<Int> = []
        for _ in 0..<300 {
            counts.insert(try ConfigurationLoader.load(.init(mainFile: main), environment: [:]).apps.count)
        }
        stop.withLock { $0 = true }
        let ended = await eventually(within: 60, every: 0.01) { finished.withLock { $0 } }
        #expect(churning, "the churn never started")
        #expect(ended, "the churn did not stop")
        #expect(counts.isSubset(of: [1, 2]))
    }

    @Test("defaults come from the spec and the environment")
    func defaults() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = try load("", environment: ["STATE_DIRECTORY": "/var/lib/x:/other", "RUNTIME_DIRECTORY": "/run/x", "LANG": "de_DE.UTF-8"])
        let daemon = configuration.daemon
        #expect(daemon.stateDirectory == "/var/lib/x")
        #expect(daemon.socketPath == "/run/ssvc/io.ssvc.Daemon")
        #expect(daemon.metricsFile == "/run/x/ssvc.prom")
        #expect(daemon.hooksDirectory == "/etc/ssvc/hooks.d")
        #expect(daemon.appsDirectory == "/etc/ssvc/apps.d")
        #expect(daemon.language == "de" && daemon.country == "DE")
        #expect(daemon.timeoutSeconds == 30 && daemon.maxResponseBytes == 1 << 20)
        #expect(daemon.policy == SchedulePolicy(firstCheckWindow: 600, catchUpWindow: 3_600, minimumInterval: 30))
        let bare = try load("")
        #expect(bare.daemon.stateDirectory == "/var/lib/ssvc")
        #expect(bare.daemon.socketPath == "/run/ssvc/io.ssvc.Daemon")
        #expect(bare.daemon.metricsFile == "/run/ssvc/ssvc.prom")
        let off = try load("[daemon]\nmetrics-file = \"\"\nhooks-dir = \"\"\nsocket = \"/srv/s/sock\"\n")
        #expect(off.daemon.metricsFile == nil && off.daemon.hooksDirectory == nil)
        let beside = try load("[daemon]\nsocket = \"/srv/s/sock\"\nhooks-dir = \"hooks\"\n")
        #expect(beside.daemon.metricsFile == "/srv/s/ssvc.prom")
        #expect(beside.daemon.hooksDirectory == folder.path + "/hooks")
        #expect(bare.apps.isEmpty)
    }

    @Test("phased offers: rollout-position pins this machine, phased-rollout-seconds sets an app's window; neither by default")
    func phasedOffers() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = try load("[daemon]\nrollout-position = 0.25\n[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nphased-rollout-seconds = 604800\n")
        #expect(set.daemon.rolloutPosition == 0.25)
        #expect(set.apps.first?.phasedRolloutSeconds == 604_800)
        let whole = try load("[daemon]\nrollout-position = 1\n")
        #expect(whole.daemon.rolloutPosition == 1)
        let bare = try load("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\n")
        #expect(bare.daemon.rolloutPosition == nil && bare.apps.first?.phasedRolloutSeconds == nil)
        #expect(bare.apps.first?.maxVersion == nil && bare.apps.first?.ignoreVersions == [])
        let limited = try load(
            "[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nformat = \"json\"\nversion-pointer = \"/v\"\nversion = \"1\"\n"
                + "max-version = \"1.9\"\nignore-versions = [\"1.5\", \"v1.6\"]\nrollout-percentage-pointer = \"/cap\"\n"
        )
        #expect(limited.apps.first?.maxVersion == "1.9" && limited.apps.first?.ignoreVersions == ["1.5", "v1.6"])
        #expect(limited.apps.first?.formatSettings.pointers?.rolloutPercentage?.description == "/cap")
    }

    @Test("advisories: the keys read, their defaults, an app without url; ignore entries lapse the day after until")
    func advisories() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = try load("""
            [[app]]
            name = "a"
            version = "1.0"
            advisories = "osv"
            advisories-ecosystem = "PyPI"
            advisories-url = "file:///srv/osv/PyPI/all.zip"
            ignore-advisories = ["CVE-2026-1", { id = "GHSA-x", until = 2027-01-31, reason = "not exposed" }]
            advisories-max-age-days = 3
            advisories-max-bytes = 1048576
            """)
        let app = try #require(set.apps.first)
        #expect(app.url == nil)
        let settings = try #require(app.advisories)
        #expect(settings.source == "file:///srv/osv/PyPI/all.zip" && settings.sourceKind == .zip)
        #expect(settings.package == "a", "app-id, which defaults to the name")
        #expect(settings.maxAgeDays == 3 && settings.maxBytes == 1_048_576)
        #expect(settings.ignores.map(\.id) == ["CVE-2026-1", "GHSA-x"])
        #expect(settings.ignores[0].lapsesAt == nil)
        #expect(settings.ignores[1].lapsesAt == Date(timeIntervalSince1970: 1_801_440_000), "2027-02-01T00:00:00Z")
        #expect(settings.ignores[1].reason == "not exposed")
        let defaults = try load("[[app]]\nname = \"b\"\nurl = \"https://x/y\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"npm\"\napp-id = \"left-pad\"\n")
        let bare = try #require(defaults.apps.first?.advisories)
        #expect(bare.source == "https://api.osv.dev/v1/query" && bare.sourceKind == .api)
        #expect(bare.package == "left-pad" && bare.maxAgeDays == 7 && bare.maxBytes == 512 << 20)
        let packaged = try load("[[app]]\nname = \"c\"\nversion-package = \"libssl3\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"Debian:12\"\nadvisories-url = \"file:///srv/osv/records\"\n")
        #expect(packaged.apps.first?.advisories?.package == nil, "the source package, asked of dpkg at each check")
        #expect(packaged.apps.first?.advisories?.sourceKind == .folder)
    }

    @Test("lifecycle and restart pending: the keys read, their defaults, {product} replaced and encoded, an app without url")
    func lifecycle() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = try load("""
            [[app]]
            name = "lambda"
            version = "18.20.4"
            lifecycle = "endoflife"
            lifecycle-product = "aws-lambda+"
            lifecycle-url = "file:///srv/eol/{product}.json"
            lifecycle-release = "nodejs18.x"
            lifecycle-warn-days = 0
            lifecycle-max-age-days = 7
            installed-version-file = "installed"
            restart-pending-critical-days = 2
            """)
        let app = try #require(set.apps.first)
        #expect(app.url == nil)
        let settings = try #require(app.lifecycle)
        #expect(settings.source == "file:///srv/eol/aws-lambda%2B.json")
        #expect(settings.release == "nodejs18.x" && settings.warnDays == 0 && settings.maxAgeDays == 7)
        let restart = try #require(app.inputs[RestartPending.self])
        #expect(restart.source == .file(folder.path + "/installed") && restart.criticalDays == 2)
        let defaults = try load("[[app]]\nname = \"go\"\nurl = \"https://x/y\"\nversion = \"1.24.6\"\nlifecycle = \"endoflife\"\n")
        let bare = try #require(defaults.apps.first?.lifecycle)
        #expect(bare.source == "https://endoflife.date/api/v1/products/go/" && bare.product == "go")
        #expect(bare.release == nil && bare.warnDays == 90 && bare.maxAgeDays == 30)
        #expect(defaults.apps.first?.inputs[RestartPending.self] == nil)
        // public-keys sign each input's own source unless signature-url names one (found by attack).
        let signed = try load("""
            [[app]]
            name = "both"
            version = "1.2.3"
            public-keys = ["RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw"]
            advisories = "osv"
            advisories-url = "https://mirror.example/PyPI/all.zip"
            advisories-ecosystem = "PyPI"
            lifecycle = "endoflife"
            lifecycle-url = "https://mirror.example/eol/{product}.json"
            """)
        #expect(signed.apps.first?.lifecycle?.signature?.url == "https://mirror.example/eol/both.json.minisig")
        #expect(signed.apps.first?.advisories?.signature?.url == "https://mirror.example/PyPI/all.zip.minisig")
        let named = try load("[[app]]\nname = \"n\"\nversion = \"1\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"]\nsignature-url = \"https://s.example/x.minisig\"\nlifecycle = \"endoflife\"\n")
        #expect(named.apps.first?.lifecycle?.signature?.url == "https://s.example/x.minisig")
        let restartOnly = try load("[[app]]\nname = \"nginx\"\nversion-file = \"/run/nginx.version\"\ninstalled-version-package = \"nginx\"\n")
        #expect(restartOnly.apps.first?.url == nil)
        #expect(restartOnly.apps.first?.inputs[RestartPending.self]?.criticalDays == 7)
    }

    @Test("offer windows: the daemon's for every app, an app's own over them, the zone from tzdata, and each fault named")
    func offerWindows() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = try load("""
            [daemon]
            offer-windows = [ { days = ["Sat", "Sun"], start = "23:30", minutes = 60 } ]
            windows-time-zone = "Europe/Berlin"
            [[app]]
            name = "inherits"
            url = "https://x/y"
            version = "1"
            [[app]]
            name = "own"
            url = "https://x/y"
            version = "1"
            offer-windows = [ { days = ["Tue", "Wed", "Thu"], start = "02:00", minutes = 120 } ]
            windows-time-zone = "UTC"
            [[app]]
            name = "zone-only"
            url = "https://x/y"
            version = "1"
            windows-time-zone = "America/New_York"
            """)
        let inherits = try #require(set.apps.first { $0.name == "inherits" }?.offerWindows)
        #expect(inherits.windows == [OfferWindows.Window(days: [5, 6], start: 1_410, minutes: 60)])
        #expect(inherits.zone.name == "Europe/Berlin")
        let own = try #require(set.apps.first { $0.name == "own" }?.offerWindows)
        #expect(own.windows == [OfferWindows.Window(days: [1, 2, 3], start: 120, minutes: 120)] && own.zone == .utc)
        let zoneOnly = try #require(set.apps.first { $0.name == "zone-only" }?.offerWindows)
        #expect(zoneOnly.windows == inherits.windows && zoneOnly.zone.name == "America/New_York")
        #expect(try load("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\n").apps.first?.offerWindows == nil)
        let app = "[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\n"
        let faults: [(String, String)] = [
            ("[daemon]\noffer-windows = []\n", "daemon.offer-windows: empty"),
            (app + "offer-windows = [ { days = [\"Sat\"], start = \"24:00\", minutes = 60 } ]\n", "offer-windows[0].start: expected \"HH:MM\""),
            (app + "offer-windows = [ { days = [\"Caturday\"], start = \"23:00\", minutes = 60 } ]\n", "offer-windows[0].days[0]: expected one of Mon"),
            (app + "offer-windows = [ { days = [\"Sat\"], start = \"23:00\", minutes = 10081 } ]\n", "offer-windows[0].minutes: must be from 1 to 10080"),
            (app + "windows-time-zone = \"UTC\"\n", "windows-time-zone: needs offer-windows"),
            ("[daemon]\nwindows-time-zone = \"Mars/Olympus_Mons\"\n", "daemon.windows-time-zone: no zone 'Mars/Olympus_Mons' in /usr/share/zoneinfo"),
            ("[daemon]\nwindows-time-zone = \"../../../etc/passwd\"\n", "daemon.windows-time-zone: '../../../etc/passwd': not a zone name"),
            ("[daemon]\nwindows-time-zone = \"zone.tab\"\n", "daemon.windows-time-zone: /usr/share/zoneinfo/zone.tab: not a TZif file"),
        ]
        for (text, expected) in faults {
            #expect {
                _ = try load(text)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
    }

    @Test("apps come from [[app]] tables and from the apps directory in name order, named by stem")
    func apps() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try write("apps.d/b-second.toml", "url = \"https://b.example/v\"\nversion = \"2\"\nformat = \"itunes\"\nmin-release-age-days = 3\n")
        _ = try write("apps.d/a-first.toml", "name = \"renamed\"\nurl = \"http://a.example/v\"\nversion-file = \"../version\"\n")
        _ = try write("apps.d/.hidden.toml", "this is not toml")
        _ = try write("apps.d/notes.txt", "ignored")
        let configuration = try load("""
            [daemon]
            apps-dir = "apps.d"
            [[app]]
            name = "main"
            url = "file:///srv/v.json"
            format = "turkcell"
            schedule = "weekly"
            version-command = ["/usr/bin/dpkg-query", "-W", "-f=${Version}", "demo"]
            version-number = 0
            version-scheme = "debian"
            app-id = "io.demo"
            properties = { x-channel = "beta" }
            query = { z = "1", a = "2" }
            """)
        #expect(configuration.apps.map(\.name) == ["main", "renamed", "b-second"])
        let main = configuration.apps[0]
        #expect(main.format == .turkcell && main.schedule == .weekly && main.versionScheme == .debian)
        #expect(main.version == .command(["/usr/bin/dpkg-query", "-W", "-f=${Version}", "demo"]))
        #expect(main.versionNumber == 0)
        #expect(main.appID == "io.demo")
        #expect(main.properties == ["x-channel": "beta"])
        #expect(main.query == [QueryParameter(name: "a", value: "2"), QueryParameter(name: "z", value: "1")])
        #expect(configuration.apps[1].version == .file(folder.appendingPathComponent("apps.d").path + "/../version"))
        #expect(configuration.apps[1].schedule == .daily && configuration.apps[1].format == .ssvc)
        #expect(configuration.apps[2].versionScheme == .nsnumeric)
        #expect(configuration.apps[2].minReleaseAgeDays == 3)
    }

    @Test("a bad file names file, key and problem", arguments: [
        ("[daemon\n", "ssvcd.toml:1:8: ", "expected ']' to close the header, found a newline"),
        ("[daemon]\nstate_dir = \"/x\"\n", "ssvcd.toml: daemon.state_dir: ", "unknown key"),
        ("[daemon]\ntimeout-seconds = \"30\"\n", "ssvcd.toml: daemon.timeout-seconds: ", "expected a number, found string"),
        ("[daemon]\nmax-response-bytes = 0\n", "ssvcd.toml: daemon.max-response-bytes: ", "must be from 1 to 67108864, found 0"),
        ("[daemon]\nca-file = \"/nonexistent.pem\"\n", "ssvcd.toml: daemon.ca-file: ", "/nonexistent.pem does not exist"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "missing"),
        ("[[app]]\nname = \"a\"\nurl = \"ftp://x/y\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "not an https, http or file URL"),
        ("[[app]]\nname = \"a\"\nurl = \"http://127.0.0.1:99999/x\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "'http://127.0.0.1:99999/x': port 99999 is not from 1 to 65535"),
        ("[[app]]\nname = \"a\"\nurl = \"http://exa mple .com:99999/x\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "holds a space or a control character"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/\\u001b[2J\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "holds a space or a control character"),
        ("[[app]]\nname = \"a\"\nurl = \"file:///srv/a\\u202eb\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "holds a space or a control character"),
        ("[[app]]\nname = \"a\"\nurl = \"http://[::1/x\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "not a URL"),
        ("[daemon]\ntimeout-seconds = 1e308\n", "ssvcd.toml: daemon.timeout-seconds: ", "must be from 0.001 to 3600, found 1e+308"),
        ("[daemon]\ntimeout-seconds = inf\n", "ssvcd.toml: daemon.timeout-seconds: ", "must be from 0.001 to 3600, found inf"),
        ("[daemon]\ntimeout-seconds = nan\n", "ssvcd.toml: daemon.timeout-seconds: ", "must be from 0.001 to 3600, found nan"),
        ("[daemon]\ntimeout-seconds = 9223372036854775807\n", "ssvcd.toml: daemon.timeout-seconds: ", "must be from 0.001 to 3600"),
        ("[daemon]\nmin-interval-seconds = 9223372036854775807\n", "ssvcd.toml: daemon.min-interval-seconds: ", "must be from 0 to 2678400, found 9223372036854775807"),
        ("[daemon]\nidle-timeout-seconds = 9223372036854775807\n", "ssvcd.toml: daemon.idle-timeout-seconds: ", "must be from 1 to 86400"),
        ("[daemon]\nfirst-check-window-seconds = -1\n", "ssvcd.toml: daemon.first-check-window-seconds: ", "must be from 0 to 2678400, found -1"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion-package = \"Bad_Name\"\n", "ssvcd.toml: app.version-package: ", "'Bad_Name' is not a Debian package name"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nversion-package = \"a1\"\n", "ssvcd.toml: app.version: ", "set only one of version, version-file, version-command, version-package"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\ntag-prefix = \"v\"\n", "ssvcd.toml: app.tag-prefix: ", "applies to format github only"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\nversion-pointer = \"/v\"\n", "ssvcd.toml: app.version-pointer: ", "applies to format json only"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"json\"\n", "ssvcd.toml: app.version-pointer: ", "missing: format json needs it"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"json\"\nversion-pointer = \"info/version\"\n", "ssvcd.toml: app.version-pointer: ", "must be empty or start with '/'"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\ntag-pattern = \"v(\"\n", "ssvcd.toml: app.tag-pattern: ", "'v(' is not a pattern ssvc matches (a regular expression without backtracking): at character 1: unbalanced parenthesis"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\ntag-pattern = '^(v)\\1(.+)$'\n", "ssvcd.toml: app.tag-pattern: ", "backreference"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\ntag-pattern = '^(?=v)(.+)$'\n", "ssvcd.toml: app.tag-pattern: ", "look"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\ntag-pattern = \"^v.+$\"\n", "ssvcd.toml: app.tag-pattern: ", "needs a capture group"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nformat = \"github\"\ninclude-prereleases = \"yes\"\n", "ssvcd.toml: app.include-prereleases: ", "expected true or false, found string"),
        ("[daemon]\nrollout-position = 1.5\n", "ssvcd.toml: daemon.rollout-position: ", "must be from 0 to 1, found 1.5"),
        ("[daemon]\nrollout-position = nan\n", "ssvcd.toml: daemon.rollout-position: ", "must be from 0 to 1, found nan"),
        ("[daemon]\nrollout-position = \"half\"\n", "ssvcd.toml: daemon.rollout-position: ", "expected a number, found string"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nphased-rollout-seconds = -1\n", "ssvcd.toml: app.phased-rollout-seconds: ", "must be from 0 to 31622400, found -1"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nphased-rollout-seconds = 9223372036854775807\n", "ssvcd.toml: app.phased-rollout-seconds: ", "must be from 0 to 31622400"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nversion-file = \"/v\"\n", "ssvcd.toml: app.version: ", "set only one of version, version-file, version-command"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\n", "ssvcd.toml: app.version: ", "missing: set one of"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nschedule = \"sometimes\"\n", "ssvcd.toml: app.schedule: ", "expected one of never, hourly, daily, weekly, monthly, found 'sometimes'"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = 1\n", "ssvcd.toml: app.version: ", "expected a string, found integer"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = 1.5\n", "ssvcd.toml: app.version: ", "expected a string, found float"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = true\n", "ssvcd.toml: app.version: ", "expected a string, found boolean"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = 2026-01-02\n", "ssvcd.toml: app.version: ", "expected a string, found local date"),
        ("[[app]]\nname = \"a b\"\nurl = \"https://x/y\"\nversion = \"1\"\n", "ssvcd.toml: app.name: ", "may hold only"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nversion-number = -1\n", "ssvcd.toml: app.version-number: ", "must be from 0 to 9223372036854775807, found -1"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nproperties = { channel = \"x\" }\n", "ssvcd.toml: app.properties.channel: ", "x-…"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nmin-release-age-days = 2\n", "ssvcd.toml: app.min-release-age-days: ", "itunes only"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1.2\"\nversion-scheme = \"semver\"\n", "ssvcd.toml: app.version: ", "not a valid semver version"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion-command = []\n", "ssvcd.toml: app.version-command: ", "needs at least the program"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\n[[app]]\nname = \"a\"\nurl = \"https://x/z\"\nversion = \"1\"\n", "ssvcd.toml: name: ", "app 'a' is also defined in"),
        ("surprise = 1\n", "ssvcd.toml: surprise: ", "unknown key"),
        ("[daemon]\n\"\" = 1\n", "ssvcd.toml: daemon.\"\": ", "an empty key: no key here is empty"),
        ("[daemon]\nlanguage = \"en\u{85}\"\n", "ssvcd.toml: daemon.language: ", "holds the control character U+0085"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\ncountry = \"\\u009b\"\n", "ssvcd.toml: app.country: ", "holds the control character U+009B"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { X-A = \"b\u{9B}31m\" }\n", "ssvcd.toml: app.headers.X-A: ", "holds the control character U+009B"),
        ("[daemon]\nno-proxy = [\"a\", \"b\u{85}\"]\n", "ssvcd.toml: daemon.no-proxy[1]: ", "holds the control character U+0085"),
        ("[daemon]\nstate-dir = \"/var/lib/\u{9B}x\"\n", "ssvcd.toml: daemon.state-dir: ", "holds the control character U+009B"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = [{ id = \"X\", reason = \"r\u{85}\" }]\n", "ssvcd.toml: app.ignore-advisories[0].reason: ", "holds the control character U+0085"),
        ("[daemon]\nproxy = \"socks5://p:1080\"\n", "ssvcd.toml: daemon.proxy: ", "only http:// proxies are supported, not socks5://"),
        ("[daemon]\nproxy = \"http://u:secret@p:3128/path\"\n", "ssvcd.toml: daemon.proxy: ", "proxy 'http://***@p:3128/path' has a path"),
        ("[daemon]\nproxy = \"none\"\n", "ssvcd.toml: daemon.proxy: ", "'none' is for an app"),
        ("[daemon]\nno-proxy = \"localhost\"\n", "ssvcd.toml: daemon.no-proxy: ", "expected an array of strings"),
        ("[daemon]\nclient-key = \"/k.pem\"\n", "ssvcd.toml: daemon.client-certificate: ", "missing: a client key needs its certificate"),
        ("[daemon]\nclient-certificate = \"/c.pem\"\n", "ssvcd.toml: daemon.client-key: ", "missing: set client-key or client-key-credential"),
        ("[daemon]\nclient-certificate = \"/nonexistent/c.pem\"\nclient-key = \"/k.pem\"\n", "ssvcd.toml: daemon.client-certificate: ", "cannot open /nonexistent/c.pem"),
        ("[[app]]\nname = \"a\"\nurl = \"http://x.example/y\"\nversion = \"1\"\nbearer-token-file = \"/t\"\n", "ssvcd.toml: app.bearer-token-file: ", "a token goes only to an https URL or a loopback address"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nbearer-token-file = \"/t\"\nbearer-token-credential = \"t\"\n", "ssvcd.toml: app.bearer-token-file: ", "set only one of"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { Authorization = \"Bearer x\" }\n", "ssvcd.toml: app.headers.Authorization: ", "may not be set here"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { host = \"other\" }\n", "ssvcd.toml: app.headers.host: ", "may not be set here"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { Content-Length = \"0\" }\n", "ssvcd.toml: app.headers.Content-Length: ", "may not be set here"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { \"X Bad\" = \"v\" }\n", "ssvcd.toml: app.headers.X Bad: ", "not a header name"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nheaders = { X-Split = \"a\\r\\nInjected: 1\" }\n", "ssvcd.toml: app.headers.X-Split: ", "control character"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nproxy = \"ftp://p\"\n", "ssvcd.toml: app.proxy: ", "only http:// proxies"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = []\n", "ssvcd.toml: app.public-keys: ", "empty: list at least one key"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = \"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"\n", "ssvcd.toml: app.public-keys: ", "expected an array of strings"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\", \"RWQ\"]\n", "ssvcd.toml: app.public-keys[1]: ", "'RWQ' is not a minisign public key"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\", \"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"]\n", "ssvcd.toml: app.public-keys[1]: ", "a second key with id 475416EDBA99E22F"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nsignature-url = \"https://x/y.sig\"\n", "ssvcd.toml: app.signature-url: ", "needs public-keys"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nmax-signature-age-days = 30\n", "ssvcd.toml: app.max-signature-age-days: ", "needs public-keys"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"]\nmax-signature-age-days = 0\n", "ssvcd.toml: app.max-signature-age-days: ", "must be from 1 to 36500, found 0"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"]\nsignature-url = \"y.minisig\"\n", "ssvcd.toml: app.signature-url: ", "not an https, http or file URL"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nmax-version = \"latest\"\n", "ssvcd.toml: app.max-version: ", "'latest' is not a valid dotted version"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nmax-version = 2\n", "ssvcd.toml: app.max-version: ", "expected a string"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nversion-scheme = \"debian\"\nmax-version = \"1:\"\n", "ssvcd.toml: app.max-version: ", "not a valid debian version"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1.0+\"\nversion-scheme = \"pep440\"\n", "ssvcd.toml: app.version: ", "'1.0+' is not a valid pep440 version: nothing after '+' (the local version)"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nignore-versions = [\"2.0\", \"\"]\n", "ssvcd.toml: app.ignore-versions[1]: ", "is not a valid dotted version: empty"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nignore-versions = \"2.0\"\n", "ssvcd.toml: app.ignore-versions: ", "expected an array"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nrollout-percentage-pointer = \"/cap\"\n", "ssvcd.toml: app.rollout-percentage-pointer: ", "applies to format json only"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\n", "ssvcd.toml: app.url: ", "missing (an app may leave it out only with advisories = \"osv\" or lifecycle = \"endoflife\" or one of installed-version-package, installed-version-file, installed-version-command)"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"eol\"\n", "ssvcd.toml: app.lifecycle: ", "'eol' is not known: the one source is \"endoflife\""),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nlifecycle-release = \"1.2\"\n", "ssvcd.toml: app.lifecycle-release: ", "needs lifecycle = \"endoflife\""),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-product = \"..\"\n", "ssvcd.toml: app.lifecycle-product: ", "'..' is no product's name"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-product = \"go lang\"\n", "ssvcd.toml: app.lifecycle-product: ", "holds a blank"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-url = \"ftp://x/{product}\"\n", "ssvcd.toml: app.lifecycle-url: ", "not an https, http or file URL"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-release = \"1\\u001b[2J\"\n", "ssvcd.toml: app.lifecycle-release: ", "control or formatting character"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-warn-days = -1\n", "ssvcd.toml: app.lifecycle-warn-days: ", "must be from 0 to 36500, found -1"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nlifecycle = \"endoflife\"\nlifecycle-max-age-days = 0\n", "ssvcd.toml: app.lifecycle-max-age-days: ", "must be from 1 to 36500, found 0"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nrestart-pending-critical-days = 3\n", "ssvcd.toml: app.restart-pending-critical-days: ", "needs one of installed-version-package"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\ninstalled-version-file = \"/v\"\ninstalled-version-package = \"p\"\n", "ssvcd.toml: app.installed-version-file: ", "set only one of installed-version-package, installed-version-file, installed-version-command"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\ninstalled-version-command = []\n", "ssvcd.toml: app.installed-version-command: ", "needs at least the program"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\ninstalled-version-package = \"Bad Name\"\n", "ssvcd.toml: app.installed-version-package: ", "not a Debian package name"),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nadvisories = \"nvd\"\n", "ssvcd.toml: app.advisories: ", "'nvd' is not known: the one source is \"osv\""),
        ("[[app]]\nname = \"a\"\nurl = \"https://x/y\"\nversion = \"1\"\nadvisories-ecosystem = \"PyPI\"\n", "ssvcd.toml: app.advisories-ecosystem: ", "needs advisories = \"osv\""),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\n", "ssvcd.toml: app.advisories-ecosystem: ", "missing: name the ecosystem"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"\"\n", "ssvcd.toml: app.advisories-ecosystem: ", "empty"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-url = \"ftp://x/all.zip\"\n", "ssvcd.toml: app.advisories-url: ", "not an https, http or file URL"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = \"CVE-1\"\n", "ssvcd.toml: app.ignore-advisories: ", "expected an array of ids or tables"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = [1]\n", "ssvcd.toml: app.ignore-advisories[0]: ", "expected an id or a table { id, until, reason }, found integer"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = [{ id = \"CVE-1\", until = \"2027-01-31\" }]\n", "ssvcd.toml: app.ignore-advisories[0].until: ", "expected a date such as 2027-01-31, found string"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = [{ until = 2027-01-31 }]\n", "ssvcd.toml: app.ignore-advisories[0].id: ", "missing"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nignore-advisories = [{ id = \"X\", why = \"y\" }]\n", "ssvcd.toml: app.ignore-advisories[0].why: ", "unknown key"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-max-age-days = 0\n", "ssvcd.toml: app.advisories-max-age-days: ", "must be from 1 to 36500, found 0"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-max-bytes = 10\n", "ssvcd.toml: app.advisories-max-bytes: ", "must be from 1024"),
        ("[[app]]\nname = \"a\"\nversion = \"1\"\nadvisories = \"osv\"\nadvisories-ecosystem = \"PyPI\"\nadvisories-url = \"file:///srv/records\"\npublic-keys = [\"RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw\"]\n", "ssvcd.toml: app.advisories-url: ", "a folder of records cannot be signed"),
    ])
    func bad(text: String, prefix: String, problem: String) {
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: ConfigurationError.self) { try load(text) }
        let line = error?.description ?? ""
        #expect(line.hasPrefix(folder.path + "/" + prefix), "\(line)")
        #expect(line.contains(problem), "\(line)")
        #expect(!line.contains("\n"))
    }

    @Test("public-keys, signature-url and max-signature-age-days; the signature's URL defaults to the document's with .minisig on its path")
    func signatures() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = try load("""
            [[app]]
            name = "default-url"
            url = "https://x.example/v.json?channel=stable"
            version = "1"
            public-keys = ["RWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw", "RWTOaO2apTA8lGWcBAOiQP/zSYdU6rB5dSuYkCpEwGHJ8mqyojDlVkCE"]
            [[app]]
            name = "own-url"
            url = "https://x.example/v.json"
            version = "1"
            public-keys = ["untrusted comment: minisign public key 475416EDBA99E22F\\nRWQv4pm67RZURwwStTUWxFlL6xTDcv3CedEQwiz9M/SW9TGoTn2+l4Vw"]
            signature-url = "https://sigs.example/v.json.minisig"
            max-signature-age-days = 30
            [[app]]
            name = "unsigned"
            url = "https://x.example/v.json"
            version = "1"
            """)
        let signed = try #require(configuration.apps[0].signature)
        #expect(signed.url == "https://x.example/v.json.minisig?channel=stable")
        #expect(signed.publicKeys.map(\.keyID.description) == ["475416EDBA99E22F", "943C30A59AED68CE"])
        #expect(signed.maxAgeDays == nil)
        let own = try #require(configuration.apps[1].signature)
        #expect(own.url == "https://sigs.example/v.json.minisig")
        #expect(own.maxAgeDays == 30)
        #expect(configuration.apps[2].signature == nil)
    }

    @Test("proxies: the environment's, [daemon]'s over it, an app's over both; a bad variable names itself unless [daemon] proxy makes it moot")
    func proxies() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let apps = """
            [[app]]
            name = "env"
            url = "https://updates.example/v"
            version = "1"
            [[app]]
            name = "none"
            url = "https://updates.example/v"
            version = "1"
            proxy = "none"
            [[app]]
            name = "own"
            url = "http://127.0.0.1:8080/v"
            version = "1"
            proxy = "http://own:3128"
            bearer-token-credential = "token"
            headers = { X-Fleet = "eu-1", Accept-Language = "de" }
            """
        let environment = ["https_proxy": "http://user:pw@env-proxy:3128", "no_proxy": "internal.example"]
        let fromEnvironment = try load(apps, environment: environment)
        let env = fromEnvironment.apps[0], none = fromEnvironment.apps[1], own = fromEnvironment.apps[2]
        #expect(env.proxyInUse(fromEnvironment.daemon) == "http://***@env-proxy:3128")
        #expect(none.proxyInUse(fromEnvironment.daemon) == nil)
        #expect(own.proxyInUse(fromEnvironment.daemon) == "http://own:3128")
        #expect(own.bearerToken == .credential("token"))
        #expect(own.headers == [RequestHeader(name: "Accept-Language", value: "de"), RequestHeader(name: "X-Fleet", value: "eu-1")])
        #expect(fromEnvironment.daemon.proxy.server(scheme: "https", host: "a.internal.example") == nil)

        let overridden = try load("[daemon]\nproxy = \"http://fleet-proxy:8080\"\nno-proxy = [\"updates.example\"]\n" + apps, environment: environment)
        #expect(overridden.apps[0].proxyInUse(overridden.daemon) == nil, "[daemon] no-proxy lists the host")
        #expect(overridden.daemon.proxy.server(scheme: "https", host: "other.example")?.description == "http://fleet-proxy:8080")
        #expect(overridden.daemon.proxy.server(scheme: "https", host: "a.internal.example")?.description == "http://fleet-proxy:8080",
                "[daemon] no-proxy replaces the environment's")

        let broken = #expect(throws: ConfigurationError.self) { try load(apps, environment: ["HTTPS_PROXY": "ftp://user:pw@p"]) }
        #expect(broken?.description == "environment: HTTPS_PROXY: proxy 'ftp://***@p': only http:// proxies are supported, not ftp://")
        #expect(throws: Never.self) { try load("[daemon]\nproxy = \"http://p:1\"\n", environment: ["https_proxy": "ftp://p"]) }
    }

    @Test("an app file's errors name the app file")
    func appFileError() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try write("apps.d/broken.toml", "url = \"https://x/y\"\nversion = \"1\"\nformat = \"xml\"\n")
        let error = #expect(throws: ConfigurationError.self) { try load("[daemon]\napps-dir = \"apps.d\"\n") }
        #expect(error?.description == "\(path): format: expected one of ssvc, turkcell, itunes, github, json, found 'xml' (line 3)")
    }

    @Test("keys in the wrong place say where they belong", arguments: [
        ("apps.d/pasted.toml", "[[app]]\nname = \"x\"\nurl = \"https://x/y\"\nversion = \"1\"\n",
         "pasted.toml: app: an app file holds the app keys at top level, without [[app]] (its name defaults to the file's name) (line 1)"),
        ("apps.d/daemon.toml", "url = \"https://x/y\"\nversion = \"1\"\n[daemon]\nstate-dir = \"/s\"\n",
         "daemon.toml: daemon: [daemon] belongs in the main file (ssvcd.toml), not in an app file (line 3)"),
        ("apps.d/ca.toml", "url = \"https://x/y\"\nversion = \"1\"\nca-file = \"/etc/ssl/ca.pem\"\n",
         "ca.toml: ca-file: is a [daemon] key: set it in [daemon] of the main file, for every app"),
    ])
    func misplacedKeys(name: String, text: String, expected: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try write(name, text)
        let error = #expect(throws: ConfigurationError.self) { try load("[daemon]\napps-dir = \"apps.d\"\n") }
        #expect(error?.description.contains(expected) == true, "\(error?.description ?? "")")
        let inMain = #expect(throws: ConfigurationError.self) {
            try load("[[app]]\nname = \"m\"\nurl = \"https://x/y\"\nversion = \"1\"\nmin-interval-seconds = 5\n")
        }
        #expect(inMain?.description.contains("app.min-interval-seconds: is a [daemon] key: set it in [daemon] of the main file") == true, "\(inMain?.description ?? "")")
        // Two: the first in the file is named, whatever the order of [daemon]'s keys.
        let two = #expect(throws: ConfigurationError.self) {
            try load("[[app]]\nname = \"m\"\nurl = \"https://x/y\"\nversion = \"1\"\nmin-interval-seconds = 5\nca-file = \"/c\"\n")
        }
        #expect(two?.description.contains("app.min-interval-seconds: is a [daemon] key") == true, "\(two?.description ?? "")")
    }

    @Test("an input is used only by an app that sets one of its keys: the loader asks none of an app that sets none")
    func inputsNeedTheirKeys() throws {
        let tables = [
            ConfigTable(),
            try TOMLParser().parse("name = \"a\"\nurl = \"https://x/y\"\nversion-package = \"bash\"\nschedule = \"daily\"\n"),
        ]
        for table in tables {
            for packaged in [false, true] {
                let context = InputContext(appID: "a", packaged: packaged, url: packaged ? nil : "https://x/y", dpkgStatus: "/var/lib/dpkg/status")
                for input in AppInputs.all {
                    var inputs = InputSettings()
                    try input.load(TableReader(table, file: "a.toml", key: nil), app: context, into: &inputs)
                    #expect(inputs.isEmpty, "\(input.name) is used by an app that sets none of its keys")
                }
            }
        }
    }

    @Test("a misspelt table in the main file names its line (issue 51)")
    func misspeltTable() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: ConfigurationError.self) { try load("# ssvcd\n\n[deamon]\ntimeout-seconds = 5\n") }
        #expect(error?.description.contains("deamon") == true && error?.description.hasSuffix("(line 3)") == true, "\(error?.description ?? "")")
    }

    @Test(
        "many [[app]] tables load in the file's order, and the first fault in that order is the one named",
        arguments: [1, 127, 128, 256, 1_000]
    )
    func manyApps(count: Int) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        func app(_ index: Int, _ extra: String = "") -> String {
            "[[app]]\nname = \"a\(index)\"\nurl = \"https://h/\(index)\"\nversion = \"1.\(index)\"\n\(extra)\n"
        }
        let loaded = try load((0..<count).map { app($0) }.joined())
        #expect(loaded.apps.map(\.name) == (0..<count).map { "a\($0)" })
        #expect(loaded.apps.map(\.url) == (0..<count).map { "https://h/\($0)" })
        // Faults in the last app, then one in a middle app and in the last: the earlier is named, with its line.
        for bad in Set([count - 1, count / 2]) {
            let document = (0..<count).map { $0 == bad || $0 == count - 1 ? app($0, "bogus\($0) = 1") : app($0) }.joined()
            let error = #expect(throws: ConfigurationError.self) { try load(document) }
            let line = bad * 5 + 5
            let text = error?.description ?? ""
            #expect(text.contains("ssvcd.toml: app.bogus\(bad): unknown key") && text.hasSuffix("([[app]] 'a\(bad)', line \(line))"), "\(text)")
        }
    }

    @Test("an unknown key of a megabyte is quoted cut, and costs no edit distance over its length")
    func hugeUnknownKey() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = String(repeating: "k", count: 900 << 10)
        let error = #expect(throws: ConfigurationError.self) { try load("[daemon]\n\(key) = 1\n") }
        let text = try #require(error?.description)
        #expect(text.utf8.count < 1_000, "\(text.utf8.count) bytes")
        #expect(text.contains("unknown key"))
    }

    @Test("a main file named on the command line must exist; the default one may be absent")
    func missingMainFile() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(.init(mainFile: "/nonexistent/ssvcd.toml"), environment: [:])
        }
        #expect(error?.description == "/nonexistent/ssvcd.toml: cannot open /nonexistent/ssvcd.toml: No such file or directory")
        // Not named, the same absent file is no error: all defaults.
        let configuration = try ConfigurationLoader.load(.init(), environment: [:], unnamedMainFile: "/nonexistent/ssvcd.toml")
        #expect(configuration.daemon.stateDirectory == "/var/lib/ssvc")
        #expect(configuration.daemon.socketPath == "/run/ssvc/io.ssvc.Daemon")
    }

    @Test("command-line paths override the file")
    func overrides() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try write("ssvcd.toml", "[daemon]\nstate-dir = \"/a\"\nsocket = \"/b/io.ssvc.Daemon\"\n")
        let configuration = try ConfigurationLoader.load(.init(mainFile: path, stateDirectory: "/c", socketPath: "/d/control.sock"), environment: [:])
        #expect(configuration.daemon.stateDirectory == "/c")
        #expect(configuration.daemon.socketPath == "/d/control.sock")
        #expect(configuration.daemon.metricsFile == "/d/ssvc.prom", "the metrics file's default follows the socket given on the command line")
    }
}
