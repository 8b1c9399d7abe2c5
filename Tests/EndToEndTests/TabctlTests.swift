// tabctl against a real tabd: what it prints and how it exits (0 ok, 1 error reply,
// 3 tabd unreachable, 64 usage).

import Foundation
import Glibc
import TabProtocol
import Testing

@Suite struct TabctlTests {
    static func tabctl(_ socket: String, _ arguments: String, input: String? = nil) throws -> (status: Int32, output: String) {
        try shell("\(Build.tabctl) \(arguments) --socket \(socket)", input: input)
    }

    @Test func commandsPrintTheirResultAndExitZero() throws {
        let tabd = try TabdProcess()
        let s = tabd.socket
        var r = try Self.tabctl(s, #"call set_tabs 'tabs=[{"id":"home"},{"id":"music"},{"id":"settings"}]'"#)
        #expect(r.status == 0, "\(r.output)")
        #expect(try object(r.output.trimmingCharacters(in: .newlines)).string("selected") == "home")
        r = try Self.tabctl(s, "select music")
        #expect(r.status == 0 && r.output.contains(#""selected":"music""#), "\(r.output)")
        r = try Self.tabctl(s, "select 2")  // a number is an index
        #expect(r.status == 0 && r.output.contains(#""selected":"settings""#), "\(r.output)")
        r = try Self.tabctl(s, "tap home")
        #expect(r.status == 0 && r.output.contains(#""selected":"home""#), "\(r.output)")
        r = try Self.tabctl(s, "badge music 3")
        #expect(r.status == 0, "\(r.output)")
        r = try Self.tabctl(s, "state")
        #expect(r.status == 0, "\(r.output)")
        let state = try object(r.output.trimmingCharacters(in: .newlines))
        #expect(state.string("selected") == "home")
        #expect(state["tabs"]?.jsonString.contains(#""badge":"3""#) == true, "\(r.output)")
        r = try Self.tabctl(s, "ping")
        #expect(r.status == 0 && r.output == "{}\n", "\(r.output)")
        r = try Self.tabctl(s, "reload")  // the tests run as root: an admin
        #expect(r.status == 0, "\(r.output)")
    }

    @Test func errorReplyExitsOneWithTheCodeAndMessage() throws {
        let tabd = try TabdProcess()
        let r = try Self.tabctl(tabd.socket, "select nowhere")
        #expect(r.status == 1)
        #expect(r.output.contains("tabctl: not_found:"), "\(r.output)")
        #expect(r.output.contains("nowhere"), "\(r.output)")
    }

    @Test func unreachableExitsThree() throws {
        let dir = temporaryDirectory("ctl")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.tabctl(dir + "/none.sock", "ping")
        #expect(r.status == 3, "\(r.output)")
        #expect(r.output.contains("none.sock"), "\(r.output)")
    }

    @Test func usageErrorExits64() throws {
        let r = try shell("\(Build.tabctl) select")  // the target is missing
        #expect(r.status == 64, "\(r.output)")
        let u = try shell("\(Build.tabctl) no-such-subcommand")
        #expect(u.status == 64, "\(u.output)")
    }

    @Test func sendPassesRawLinesAndRepliesInOrder() throws {
        let tabd = try TabdProcess()
        let r = try Self.tabctl(tabd.socket, "send", input: """
            {"cmd":"ping","id":1}
            {"cmd":"select","tab":"x","id":2}
            {"cmd":"controllers","id":3}

            """)
        #expect(r.status == 1, "one reply was an error: \(r.output)")
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(r.output)")
        guard lines.count == 3 else { return }
        #expect(lines[0] == #"{"id":1,"ok":true,"result":{}}"#)
        #expect(try object(lines[1]).object("error")?.string("code") == "not_found")
        #expect(try object(lines[2])["id"] == .int(3))
    }

    @Test func watchPrintsEventsAndStopsAfterCount() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        _ = try client.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let out = tabd.dir + "/watch.out"
        // In the background: wait for one selection_changed event.
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: Build.tabctl)
        watcher.arguments = ["watch", "selection_changed", "--count", "1", "--socket", tabd.socket]
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        watcher.standardOutput = FileHandle(forWritingAtPath: out)
        try watcher.run()
        // Select until the watcher has subscribed and seen it (it may subscribe late).
        let deadline = Date().addingTimeInterval(20)
        var next = "b"
        while watcher.isRunning && Date() < deadline {
            _ = try client.request(#"{"cmd":"select","tab":"\#(next)"}"#)
            next = next == "a" ? "b" : "a"
            usleep(50_000)
        }
        if watcher.isRunning { watcher.terminate() }
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "\(text)")
        let event = try object(String(lines.first ?? ""))
        #expect(event.string("event") == "selection_changed")
        #expect(event.string("controller") == "main")
        #expect(event.int("seq") != nil)
    }
}
