import FoundationEssentials
import SSVCCore
import SSVCSigning

/// End of life (SPEC §15): is the release line the running version
/// belongs to still supported? endoflife.date's dates say, by the daemon's
/// clock; an app may ask only this (no `url`).
enum EndOfLife: AppInput {
    typealias Settings = LifecycleSettings
    typealias Stored = LifecycleData
    typealias Verdict = EndOfLifeVerdict

    static let name = "lifecycle"
    static let keys = LifecycleKeys.all
    static let enabling = "\(LifecycleKeys.lifecycle.name) = \"endoflife\""
    static var storage: WritableKeyPath<AppState, LifecycleData?> { \.lifecycle }

    static let metricFamilies = [
        MetricFamily(name: "ssvc_app_lifecycle", help: "1 for the app's lifecycle state (supported, security-only, ending, end-of-life, unknown), 0 for each other."),
        MetricFamily(name: "ssvc_app_end_of_life_timestamp_seconds", help: "The first instant after the running release line's last supported day; absent when not known."),
    ]

    // MARK: Settings

    /// The `lifecycle*` keys: nil when the app does not ask about its end
    /// of life (then none of the others may be set).
    static func settings(_ reader: TableReader, app: InputContext) throws(ConfigurationError) -> LifecycleSettings? {
        guard let kind = try reader.read(LifecycleKeys.lifecycle) else {
            for key in keys where reader.table[key.name] != nil {
                throw reader.error(key.name, "needs \(enabling)")
            }
            return nil
        }
        guard kind == "endoflife" else {
            throw reader.error(LifecycleKeys.lifecycle, "'\(DisplayText.cut(kind, bytes: 40))' is not known: the one source is \"endoflife\"")
        }
        let product = try reader.read(LifecycleKeys.product) ?? app.appID
        if let problem = productProblem(product) { throw reader.error(LifecycleKeys.product, problem) }
        let template = try reader.value(LifecycleKeys.url)
        let source = LifecycleSettings.url(template, product: product)
        if let problem = AppKeyRules.urlProblem(source) { throw reader.error(LifecycleKeys.url, problem) }
        let release = try reader.read(LifecycleKeys.release)
        if let release, let problem = EndOfLifeAnswer.nameProblem(release) { throw reader.error(LifecycleKeys.release, problem) }
        return LifecycleSettings(
            source: source, product: product, release: release,
            warnDays: try reader.value(LifecycleKeys.warnDays), maxAgeDays: try reader.value(LifecycleKeys.maxAgeDays)
        )
    }

    /// Why `product` cannot name a product: empty, long, a path's dot
    /// segment, or holding a control character or a blank.
    static func productProblem(_ product: String) -> String? {
        if product.isEmpty { return "empty" }
        if product.utf8.count > EndOfLifeAnswer.maximumNameBytes { return "longer than \(EndOfLifeAnswer.maximumNameBytes) bytes" }
        if product == "." || product == ".." { return "'\(product)' is no product's name" }
        if product.unicodeScalars.contains(where: { $0 == " " || DisplayText.isControl($0) || DisplayText.isFormat($0) }) {
            // Cut, not escaped: the error's printer escapes it, once.
            return "'\(DisplayText.cut(product, bytes: 60))' holds a blank, a control or a formatting character"
        }
        return nil
    }

    static func source(_ settings: LifecycleSettings) -> String? { settings.source }

    /// `public-keys` sign the answer as they sign a document: its
    /// signature beside it, or at `signature-url` for an app without url.
    static func signed(
        _ settings: LifecycleSettings, by signature: SignatureRequirement, app: InputContext, reader: TableReader
    ) throws(ConfigurationError) -> LifecycleSettings {
        var settings = settings
        // signature-url names it only for an app without url; otherwise it
        // lies beside the answer (not beside another input's source).
        let named = app.url == nil && reader.table[AppKeys.signatureURL.name] != nil
        settings.signature = named
            ? signature
            : SignatureRequirement(publicKeys: signature.publicKeys, url: SignatureRequirement.defaultURL(for: settings.source), maxAgeDays: signature.maxAgeDays)
        return settings
    }

    // MARK: Reading

    static func read(_ settings: LifecycleSettings, stored: LifecycleData?, running: String, attempt: InputAttempt) async -> LifecycleData {
        var options = attempt.app.fetchOptions(attempt.daemon).sending(to: settings.source, tokenFor: attempt.app.url ?? settings.source)
        // The app's headers are its server's.
        options.headers = []
        return await EndOfLifeCheck(settings: settings, daemon: attempt.daemon, stored: stored)
            .run(running: running, fetcher: attempt.fetcher, options: options, now: attempt.now)
    }

    static func failed(_ stored: LifecycleData?, error: String, at now: Date) -> LifecycleData {
        (stored ?? LifecycleData()).failed(error, at: now)
    }

