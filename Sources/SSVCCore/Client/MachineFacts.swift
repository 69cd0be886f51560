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
