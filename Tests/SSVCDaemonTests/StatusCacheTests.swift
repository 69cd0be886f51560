import Testing
@testable import SSVCDaemon

@Suite("StatusCache: GetStatus replies answered without the check service")
struct StatusCacheTests {
    let reply: [UInt8] = Array("{\"parameters\":{\"apps\":[]}}".utf8) + [0]

    @Test("a stored reply answers its own app only")
    func storesPerApp() {
        let cache = StatusCache()
        cache.store(reply, for: "a", generation: cache.generation)
        #expect(cache.reply(for: "a") == reply)
        #expect(cache.reply(for: "b") == nil)
        #expect(cache.reply(for: nil) == nil)
    }

    @Test("invalidate drops every reply")
    func invalidates() {
        let cache = StatusCache()
        cache.store(reply, for: nil, generation: cache.generation)
        cache.store(reply, for: "a", generation: cache.generation)
        cache.invalidate()
        #expect(cache.reply(for: nil) == nil)
        #expect(cache.reply(for: "a") == nil)
    }

    @Test("a reply computed before an invalidation is not kept")
    func refusesOldGeneration() {
        let cache = StatusCache()
        let before = cache.generation
        cache.invalidate()
        cache.store(reply, for: nil, generation: before)
        #expect(cache.reply(for: nil) == nil)
    }

    @Test("a reply expires after its lifetime")
    func expires() {
        let cache = StatusCache(lifetime: 0)
        cache.store(reply, for: nil, generation: cache.generation)
        #expect(cache.reply(for: nil) == nil)
    }
}
