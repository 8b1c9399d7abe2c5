// The service: the transport's adapter around the engine (Engine.swift). It hands each line
// to the engine with who sent it, delivers the step that comes back (events to their
// subscribers, then the reply), and at the end of each loop turn commits the engine's
// journal records — or, when they cannot be made durable, undoes the turn and sends its
// lines through again (ServiceTurns). It owns what the engine must not: connections, the
// state store and its faults and retries (ServiceRecovery), big replies encoded off the
// loop (ServiceBigStates), the clock, and a reload's files and plugins (read and prepared
// here, handed to the engine). Runs on the loop thread only.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabState
import TabTransport

/// What the daemon gives the service to reach the loop and systemd.
public struct ServiceHooks {
    /// Runs `body` on the loop after `seconds`.
    public var schedule: (_ seconds: Double, _ body: @escaping () -> Void) -> Void = { _, _ in }
    /// Runs a closure on the loop's thread (the loop's door).
    public var onLoop: @Sendable (@escaping @Sendable () -> Void) -> Void = { _ in }
    /// The journal cannot be written (the reason), or can again (nil).
    public var stateFault: (String?) -> Void = { _ in }
    /// A reload begins or ended.
    public var reload: (ReloadPhase) -> Void = { _ in }
    /// The transport's figures for `stats` (connections, memory held, limits hit).
    public var transportStatus: () -> LineServer.Status = { LineServer.Status() }

    public init() {}
}

public final class TabService: LineServiceDelegate, EngineHost {
    public internal(set) var engine: ServiceEngine
    let store: StateStore
    let plugins: PluginHost
    let logger: Logger
    /// Set by the daemon once the loop and the listener exist.
    public var hooks = ServiceHooks()

    /// The connection whose line the engine is handling (for `peerGroups(of:)`), set and
    /// cleared around the engine's call, while the transport holds the connection: unowned,
    /// so that the two stores cost no retain and release a line.
    unowned(unsafe) var current: Connection?
    /// The step the engine fills for each input, kept (with its buffers) from one to the next.
    var step = Step()
    /// The subscribed connections, to deliver events to (the engine names them by id).
    var subscribers: [UInt64: Connection] = [:]
    /// `sendEvents`'s scratch, kept for its capacity: per delivery the subscribers whose last
    /// event it is; the subscribers met walking back; the grouped ones whose line is open.
    var lastHere: [[UInt64]] = []
    var seen: Set<UInt64> = []
    var opened: Set<UInt64> = []
    /// Big `state` replies: kept, and encoded off the loop (ServiceBigStates.swift).
    var bigStates = BigStates()
    let stateEncoder = DispatchQueue(label: "tabd.state-encoder")

    /// The lines of the current turn, kept until it is committed: when its records cannot be
    /// made durable, its changes are undone and the lines handled again (changes refused).
    var turnLines = JSONWriter(capacity: 4096)
    var turnEntries: [(connection: Connection, start: Int, count: Int)] = []
    /// By entry: what a line whose effects lie outside the controllers (a plugin call: a login,
    /// a logout; a reload) sent, to every connection. Redoing the turn sends it again instead of
    /// running the line twice (a plugin cannot undo a failed login it counted).
    var turnReplays: [Int: [(Connection, [UInt8])]] = [:]
    var turnOpen = false

    /// The journal's retry: the delay before the next one, and whether one is scheduled.
    var retryDelay = 0.05
    var retryScheduled = false

    /// When the line being handled started: the read, or the end of the line before it.
    var lineStart: UInt64 = 0
    /// The clock of `lineStart` (ticks of the cycle counter where that is safe).
    var clock = LatencyClock()

    public var containers: TabContainers { engine.containers }
    public var config: ServerConfig { engine.config }
    var stats: ServiceStats { engine.stats }

    /// `ownUID`: the uid tabd runs as, read once at start (its own user is an admin).
    public init(config: ServerConfig, store: StateStore, plugins: PluginHost, logger: Logger, version: String, ownUID: uid_t) {
        self.store = store
        self.plugins = plugins
        self.logger = logger
        // The engine's host is this adapter, set once it exists (the engine keeps it unowned).
        engine = ServiceEngine(config: config, plugins: plugins, host: PendingHost.shared, journal: store.batch(), logger: logger,
                               version: version, ownUID: ownUID)
        engine.host = self
        plugins.storeWritable = { [store] in store.fault == nil }
        // Plugins' writes wait while a compaction is under way and the journal it started has
        // grown to compact_bytes again: the state directory stays within about twice that.
        plugins.storeRoom = { [store] in !store.journalAwaitsCompaction }
        plugins.onTimer = { [unowned self] timer in fireTimer(timer) }
    }

    // MARK: EngineHost

    public func peerGroups(of client: Client) throws -> [gid_t] {
        guard let connection = current, connection.id == client.id else { return [] }
        return try connection.peerGroups()
    }

