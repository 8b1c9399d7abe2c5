// The service: a decoded request → the controller state machine (asking the plugins where
// it must decide) → the journal → the reply, and events to subscribers. Runs on the loop
// thread only. Its jobs live in files of their own: ServiceTurns (lines in, turns
// committed or redone), ServiceDispatch (requests → replies), ServiceEvents
// (subscriptions and events), ServicePlugins (what plugins answer and ask for),
// ServiceRecovery (start, the journal and its faults), ServiceReload (reload).

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport
import TabState

public final class TabService: LineServiceDelegate {
    public internal(set) var containers: TabContainers
    public internal(set) var config: ServerConfig
    let store: StateStore
    let plugins: PluginHost
    /// `plugins` as the state machine's policy (an existential), boxed once here and passed
    /// to each command's `apply`: boxing it anew per command retained and released it each
    /// time. Reads (`state`) ask no plugin: they report what the last change decided.
    let policy: Policy
    let logger: Logger
    let version: String
    /// Set by the daemon: systemd notifications and the like around a reload.
    var onReload: (_ phase: ReloadPhase) -> Void = { _ in }
    public enum ReloadPhase { case begin, end(ok: Bool) }
    /// Set by the daemon: the journal cannot be written (the reason), or can again (nil).
    var onStateFault: (String?) -> Void = { _ in }
    /// Set by the daemon: runs `body` on the loop after `seconds`.
    var schedule: (_ seconds: Double, _ body: @escaping () -> Void) -> Void = { _, _ in }

    var subscribers: [UInt64: Connection] = [:]
    /// The selected paths replies named lately, encoded (`selectedPath(of:_:)`).
    var paths = EncodedPaths()
    /// The `state` replies given lately, encoded (`state(id:controller:)`).
    var states = EncodedStates()
    /// Big `state` replies: kept, and encoded off the loop (ServiceBigStates.swift).
    var bigStates = BigStates()
    let stateEncoder = DispatchQueue(label: "tabd.state-encoder")
    /// Runs a closure on the loop's thread (the loop's door); set by `Daemon`.
    var onLoop: @Sendable (@escaping @Sendable () -> Void) -> Void = { _ in }
    var w = JSONWriter(capacity: 4096)
    var ew = JSONWriter(capacity: 1024)
    /// The lines of the current turn, kept until it is committed: when its records cannot be
    /// made durable, its changes are undone and the lines handled again (changes refused).
    var turnLines = JSONWriter(capacity: 4096)
    var turnEntries: [(connection: Connection, start: Int, count: Int)] = []
    /// By entry: what a line whose effects lie outside the controllers (a plugin call: a login,
    /// a logout; a reload) sent, to every connection. Redoing the turn sends it again instead of
    /// running the line twice (a plugin cannot undo a failed login it counted).
    var turnReplays: [Int: [(Connection, [UInt8])]] = [:]
    /// While such a line runs: what it sends.
    var capture: [(Connection, [UInt8])]?
    /// While such a line runs: the plugins whose store it wrote (plugin ABI 1.6). Should the
    /// turn be redone, its reply is not sent again as it was: the writes were not made durable.
    var captureStoreWriters: Set<String> = []
    var turnOpen = false
    /// Selections plugins may still have applied in the chain of effects under way (what
    /// one command, call or timer sets off), and whether its excess was logged.
    var pluginSelectionsLeft = 0
    var pluginSelectionsCapLogged = false
    var stats = ServiceStats()
    /// The transport's figures for `stats` (connections, memory held, limits hit).
    public var transportStatus: () -> LineServer.Status = { LineServer.Status() }
    let instance = UInt64.random(in: 1...UInt64.max)

    /// The journal's retry: the delay before the next one, and whether one is scheduled.
    var retryDelay = 0.05
    var retryScheduled = false

    /// When the line being handled started: the read, or the end of the line before it.
    var lineStart: UInt64 = 0

    /// The clock of `lineStart` (ticks of the cycle counter where that is safe).
    var clock = LatencyClock()

    public init(config: ServerConfig, store: StateStore, plugins: PluginHost, logger: Logger, version: String) {
        self.config = config
        self.store = store
        self.plugins = plugins
        self.policy = plugins
        self.logger = logger
        self.version = version
        self.containers = .withDefault()
        plugins.storeWritable = { [store] in store.fault == nil }
        plugins.onTimer = { [unowned self] timer in fireTimer(timer) }
    }
}

@available(*, unavailable, message: "the service runs on the loop thread; other threads carry it as a LoopBound")
extension TabService: Sendable {}
