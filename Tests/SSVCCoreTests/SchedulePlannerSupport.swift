import Foundation
import Testing
@testable import SSVCCore

func utc(_ text: String) -> Date {
    guard let date = RFC3339.parse(text) else { fatalError("bad test time \(text)") }
    return date
}
