// Issue 32, tabctl against servers that are not tabd, or not well: a password goes only to
// a server running as root, tabd's user or the caller (SO_PEERCRED; --server-user to name
// another); a reply cut off or not JSON is one sentence and exit 3, never printed as the
// answer; a silent server is given up on after --timeout.

import Foundation
import Glibc
import TabProtocol
import Testing

@Suite(.serialized) struct TabctlTrustTests {
    /// A one-connection server in Python, as uid `uid` (setpriv) when given: reads one line,
    /// writes `reply` (then waits `linger` seconds) and closes; every byte it read is kept in
    /// `<dir>/received`. Returns the socket's path once it listens.
    static func fakeServer(_ dir: String, reply: String, linger: Double = 0, uid: uid_t? = nil) throws -> (socket: String, process: Process) {
        let socket = dir + "/fake.sock"
        unlink(socket)
        unlink(dir + "/received")
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); s.listen(1)
            c, _ = s.accept()
            got = b""
            c.settimeout(60)
            try:
                while not got.endswith(b"\\n"):
                    b = c.recv(65536)
                    if not b: break
                    got += b
            except Exception: pass
            open(sys.argv[2], "wb").write(got)
            c.sendall(sys.argv[3].encode()); time.sleep(float(sys.argv[4])); c.close()
            """
        try script.write(toFile: dir + "/fake.py", atomically: true, encoding: .utf8)
        chmod(dir, 0o777)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")  // Debian's python3, not a per-user one: uid 65534 runs it
        let identity = uid.map { ["--reuid=\($0)", "--regid=\($0)", "--clear-groups"] } ?? ["--"]
        p.arguments = identity + ["/usr/bin/python3", dir + "/fake.py", socket, dir + "/received", reply, "\(linger)"]
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while access(socket, F_OK) != 0, Date() < deadline { usleep(10_000) }
        return (socket, p)
    }

    static func received(_ dir: String) -> String {
        let deadline = Date().addingTimeInterval(60)
        while access(dir + "/received", F_OK) != 0, Date() < deadline { usleep(10_000) }
        return (try? String(contentsOfFile: dir + "/received", encoding: .utf8)) ?? ""
    }

    /// A socket squatted by uid 65534: `tabctl login` refuses before asking for the password,
    /// and the squatter receives nothing; named with --server-user, it is trusted.
    @Test func loginSendsNoPasswordToAServerOfAnotherUser() throws {
        let dir = temporaryDirectory("squat")
        let (socket, server) = try Self.fakeServer(dir, reply: "{\"ok\":true,\"result\":{}}\n", uid: AccessTests.otherUID)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let r = try TabctlTests.tabctl(socket, "login demo", input: "secret-password\n")
        #expect(r.status == 3, "\(r.output)")
        #expect(r.output == "tabctl: the server on \(socket) runs as uid \(AccessTests.otherUID), not as root or tabd's user; the password was not sent (if tabd really runs as that user, pass --server-user \(AccessTests.otherUID))\n", "\(r.output)")
        #expect(!Self.received(dir).contains("secret-password"))
        server.waitUntilExit()

        let (again, trusted) = try Self.fakeServer(dir, reply: "{\"ok\":true,\"result\":{\"user\":\"demo\"}}\n", uid: AccessTests.otherUID)
        defer { if trusted.isRunning { kill(trusted.processIdentifier, SIGKILL) } }
        let ok = try TabctlTests.tabctl(again, "login demo --server-user \(AccessTests.otherUID)", input: "secret-password\n")
        #expect(ok.status == 0, "\(ok.output)")
        #expect(Self.received(dir).contains("secret-password"))
    }

    /// A reply the server cuts off, and one that is not JSON: exit 3 with one sentence; a
    /// server that never answers: given up on after --timeout.
    @Test(arguments: [
        ("{\"ok\":true,\"result\":{\"controller\":\"main\",\"tabs\":[", "tabctl: tabd closed the connection after 49 bytes of a reply, before its end; the reply is incomplete and was not printed\n"),
        ("this is not json\n", "tabctl: tabd's reply (16 bytes) is not valid JSON; it was not printed\n"),
    ])
    func aCutOrInvalidReplyIsAFailure(reply: String, sentence: String) throws {
        let dir = temporaryDirectory("cut")
        let (socket, server) = try Self.fakeServer(dir, reply: reply)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let r = try TabctlTests.tabctl(socket, "state")
        #expect(r.status == 3)
        #expect(r.output == sentence)
    }

    @Test func aSilentServerIsGivenUpOnAfterTheTimeout() throws {
        let dir = temporaryDirectory("silent")
        let (socket, server) = try Self.fakeServer(dir, reply: "", linger: 30)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let r = try TabctlTests.tabctl(socket, "state --timeout 0.5")
        #expect(r.status == 3)
        #expect(r.output == "tabctl: tabd sent nothing for 0.5 s; give it longer with --timeout\n", "\(r.output)")
    }

    /// --timeout is for replies: `watch` waits for events as long as it takes.
    @Test func watchWaitsForEventsLongerThanTheTimeout() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.tabctl)
        p.arguments = ["watch", "selection_changed", "-n", "1", "--timeout", "0.3", "--socket", t.socket]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        // Once it has subscribed (stats counts it; a loaded machine may start tabctl late), it
        // waits for longer than its --timeout: a second, more than three times 0.3 s.
        let subscribed = Date().addingTimeInterval(60)
        while try c.ok(#"{"cmd":"stats"}"#).int("subscribers") != 1, Date() < subscribed { usleep(20_000) }
        usleep(1_000_000)
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        let deadline = Date().addingTimeInterval(60)
        while p.isRunning, Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains("selection_changed"), "\(text)")
    }
}
