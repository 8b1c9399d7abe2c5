// The dispatch: a decoded request → the controller state machine (asking the plugins where
// it must decide) → the journal → the reply, and events to subscribers. Runs on the loop
// thread only.

import Foundation
import Logging
import TabCore
import TabPlugins
import TabProtocol
import TabTransport
@_exported import TabState

/// What the service keeps per connection.
final class ClientState {
    /// Event names this client wants ("*" = all).
    var events: Set<String> = []
    /// Controllers whose events it wants; nil = all.
    var controllers: Set<String>?
    var wantsAll: Bool { events.contains("*") }

    func wants(_ event: String, controller: String) -> Bool {
        (wantsAll || events.contains(event)) && (controllers?.contains(controller) ?? true)
    }
}

public final class TabService: LineServiceDelegate {
    public private(set) var containers: TabContainers
    public private(set) var config: ServerConfig
    let store: StateStore
    let plugins: PluginHost
    /// `plugins` as the state machine's policy (an existential), boxed once here and passed
    /// to each command's `apply`: boxing it anew per command retained and released it each
    /// time. Reads that ask the plugins outside a command (`state`, `rotate`'s reply) pass
    /// `plugins` itself.
    private let policy: Policy
    let logger: Logger
    let version: String
    /// Set by the daemon: systemd notifications and the like around a reload.
    var onReload: (_ phase: ReloadPhase) -> Void = { _ in }
    public enum ReloadPhase { case begin, end(ok: Bool) }
    /// Set by the daemon: the journal cannot be written (the reason), or can again (nil).
    var onStateFault: (String?) -> Void = { _ in }
    /// Set by the daemon: runs `body` on the loop after `seconds`.
    var schedule: (_ seconds: Double, _ body: @escaping () -> Void) -> Void = { _, _ in }

    private var subscribers: [UInt64: Connection] = [:]
    private var w = JSONWriter(capacity: 4096)
    private var ew = JSONWriter(capacity: 1024)
    /// The lines of the current turn, kept until it is committed: when its records cannot be
    /// made durable, its changes are undone and the lines handled again (changes refused).
    private var turnLines = JSONWriter(capacity: 4096)
    private var turnEntries: [(connection: Connection, start: Int, count: Int)] = []
    /// By entry: what a line whose effects lie outside the controllers (a plugin call: a login,
    /// a logout; a reload) sent, to every connection. Redoing the turn sends it again instead of
    /// running the line twice (a plugin cannot undo a failed login it counted).
    private var turnReplays: [Int: [(Connection, [UInt8])]] = [:]
    /// While such a line runs: what it sends.
    private var capture: [(Connection, [UInt8])]?
    private var turnOpen = false
    var stats = ServiceStats()
    /// The transport's figures for `stats` (connections, memory held, limits hit).
    public var transportStatus: () -> LineServer.Status = { LineServer.Status() }
    private let instance = UInt64.random(in: 1...UInt64.max)

    public init(config: ServerConfig, store: StateStore, plugins: PluginHost, logger: Logger, version: String) {
        self.config = config
        self.store = store
        self.plugins = plugins
        self.policy = plugins
        self.logger = logger
        self.version = version
        self.containers = .withDefault()
    }

    // MARK: Recovery

    /// Loads the snapshot, replays the journal and creates configured controllers. Throws
    /// one sentence (a `StateError`) when the state directory cannot be trusted.
    public func recover(repair: Bool) throws {
        let report = try store.recover(repair: repair, StateStore.Replay(
            start: { [unowned self] snapshot in containers = snapshot ?? .withDefault() },
            apply: { [unowned self] record, semantics in
                do throws(TabError) { try replay(record, semantics); return nil } catch { return error.message }
            },
            state: { [unowned self] in containers }
        ))
        containers.keepChanges()
        var metadata: Logger.Metadata = [
            "state.controllers": "\(containers.controllers.count)", "state.replayed": "\(report.applied)",
            "state.generation": "\(report.generation)", "state.seq": "\(report.lastSeq)",
        ]
        if report.formatRead < JournalCodec.version { metadata["state.upgraded_from_format"] = "\(report.formatRead)" }
        if report.tornBytes > 0 { metadata["state.torn_bytes_cut"] = "\(report.tornBytes)" }
        if !report.setAside.isEmpty {
            metadata["state.set_aside"] = "\(report.setAside)"
            metadata["state.lost_records"] = "\(report.lostRecords)"
            metadata["state.lost_controllers"] = "\(report.lostControllers)"
        }
        logger.info("state recovered", metadata: metadata)
        createConfiguredControllers()
        commitOutsideTurn()
    }

