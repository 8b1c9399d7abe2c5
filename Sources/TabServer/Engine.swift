// The service's engine: tabd's behaviour as a value. Its input is a request line and the
// client who sent it (or a timer, the end of recovery, a reload the adapter prepared); its
// output a `Step` — the reply, the events for each subscriber, whether the request acted
// outside the state — and the journal records it appended to `journal`. It holds the
// controllers, the subscriptions, the memos of encoded replies and the counters.
//
// It does no I/O: it opens no file or socket, starts no process, never touches the loop,
// and asks the kernel nothing of anyone's credentials (it reads the clock, for `stats`).
// `TabService` (the transport's adapter) feeds it lines, delivers its steps, commits its
// journal and, when a commit fails, undoes the turn and sends it through again. For a
// reload the adapter reads the configuration file and prepares its plugins (loads their
// code, starts isolated plugins' helpers, runs their init), and hands the engine the result
// (`PreparedReload`). What else the engine knows of the world is handed in too: each line's
// peer credentials (read by the transport), a peer's supplementary groups and the figures
// of `stats` (asked of the host, `EngineHost`), tabd's own uid (read once by the daemon at
// start). The plugins are its policy: it calls their hooks through the plugin host, which
// runs their code (in tabd, or in an isolated plugin's helper) and, when the engine swaps
// in a reload's plugins, stops the ones they replace.
//
// Its jobs live in files of their own: EngineDispatch (requests → replies), EngineEvents
// (subscriptions and events), EnginePlugins (what plugins answer and ask for), EngineState
// (controllers created, the journal, faults, recovery and reload).
//
// Unit tests drive it with no sockets, processes or files (Tests/TabServerTests/EngineTests.swift),
// as swift-nio's EmbeddedChannel drives a handler: a reload too, its configuration parsed
// from text.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabState
import TabTransport

/// Who sent a request: the connection's id and the kernel's credentials for it.
public struct Client: Sendable {
    public var id: UInt64
    public var peer: PeerCredentials
    /// The relay the connection said it is in `hello` (`via`): never an administrator.
    public var via: String?

    public init(id: UInt64, peer: PeerCredentials, via: String? = nil) {
        self.id = id
        self.peer = peer
        self.via = via
    }
}

/// What the engine asks of the world around it, read by the host only when a request needs
/// it: the peer's supplementary groups (a system call, for admin_gids and plugin.call), and
/// the figures `stats` and `metrics` report of the transport and the journal.
public protocol EngineHost: AnyObject {
    func peerGroups(of client: Client) throws -> [gid_t]
    var transportStatus: LineServer.Status { get }
    var journalFigures: JournalFigures { get }
}

public enum ReloadPhase { case begin, end(ok: Bool) }

/// What one input made the engine do, besides the state and journal records it changed.
public struct Step: ~Copyable {
    /// The reply line to the sender (empty for an input that is not a request, or a reply
    /// deferred: `deferred`).
    public var reply = JSONWriter(capacity: 4096)
    /// The events, one line each, all in one buffer; `deliveries` says where each is and who
    /// gets it.
    public var events = JSONWriter(capacity: 1024)
    public var deliveries: [Delivery] = []
    /// The lists of subscribers events go to: one for a run of events that go to the same
    /// ones (a big set_tabs sends thousands of events to each of hundreds of subscribers:
    /// a delivery per event and subscriber held tens of MiB).
    public var recipients: [[UInt64]] = []
    /// The request acted outside the controllers (a plugin call, a reload): undoing its turn
    /// cannot undo that, so a redo sends its reply and plugin events again instead of running it.
    public var outsideState = false
    /// The plugins whose store the request wrote (plugin ABI 1.6).
    public var storeWriters: Set<String> = []
    /// A reply too big to encode on the loop (a big `state` or `preserve`): the adapter
    /// encodes it off the loop, or sends one kept for an equal controller.
    public var deferred: DeferredReply?
    /// The sender subscribed (true) or dropped its last subscription (false).
    public var subscribed: Bool?
    /// The sender said in `hello` that it relays for others (`via`).
    public var via: String?
    /// A reload ended, successfully or not (systemd's READY=1 and the status, said by the
    /// adapter once the engine is done).
    public var reloaded: Bool?
    /// A `reload` command asks for a reload: the adapter reads the configuration, prepares its
    /// plugins and hands them to `ServiceEngine.reload(_:answering:into:)` before it delivers
    /// the step, whose reply that fills.
    public var reloadAsked: ReloadAsked?
    /// The request's id (nil: none, or not a request).
    public var requestID: RequestID?
    /// The whole reply line kept by the `state` memo, sent as it is in place of `reply` (a
    /// `state` without an id answered from the memo: no copy into `reply`). Read it through
    /// `withReplyBytes`. The step stays `plain` (a step that is not pays for clearing every
    /// other member); delivery looks for it only when `reply` is empty.
    public internal(set) var keptReply: [UInt8]?
    /// Nothing but the reply was set (the common case, a select or a state): what sets any
    /// other member makes it false, and `reset` and the adapter's delivery then look at them.
    public internal(set) var plain = true

