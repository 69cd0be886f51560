import Foundation
import Testing
@testable import SSVCCore

/// Shared fixtures: a context for a tablet-less Linux machine running 1.0.
enum TurkcellFixture {
    static let appID = "com.example.app"

    static func context(
        key: String = "1.0", number: UInt64? = nil, language: String = "en",
        osVersion: String = "6.0", model: String = "iPad2,1", properties: [String: String] = [:],
        now: Date = Date(timeIntervalSince1970: 1_700_000_000), records: [String: MessageDisplayRecord] = [:]
    ) -> EvaluationContext {
        EvaluationContext(
            running: RunningVersion(key: key, configuredNumber: number),
            appID: appID, locale: LocaleSettings(language: language, country: ""),
            machine: MachineFacts(osVersion: osVersion, model: model), properties: properties,
            now: now, messageRecords: records
        )
    }

    /// A document with one valid update entry guarded by `filters` (JSON object text).
    static func document(filters: String) -> [UInt8] {
        Array(#"{"packageName":"\#(appID)","updates":[{"filters":\#(filters),"targetPackageUrl":"https://x/pkg"}]}"#.utf8)
    }

    static func decide(_ body: [UInt8], _ context: EvaluationContext = context()) throws -> Decision {
        try ResponseFormat.turkcell.evaluate(body, context: context).decision
    }

    static func decide(_ text: String, _ context: EvaluationContext = context()) throws -> Decision {
        try decide(Array(text.utf8), context)
    }
}
