// TabClient (the Swift client library) against a real tabd with both reference plugins:
// pipelined requests and typed errors, typed events, and the Mirror kept from events alone
// through a seeded random stream of commands and a kill -9 and restart of tabd; then the
// same from a Swift package outside this repository that depends on the library's product.
//
// `make test` runs this suite in a test process of its own (see the Makefile): its tests are
// async and need Swift's task pool while a tabd of theirs runs, and other suites' synchronous
// tests can hold every thread of that pool while Foundation's one reaping thread waits on
// this suite's tabd.

import Foundation
import Glibc
import Synchronization
import TabClient
import TabJSON
import TabProtocol
import TabSystem
import Testing

/// What a mirror's updates said, collected by the task that iterates them.
final class MirrorLog: Sendable {
    struct Seen { var views: [String: ControllerView] = [:]; var composites: [String: CompositeView] = [:]; var syncs: [Mirror.Sync] = []; var resyncs: [String] = []; var disconnects = 0; var disconnectReasons: [String] = []; var changes = 0 }
    private let seen = Mutex(Seen())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ mirror: Mirror) {
        let t = Task { [weak self] in
            do {
                for try await update in mirror.updates() {
                    guard let self else { return }
                    self.take(update)
                }
            } catch {}
        }
        task.withLock { $0 = t }
    }

    private func take(_ u: Mirror.Update) {
        seen.withLock { s in
            switch u {
            case .synced(let sync): s.syncs.append(sync); s.views = sync.controllers; s.composites = sync.composites
            case .changed(let v, _): s.views[v.name] = v; s.changes += 1
            case .compositeChanged(let v, _): s.composites[v.name] = v; s.changes += 1
            case .resynced(let v, let reason): s.views[v.name] = v; s.composites[v.name] = nil; s.resyncs.append(reason)
            case .compositeResynced(let v, let reason): s.composites[v.name] = v; s.views[v.name] = nil; s.resyncs.append(reason)
            case .deleted(let name, _): s.views[name] = nil; s.composites[name] = nil
            case .disconnected(let reason): s.disconnects += 1; s.disconnectReasons.append(reason)
            }
        }
    }

    var views: [String: ControllerView] { seen.withLock { $0.views } }
    /// The navigation, split, drawer and custom controllers the mirror holds.
    var composites: [String: CompositeView] { seen.withLock { $0.composites } }
    /// Every controller's seq, of either kind of picture.
    var seqs: [String: Int] { seen.withLock { s in s.views.mapValues(\.seq).merging(s.composites.mapValues(\.seq)) { a, _ in a } } }
    var syncs: [Mirror.Sync] { seen.withLock { $0.syncs } }
    var resyncs: [String] { seen.withLock { $0.resyncs } }
    var disconnects: Int { seen.withLock { $0.disconnects } }
    var disconnectReasons: [String] { seen.withLock { $0.disconnectReasons } }
    /// How many `changed` updates came (one per controller per batch of events).
    var changes: Int { seen.withLock { $0.changes } }

    /// Ends the mirror and waits until it has: no connection or retry outlives the test
    /// (other suites count the process's descriptors).
    func stop() async {
        let t = task.withLock { $0 }
        t?.cancel()
        await t?.value
    }

    deinit { task.withLock { $0?.cancel() } }
}

/// A picture without what events do not announce (docs/protocol.md, "Staying in sync").
func announced(_ v: ControllerView?) -> ControllerView? {
    guard var v else { return nil }
    v.supported = []; v.preferred = nil; v.readAt = 0; v.customizingOrder = nil; v.orderReadAt = 0
    return v
}

