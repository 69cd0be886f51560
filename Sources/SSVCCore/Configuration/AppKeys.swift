/// The keys of an app (an `[[app]]` table or an app file), each declared
/// once; ssvcd.toml(5) describes each under APP KEYS, and a test holds it
/// to these declarations. An input's own keys (advisories) are declared
/// with the input.
package enum AppKeys {
    /// 100 years, the longest span in days any key takes.
    static let centuryDays = 36_500

    package static let name = ConfigurationKey<String>("name", "The app's name in every output; in an app file, the file's name.")
    package static let url = ConfigurationKey<String>("url", .url, "Where the version document is: https, http or file.")
    package static let format = ConfigurationKey<ResponseFormat>("format", default: .ssvc, "The document's format.")
    package static let schedule = ConfigurationKey<Schedule>("schedule", default: .daily, "How often the app is checked.")
    package static let version = ConfigurationKey<String>("version", "The running version, written out.")
    package static let versionFile = ConfigurationKey<String>("version-file", .path, "The running version is the first line of this file.")
    package static let versionCommand = ConfigurationKey<[String]>(
        "version-command", "The running version is the first line of this program's output."
    )
    package static let versionPackage = ConfigurationKey<String>(
        "version-package", .name, "The running version is the installed version of this Debian package."
    )
    package static let versionNumber = ConfigurationKey<Int>(
        "version-number", range: 0...Int.max, "The running version number, compared with the server's numbers."
    )
    package static let versionScheme = ConfigurationKey<VersionScheme>("version-scheme", "How version keys compare.")
    package static let appID = ConfigurationKey<String>("app-id", "The app's identifier at the server (default: the name).")
    package static let language = ConfigurationKey<String>("language", "Overrides the daemon's language for this app.")
    package static let country = ConfigurationKey<String>("country", "Overrides the daemon's country for this app.")
    package static let properties = ConfigurationKey<[String: String]>(table: "properties", "Extra Turkcell filter properties, named x-….")
    package static let query = ConfigurationKey<[String: String]>(table: "query", "Extra query parameters added to the request.")
    package static let minReleaseAgeDays = ConfigurationKey<Int>(
        "min-release-age-days", range: 0...centuryDays, "itunes: a version released fewer days ago is not offered yet."
    )
    package static let includePrereleases = ConfigurationKey<Bool>("include-prereleases", default: false, "github: consider prereleases too.")
    package static let tagPrefix = ConfigurationKey<String>(
        "tag-prefix", default: GitHubReleases.Settings.defaultTagPrefix, "github: removed from the front of each tag to give its version."
    )
    package static let tagPattern = ConfigurationKey<String>(
        "tag-pattern", .pattern, "github: a regular expression whose first capture group is the version; other tags are skipped."
    )
    package static let versionPointer = ConfigurationKey<String>(
        "version-pointer", .pointer, "json: the JSON Pointer to the version, such as /info/version."
    )
    package static let datePointer = ConfigurationKey<String>(
        "date-pointer", .pointer, "json: the JSON Pointer to its release time (RFC 3339 or Unix seconds)."
    )
    package static let minimumVersionPointer = ConfigurationKey<String>(
        "minimum-version-pointer", .pointer, "json: the JSON Pointer to the minimum supported version."
    )
    package static let urlPointer = ConfigurationKey<String>("url-pointer", .pointer, "json: the JSON Pointer to the target URL.")
    package static let rolloutPercentagePointer = ConfigurationKey<String>(
        "rollout-percentage-pointer", .pointer, "json: the JSON Pointer to the publisher's rollout cap, 0 to 100."
    )
    package static let proxy = ConfigurationKey<String>(
        "proxy", .written("_none_ | _URL_"), "This app's proxy, over the daemon's and the environment's; none goes direct."
    )
    package static let bearerTokenFile = ConfigurationKey<String>(
        "bearer-token-file", .path, "A token sent as Authorization: Bearer, its file's first line."
    )
    package static let bearerTokenCredential = ConfigurationKey<String>(
        "bearer-token-credential", .name, "The token from this systemd credential instead of a file."
    )
    package static let headers = ConfigurationKey<[String: String]>(table: "headers", "Plain request headers, such as X-Fleet.")
    package static let publicKeys = ConfigurationKey<[String]>(
        "public-keys", "minisign public keys: every document must carry a good signature by one of them."
    )
    package static let signatureURL = ConfigurationKey<String>(
        "signature-url", .url, "Where the signature is (default: the url with .minisig on its path)."
    )
    package static let maxSignatureAgeDays = ConfigurationKey<Int>(
        "max-signature-age-days", range: 1...centuryDays, "A signature made longer ago is refused."
    )
    package static let phasedRolloutSeconds = ConfigurationKey<Int>(
        "phased-rollout-seconds", range: 0...Int(PhasedRollout.maximumWindowSeconds),
        "Phase a newer version over this many seconds (default: the document's window)."
    )
    package static let maxVersion = ConfigurationKey<String>("max-version", .version, "Offer nothing above this version.")
    package static let ignoreVersions = ConfigurationKey<[String]>("ignore-versions", .versions, "Versions never offered.")

    /// Every app key but the inputs', in the order the manual page lists them.
    package static let all: [KeyEntry] = [
        name.entry, url.entry, format.entry, schedule.entry, version.entry, versionFile.entry, versionCommand.entry,
        versionNumber.entry, versionScheme.entry, appID.entry, language.entry, country.entry, properties.entry, query.entry,
        minReleaseAgeDays.entry, proxy.entry, bearerTokenFile.entry, bearerTokenCredential.entry, headers.entry,
        ClientIdentityKeys.certificate.entry, ClientIdentityKeys.key.entry, ClientIdentityKeys.keyCredential.entry,
        publicKeys.entry, signatureURL.entry, maxSignatureAgeDays.entry, phasedRolloutSeconds.entry, versionPackage.entry,
        includePrereleases.entry, tagPrefix.entry, tagPattern.entry, versionPointer.entry, datePointer.entry,
        minimumVersionPointer.entry, urlPointer.entry, rolloutPercentagePointer.entry, maxVersion.entry, ignoreVersions.entry,
    ]
}

/// TLS client authentication, the same three keys for an app and for
/// `[daemon]` (every app).
package enum ClientIdentityKeys {
    package static let certificate = ConfigurationKey<String>(
        "client-certificate", .path, "A PEM client certificate (TLS client authentication), with client-key or client-key-credential."
    )
    package static let key = ConfigurationKey<String>("client-key", .path, "The client certificate's PEM private key.")
    package static let keyCredential = ConfigurationKey<String>(
        "client-key-credential", .name, "The client certificate's key from this systemd credential instead of a file."
    )
}