    static func lastRead(_ data: LifecycleData) -> (succeeded: Bool, error: String?) {
        (data.lastAttempt == data.checked, data.lastError ?? "end of life not read")
    }

    static func retry(_ data: LifecycleData) -> (failures: Int, notBefore: Date?) {
        (data.consecutiveFailures, data.retryNotBefore)
    }

    // MARK: Verdict

    static func verdict(
        _ settings: LifecycleSettings, data: LifecycleData?, app: AppConfiguration, state: AppState, now: Date, restoring: Bool
    ) -> EndOfLifeVerdict {
        var data = data
        // A release read for another running version (an upgrade whose read
        // then failed) or under other settings (a reload) is not this one's.
        if var read = data, read.release != nil || read.unmatched != nil, !read.applies(to: state.currentVersion, under: settings) {
            read.release = nil
            read.unmatched = read.readFor != nil && read.readFor != settings.readKey
                ? "not read since lifecycle-url, -product or -release changed"
                : "not read for the running version \(DisplayText.cut(state.currentVersion ?? "?", bytes: 80)) yet (the last read was for \(DisplayText.cut(read.version ?? "?", bytes: 80)))"
            data = read
        }
        let running = state.currentVersion ?? data?.version
        let verdict = LifecycleVerdict(data: data, settings: settings, running: running, scheme: app.versionScheme, now: now)
        let said = restoring ? data?.reported : (data == nil ? nil : verdict.reported)
        return EndOfLifeVerdict(verdict, settings: settings, data: data, said: said, hasServer: app.url != nil, running: running)
    }

    static func remember(_ said: LifecycleData.Reported, in data: inout LifecycleData) {
        data.reported = said
    }
}

/// One read of an app's end-of-life data, outside the service's actor:
/// fetch the answer (conditionally, for the same version), check its
/// signature, parse it off the executor, match the release.
struct EndOfLifeCheck: Sendable {
    let settings: LifecycleSettings
    let daemon: DaemonSettings
    let stored: LifecycleData?

    func run(running: String, fetcher: any HTTPTransport, options: FetchOptions, now: Date) async -> LifecycleData {
        let previous = stored ?? LifecycleData()
        // Validators only for the same version: another one is matched anew.
        let sameVersion = previous.version == running && previous.checked != nil && previous.readFor == settings.readKey
        let source = URLText.masked(settings.source)
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.fetch(
                settings.source, etag: sameVersion ? previous.etag : nil, options: options,
                limit: BodyBound(bytes: EndOfLifeAnswer.maximumBytes, description: "the \(EndOfLifeAnswer.maximumBytes) bytes an end-of-life answer may have"),
                request: FetchRequest(lastModified: sameVersion ? previous.lastModified : nil), now: now
            )
        } catch {
            return previous.failed("lifecycle: \(source): \(error.description)", at: now, retryAfter: error.retryAfter)
        }
        guard case let .body(bytes, etag, lastModified) = outcome else { return previous.unchanged(at: now) }
        var next = previous
        if let requirement = settings.signature {
            let signature: FetchOutcome
            do {
                signature = try await fetcher.signature(for: requirement, origin: settings.source, options: options, now: now)
            } catch {
                return previous.failed("lifecycle: \(error.description)", at: now, retryAfter: error.retryAfter)
            }
            guard case let .body(signatureBytes, _, _) = signature else {
                return previous.failed("lifecycle: signature \(URLText.masked(requirement.url)): 304 to a plain request", at: now)
            }
            do {
                let accepted = try requirement.accept(bytes, signature: signatureBytes, etag: etag, now: now, newestAccepted: previous.newestSignatureTime)
                let signedAt = accepted.signedAt ?? now
                next.newestSignatureTime = max(signedAt, previous.newestSignatureTime ?? signedAt)
            } catch {
                return previous.failed("lifecycle: \(source): signature rejected: \(error.description)", at: now)
            }
        }
        // Parsed off the executor: the answer is the server's text, up to 2 MiB.
        let parsed = await Offload.run("io.ssvc.lifecycle", within: daemon.timeoutSeconds) {
            Result { () throws(DocumentError) in try EndOfLifeAnswer.read(bytes) }
        }
        switch parsed {
        case let .success(answer)?:
            return next.read(answer, version: running, named: settings.release, etag: etag, lastModified: lastModified, at: now, readFor: settings.readKey)
        case let .failure(error)?:
            return previous.failed("lifecycle: \(source): the answer: \(error.description)", at: now)
        case nil:
            return previous.failed("lifecycle: \(source): reading the answer took longer than timeout-seconds (\(daemon.timeoutSeconds) s)", at: now)
        }
    }
}

extension AppConfiguration {
    /// `lifecycle = "endoflife"` and its keys; nil: no end of life asked about.
    package var lifecycle: LifecycleSettings? {
        get { inputs[EndOfLife.self] }
        set { inputs[EndOfLife.self] = newValue }
    }
}
