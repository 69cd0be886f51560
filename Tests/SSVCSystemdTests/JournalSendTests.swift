import Foundation
import Synchronization
import SSVCPosix
import SSVCSystemd
import SSVCTestSupport
import Testing

/// The native journal protocol as ssvcd speaks it without libsystemd,
/// read back by a datagram socket standing in for journald. The real
/// journald takes the daemon's entries in the integration and booted
/// suites; this one also sees the bytes and the descriptor of an entry too
/// large for a datagram.
@Suite("native journal entries")
struct JournalSendTests {
    /// A bound datagram socket in a folder of its own.
    final class FakeJournal {
        let folder: String
        let path: String
        let descriptor: Int32

        init() throws {
            folder = NSTemporaryDirectory() + "ssvc-journal-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            path = folder + "/socket"
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0, UnixSocket.bind(descriptor, to: path) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        }

        deinit {
            close(descriptor)
            try? FileManager.default.removeItem(atPath: folder)
        }

        /// The next datagram waiting (none: nil), and the descriptor it
        /// carried, if any. Never waits: a send returns once queued.
        func receive() -> (bytes: [UInt8], descriptor: Int32?)? {
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            // A cmsghdr (16 bytes on 64-bit Linux) and one descriptor,
            // padded to 8: CMSG_SPACE(sizeof(int)).
            var control = [UInt8](repeating: 0, count: 24)
            let count = buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { control in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vector in
                        var message = msghdr()
                        message.msg_iov = vector
                        message.msg_iovlen = 1
                        message.msg_control = control.baseAddress
                        message.msg_controllen = control.count
                        let received = recvmsg(descriptor, &message, Int32(MSG_DONTWAIT))
                        return (received, message.msg_controllen)
                    }
                }
            }
            guard count.0 >= 0 else { return nil }
            let passed: Int32? = count.1 >= 20 ? control.withUnsafeBytes { $0.load(fromByteOffset: 16, as: Int32.self) } : nil
            return (Array(buffer.prefix(count.0)), passed)
        }
    }

    /// journald's reading of a native entry: `NAME=value\n`, or `NAME\n`,
    /// a 64-bit little-endian length, the value and `\n`.
    static func fields(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var fields: [(String, [UInt8])] = []
        var at = 0
        while at < bytes.count {
            let end = bytes[at...].firstIndex { $0 == 0x3D || $0 == 0x0A }!
            let name = String(decoding: bytes[at..<end], as: UTF8.self)
            if bytes[end] == 0x3D {
                let line = bytes[(end + 1)...].firstIndex(of: 0x0A)!
                fields.append((name, Array(bytes[(end + 1)..<line])))
                at = line + 1
            } else {
                let length = (0..<8).reduce(0) { $0 | Int(bytes[end + 1 + $1]) << (8 * $1) }
                let start = end + 9
                fields.append((name, Array(bytes[start..<(start + length)])))
                #expect(bytes[start + length] == 0x0A)
                at = start + length + 1
            }
        }
        return fields
    }

    @Test("fields go as NAME=value lines, a value with line feeds in the binary-safe form")
    func fieldsAndLineFeeds() throws {
        let journal = try FakeJournal()
        let entry = [(name: "MESSAGE", value: "first\nsecond\n"), (name: "PRIORITY", value: "5"), (name: "SSVC_APP", value: "a=b ü")]
        #expect(Journal.send(entry, socket: journal.path))
        let received = try #require(journal.receive())
        #expect(received.descriptor == nil)
        let fields = Self.fields(received.bytes)
        #expect(fields.map(\.0) == ["MESSAGE", "PRIORITY", "SSVC_APP"])
        #expect(fields.map { String(decoding: $0.1, as: UTF8.self) } == ["first\nsecond\n", "5", "a=b ü"])
        #expect(String(decoding: received.bytes.prefix(8), as: UTF8.self) == "MESSAGE\n", "the binary form")
    }

    @Test("an entry too large for a datagram goes in a sealed memfd, whole")
    func largeEntry() throws {
        let journal = try FakeJournal()
        // Past any datagram: the socket asks an 8 MiB send buffer, which
        // the kernel doubles at most (net.core.wmem_max caps the ask).
        let large = String(repeating: "0123456789abcdef", count: 17 << 16) + "\nend"
        #expect(Journal.send([(name: "MESSAGE", value: large), (name: "PRIORITY", value: "6")], socket: journal.path))
        let received = try #require(journal.receive())
        #expect(received.bytes.count == 0, "the datagram carries only the descriptor")
        let descriptor = try #require(received.descriptor)
        defer { close(descriptor) }
        // F_GET_SEALS (1034): journald refuses a memfd that could still change.
        let seals = fcntl(descriptor, 1034)
        #expect(seals == 1 | 2 | 4 | 8, "F_SEAL_SEAL, SHRINK, GROW and WRITE")
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        lseek(descriptor, 0, SEEK_SET)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { break }
            contents += chunk.prefix(count)
        }
        let fields = Self.fields(contents)
        #expect(fields.map(\.0) == ["MESSAGE", "PRIORITY"])
        #expect(fields.first.map { String(decoding: $0.1, as: UTF8.self) == large } == true, "the value, whole")
    }

    @Test("no journal listening is a failure the handler can see, so the entry goes to standard error")
    func nobodyListens() throws {
        let journal = try FakeJournal()
        #expect(!Journal.send([(name: "MESSAGE", value: "lost?")], socket: journal.folder + "/none"))
        #expect(!Journal.send([(name: "MESSAGE", value: "x")], socket: String(repeating: "/long", count: 30)))
    }

    @Test("a journald that reads nothing never holds the sender: entries wait in order, past the bound they are counted, and the count is said once it reads")
    func stalledJournal() async throws {
        let journal = try FakeJournal()
        let sender = JournalSender(socket: journal.path)
        let padding = String(repeating: "x", count: 64 << 10)
        // Sent off the pool: were a send to wait for this journald, which
        // reads nothing yet, only this thread would hang, and the test fail.
        let outcomes = Mutex<[JournalSender.Outcome]?>(nil)
        Thread.detachNewThread {
            let all = (0..<400).map { index in sender.send(Journal.Entry([("MESSAGE", "\(index) \(padding)")]), fallback: {}) }
            outcomes.withLock { $0 = all }
        }
        let returned = await eventually(within: 20, every: 0.05) { outcomes.withLock { $0 != nil } }
        try #require(returned, "400 sends to a journald that reads nothing did not all return")
        let all = try #require(outcomes.withLock { $0 })
        let kept = all.indices.filter { all[$0] != .dropped }
        let dropped = all.count - kept.count
        #expect(all.first == .sent)
        #expect(all.contains(.queued) && dropped > 0, "\(all.filter { $0 == .sent }.count) sent, \(all.filter { $0 == .queued }.count) queued, \(dropped) dropped")
        #expect(sender.backlog.dropped == dropped)
        // Once sending waits, nothing is sent past the queue: the order holds.
        let firstQueued = try #require(all.firstIndex(of: .queued))
        #expect(!all[firstQueued...].contains(.sent))

        // journald reads again: every entry not dropped arrives, in order,
        // then one that says how many were dropped.
        var messages: [String] = []
        let drained = await eventually(within: 20, every: 0.01) {
            while let datagram = journal.receive() {
                let message = Self.fields(datagram.bytes).first { $0.0 == "MESSAGE" }.map { String(decoding: $0.1, as: UTF8.self) } ?? ""
                messages.append(message.count > 200 ? String(message.prefix { $0 != " " }) : message)
            }
            return messages.count == kept.count + 1
        }
        #expect(drained, "\(messages.count) of \(kept.count + 1) entries arrived")
        #expect(messages.dropLast() == kept.map(String.init))
        #expect(messages.last == "\(dropped) journal entries dropped while journald read nothing: more than 4 MiB waited")
        #expect(sender.backlog == (0, 0))
    }
}