    public struct Delivery {
        /// `events[start ..< start + count]`, or a big event kept once for all who get it.
        public var start: Int, count: Int
        public var shared: SharedOutput?
        /// Who gets it: `recipients[self.recipients]`.
        public var recipients: Int
        /// A plugin's event: a redo of the turn sends it again (see `outsideState`).
        public var fromPlugin: Bool
    }

    /// A class: a `Controller` is a big value, and a step's optional copy of one was copied
    /// on every reset and every delivery (~90 instructions a select).
    public final class DeferredReply {
        public let controller: Controller
        public let kind: BigReply
        public let id: RequestID?
        init(controller: Controller, kind: BigReply, id: RequestID?) {
            self.controller = controller
            self.kind = kind
            self.id = id
        }
    }

    /// The `reload` command that asked (its reply's id).
    public struct ReloadAsked {
        public let id: RequestID?
    }

    public init() {}

    /// Ready for the next input (buffers grown by a huge reply or event are given back). The
    /// events' buffer keeps up to 4 MiB: a big set_tabs's thousands of events regrow it
    /// every time otherwise, and the heap's fragments from that cost 150 subscribers that do
    /// not read ~8 MiB of peak memory (HostileClientTests).
    @inline(__always)
    mutating func reset() {
        reply.reset(keepingAtMost: 1 << 20)
        if keptReply != nil { keptReply = nil }
        if !plain { resetTheRest() }
    }

    /// The reply's bytes: the memo's line, or what `reply` holds.
    @inline(__always)
    public func withReplyBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let kept = keptReply { return kept.withUnsafeBytes(body) }
        return reply.withBytes(body)
    }

    private mutating func resetTheRest() {
        if events.count > 0 { events.reset(keepingAtMost: 4 << 20) }
        if !deliveries.isEmpty {
            deliveries.removeAll(keepingCapacity: deliveries.count <= 1024)
            recipients.removeAll(keepingCapacity: true)
        }
        outsideState = false
        if !storeWriters.isEmpty { storeWriters.removeAll() }
        deferred = nil
        subscribed = nil
        via = nil
        reloaded = nil
        reloadAsked = nil
        requestID = nil
        plain = true
    }

    /// The bytes of a delivery.
    public func withBytes<R>(of d: Delivery, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let shared = d.shared { return shared.withBytes(body) }
        return events.withBytes { body(UnsafeRawBufferPointer(rebasing: $0[d.start..<(d.start + d.count)])) }
    }
}

public struct ServiceEngine: ~Copyable {
    public internal(set) var containers: TabContainers
    public internal(set) var config: ServerConfig
    let plugins: PluginHost
    /// `plugins` as the state machine's policy (an existential), boxed once here and passed
    /// to each command's `apply`: boxing it anew per command retained and released it each
    /// time. Reads (`state`) ask no plugin: they report what the last change decided.
    let policy: Policy
    unowned var host: EngineHost
    let logger: Logger
    let version: String
    /// The uid tabd runs as (its effective uid, read once by the daemon at start): its own
    /// user is an admin (`isAdmin`).
    let ownUID: uid_t
    let instance = UInt64.random(in: 1...UInt64.max)

    /// The records appended since the last commit (the adapter commits them).
    public var journal: JournalBatch
    /// Why the journal cannot be written (nil: it can): every change is refused meanwhile.
    public var fault: String?

    /// What each subscribed client wants.
    var subscriptions: [UInt64: Subscription] = [:]
    /// How many of them take a command's events as one line (`grouped`): while none does,
    /// the delivery asks no subscriber whether it does.
    var groupedSubscribers = 0
    /// Who gets the event being delivered (kept, with its capacity, from one to the next).
    var recipientScratch: [UInt64] = []
    /// The selected paths replies named lately, encoded (`selectedPath(of:_:)`).
    let paths = EncodedPaths()
    /// The `state` replies given lately, encoded.
    var states = EncodedStates()
    var stats = ServiceStats()

    /// Selections plugins may still have applied in the chain of effects under way (what
    /// one command, call or timer sets off), and whether its excess was logged.
    var pluginSelectionsLeft = 0
    var pluginSelectionsCapLogged = false
    /// What each plugin store key written since the last commit held before (nil: absent),
    /// by plugin and key: a commit that fails puts them back (`undoChanges`), as the
    /// controllers are put back, so that a plugin's store never holds what was refused.
    var storeBefore: [PluginStoreKey: String?] = [:]