    public var transportStatus: LineServer.Status { hooks.transportStatus() }
    public var journalFigures: JournalFigures { store.figures }

    /// Root, tabd's own user, an admin uid, or a peer in an admin group (the transport's
    /// reserved slots).
    public func isAdmin(_ connection: Connection) -> Bool {
        engine.isAdmin(Client(id: connection.id, peer: connection.peer, via: connection.via))
    }

    // MARK: Delivering steps

    /// Sends what `step` holds: its events to their subscribers, then its reply to `to`
    /// (events before the reply, as a subscriber sending the request sees them).
    @inline(__always)
    func deliver(to connection: Connection) {
        if step.plain { return sendReply(to: connection) }
        deliverEvents()
        if let subscribed = step.subscribed {
            subscribers[connection.id] = subscribed ? connection : nil
            connection.keepsAlive = subscribed
        }
        if let via = step.via { connection.via = via }
        if let deferred = step.deferred { sendBig(deferred, to: connection) } else { sendReply(to: connection) }
    }

    /// The step's reply: what `reply` holds, or else the state memo's line (`keptReply`, set
    /// only with `reply` empty, so a select does not look for it).
    @inline(__always)
    private func sendReply(to connection: Connection) {
        if step.reply.count > 0 {
            step.reply.withBytes { connection.send($0) }
        } else if let kept = step.keptReply {
            kept.withUnsafeBytes { connection.send($0) }
        }
    }

    /// An input of no client's (a timer, a reload, recovery, a retry): the engine's step for
    /// it, its events delivered.
    func outsideALine<R>(_ input: (inout ServiceEngine, inout Step) -> R) -> R {
        step.reset()
        let result = input(&engine, &step)
        deliverEvents()
        return result
    }

    /// What a step of no client's (a timer, a reload, recovery) holds: its events.
    @inline(__always)
    func deliverEvents() {
        if step.plain { return }
        if let ok = step.reloaded { hooks.reload(.end(ok: ok)) }
        if !step.deliveries.isEmpty { sendEvents() }
    }

    /// Each subscriber's last event of the step (one command's, a timer's, a reload's) gets
    /// `"last":true`; a `grouped` subscriber gets the step's events as one line,
    /// `{"events":[…]}` (docs/protocol.md, "A command's events as one unit"). The mark is on
    /// the last event that subscriber gets, whatever its subscription leaves out. Found
    /// without a lookup per event and subscriber: walking back, each delivery lists the
    /// subscribers whose last it is, in its recipients' order.
    private func sendEvents() {
        let deliveries = step.deliveries
        lastHere.removeAll(keepingCapacity: true)
        for _ in deliveries.indices { lastHere.append([]) }
        if step.recipients.count == 1 {
            lastHere[deliveries.count - 1] = step.recipients[0]  // one list: everyone's last is the last
        } else {
            seen.removeAll(keepingCapacity: true)
            var later = -1
            for i in deliveries.indices.reversed() where deliveries[i].recipients != later {
                later = deliveries[i].recipients
                for client in step.recipients[later] where seen.insert(client).inserted { lastHere[i].append(client) }
            }
        }
        let grouping = engine.groupedSubscribers > 0
        if grouping { opened.removeAll(keepingCapacity: true) }
        for (i, d) in deliveries.enumerated() {
            let marked = lastHere[i]
            var next = 0  // in `marked`, the next recipient whose last this is
            for client in step.recipients[d.recipients] {
                let last = next < marked.count && marked[next] == client
                if last { next += 1 }
                guard let c = subscribers[client] else { continue }
                let grouped = grouping && engine.subscriptions[client]?.grouped == true
                if !grouped, !last, let shared = d.shared {
                    c.send(shared)
                } else {
                    let first = grouped && opened.insert(client).inserted
                    step.withBytes(of: d) { line in
                        Self.frame(line, first: first, last: last, grouped: grouped) { c.send($0) }
                    }
                }
            }
        }
    }

    /// Sends one event `line` (a whole line, newline included) as a subscriber gets it: to a
    /// `grouped` one, as an element of its `{"events":[…]}` line (opened by its `first`
    /// event, closed by its `last`); to another, as it is, or with `"last":true` when `last`.
    /// No copy: `send` gets the line's own bytes and the static pieces around them.
    @inline(__always)
    static func frame(_ line: UnsafeRawBufferPointer, first: Bool, last: Bool, grouped: Bool,
                      send: (UnsafeRawBufferPointer) -> Void) {
        if grouped {
            (first ? groupOpen : groupComma).withUnsafeBytes(send)
            send(UnsafeRawBufferPointer(rebasing: line.dropLast()))  // without its newline
            if last { groupClose.withUnsafeBytes(send) }
        } else if last {
            // `…}}\n` → `…},"last":true}\n`
            send(UnsafeRawBufferPointer(rebasing: line.dropLast(2)))
            lastMark.withUnsafeBytes(send)
        } else {
            send(line)
        }
    }