/// Polls until `condition` holds (every 10 ms) or `timeout` seconds passed. It sleeps as a
/// task, not a thread: the mirror's tasks share the pool with the test.
func eventually(_ timeout: Double = 60, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

// Serialized: the outside package's build would hold a thread of the pool the mirrors run on.
@Suite(.serialized) struct TabClientTests {
    /// Many requests written before any reply is read come back each to its caller, in
    /// order; error replies are TabdError with the protocol's code and the refusing plugin.
    @Test func pipelinedRequestsAndTypedErrors() async throws {
        let dir = temporaryDirectory("tc")
        let tabd = try TabdProcess(config: ExampleClientTests.config(credentials: try Plugins.credentials(in: dir)), dir: dir)
        let client = try TabClient(path: tabd.socket)
        defer { client.close() }
        try await client.setTabs(["login", "home", "music", "news", "video", "settings"].map { .object(JSONObject([("id", .string($0))])) })
        // 200 selects at once from as many tasks: each gets the reply to its own request.
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for i in 0..<200 {
                group.addTask {
                    let ids = ["home", "music", "news"]
                    let r = try await client.select(.tab(ids[i % 3]))
                    return (i, r.string("selected"))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 200)
        #expect((0..<200).allSatisfy { answers[$0] == ["home", "music", "news"][$0 % 3] })

        await #expect(throws: TabdError.self) { try await client.select(.tab("nowhere")) }
        do {
            try await client.select(.tab("nowhere"))
        } catch let e as TabdError {
            #expect(e.code == .notFound && e.message.contains("nowhere"), "\(e)")
        }
        do {
            try await client.tap(.tab("music"))
            Issue.record("a tap before logging in was not refused")
        } catch let e as TabdError {
            #expect(e.code == .denied && e.plugin == "login-gate", "\(e)")
        }
        try await client.login(user: "demo", password: "demo")
        #expect(try await client.tap(.tab("music")).string("selected") == "music")
        let hello = try await client.hello()
        #expect(hello.name == "tabd" && !hello.instance.isEmpty && hello.protocolVersion >= 1)
        #expect(try await client.state().selected == "music")
        // The connection ending fails what waits for it: no call hangs.
        tabd.stop(signal: SIGKILL)
        await #expect(throws: TabClientError.disconnected) { try await client.ping() }
    }

    /// A client whose connection ended, dropped afterwards, does not touch the descriptor
    /// number it had: its reading thread closed nothing while the client still held it (a
    /// shutdown in deinit reached whatever socket had the number since: another test's
    /// connection, whose next send failed with EPIPE under load).
    /// brief: true leaves out the reply's list as long as the controller, and changes the same.
    @Test func briefRepliesLeaveOutTheList() async throws {
        let tabd = try TabdProcess()
        let client = try TabClient(path: tabd.socket)
        defer { client.close() }
        let ids = ["a", "b", "c", "d", "e", "f"]
        #expect(try await client.setTabs(ids.map { .object(JSONObject([("id", .string($0))])) }, brief: true)["tabs"] == nil)
        #expect(try await client.addTab(.object(JSONObject([("id", .string("g"))])), brief: true)["tabs"] == nil)
        #expect(try await client.removeTab("g", brief: true)["tabs"] == nil)
        #expect(try await client.customizable(ids, brief: true)["customizable"] == nil)
        #expect(try await client.customizeBegin(brief: true)["customizing_order"] == nil)
        let moved = try await client.customizeMove("f", to: 0, brief: true)
        #expect(moved["customizing_order"] == nil && moved.bool("changed") == true)
        #expect(try await client.customizeEnd(brief: true)["tabs"] == nil)
        #expect(try await client.removeTab("a").strings("tabs") == ["f", "b", "c", "d", "e"])
    }

    @Test func aDroppedClientLeavesTheNextSocketAlone() async throws {
        let dir = temporaryDirectory("drop")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let address = try #require(UnixAddress(dir + "/s.sock"))
        let listener = try Sys.unixSocket(blocking: true)
        defer { Sys.close(listener) }
        try Sys.bind(listener, address)
        try Sys.listen(listener, backlog: 4)
        var client: TabClient? = try TabClient(path: dir + "/s.sock")
        let server = accept(listener, nil, nil)
        #expect(server >= 0)
        Sys.close(server)  // tabd goes away: the client's reading thread ends
        #expect(await eventually { client!.isClosed })
        let (a, b) = try Sys.socketPair(Int32(SOCK_STREAM.rawValue))
        defer { Sys.close(a); Sys.close(b) }
        client = nil
        var byte: UInt8 = 42
        #expect(Glibc.send(a, &byte, 1, Int32(MSG_NOSIGNAL)) == 1, "errno \(errno)")
        var got: UInt8 = 0
        #expect(recv(b, &got, 1, 0) == 1 && got == 42)
    }

    /// `subscribe(grouped: true)` asks for a command's events as one line; the client hands
    /// them out as one batch, in order, as it does the marked events of a line each.
    @Test func aGroupedSubscriptionGivesACommandsEventsAsOneBatch() async throws {
        let tabd = try TabdProcess()
        let client = try TabClient(path: tabd.socket)
        defer { client.close() }
        _ = try await client.subscribe(events: ["tabs_changed", "selection_changed", "bar_changed"], controllers: ["main"], grouped: true)
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}],"selected":"b"}"#)
        let batch = await client.nextEvents()
        #expect(batch.map(\.name) == ["tabs_changed", "selection_changed", "bar_changed"], "\(batch.map(\.name))")
        #expect(zip(batch, batch.dropFirst()).allSatisfy { $0.seq < $1.seq })
        // They came grouped: one line, no event marked last (a line each would mark the third).
        #expect(batch.allSatisfy { !$0.last }, "\(batch.map(\.last))")
    }

    /// `events` is an AsyncSequence of typed events, in order, each with its seq.
    @Test func subscribeGivesTypedEventsInOrder() async throws {
        let tabd = try TabdProcess()
        let client = try TabClient(path: tabd.socket)
        defer { client.close() }
        let seqs = try await client.subscribe(events: ["selection_changed", "badge_changed"], controllers: ["main"])
        let start = try #require(seqs["main"])
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try driver.ok(#"{"cmd":"badge","tab":"b","value":"7"}"#)
        try driver.ok(#"{"cmd":"select","tab":"b"}"#)
        var got: [TabEvent] = []
        for await e in client.events {
            got.append(e)
            if got.count == 3 { break }
        }
        #expect(got.map(\.kind) == [.selectionChanged, .badgeChanged, .selectionChanged])
        #expect(got.last?.data.string("tab") == "b")
        #expect(got.allSatisfy { $0.controller == "main" && $0.seq > start })
        #expect(zip(got, got.dropFirst()).allSatisfy { $0.seq < $1.seq })
    }

    /// The mirror equals `state` throughout a random stream of commands from another
    /// connection, and after tabd is killed (-9) and started again it reconnects, says it
    /// synced again with a new instance and nothing missed, and follows on.
    @Test(arguments: [UInt64(0x34), 0xBEEF])
    func mirrorStaysInSyncAcrossKill9(seed: UInt64) async throws {
        let dir = temporaryDirectory("tc")
        let tabd = try TabdProcess(config: ExampleClientTests.config(credentials: try Plugins.credentials(in: dir)), dir: dir)
        var driver = try tabd.client()
        let log = MirrorLog(Mirror(path: tabd.socket, controllers: ["main"]))
        #expect(await eventually { log.syncs.count == 1 })
        var stream = MirrorStream(seed: seed)
        try driver.request(loginLine(controller: "main"))
        func check(_ context: String) async throws {
            let state = ControllerView(state: try driver.ok(#"{"cmd":"state"}"#), name: "main")
            let same = await eventually { announced(log.views["main"]) == announced(state) }
            #expect(same, "seed \(seedText(seed)), \(context): mirror \(String(describing: log.views["main"]))\nstate \(state)")
        }
        for step in 1...200 {
            let (_, line) = stream.next()
            do { stream.note(try driver.request(line)) } catch {
                Issue.record("seed \(seedText(seed)), step \(step), \(line): \(error)\ntabd's log:\n\(tabd.log)")
                return
            }
            if step % 10 == 0 { try await check("step \(step) (\(line))") }
            if step == 100 {
                try await check("before kill -9")
                let before = log.views["main"]?.seq
                tabd.stop(signal: SIGKILL)
                try tabd.start()
                driver = try tabd.client()
                #expect(await eventually { log.syncs.count >= 2 }, "no resync after the restart")
                let sync = try #require(log.syncs.last)
                #expect(!sync.initial && sync.instanceChanged && sync.nothingMissed, "\(sync)")
                #expect(sync.controllers["main"]?.seq == before)
                // At least one: a connection made while tabd starts may end once more.
                #expect(log.disconnects >= 1)
                try await check("after the restart")
                try driver.request(loginLine(controller: "main"))
            }
        }
        #expect(log.resyncs.isEmpty, "in doubt: \(log.resyncs)")
        await log.stop()
    }

    /// R13.8–R14: the mirror of a pad equals `state` through moves across the tree, the search
    /// tab, disabled tabs, a hidden bar, size class, mode, an editing session, select_child and
    /// collapsed groups — from events alone (no resync).
    @Test func mirrorKeepsTheTreeAndTheModernModelFromEvents() async throws {
        let tabd = try TabdProcess()
        let driver = try tabd.client()
        try ModernRestEndToEndTests.pad(driver)
        let log = MirrorLog(Mirror(path: tabd.socket, controllers: ["pad"]))
        #expect(await eventually { log.syncs.count == 1 })
        let steps = [
            #"{"cmd":"select","controller":"pad","tab":"albums"}"#,
            #"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"home","title":"Home"},{"id":"albums"},{"id":"lib","children":[{"id":"songs"},{"id":"artists"}],"allows_reordering":true},{"id":"radio","allows_hiding":true},{"id":"find","role":"search","activates_search":true}]}"#,
            #"{"cmd":"add_tab","controller":"pad","group":"lib","tab":{"id":"mixes"}}"#,
            #"{"cmd":"remove_tab","controller":"pad","tab":"artists"}"#,
            // A group whose remembered child `state` cannot show (it is the one it would show
            // anyway) makes a reorder a reason to read `state` again: select in it first.
            #"{"cmd":"select","controller":"pad","tab":"songs"}"#,
            #"{"cmd":"set_enabled","controller":"pad","tab":"radio","enabled":false}"#,
            #"{"cmd":"edit.begin","controller":"pad"}"#,
            #"{"cmd":"reorder","controller":"pad","group":"lib","order":["mixes","songs"]}"#,
            #"{"cmd":"set_expanded","controller":"pad","group":"lib","expanded":false}"#,
            #"{"cmd":"select","controller":"pad","tab":"find"}"#,
            #"{"cmd":"set_compact_tabs","controller":"pad","tabs":["lib","find"]}"#,
            #"{"cmd":"set_size_class","controller":"pad","size_class":"compact"}"#,
            #"{"cmd":"set_bar_hidden","controller":"pad","hidden":true}"#,
            #"{"cmd":"set_compact_tabs","controller":"pad","tabs":null}"#,
            #"{"cmd":"select_child","controller":"pad","group":"lib","child":"songs"}"#,
            #"{"cmd":"search","controller":"pad","active":false}"#,
            #"{"cmd":"set_size_class","controller":"pad","size_class":"regular"}"#,
            #"{"cmd":"set_mode","controller":"pad","mode":"tab_bar"}"#,
            #"{"cmd":"update_tab","controller":"pad","tab":"radio","hidden":true}"#,
        ]
        for line in steps {
            try driver.ok(line)
            let state = ControllerView(state: try driver.ok(#"{"cmd":"state","controller":"pad"}"#), name: "pad")
            // A group's remembered child is what it shows, whether `state` could name it or
            // not: compared as the child each group shows.
            func shown(_ v: ControllerView?) -> ControllerView? {
                guard var v = announced(v) else { return nil }
                func strip(_ t: inout TabView) {
                    let child = t.shownChild
                    t.remembered = child; t.rememberedKnown = false
                    if t.children != nil { for i in t.children!.indices { strip(&t.children![i]) } }
                }
                for i in v.tabs.indices { strip(&v.tabs[i]) }
                return v
            }
            let same = await eventually { shown(log.views["pad"]) == shown(state) }
            #expect(same, "after \(line):\nmirror \(String(describing: log.views["pad"]))\nstate  \(state)")
        }
        #expect(log.resyncs.isEmpty, "in doubt: \(log.resyncs)")
        await log.stop()
    }

    /// A mirror of every controller sees one created later (and says it read its state),
    /// and drops a deleted one.
    @Test func mirrorOfAllControllersFollowsCreateAndDelete() async throws {
        let tabd = try TabdProcess()
        let log = MirrorLog(Mirror(path: tabd.socket))
        #expect(await eventually { log.syncs.count == 1 })
        #expect(log.syncs.first?.controllers.keys.sorted() == ["main"])
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"controller.create","controller":"tv","idiom":"tv","max_visible":4}"#)
        try driver.ok(#"{"cmd":"set_tabs","controller":"tv","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let state = ControllerView(state: try driver.ok(#"{"cmd":"state","controller":"tv"}"#), name: "tv")
        #expect(await eventually { announced(log.views["tv"]) == announced(state) }, "\(log.views)")
        #expect(log.resyncs.contains { $0.contains("'tv' appeared") }, "\(log.resyncs)")
        try driver.ok(#"{"cmd":"controller.delete","controller":"tv"}"#)
        #expect(await eventually { log.views["tv"] == nil })
        await log.stop()
    }

    /// One Mirror of every controller holds a tree of containers: a pad split in the window
    /// whose primary is a navigation controller, each a CompositeView kept by its `apply`
    /// (the containers' law is mirrorLawSwift's), equal to `state` after each command; a
    /// container created later is read once, and a deleted one dropped.
    @Test func mirrorHoldsContainersAsComposites() async throws {
        let tabd = try TabdProcess()
        let log = MirrorLog(Mirror(path: tabd.socket))
        #expect(await eventually { log.syncs.count == 1 })
        let driver = try tabd.client()
        let lines = [
            #"{"cmd":"controller.create","controller":"folders","kind":"navigation","idiom":"pad","stack":[{"id":"inbox"}]}"#,
            #"{"cmd":"controller.create","controller":"mailbox","kind":"split","style":"double","idiom":"pad","window":true,"primary":{"id":"boxes","controller":"folders"},"secondary":{"id":"message"}}"#,
            #"{"cmd":"rotate","controller":"mailbox","orientation":"landscape_left"}"#,
            #"{"cmd":"push","controller":"folders","screen":{"id":"sent"}}"#,
            #"{"cmd":"hide_column","controller":"mailbox","column":"primary"}"#,
            #"{"cmd":"set_size_class","controller":"mailbox","size_class":"compact"}"#,
            #"{"cmd":"show_column","controller":"mailbox","column":"primary"}"#,
            #"{"cmd":"set_size_class","controller":"mailbox","size_class":"regular"}"#,
            #"{"cmd":"show_detail","controller":"mailbox","child":{"id":"draft"}}"#,
        ]
        for (i, line) in lines.enumerated() {
            try driver.ok(line)
            for name in ["folders", "mailbox"].prefix(i == 0 ? 1 : 2) {
                let fresh = CompositeView(state: try driver.ok(requestLine("state", controller: name)), name: name)
                let same = await eventually { log.composites[name].map(lawComparable) == lawComparable(fresh) }
                let differences = log.composites[name].map {
                    fieldDifferences(lawComparable($0), lawComparable(fresh)).joined(separator: "\n  ") } ?? "not mirrored"
                #expect(same, "after \(line), \(name):\n  \(differences)")
                #expect(log.views[name] == nil, "\(name) held as a tab controller")
            }
        }
        #expect(log.composites["mailbox"]?.visibleColumns == [.primary, .secondary])
        #expect(log.resyncs.contains { $0.contains("'mailbox' appeared") }, "\(log.resyncs)")
        #expect(log.views.keys.sorted() == ["main"])
        try driver.ok(#"{"cmd":"controller.create","controller":"lone","kind":"custom","children":[{"id":"a"}]}"#)
        try driver.ok(#"{"cmd":"set_shown","controller":"lone","shown":["a"]}"#)
        #expect(await eventually { log.composites["lone"]?.shown == ["a"] })
        try driver.ok(#"{"cmd":"controller.delete","controller":"lone"}"#)
        #expect(await eventually { log.composites["lone"] == nil })
        await log.stop()
    }

    /// A seq that skips one puts the controller in doubt: the mirror reads `state` again and
    /// says why (against a stand-in for tabd that skips seq 6: Fixtures/gap-server).
    @Test func mirrorReadsStateAgainAfterAGapAndSaysWhy() async throws {
        let dir = temporaryDirectory("gap")
        let socket = dir + "/gap.sock"
        let script = Build.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/gap-server/gap_server.py").path
        let server = try LinesProcess("/usr/bin/env", ["python3", script, socket], dir: dir)
        defer { kill(server.process.processIdentifier, SIGKILL) }
        var ready = [UInt8]()
        let fd = (server.process.standardOutput as! Pipe).fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while ready.count < 6, read(fd, &byte, 1) == 1 { ready.append(byte) }
        #expect(String(decoding: ready, as: UTF8.self) == "ready\n")
        let log = MirrorLog(Mirror(path: socket, controllers: ["main"]))
        #expect(await eventually { log.resyncs.count == 1 }, "\(log.resyncs)")
        #expect(log.resyncs == ["seq 5 was followed by 7"])
        #expect(log.views["main"]?.seq == 9)
        await log.stop()
    }

    /// The library used as a package dependency is: a package in a temporary directory that
    /// names a copy of this checkout by path, in a directory not named `tabd`
    /// (`Clone.of-TABD`), and links the TabClient product — importing nothing else — keeps a
    /// mirror across a kill -9 and restart of tabd (Tests/EndToEndTests/Fixtures/outside-client);
    /// docs/clients.md's Swift examples build in it as the page shows them. It names tabd's
    /// package as docs/clients.md does (`name: "tabd"`), which a directory of any name needs.
    @Test func aPackageOutsideThisRepositoryKeepsAMirrorAcrossKill9() throws {
        let root = Build.packageRoot
        let dir = temporaryDirectory("outside")
        let checkout = dir + "/Clone.of-TABD"
        // The files git tracks, and new ones it does not ignore, as they are now (no .build).
        let copied = try shell("mkdir -p \(checkout) && cd \(root.path) && git ls-files -z -co --exclude-standard"
                               + " | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C \(checkout) 2>&1")
        #expect(copied.status == 0, "\(copied.output)")
        let fixture = root.appendingPathComponent("Tests/EndToEndTests/Fixtures/outside-client").path
        let manifest = try String(contentsOfFile: fixture + "/Package.swift.in", encoding: .utf8)
            .replacingOccurrences(of: "@TABD_PACKAGE@", with: checkout)
        let clientsPage = try String(contentsOf: root.appendingPathComponent("docs/clients.md"), encoding: .utf8)
        let examples = SwiftSDKPackageTests.swiftBlocks(clientsPage)
        #expect(examples.count >= 2, "docs/clients.md's ```swift blocks")
        for target in ["outside", "example"] {
            try FileManager.default.createDirectory(atPath: dir + "/pkg/Sources/" + target, withIntermediateDirectories: true)
        }
        try manifest.write(toFile: dir + "/pkg/Package.swift", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: fixture + "/main.swift", toPath: dir + "/pkg/Sources/outside/main.swift")
        try examples.joined(separator: "\n").write(toFile: dir + "/pkg/Sources/example/main.swift", atomically: true, encoding: .utf8)
        let started = Date()
        let built = try shell("cd \(dir)/pkg && swift build 2>&1")
        #expect(built.status == 0, "\(built.output)")
        print("figure: the outside package built in \(Int(Date().timeIntervalSince(started))) s")
        guard built.status == 0 else { return }

        let tabd = try TabdProcess()
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        let client = try LinesProcess(dir + "/pkg/.build/debug/outside", [tabd.socket, "main"], dir: dir)
        #expect(try client.readLine().string("sync") == "initial")
        try driver.ok(#"{"cmd":"select","tab":"c"}"#)
        let seq = try driver.ok(#"{"cmd":"state"}"#).int("seq")
        var line = try client.readLine()
        while line.int("seq") != seq { line = try client.readLine() }
        #expect(line.string("selected") == "c")

        tabd.stop(signal: SIGKILL)
        try tabd.start()
        line = try client.readLine()
        while line.string("sync") == nil { line = try client.readLine() }
        #expect(line.string("sync") == "resync" && line.bool("instance_changed") == true && line.bool("nothing_missed") == true,
                "\(JSONValue.object(line).jsonString)")
        try tabd.client().ok(#"{"cmd":"select","tab":"b"}"#)
        let last = try tabd.client().ok(#"{"cmd":"state"}"#).int("seq")
        line = try client.readLine()
        while line.int("seq") != last { line = try client.readLine() }
        #expect(line.string("selected") == "b")
    }
}

/// A program that prints JSON lines, read line by line (and, with `input`, reads lines).
final class LinesProcess {
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffer: [UInt8] = []
    let stderrPath: String

    init(_ path: String, _ arguments: [String], dir: String, input withInput: Bool = false) throws {
        signal(SIGPIPE, SIG_IGN)  // a client that died must fail the test, not kill it
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if withInput { process.standardInput = input }
        process.standardOutput = output
        stderrPath = dir + "/lines-\(UUID().uuidString.prefix(6)).stderr"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)!
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
        if n != bytes.count { throw TestFailure("the program does not take input (exited?): \(stderr)") }
    }

    /// The next line it prints, as an object; fails after `timeout` seconds or at its exit.
    func readLine(timeout: Double = 60) throws -> JSONObject {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return try object(line)
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { throw TestFailure("nothing printed within \(timeout) s: \(stderr)") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32(left * 1000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { throw TestFailure("the output ended: \(stderr)") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
