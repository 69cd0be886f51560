import SSVCCore
@testable import SSVCDaemon
import Testing

@Suite("notices: a flood from one check told as one")
struct NoticeCoalescingTests {
    func notices(_ count: Int) -> [MessageNotice] {
        (0..<count).map { MessageNotice(key: "id:\($0)", description: UpdateDescription(message: "m\($0)")) }
    }

    @Test("up to five notices are told one by one; more are five and one that counts the rest")
    func coalesced() {
        #expect(CheckService.coalesced(notices(5)) == notices(5))
        let many = CheckService.coalesced(notices(60_000))
        #expect(many.count == 6)
        #expect(Array(many.prefix(5)) == notices(5))
        #expect(many.last?.description.title == "59995 more messages")
    }
}
