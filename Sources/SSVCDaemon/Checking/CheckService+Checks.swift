import FoundationEssentials
import SSVCCore

extension CheckService {
    /// One check at a time per app: a second request waits for the first.
    func runCheck(_ name: String, manual: Bool) async {
        if let running = inFlight[name] {
            await running.value
            return
        }
        let task = Task {
            await self.checkSlots.enter()
            await self.performCheck(name, manual: manual)
            // When the last check of a burst ends, the burst's memory goes
            // back to the system once all is quiet.
            if self.checkSlots.leave() { self.idleMemory?.noteActivity() }
        }
        inFlight[name] = task
        await task.value
        inFlight[name] = nil
    }

    private func performCheck(_ name: String, manual: Bool, again: Bool = false) async {
        guard !stopping, let app = app(named: name) else { return }
        let started = runtime.clock.now
        let before = state.apps[name] ?? AppState()
        if manual, let lastFetch = before.lastFetch, lastFetch <= started,
           started.timeIntervalSince(lastFetch) < configuration.daemon.policy.minimumInterval {
            return
        }
        let attempt = CheckAttempt(
            app: app, settings: configuration.daemon, machine: machine, commands: commands, readVersion: runtime.readVersion,
            storedResponse: before.response,
            storedETag: before.etag, storedSignature: before.signature, newestSignatureTime: before.newestSignatureTime,
            messageRecords: before.messages, storedInputs: AppInputs.stored(in: before), logger: logger
        )
        let result = await attempt.run(fetcher: fetcher, now: started)
        // A check cancelled by shutdown is not a failure of the server.
        guard !Task.isCancelled, let current = self.app(named: name) else { return }
        // A reload changed the app meanwhile (its URL, an input's settings): what
        // was read answers the old configuration. Read again, once.
        if current != app, !again {
            await performCheck(name, manual: manual, again: true)
            return
        }

        var after = (state.apps[name] ?? AppState()).recording(
            result.outcome, running: result.running, at: started, rollout: rollout(for: app), limits: limits(for: app)
        )
        for input in AppInputs.all { input.apply(result.inputs, app: app, to: &after) }
        var notices: [MessageNotice] = []
        if case let .success(evaluation, _, _, _, _) = result.outcome { notices = Self.coalesced(evaluation.messages) }
        state.apps[name] = after
        arm(name, atStart: false)
        tell(app, change: .check(result.outcome, notices: notices), at: started)
    }

    /// Notices told one by one from one check; more are told as one.
    static let noticesOneByOne = 5

    /// `notices`, the first `noticesOneByOne` as they are and the rest as
    /// one notice that counts them: a flood of messages is one journal
    /// entry, one hook run and one event, not thousands.
    static func coalesced(_ notices: [MessageNotice]) -> [MessageNotice] {
        guard notices.count > noticesOneByOne else { return notices }
        let rest = notices.count - noticesOneByOne
        let summary = MessageNotice(
            key: "coalesced", description: UpdateDescription(message: "and \(rest) more messages from this check", title: "\(rest) more messages")
        )
        return Array(notices.prefix(noticesOneByOne)) + [summary]
    }
}
