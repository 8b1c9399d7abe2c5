// TabClient covers the protocol: a function for every command (TabCore's CommandName, the
// one list of command names, and every command docs/protocol.md shows), each sending its
// command with fields tabd's own request decoder accepts; a typed event (TabEvent.Kind, which
// is TabCore's EventName, the one list of event names) for every event docs/protocol.md
// lists; the mirror equal to `state` while R13's and R14's members come and go; and the
// reader saying why a connection ended (DisconnectReason), against stand-ins for tabd that
// end it in each way. In TabClientTests (their own test process, see TabClientTests.swift).

import Foundation
import Glibc
import Synchronization
import TabClient
import TabCore
import TabJSON
import TabProtocol
import TabSystem
import Testing

/// A stand-in for tabd on a Unix socket: takes one connection, records each request line and
/// answers it with what `answer` returns for it.
final class StandIn: Sendable {
    enum Answer: Sendable {
        /// Bytes to send, as they are (a line ends with its own "\n").
        case send([UInt8])
        /// Bytes to send, then close the connection.
        case sendAndClose([UInt8])
    }

    private final class Record: Sendable {
        let lines = Mutex<[String]>([])
    }

    let path: String
    private let listener: Int32
    private let record = Record()

    /// `reset`: once the first request is there, close without reading it (the client's read
    /// then fails with ECONNRESET).
    init(_ tag: String, reset: Bool = false, answer: @escaping @Sendable (String) -> Answer) throws {
        path = temporaryDirectory(tag) + "/standin.sock"
        let fd = try Sys.unixSocket()
        guard let address = UnixAddress(path, abstract: false) else { throw TestFailure("no address for \(path)") }
        try Sys.bind(fd, address)
        try Sys.listen(fd, backlog: 1)
        listener = fd
        let record = record
        let thread = Thread {
            guard (try? Sys.poll(fd, Int16(POLLIN), milliseconds: 30_000)) != nil, let conn = try? Sys.accept(fd) else { return }
            defer { Sys.close(conn) }
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while (try? Sys.poll(conn, Int16(POLLIN), milliseconds: 30_000)) ?? 0 != 0 {
                if reset { return }
                guard let n = try? chunk.withUnsafeMutableBytes({ try Sys.receive(conn, into: $0) }), n > 0 else { return }
                buffer.append(contentsOf: chunk[..<n])
                while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<nl], as: UTF8.self)
                    buffer.removeSubrange(...nl)
                    record.lines.withLock { $0.append(line) }
                    // Blocking, for the whole of a long answer (the accepted socket is not).
                    _ = fcntl(conn, F_SETFL, fcntl(conn, F_GETFL) & ~O_NONBLOCK)
                    switch answer(line) {
                    case .send(let bytes):
                        try? sendAll(conn, bytes)
                    case .sendAndClose(let bytes):
                        try? sendAll(conn, bytes)
                        return
                    }
                }
            }
        }
        thread.start()
    }

    deinit { Sys.close(listener) }

    /// The request lines it received, in order.
    var requests: [String] { record.lines.withLock { $0 } }

    /// `{"ok":true,"result":{}}` and a newline.
    static let ok = Array(#"{"ok":true,"result":{}}"#.utf8) + [UInt8(ascii: "\n")]
}

/// docs/protocol.md.
func protocolDocument() throws -> String {
    try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
}

