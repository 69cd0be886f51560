import FoundationEssentials
import SSVCCore
import SSVCSigning

/// A release reaching a fleet: every machine runs the real planner, the
/// real decision code and the real phasing (`AppState.recording` with its
/// rollout settings, `Wake.next`, `AppState.offering`), with its own random
/// machine id. Beside it, the same machines under Sparkle's rule: seven
/// groups, one seventh of the window apart, each machine in one group.
public struct PhasedFleetSimulation: Sendable {
    public var machines: Int
    public var schedule: Schedule
    public var window: TimeInterval
    /// Machine ids come from a generator seeded with this.
    public var seed: UInt64
    /// T: when the version is announced.
    public var announced: Date

    public init(
        machines: Int, schedule: Schedule = .daily, window: TimeInterval = 7 * 86_400, seed: UInt64 = 29,
        announced: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) {
        self.machines = machines
        self.schedule = schedule
        self.window = window
        self.seed = seed
        self.announced = announced
    }

    /// When each machine was first offered the version, in seconds after
    /// T; nil for a machine never offered it within the run.
    public struct Rollout: Sendable {
        public var ssvc: [TimeInterval?]
        public var sparkle: [TimeInterval?]
        /// Each machine's offer time under ssvc, p × W after T.
        public var due: [TimeInterval]
        public var period: TimeInterval
        public var window: TimeInterval

        /// The share of machines offered the version by `time` after T.
        public func fraction(_ offers: [TimeInterval?], by time: TimeInterval) -> Double {
            Double(offers.count { $0.map { $0 <= time } ?? false }) / Double(max(offers.count, 1))
        }

        /// The straight line from none at T to all at T + W.
        public func ideal(at time: TimeInterval) -> Double { min(max(time / window, 0), 1) }

        /// The largest distance from the straight line, sampled every
        /// minute from one period after T (when every machine has checked)
        /// to T + W.
        public func largestGap(_ offers: [TimeInterval?]) -> Double {
            let sorted = offers.compactMap { $0 }.sorted()
            var largest = 0.0
            var index = 0
            var time = period
            while time <= window {
                while index < sorted.count && sorted[index] <= time { index += 1 }
                largest = max(largest, abs(Double(index) / Double(offers.count) - ideal(at: time)))
                time += 60
            }
            return largest
        }

        /// The most machines offered the version within any one hour.
        public func peakPerHour(_ offers: [TimeInterval?]) -> Int {
            var hours: [Int: Int] = [:]
            for offer in offers.compactMap({ $0 }) { hours[Int((offer / 3_600).rounded(.down)), default: 0] += 1 }
            return hours.values.max() ?? 0
        }

        /// When the last machine was offered it; nil when one never was.
        public func last(_ offers: [TimeInterval?]) -> TimeInterval? {
            offers.contains { $0 == nil } ? nil : offers.compactMap { $0 }.max()
        }
    }

    /// The document every machine fetches from T on: `required` makes the
    /// running version unsupported (never phased).
    func document(required: Bool) -> String {
        let minimum = required ? #","SSVCMinimumSupportedVersionNumber":\#(NumVersion.pack("2.0") ?? 0)"# : ""
        return #"{"SSVCLatestVersionKey":"2.0","SSVCLatestVersionAvailableSince":\#(Int(announced.timeIntervalSince1970)),"#
            + #""SSVCPhasedRolloutInterval":\#(Int(window))\#(minimum)}"#
    }

    public func run(required: Bool = false) -> Rollout {
        var generator = SeededGenerator(seed: seed)
        let period = schedule.period(at: announced) ?? 86_400
        let end = announced.addingTimeInterval(window + 2 * period)
        let running = RunningVersion(key: "1.0")
        let body = document(required: required)
        let before = #"{"SSVCLatestVersionKey":"1.0"}"#
        var ssvc: [TimeInterval?] = []
        var sparkle: [TimeInterval?] = []
        var due: [TimeInterval] = []
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
            var plan = planner.plan(now: now, history: state.history, atStart: false, jitter: 0.5)
            while offered == nil || sparkleOffered == nil, let wake = Wake.next(check: plan, offer: state.pending), wake.at < end {
                now = wake.at
                if wake.reason == .offer, let made = state.offering(at: now) {
                    state = made
                } else {
                    let text = now >= announced ? body : before
                    state = state.recording(success(text, running: running, at: now), running: running, at: now, rollout: rollout)
                    plan = planner.plan(now: now, history: state.history, atStart: false, jitter: 0.5)
                    // Sparkle: the item is offered once its group's day has come.
                    let eligible = announced.addingTimeInterval(required ? 0 : sparkleGroup * window / 7)
                    if sparkleOffered == nil, now >= announced, now >= eligible { sparkleOffered = now.timeIntervalSince(announced) }
                }
                if offered == nil, state.decision.map({ $0.updateAvailable || $0.updateRequired }) == true {
                    offered = now.timeIntervalSince(announced)
                }
            }
            ssvc.append(offered)
            sparkle.append(sparkleOffered)
            due.append(required ? 0 : rollout.position(for: "2.0") * window)
        }
        return Rollout(ssvc: ssvc, sparkle: sparkle, due: due, period: period, window: window)
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

/// SplitMix64: random machine ids that are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private extension String {
    /// 16 lower-case hex digits.
    init(format16 value: UInt64) {
        let digits = String(value, radix: 16)
        self = String(repeating: "0", count: 16 - digits.count) + digits
    }
}
