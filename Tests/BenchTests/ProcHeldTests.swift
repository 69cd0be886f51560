@testable import ssvc_bench
@preconcurrency import Glibc
import Testing

@Suite("what the soak says a process holds")
struct ProcHeldTests {
    @Test("a pipe, a listening Unix socket and a TCP socket opened here are named by kind, path and state")
    func namesWhatIsOpened() throws {
        let pid = getpid()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let path = "/tmp/ssvc-held-\(pid).sock"
        unlink(path)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(tcp) }
        var loopback = sockaddr_in()
        loopback.sin_family = sa_family_t(AF_INET)
        loopback.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let tcpBound = withUnsafePointer(to: &loopback) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(tcp, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(tcpBound == 0 && listen(tcp, 1) == 0)
        let sockets = ProcHeld.socketKinds(pid)
        #expect(ProcHeld.descriptor(pid, "\(ends[0])", sockets: sockets) == "pipe")
        #expect(ProcHeld.descriptor(pid, "\(listener)", sockets: sockets) == "unix \(path)")
        #expect(ProcHeld.descriptor(pid, "\(tcp)", sockets: sockets) == "tcp LISTEN")
        #expect(ProcHeld.descriptors(pid).contains("unix \(path)"))
    }

    @Test("extra counts each name's surplus and nothing the start had as many of")
    func extra() {
        #expect(ProcHeld.extra(["a", "b", "b", "c"], over: ["b", "c", "c"]) == ["1 a", "1 b"])
        #expect(ProcHeld.counted(["ssvcd", "x", "x"]) == "1 ssvcd, 2 x")
    }
}
