import Dispatch
import Foundation
import SSVCPosix
import Synchronization
import SSVCTestSupport
import Testing
@testable import SSVCDaemon

@Suite("MainQueueExecutor")
struct MainQueueExecutorTests {
    @Test("delays become whole nanoseconds for Dispatch; none below zero, none past its range")
    func intervals() {
        #expect(MainQueueExecutor.interval(.milliseconds(1_500)) == .nanoseconds(1_500_000_000))
        #expect(MainQueueExecutor.interval(.nanoseconds(7)) == .nanoseconds(7))
        #expect(MainQueueExecutor.interval(.seconds(-3)) == .nanoseconds(0))
        #expect(MainQueueExecutor.interval(.seconds(Int64.max)) == .never)
    }
}