    private func replay(_ record: JournalRecord, _ semantics: Semantics) throws(TabError) {
        switch record {
        case .command(let controller, let command):
            _ = try containers.apply(command, to: controller, policy: DefaultPolicy(), notifying: false, semantics: semantics)
        case .createController(let name, let idiom, let maxVisible, let tapPops, let mode):
            try containers.create(name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode)
        case .deleteController(let name):
            try containers.delete(name, replaying: true)
        case .eventSeq(let name, let seq):
            try containers.setSeq(name, seq)
        }
    }

    /// The controllers the configuration names that do not exist yet (not while the journal
    /// cannot be written: they are created once it can).
    private func createConfiguredControllers() {
        guard store.fault == nil else { return }
        for spec in config.controllers where containers[spec.name] == nil {
            do {
                try createController(spec.name, idiom: spec.idiom, maxVisible: spec.maxVisible, tapPops: spec.tapPops)
            } catch {
                logger.error("a configured controller cannot be created", metadata: ["controller": "\(spec.name)", "error": "\(error.message)"])
            }
        }
    }

    private func createController(_ name: String, idiom: Idiom, maxVisible: Int?, tapPops: TapPops = .always,
                                  mode: Mode = .automatic) throws(TabError) {
        if containers[name] == nil, containers.controllers.count >= config.maxControllers {
            throw TabError(.outOfRange, "tabd holds \(containers.controllers.count) controllers, the most it may (limits.max_controllers); delete one or raise the limit")
        }
        try containers.create(name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode)
        store.append(.createController(name: name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode))
    }

    /// Writes what `command` changed (or announced: R11.4) to the journal.
    private func journal(_ outcome: Outcome, of command: Command, controller: String) {
        if outcome.journalsCommand || outcome.journalsNumbering {
            store.append(command, controller: controller)
        } else if let j = outcome.rewrittenJournal {
            store.append(j, controller: controller)
        }
    }

    // MARK: Storage faults

    /// Every change is refused, before it is tried, while the journal cannot be written.
    @inline(__always)
    private func requireWritable() throws(ProtocolError) {
        guard let fault = store.fault else { return }
        throw ProtocolError(.unavailable, "the change could not be made durable (\(fault)); nothing changed. tabd keeps retrying and takes changes again as soon as the journal can be written; reads still work")
    }

    /// Commits what was changed outside a turn (start, SIGHUP, a retry); on failure the
    /// changes are undone.
    private func commitOutsideTurn() {
        do {
            try store.commit()
            containers.keepChanges()
        } catch {
            let undone = containers.undoChanges()
            storeFaulted(error.description, undone: undone)
        }
    }

    /// The journal could not be written: say so, and try again with backoff.
    private func storeFaulted(_ fault: String, undone: [String]) {
        stats.storageFaults += 1
        logger.error("the journal cannot be written: changes are refused (unavailable) until it can; reads go on", metadata: [
            "error": "\(fault)", "undone.controllers": "\(undone)", "retry.seconds": "\(retryDelay)",
        ])
        onStateFault(fault)
        scheduleRetry()
    }

    /// Starts a compaction when the journal has grown to `compact_bytes` or a snapshot is owed.
    /// Nothing is pending where it is called; should compact's own commit still fail, that is
    /// a storage fault like any other.
    private func compactIfDue() {
        guard store.needsCompaction else { return }
        do { try store.compact(containers) } catch { storeFaulted(error.description, undone: []) }
    }

    private var retryDelay = 0.05
    private var retryScheduled = false

    private func scheduleRetry() {
        guard !retryScheduled else { return }
        retryScheduled = true
        schedule(retryDelay) { [weak self] in self?.retryStore() }
        retryDelay = min(retryDelay * 2, 5)
    }

    private func retryStore() {
        retryScheduled = false
        guard store.fault != nil else { return }
        guard store.retry() else { return scheduleRetry() }
        retryDelay = 0.05
        logger.notice("the journal can be written again: changes are accepted", metadata: ["state.directory": "\(store.directory)"])
        // The whole state is written anew: whatever a failed fsync may have lost is covered
        // (now, or as soon as a compaction under way has finished).
        store.requestSnapshot()
        compactIfDue()
        guard store.fault == nil else { return }
        createConfiguredControllers()
        commitOutsideTurn()
        if store.fault == nil { onStateFault(nil) }
    }

    // MARK: LineServiceDelegate

    public func connectionDidOpen(_ connection: Connection) {
        connection.context = ClientState()
        stats.connectionsAccepted += 1
    }

