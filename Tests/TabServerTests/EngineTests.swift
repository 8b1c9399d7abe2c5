// The engine driven directly, with no socket, process or file (as swift-nio's EmbeddedChannel
// drives a handler): lines in with who sent them, steps out — replies, events per subscriber,
// journal records — and the turn's undo and the journal's replay beside it.

import Foundation
import Logging
import Testing
import TabCore
import TabJSON
import TabPlugins
import TabState
import TabTransport
@testable import TabServer

/// The engine's world, made up: every peer in no supplementary group, fixed figures.
final class TestHost: EngineHost {
    var groups: [gid_t] = []
    func peerGroups(of client: Client) throws -> [gid_t] { groups }
    var transportStatus: LineServer.Status { LineServer.Status() }
    var journalFigures: JournalFigures { JournalFigures(fsync: .no, committedSeq: 7) }
}

/// An engine and what it put out, for a test to read.
final class EmbeddedEngine {
    let host: TestHost
    var engine: ServiceEngine
    var step = Step()
    /// The journal lines of the changes "committed" so far (taken out of the engine's batch).
    var committed: [String] = []

    static let user = Client(id: 1, peer: PeerCredentials(pid: 100, uid: 1000, gid: 1000))
    static let watcher = Client(id: 2, peer: PeerCredentials(pid: 101, uid: 1001, gid: 1001))
    static let root = Client(id: 3, peer: PeerCredentials(pid: 102, uid: 0, gid: 0))
    /// The uid the engine is told tabd runs as.
    static let tabdUID: uid_t = 4000

    /// The plugin host, with no plugin directory: preparing its plugins touches no file.
    let plugins: PluginHost
    /// What a `reload` the engine asks for is answered with, as the adapter would after
    /// reading the configuration file and preparing its plugins (nil: the step is left asking).
    var prepareReload: ((EmbeddedEngine) -> Result<ServiceEngine.PreparedReload, ConfigError>)?

    init(config: ServerConfig = ServerConfig()) {
        let logger = Logger(label: "engine-test")
        let host = TestHost()
        self.host = host
        plugins = PluginHost(directories: [], logger: logger)
        engine = ServiceEngine(config: config, plugins: plugins, host: host,
                               journal: JournalBatch(after: 0), logger: logger, version: "test", ownUID: Self.tabdUID)
    }

    /// A reload's input made of `yaml` (read from no file) and no plugins.
    func prepared(_ yaml: String) throws -> ServiceEngine.PreparedReload {
        var config = try ServerConfig.parse(yaml, baseDirectory: "/etc/tabd", file: "/etc/tabd/tabd.yaml")
        config.path = "/etc/tabd/tabd.yaml"
        return ServiceEngine.PreparedReload(config: config, plugins: plugins.prepare(config.plugins, directories: config.pluginDirectories))
    }

    /// Sends `line` from `client`: the reply line (without its newline), and the events
    /// delivered, by client id.
    @discardableResult
    func send(_ line: String, from client: Client = user) -> (reply: String, events: [(client: UInt64, line: String)]) {
        step.reset()
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { engine.handle(UnsafeRawBufferPointer($0), from: client, into: &step) }
        if let asked = step.reloadAsked, let prepareReload {
            engine.reload(prepareReload(self), answering: asked, into: &step)
        }
        let reply = step.withReplyBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .newlines)
        var events: [(client: UInt64, line: String)] = []
        for d in step.deliveries {
            let line = step.withBytes(of: d) { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .newlines)
            for client in step.recipients[d.recipients] { events.append((client, line)) }
        }
        bytes.removeAll()
        return (reply, events)
    }

    /// The journal lines appended since the last call (the turn committed).
    func commit() -> [String] {
        let lines = engine.journal.withBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init)
        engine.journal = JournalBatch(after: engine.journal.lastSeq)
        engine.containers.keepChanges()
        committed += lines
        return lines
    }

    func result(_ line: String, from client: Client = user) throws -> JSONObject {
        let reply = send(line, from: client).reply
        guard case .object(let o) = try JSONParser.parse(reply), case .bool(true)? = o["ok"], case .object(let result)? = o["result"] else {
            throw EngineTestFailure("not a success: \(reply)")
        }
        return result
    }

    func errorCode(_ line: String, from client: Client = user) throws -> String? {
        let reply = send(line, from: client).reply
        guard case .object(let o) = try JSONParser.parse(reply), case .object(let e)? = o["error"], case .string(let code)? = e["code"] else { return nil }
        return code
    }
}

