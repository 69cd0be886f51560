/// The advisories input's app keys (SPEC §13), each declared once;
/// ssvcd.toml(5) describes each under APP KEYS.
package enum AdvisoryKeys {
    package static let advisories = ConfigurationKey<String>(
        "advisories", .choice(["osv"]), "Ask whether a published advisory (OSV) affects the running version."
    )
    package static let url = ConfigurationKey<String>(
        "advisories-url", .url, default: AdvisorySettings.defaultSource, "The osv.dev API, an OSV export zip or a file:// folder of records."
    )
    package static let ecosystem = ConfigurationKey<String>(
        "advisories-ecosystem", .name, "The OSV ecosystem: PyPI, npm, Go, crates.io, Debian:12, …"
    )
    package static let package = ConfigurationKey<String>("advisories-package", .name, "The package in that ecosystem.")
    package static let ignore = ConfigurationKey<ConfigValue>(
        "ignore-advisories", .written("[ _id_ | { id = _id_, until = _date_, reason = _text_ }, ... ]"),
        "Advisories not to report, each an id or { id, until, reason }."
    )
    package static let maxAgeDays = ConfigurationKey<Int>(
        "advisories-max-age-days", range: 1...AppKeys.centuryDays, default: AdvisorySettings.defaultMaxAgeDays,
        "Without a successful read for this long, the state is unknown."
    )
    package static let maxBytes = ConfigurationKey<Int>(
        "advisories-max-bytes", range: 1024...(16 << 30), default: AdvisorySettings.defaultMaxBytes,
        "The most an export may have as downloaded, or a folder's records together."
    )

    package static let all: [KeyEntry] = [
        advisories.entry, url.entry, ecosystem.entry, package.entry, ignore.entry, maxAgeDays.entry, maxBytes.entry,
    ]
}
