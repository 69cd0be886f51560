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
