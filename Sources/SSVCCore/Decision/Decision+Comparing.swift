extension Decision {
    /// Decides by key, as the formats that name only a version do
    /// (`itunes`, `github`, `json`): an update when the running key is older
    /// than `latest` under its scheme, `ahead` when newer. An unknown
    /// running version is offered `latest`, with a note saying why.
    mutating func compare(_ running: RunningVersion, with latest: String) throws(ResponseError) {
        guard !running.key.isEmpty else {
            updateAvailable = true
            notes.append("the running version is unknown")
            return
        }
        do {
            let order = try running.scheme.compare(running.key, latest)
            updateAvailable = order == .older
            ahead = order == .newer
        } catch {
            throw .runningVersion(error)
        }
    }
}
