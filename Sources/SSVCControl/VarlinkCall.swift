import SSVCCore

/// One Varlink method call (varlink.org): `{"method": "iface.Method",
/// "parameters": {…}, "oneway"?: bool, "more"?: bool}`, validated before
/// anything is dispatched.
package struct VarlinkCall: Sendable {
    /// The full name: interface and method, `io.ssvc.Daemon.GetStatus`.
    package let method: String
    package let parameters: JSONField
    /// The caller wants no reply.
    package let oneway: Bool
    /// The caller accepts several replies (`continues`).
    package let more: Bool

    package var interface: String {
        String(method[..<(method.lastIndex(of: ".") ?? method.startIndex)])
    }

    package init(parsing bytes: [UInt8]) throws(VarlinkProtocolError) {
        let root: JSONField
        do {
            root = JSONField(root: try JSONParser.parse(bytes))
        } catch {
            throw VarlinkProtocolError(description: "\(error)")
        }
        do throws(DocumentError) {
            try root.requireObject()
            guard let method = try root.member("method")?.string() else {
                throw DocumentError(path: "method", problem: "missing")
            }
            guard method.contains("."), !method.hasPrefix("."), !method.hasSuffix(".") else {
                throw DocumentError(path: "method", problem: "'\(method)' is not interface.Method")
            }
            self.method = method
            if let parameters = root.member("parameters") {
                try parameters.requireObject()
                self.parameters = parameters
            } else {
                self.parameters = JSONField(root: .object([]))
            }
            oneway = try root.member("oneway")?.flag() ?? false
            more = try root.member("more")?.flag() ?? false
        } catch {
            throw VarlinkProtocolError(description: "\(error)")
        }
    }

    /// An optional string parameter; the name of the parameter when it is
    /// something else (for `org.varlink.service.InvalidParameter`).
    package func optionalString(_ name: String) -> Result<String?, InvalidParameter> {
        guard let field = parameters.member(name) else { return .success(nil) }
        guard case let .string(text) = field.value else { return .failure(InvalidParameter(name: name)) }
        return .success(text)
    }

    /// The first parameter not in `known`, if any.
    package func unknownParameter(_ known: [String]) -> String? {
        guard case let .object(members) = parameters.value else { return nil }
        return members.first { !known.contains($0.key) }?.key
    }

    package struct InvalidParameter: Error, Equatable {
        package let name: String
    }
}

/// A message that is not a Varlink call: the connection is closed.
package struct VarlinkProtocolError: Error, Equatable, CustomStringConvertible {
    package let description: String
}
