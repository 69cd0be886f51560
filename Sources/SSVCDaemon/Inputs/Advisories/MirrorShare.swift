@preconcurrency import Glibc
import FoundationEssentials
import NIOConcurrencyHelpers
import SSVCCore

/// The apps of one daemon whose advisories come from one mirror (an
/// export or a folder of records, with the same network settings, keys and
/// bound) share its download and its passes (issue 55): ten PyPI apps read
/// the same 200 MB ten times a day before. The export is downloaded once
/// into one file in the state directory, kept while the daemon runs (a
/// stop and a start remove it), and each pass over it evaluates every
/// record for every package and version the apps have asked about. What a
/// pass found for each is kept with the file: an app asking again while
/// the source is unchanged is answered from it, without a pass.
///
/// A check asks `read`, which answers, in turn:
///
/// | the share                                             | answer                              |
/// |-------------------------------------------------------|-------------------------------------|
/// | a pass or download under way                          | waits for it, then asks again       |
/// | validated within `reuse` seconds, a finding for it    | that finding                        |
/// | validated within `reuse`, no file, the app's ETag     | unchanged: the app's findings stand |
/// | otherwise                                             | a new pass: the source validated (a conditional request, or the local file's identity) unless it was within `reuse`; on a new file, every target read in one pass, else those without a finding |
actor MirrorShare {
    /// What one app asks about: the evaluation's outcome depends on nothing else.
    struct Target: Hashable, Sendable {
        var ecosystem: String
        var package: String
        var version: String
        var written: String
        var ignoring: [String]

        init(_ evaluator: AdvisoryEvaluator) {
            ecosystem = evaluator.ecosystem
            package = evaluator.package
            version = evaluator.version
            written = evaluator.written
            ignoring = evaluator.ignoring.sorted()
        }
    }

    /// What the asking app holds from its last read.
    struct Asker: Sendable {
        var etag: String?
        var lastModified: String?
        /// Its findings are of the version it asks about now: a 304 to
        /// its validators then says they stand.
        var sameVersion: Bool
        /// The newest signature time it accepted (a rollback is refused).
        var newestSignature: Date?
    }

    /// The source's file as downloaded (or the local file itself).
    struct Kept: Sendable {
        var path: String
        var etag: String?
        var lastModified: String?
        var signedAt: Date?
        /// Downloaded into the state folder, so removed when replaced or
        /// at the stop; false for a local mirror's own file.
        var downloaded: Bool
    }

    /// How the share reaches the source: given by the app whose check
    /// starts a pass, with its fetcher, settings and deadlines.
    struct Work: Sendable {
        /// Validates the source against `validators`: nil when unchanged,
        /// else the file to read, its signature checked; a download goes to `download`.
        var fetch: @Sendable (
            _ validators: (etag: String?, lastModified: String?), _ newestSignature: Date?, _ download: String
        ) async throws(AdvisoryCheck.Failure) -> Kept?
        /// One pass over the file for every evaluator.
        var read: @Sendable (_ path: String, _ evaluators: [AdvisoryEvaluator]) async throws(AdvisoryCheck.Failure) -> [AdvisoryEvaluator]
    }

    enum Answer: Sendable {
        /// The source is unchanged since the app's last read.
        case unchanged
        case read(AdvisoryEvaluator, Kept)
    }

    /// The file a download goes to, in the state folder: this share's alone.
    let download: String
    /// Targets known from the configuration before any check asks (an
    /// app's fixed version): the first pass reads them too, so that apps
    /// whose checks wait for a slot are not left to a pass of their own.
    private let expected = NIOLockedValueBox<[Target: AdvisoryEvaluator]>([:])
    private var file: Kept?
    /// When the source was last found unchanged or fetched.
    private var validated: Date?
    /// Validations made: a check counts one made after it began, whatever the clock says.
    private var validations = 0
    /// The ETag a 304 confirmed while no file is kept: apps holding it keep their findings.
    private var confirmed: String?
    /// Every target asked about, with the number of the file current
    /// when it last was: a new file keeps those asked during the last one's life.
    private var targets: [Target: (seed: AdvisoryEvaluator, asked: Int)] = [:]
    private var fileNumber = 0
    /// The newest signature time any asking app has accepted: no download
    /// older than it is accepted, and no app is answered from one.
    private var newestSignature: Date?
    private var findings: [Target: AdvisoryEvaluator] = [:]
    private var running: Task<Result<Void, AdvisoryCheck.Failure>, Never>?

    init(download: String) {
        self.download = download
    }

    /// What the configuration says the apps will ask (from any thread).
    nonisolated func expect(_ seeds: [AdvisoryEvaluator]) {
        expected.withLockedValue { expected in
            expected = [:]
            for seed in seeds { expected[Target(seed)] = seed }
        }
    }

    /// The finding for `seed`'s target, or unchanged; see the type's table.
    func read(_ seed: AdvisoryEvaluator, asker: Asker, reuse: TimeInterval, work: Work, now: Date) async throws(AdvisoryCheck.Failure) -> Answer {
        let target = Target(seed)
        let validationsBefore = validations
        if let mine = asker.newestSignature { newestSignature = max(newestSignature ?? mine, mine) }
        // A pass this check started or waited for answers it, so it starts
        // at most two. A server answering 304 to a request without
        // validators (no file to read) leaves the app's findings as they
        // are, as before.
        var started = 0
        while true {
            targets[target] = (seed, fileNumber)
            var failed: AdvisoryCheck.Failure?
            if let running {
                // One app's stop (the daemon's) ends the shared work.
                if case let .failure(error) = await withTaskCancellationHandler(operation: { await running.value }, onCancel: { running.cancel() }) {
                    failed = error
                }
            }
            // Validated since this check began (by its own pass, or one it
            // waited for), or within `reuse` before it.
            let fresh = validations > validationsBefore || (validated.map { now >= $0 && now.timeIntervalSince($0) < reuse } ?? false)
            if fresh {
                if let found = findings[target], let file { return try answer(found, file, asker) }
                if file == nil, asker.sameVersion, let etag = asker.etag, etag == confirmed { return .unchanged }
            }
            // A pass that failed (the source unreachable) fails every check
            // that waited for it and has no answer: none starts another at once.
            if let failed { throw failed }
            if Task.isCancelled { throw AdvisoryCheck.Failure(description: "the daemon stopped before the mirror was read") }
            // Another check started a pass while this one waited: wait for it too.
            guard running == nil else { continue }
            guard started < 2 else { break }
            started += 1
            // A local mirror's own file is looked at again before each pass: it may have changed in place.
            let validate = !fresh || file == nil || file?.downloaded == false
            running = Task { await self.pass(validate: validate, asker: asker, work: work, now: now) }
        }
        if let found = findings[target], let file { return try answer(found, file, asker) }
        guard file != nil else { return .unchanged }
        throw AdvisoryCheck.Failure(description: "\(target.package) was not read in the mirror's passes")
    }

    /// A finding for an app, unless the file's signature is older than
    /// one the app has accepted: a rollback, refused as a download of its own would be.
    private func answer(_ found: AdvisoryEvaluator, _ file: Kept, _ asker: Asker) throws(AdvisoryCheck.Failure) -> Answer {
        if let mine = asker.newestSignature, let signed = file.signedAt, signed < mine {
            throw AdvisoryCheck.Failure(
                description: "signature rejected: signed \(RFC3339.format(signed)), before the signature already accepted (\(RFC3339.format(mine))): refused as a rollback"
            )
        }
        return .read(found, file)
    }

    /// Validates the source when asked, then reads the file once for the
    /// targets without a finding. Ends with `running` cleared.
    private func pass(validate: Bool, asker: Asker, work: Work, now: Date) async -> Result<Void, AdvisoryCheck.Failure> {
        defer { running = nil }
        do throws(AdvisoryCheck.Failure) {
            if validate {
                // The kept file's validators; without one, the asker's, whose findings a 304 keeps.
                let validators = file.map { ($0.etag, $0.lastModified) } ?? (asker.sameVersion ? (asker.etag, asker.lastModified) : (nil, nil))
                let newest = [file?.signedAt, newestSignature].compactMap { $0 }.max()
                if let fetched = try await work.fetch(validators, newest, download) {
                    if let old = file, old.path != fetched.path { MirrorShares.discard(old) }
                    // Targets no app asked about while the last file was current are gone.
                    targets = targets.filter { $0.value.asked >= fileNumber }
                    fileNumber += 1
                    (file, findings, confirmed) = (fetched, [:], nil)
                } else if file == nil {
                    confirmed = validators.0
                }
                validated = now
                validations += 1
            }
            guard let file else { return .success(()) }
            for (target, seed) in expected.withLockedValue({ $0 }) where targets[target] == nil { targets[target] = (seed, fileNumber) }
            let missing = targets.filter { findings[$0.key] == nil }
            guard !missing.isEmpty else { return .success(()) }
            let read = try await work.read(file.path, missing.map(\.value.seed))
            for (target, evaluator) in zip(missing.keys, read) { findings[target] = evaluator }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Forgets the file (removing a download) and every finding.
    func close() {
        running?.cancel()
        if let file { MirrorShares.discard(file) }
        (file, validated, confirmed) = (nil, nil, nil)
        findings = [:]
        targets = [:]
        expected.withLockedValue { $0 = [:] }
    }
}

/// Each daemon's mirror shares, by its state folder (tests run many
/// daemons in one process) and the mirror's key.
enum MirrorShares {
    /// What makes two apps' mirrors one: the same URL, fetched the same
    /// way, signed by the same keys, within the same bound.
    struct Key: Equatable, Sendable {
        var source: String
        var options: FetchOptions
        var signature: SignatureRequirement?
        var maxBytes: Int

        /// An app's advisory source, fetched with `options`.
        init(_ settings: AdvisorySettings, options: FetchOptions) {
            (source, self.options, signature, maxBytes) = (settings.source, options, settings.signature, settings.maxBytes)
        }
    }

    private static let daemons = NIOLockedValueBox<[String: [(key: Key, share: MirrorShare)]]>([:])

    static func share(daemon stateDirectory: String, key: Key) -> MirrorShare {
        daemons.withLockedValue { daemons in
            let shares = daemons[stateDirectory, default: []]
            if let found = shares.first(where: { $0.key == key }) { return found.share }
            // Named by the URL, and numbered: one URL fetched two ways is two shares.
            let share = MirrorShare(download: downloadPath(daemon: stateDirectory, source: key.source, number: shares.count))
            daemons[stateDirectory, default: []].append((key, share))
            return share
        }
    }

    /// Tells each mirror what the configuration says its apps will ask
    /// (`AdvisoryCheck.expected`), at a start and a reload: a check that
    /// waits for a slot while the first pass runs is read by it all the
    /// same (ten apps on one mirror, eight checks at a time, took two
    /// passes at the start; a hundred took thirteen).
    static func expect(daemon stateDirectory: String, _ seeds: [(key: Key, seed: AdvisoryEvaluator)]) {
        var byKey: [(key: Key, seeds: [AdvisoryEvaluator])] = []
        for (key, seed) in seeds {
            if let index = byKey.firstIndex(where: { $0.key == key }) { byKey[index].seeds.append(seed) } else { byKey.append((key, [seed])) }
        }
        for (key, seeds) in byKey { share(daemon: stateDirectory, key: key).expect(seeds) }
        let others = daemons.withLockedValue { $0[stateDirectory, default: []] }.filter { share in !byKey.contains { $0.key == share.key } }
        for (_, share) in others { share.expect([]) }
    }

    /// A reload: the shares of mirrors no app reads any more are closed,
    /// their downloads removed.
    static func keep(daemon stateDirectory: String, _ keys: [Key]) async {
        let gone = daemons.withLockedValue { daemons in
            let (kept, gone) = daemons[stateDirectory, default: []].reduce(into: ([(key: Key, share: MirrorShare)](), [MirrorShare]())) { parts, share in
                if keys.contains(share.key) { parts.0.append(share) } else { parts.1.append(share.share) }
            }
            daemons[stateDirectory] = kept
            return gone
        }
        for share in gone { await share.close() }
    }

    /// The daemon stops: its shares' files are removed.
    static func close(daemon stateDirectory: String) async {
        let shares = daemons.withLockedValue { $0.removeValue(forKey: stateDirectory) ?? [] }
        for (_, share) in shares { await share.close() }
    }

    /// Removes a downloaded file; a local mirror's own file is never touched.
    static func discard(_ kept: MirrorShare.Kept) {
        if kept.downloaded { unlink(kept.path) }
    }

    /// The file a mirror's download goes to in the state folder: named by
    /// a hash of its URL (FNV-1a) and the share's number.
    static func downloadPath(daemon stateDirectory: String, source: String, number: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in source.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return stateDirectory + "/.advisories-" + String(repeating: "0", count: 16 - hex.count) + hex + "-\(number).zip"
    }
}
