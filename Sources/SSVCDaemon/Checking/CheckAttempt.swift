import FoundationEssentials
import Logging
import SSVCCore
import SSVCSigning

/// One check's I/O, done outside the service's actor: read the running
/// version, fetch, decide. Returns values; the service applies them.
struct CheckAttempt: Sendable {
    let app: AppConfiguration
    let settings: DaemonSettings
    let machine: MachineFacts
    /// The service's version commands, killed when it stops.
    let commands: RunningCommands
    /// How the running version is read (`CheckService.Runtime.readVersion`).
    let readVersion: @Sendable (VersionSource, RunningCommands) async throws -> String
    let storedResponse: String?
    let storedETag: String?
    /// The stored response's signature, and the newest signature time
    /// accepted for the app (a rollback below it is refused).
    let storedSignature: AcceptedSignature?
    let newestSignatureTime: Date?
    let messageRecords: [String: MessageDisplayRecord]
    /// Each input's data before this check, by input (`AppInput`).
    var storedInputs: [String: any Sendable] = [:]
    /// The service's, for what an input does for several apps at once (a mirror's pass).
    var logger: Logger

    /// The running version found, even when the check then failed, and
    /// each input's data after it, by input.
    struct Result: Sendable {
        var running: RunningVersion?
        var outcome: CheckOutcome
        var inputs: [String: any Sendable] = [:]
    }

    /// The version server's part, then each input's (one after another):
    /// one failing does not fail the others. An app without a version
    /// server is up to date once its inputs are read (SPEC §13).
    func run(fetcher: any HTTPTransport, now: Date) async -> Result {
        var result = await document(fetcher: fetcher, now: now)
        var failure: String?
        if case let .failure(error, _, _, _) = result.outcome { failure = error }
        let (readVersion, commands) = (readVersion, commands)
        let attempt = InputAttempt(
            app: app, daemon: settings, fetcher: fetcher, now: now, written: result.running?.written,
            readVersion: { source in try await readVersion(source, commands) }, logger: logger
        )
        var reads: [InputRead] = []
        for input in AppInputs.all {
            guard let read = await input.attempt(attempt, stored: storedInputs[input.name], running: result.running?.key, failure: failure) else {
                continue
            }
            reads.append(read)
            result.inputs[read.input] = read.data
        }
        if app.url == nil, result.running != nil, !reads.isEmpty {
            if let failed = reads.first(where: { !$0.succeeded }) {
                result.outcome = .failure(failed.error ?? "\(failed.input) not read", retryAfter: failed.retryAfter, fetched: true)
            } else {
                result.outcome = .success(Evaluation(decision: Decision(decided: true), messages: []), body: "", etag: nil, fetched: true)
            }
        }
        return result
    }

    private func document(fetcher: any HTTPTransport, now: Date) async -> Result {
        let key: String
        let written: String
        do {
            // `v1.2` runs as `1.2` where the scheme allows the `v`.
            written = try await readVersion(app.version, commands)
            key = try app.versionScheme.normalized(written)
        } catch let error as VersionError {
            return Result(running: nil, outcome: .failure("running version \(error)", retryAfter: nil, fetched: false))
        } catch {
            return Result(running: nil, outcome: .failure("\(error)", retryAfter: nil, fetched: false))
        }
        let running = RunningVersion(key: key, configuredNumber: app.versionNumber, scheme: app.versionScheme, written: written)
        let context = EvaluationContext(
            running: running, appID: app.appID,
            locale: LocaleSettings(language: app.language ?? settings.language, country: app.country ?? settings.country),
            machine: machine, properties: app.properties, now: now, messageRecords: messageRecords,
            minimumReleaseAgeDays: app.minReleaseAgeDays, formatSettings: app.formatSettings
        )
        guard let base = app.url else { return Result(running: running, outcome: .failure("no url", retryAfter: nil, fetched: false)) }
        let url = app.format.requestURL(base: base, context: context, extraQuery: app.query.map { ($0.name, $0.value) })
        let body: [UInt8]
        var etag: String?
        var modified = true
        let options = app.fetchOptions(settings)
        do {
            switch try await fetcher.fetch(url, etag: storedResponse == nil ? nil : storedETag, options: options, limit: nil, request: FetchRequest(), now: now) {
            case let .body(bytes, newETag, _):
                body = bytes
                etag = newETag
            case .notModified:
                body = Array((storedResponse ?? "").utf8)
                etag = storedETag
                modified = false
            }
        } catch {
            return Result(running: running, outcome: .failure(error.description, retryAfter: error.retryAfter, fetched: true))
        }
        var signature: AcceptedSignature?
        if let requirement = app.signature {
            do {
                signature = try await verify(body, modified: modified, requirement: requirement, options: options, fetcher: fetcher, now: now)
            } catch {
                return Result(running: running, outcome: .failure(error.message, retryAfter: error.retryAfter, fetched: true, kind: .signature))
            }
        }
        // Evaluated off the executor, within the check's time limit: a
        // document's cost grows with the server's text.
        let format = app.format
        let evaluated = await Offload.run("io.ssvc.evaluate", within: settings.timeoutSeconds) {
            Swift.Result { () throws(ResponseError) in try format.evaluate(body, context: context) }
        }
        guard let evaluated else {
            return Result(
                running: running,
                outcome: .failure("evaluating the response took longer than timeout-seconds (\(settings.timeoutSeconds) s)", retryAfter: nil, fetched: true)
            )
        }
        switch evaluated {
        case let .success(evaluation):
            return Result(
                running: running,
                outcome: .success(evaluation, body: String(decoding: body, as: UTF8.self), etag: etag, fetched: true, signature: signature)
            )
        case let .failure(error):
            return Result(running: running, outcome: .failure("response rejected: \(error)", retryAfter: nil, fetched: true))
        }
    }

    /// Why the signature was not accepted, for the journal.
    struct SignatureFailure: Error {
        var message: String
        var retryAfter: Date?
    }

    /// Fetches the document's signature and accepts it, or says why not.
    /// When the document was not modified, the stored signature is asked
    /// for conditionally and reused on 304: a signature made again for the
    /// same document (to keep it fresh) is still seen.
    private func verify(
        _ document: [UInt8], modified: Bool, requirement: SignatureRequirement, options: FetchOptions, fetcher: any HTTPTransport, now: Date
    ) async throws(SignatureFailure) -> AcceptedSignature {
        let reusable = modified ? nil : storedSignature
        let bytes: [UInt8]
        var etag: String?
        do {
            switch try await fetcher.signature(for: requirement, origin: app.url, options: options, etag: reusable?.etag, now: now) {
            case let .body(fetched, newETag, _):
                bytes = fetched
                etag = newETag
            case .notModified:
                bytes = Array((reusable?.text ?? "").utf8)
                etag = reusable?.etag
            }
        } catch {
            throw SignatureFailure(message: error.description, retryAfter: error.retryAfter)
        }
        do {
            return try requirement.accept(document, signature: bytes, etag: etag, now: now, newestAccepted: newestSignatureTime)
        } catch {
            throw SignatureFailure(message: "signature rejected: \(error.description)")
        }
    }
}
