import Foundation
import SSVCTestSupport
import SSVCPosix
import Testing

@Suite("control socket: an independent client (Python's varlink)", .processSlot)
struct PythonVarlinkTests {
    @Test("GetInfo, GetInterfaceDescription, GetStatus, Check, Hold, Unhold and an unknown method")
    func python() async throws {
        let daemon = try await controlDaemon()
        let script = """
            import json, sys, varlink
            out = {}
            with varlink.Client(address="unix:\(daemon.socketPath)") as client:
                with client.open("org.varlink.service") as service:
                    out["info"] = dict(service.GetInfo())
                    out["description"] = service.GetInterfaceDescription(interface="io.ssvc.Daemon")["description"]
                with client.open("io.ssvc.Daemon") as ssvc:
                    out["status"] = [dict(a) for a in ssvc.GetStatus()["apps"]]
                    out["check"] = [a["name"] for a in ssvc.Check(app="beta")["apps"]]
                    out["hold"] = dict(ssvc.Hold(app="alpha", version="1.0")["app"])
                    out["unhold"] = dict(ssvc.Unhold(app="alpha")["app"])
                    try:
                        ssvc.GetStatus(app="nope")
                    except varlink.VarlinkError as e:
                        out["nosuchapp"] = [e.error(), e.parameters()]
                conn = client.open_connection()
                conn.sendall(b'{"method":"io.ssvc.Daemon.Frobnicate","parameters":{}}\\0')
                data = b""
                while not data.endswith(b"\\0"):
                    data += conn.recv(4096)
                out["unknown"] = json.loads(data[:-1])
            json.dump(out, sys.stdout, default=str)
            """
        let result = try await Executable.run("/usr/bin/env", ["python3", "-c", script])
        try #require(result.status == 0, "python varlink client failed: \(result.standardError)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let info = try #require(out["info"] as? [String: Any])
        #expect(info["product"] as? String == "ssvcd")
        #expect(info["interfaces"] as? [String] == ["org.varlink.service", "io.ssvc.Daemon"])
        let served = try #require(out["description"] as? String)
        let source = try String(contentsOf: ShippedInterface.file, encoding: .utf8)
        #expect(served == source, "GetInterfaceDescription must serve the .varlink file as it is")
        let status = try #require(out["status"] as? [[String: Any]])
        #expect(status.map { $0["name"] as? String } == ["alpha", "beta"])
        #expect(status.first?["status"] as? String == "update-available")
        #expect(status.last?["status"] as? String == "up-to-date")
        #expect(status.first?["latestVersionNumber"] as? Int == 17_858_560)
        #expect(out["check"] as? [String] == ["beta"])
        let held = try #require(out["hold"] as? [String: Any])
        #expect(held["hold"] as? String == "1.0" && held["heldVersion"] as? String == "1.1" && held["heldBy"] as? String == "hold", "\(held)")
        #expect((out["unhold"] as? [String: Any])?["status"] as? String == "update-available")
        #expect((out["nosuchapp"] as? [Any])?.first as? String == "io.ssvc.Daemon.NoSuchApp")
        let unknown = try #require(out["unknown"] as? [String: Any])
        #expect(unknown["error"] as? String == "org.varlink.service.MethodNotFound")
        try await expectHealthy(daemon)
        #expect(await daemon.stop() == 0)
    }
}