    public init(config: ServerConfig, plugins: PluginHost, host: EngineHost, journal: consuming JournalBatch, logger: Logger, version: String, ownUID: uid_t) {
        self.config = config
        self.ownUID = ownUID
        self.plugins = plugins
        self.policy = plugins
        self.host = host
        self.journal = journal
        self.logger = logger
        self.version = version
        self.containers = .withDefault()
    }

    // MARK: Input: a request line

    /// Handles one line from `client`: its reply (and events) in `out`. Returns the
    /// command's `nameIndex` (for statistics), or `ServiceStats.invalid`. `client` is made
    /// only for a command that reads it (an admin check, `subscribe`, `plugin.call`, `hello`):
    /// a select, tap or state built it, its relay name retained and released, for nothing.
    @inline(__always)
    public mutating func handle(_ line: UnsafeRawBufferPointer, from client: @autoclosure () -> Client, into out: inout Step) -> Int {
        var common = false, name = CommandName.ping
        let request = RequestDecoder.decodeCommon(line, found: &common, name: &name)
        if common {
            // The requests clients send most, without the (id, Result) wrapping; none of
            // them acts outside the state. (R15's flat node commands, the fast path's since
            // issue 42, leave the step as the general path does (`runNode`), but for
            // open_drawer and close_drawer, which keep it plain as a select does: `runDrawer`.)
            run(request, from: client, into: &out)
            return name.index
        }
        let (id, result) = RequestDecoder.decodeInGeneral(line, maxDepth: config.maxJSONDepth)
        out.plain = false
        out.requestID = id
        switch result {
        case .failure(let error):
            stats.countError(error.code)
            ReplyEncoder.failure(id: id, error, into: &out.reply)
            return ServiceStats.invalid
        case .success(let request):
            out.outsideState = Self.actsOutsideState(request.command)
            run(request, from: client, into: &out)
            return request.command.nameIndex
        }
    }

    /// Commands whose effects an undone turn cannot take back (they are in plugins or the
    /// configuration): their output is kept for a redo instead of running them again.
    static func actsOutsideState(_ command: RequestCommand) -> Bool {
        switch command {
        case .boxed(.pluginCall), .reload: return true
        default: return false
        }
    }

    /// What a plugin call or reload that wrote plugins' stores answers should its turn be
    /// redone: its store writes were not made durable, so it is not acknowledged (a logout
    /// answered ok would come back as a login after kill -9).
    public static func storeNotKept(id: RequestID?, writers: Set<String>) -> [UInt8] {
        let plugins = writers.sorted().map { "'\($0)'" }.joined(separator: ", ")
        let error = ProtocolError(.unavailable, "the journal could not be written, so what plugin \(plugins) wrote to its store for this request was undone and nothing it announced is sent: try again once tabd takes changes (stats says when)")
        return ReplyEncoder.failure(id: id, error)
    }

    // MARK: Input: the transport's refusals

    /// The reply to a connection the transport refuses (it closes it after).
    public mutating func refusal(_ reason: InputRefusal, peer: PeerCredentials) -> [UInt8] {
        let error = switch reason {
        case .lineTooLong:
            ProtocolError(.tooLarge, "the request line is longer than \(config.maxLineBytes) bytes (limits.max_line_bytes); the connection will be closed")
        case .lineTimeout:
            ProtocolError(.invalidRequest, "the request line was not finished within \(config.lineTimeout.formatted) s (limits.line_timeout_seconds); the connection will be closed")
        case .overBudget:
            ProtocolError(.overloaded, "all clients together hold more than tabd allows them (five eighths of limits.memory_budget_bytes, \(config.memoryBudgetBytes / 8 * 5) of \(config.memoryBudgetBytes) bytes) and this connection held the most of those not taking their replies; it will be closed")
        case .tooManyConnections:
            ProtocolError(.overloaded, "every connection slot open to uid \(peer.uid) is taken (limits.max_connections less limits.admin_reserved_connections, kept for root and admins); the connection will be closed: try again once others closed")
        case .tooManyForUID:
            ProtocolError(.overloaded, "uid \(peer.uid) holds as many connections as one uid may (limits.max_connections_per_uid); the connection will be closed: close one of the others first")
        case .idle:
            ProtocolError(.invalidRequest, "the connection sent nothing and subscribed to nothing for \(config.idleTimeout.formatted) s (limits.idle_timeout_seconds); it will be closed")
        }
        stats.countError(error.code)
        return ReplyEncoder.failure(id: nil, error)
    }

    /// A client is gone: its subscriptions with it.
    public mutating func forget(_ client: UInt64) {
        if subscriptions.removeValue(forKey: client)?.grouped == true { groupedSubscribers -= 1 }
    }

    public mutating func connectionOpened() { stats.connectionsAccepted += 1 }

    @inline(__always)
    public mutating func record(_ nameIndex: Int, nanos: UInt64) { stats.record(nameIndex, nanos: nanos) }
}
