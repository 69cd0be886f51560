/// What a Turkcell filter may ask about this machine. The daemon gathers it
/// (os-release, DMI); tests and `ssvcctl evaluate` fill it by hand.
public struct MachineFacts: Sendable, Equatable {
    /// `VERSION_ID` of os-release (`12`); empty when unknown.
    public var osVersion: String
    /// DMI product name, else the machine type (`x86_64`).
    public var model: String

    public init(osVersion: String = "", model: String = "") {
        self.osVersion = osVersion
        self.model = model
    }
}

extension EvaluationContext {
    /// The properties Turkcell filters see: the standard ones, then the
    /// app's own (`properties`), which override them.
    public var clientProperties: [String: String] {
        var properties = [
            "appPackageName": appID,
            "appVersionName": running.key,
            "appVersionCode": running.number.map(String.init) ?? "",
            "deviceOsName": "linux",
            "deviceOsVersion": machine.osVersion,
            "deviceModel": machine.model,
            "deviceIsTablet": "false",
            "deviceLanguage": locale.language,
        ]
        properties.merge(self.properties) { _, override in override }
        return properties
    }
}