/// The commands docs/protocol.md shows: every `"cmd":"…"` of its requests.
func documentedCommands(_ doc: String) -> Set<String> {
    Set(doc.matches(of: #/"cmd": *"([a-z_.]+)"/#).map { String($0.output.1) })
}

/// The events docs/protocol.md's table in "Events" lists (a row may name several).
func documentedEvents(_ doc: String) -> Set<String> {
    let section = doc.components(separatedBy: "\n## Events\n").last?.components(separatedBy: "\n## ").first ?? ""
    var names = Set<String>()
    for line in section.split(separator: "\n") where line.hasPrefix("| `") {
        let cell = line.dropFirst(2).prefix { $0 != "|" }
        for m in cell.matches(of: #/`([a-z_]+)`/#) { names.insert(String(m.output.1)) }
    }
    return names
}

extension TabClientTests {
    /// Commands docs/protocol.md shows that are not commands.
    static let notCommands: [String: String] = [
        "fly": "the example of `unknown_command`",
    ]

    /// Commands TabClient deliberately has no function for, each with the reason (none: the
    /// function `call(_:on:)` gives for one of these must send nothing).
    static let notWrapped: [CommandName: String] = [:]

    /// Calls TabClient's function for `command`, with arguments of the types it takes (a
    /// stand-in answers, so what they name need not exist). A command added to CommandName
    /// does not compile here until it has a case: its function, or nothing and a place in
    /// `notWrapped`.
    static func call(_ command: CommandName, on c: TabClient) async throws {
        let tab = JSONValue.object(JSONObject([("id", .string("t"))]))
        switch command {
        case .hello: _ = try await c.hello()
        case .ping: try await c.ping()
        case .state: _ = try await c.state("main")
        case .controllers: _ = try await c.controllers()
        case .controllerCreate: try await c.controllerCreate("pad", idiom: "pad", maxVisible: 6, fields: [("mode", .string("tab_sidebar"))])
        case .controllerDelete: try await c.controllerDelete("pad")
        case .setTabs: try await c.setTabs([tab], selected: .tab("t"), animated: true)
        case .addTab: try await c.addTab(tab, at: 0, group: "g")
        case .removeTab: try await c.removeTab("t")
        case .updateTab: try await c.updateTab("t", [("title", .string("T"))])
        case .badge: try await c.badge("t", nil)
        case .select: try await c.select(.index(0))
        case .tap: try await c.tap(.more)
        case .push: try await c.push("t", screen: "s", title: "S")
        case .pop: try await c.pop("t")
        case .popToRoot: try await c.popToRoot("t")
        case .customizable: try await c.customizable(nil)
        case .customizeBegin: try await c.customizeBegin()
        case .customizeMove: try await c.customizeMove("t", to: 1)
        case .customizeEnd: try await c.customizeEnd()
        case .rotate: try await c.rotate("landscape_left")
        case .layout: try await c.layout(width: 390, height: 844, statusBar: 47)
        case .preserve: _ = try await c.preserve()
        case .restore: try await c.restore(.object(JSONObject([("selected", .null), ("stacks", .object(JSONObject()))])))
        case .setHidden: try await c.setHidden("t", true)
        case .reorder: try await c.reorder(group: nil, ["t"])
        case .sidebar: try await c.sidebar(visible: false)
        case .subscribe: try await c.subscribe(events: ["search_changed"], controllers: ["main"])
        case .unsubscribe: try await c.unsubscribe()
        case .plugins: _ = try await c.plugins()
        case .pluginCall: try await c.login(user: "demo", password: "demo")
        case .explain: _ = try await c.explain(limit: 3)
        case .reload: try await c.reload()
        case .stats: _ = try await c.stats()
        case .metrics: _ = try await c.metrics(format: "prometheus")
        case .config: _ = try await c.config()
        case .setExpanded: try await c.setExpanded(group: "g", false)
        case .search: try await c.search(active: false)
        case .setEnabled: try await c.setEnabled("t", false)
        case .setBarHidden: try await c.setBarHidden(true, animated: true)
        case .setSizeClass: try await c.setSizeClass("compact")
        case .setCompactTabs: try await c.setCompactTabs(nil)
        case .setMode: try await c.setMode("tab_bar")
        case .editBegin: try await c.editBegin()
        case .editEnd: try await c.editEnd()
        case .selectChild: try await c.selectChild(group: "g", "t")
        // R15: a navigation, drawer or custom controller's (`createNavigation` and the
        // others are checked with `push(_:controller:)` and the rest in containerFunctions).
        case .configure: try await c.configure(openGestures: [.bezelPanCenter], closeGestures: [], centerInteraction: .full, statusBarChild: .set(nil), controller: "d")
        case .setWindow: try await c.setWindow(true, controller: "n")
        case .popTo: try await c.popTo("s", animated: true, controller: "n")
        case .setStack: try await c.setStack([ChildObject(id: "s", title: "S", restorationID: "r"), ChildObject(id: "m", controller: "main")], controller: "n")
        case .openDrawer: try await c.openDrawer(.left, gesture: .button, animated: true, controller: "d")
        case .closeDrawer: try await c.closeDrawer(gesture: .tapCenter, controller: "d")
        case .toggleDrawer: try await c.toggleDrawer(.right, controller: "d")
        case .setCenter: try await c.setCenter(ChildObject(id: "c"), closeDrawer: true, controller: "d")
        case .setDrawer: try await c.setDrawer(.left, nil, controller: "d")
        case .setChildren: try await c.setChildren([ChildObject(id: "a")], shown: ["a"], controller: "x")
        case .setShown: try await c.setShown([], controller: "x")
        case .transition: try await c.transition(from: "a", to: ChildObject(id: "b"), animated: false, controller: "x")
        case .setColumn: try await c.setColumn(.compact, nil, controller: "x")
        case .showColumn: try await c.showColumn(.primary, user: true, animated: false, controller: "x")
        case .hideColumn: try await c.hideColumn(.primary, controller: "x")
        case .showDetail: try await c.showDetail(ChildObject(id: "d"), controller: "x")
        }
    }

    /// Every command of CommandName and of docs/protocol.md has a function that sends that
    /// command, in one line tabd's request decoder accepts — unless `notWrapped` says why not.
    @Test func everyCommandHasAFunction() async throws {
        let documented = documentedCommands(try protocolDocument()).subtracting(Self.notCommands.keys)
        let named = Set(CommandName.allCases.map(\.rawValue))
        #expect(documented.subtracting(named).isEmpty, "docs/protocol.md shows commands CommandName does not name: \(documented.subtracting(named).sorted())")
        #expect(named.subtracting(documented).isEmpty, "CommandName names commands docs/protocol.md does not show: \(named.subtracting(documented).sorted())")

        let server = try StandIn("cover") { _ in .send(StandIn.ok) }
        let client = try TabClient(path: server.path)
        defer { client.close() }
        var missing: [String] = []
        for command in CommandName.allCases {
            let before = server.requests.count
            try await Self.call(command, on: client)
            let sent = server.requests.dropFirst(before)
            if let reason = Self.notWrapped[command] {
                #expect(sent.isEmpty, "\(command.rawValue) is in notWrapped (\(reason)) but a function sends it")
                continue
            }
            guard sent.count == 1, let line = sent.first else {
                missing.append(command.rawValue)
                continue
            }
            #expect(try object(line).string("cmd") == command.rawValue, "the function for \(command.rawValue) sent \(line)")
            if case .failure(let error) = RequestDecoder.decode(line).result {
                Issue.record("tabd refuses what the function for \(command.rawValue) sends: \(line): \(error)")
            }
        }
        #expect(missing.isEmpty, "commands without a function in TabClient (add one, or list them in notWrapped with why): \(missing)")
    }

    /// Every event docs/protocol.md lists is a typed event (TabEvent.Kind), and every typed
    /// event is one it lists. (ControllerView.apply switches over every Kind: a new event does
    /// not compile until the mirror has a rule for it.)
    @Test func everyEventIsATypedEvent() throws {
        let documented = documentedEvents(try protocolDocument())
        let typed = Set(TabEvent.Kind.allCases.map(\.rawValue))
        #expect(documented.count > 20)
        #expect(documented.subtracting(typed).isEmpty, "events without a TabEvent.Kind: \(documented.subtracting(typed).sorted())")
        #expect(typed.subtracting(documented).isEmpty, "TabEvent.Kind has events docs/protocol.md does not list: \(typed.subtracting(documented).sorted())")
        for name in documented { #expect(TabEvent(name: name, controller: "main", seq: 1, data: JSONObject()).kind?.rawValue == name) }
    }

    /// `state` reports R13's and R14's members (`mode`, `size_class`, `compact_tabs`,
    /// `editing`, `bar.hidden`, …) exactly while the controller uses them, which no event
    /// says: the mirror equals `state` as they come and go (reading it again when in doubt).
    @Test func mirrorFollowsTheModernModelComingAndGoing() async throws {
        let tabd = try TabdProcess()
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try driver.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"pad"}"#)
        try driver.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let log = MirrorLog(Mirror(path: tabd.socket, controllers: ["main", "pad"]))
        #expect(await eventually { log.syncs.count == 1 })
        let steps = [
            #"{"cmd":"set_bar_hidden","hidden":true}"#,
            #"{"cmd":"set_bar_hidden","hidden":false}"#,
            #"{"cmd":"set_enabled","tab":"b","enabled":false}"#,
            #"{"cmd":"set_enabled","tab":"b","enabled":true}"#,
            #"{"cmd":"set_compact_tabs","tabs":["b"]}"#,
            #"{"cmd":"set_compact_tabs","tabs":null}"#,
            #"{"cmd":"set_mode","controller":"pad","mode":"tab_sidebar"}"#,
            #"{"cmd":"edit.begin","controller":"pad"}"#,
            #"{"cmd":"edit.end","controller":"pad"}"#,
            #"{"cmd":"set_mode","controller":"pad","mode":"automatic"}"#,
            #"{"cmd":"set_size_class","controller":"pad","size_class":"compact"}"#,
            #"{"cmd":"set_size_class","controller":"pad","size_class":"regular"}"#,
            #"{"cmd":"update_tab","controller":"pad","tab":"a","placement":"pinned"}"#,
            #"{"cmd":"update_tab","controller":"pad","tab":"a","placement":"automatic"}"#,
        ]
        for line in steps {
            let name = try object(line).string("controller") ?? "main"
            try driver.ok(line)
            let state = ControllerView(state: try driver.ok(#"{"cmd":"state","controller":"\#(name)"}"#), name: name)
            let same = await eventually { announced(log.views[name]) == announced(state) }
            #expect(same, "after \(line):\nmirror \(String(describing: log.views[name]))\nstate  \(state)")
        }
        await log.stop()
    }

    /// The connection's end says why: tabd's end of file, in the middle of a line, a line
    /// longer than the client takes, a line it cannot read, a reply nobody asked for, a read
    /// that failed (ECONNRESET), this side's close. Calls waiting for replies still throw
    /// `disconnected`, and the mirror's update names the reason.
    @Test func theReaderSaysWhyTheConnectionEnded() async throws {
        let long = Array(#"{"ok":true,"result":{"text":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 300) + Array("\"}}\n".utf8)
        let cases: [(String, StandIn.Answer?, Int, DisconnectReason)] = [
            ("eof", .sendAndClose([]), TabClient.defaultMaxLineBytes, .endOfFile),
            ("cut", .sendAndClose(Array(#"{"ok":tr"#.utf8)), TabClient.defaultMaxLineBytes, .endOfFileInLine(bytes: 8)),
            ("long", .send(long), 100, .lineTooLong(limit: 100)),
            ("bad", .send(Array("not json\n".utf8)), TabClient.defaultMaxLineBytes, .badLine("not json")),
            ("reset", nil, TabClient.defaultMaxLineBytes, .readFailed(errno: ECONNRESET)),
        ]
        for (tag, answer, limit, expected) in cases {
            let server = try StandIn(tag, reset: answer == nil) { _ in answer ?? .send(StandIn.ok) }
            let client = try TabClient(path: server.path, maxLineBytes: limit)
            defer { client.close() }
            #expect(client.disconnectReason == nil)
            await #expect(throws: TabClientError.disconnected, "\(tag)") { try await client.ping() }
            #expect(client.isClosed)
            #expect(client.disconnectReason == expected, "\(tag): \(String(describing: client.disconnectReason))")
        }

        // A reply when none was asked for: the call before it has its own.
        let extra = #"{"ok":true,"result":{"x":1}}"#
        let chatty = try StandIn("extra") { _ in .send(StandIn.ok + Array(extra.utf8) + [10]) }
        let asked = try TabClient(path: chatty.path)
        try await asked.ping()
        #expect(await eventually { asked.isClosed })
        #expect(asked.disconnectReason == .unexpectedReply(extra))
        await #expect(throws: TabClientError.disconnected) { try await asked.ping() }

        let server = try StandIn("own") { _ in .send(StandIn.ok) }
        let client = try TabClient(path: server.path)
        try await client.ping()
        client.close()
        #expect(await eventually { client.isClosed })
        #expect(client.disconnectReason == .closed)
        #expect(await client.nextEvents().isEmpty)

        // The mirror's update says it: a tabd killed with -9 closed the connection.
        let tabd = try TabdProcess()
        let log = MirrorLog(Mirror(path: tabd.socket, controllers: ["main"], reconnect: .init(giveUpAfter: .seconds(30))))
        #expect(await eventually { log.syncs.count == 1 })
        tabd.stop(signal: SIGKILL)
        #expect(await eventually { log.disconnects >= 1 })
        #expect(log.disconnectReasons.first?.hasSuffix(": \(DisconnectReason.endOfFile)") == true, "\(log.disconnectReasons)")
        await log.stop()
    }
}