    static let lastMark: [UInt8] = Array(#","last":true}"#.utf8) + [UInt8(ascii: "\n")]
    static let groupOpen: [UInt8] = Array(#"{"events":["#.utf8)
    static let groupComma: [UInt8] = [UInt8(ascii: ",")]
    static let groupClose: [UInt8] = Array("]}".utf8) + [UInt8(ascii: "\n")]

    /// What a redo must send again for a line that acted outside the state: its plugins'
    /// events and its reply (or, when it wrote plugins' stores, that they were not kept).
    /// The events go as `sendEvents` sends a step's (`frame`): each subscriber's last one
    /// marked `"last":true`, or all of them as one line to a `grouped` subscriber.
    func replayable(to connection: Connection) -> [(Connection, [UInt8])] {
        var sent: [(Connection, [UInt8])] = []
        // A line that wrote plugins' stores: the writes are undone with the turn, so what the
        // plugins announced (a login) is not sent, and the reply says so.
        if step.storeWriters.isEmpty {
            var order: [UInt64] = [], lines: [UInt64: [[UInt8]]] = [:]
            for d in step.deliveries where d.fromPlugin {
                for client in step.recipients[d.recipients] where subscribers[client] != nil {
                    if lines[client] == nil { order.append(client) }
                    lines[client, default: []].append(step.withBytes(of: d) { Array($0) })
                }
            }
            for client in order {
                guard let c = subscribers[client], let events = lines[client] else { continue }
                let grouped = engine.subscriptions[client]?.grouped == true
                var line: [UInt8] = []
                for (k, event) in events.enumerated() {
                    let last = k == events.count - 1
                    event.withUnsafeBytes { Self.frame($0, first: k == 0, last: last, grouped: grouped) { line += $0 } }
                    // A grouped subscriber's events are one line; another's, one line each.
                    if last || !grouped {
                        sent.append((c, line))
                        line = []
                    }
                }
            }
        }
        sent.append((connection, step.storeWriters.isEmpty ? step.withReplyBytes { Array($0) } : ServiceEngine.storeNotKept(id: step.requestID, writers: step.storeWriters)))
        return sent
    }

    /// A plugin's timer is due (plugin ABI 1.6): its hook runs, then what it asked for is
    /// done and committed, as after a client's request.
    /// Its events go out once that commit succeeded: one that failed undid what they tell.
    func fireTimer(_ timer: PluginTimer) {
        step.reset()
        engine.fireTimer(timer, into: &step)
        if commitOutsideTurn() { deliverEvents() }
    }

    // MARK: Reload

    /// Re-reads the config file and applies it as one transaction: prepared here
    /// (`prepareReload`), swapped in by the engine (`ServiceEngine.reload`), committed unless
    /// a turn is open (a `reload` command's turn commits it).
    public func reload() -> Result<ServiceEngine.ReloadReport, ConfigError> {
        let prepared = prepareReload()
        let result = outsideALine { $0.reload(prepared, into: &$1) }
        if !turnOpen { commitOutsideTurn() }
        return result
    }

    /// What a reload hands the engine, made once systemd is told it begins: the config file
    /// read again (with the running command line's overrides; the running configuration when
    /// tabd has no file) and its plugins prepared beside the running ones — files checked and
    /// loaded, new or changed plugins initialised. Nothing running changes here. A required
    /// plugin that would not run makes it a failure, and what was prepared is stopped again.
    func prepareReload() -> Result<ServiceEngine.PreparedReload, ConfigError> {
        hooks.reload(.begin)
        let running = engine.config
        var next = running
        if let path = running.path {
            do {
                next = try ServerConfig.load(path: path)
            } catch let error as ConfigError {
                return .failure(error)
            } catch {
                return .failure(ConfigError("\(path): \(error)"))
            }
            next.overrides = running.overrides
        }
        let prepared = plugins.prepare(next.plugins, directories: next.pluginDirectories)
        guard prepared.isUsable else {
            plugins.discard(prepared)
            return .failure(ConfigError(next.problems(requiredFailures: prepared.failures)))
        }
        return .success(ServiceEngine.PreparedReload(config: next, plugins: prepared))
    }
}

/// The engine's host while the adapter that is its host is being made (never asked).
private final class PendingHost: EngineHost {
    nonisolated(unsafe) static let shared = PendingHost()
    func peerGroups(of client: Client) throws -> [gid_t] { [] }
    var transportStatus: LineServer.Status { LineServer.Status() }
    var journalFigures: JournalFigures { JournalFigures(fsync: .no) }
}

@available(*, unavailable, message: "the service runs on the loop thread; other threads carry it as a LoopBound")
extension TabService: Sendable {}
