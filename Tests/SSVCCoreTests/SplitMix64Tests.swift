import SSVCCore
import Testing

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("from seed 0 it gives the reference implementation's first three numbers (Vigna's splitmix64.c)")
    func reference() {
        var generator = SplitMix64(seed: 0)
        #expect((0..<3).map { _ in generator.next() } == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }
}
