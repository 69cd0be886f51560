import FoundationEssentials
import SSVCCore
import SSVCSigning

/// A release reaching a fleet: every machine runs the real planner, the
/// real decision code and the real phasing (`AppState.recording` with its
/// rollout settings, `Wake.next`, `AppState.offering`), with its own random
/// machine id. Beside it, the same machines under Sparkle's rule: seven
/// groups, one seventh of the window apart, each machine in one group.
/// The publisher may change the server's cap (`SSVCPhasedRolloutPercentage`)
/// as the rollout goes: `caps`.
package struct PhasedFleetSimulation: Sendable {
    package var machines: Int
    package var schedule: Schedule
    package var window: TimeInterval
    /// Machine ids come from a generator seeded with this.
    package var seed: UInt64
    /// T: when the version is announced.
    package var announced: Date
    /// The cap the document carries, changed in this order; before the
    /// first change, none.
    package var caps: [CapChange]

    package init(
        machines: Int, schedule: Schedule = .daily, window: TimeInterval = 7 * 86_400, seed: UInt64 = 29,
        announced: Date = Date(timeIntervalSince1970: 1_800_000_000), caps: [CapChange] = []
    ) {
        self.machines = machines
        self.schedule = schedule
        self.window = window
        self.seed = seed
        self.announced = announced
        self.caps = caps
    }

    /// From `from` seconds after T on, the document carries `percentage`
    /// as its cap; nil: no cap (the key removed).
    package struct CapChange: Sendable, Equatable {
        package var from: TimeInterval
        package var percentage: Double?

        package init(from: TimeInterval, percentage: Double?) {
            self.from = from
            self.percentage = percentage
        }
    }

    /// The rollout paused (cap 0) from `pause` seconds after T and resumed
    /// (the key removed) at `resume`.
    package static func paused(from pause: TimeInterval, until resume: TimeInterval) -> [CapChange] {
        [CapChange(from: pause, percentage: 0), CapChange(from: resume, percentage: nil)]
    }

    /// When each machine was first offered the version, in seconds after
    /// T; nil for a machine never offered it within the run.
    package struct Rollout: Sendable {
        package var ssvc: [TimeInterval?]
        package var sparkle: [TimeInterval?]
        /// Each machine's offer time under ssvc, p × W after T.
        package var due: [TimeInterval]
        package var period: TimeInterval
        package var window: TimeInterval
        /// Machines offered the version whose status later stopped
        /// offering it: 0, as an offer is never withdrawn.
        package var withdrawn: Int

        /// The share of machines offered the version by `time` after T.
        package func fraction(_ offers: [TimeInterval?], by time: TimeInterval) -> Double {
            Double(offers.count { $0.map { $0 <= time } ?? false }) / Double(max(offers.count, 1))
        }

        /// How many machines were first offered the version within `range`
        /// (seconds after T).
        package func offered(_ offers: [TimeInterval?], in range: Range<TimeInterval>) -> Int {
            offers.count { $0.map(range.contains) ?? false }
        }

        /// The straight line from none at T to all at T + W.
        package func ideal(at time: TimeInterval) -> Double { min(max(time / window, 0), 1) }

        /// The largest distance from the straight line, sampled every
        /// minute from `start` seconds after T (by default one period, when
        /// every machine has checked) to T + W.
        package func largestGap(_ offers: [TimeInterval?], from start: TimeInterval? = nil) -> Double {
            let sorted = offers.compactMap { $0 }.sorted()
            var largest = 0.0
            var index = 0
            var time = start ?? period
            while time <= window {
                while index < sorted.count && sorted[index] <= time { index += 1 }
                largest = max(largest, abs(Double(index) / Double(offers.count) - ideal(at: time)))
                time += 60
            }
            return largest
        }

        /// The most machines offered the version within any one hour.
        package func peakPerHour(_ offers: [TimeInterval?]) -> Int {
            var hours: [Int: Int] = [:]
            for offer in offers.compactMap({ $0 }) { hours[Int((offer / 3_600).rounded(.down)), default: 0] += 1 }
            return hours.values.max() ?? 0
        }

        /// When the last machine was offered it; nil when one never was.
        package func last(_ offers: [TimeInterval?]) -> TimeInterval? {
            offers.contains { $0 == nil } ? nil : offers.compactMap { $0 }.max()
        }
    }

    /// The document every machine fetches from T on: `required` makes the
    /// running version unsupported (never phased); `cap` is the server's
    /// cap, nil for none.
    func document(required: Bool, cap: Double? = nil) -> String {
        let minimum = required ? #","SSVCMinimumSupportedVersionNumber":\#(NumVersion.pack("2.0") ?? 0)"# : ""
        let percentage = cap.map { #","SSVCPhasedRolloutPercentage":\#($0)"# } ?? ""
        return #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":\#(Int(announced.timeIntervalSince1970)),"#
            + #""SSVCPhasedRolloutInterval":\#(Int(window))\#(minimum)\#(percentage)}"#
    }

    package func run(required: Bool = false) -> Rollout {
        var generator = SplitMix64(seed: seed)
        let period = schedule.period(at: announced) ?? 86_400
        let end = announced.addingTimeInterval(max(window, caps.map(\.from).max() ?? 0) + 2 * period)
        let running = RunningVersion(key: "1.0")
        let before = #"{"SSVCLatestVersionKey":"1.0"}"#
        // What the server publishes from each time on, in seconds after T.
        let published = [(from: 0.0, body: document(required: required))]
            + caps.map { (from: $0.from, body: document(required: required, cap: $0.percentage)) }
        var ssvc: [TimeInterval?] = []
        var sparkle: [TimeInterval?] = []
        var due: [TimeInterval] = []
        var withdrawn = 0
        for _ in 0..<machines {
            let machineID = String(format16: generator.next()) + String(format16: generator.next())
            let planner = SchedulePlanner(schedule: schedule, phase: SchedulePlanner.phase(machineID: machineID, app: "app"))
            let rollout = PhasedRollout.Settings(app: "app", machine: AppSpecificID.derive(machineID: machineID))
            let sparkleGroup = Double(generator.next() % 7)
            // Up to date at the last check before T, on its phase.
            let lastCheck = planner.nextPhasePoint(after: announced.addingTimeInterval(-period)) ?? announced
            var state = AppState().recording(
                success(before, running: running, at: lastCheck), running: running, at: lastCheck.addingTimeInterval(-period), rollout: rollout
            )
            state = state.recording(success(before, running: running, at: lastCheck), running: running, at: lastCheck, rollout: rollout)
            var now = lastCheck
            var offered: TimeInterval?
            var sparkleOffered: TimeInterval?
            var kept = true
            var plan = planner.plan(now: now, history: state.history, atStart: false, jitter: 0.5)
            // To the end, so that an offer withdrawn after it was made shows.
            while let wake = Wake.next(check: plan, offer: state.pending), wake.at < end {
                now = wake.at
                if wake.reason == .offer, let made = state.offering(at: now) {
                    state = made
                } else {
                    let text = published.last { $0.from <= now.timeIntervalSince(announced) }?.body ?? before
                    state = state.recording(success(text, running: running, at: now), running: running, at: now, rollout: rollout)
                    plan = planner.plan(now: now, history: state.history, atStart: false, jitter: 0.5)
                    // Sparkle: the item is offered once its group's day has come.
                    let eligible = announced.addingTimeInterval(required ? 0 : sparkleGroup * window / 7)
                    if sparkleOffered == nil, now >= announced, now >= eligible { sparkleOffered = now.timeIntervalSince(announced) }
                }
                let offering = state.decision.map { $0.updateAvailable || $0.updateRequired } == true
                if offered == nil, offering { offered = now.timeIntervalSince(announced) }
                if offered != nil, !offering { kept = false }
            }
            if !kept { withdrawn += 1 }
            ssvc.append(offered)
            sparkle.append(sparkleOffered)
            due.append(required ? 0 : rollout.position(for: "2.0") * window)
        }
        return Rollout(ssvc: ssvc, sparkle: sparkle, due: due, period: period, window: window, withdrawn: withdrawn)
    }

    private func success(_ body: String, running: RunningVersion, at now: Date) -> CheckOutcome {
        let context = EvaluationContext(running: running, appID: "app", locale: LocaleSettings(language: "en", country: ""), now: now)
        do {
            return .success(try ResponseFormat.ssvc.evaluate(Array(body.utf8), context: context), body: body, etag: nil, fetched: true)
        } catch {
            return .failure("\(error)", retryAfter: nil, fetched: true)
        }
    }
}

private extension String {
    /// 16 lower-case hex digits.
    init(format16 value: UInt64) {
        let digits = String(value, radix: 16)
        self = String(repeating: "0", count: 16 - digits.count) + digits
    }
}
