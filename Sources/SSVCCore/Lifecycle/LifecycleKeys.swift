/// The lifecycle inputs' app keys (SPEC §15), each declared once;
/// ssvcd.toml(5) describes each under APP KEYS.
package enum LifecycleKeys {
    package static let lifecycle = ConfigurationKey<String>(
        "lifecycle", .choice(["endoflife"]), "Ask whether the running version's release line is still supported (endoflife.date)."
    )
    package static let url = ConfigurationKey<String>(
        "lifecycle-url", .url, default: LifecycleSettings.defaultSource,
        "endoflife.date's product or release answer, or a mirror of it; {product} is replaced."
    )
    package static let product = ConfigurationKey<String>("lifecycle-product", .name, "The product at endoflife.date (default: the app-id).")
    package static let release = ConfigurationKey<String>(
        "lifecycle-release", .name, "The release's name, for lines whose names are no prefix of the version (nodejs18.x)."
    )
    package static let warnDays = ConfigurationKey<Int>(
        "lifecycle-warn-days", range: 0...AppKeys.centuryDays, default: LifecycleSettings.defaultWarnDays,
        "The state is ending from this many days before the end of life."
    )
    package static let maxAgeDays = ConfigurationKey<Int>(
        "lifecycle-max-age-days", range: 1...AppKeys.centuryDays, default: LifecycleSettings.defaultMaxAgeDays,
        "Without a successful read for this long, the state is unknown."
    )

    package static let all: [KeyEntry] = [lifecycle.entry, url.entry, product.entry, release.entry, warnDays.entry, maxAgeDays.entry]
}

/// The restart-pending input's app keys (SPEC §15).
package enum RestartKeys {
    package static let package = ConfigurationKey<String>(
        "installed-version-package", .name, "The installed version is that of this Debian package."
    )
    package static let file = ConfigurationKey<String>("installed-version-file", .path, "The installed version is the first line of this file.")
    package static let command = ConfigurationKey<[String]>(
        "installed-version-command", "The installed version is the first line of this program's output."
    )
    package static let criticalDays = ConfigurationKey<Int>(
        "restart-pending-critical-days", range: 0...AppKeys.centuryDays, default: 7,
        "A restart pending for longer is critical to Nagios."
    )

    package static let all: [KeyEntry] = [package.entry, file.entry, command.entry, criticalDays.entry]
}
