// tabctl against a real tabd: what it prints and how it exits (0 ok, 1 error reply,
// 3 tabd unreachable, 64 usage).

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct TabctlTests {
    static func tabctl(_ socket: String, _ arguments: String, input: String? = nil) throws -> (status: Int32, output: String) {
        try shell("\(Build.tabctl) \(arguments) --socket \(socket)", input: input)
    }

    @Test func commandsPrintTheirResultAndExitZero() throws {
        let tabd = try TabdProcess()
        let s = tabd.socket
        var r = try Self.tabctl(s, #"call set_tabs 'tabs:=[{"id":"home"},{"id":"music"},{"id":"settings"}]'"#)
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
        #expect(r.status == 0 && r.output == "pong\n", "\(r.output)")
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

    /// --socket and --controller work before the subcommand, after it, and split around it.
    @Test func globalOptionsComeBeforeOrAfterTheSubcommand() throws {
        let tabd = try TabdProcess()
        let s = tabd.socket
        let client = try tabd.client()
        try client.ok(#"{"cmd":"controller.create","controller":"side"}"#)
        try client.ok(#"{"cmd":"set_tabs","controller":"side","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        for (arguments, tab) in [("--socket \(s) --controller side tap b", "b"), ("-s \(s) -c side select c", "c"),
                                 ("--socket \(s) select -c side a", "a"), ("-c side select b --socket \(s)", "b"),
                                 ("select --controller side --socket \(s) c", "c")] {
            let r = try shell("\(Build.tabctl) \(arguments)")
            #expect(r.status == 0 && r.output.contains(#""selected":"\#(tab)""#), "tabctl \(arguments): \(r.output)")
            #expect(try client.ok(#"{"cmd":"state","controller":"side"}"#).string("selected") == tab, "tabctl \(arguments)")
        }
        let ping = try shell("\(Build.tabctl) --socket \(s) ping")
        #expect(ping.status == 0 && ping.output == "pong\n", "\(ping.output)")
        let show = try shell("\(Build.tabctl) -s \(s) -c side show")
        #expect(show.status == 0 && show.output.hasPrefix("side — phone"), "\(show.output)")
    }

    /// The socket is --socket, else $TABD_SOCKET, else /run/tabd/tabd.sock: a tabd listening
    /// on ./run/tabd.sock in the current directory is never asked (a password could go there).
    @Test func theSocketComesFromTheOptionThenTheEnvironmentNeverTheCurrentDirectory() throws {
        let checkout = temporaryDirectory("cwd")
        defer { try? FileManager.default.removeItem(atPath: checkout) }
        try FileManager.default.createDirectory(atPath: checkout + "/run", withIntermediateDirectories: false)
        let tabd = try TabdProcess(dir: checkout + "/run")  // listens on ./run/tabd.sock of `checkout`
        #expect(tabd.socket == checkout + "/run/tabd.sock")
        let cd = "cd \(checkout) && env -u TABD_SOCKET"
        if !FileManager.default.fileExists(atPath: "/run/tabd/tabd.sock") {  // no system tabd here
            let r = try shell("\(cd) \(Build.tabctl) ping")
            #expect(r.status == 3, "\(r.output)")
            #expect(r.output.contains("cannot connect to /run/tabd/tabd.sock (the default socket)"), "\(r.output)")
            #expect(r.output.contains("TABD_SOCKET"), "\(r.output)")
        }
        var r = try shell("\(cd) TABD_SOCKET=\(tabd.socket) \(Build.tabctl) ping")
        #expect(r.status == 0 && r.output == "pong\n", "\(r.output)")
        r = try shell("\(cd) TABD_SOCKET=run/tabd.sock \(Build.tabctl) ping")  // relative, when asked for
        #expect(r.status == 0 && r.output == "pong\n", "\(r.output)")
        r = try shell("\(cd) TABD_SOCKET=/nonexistent/tabd.sock \(Build.tabctl) ping --socket \(tabd.socket)")
        #expect(r.status == 0 && r.output == "pong\n", "--socket wins over TABD_SOCKET: \(r.output)")
        r = try shell("\(cd) TABD_SOCKET=\(tabd.socket) \(Build.tabctl) --socket \(checkout)/none.sock ping")
        #expect(r.status == 3 && r.output.contains("none.sock (from --socket)"), "\(r.output)")
        r = try shell("\(cd) TABD_SOCKET=\(checkout)/none.sock \(Build.tabctl) ping")
        #expect(r.status == 3 && r.output.contains("none.sock (from $TABD_SOCKET)"), "\(r.output)")
    }

    /// `key=value` sends a string, `key:=json` a JSON value; what is not JSON after := is a
    /// usage error that says how to send a string.
    @Test func keyValueIsAStringAndKeyColonEqualsIsJSON() throws {
        let tabd = try TabdProcess()
        let s = tabd.socket
        let client = try tabd.client()
        var r = try Self.tabctl(s, #"call set_tabs 'tabs:=[{"id":"home"},{"id":"mail"}]'"#)
        #expect(r.status == 0, "\(r.output)")
        r = try Self.tabctl(s, "call update_tab tab=home title=2024")
        #expect(r.status == 0, "\(r.output)")
        r = try Self.tabctl(s, "call select index:=1")
        #expect(r.status == 0 && r.output.contains(#""selected":"mail""#), "\(r.output)")
        r = try Self.tabctl(s, #"call update_tab tab=mail 'item:={"title":"Mail","badge":"1"}'"#)
        #expect(r.status == 0, "\(r.output)")
        let tabs = try client.ok(#"{"cmd":"state"}"#)["tabs"]
        guard case .array(let list)? = tabs, list.count == 2, case .object(let home) = list[0], case .object(let mail) = list[1] else {
            Issue.record("state's tabs: \(tabs?.jsonString ?? "none")")
            return
        }
        #expect(home["title"] == .string("2024"), "title=2024 is the string \"2024\": \(home)")
        #expect(mail.object("item")?.string("badge") == "1", "\(mail)")
        // index=1 is the string "1": tabd refuses it as an index.
        r = try Self.tabctl(s, "call select index=1")
        #expect(r.status == 1 && r.output.contains("invalid_request"), "\(r.output)")
        r = try Self.tabctl(s, "call select index:=one")
        #expect(r.status == 64 && r.output.contains("the value of 'index' is not JSON"), "\(r.output)")
        #expect(r.output.contains("for a string write index=one"), "\(r.output)")
        for bad in ["=x", ":=1", "novalue"] {
            let u = try Self.tabctl(s, "call select \(bad)")
            #expect(u.status == 64, "\(bad): \(u.output)")
        }
        let help = try shell("\(Build.tabctl) call --help").output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("key=value sends the value as a string") && help.contains("key:=json sends it as JSON"), "\(help)")
    }

    /// `tabctl --version` and `tabd --version` print the one version, TabdVersion.string.
    @Test func versionIsTabdsVersion() throws {
        let ctl = try shell("\(Build.tabctl) --version")
        #expect(ctl.status == 0 && ctl.output == TabdVersion.string + "\n", "\(ctl.output)")
        let daemon = try shell("\(Build.tabd) --version")
        let lines = daemon.output.split(separator: "\n").map(String.init)
        #expect(daemon.status == 0 && lines.first == TabdVersion.string, "\(daemon.output)")
        // Then what a plugin is built for: the header's ABI and the Swift tabd was built with.
        #expect(lines.count == 2 && lines[1].hasPrefix("plugin ABI \(Build.headerABI) (tabd/policy.h); Swift 6."), "\(daemon.output)")
        let make = try shell("make -s -C \(Build.packageRoot.path) -f Makefile -f - print-version <<< $'print-version:\\n\\t@echo $(VERSION)'")
        #expect(make.output == TabdVersion.string + "\n", "the Makefile's VERSION: \(make.output)")
    }

    /// A tabd with the login gate (user demo, password demo) and tabs login, home, settings.
    static func gated() throws -> TabdProcess {
        let dir = temporaryDirectory("ctl-lg")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        try tabd.client().ok(PluginEndToEndTests.tabs)
        return tabd
    }

    /// Piped, `tabctl login USER` reads the password from stdin's first line; it takes none
    /// as an argument.
    @Test func loginReadsThePasswordFromStdin() throws {
        let tabd = try Self.gated()
        let s = tabd.socket
        var r = try Self.tabctl(s, "login demo", input: "nope\n")
        #expect(r.status == 1 && r.output.contains("tabctl: denied: wrong user name or password"), "\(r.output)")
        r = try Self.tabctl(s, "login demo", input: "")
        #expect(r.status == 1 && r.output.contains("no password: stdin ended before a line"), "\(r.output)")
        r = try Self.tabctl(s, "login demo demo")
        #expect(r.status == 64 && r.output.contains("takes no password argument"), "\(r.output)")
        r = try Self.tabctl(s, "tap settings")
        #expect(r.status == 1 && r.output.contains("denied"), "nobody is logged in yet: \(r.output)")
        r = try Self.tabctl(s, "login demo", input: "demo\n")
        #expect(r.status == 0 && r.output == #"{"plugin":"login-gate","value":{"user":"demo"}}"# + "\n", "\(r.output)")
        r = try Self.tabctl(s, "tap settings")
        #expect(r.status == 0 && r.output.contains(#""selected":"settings""#), "logged in: \(r.output)")
        // A password without a line end, as `printf %s` gives it, is the whole input.
        r = try Self.tabctl(s, "logout")
        #expect(r.status == 0, "\(r.output)")
        r = try Self.tabctl(s, "login demo", input: "demo")
        #expect(r.status == 0, "\(r.output)")
    }

    /// On a terminal, `tabctl login USER` asks on /dev/tty and reads the password without
    /// echoing it (a pseudo-terminal stands in for the user's).
    @Test func loginOnATerminalAsksAndDoesNotEcho() throws {
        let tabd = try Self.gated()
        let typed = try TabctlOperatorTests.onTerminal(["login", "demo", "--socket", tabd.socket], keys: [("Password for demo: ", "demo\n")], in: tabd.dir)
        let r = (status: typed.status, output: typed.screen + "\nexit \(typed.status)\n")
        #expect(r.output.hasSuffix("exit 0\n"), "\(r.output)")
        #expect(r.output.contains("Password for demo: "), "\(r.output)")
        // A terminal: the result indented (and coloured unless NO_COLOR).
        let plain = r.output.replacing(#/\x1B\[[0-9;]*m/#, with: "")
        #expect(plain.contains("\"plugin\": \"login-gate\",\r\n  \"value\": {\r\n    \"user\": \"demo\""), "\(r.output)")
        // "demo" appears in the prompt and the result only: the typed password was not echoed.
        let afterPrompt = r.output.components(separatedBy: "Password for demo: ").last ?? ""
        #expect(!afterPrompt.hasPrefix("demo"), "the password was echoed: \(r.output)")
        #expect(r.output.components(separatedBy: "demo").count - 1 == 2, "\(r.output)")
    }

    /// `tabctl metrics` prints result.text as it came, and nothing else (a stand-in server
    /// answers `metrics` here: the server side is tabd's own work).
    @Test func metricsPrintsTheResultTextVerbatim() throws {
        let dir = temporaryDirectory("ctl-m")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = "# TYPE tabd_requests counter\ntabd_requests_total{cmd=\"ping\"} 3\n# EOF\n"
        let reply = JSONObject([("ok", .bool(true)), ("result", .object(JSONObject([("text", .string(text))])))])
        let server = try OneReplyServer(path: dir + "/m.sock", reply: JSONValue.object(reply).jsonString)
        var r = try Self.tabctl(dir + "/m.sock", "metrics")
        #expect(r.status == 0 && r.output == text, "\(r.output)")
        #expect(server.request == #"{"cmd":"metrics"}"#, "\(server.request ?? "nothing")")
        let refusal = #"{"ok":false,"error":{"code":"unknown_command","message":"no such command: metrics"}}"#
        _ = try OneReplyServer(path: dir + "/e.sock", reply: refusal)
        r = try Self.tabctl(dir + "/e.sock", "metrics")
        #expect(r.status == 1 && r.output.contains("tabctl: unknown_command: no such command: metrics"), "\(r.output)")
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
        let deadline = Date().addingTimeInterval(60)
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

/// A Unix socket server for one connection: reads one request line, answers `reply`.
final class OneReplyServer: @unchecked Sendable {
    private let lock = NSLock()
    private var received: String?

    /// The request line, once it came.
    var request: String? { lock.withLock { received } }

    init(path: String, reply: String) throws {
        let fd = try OperationsTests.listeningSocket(path)
        Thread { [self] in
            defer { close(fd) }
            let conn = accept(fd, nil, nil)
            guard conn >= 0 else { return }
            defer { close(conn) }
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while recv(conn, &byte, 1, 0) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
            lock.withLock { received = String(decoding: bytes, as: UTF8.self) }
            let line = Array((reply + "\n").utf8)
            _ = line.withUnsafeBytes { send(conn, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }.start()
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

        /// Waits until `condition` holds for the output (checked every 20 ms) or `timeout`: a
        /// give-up bound, a minute, that a loaded machine's tabctl (a debug build, drawing
        /// after each event) does not reach.
        @discardableResult
        func wait(timeout: Double = 60, _ condition: (String) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition(text) { return true }
                usleep(20_000)
            }
            return condition(text)
        }

        func waitForExit(timeout: Double = 60) -> Int32? {
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
        try client.ok(#"{"cmd":"select","more":true}"#)
        // Last, a change after which the watcher reads what events do not announce (the
        // supported orientations, `rereadAfter`): that read then answers at the last seq, and the
        // drawing says nothing of an older read. (With `select` last, the read that `remove_tab`
        // caused could be answered before the select's events: a drawing marked "as state said
        // at seq N", right, but not `show`'s.)
        try client.ok(#"{"cmd":"remove_tab","tab":"music"}"#)
        let expected = try Self.show(tabd).output
        let seq = try client.ok(#"{"cmd":"state"}"#).int("seq") ?? 0
        // The last drawing becomes exactly what a fresh `show` draws, from events alone:
        // the watcher never needed to read the whole state again.
        let converged = watching.wait { _ in watching.drawings.last.map { $0.hasPrefix("\(seq) ---\n" + expected) } == true }
        #expect(converged, "expected:\n\(expected)\nlast drawing:\n\(watching.drawings.last ?? "")")
        #expect(!watching.text.contains("in doubt"), "\(watching.text)")
    }

    /// R13: groups (children under their group, the selected path marked), hidden tabs,
    /// placement and the sidebar; `--watch` keeps them from events alone
    /// (visibility_changed, display_order_changed, sidebar_changed, selection_changed.path).
    @Test func r13_showDrawsGroupsHiddenTabsPlacementAndTheSidebarAndWatchKeepsThem() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try ModernModelEndToEndTests.makePad(client)
        let watching = try Watching(tabd, ["pad"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        try client.ok(#"{"cmd":"tap","controller":"pad","tab":"songs"}"#)
        try client.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"radio","hidden":false}"#)
        try client.ok(#"{"cmd":"reorder","controller":"pad","group":"library","order":["songs","albums","artists"]}"#)
        try client.ok(#"{"cmd":"reorder","controller":"pad","order":["radio","news","library"]}"#)
        try client.ok(#"{"cmd":"select","controller":"pad","tab":"news"}"#)
        try client.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"news","hidden":true}"#)
        try client.ok(#"{"cmd":"select","controller":"pad","tab":"library"}"#)
        try client.ok(#"{"cmd":"sidebar","controller":"pad","visible":false}"#)
        let expected = try Self.show(tabd, "pad").output
        #expect(expected.contains("Sidebar (hidden, mode automatic):\n   Home\n  >▾ Library<\n    >[songs]<\n     [albums]\n     [artists]\n   [radio]\n   [search]\n"), "\(expected)")
        #expect(expected.contains("│ Library › [songs]"), "\(expected)")
        #expect(expected.contains("  1*  library"), "\(expected)")
        #expect(expected.contains("└ songs"), "\(expected)")
        #expect(expected.contains("automatic, hidden"), "\(expected)")  // news
        #expect(expected.contains("fixed") && expected.contains("pinned"), "\(expected)")
        let seq = try client.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq") ?? 0
        // R13's events change nothing policy plugins decide: the orientation line may say when
        // `state` last reported `supported` (no tabs_changed made the watcher read it again).
        let unannounced = try Regex(#" \(as state said at seq \d+\)"#)
        let converged = watching.wait { _ in
            watching.drawings.last.map { $0.replacing(unannounced, with: "").hasPrefix("\(seq) ---\n" + expected) } == true
        }
        #expect(converged, "expected:\n\(expected)\nlast drawing:\n\(watching.drawings.last ?? "")")
        #expect(!watching.text.contains("in doubt"), "\(watching.text)")
    }

    /// R14 and R13.12: the search tab (⌕), a disabled tab (~name~), a collapsed group (▸), an
    /// editing session, a compact pad and a hidden bar; `--watch` keeps them from events alone.
    @Test func r14_showDrawsSearchDisabledCollapsedCompactAndAHiddenBarAndWatchKeepsThem() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try ModernRestEndToEndTests.pad(client)
        let watching = try Watching(tabd, ["pad"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        try client.ok(#"{"cmd":"edit.begin","controller":"pad"}"#)
        try client.ok(#"{"cmd":"set_expanded","controller":"pad","group":"lib","expanded":false}"#)
        try client.ok(#"{"cmd":"set_enabled","controller":"pad","tab":"radio","enabled":false}"#)
        let regular = try Self.show(tabd, "pad").output
        #expect(regular.contains("Sidebar (shown, mode automatic, editing):\n  >Home<\n   ▸ [lib]\n   ~[radio]~\n   ⌕ [find]\n"), "\(regular)")
        #expect(regular.contains("bar at the top (pad)") && regular.contains("editing: yes"), "\(regular)")
        #expect(regular.contains("collapsed") && regular.contains("disabled") && regular.contains(", search"), "\(regular)")
        try client.ok(#"{"cmd":"select","controller":"pad","tab":"find"}"#)
        try client.ok(#"{"cmd":"set_size_class","controller":"pad","size_class":"compact"}"#)
        var expected = try Self.show(tabd, "pad").output
        #expect(expected.contains("bar at the bottom (pad, compact)") && expected.contains("search: active"), "\(expected)")
        #expect(expected.contains(">⌕ [find]<") && expected.contains("~[radio]~"), "\(expected)")
        try client.ok(#"{"cmd":"set_bar_hidden","controller":"pad","hidden":true}"#)
        expected = try Self.show(tabd, "pad").output
        #expect(expected.contains("bar hidden (pad); it holds: Home, [lib], ~[radio]~, ⌕ [find]"), "\(expected)")
        let seq = try client.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq") ?? 0
        let unannounced = try Regex(#" \(as state said at seq \d+\)"#)
        let converged = watching.wait { _ in
            watching.drawings.last.map { $0.replacing(unannounced, with: "").hasPrefix("\(seq) ---\n" + expected) } == true
        }
        #expect(converged, "expected:\n\(expected)\nlast drawing:\n\(watching.drawings.last ?? "")")
        #expect(!watching.text.contains("in doubt"), "\(watching.text)")
    }

    @Test func watchReconnectsAfterTabdRestartsAndSaysSo() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try Self.phone(client)
        let watching = try Watching(tabd, ["--reconnect-seconds", "120"])  // a restart on a loaded machine may take seconds
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
        #expect(quick.waitForExit() == 3, "\(quick.text)")
        #expect(quick.wait { $0.contains("reconnecting for up to 1 s") }, "\(quick.text)")
    }
}
