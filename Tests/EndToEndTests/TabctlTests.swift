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

// `tabctl show`: the drawing (plain when stdout is not a terminal) and `--watch`.
@Suite struct TabctlShowTests {
    static func show(_ tabd: TabdProcess, _ arguments: String = "") throws -> (status: Int32, output: String) {
        try shell("\(Build.tabctl) show \(arguments) --socket \(tabd.socket)")
    }

    /// The lines of `text` that are part of the device box (content area and bar).
    static func boxLines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { line in ["┌", "│", "├", "└"].contains { line.hasPrefix($0) } }
    }

    /// Six tabs on a phone: four on the bar, More, two under More.
    static func phone(_ client: LineClient, controller: String = "main") throws {
        try client.ok(#"{"cmd":"set_tabs","controller":"\#(controller)","tabs":[{"id":"home","title":"Home","navigation":true},{"id":"mail","title":"Mail","item":{"title":"Mail","badge":"3"}},{"id":"music","title":"Music"},{"id":"video","title":"Video"},{"id":"news","title":"News"},{"id":"settings","title":"Settings"}]}"#)
        try client.ok(#"{"cmd":"push","controller":"\#(controller)","tab":"home","screen":{"id":"detail","title":"Detail"}}"#)
        try client.ok(#"{"cmd":"select","controller":"\#(controller)","tab":"settings"}"#)
    }

    @Test func phoneDrawsTheBarAtTheBottomWithMoreBadgesAndStacks() throws {
        let tabd = try TabdProcess()
        try Self.phone(try tabd.client())
        let r = try Self.show(tabd)
        #expect(r.status == 0, "\(r.output)")
        let box = Self.boxLines(r.output)
        // Content first, the bar below it; More is highlighted: the selected tab is under it.
        #expect(box.count == 6, "\(r.output)")
        #expect(box.dropFirst().first == "│ More › Settings                                      │", "\(r.output)")
        #expect(box.dropLast().last == "│   Home   │ Mail (3) │  Music   │  Video   │  >More<  │", "\(r.output)")
        #expect(r.output.contains("bar at the bottom (phone)"), "\(r.output)")
        // The More list marks the selected tab.
        #expect(r.output.contains("More list:\n   News\n  >Settings<  (selected)\n"), "\(r.output)")
        // Stacks: home has one pushed screen; the others are not navigation stacks.
        #expect(r.output.contains(#"  0  home      Home      -      loaded      root › Detail"#), "\(r.output)")
        #expect(r.output.contains(#"  1  mail      Mail      3      not loaded  -"#), "\(r.output)")
        #expect(r.output.contains(#"  5  settings  Settings  -      loaded      -"#), "\(r.output)")
        #expect(r.output.contains("orientation: portrait; supported: portrait; preferred: portrait"), "\(r.output)")
        #expect(r.output.contains("customizing: no"), "\(r.output)")
        #expect(r.output.hasPrefix("main — phone, max_visible 5"), "\(r.output)")
    }

    @Test func showNamesTheControllerAsAnArgumentAndRefusesAnUnknownOne() throws {
        let tabd = try TabdProcess()
        let r = try Self.show(tabd, "nowhere")
        #expect(r.status == 1, "\(r.output)")
        #expect(r.output.contains("not_found"), "\(r.output)")
        let twice = try Self.show(tabd, "main --controller other")
        #expect(twice.status == 64, "\(twice.output)")
    }

    // R3.6
    @Test func r3_6_tvDrawsTheBarAtTheTopAndHighlightsNothingForAnOffBarTab() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try client.ok(#"{"cmd":"controller.create","controller":"tv","idiom":"tv","max_visible":3}"#)
        try client.ok(#"{"cmd":"set_tabs","controller":"tv","tabs":[{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C"},{"id":"d","title":"D"},{"id":"e","title":"E"}]}"#)
        var r = try Self.show(tabd, "tv")
        var box = Self.boxLines(r.output)
        #expect(box.count == 6, "\(r.output)")
        // The bar is the box's first row, A highlighted.
        #expect(box.dropFirst().first == "│     >A<      │      B       │      C       │", "\(r.output)")
        #expect(r.output.contains("bar at the top (tv)"), "\(r.output)")
        try client.ok(#"{"cmd":"select","controller":"tv","tab":"e"}"#)
        r = try Self.show(tabd, "tv")
        box = Self.boxLines(r.output)
        #expect(box.dropFirst().first == "│      A       │      B       │      C       │", "\(r.output)")
        #expect(box.dropFirst(3).first?.hasPrefix("│ E ") == true, "\(r.output)")
        #expect(r.output.contains("Not on the bar (no room on a tv bar; select only):\n   D\n  >E<  (selected)\n"), "\(r.output)")
    }

    // R1.3: a tab without a title has a null title in `state`; the drawing shows its id in
    // brackets (never as if it were its title).
    @Test func r1_3_aTabWithoutATitleIsDrawnAsItsIdInBrackets() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try client.ok(#"{"cmd":"set_tabs","tabs":[{"id":"inbox"},{"id":"sent","title":"Sent"}]}"#)
        let r = try Self.show(tabd, "main")
        let box = Self.boxLines(r.output)
        let bar = try #require(box.first(where: { $0.contains("Sent") }), "\(r.output)")
        #expect(bar.contains("[inbox]"), "\(r.output)")
        #expect(!bar.contains(" inbox "), "\(r.output)")
    }

    @Test func colourOnlyOnATerminalWithoutNoColor() throws {
        let tabd = try TabdProcess()
        try Self.phone(try tabd.client())
        let escape = "\u{1B}["
        // Not a terminal (a pipe): plain text.
        let piped = try shell("env -u NO_COLOR \(Build.tabctl) show --socket \(tabd.socket)")
        #expect(piped.status == 0 && !piped.output.contains(escape) && piped.output.contains(">More<"), "\(piped.output)")
        // A terminal (script(1) gives one): reverse video for More, no brackets.
        let tty = "script -qec '\(Build.tabctl) show --socket \(tabd.socket)' /dev/null"
        let coloured = try shell("env -u NO_COLOR \(tty)")
        #expect(coloured.output.contains(escape + "7m"), "\(coloured.output)")
        #expect(!coloured.output.contains(">More<"), "\(coloured.output)")
        let noColor = try shell("NO_COLOR=1 \(tty)")
        #expect(!noColor.output.contains(escape) && noColor.output.contains(">More<"), "\(noColor.output)")
        let forced = try shell("\(Build.tabctl) show --color always --socket \(tabd.socket)")
        #expect(forced.output.contains(escape + "7m"), "\(forced.output)")
        let never = try shell("\(tty.replacingOccurrences(of: "show", with: "show --color never"))")
        #expect(!never.output.contains(escape), "\(never.output)")
    }

    /// `tabctl show --watch` in the background, its output in a file.
    final class Watching {
        let process = Process()
        let out: String
        let err: String

        init(_ tabd: TabdProcess, _ arguments: [String]) throws {
            out = tabd.dir + "/show-\(UUID().uuidString.prefix(8)).out"
            err = out + ".err"
            _ = FileManager.default.createFile(atPath: out, contents: nil)
            _ = FileManager.default.createFile(atPath: err, contents: nil)
            process.executableURL = URL(fileURLWithPath: Build.tabctl)
            process.arguments = ["show", "--watch", "--socket", tabd.socket] + arguments
            process.standardOutput = FileHandle(forWritingAtPath: out)
            process.standardError = FileHandle(forWritingAtPath: err)
            try process.run()
        }

        // SIGKILL: a child of the test process starts with SIGTERM blocked (the mask of the
        // thread that spawned it), so terminate() would wait for ever.
        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

        var text: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }

        /// The complete drawings so far (each ends with the key line), with their separator.
        var drawings: [String] {
            text.components(separatedBy: "--- seq ").dropFirst().filter { $0.contains("\nkey: ") }
        }

        /// Waits until `condition` holds for the output (checked every 20 ms) or `timeout`.
        @discardableResult
        func wait(timeout: Double = 20, _ condition: (String) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition(text) { return true }
                usleep(20_000)
            }
            return condition(text)
        }

        func waitForExit(timeout: Double = 20) -> Int32? {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            return process.isRunning ? nil : process.terminationStatus
        }
    }

    @Test func watchRedrawsAfterASelectElsewhereAndExitsWhenTheControllerIsDeleted() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try client.ok(#"{"cmd":"controller.create","controller":"side","idiom":"phone"}"#)
        try Self.phone(client, controller: "side")
        let watching = try Watching(tabd, ["side"])
        // The first drawing means the watcher has subscribed and read the state.
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        #expect(watching.drawings.first?.contains(">More<") == true, "\(watching.text)")
        try client.ok(#"{"cmd":"select","controller":"side","tab":"mail"}"#)
        let bar = "│   Home   │>Mail (3)<│  Music   │  Video   │   More   │"
        #expect(watching.wait { _ in watching.drawings.last?.contains(bar) == true }, "\(watching.text)")
        try client.ok(#"{"cmd":"controller.delete","controller":"side"}"#)
        #expect(watching.waitForExit() == 0, "\(watching.text)")
        #expect(watching.text.contains("--- controller 'side' was deleted"), "\(watching.text)")
    }

    @Test func watchKeepsTheMirrorFromEventsAndEndsWhereShowIs() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try Self.phone(client)
        let watching = try Watching(tabd, [])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        // Every kind of change the drawing shows, each from another connection.
        try client.ok(#"{"cmd":"badge","tab":"news","value":"12"}"#)
        try client.ok(#"{"cmd":"push","tab":"home","screen":{"id":"more-detail"}}"#)
        try client.ok(#"{"cmd":"tap","tab":"home"}"#)
        try client.ok(#"{"cmd":"push","tab":"home","screen":{"id":"again","title":"Again"}}"#)
        try client.ok(#"{"cmd":"update_tab","tab":"video","title":"Films","item":{"title":"Films"}}"#)
        try client.ok(#"{"cmd":"add_tab","tab":{"id":"radio","title":"Radio"},"index":1}"#)
        try client.ok(#"{"cmd":"customizable","tabs":["music","video","news","settings","radio"]}"#)
        try client.ok(#"{"cmd":"customize.begin"}"#)
        try client.ok(#"{"cmd":"customize.move","tab":"settings","to":2}"#)
        try client.ok(#"{"cmd":"customize.end"}"#)
        try client.ok(#"{"cmd":"remove_tab","tab":"music"}"#)
        try client.ok(#"{"cmd":"select","more":true}"#)
        let expected = try Self.show(tabd).output
        let seq = try client.ok(#"{"cmd":"state"}"#).int("seq") ?? 0
        // The last drawing becomes exactly what a fresh `show` draws, from events alone:
        // the watcher never needed to read the whole state again.
        let converged = watching.wait { _ in watching.drawings.last.map { $0.hasPrefix("\(seq) ---\n" + expected) } == true }
        #expect(converged, "expected:\n\(expected)\nlast drawing:\n\(watching.drawings.last ?? "")")
        #expect(!watching.text.contains("in doubt"), "\(watching.text)")
    }

    @Test func watchReconnectsAfterTabdRestartsAndSaysSo() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try Self.phone(client)
        let watching = try Watching(tabd, ["--reconnect-seconds", "30"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        try tabd.restart()
        #expect(watching.wait { $0.contains("--- tabd restarted (instance ") }, "\(watching.text)")
        #expect(watching.wait { $0.contains("--- nothing was missed (seq ") }, "\(watching.text)")
        let before = watching.drawings.count
        try tabd.client().ok(#"{"cmd":"select","tab":"home"}"#)
        let bar = "│  >Home<  │ Mail (3) │  Music   │  Video   │   More   │"
        #expect(watching.wait { _ in watching.drawings.count > before && watching.drawings.last?.contains(bar) == true },
                "\(watching.text)")
        // Gone for good: it gives up after --reconnect-seconds and exits 3.
        let quick = try Watching(tabd, ["--reconnect-seconds", "1"])
        #expect(quick.wait { _ in quick.drawings.count >= 1 }, "\(quick.text)")
        tabd.stop()
        #expect(quick.waitForExit(timeout: 20) == 3, "\(quick.text)")
        #expect(quick.wait { $0.contains("reconnecting for up to 1 s") }, "\(quick.text)")
    }
}
