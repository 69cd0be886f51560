import Foundation
@testable import SSVCCore
import Testing

/// The fixtures in `Tests/Fixtures/sources`, written after the services'
/// public API documentation.
enum SourceFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sources")

    static func bytes(_ name: String) -> [UInt8] {
        Array((try? Data(contentsOf: folder.appendingPathComponent(name))) ?? Data())
    }
}

func sourceContext(_ running: String, scheme: VersionScheme = .dotted, settings: FormatSettings = FormatSettings()) -> EvaluationContext {
    EvaluationContext(
        running: RunningVersion(key: running, scheme: scheme), appID: "app", locale: LocaleSettings(language: "en", country: ""),
        now: Date(timeIntervalSince1970: 1_800_000_000), formatSettings: settings
    )
}