    public func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        subscribers[connection.id] = nil
    }

    public func connection(_ connection: Connection, refused reason: InputRefusal) {
        stats.errors += 1
        let error = switch reason {
        case .lineTooLong:
            ProtocolError(.tooLarge, "the request line is longer than \(config.maxLineBytes) bytes (limits.max_line_bytes); the connection will be closed")
        case .lineTimeout:
            ProtocolError(.invalidRequest, "the request line was not finished within \(config.lineTimeout.formatted) s (limits.line_timeout_seconds); the connection will be closed")
        case .overBudget:
            ProtocolError(.overloaded, "all clients together hold more than tabd allows them (five eighths of limits.memory_budget_bytes, \(config.memoryBudgetBytes / 8 * 5) of \(config.memoryBudgetBytes) bytes) and this connection held the most of those not taking their replies; it will be closed")
        }
        let reply = ReplyEncoder.failure(id: nil, error)
        connection.send(reply)
        if turnOpen {
            // Part of this turn's output: sent again should the turn be redone.
            turnReplays[turnEntries.count] = [(connection, reply)]
            turnEntries.append((connection, turnLines.count, 0))
        }
    }

    /// When the line being handled started: the read, or the end of the line before it.
    private var lineStart: UInt64 = 0

    /// The clock of `lineStart` (ticks of the cycle counter where that is safe).
    private var clock = LatencyClock()

    public func connectionWillDeliverLines(_ connection: Connection) {
        lineStart = clock.now()
    }

    public func connection(_ connection: Connection, didReceive line: UnsafeRawBufferPointer) {
        turnOpen = true
        let start = turnLines.count
        turnLines.append(bytes: line)
        turnEntries.append((connection, start, line.count))
        let began = lineStart
        let name = handle(line, from: connection)
        if let captured = capture {
            turnReplays[turnEntries.count - 1] = captured
            capture = nil
        }
        let end = clock.now()
        stats.record(name, nanos: clock.nanoseconds(end &- began))
        lineStart = end
    }

    /// Handles one line; its reply is sent. Returns the command's name (for statistics).
    private func handle(_ line: UnsafeRawBufferPointer, from connection: Connection) -> String {
        w.reset()
        var name = "invalid"
        if let common = RequestDecoder.decodeCommon(line) {
            // The requests clients send most, without the (id, Result) wrapping or a Request.
            name = common.name
            run(common)
        } else {
            let (id, result) = RequestDecoder.decodeInGeneral(line, maxDepth: config.maxJSONDepth)
            switch result {
            case .failure(let error):
                stats.errors += 1
                ReplyEncoder.failure(id: id, error, into: &w)
            case .success(let request):
                name = request.name
                if Self.actsOutsideState(request.command) { capture = [] }
                run(request, from: connection)
            }
        }
        w.withBytes { connection.send($0) }
        if capture != nil { capture!.append((connection, w.bytes)) }
        return name
    }

    /// Commands whose effects an undone turn cannot take back (they are in plugins or the
    /// configuration): their output is kept for a redo instead of running them again.
    private static func actsOutsideState(_ command: RequestCommand) -> Bool {
        switch command {
        case .pluginCall, .reload: return true
        default: return false
        }
    }

    /// Makes the turn's changes durable. False: they could not be; they were undone, and the
    /// transport discards the turn's output and asks for `redoTurn`.
    public func commitTurn() -> Bool {
        turnOpen = false
        do {
            try store.commit()
        } catch {
            let undone = containers.undoChanges()
            storeFaulted(error.description, undone: undone)
            return false
        }
        containers.keepChanges()
        forgetTurn()
        compactIfDue()
        return true
    }

    /// After a failed commit (the turn's output discarded): every line of the turn again, in
    /// order, against the state as it was before the turn. Changes are refused now
    /// (`unavailable`); reads answer from the state that is durable.
    public func redoTurn() {
        let entries = turnEntries
        turnLines.withBytes { all in
            for (i, e) in entries.enumerated() {
                if let replay = turnReplays[i] {
                    for (c, bytes) in replay where !c.isClosedForGood { c.send(bytes) }
                    continue
                }
                guard !e.connection.isClosedForGood else { continue }
                _ = handle(UnsafeRawBufferPointer(rebasing: all[e.start..<(e.start + e.count)]), from: e.connection)
            }
        }
        containers.keepChanges()
        forgetTurn()
    }

    private func forgetTurn() {
        // A huge reply or event (a `state` of thousands of tabs) grew these: given back.
        w.reset(keepingAtMost: 1 << 20)
        ew.reset(keepingAtMost: 1 << 20)
        guard !turnEntries.isEmpty else { return }
        turnEntries.removeAll(keepingCapacity: turnEntries.count <= 4096)
        if !turnReplays.isEmpty { turnReplays.removeAll() }
        if turnLines.count > 1 << 20 { turnLines = JSONWriter(capacity: 4096) } else { turnLines.reset() }
    }

    // MARK: Dispatch

    /// Handles a decoded request; its reply (or error reply) is in `w` afterwards.
    private func run(_ request: Request, from connection: Connection) {
        do {
            try handle(request, from: connection)
        } catch {
            fail(id: request.id, error)
        }
    }

    /// `run` for what the fast path decoded: the same handling as its general form's.
    private func run(_ r: CommonRequest) {
        do {
            switch r.command {
            case .select(let target): try run(.select(target), id: r.id, controller: r.controller)
            case .tap(let target): try run(.tap(target), id: r.id, controller: r.controller)
            case .state: try state(id: r.id, controller: r.controller)
            case .ping: ReplyEncoder.success(id: r.id, into: &w) { _ in }
            }
        } catch {
            fail(id: r.id, error)
        }
    }

    /// A command failed: its error reply replaces whatever part of a reply was written.
    private func fail(id: RequestID?, _ error: ProtocolError) {
        stats.errors += 1
        w.reset()
        ReplyEncoder.failure(id: id, error, into: &w)
    }

    private func handle(_ r: Request, from connection: Connection) throws(ProtocolError) {
        if r.command.isAdminOnly, !isAdmin(connection) {
            throw ProtocolError(.forbidden, "'\(r.name)' is for administrators (root or a configured admin uid/gid); you are uid \(connection.peer.uid)")
        }
        switch r.command {
        case .hello:
            reply(r) { w in
                w.key(literal: "name"); w.string("tabd")
                w.key(literal: "version"); w.string(version)
                w.key(literal: "protocol"); w.int(1)
                w.key(literal: "instance"); w.string(String(instance, radix: 16))
                w.key(literal: "commands"); ReplyEncoder.strings(commandNames, &w)
                w.key(literal: "events"); ReplyEncoder.strings(Notification.eventNames + ["plugin"], &w)
                w.key(literal: "plugins"); ReplyEncoder.strings(plugins.plugins.filter(\.loaded).map(\.name), &w)
            }
        case .ping:
            reply(r) { _ in }
        case .state:
            try state(id: r.id, controller: r.controller)
        case .controllers:
            reply(r) { w in
                w.key(literal: "controllers"); w.beginArray()
                for name in containers.names {
                    let c = containers[name]!
                    w.beginObject()
                    w.key(literal: "name"); w.string(name)
                    w.key(literal: "idiom"); w.string(c.idiom.rawValue)
                    w.key(literal: "max_visible"); w.int(c.maxVisible)
                    w.key(literal: "tabs"); w.int(c.tabs.count)
                    w.endObject()
                }
                w.endArray()
            }
        case .controllerCreate(let idiom, let maxVisible, let tapPops, let mode):
            try requireWritable()
            do { try createController(r.controller, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode) } catch { throw ProtocolError(error) }
            let c = containers[r.controller]!
            reply(r) { w in
                w.key(literal: "controller"); w.string(c.name)
                w.key(literal: "idiom"); w.string(c.idiom.rawValue)
                w.key(literal: "max_visible"); w.int(c.maxVisible)
                w.key(literal: "tap_pops"); w.string(c.tapPops.rawValue)
                if c.mode != .automatic { w.key(literal: "mode"); w.string(c.mode.rawValue) }
            }
        case .controllerDelete:
            try requireWritable()
            let last: UInt64
            do { last = try containers.delete(r.controller) } catch { throw ProtocolError(error) }
            store.append(.deleteController(name: r.controller))
            reply(r) { w in w.key(literal: "deleted"); w.string(r.controller) }
            controllerDeleted(r.controller, seq: last)
        case .core(let command):
            try run(command, id: r.id, controller: r.controller)
        case .layout(let width, let height, let statusBar):
            let c = try controller(r.controller)
            let frames = c.layout(width: width, height: height, statusBar: statusBar)
            reply(r) { w in
                w.key(literal: "bar"); ReplyEncoder.frame(frames.bar, &w)
                w.key(literal: "content"); ReplyEncoder.frame(frames.content, &w)
                w.key(literal: "bar_position"); w.string(c.idiom == .tv ? "top" : "bottom")
                w.key(literal: "status_bar_child"); ReplyEncoder.optionalString(c.statusBarChild, &w)
            }
        case .preserve:
            let c = try controller(r.controller)
            reply(r) { w in w.key(literal: "archive"); ReplyEncoder.archive(c.preserve(), &w) }
        case .subscribe(let events, let controllers):
            let state = clientState(connection)
            state.events.formUnion(events)
            if let controllers { state.controllers = Set(controllers) }
            subscribers[connection.id] = connection
            reply(r) { w in
                w.key(literal: "events"); ReplyEncoder.strings(state.events.sorted(), &w)
                if let c = state.controllers { w.key(literal: "controllers"); ReplyEncoder.strings(c.sorted(), &w) }
                // Where each concerned controller's numbering stands: events after these are
                // the ones this subscription will see (R11.4).
                w.key(literal: "seqs"); w.beginObject()
                for name in state.controllers?.sorted() ?? containers.names {
                    if let c = containers[name] { w.key(name); w.int(Int(truncatingIfNeeded: c.seq)) }
                }
                w.endObject()
            }
        case .unsubscribe(let events):
            let state = clientState(connection)
            if events.contains("*") { state.events.removeAll() } else { state.events.subtract(events) }
            if state.events.isEmpty { subscribers[connection.id] = nil }
            reply(r) { w in w.key(literal: "events"); ReplyEncoder.strings(state.events.sorted(), &w) }
        case .plugins:
            reply(r) { w in
                w.key(literal: "plugins"); w.beginArray()
                for p in plugins.plugins { PluginsEncoding.status(p, &w) }
                w.endArray()
            }
        case .pluginCall(let plugin, let method, let args):
            let c = try controller(r.controller)
            guard case .object(let argsObject) = args ?? .object(JSONObject([])) else {
                throw ProtocolError.invalid("args", "'args' must be a JSON object")
            }
            let peer = connection.peer
            switch plugins.call(plugin: plugin, method: method, args: argsObject, controller: c,
                                caller: PluginCaller(uid: peer.uid, gid: peer.gid, pid: peer.pid)) {
            case .success(let json):
                // Checked by the plugin host with JSONParser, and compact.
                reply(r) { w in w.key(literal: "plugin"); w.string(plugin); w.key(literal: "value"); w.raw(json.utf8) }
            case .failure(let error):
                afterCommand()
                throw ProtocolError(error)
            }
            afterCommand()
        case .explain(let limit):
            reply(r) { w in
                w.key(literal: "decisions"); w.beginArray()
                for d in plugins.explain(limit: limit) { PluginsEncoding.decision(d, &w) }
                w.endArray()
            }
        case .reload:
            let report: ReloadReport
            switch reload() {
            case .success(let r): report = r
            case .failure(let error):
                let n = error.problems.count
                throw ProtocolError(.internal, "reload refused, nothing changed and the running configuration stays: \(n == 1 ? "" : "\(n) problems: ")\(error)",
                                    lists: [("problems", error.problems.map(\.description))])
            }
            reply(r) { w in
                w.key(literal: "reloaded"); w.bool(true)
                w.key(literal: "plugins"); ReplyEncoder.strings(plugins.plugins.filter(\.loaded).map(\.name), &w)
                w.key(literal: "changed"); ReplyEncoder.strings(report.changed, &w)
                w.key(literal: "plugins_started"); ReplyEncoder.strings(report.plugins.started, &w)
                w.key(literal: "plugins_stopped"); ReplyEncoder.strings(report.plugins.stopped, &w)
                w.key(literal: "refused"); Self.problems(report.refused, &w)
                w.key(literal: "stale"); Self.problems(report.stale, &w)
                w.key(literal: "restart_required"); ReplyEncoder.strings(report.restartRequired, &w)
            }
        case .stats:
            reply(r) { w in stats.encode(&w, transport: transportStatus(), subscribers: subscribers.count, store: store, plugins: plugins) }
        case .metrics:
            let text = stats.openMetrics(transport: transportStatus(), subscribers: subscribers.count, store: store, plugins: plugins.stats)
            reply(r) { w in w.key(literal: "text"); w.string(text) }
        }
    }

    /// `[{"plugin", "path", "message"}]`
    private static func problems(_ list: [PluginProblem], _ w: inout JSONWriter) {
        w.beginArray()
        for p in list {
            w.beginObject()
            w.key(literal: "plugin"); w.string(p.plugin)
            w.key(literal: "path"); w.string(p.path)
            w.key(literal: "message"); w.string(p.message)
            w.endObject()
        }
        w.endArray()
    }

    private func run(_ command: Command, id: RequestID?, controller name: String) throws(ProtocolError) {
        try requireWritable()
        let outcome: Outcome
        do {
            try config.controllerLimits.check(command) { () throws(TabError) in try containers.controller(name) }
            outcome = try containers.apply(command, to: name, policy: policy, notifying: !subscribers.isEmpty) { c, outcome in
                ReplyEncoder.success(id: id, into: &w) { w in result(of: command, c, outcome, &w) }
            }
        } catch {
            var error = error
            if error.code == .denied {
                stats.denials += 1
                // The refusing plugin's own sentence for people, when it gave one.
                if let denial = plugins.lastDenial, denial.plugin == error.plugin, let message = denial.message {
                    error.message = message
                }
            }
            afterCommand()
            throw ProtocolError(error)
        }
        journal(outcome, of: command, controller: name)
        publish(outcome, controller: name)
        afterCommand()
    }

    private func state(id: RequestID?, controller name: String) throws(ProtocolError) {
        let c = try controller(name)
        ReplyEncoder.success(id: id, into: &w) { w in ReplyEncoder.state(c, policy: plugins, &w) }
    }

    /// The result members of a state-machine command's reply.
    private func result(of command: Command, _ c: Controller, _ outcome: Outcome, _ w: inout JSONWriter) {
        w.key(literal: "selected"); ReplyEncoder.optionalString(c.selection.wireValue, &w)
        w.key(literal: "selected_index"); ReplyEncoder.optionalInt(c.selectedIndex, &w)
        w.key(literal: "changed"); w.bool(outcome.changed)
        switch command {
        case .rotate:
            // PROTOCOL.md: `rotated`, `orientation` (the current one, a name) and `supported`.
            w.key(literal: "rotated"); w.bool(outcome.rotated ?? false)
            w.key(literal: "orientation"); w.string(c.orientation.rawValue)
            w.key(literal: "supported"); ReplyEncoder.orientations(c.supportedOrientations(policy: plugins), &w)
            w.key(literal: "preferred"); ReplyEncoder.optionalString(c.preferredOrientation(policy: plugins)?.rawValue, &w)
        case .push, .pop, .popToRoot:
            w.key(literal: "stack"); ReplyEncoder.stack(Self.navigationTab(of: command).flatMap { c.tab($0)?.stack } ?? [], &w)
        case .customizeEnd, .setTabs, .addTab, .removeTab:
            w.key(literal: "tabs"); ReplyEncoder.strings(c.tabs.map(\.id), &w)
        case .setCustomizable:
            w.key(literal: "customizable"); ReplyEncoder.strings(c.customizable, &w)
        case .customizeBegin, .customizeMove:
            w.key(literal: "customizing_order"); ReplyEncoder.strings(c.customizingOrder ?? [], &w)
        case .setHidden, .reorder:
            // R13: what the command moved — the path (hiding may move the selection) and the bar.
            w.key(literal: "selected_path"); ReplyEncoder.strings(c.selectedPath, &w)
            w.key(literal: "bar"); ReplyEncoder.bar(c, &w)
        case .sidebar:
            w.key(literal: "sidebar"); ReplyEncoder.sidebar(c, &w)
        default:
            break
        }
        // `select` and `tap` in a controller arranged with R13: the reply names the path.
        if c.arranged, Controller.movesSelectionOnly(command) {
            w.key(literal: "selected_path"); selectedPath(of: c, &w)
        }
    }

    /// The paths replies named lately, encoded, each with the object that stands for it
    /// (`Controller.currentPathIdentity`): a select of a nested tab copies its path's JSON
    /// instead of writing each id again (BENCHMARKS.md, "The modern tab model").
    /// Kept in three lists: the identities compared (no reference counting), the objects
    /// (kept alive, so that an identity is never another's), the JSON.
    private var pathMemoIDs: [ObjectIdentifier] = [], pathMemoKept: [AnyObject] = [], pathMemoJSON: [[UInt8]] = []
    private var pathMemoNext = 0
    private static let pathMemoSize = 8

    /// Writes the path as a value after a key (no comma goes before it).
    private func selectedPath(of c: Controller, _ w: inout JSONWriter) {
        let identity = c.currentPathIdentity, id = ObjectIdentifier(identity)
        for i in pathMemoIDs.indices where pathMemoIDs[i] == id {
            return pathMemoJSON[i].withUnsafeBytes { w.append(bytes: $0) }
        }
        var one = JSONWriter(capacity: 64)
        ReplyEncoder.strings(c.currentPath, &one)
        let json = one.bytes
        json.withUnsafeBytes { w.append(bytes: $0) }
        if pathMemoIDs.count < Self.pathMemoSize {
            pathMemoIDs.append(id); pathMemoKept.append(identity); pathMemoJSON.append(json)
        } else {
            let k = pathMemoNext
            pathMemoIDs[k] = id; pathMemoKept[k] = identity; pathMemoJSON[k] = json
            pathMemoNext = (k + 1) % Self.pathMemoSize
        }
    }

    /// The tab a push or pop names. Apart from `result(of:)`'s switch: a case there that binds
    /// a payload makes every command (a select too) be copied before it is switched on.
    private static func navigationTab(of command: Command) -> String? {
        switch command {
        case .push(let id, _), .pop(let id), .popToRoot(let id): return id
        default: return nil
        }
    }

    /// What plugins asked for during the command: events to publish and selections to apply.
    private func afterCommand() {
        guard plugins.hasQueued else { return }
        for e in plugins.drainEmitted() {
            guard let n = containers.nextSeq(e.controller) else {
                logger.warning("a plugin emitted an event for a controller that no longer exists; dropped", metadata: ["plugin": "\(e.plugin)", "controller": "\(e.controller)"])
                continue
            }
            store.append(.eventSeq(controller: e.controller, seq: n))
            guard subscribers.values.contains(where: { clientState($0).wants("plugin", controller: e.controller) }) else { continue }
            ew.reset()
            ReplyEncoder.pluginEvent(plugin: e.plugin, controller: e.controller, seq: n, dataJSON: e.dataJSON, into: &ew)
            for s in subscribers.values where clientState(s).wants("plugin", controller: e.controller) {
                ew.withBytes { s.send($0) }
                if capture != nil { capture!.append((s, ew.bytes)) }
            }
        }
        for (name, target) in plugins.drainRequestedSelections() {
            if let fault = store.fault {
                logger.warning("a plugin asked for a selection while changes are refused", metadata: ["controller": "\(name)", "error": "\(fault)"])
                continue
            }
            do {
                let command = Command.select(target)
                let outcome = try containers.apply(command, to: name, policy: plugins)
                journal(outcome, of: command, controller: name)
                publish(outcome, controller: name)
            } catch {
                logger.warning("a plugin asked for a selection that cannot be made", metadata: ["controller": "\(name)", "error": "\(error)"])
            }
        }
    }

    /// Sends the outcome's notifications as events, numbered up to the controller's `seq`
    /// (the state machine counted them, published or not).
    private func publish(_ outcome: Outcome, controller: String) {
        guard outcome.notificationCount > 0, !subscribers.isEmpty, outcome.recordsNotifications,
              let c = containers[controller] else { return }
        var s = c.seq &- UInt64(outcome.notifications.count)
        for n in outcome.notifications {
            s &+= 1
            let name = n.eventName
            var encoded = false
            var shared: SharedOutput?
            for conn in subscribers.values where clientState(conn).wants(name, controller: controller) {
                if !encoded {
                    ew.reset()
                    ReplyEncoder.event(n, controller: controller, seq: s, in: c, into: &ew)
                    encoded = true
                    // A big event (the tab objects of a full controller's `tabs_changed`) is
                    // kept once for all its subscribers, not copied into each one's buffer.
                    if ew.count >= Connection.bigOutput { shared = ew.withBytes { SharedOutput($0) } }
                }
                if let shared { conn.send(shared) } else { ew.withBytes { conn.send($0) } }
                stats.eventsSent += 1
            }
        }
    }

    /// `controller_deleted`, numbered `seq`, to the deleted controller's subscribers: its
    /// last event.
    private func controllerDeleted(_ name: String, seq: UInt64) {
        var encoded = false
        for conn in subscribers.values where clientState(conn).wants(Notification.controllerDeleted, controller: name) {
            if !encoded {
                ew.reset()
                ReplyEncoder.controllerDeleted(name, seq: seq, into: &ew)
                encoded = true
            }
            ew.withBytes { conn.send($0) }
            stats.eventsSent += 1
        }
    }

    private func reply(_ r: Request, _ result: (inout JSONWriter) -> Void) {
        ReplyEncoder.success(id: r.id, into: &w, result)
    }

    private func controller(_ name: String) throws(ProtocolError) -> Controller {
        do { return try containers.controller(name) } catch { throw ProtocolError(error) }
    }

    private func clientState(_ c: Connection) -> ClientState {
        if let s = c.context as? ClientState { return s }
        let s = ClientState()
        c.context = s
        return s
    }

    /// Root, tabd's own user, an admin uid, or a peer whose primary or supplementary group is
    /// an admin gid. The supplementary groups cost a system call: asked for only when
    /// admin_gids is set and nothing else matched (a failure to get them is not an admin).
    func isAdmin(_ connection: Connection) -> Bool {
        let peer = connection.peer
        if peer.uid == 0 || peer.uid == geteuid() || config.adminUIDs.contains(peer.uid) || config.adminGIDs.contains(peer.gid) {
            return true
        }
        guard !config.adminGIDs.isEmpty else { return false }
        do {
            return try connection.peerGroups().contains(where: config.adminGIDs.contains)
        } catch {
            logger.warning("cannot read a peer's supplementary groups; it is not an admin by group", metadata: [
                "connection.id": "\(connection.id)", "error": "\(error)",
            ])
            return false
        }
    }

    // MARK: Reload

    /// What a reload did.
    public struct ReloadReport {
        /// Settings whose new values are in use.
        public var changed: [String] = []
        /// Settings that changed in the file but keep their running values until a restart.
        public var restartRequired: [String] = []
        public var plugins = PluginChanges()
        /// Optional plugins that do not run, with why.
        public var refused: [PluginProblem] = []
        /// Plugins whose file changed on disk: they run the code loaded before.
        public var stale: [PluginProblem] = []
    }

    /// Re-reads the config file and applies it as one transaction: the new configuration
    /// and its plugins are prepared beside the running ones (files checked and loaded, new
    /// or changed plugins initialised); only if all of that succeeds is it swapped in. On
    /// failure nothing running changes and the error lists every problem.
    public func reload() -> Result<ReloadReport, ConfigError> {
        onReload(.begin)
        let result = reloadTransaction()
        switch result {
        case .success(let report):
            var metadata: Logger.Metadata = [
                "plugins": "\(plugins.plugins.filter(\.loaded).map(\.name))",
                "changed": "\(report.changed)",
            ]
            if !report.restartRequired.isEmpty { metadata["restart_required"] = "\(report.restartRequired)" }
            if !report.refused.isEmpty { metadata["plugins.refused"] = "\(report.refused.map(\.plugin))" }
            logger.notice("configuration reloaded", metadata: metadata)
            if !report.restartRequired.isEmpty {
                logger.warning("settings changed that only a restart applies; their running values stay until then",
                               metadata: ["restart_required": .string(report.restartRequired.joined(separator: ","))])
            }
        case .failure(let error):
            logger.error("reload failed; nothing changed, the running configuration stays", metadata: ["error": "\(error)"])
        }
        onReload(.end(ok: (try? result.get()) != nil))
        return result
    }

    private func reloadTransaction() -> Result<ReloadReport, ConfigError> {
        var next = config
        if let path = config.path {
            do {
                next = try ServerConfig.load(path: path)
            } catch let error as ConfigError {
                return .failure(error)
            } catch {
                return .failure(ConfigError("\(path): \(error)"))
            }
            next.overrides = config.overrides
        }
        let prepared = plugins.prepare(next.plugins, directories: next.pluginDirectories)
        guard prepared.isUsable else {
            plugins.discard(prepared)
            return .failure(ConfigError(next.problems(requiredFailures: prepared.failures)))
        }
        var report = ReloadReport()
        (report.changed, report.restartRequired) = config.differences(to: next)
        // What needs a restart keeps its running value.
        var applied = config
        applied.plugins = next.plugins
        applied.pluginLocations = next.pluginLocations
        applied.pluginDirectories = next.pluginDirectories
        applied.adminUIDs = next.adminUIDs
        applied.adminGIDs = next.adminGIDs
        applied.controllers = next.controllers
        applied.maxJSONDepth = next.maxJSONDepth
        applied.controllerLimits = next.controllerLimits
        applied.maxControllers = next.maxControllers
        applied.slowHookMilliseconds = next.slowHookMilliseconds
        plugins.slowHookNanoseconds = UInt64(next.slowHookMilliseconds) * 1_000_000
        report.plugins = plugins.commit(prepared, controllers: containers.names.compactMap { containers[$0] })
        plugins.maxJSONDepth = applied.maxJSONDepth
        if !report.plugins.started.isEmpty || !report.plugins.stopped.isEmpty, !report.changed.contains("plugins.load") {
            report.changed.append("plugins.load")  // the same settings, but a file changed or a refused plugin now runs
        }
        report.refused = prepared.refused
        report.stale = prepared.stale
        config = applied
        // Events the stopped plugins emitted (a login gate's logouts), and selections they asked for.
        afterCommand()
        createConfiguredControllers()
        if !turnOpen { commitOutsideTurn() }
        return .success(report)
    }

    /// Measures the latency clock's rate again (every few seconds: it only gets closer).
    public func calibrateClock() {
        clock.calibrate()
    }

    /// Once a second under `everysec`: the journal is fsynced off the loop; `onLoop` brings
    /// the result back to the loop thread.
    public func tick(onLoop: @escaping @Sendable (@escaping () -> Void) -> Void) {
        if !turnOpen { compactIfDue() }
        store.syncInBackground { [unowned self] nanos, error in
            onLoop {
                self.store.backgroundSyncFinished(nanos: nanos, error: error)
                if let error {
                    self.logger.critical("changes acknowledged since the last good fsync may not be on disk", metadata: ["error": "\(error)"])
                    self.storeFaulted(error, undone: [])
                }
            }
        }
    }

    /// At shutdown: everything written and synced.
    public func finish() {
        do {
            try store.commit()
            store.finishBackgroundWork()
            if store.fsync != .no { try store.syncIfNeeded() }
        } catch {
            logger.critical("could not flush the journal at shutdown", metadata: ["error": "\(error.description)"])
        }
    }
}
