import FoundationEssentials
import SSVCCore
import Testing

@Suite("app state: what a signed check records")
struct SignedStateRecordingTests {
    let start = utc("2026-03-01T10:00:00Z")

    func success(signedAt: Date?) throws -> CheckOutcome {
        let context = EvaluationContext(running: RunningVersion(key: "1.0"), appID: "", locale: LocaleSettings(language: "en", country: ""), now: start)
        let evaluation = try ResponseFormat.ssvc.evaluate(Array(#"{"SSVCLatestVersionKey":"1.1"}"#.utf8), context: context)
        let signature = AcceptedSignature(text: "sig", etag: nil, keyID: "475416EDBA99E22F", signedAt: signedAt)
        return .success(evaluation, body: "{}", etag: nil, fetched: true, signature: signature)
    }

    @Test("a signed success keeps the signature and moves the newest signature time forward, never back")
    func newestTime() throws {
        let first = AppState().recording(try success(signedAt: utc("2026-02-01T00:00:00Z")), running: nil, at: start)
        #expect(first.signature?.keyID == "475416EDBA99E22F")
        #expect(first.newestSignatureTime == utc("2026-02-01T00:00:00Z"))
        let untimed = first.recording(try success(signedAt: nil), running: nil, at: start)
        #expect(untimed.newestSignatureTime == utc("2026-02-01T00:00:00Z"))
        let later = first.recording(try success(signedAt: utc("2026-02-15T00:00:00Z")), running: nil, at: start)
        #expect(later.newestSignatureTime == utc("2026-02-15T00:00:00Z"))
    }

    @Test("a signature failure keeps the stored signature and the newest time; an unsigned success drops the signature only")
    func failureAndUnsigned() throws {
        let signed = AppState().recording(try success(signedAt: utc("2026-02-01T00:00:00Z")), running: nil, at: start)
        let failed = signed.recording(.failure("signature rejected: x", retryAfter: nil, fetched: true, kind: .signature), running: nil, at: start)
        #expect(failed.signature == signed.signature)
        #expect(failed.newestSignatureTime == signed.newestSignatureTime)
        let context = EvaluationContext(running: RunningVersion(key: "1.0"), appID: "", locale: LocaleSettings(language: "en", country: ""), now: start)
        let plain = try ResponseFormat.ssvc.evaluate(Array("{}".utf8), context: context)
        let unsigned = signed.recording(.success(plain, body: "{}", etag: nil, fetched: true), running: nil, at: start)
        #expect(unsigned.signature == nil)
        #expect(unsigned.newestSignatureTime == utc("2026-02-01T00:00:00Z"))
    }

    @Test("a state file from before signatures reads with none")
    func oldStateFile() throws {
        let text = #"{"schema":1,"apps":{"a":{"consecutiveFailures":0,"messages":{}}}}"#
        let state = try JSONDecoder().decode(DaemonState.self, from: Data(text.utf8))
        #expect(state.apps["a"]?.signature == nil)
        #expect(state.apps["a"]?.newestSignatureTime == nil)
    }
}
