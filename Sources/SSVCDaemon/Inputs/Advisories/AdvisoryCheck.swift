import CMemory
@preconcurrency import Glibc
import FoundationEssentials
import Logging
import SSVCArchive
import SSVCCore
import SSVCPosix
import SSVCSigning

/// One read of an app's advisories (SPEC §13), done outside the service's
/// actor like the rest of a check: find the package and version to ask
/// about, read the source, evaluate every record here. Returns the app's
/// advisory data after it; a failure keeps the last good findings.
struct AdvisoryCheck: Sendable {
    let app: AppConfiguration
    let settings: AdvisorySettings
    let daemon: DaemonSettings
    let stored: AdvisoryData?
    let logger: Logger

    /// `running`: the app's running version as its scheme reads it;
    /// `written`: as it was read, before that (`v1.2` for `1.2`).
    func run(running: String, written: String? = nil, fetcher: any HTTPTransport, options: FetchOptions, now: Date) async -> AdvisoryData {
        let previous = stored ?? AdvisoryData()
        let package: String
        let version: String
        do {
            (package, version) = try await target(running: running)
        } catch {
            return previous.failed(error.description, at: now)
        }
        var evaluator: AdvisoryEvaluator
        do {
            evaluator = try Self.evaluator(settings, package: package, version: version, written: version == running ? written : nil)
        } catch {
            return previous.failed("advisories: running version \(error)", at: now)
        }
        // Validators only for the data of this version: another one reads the source in full.
        let sameVersion = previous.version == version && previous.checked != nil
        do {
            switch settings.sourceKind {
            case .api:
                try await readAPI(&evaluator, package: package, fetcher: fetcher, options: options, now: now)
                return previous.read(evaluator, etag: nil, lastModified: nil, at: now)
            case .folder, .zip:
                // Shared with every app of this daemon on the same mirror (issue 55).
                let share = MirrorShares.share(daemon: daemon.stateDirectory, key: MirrorShares.Key(settings, options: options))
                let asker = MirrorShare.Asker(
                    etag: previous.etag, lastModified: previous.lastModified, sameVersion: sameVersion, newestSignature: previous.newestSignatureTime
                )
                let answer = try await share.read(
                    evaluator, asker: asker, reuse: daemon.policy.minimumInterval, work: mirrorWork(fetcher: fetcher, options: options, now: now), now: now
                )
                guard case let .read(found, kept) = answer else { return previous.unchanged(at: now) }
                var next = previous.read(found, etag: kept.etag, lastModified: kept.lastModified, at: now)
                if let signedAt = kept.signedAt { next.newestSignatureTime = max(signedAt, previous.newestSignatureTime ?? signedAt) }
                return next
            }
        } catch {
            return previous.failed("advisories: \(error.description)", at: now, retryAfter: error.retryAfter)
        }
    }

    /// What evaluates the records for `package` at `version`; `written`:
    /// the app's own spelling of it (dpkg's version has no other).
    static func evaluator(_ settings: AdvisorySettings, package: String, version: String, written: String?) throws(VersionError) -> AdvisoryEvaluator {
        var evaluator = try AdvisoryEvaluator(ecosystem: settings.ecosystem, package: package, version: version, written: written)
        evaluator.ignoring = Set(settings.ignores.map(\.id))
        return evaluator
    }

    /// What `app`'s check will ask its mirror, when the configuration
    /// says it (a fixed version, a package not read from dpkg), with the
    /// mirror's key; nil otherwise.
    static func expected(_ app: AppConfiguration, daemon: DaemonSettings) -> (MirrorShares.Key, AdvisoryEvaluator)? {
        guard let settings = app.advisories, settings.sourceKind != .api, case let .fixed(written) = app.version,
              let running = try? app.versionScheme.normalized(written),
              let seed = try? evaluator(settings, package: settings.package ?? app.appID, version: running, written: written)
        else { return nil }
        return (Advisories.mirrorKey(app, settings: settings, daemon: daemon), seed)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        var retryAfter: Date? = nil
    }

