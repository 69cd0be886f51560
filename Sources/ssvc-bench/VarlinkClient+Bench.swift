import SSVCControl
import SSVCCore

extension VarlinkClient {
    /// Sends a ready-made message and waits for its reply: the load
    /// generator spends its time in the round trip, not in encoding.
    func roundTrip(_ message: [UInt8]) throws(BenchError) {
        do {
            try send(message)
            _ = try receive()
        } catch {
            throw BenchError("\(error)")
        }
    }

    /// The `apps` of a GetStatus or Check reply; a Varlink error throws.
    func apps(_ method: ControlMethod) throws(BenchError) -> [JSONField] {
        do {
            let parameters = JSONField(root: try JSONParser.parse(try call(method)))
            guard let apps = parameters.member("apps") else { throw BenchError("\(method.rawValue): no apps in the reply") }
            return try apps.elements()
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("\(method.rawValue): \(error)")
        }
    }
}
