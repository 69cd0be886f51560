import Foundation
import SSVCPosix
import SSVCTestSupport
import Testing

@Suite("ChildProcess: one posix_spawn for the daemon, the client, the benchmark and the tests")
struct ChildProcessTests {
    func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ssvc-child-\(UUID().uuidString)").path
    }

    @Test("exit status and signal are told apart, with the shell's number")
    func termination() async throws {
        #expect(try await ChildProcess(["sh", "-c", "exit 3"]).exited() == .exited(3))
        let killed = try await ChildProcess(["sh", "-c", "kill -TERM $$"]).exited()
        #expect(killed == .signalled(SIGTERM))
        #expect(killed.code == 128 + SIGTERM)
        #expect(killed.description == "killed by signal \(SIGTERM)")
    }

    @Test("the child starts with no blocked signals and default dispositions, whatever the parent has")
    func signals() async throws {
        let output = temporaryFile()
        defer { unlink(output) }
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let oldHangUp = signal(SIGHUP, SIG_IGN)
        defer {
            signal(SIGHUP, oldHangUp)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        let child = try ChildProcess(["sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"], output: .file(output))
        #expect(await child.exited() == .exited(0))
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains("SigBlk:\t0000000000000000"), "\(lines)")
        // sh itself may ignore nothing but what it chooses; SIGHUP (bit 0) must not be inherited ignored.
        let ignored = lines.first { $0.hasPrefix("SigIgn:") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(ignored.map { $0 & 1 == 0 } == true, "\(lines)")
    }

    @Test("streams go to files, descriptors or /dev/null; the environment is replaced when given")
    func streamsAndEnvironment() async throws {
        let output = temporaryFile()
        defer { unlink(output) }
        let child = try ChildProcess(
            ["/bin/sh", "-c", "echo \"$ONLY\" \"${HOME:-unset}\"; echo to-error >&2; cat"],
            environment: ["ONLY": "this"], input: .null, output: .file(output), error: .file(output)
        )
        #expect(await child.exited() == .exited(0))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "this unset\nto-error\n")

        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let echo = try ChildProcess(["echo", "through a pipe"], output: .descriptor(ends[1]))
        close(ends[1])
        // The blocking wait the daemon's queues use, run where it may block.
        let handed = Handed(echo)
        #expect(await offPool { handed.value.wait() } == .exited(0))  // off the pool: wait() itself is under test
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(ends[0], &buffer, buffer.count)
        close(ends[0])
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "through a pipe\n")
    }

    @Test("a program that cannot be started is an error with the system's reason")
    func missingProgram() {
        #expect {
            try ChildProcess(["/nonexistent/program"])
        } throws: { error in
            let failure = error as? ChildProcess.Failure
            return failure?.code == ENOENT && failure?.description == "cannot start /nonexistent/program: No such file or directory"
        }
    }

    @Test("a child its owner lets go of is killed and reaped")
    func deinitKills() throws {
        var child: ChildProcess? = try ChildProcess(["sleep", "30"])
        let pid = try #require(child?.pid)
        #expect(child?.isRunning == true)
        child = nil
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "no process, not even a zombie")
    }

    @Test("the time limit is on the program's life: one that closes its output and runs on is killed at the limit")
    func limitAfterClosedOutput() async throws {
        // Timed on the thread that runs it, as the daemon's queue does.
        let (run, seconds) = try await offPool {
            let started = ContinuousClock.now
            let run = try ChildProcess.run(["sh", "-c", "echo 1.0; exec >&-; exec sleep 60"], timeout: 1, outputLimit: 1024, ownGroup: true)
            return (run, (ContinuousClock.now - started) / .seconds(1))
        }
        #expect(run.timedOut)
        #expect(run.termination == .signalled(SIGKILL))
        #expect(String(decoding: run.output, as: UTF8.self) == "1.0\n")
        #expect(seconds < 5, "\(seconds) s")
    }

    @Test("a hook that sends its output to /dev/null and sleeps is killed at the limit with its whole group")
    func limitAfterRedirectedOutput() async throws {
        let marker = temporaryFile()
        defer { unlink(marker) }
        let (run, seconds) = try await offPool {
            let started = ContinuousClock.now
            let run = try ChildProcess.run(
                ["sh", "-c", "sleep 30 & echo $! > \(marker); exec >/dev/null 2>&1; sleep 40"], timeout: 1, outputLimit: 1024,
                errors: true, ownGroup: true
            )
            return (run, (ContinuousClock.now - started) / .seconds(1))
        }
        #expect(run.timedOut)
        #expect(seconds < 5, "\(seconds) s")
        let background = try #require(Int32((try String(contentsOfFile: marker, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await eventuallyGone(background), "the background child of the group is killed too")
    }

    @Test("input is fed to the program without blocking, also when the program never reads it")
    func input() async throws {
        let echoed = try await offPool { try ChildProcess.run(["cat"], input: Array("line\n".utf8), timeout: 30, outputLimit: 1024) }
        #expect(String(decoding: echoed.output, as: UTF8.self) == "line\n")
        #expect(echoed.termination == .exited(0))
        let big = [UInt8](repeating: 0x61, count: 4 << 20)
        let ignored = try await offPool { try ChildProcess.run(["sleep", "60"], input: big, timeout: 1, outputLimit: 1024, ownGroup: true) }
        #expect(ignored.timedOut)
        let exits = try await offPool { try ChildProcess.run(["true"], input: big, timeout: 30, outputLimit: 1024) }
        #expect(exits.termination == .exited(0) && !exits.timedOut)
    }

    private func eventuallyGone(_ pid: Int32) async -> Bool {
        await eventually(within: 10, every: 0.01) {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // Gone, or a zombie its new parent has not reaped yet.
            return kill(pid, 0) != 0 || stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
    }
}