    /// Ends a read that held `turns`: its tree is gone, so its pages go
    /// back to the system before the next read, which may run on another
    /// thread and so in another malloc arena (three apps' reads, each
    /// refused at the bound, left 113 MiB resident before this; one alone
    /// 91); then the next in line may read.
    private static func endRead(_ turns: ReadTurns) {
        _ = ssvc_trim_heap()
        turns.give()
    }

    /// The package and version asked about: for `version-package`, the
    /// source package dpkg names and its version (OSV's Debian records
    /// are by source package), unless `advisories-package` names another.
    private func target(running: String) async throws(Failure) -> (package: String, version: String) {
        guard case let .package(binary, database) = app.version else {
            return (settings.package ?? app.appID, running)
        }
        let result = await Offload.run("io.ssvc.dpkg") {
            Result { () throws(BoundedReader.Failure) in try DpkgDatabase.shared.installedSource(of: binary, path: database) }
        }
        switch result {
        case let .success(source)?:
            return (settings.package ?? source.package, source.version)
        case let .failure(error)?:
            throw Failure(description: "advisories: version-package: \(DisplayText.cut(error.description, bytes: 512))")
        case nil:
            throw Failure(description: "advisories: dpkg's database was not read")
        }
    }

    /// The osv.dev API: one query by package, its pages followed.
    private func readAPI(
        _ evaluator: inout AdvisoryEvaluator, package: String, fetcher: any HTTPTransport, options: FetchOptions, now: Date
    ) async throws(Failure) {
        var token: String?
        var pages = 0
        repeat {
            pages += 1
            guard pages <= OSVQuery.maximumPages else {
                throw Failure(description: "the API answered more than \(OSVQuery.maximumPages) pages for \(DisplayText.escaped(package, limit: 80))")
            }
            let body = OSVQuery.body(ecosystem: settings.ecosystem, package: package, pageToken: token)
            // One page in memory at a time in the daemon: its text, then its tree.
            let turns = ReadTurns.of(daemon: daemon.stateDirectory)
            guard await turns.take() else { throw Failure(description: "the daemon stopped before the API was asked") }
            var turnHandedOn = false
            defer { if !turnHandedOn { turns.give() } }
            let outcome: FetchOutcome
            let pageLimit = min(settings.maxBytes, Self.pageBytes)
            do {
                outcome = try await fetcher.fetch(
                    settings.source, etag: nil, options: options,
                    limit: BodyBound(bytes: pageLimit, description: "the \(pageLimit) bytes an API page may have"),
                    request: FetchRequest(post: body), now: now
                )
            } catch {
                throw Failure(description: "\(URLText.masked(settings.source)): \(error.description)", retryAfter: error.retryAfter)
            }
            guard case let .body(bytes, _, _) = outcome else { throw Failure(description: "the API answered 304 to a query") }
            // Parsed and evaluated off the executor: a page's cost grows
            // with the server's text. The deadline is checked between
            // records, so that work past it stops (issue 51).
            let seconds = daemon.timeoutSeconds
            let deadline = MonotonicClock.seconds() + seconds
            let late = "the API's answer took longer than \(Fetcher.limitText(timeoutSeconds: seconds, factor: 1))"
            let before = evaluator
            let pageNumber = pages
            // The turn ends with the work, which may outlive the wait for
            // it: the app's next read, like any other, waits for that end.
            turnHandedOn = true
            // The stop ends the evaluation too, at its next range.
            let cancellation = Offload.Cancellation()
            let read = await Offload.run("io.ssvc.advisories", within: seconds, cancellation: cancellation) {
                defer { Self.endRead(turns) }
                return Result { () throws(Failure) -> (AdvisoryEvaluator, String?) in
                    let page: OSVQuery.Page
                    do {
                        page = try OSVQuery.page(bytes)
                    } catch {
                        throw Failure(description: "the API's answer: \(error)")
                    }
                    var next = before
                    // Between records, and between a record's ranges.
                    next.expired = { MonotonicClock.seconds() >= deadline || cancellation.isSet }
                    for (index, record) in page.records.enumerated() {
                        guard MonotonicClock.seconds() < deadline, !cancellation.isSet else { throw Failure(description: "evaluating \(late)") }
                        switch record {
                        case let .success(record): next.add(record)
                        case let .failure(problem):
                            next.skip("page \(pageNumber) vulns[\(index)]", problem: problem.description, record: page.parsed(index))
                        }
                        if next.ranOutOfTime { throw Failure(description: "evaluating \(late)") }
                    }
                    next.expired = nil
                    return (next, page.nextPageToken)
                }
            }
            switch read {
            case let .success((next, nextToken))?:
                evaluator = next
                token = nextToken
            case let .failure(error)?:
                throw error
            case nil:
                throw Failure(description: "reading \(late)")
            }
        } while token != nil
    }

