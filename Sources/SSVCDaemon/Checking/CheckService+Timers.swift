import FoundationEssentials
import SSVCCore

/// Plans and wake-ups: each app's timer is set for its `Wake`, the planned
/// check or the pending phased offer, whichever comes first.
extension CheckService {
    func planner(for app: AppConfiguration) -> SchedulePlanner {
        SchedulePlanner(
            schedule: app.schedule, phase: SchedulePlanner.phase(machineID: machineID, app: app.name),
            policy: configuration.daemon.policy
        )
    }

    func rollout(for app: AppConfiguration) -> PhasedRollout.Settings {
        PhasedRollout.Settings(
            app: app.name, window: app.phasedRolloutSeconds.map { TimeInterval($0) },
            pinnedPosition: configuration.daemon.rolloutPosition, machine: appSpecificID, windows: app.offerWindows
        )
    }

    /// What keeps versions back for the app: its keys and its hold.
    func limits(for app: AppConfiguration) -> KeepBackRules {
        app.limits(hold: state.apps[app.name]?.hold)
    }

    /// Plans the app's next check and sets its timer.
    func arm(_ name: String, atStart: Bool) {
        guard !stopping, let app = app(named: name) else {
            timers.removeValue(forKey: name)?.cancel()
            return
        }
        plans[name] = planner(for: app).plan(
            now: runtime.clock.now, history: state.apps[name].map(AppInputs.history) ?? CheckHistory(), atStart: atStart, jitter: runtime.jitter()
        )
        changed(name)
        armTimer(name)
    }

    /// Sets the app's timer (replacing any other) for its next wake-up.
    func armTimer(_ name: String) {
        timers.removeValue(forKey: name)?.cancel()
        guard !stopping, let plan = plans[name], let wake = Wake.next(check: plan, offer: state.apps[name]?.pending) else { return }
        let generation = (generations[name] ?? 0) + 1
        generations[name] = generation
        timers[name] = runtime.clock.schedule(at: wake.at, leeway: .milliseconds(500)) { [weak self] in
            await self?.wake(name, for: wake.reason, generation: generation)
        }
    }

    /// The app's timer fired: for an offer, the offer is made (and the
    /// check too when it falls at the same instant); for a check, the check.
    private func wake(_ name: String, for reason: Wake.Reason, generation: Int) async {
        guard !stopping, generations[name] == generation else { return }
        timers.removeValue(forKey: name)?.cancel()
        switch reason {
        case .offer:
            makeOffer(name)
            if let at = plans[name]?.at, at <= runtime.clock.now {
                await runCheck(name, manual: false)
            } else {
                armTimer(name)
            }
        case .check:
            await runCheck(name, manual: false)
        }
    }

    // MARK: Phased offers

    /// Makes `name`'s pending offer if its time has come: the status flips
    /// with no fetch, and is reported as a check's result is.
    private func makeOffer(_ name: String) {
        let now = runtime.clock.now
        guard let app = app(named: name), let before = state.apps[name], let offer = before.pending,
              let after = before.offering(at: now) else { return }
        state.apps[name] = after
        tell(app, change: .offer(offer), at: now)
    }

    /// Settles every app's last decision under the configuration in
    /// force (at start and after a reload: the window, the pin or the
    /// limits may have changed). An offer whose time has now come is made,
    /// a version a limit now keeps back is withdrawn, one no limit keeps
    /// back any more is offered; each is reported.
    func settleOffers() {
        liftInvalidHolds()
        for app in configuration.apps { settle(app, change: .limits) }
    }

    /// Settles `app`'s last decision again, reporting what changed as
    /// `change` (a pending offer made is reported as an offer).
    func settle(_ app: AppConfiguration, change: Reporter.HoldChange) {
        let now = runtime.clock.now
        guard let before = state.apps[app.name] else { return }
        let after = before.resettled(rollout(for: app), limits: limits(for: app), now: now)
        guard after != before || change != .limits else { return }
        state.apps[app.name] = after
        armTimer(app.name)
        if let offer = before.pending, after.pending == nil, after.held == nil, after.decision == offer.decision, change == .limits {
            // Made now, or at its time if that passed while ssvcd was stopped.
            var made = offer
            made.offerAt = min(offer.offerAt, now)
            tell(app, change: .offer(made), at: now)
        } else if after.decision != before.decision || after.held != before.held || change != .limits {
            tell(app, change: .hold(change), at: now)
        } else {
            // Through the batched writer: a reload that moves a thousand
            // offers writes the files once.
            changed(app.name)
            writer.changed()
        }
    }
}
