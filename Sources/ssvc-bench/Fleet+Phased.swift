import FoundationEssentials

extension Fleet {
    /// The phased run: the offered share every 6 hours from T beside the
    /// straight line and Sparkle's seven groups, then a required update.
    func runPhased() {
        let simulation = PhasedFleetSimulation(machines: machines, schedule: schedule, window: Double(windowDays) * 86_400)
        let rollout = simulation.run()
        let method = "real planner, decision and phasing code, \(schedule.rawValue) checks, \(machines) random machine ids (seed \(simulation.seed)), "
            + "window \(windowDays) d"
        print("phased rollout [\(Machine.summary); \(method)]")
        print("hours after T  line    ssvc    gap     Sparkle (7 groups)")
        var hour = 0
        while Double(hour) * 3_600 <= rollout.window + 2 * rollout.period {
            let time = Double(hour) * 3_600
            let (line, ssvc, sparkle) = (rollout.ideal(at: time), rollout.fraction(rollout.ssvc, by: time), rollout.fraction(rollout.sparkle, by: time))
            print("\(pad(hour, 13))  \(percent(line))  \(percent(ssvc))  \(percent(ssvc - line, signed: true))  \(percent(sparkle))")
            hour += 6
        }
        print("largest gap from the line once every machine has checked (T + 1 period to T + W, each minute): "
            + "ssvc \(percent(rollout.largestGap(rollout.ssvc), width: 0)), Sparkle \(percent(rollout.largestGap(rollout.sparkle), width: 0))")
        print("most machines offered in one hour: ssvc \(rollout.peakPerHour(rollout.ssvc)), Sparkle \(rollout.peakPerHour(rollout.sparkle))")
        print("last machine offered: ssvc \(inHours(rollout.last(rollout.ssvc))), Sparkle \(inHours(rollout.last(rollout.sparkle))) "
            + "(T + W + one period = \(Int((rollout.window + rollout.period) / 3_600)) h)")
        let required = simulation.run(required: true)
        print("required update: last machine offered \(inHours(required.last(required.ssvc))) after T (one period = \(Int(required.period / 3_600)) h)")
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private func percent(_ fraction: Double, signed: Bool = false, width: Int = 6) -> String {
        let tenths = Int((fraction * 1_000).rounded())
        let sign = tenths < 0 ? "-" : (signed ? "+" : "")
        let text = "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)%"
        return text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func inHours(_ seconds: TimeInterval?) -> String {
        seconds.map { String(format1: $0 / 3_600) + " h" } ?? "never"
    }
}