    /// The most bytes of one API page (osv.dev's hold up to 1,000 records,
    /// a few megabytes): it is read whole, and parsed into a tree.
    static let pageBytes = 16 << 20

    /// How a mirror's share reaches it on this app's behalf: its fetcher,
    /// options and deadlines, the same for every app sharing it.
    private func mirrorWork(fetcher: any HTTPTransport, options: FetchOptions, now: Date) -> MirrorShare.Work {
        let (check, logger, source) = (self, logger, URLText.masked(settings.source))
        return MirrorShare.Work(
            fetch: { validators, newest, download throws(Failure) in
                try await check.fetchMirror(validators: validators, newestSignature: newest, download: download, fetcher: fetcher, options: options, now: now)
            },
            read: { path, evaluators throws(Failure) in
                let limits = AdvisoryFiles.Budget(
                    totalBytes: check.settings.maxBytes,
                    deadline: MonotonicClock.seconds() + check.daemon.timeoutSeconds * Double(Self.downloadFactor)
                )
                let (read, parsed) = try await check.readFile(path, into: evaluators, limits: limits)
                // What sharing saves, said: one pass for every package asked about (issue 55).
                let records = read.first?.recordsRead ?? 0
                logger.info(
                    "advisories: one pass over \(records) records of \(source) (\(parsed) parsed) for \(read.count) package\(read.count == 1 ? "" : "s") and version\(read.count == 1 ? "" : "s") asked about",
                    metadata: ["SSVC_URL": "\(source)"]
                )
                return read
            }
        )
    }

    /// An export zip (over https, http or from a file) or a folder of
    /// records, validated against `validators`: nil when unchanged, else
    /// the file to read, its signature accepted. A download goes to the
    /// mirror's one file in the state directory, through a partial file
    /// renamed once whole and accepted.
    private func fetchMirror(
        validators: (etag: String?, lastModified: String?), newestSignature: Date?, download target: String, fetcher: any HTTPTransport,
        options: FetchOptions, now: Date
    ) async throws(Failure) -> MirrorShare.Kept? {
        if settings.source.lowercased().hasPrefix("file://") {
            guard let path = URL(string: "file://" + settings.source.dropFirst(7))?.path, !path.isEmpty else {
                throw Failure(description: "'\(URLText.masked(settings.source))' is not a file URL")
            }
            // A local mirror's validator: its identity, size and time.
            let identity = AdvisoryFiles.identity(of: path)
            if let identity, identity == validators.etag { return nil }
            let signedAt = try await verify(path, newest: newestSignature, fetcher: fetcher, options: options, now: now)
            return MirrorShare.Kept(path: path, etag: identity, lastModified: nil, signedAt: signedAt, downloaded: false)
        }
        let partial = target + ".part"
        // Made afresh, never one found there (a state folder others can write to).
        unlink(partial)
        let file = open(partial, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard file >= 0 else {
            throw Failure(description: "cannot write \(partial): \(String(cString: strerror(errno)))")
        }
        var kept = false
        defer {
            close(file)
            if !kept { unlink(partial) }
        }
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.fetch(
                settings.source, etag: validators.etag, options: options,
                limit: BodyBound(bytes: settings.maxBytes, description: "advisories-max-bytes (\(settings.maxBytes))"),
                request: FetchRequest(sink: file, lastModified: validators.lastModified, deadlineFactor: Self.downloadFactor), now: now
            )
        } catch {
            throw Failure(description: "\(URLText.masked(settings.source)): \(error.description)", retryAfter: error.retryAfter)
        }
        guard case let .body(_, etag, lastModified) = outcome else { return nil }
        let signedAt = try await verify(partial, newest: newestSignature, fetcher: fetcher, options: options, now: now)
        guard rename(partial, target) == 0 else {
            throw Failure(description: "cannot rename \(partial) to \(target): \(String(cString: strerror(errno)))")
        }
        kept = true
        return MirrorShare.Kept(path: target, etag: etag, lastModified: lastModified, signedAt: signedAt, downloaded: true)
    }