struct EngineTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

@Suite struct EngineTests {
    static let tabs = #"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"news"},{"id":"settings"}]}"#

    /// A change is answered, and its journal record is in the engine's batch, numbered after
    /// what the journal held.
    @Test func aChangeIsAnsweredAndJournaled() throws {
        let e = EmbeddedEngine()
        _ = try e.result(Self.tabs)
        let select = try e.result(#"{"cmd":"select","tab":"news"}"#)
        #expect(select["selected"] == .string("news"))
        #expect(select["changed"] == .bool(true))
        let lines = e.commit()
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.last?.contains(#""op":"select""#) == true || lines.last?.contains("select") == true, "\(lines)")
        let (empty, last) = (e.engine.journal.isEmpty, e.engine.journal.lastSeq)
        #expect(empty)
        #expect(last == 2)
    }

    /// R15.35: a tab controller that is a window's root answers `state` as before R15; out of
    /// its window (or attached), its state adds kind, parent, window and visible.
    @Test("R15.35 a window root's state is as before R15; out of its window it adds kind, parent, window and visible")
    func r15_35_stateOfATabControllerOutOfItsWindow() throws {
        let e = EmbeddedEngine()
        _ = try e.result(Self.tabs)
        let root = try e.result(#"{"cmd":"state"}"#)
        for member in ["kind", "parent", "window", "visible"] { #expect(root[member] == nil, "\(member) in a window root's state") }
        _ = try e.result(#"{"cmd":"set_window","controller":"main","window":false}"#)
        let out = try e.result(#"{"cmd":"state"}"#)
        #expect(out["kind"] == .string("tab") && out["parent"] == .null && out["window"] == .bool(false) && out["visible"] == .bool(false))
        #expect(out["selected"] == root["selected"] && out["tabs"] == root["tabs"])
        _ = try e.result(#"{"cmd":"set_window","controller":"main","window":true}"#)
        #expect(try e.result(#"{"cmd":"state"}"#)["kind"] == nil)
    }

    /// Reads and refused requests write no record, and change nothing.
    @Test func readsAndRefusalsWriteNothing() throws {
        let e = EmbeddedEngine()
        _ = try e.result(Self.tabs)
        _ = e.commit()
        let before = e.engine.containers
        #expect(try e.errorCode(#"{"cmd":"select","tab":"nowhere"}"#) == "not_found")
        #expect(try e.errorCode(#"{"cmd":"select","#) == "parse_error")
        #expect(try e.errorCode(#"{"cmd":"fly"}"#) == "unknown_command")
        _ = try e.result(#"{"cmd":"state"}"#)
        _ = try e.result(#"{"cmd":"ping"}"#)
        #expect(e.commit().isEmpty)
        #expect(e.engine.containers == before)
    }

    /// A subscriber gets the events of another client's change, numbered one after the other;
    /// the sender, not subscribed, gets only its reply. Once it unsubscribes (or is gone), none.
    @Test func subscribersGetEventsAndOthersDoNot() throws {
        let e = EmbeddedEngine()
        let sub = e.send(#"{"cmd":"subscribe","events":["*"]}"#, from: EmbeddedEngine.watcher)
        #expect(sub.reply.contains(#""ok":true"#))
        let subscribed = e.step.subscribed
        #expect(subscribed == true)
        let (_, events) = e.send(Self.tabs)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.client == EmbeddedEngine.watcher.id })
        let seqs = try events.map { line -> Int in
            guard case .object(let o) = try JSONParser.parse(line.line), case .int(let n)? = o["seq"] else { throw EngineTestFailure("no seq: \(line)") }
            return Int(n)
        }
        #expect(seqs == Array(1...seqs.count))
        _ = e.send(#"{"cmd":"unsubscribe","events":["*"]}"#, from: EmbeddedEngine.watcher)
        let unsubscribed = e.step.subscribed
        #expect(unsubscribed == false)
        #expect(e.send(#"{"cmd":"select","tab":"news"}"#).events.isEmpty)
        _ = e.send(#"{"cmd":"subscribe","events":["selection_changed"]}"#, from: EmbeddedEngine.watcher)
        #expect(e.send(#"{"cmd":"select","tab":"home"}"#).events.count == 1)
        e.engine.forget(EmbeddedEngine.watcher.id)
        #expect(e.send(#"{"cmd":"select","tab":"news"}"#).events.isEmpty)
    }

    /// While the journal cannot be written every change is refused before it is tried
    /// (unavailable, nothing journaled); reads still answer.
    @Test func changesAreRefusedWhileTheJournalIsFaulted() throws {
        let e = EmbeddedEngine()
        _ = try e.result(Self.tabs)
        _ = e.commit()
        e.engine.storageFaulted("ENOSPC")
        #expect(try e.errorCode(#"{"cmd":"select","tab":"news"}"#) == "unavailable")
        #expect(try e.errorCode(#"{"cmd":"controller.create","controller":"x"}"#) == "unavailable")
        #expect(try e.result(#"{"cmd":"state"}"#)["selected"] == .string("home"))
        #expect(e.commit().isEmpty)
        e.engine.fault = nil
        #expect(try e.result(#"{"cmd":"select","tab":"news"}"#)["selected"] == .string("news"))
    }

    /// A failed turn is undone: the controllers are as before it, and the same lines sent
    /// again give the same replies (what the adapter's redo relies on).
    @Test func aFailedTurnIsUndoneAndItsLinesAnswerTheSameAgain() throws {
        let e = EmbeddedEngine()
        _ = try e.result(Self.tabs)
        _ = e.commit()
        let before = e.engine.containers
        let turn = [#"{"cmd":"select","tab":"settings"}"#, #"{"cmd":"badge","tab":"news","value":"3"}"#, #"{"cmd":"controller.create","controller":"pad","idiom":"pad"}"#]
        let first = turn.map { e.send($0).reply }
        _ = e.engine.containers.undoChanges()
        e.engine.journal = JournalBatch(after: 1)
        #expect(e.engine.containers == before)
        let again = turn.map { e.send($0).reply }
        #expect(first == again)
    }

    /// The records the engine journals, replayed by the one replay function (recovery's),
    /// give back the same controllers.
    @Test func itsRecordsReplayToTheSameState() throws {
        let e = EmbeddedEngine()
        for line in [Self.tabs, #"{"cmd":"select","tab":"news"}"#, #"{"cmd":"push","tab":"news","screen":{"id":"story-1","title":"One"}}"#,
                     #"{"cmd":"controller.create","controller":"pad","idiom":"pad"}"#, #"{"cmd":"badge","tab":"home","value":"2"}"#,
                     #"{"cmd":"customizable","tabs":["news"]}"#, #"{"cmd":"controller.delete","controller":"pad"}"#] {
            _ = e.send(line)
        }
        let lines = e.commit()
        var replayed = TabContainers.withDefault()
        for line in lines {
            // "<crc> <record>"
            let record = Array(line.utf8.dropFirst(9))
            let decoded = try record.withUnsafeBytes { try JournalCodec.decode($0, version: JournalCodec.version) }
            try replayed.replay(decoded.record, semantics: JournalCodec.semantics(ofFormat: JournalCodec.version))
        }
        replayed.keepChanges()
        #expect(replayed.names == e.engine.containers.names)
        #expect(replayed["main"] == e.engine.containers["main"])
    }

    /// Administrative commands need root, an admin uid, or an admin group (asked of the host
    /// only when admin_gids is set).
    @Test func adminCommandsNeedAnAdmin() throws {
        var config = ServerConfig()
        config.adminGIDs = [4242]
        let e = EmbeddedEngine(config: config)
        #expect(try e.errorCode(#"{"cmd":"config"}"#) == "forbidden")
        #expect(try e.result(#"{"cmd":"config"}"#, from: EmbeddedEngine.root)["config"] != nil)
        // tabd's own user, as the daemon read it at start (the engine asks no kernel).
        let tabd = Client(id: 4, peer: PeerCredentials(pid: 103, uid: EmbeddedEngine.tabdUID, gid: 4000))
        #expect(try e.result(#"{"cmd":"config"}"#, from: tabd)["config"] != nil)
        e.host.groups = [4242]
        #expect(try e.result(#"{"cmd":"config"}"#)["config"] != nil)
        // stats is for everyone, with the host's figures.
        guard case .object(let journal)? = try e.result(#"{"cmd":"stats"}"#, from: EmbeddedEngine.watcher)["journal"] else { throw EngineTestFailure("stats without journal") }
        #expect(journal["seq"] == .int(7))
    }

    /// A plugin call acts outside the controllers: the step says so (a redo sends its output
    /// again instead of calling the plugin twice); a select does not.
    @Test func aPluginCallIsMarkedAsActingOutsideTheState() throws {
        let e = EmbeddedEngine()
        _ = e.send(#"{"cmd":"plugin.call","plugin":"nobody","method":"x"}"#)
        let call = e.step.outsideState
        #expect(call)
        _ = e.send(Self.tabs)
        let tabs = e.step.outsideState
        #expect(!tabs)
    }

    /// A big controller's `state` is not encoded by the engine: the step defers it to the
    /// adapter (encoded off the loop).
    @Test func aBigStateIsDeferred() throws {
        let e = EmbeddedEngine()
        let tabs = (0..<600).map { #"{"id":"t\#($0)","title":"\#(String(repeating: "x", count: 400))"}"# }.joined(separator: ",")
        _ = try e.result(#"{"cmd":"set_tabs","tabs":[\#(tabs)]}"#)
        _ = e.send(#"{"cmd":"state","id":7}"#)
        let (kind, replied) = (e.step.deferred?.kind, e.step.reply.count)
        #expect(kind == .state)
        #expect(replied == 0)
        _ = e.send(#"{"cmd":"preserve","controller":"main"}"#)
        let preserve = e.step.deferred?.kind
        #expect(preserve == .preserve)
    }

    /// Selects of nested tabs name their path; the memo of encoded paths (eight kept, then
    /// forgotten together) gives the same JSON as a fresh encoding, before and after it fills.
    @Test func nestedSelectsNameTheirPathsThroughTheMemo() throws {
        let e = EmbeddedEngine()
        let groups = (0..<10).map { #"{"id":"g\#($0)","children":[{"id":"a\#($0)"},{"id":"b\#($0)"}]}"# }.joined(separator: ",")
        _ = try e.result(#"{"cmd":"set_tabs","tabs":[\#(groups)]}"#)
        for round in 0..<2 {
            for g in 0..<10 {
                for leaf in ["a", "b"] {
                    let r = try e.result(#"{"cmd":"select","tab":"\#(leaf)\#(g)"}"#)
                    #expect(r["selected_path"] == .array([.string("g\(g)"), .string("\(leaf)\(g)")]), "round \(round): \(r)")
                }
            }
        }
    }

    // MARK: Reload, with no file and no plugin

    /// A `reload` command asks the adapter for its input and answers nothing yet; handed a
    /// configuration (parsed from text here: the engine reads no file, though its running
    /// configuration names one that does not exist), it swaps it in: the reply says what
    /// changed and what waits for a restart, a newly configured controller is created (and
    /// journaled), the new admin uid is an admin, and `stats` counts it.
    @Test func aReloadIsHandedItsConfigurationAndReadsNoFile() throws {
        var config = ServerConfig()
        config.path = "/nonexistent/tabd.yaml"
        let e = EmbeddedEngine(config: config)
        #expect(try e.errorCode(#"{"cmd":"config"}"#) == "forbidden")

        let asking = e.send(#"{"cmd":"reload","id":7}"#, from: EmbeddedEngine.root)
        let (asked, reloaded) = (e.step.reloadAsked?.id, e.step.reloaded)
        #expect(asking.reply.isEmpty && asked?.json == "7" && reloaded == nil)

        e.prepareReload = { .success(try! $0.prepared("access:\n  admin_uids: [1000]\ncontrollers:\n  - name: side\nsocket: /run/elsewhere.sock\n")) }
        let reply = e.send(#"{"cmd":"reload","id":8}"#, from: EmbeddedEngine.root).reply
        let stillAsking = e.step.reloadAsked != nil
        #expect(!stillAsking)
        guard case .object(let o) = try JSONParser.parse(reply), case .object(let result)? = o["result"] else { throw EngineTestFailure("not a success: \(reply)") }
        #expect(o["id"] == .int(8))
        #expect(result["reloaded"] == .bool(true))
        #expect(result["changed"] == .array([.string("access.admin_uids"), .string("controllers")]))
        #expect(result["restart_required"] == .array([.string("socket")]))
        #expect(result["plugins"] == .array([]) && result["refused"] == .array([]) && result["stale"] == .array([]))
        let ended = e.step.reloaded
        #expect(ended == true)
        #expect(e.commit().contains { $0.contains("side") })
        #expect(e.engine.containers["side"] != nil)
        // The new admin uid applies; the socket keeps its running value until a restart.
        #expect(try e.result(#"{"cmd":"config"}"#)["config"] != nil)
        #expect(e.engine.config.socketPath == ServerConfig().socketPath)
        guard case .object(let reloads)? = try e.result(#"{"cmd":"stats"}"#)["reload"] else { throw EngineTestFailure("stats without reload") }
        #expect(reloads["last"] == .string("ok") && reloads["successes"] == .int(1) && reloads["failures"] == .int(0))
    }

    /// A reload the adapter could not prepare (the file is invalid, or a required plugin
    /// would not run) changes nothing: the reply is config_invalid in one sentence naming the
    /// file, with every problem listed once; `stats` keeps the failure until a reload works.
    @Test func aReloadThatCouldNotBePreparedChangesNothingAndSaysWhy() throws {
        var config = ServerConfig()
        config.path = "/etc/tabd/tabd.yaml"
        config.adminUIDs = [1000]
        let e = EmbeddedEngine(config: config)
        let problems = [ConfigProblem(ConfigLocation(file: "/etc/tabd/tabd.yaml", line: 2, column: 3), "unknown key 'admin_uid'; did you mean 'admin_uids'?"),
                        ConfigProblem(ConfigLocation(file: "/etc/tabd/tabd.yaml", line: 5, column: 5), "required plugin 'gate' (/usr/lib/tabd/plugins/gate.so) cannot run: init failed: no credentials")]
        e.prepareReload = { _ in .failure(ConfigError(problems)) }
        let before = e.engine.containers
        let (reply, events) = e.send(#"{"cmd":"reload","id":"r"}"#)
        guard case .object(let o) = try JSONParser.parse(reply), case .object(let error)? = o["error"] else { throw EngineTestFailure("not an error: \(reply)") }
        #expect(o["id"] == .string("r"))
        #expect(error["code"] == .string("config_invalid"))
        #expect(error["message"] == .string("reload refused: /etc/tabd/tabd.yaml has 2 problems; nothing changed and the running configuration stays until it is fixed and reloaded"))
        #expect(error["problems"] == .array(problems.map { .string($0.description) }))
        let ended = e.step.reloaded
        #expect(ended == false && events.isEmpty)
        #expect(e.engine.config.adminUIDs == [1000] && e.engine.containers == before && e.engine.journal.isEmpty)
        guard case .object(let reloads)? = try e.result(#"{"cmd":"stats"}"#)["reload"] else { throw EngineTestFailure("stats without reload") }
        #expect(reloads["last"] == .string("failed") && reloads["failures"] == .int(1))
        #expect(reloads["problems"] == .array(problems.map { .string($0.description) }))

        // A reload with no client's request (SIGHUP's) takes the same input.
        e.step.reset()
        let report = try e.engine.reload(.success(e.prepared("access:\n  admin_uids: [1000]\n")), into: &e.step).get()
        let ok = e.step.reloaded
        #expect(report.changed.isEmpty && report.restartRequired.isEmpty && ok == true)
        guard case .object(let after)? = try e.result(#"{"cmd":"stats"}"#)["reload"] else { throw EngineTestFailure("stats without reload") }
        #expect(after["last"] == .string("ok") && after["problems"] == .array([]))
    }
}
