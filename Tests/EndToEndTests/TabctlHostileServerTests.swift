// Issue 43, items 7 and 8: tabctl against a server that is hostile. A reply line without end
// is given up on within --timeout (exit 3, one sentence), not read for ever; and nothing the
// server sends — every C0 and C1 control, DEL, an OSC and a CSI sequence, in tab ids, titles,
// messages, events, metrics, completion lists — reaches the terminal as a control character.

import Foundation
import Glibc
import TabProtocol
import Testing

@Suite(.serialized) struct TabctlHostileServerTests {
    /// Every C0 control, DEL, every C1 control, then an OSC (window title) and a CSI (clear
    /// screen) sequence.
    static let evil = String(String.UnicodeScalarView((Array(0..<0x20) + Array(0x7F...0x9F)).map { Unicode.Scalar(UInt8($0)) }))
        + "\u{1B}]0;pwned\u{07}\u{1B}[2J"

    /// A server in Python at `<dir>/fake.sock`, one thread a connection, answering each
    /// request line (mode `endless`: the start of a reply, then bytes without end; mode
    /// `evil`: replies full of `evil`). Returns once it listens.
    static func server(_ dir: String, mode: String) throws -> (socket: String, process: Process) {
        let socket = dir + "/fake.sock"
        unlink(socket)
        let script = #"""
            import json, socket, sys, threading
            path, mode = sys.argv[1], sys.argv[2]
            E = "".join(chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0))) + "\x1b]0;pwned\x07\x1b[2J"
            def answer(req):
                cmd = req.get("cmd")
                if cmd == "hello":
                    return [{"ok": True, "result": {"version": E, "events": ["e" + E], "commands": ["c" + E]}}]
                if cmd == "controllers":
                    return [{"ok": True, "result": {"controllers": [{"name": "c" + E}, "d" + E]}}]
                if cmd == "state":
                    return [{"ok": True, "result": {"controller": "main", "selected": "t" + E, E: E,
                            "tabs": [{"id": "t" + E, "title": E, "children": [{"id": "u" + E}]}, {"id": "v" + E}]}}]
                if cmd == "metrics":
                    return [{"ok": True, "result": {"text": "# " + E + "\nm{x=\"" + E + "\"} 1\n"}}]
                if cmd == "config":
                    return [{"ok": True, "result": {"file": E, "flags": [E], "config": {E: E, "k": [E]}}}]
                if cmd == "ping":
                    return [{"ok": True, "result": {}}]
                if cmd == "subscribe":
                    return [{"ok": True, "result": {"seq": 0}},
                            {"event": "e" + E, "controller": "main", "seq": 1, "data": {E: E}}]
                return [{"ok": False, "error": {"code": "not_found" + E, "message": E, E: [E], "x": E}}]
            def serve(c):
                buf = b""
                try:
                    while True:
                        b = c.recv(65536)
                        if not b: return
                        buf += b
                        while b"\n" in buf:
                            line, buf = buf.split(b"\n", 1)
                            if mode == "endless":
                                c.sendall(b'{"ok":true,"result":{"pong":"')
                                block = b"x" * 65536
                                while True: c.sendall(block)
                            for reply in answer(json.loads(line)):
                                c.sendall(json.dumps(reply).encode() + b"\n")
                except OSError:
                    pass
                finally:
                    c.close()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path); s.listen(16)
            while True:
                c, _ = s.accept()
                threading.Thread(target=serve, args=(c,), daemon=True).start()
            """#
        try script.write(toFile: dir + "/hostile.py", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [dir + "/hostile.py", socket, mode]
        try p.run()
        let deadline = Date().addingTimeInterval(30)
        while access(socket, F_OK) != 0, Date() < deadline, p.isRunning { usleep(10_000) }
        return (socket, p)
    }

    /// The control characters in `text` other than a line feed (and, with `escapes`, the
    /// carriage returns and the ESC [ … sequences of tabctl's own line editor).
    static func controls(_ text: String, editor: Bool = false) -> [String] {
        var found: [String] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let v = scalars[i].value
            if editor, v == 0x1B, i + 1 < scalars.count, scalars[i + 1] == "[" {
                // tabctl's own: ESC [ digits/; then one letter of K, D (the line editor) or m.
                var j = i + 2
                while j < scalars.count, ("0"..."9").contains(scalars[j]) || scalars[j] == ";" { j += 1 }
                if j < scalars.count, "KDm".unicodeScalars.contains(scalars[j]) { i = j + 1; continue }
            }
            if v == 0x0A || (editor && v == 0x0D) { i += 1; continue }
            if v < 0x20 || (0x7F...0x9F).contains(v) { found.append(String(format: "U+%04X at %d", v, i)) }
            i += 1
        }
        return found
    }

    /// A reply line without end: `tabctl ping --timeout 2` exits 3 with one sentence, well
    /// before the 30 s it would otherwise take (or never); completion gives up too.
    @Test func anEndlessReplyEndsWithinTheTimeout() throws {
        let dir = temporaryDirectory("endless")
        let (socket, server) = try Self.server(dir, mode: "endless")
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let started = Date()
        let r = try TabctlTests.tabctl(socket, "ping --timeout 2")
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 3, "\(r.output)")
        #expect(elapsed < 60, "\(elapsed) s for --timeout 2")
        // Late, or (on a machine fast enough to send 256 MiB in 2 s) too long.
        let late = r.output.hasPrefix("tabctl: tabd's reply did not end within 2 s (") && r.output.hasSuffix(" bytes came); give it longer with --timeout\n")
        let long = r.output == "tabctl: tabd sent a line longer than \(1 << 28) bytes, the most tabctl reads; it was not printed\n"
        #expect(late || long, "\(r.output)")

        // The shells' completion asks tabd with a second's bound: it offers nothing.
        let completion = try shell("\(Build.tabctl) ---completion select -- positional@0 4 0 tabctl select --socket \(socket) ''")
        #expect(completion.status == 0 && completion.output.isEmpty, "\(completion)")
        #expect(Date().timeIntervalSince(started) < 120)
    }

    /// Every command whose output can carry what tabd sent, against a server that puts every
    /// control character into everything: none comes out raw.
    @Test(arguments: ["state", "state --json", "call hello", "select nowhere", "send '{\"cmd\":\"state\"}'", "send '{\"cmd\":\"nothing\"}'",
                      "metrics", "config", "config --json", "watch -n 1", "ping", "plugins"])
    func noControlCharacterComesOutRaw(command: String) throws {
        let dir = temporaryDirectory("hostile")
        let (socket, server) = try Self.server(dir, mode: "evil")
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let r = try TabctlTests.tabctl(socket, command + " --timeout 20")
        #expect(!r.output.isEmpty)
        #expect(Self.controls(r.output).isEmpty, "\(command): \(Self.controls(r.output)) in \(r.output.debugDescription)")
    }

    /// The completions of the shells (ArgumentParser's ---completion, what the installed
    /// scripts call) and the interactive mode's Tab list: tab ids, controllers, events and
    /// commands from tabd, escaped.
    @Test func completionListsAreEscaped() throws {
        let dir = temporaryDirectory("hostile")
        let (socket, server) = try Self.server(dir, mode: "evil")
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        for (subcommand, argument, words) in [("select", "positional@0", "select"), ("badge", "positional@0", "badge"),
                                              ("watch", "positional@0", "watch"), ("call", "positional@0", "call"),
                                              ("show", "positional@0", "show"), ("state", "--controller", "state --controller")] {
            let wordList = ["tabctl", "--socket", socket] + words.split(separator: " ").map(String.init)
            let r = try shell("\(Build.tabctl) ---completion \(subcommand) -- \(argument) \(wordList.count) 0 \(wordList.joined(separator: " ")) ''")
            #expect(r.status == 0, "\(subcommand): \(r.output)")
            #expect(r.output.contains("\\u001b"), "\(subcommand) offers the escaped candidates: \(r.output.debugDescription)")
            #expect(Self.controls(r.output).isEmpty, "\(subcommand): \(Self.controls(r.output)) in \(r.output.debugDescription)")
        }

        // Interactive: Tab lists the candidates when they share no longer prefix; the banner
        // quotes tabd's version.
        let prompt = "\(socket)> "
        let session = try TabctlOperatorTests.onTerminal(["-i", "--socket", socket], keys: [
            (prompt, "select \t"), ("more", "\u{15}watch \t"), ("watch e\\u0000", "\u{15}show \t"), ("d\\u0000", "\u{15}state\r"),
            ("\"tabs\": [", "quit\r"),
        ], environment: ["HOME": dir, "NO_COLOR": "1"], in: dir)
        #expect(session.status == 0, "\(session.screen.debugDescription)")
        #expect(session.screen.contains("tabd \\u0000"), "the banner: \(session.screen.debugDescription)")
        #expect(session.screen.contains("t\\u0000\\u0001"), "the tab ids listed: \(session.screen.debugDescription)")
        #expect(session.screen.contains("\"title\": \"\\u0000"), "state, indented: \(session.screen.debugDescription)")
        #expect(Self.controls(session.screen, editor: true).isEmpty,
                "\(Self.controls(session.screen, editor: true)) in \(session.screen.debugDescription)")
        #expect(!session.screen.contains("pwned\u{07}"), "\(session.screen.debugDescription)")
    }
}
