import Foundation

/// Polls `condition` every `interval` seconds until it holds or `seconds`
/// pass; its last answer. For effects that land a little later than the
/// call that caused them (a daemon's reply, a journal entry, a restart).
func eventually(
    within seconds: Double, every interval: Double = 0.1, _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}
