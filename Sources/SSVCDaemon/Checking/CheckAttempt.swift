import FoundationEssentials
import SSVCCore

/// One check's I/O, done outside the service's actor: read the running
/// version, fetch, decide. Returns values; the service applies them.
struct CheckAttempt: Sendable {
    let app: AppConfiguration
    let settings: DaemonSettings
    let machine: MachineFacts
    let storedResponse: String?
    let storedETag: String?
    let messageRecords: [String: MessageDisplayRecord]

    /// The running version found, even when the check then failed.
    struct Result: Sendable {
        var running: RunningVersion?
        var outcome: CheckOutcome
    }

    func run(fetcher: Fetcher, now: Date) async -> Result {
        let key: String
        do {
            key = try await VersionReader.read(app.version)
            try app.versionScheme.validate(key)
        } catch let error as VersionError {
            return Result(running: nil, outcome: .failure("running version \(error)", retryAfter: nil, fetched: false))
        } catch {
            return Result(running: nil, outcome: .failure("\(error)", retryAfter: nil, fetched: false))
        }
        let running = RunningVersion(key: key, configuredNumber: app.versionNumber, scheme: app.versionScheme)
        let context = EvaluationContext(
            running: running, appID: app.appID,
            locale: LocaleSettings(language: app.language ?? settings.language, country: app.country ?? settings.country),
            machine: machine, properties: app.properties, now: now, messageRecords: messageRecords,
            minimumReleaseAgeDays: app.minReleaseAgeDays
        )
        let url = app.format.requestURL(base: app.url, context: context, extraQuery: app.query.map { ($0.name, $0.value) })
        let body: [UInt8]
        var etag: String?
        do {
            switch try await fetcher.fetch(url, etag: storedResponse == nil ? nil : storedETag, options: app.fetchOptions(settings)) {
            case let .body(bytes, newETag):
                body = bytes
                etag = newETag
            case .notModified:
                body = Array((storedResponse ?? "").utf8)
                etag = storedETag
            }
        } catch {
            return Result(running: running, outcome: .failure(error.description, retryAfter: error.retryAfter, fetched: true))
        }
        do {
            let evaluation = try app.format.evaluate(body, context: context)
            return Result(running: running, outcome: .success(evaluation, body: String(decoding: body, as: UTF8.self), etag: etag, fetched: true))
        } catch {
            return Result(running: running, outcome: .failure("response rejected: \(error)", retryAfter: nil, fetched: true))
        }
    }
}
