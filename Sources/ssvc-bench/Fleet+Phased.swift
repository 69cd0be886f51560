import FoundationEssentials

extension Fleet {
    /// The phased run: the offered share every 6 hours from T beside the
    /// straight line and Sparkle's seven groups, then a required update,
    /// then the rollout paused and resumed.
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
        runPaused(simulation)
    }

    /// The publisher pauses the rollout (`SSVCPhasedRolloutPercentage` 0)
    /// at 2/7 of the window and removes the cap at 4/7 (T + 2 d and
    /// T + 4 d with a week's window); beside it, a cap of 30 from T to the
    /// same resume. A machine learns of a change at its next check: until
    /// then its offer timer may still make an offer.
    private func runPaused(_ simulation: PhasedFleetSimulation) {
        let (pause, resume) = (simulation.window * 2 / 7, simulation.window * 4 / 7)
        var paused = simulation
        paused.caps = PhasedFleetSimulation.paused(from: pause, until: resume)
        var stopped = simulation
        stopped.caps = [.init(from: 0, percentage: 30), .init(from: resume, percentage: nil)]
        let (rollout, capped) = (paused.run(), stopped.run())
        print("pause and resume: no cap until T + \(inHours(pause)), SSVCPhasedRolloutPercentage 0 until T + \(inHours(resume)), then none; "
            + "beside it, 30 from T until T + \(inHours(resume))")
        print("hours after T  line    paused  gap     30 until resume")
        var hour = 0
        while Double(hour) * 3_600 <= max(rollout.window, resume) + 2 * rollout.period {
            let time = Double(hour) * 3_600
            let (line, ssvc, thirty) = (rollout.ideal(at: time), rollout.fraction(rollout.ssvc, by: time), capped.fraction(capped.ssvc, by: time))
            print("\(pad(hour, 13))  \(percent(line))  \(percent(ssvc))  \(percent(ssvc - line, signed: true))  \(percent(thirty))")
            hour += 6
        }
        let settled = pause + rollout.period
        print("paused: offered after the pause on offer timers set before it, until each machine fetched the paused document "
            + "(T + \(inHours(pause)) to T + \(inHours(settled))): \(rollout.offered(rollout.ssvc, in: pause..<settled)) machines")
        if settled < resume {
            print("paused: offered once every machine knew of the pause (T + \(inHours(settled)) to T + \(inHours(resume))): "
                + "\(rollout.offered(rollout.ssvc, in: settled..<resume)) machines")
        }
        let caughtUp = resume + rollout.period
        print("resumed: offered from T + \(inHours(resume)) to T + \(inHours(caughtUp)) \(rollout.offered(rollout.ssvc, in: resume..<caughtUp)) machines "
            + "(those whose time came during the pause at their next check); largest gap from the line from T + \(inHours(caughtUp)) "
            + "to T + W \(percent(rollout.largestGap(rollout.ssvc, from: caughtUp), width: 0)); last machine offered \(inHours(rollout.last(rollout.ssvc)))")
        print("30 until the resume: most offered before it \(percent(capped.fraction(capped.ssvc, by: resume.nextDown), width: 0)); "
            + "offers withdrawn: paused \(rollout.withdrawn), 30 \(capped.withdrawn)")
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