    /// With `public-keys`, the export's minisign signature accepted as a
    /// document's is, over the file as it lies on disk (hashed as it is
    /// read), before any record of it is read; nil when none is asked for.
    private func verify(_ path: String, newest: Date?, fetcher: any HTTPTransport, options: FetchOptions, now: Date) async throws(Failure) -> Date? {
        guard let requirement = settings.signature else { return nil }
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.signature(for: requirement, origin: settings.source, options: options, now: now)
        } catch {
            throw Failure(description: error.description, retryAfter: error.retryAfter)
        }
        guard case let .body(bytes, _, _) = outcome else { throw Failure(description: "signature \(URLText.masked(requirement.url)): 304 to a plain request") }
        let result = await Offload.run("io.ssvc.advisories-signature") {
            Result { () throws(SignatureProblem) in try requirement.acceptFile(at: path, signature: bytes, etag: nil, now: now, newestAccepted: newest) }
        }
        switch result {
        case let .success(accepted)?: return accepted.signedAt ?? now
        case let .failure(problem)?: throw Failure(description: "signature rejected: \(problem.description)")
        case nil: throw Failure(description: "the signature was not checked")
        }
    }

    /// How many times `timeout-seconds` a mirror's download may take in all.
    static let downloadFactor = 20

    /// Reads the records at `path` off the executor for every evaluator
    /// in one pass, within 20 times `timeout-seconds`.
    private func readFile(
        _ path: String, into start: [AdvisoryEvaluator], limits: AdvisoryFiles.Budget
    ) async throws(Failure) -> (evaluators: [AdvisoryEvaluator], parsed: Int) {
        // One source in memory at a time in the daemon (`ReadTurns`).
        let turns = ReadTurns.of(daemon: daemon.stateDirectory)
        guard await turns.take() else { throw Failure(description: "the daemon stopped before \(path) was read") }
        // The stop ends the read too, at its next record or range.
        let cancellation = Offload.Cancellation()
        var limits = limits
        limits.abandoned = { cancellation.isSet }
        let result = await Offload.run("io.ssvc.advisories", within: daemon.timeoutSeconds * Double(Self.downloadFactor), cancellation: cancellation) {
            [limits] () -> Result<([AdvisoryEvaluator], Int), AdvisoryFiles.Failure> in
            defer { Self.endRead(turns) }
            var evaluators = start
            do throws(AdvisoryFiles.Failure) {
                let parsed = try AdvisoryFiles.read(path: path, into: &evaluators, limits: limits)
                return .success((evaluators, parsed))
            } catch {
                return .failure(error)
            }
        }
        // Past the deadline the work stops at its next record, whichever
        // of it and the wait sees the time first (issue 51).
        let late = "reading \(path) took longer than \(Fetcher.limitText(timeoutSeconds: daemon.timeoutSeconds, factor: Self.downloadFactor))"
        switch result {
        case let .success(read)?: return read
        case let .failure(error)? where error.timedOut: throw Failure(description: late)
        case let .failure(error)?: throw Failure(description: error.description)
        case nil: throw Failure(description: late)
        }
    }
}
