import FoundationEssentials
@testable import SSVCDaemon
import SSVCCore
import Testing

@Suite("metrics file: Prometheus's text exposition format")
struct MetricsExpositionTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    func app(_ name: String, status: UpdateStatus, current: String? = "1.0", latest: String? = "1.1", next: Date? = nil) -> MetricsExposition.App {
        MetricsExposition.App(
            name: name, format: "ssvc", schedule: "daily", currentVersion: current, latestVersion: latest, status: status,
            lastCheck: now, lastSuccess: nil, nextCheck: next, consecutiveFailures: 2, stale: true
        )
    }

    @Test("each family once with HELP and TYPE gauge, every app's samples under it, no sample timestamps")
    func families() {
        let text = String(decoding: MetricsExposition.render([app("a", status: .updateRequired, next: now.addingTimeInterval(60.7)), app("b", status: .upToDate)]), as: UTF8.self)
        let lines = text.split(separator: "\n")
        let families = lines.filter { $0.hasPrefix("# TYPE ") }
        #expect(families.count == 12)
        #expect(families.allSatisfy { $0.hasSuffix(" gauge") })
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == 12)
        for sample in lines where !sample.hasPrefix("#") {
            #expect(sample.split(separator: "} ").count == 2 && !sample.split(separator: "} ")[1].contains(" "), "a timestamp in \(sample)")
        }
        #expect(lines.contains(#"ssvc_status{app="a",status="update-required"} 1"#))
        #expect(lines.filter { $0.hasPrefix(#"ssvc_status{app="a","#) && $0.hasSuffix(" 0") }.count == 4)
        #expect(lines.contains(#"ssvc_update_required{app="a"} 1"#))
        #expect(lines.contains(#"ssvc_update_required{app="b"} 0"#))
        #expect(lines.contains(#"ssvc_next_check_timestamp_seconds{app="a"} 1795000060"#))
        #expect(!lines.contains { $0.hasPrefix(#"ssvc_next_check_timestamp_seconds{app="b"}"#) })
        #expect(!lines.contains { $0.hasPrefix("ssvc_last_success_timestamp_seconds{") }, "never succeeded: no sample")
        #expect(lines.contains(#"ssvc_last_check_timestamp_seconds{app="a"} 1795000000"#))
        #expect(lines.contains(#"ssvc_consecutive_failures{app="b"} 2"#))
        #expect(lines.contains(#"ssvc_stale{app="b"} 1"#))
        #expect(text.hasSuffix("\n"))
    }

    @Test("a pending phased offer: ssvc_update_pending 1 and its offer time; none pending: 0 and no time")
    func pending() {
        var waiting = app("a", status: .upToDate, latest: nil)
        waiting.pendingVersion = "2.0"
        waiting.offerAt = now.addingTimeInterval(3_600.9)
        let text = String(decoding: MetricsExposition.render([waiting, app("b", status: .updateAvailable)]), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.contains(#"ssvc_update_pending{app="a"} 1"#))
        #expect(lines.contains(#"ssvc_update_offer_timestamp_seconds{app="a"} 1795003600"#))
        #expect(lines.contains(#"ssvc_update_pending{app="b"} 0"#))
        #expect(!lines.contains { $0.hasPrefix(#"ssvc_update_offer_timestamp_seconds{app="b"}"#) })
    }

    @Test("an input's families come after the update families, once, only when an app uses the input, with that app's series alone")
    func inputFamilies() {
        var affected = app("a", status: .updateRequired)
        affected.inputs[Advisories.name] = [
            MetricSample(family: "ssvc_advisory_state", labels: [.init(name: "state", value: "affected")], value: "1"),
            MetricSample(family: "ssvc_app_advisory_info", labels: [.init(name: "id", value: "X-\"1"), .init(name: "fixed", value: "2.0")], value: "1"),
        ]
        let without = app("b", status: .upToDate)
        let lines = String(decoding: MetricsExposition.render([affected, without]), as: UTF8.self).split(separator: "\n").map(String.init)
        let families = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(families.count == 12 + Advisories.metricFamilies.count)
        let held = families.firstIndex(of: "ssvc_update_held")
        #expect(held.map { Array(families[($0 + 1)...].prefix(3)) } == Advisories.metricFamilies.map { Substring($0.name) })
        #expect(lines.contains(#"ssvc_advisory_state{app="a",state="affected"} 1"#))
        #expect(lines.contains(#"ssvc_app_advisory_info{app="a",id="X-\"1",fixed="2.0"} 1"#))
        #expect(!lines.contains { $0.hasPrefix("ssvc_app_advisories{") }, "a family with no series has its HELP and TYPE alone")
        #expect(!lines.contains { $0.contains(#"{app="b""#) && $0.hasPrefix("ssvc_advisory") })
        let none = String(decoding: MetricsExposition.render([without]), as: UTF8.self)
        #expect(!none.contains("advisor"), "no app uses the input: none of its families")
    }

    @Test("label values escape backslash, double quote and line feed; absent versions are empty")
    func escaping() {
        let text = String(decoding: MetricsExposition.render([app("a", status: .unknown, current: #"1.0 "beta"\x"# + "\n2", latest: nil)]), as: UTF8.self)
        #expect(text.contains(#"current_version="1.0 \"beta\"\\x\n2",latest_version="""#), "\(text)")
    }
}
