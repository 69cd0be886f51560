import SSVCCore

/// The version of ssvc, sent as `User-Agent: ssvcd/<version>`.
package enum DaemonVersion {
    package static let current = SSVCVersion.current
    package static let userAgent = "ssvcd/\(current)"
}
