// The plugin chain as TabCore's `Policy`: loads the configured plugins, asks them in
// order, composes their answers (ARCHITECTURE.md, "Decision algebra"), times every hook
// and remembers the last decisions for `explain`.
//
// Composition:
//  - should_select: plugins are asked in load order; the first deny refuses (and ends
//    the question); a failing plugin counts as a deny; abstain never allows by itself —
//    when nobody allowed or denied, `defaultDecision` applies (allow).
//  - supported_orientations: each answer is intersected with what is left; abstain and
//    failure leave it as it is.
//  - preferred_orientation: the first plugin that answers wins.
//  - may_open_drawer (ABI 1.10): as should_select — load order, the first deny refuses, a
//    failing plugin denies, abstentions leave `defaultDecision`.
//  - top_column_for_collapsing, display_mode_for_expanding (ABI 1.11): a proposal folded in
//    load order — an answer replaces it, abstain, an invalid answer or a failure keeps it
//    (PluginSplit.swift).
//  - notifications go to every plugin that has the hook, in load order.

import CTabPolicy
import Glibc
import Logging
import TabJSON
import TabCore
import TabStrings
import TabSystem

public final class PluginHost: Policy {
    /// The plugin ABI tabd implements, "major.minor" (tabd/policy.h).
    public static let abiVersion = "\(TABD_POLICY_ABI_MAJOR).\(TABD_POLICY_ABI_MINOR)"

    /// Most plugin events / selections queued during one call into the host; more are
    /// dropped (logged).
    static let maxQueued = 10_000
    /// Largest event a plugin may emit.
    static let maxEventBytes = 64 << 10
    /// Largest call result a plugin may return.
    static let maxResultBytes = 1 << 20
    /// Deepest nesting accepted in JSON a plugin hands over: the daemon sets the limit
    /// client requests have (`limits.max_json_depth`).
    public var maxJSONDepth = 64
    /// Decisions kept for `explain` by default, per kind group (taps; orientations; timers):
    /// `plugins.explain_history`.
    public static let explainCapacity = 64

    let logger: Logger
    /// Where plugins may come from, as configured (resolved at each load or reload).
    public private(set) var directories: [String]
    /// What a tap gets when every plugin abstains (or none decides).
    public var defaultDecision: Decision = .allow
    /// Runs `body` on the loop after some seconds (the daemon's timers): isolated plugins'
    /// helpers are restarted with it. nil: a helper is restarted at the next hook instead.
    public var schedule: ((Double, @escaping () -> Void) -> Void)? {
        didSet { warnings.schedule = schedule }
    }
    /// What tabd says of the plugins' behaviour, once per period per plugin and kind
    /// (PluginWarnings.swift); the engine says its own through it too.
    public private(set) lazy var warnings = PluginWarnings(logger: logger)

    /// Marks which plugin hook runs, for the next start to name a plugin that crashed tabd.
    /// Set it before `load`; its quarantines apply to every load and reload.
    public var watch: PluginWatch? {
        didSet { marker = watch?.marker ?? unwatched }
    }
    /// Scratch for `marker` while there is no watch: this host's own word, written only on
    /// its loop (a shared static one would be global mutable memory).
    private let unwatched = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
    /// The word written before and after each hook (the watch's page, or scratch).
    private var marker: UnsafeMutablePointer<UInt64>

    /// A hook slower than this is logged at warning (plugins.slow_hook_ms).
    public var slowHookNanoseconds: UInt64 = 10_000_000 {
        didSet {
            for p in everMade { p.slowNanoseconds = slowHookNanoseconds }
            hot.slowNanoseconds = slowHookNanoseconds
        }
    }

    @inline(__always)
    func enter(_ plugin: PluginInstance, _ hook: PluginHook) { marker.pointee = plugin.mark | UInt64(hook.index + 1) }

    @inline(__always)
    func leave() { marker.pointee = 0 }

    /// Reaps helper processes that exited (call on SIGCHLD).
    public func reapHelpers() { RemotePlugin.reap() }

    /// One per configured spec, in configuration order.
    private var entries: [Entry] = []
    /// Code by real path: opened once, never closed.
    private var code: [String: PluginCode] = [:]
    /// Every instance ever made: plugins may keep their host table pointer.
    private var everMade: [PluginInstance] = []

    // The chains, per hook, in load order. Rebuilt when the configuration changes.
    private var selectChain: [(PluginInstance, PluginCode.ShouldSelect)] = []
    private var supportedChain: [(PluginInstance, @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, tabd_orientation_mask, UnsafeMutablePointer<tabd_orientation_mask>?) -> tabd_result)] = []
    private var preferredChain: [(PluginInstance, @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<tabd_orientation_mask>?) -> tabd_result)] = []
    private var drawerChain: [(PluginInstance, PluginCode.MayOpenDrawer)] = []
    var collapseChain: [(PluginInstance, PluginCode.TopColumnForCollapsing)] = []
    var expandChain: [(PluginInstance, PluginCode.DisplayModeForExpanding)] = []
    var notifyChain: [(PluginInstance, PluginCode.Notify)] = []
    private var running: [PluginInstance] = []

    // Per-call scratch, allocated once.
    let frame = CallFrame()
    let reply = UnsafeMutablePointer<tabd_reply>.allocate(capacity: 1)
    private let candidate = UnsafeMutablePointer<tabd_candidate>.allocate(capacity: 1)
    /// The path of a candidate outside any group: its own id.
    private let pathSlot = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
    /// A small ASCII candidate id as a C string (`smallCString`): 15 bytes and the NUL.
    private let idScratch = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)

    /// What plugins asked for (host functions `emit`, `request_select`) during the hooks of
    /// the current call into the host; handed to its caller as it returns (`hand`).
    private var pending: [PolicyEffect] = []
    private var pendingEvents = 0, pendingSelections = 0
    /// What every decision reads, together. (It was a raw block, for a class's stored property
    /// was read through an exclusivity check, ~60 instructions twice a tap; TabPlugins is built
    /// with the checks off in release, and as a stored property it measures the same:
    /// BENCHMARKS-HISTORY.md, "Unsafe code behind small doors".)
    private var hot = Hot()

    private struct Hot {
        /// `pending` holds something.
        var pending = false
        /// See `decidesOrientations`.
        var decidesOrientations = false
        /// See `watchesSelection`.
        var watchesSelection = false
        /// Some running plugin has did_select: else a tap's did-select is skipped whole (no
        /// candidate filled, no plugin walked), as it would call nothing.
        var hasDidSelect = false
        /// `selectChain` as the tap's loop reads it, link i for plugin i.
        var links = UnsafeMutableBufferPointer<SelectLink>(start: nil, count: 0)
        /// `slowHookNanoseconds` (every instance's `slowNanoseconds`), set from it in `init`.
        var slowNanoseconds: UInt64 = 0
    }

    /// One plugin of the should_select chain as a tap's loop reads it: its hook, state,
    /// counters and watch mark as plain values in raw memory, so that no instance is loaded
    /// (and retained, then released) around the hook; its name for the decision's answer.
    struct SelectLink {
        let hook: PluginCode.ShouldSelect
        let state: UnsafeMutableRawPointer?
        let counters: UnsafeMutablePointer<UInt64>
        let mark: UInt64
        let name: String

        /// Where `link` keeps its name (read there, not copied out).
        @inline(__always)
        static func name(of link: UnsafeMutablePointer<SelectLink>) -> UnsafePointer<String> {
            UnsafeRawPointer(link).advanced(by: nameOffset).assumingMemoryBound(to: String.self)
        }
        private static var nameOffset: Int { MemoryLayout<SelectLink>.offset(of: \SelectLink.name)! }
    }

    // The plugins' stores and timers (plugin ABI 1.6; PluginStore.swift).
    /// Each plugin's store, by plugin name: what store_get reads. The service hands over
    /// the containers' `pluginData` before plugins start (`adoptStore`), and keeps the
    /// containers' copy in step from the `.store` effects.
    var stores: [String: PluginStoreBox] = [:]
    /// Whether a store write can be made durable now (the service: its journal has no fault).
    public var storeWritable: () -> Bool = { true }
    /// What each plugin may write over time (plugin ABI 1.7); nil: no budget (an isolated
    /// plugin's helper, --check-config: tabd itself checks the writes it journals).
    public var storeBudget: PluginStoreBudget?
    /// Whether the journal takes plugins' writes now (false while it waits for a compaction).
    public var storeRoom: () -> Bool = { true }
    /// Arms a one-shot timer on the loop and returns what cancels it (the daemon's loop).
    /// nil: timers cannot be armed (set_timer answers TABD_ERROR).
    public var scheduleTimer: ((Double, @escaping () -> Void) -> (() -> Void))?
    /// Runs a due timer: the service lends its controller and calls `fire(_:in:)`.
    public var onTimer: ((PluginTimer) -> Void)?
    var timers: [PluginTimer.Key: PluginTimer.Armed] = [:]
    /// tabd is stopping: no timer fires or is armed any more (`stopTimers`).
    var timersStopped = false
    /// The names of the controllers tabd holds, in byte order (plugin ABI 1.7's
    /// `controller_at`; PluginControllers.swift).
    var controllerNames: [String] = []
    /// The running instances, in load order.
    var runningPlugins: [PluginInstance] { running }
    var timerGeneration: UInt64 = 0
    /// Some running plugin has selection_changed: the service then keeps a command's
    /// notifications to tell it (`selectionChanged`).
    public var watchesSelection: Bool { hot.watchesSelection }

    private var sequence: UInt64 = 0
    // One history per kind group, so that one group's flow (a plugin's 1 s tick, a client
    // rotating in a loop) cannot push another's records out: a denied tap stays until
    // `explainHistory` later taps.
    private var tapRecords = Ring<DecisionRecord>(capacity: PluginHost.explainCapacity)
    private var orientationRecords = Ring<DecisionRecord>(capacity: PluginHost.explainCapacity)
    private var timerRecords = Ring<DecisionRecord>(capacity: PluginHost.explainCapacity)
    /// Records `explain` keeps of each kind group (`plugins.explain_history`): a change keeps
    /// each group's newest records that fit.
    public var explainHistory = PluginHost.explainCapacity {
        didSet {
            guard explainHistory != oldValue else { return }
            tapRecords = tapRecords.resized(explainHistory)
            orientationRecords = orientationRecords.resized(explainHistory)
            timerRecords = timerRecords.resized(explainHistory)
        }
    }
    private var spareAnswers: [PluginAnswer] = []

    struct Entry {
        var name: String
        var spec: PluginSpec
        var path: String
        var instance: PluginInstance?
        var error: String?
        /// Not loaded: it crashed tabd too many times in a row (`error` says so).
        var quarantined = false

        /// What `plugins` shows of it (not whether its file is stale: that needs a stat).
        var status: PluginStatus {
            let c = instance?.code
            var status = PluginStatus(name: name, version: c?.version, description: c?.summary, path: path,
                                      hooks: c?.hookNames ?? [], loaded: error == nil && instance != nil,
                                      error: error, required: spec.required,
                                      abi: c.map { "\($0.abiMajor).\($0.abiMinor)" })
            status.isolation = spec.isolation
            status.quarantined = quarantined
            if let stats = instance?.stats {
                status.crashes = stats.crashes; status.timeouts = stats.timeouts; status.restarts = stats.restarts
            }
            return status
        }
    }

    /// `directories`: where plugins may be loaded from. Files, and every directory from /
    /// down to them, must be owned by root or by this process' effective user, and not
    /// writable by group or others (a sticky directory such as /tmp excepted).
    public init(directories: [String], logger: Logger) {
        self.directories = directories
        self.logger = logger
        marker = unwatched
        hot.slowNanoseconds = slowHookNanoseconds
    }

    deinit {
        unwatched.deallocate()
        freeLinks()
        reply.deallocate()
        candidate.deallocate()
        pathSlot.deallocate()
        idScratch.deallocate()
    }

    // MARK: Loading

    /// Loads `specs` in order (at start). A refused optional plugin is logged and listed in
    /// `plugins` with its reason; if a required one is refused, nothing is kept running and
    /// this throws (after trying them all).
    public func load(_ specs: [PluginSpec]) throws {
        let prepared = prepare(specs)
        let error = prepared.requiredError
        prepared.failures.removeAll()
        commit(prepared, controllers: [])
        if let error { throw error }
    }

    /// Prepares `specs` beside the running plugins, as `reload` and `--check-config` need:
    /// every file is checked and its code loaded, a plugin still configured with the same
    /// file and the same settings keeps its running instance (no fini, no init: what it
    /// holds, such as logins, survives), and every other one gets a new instance, initialised
    /// now. Nothing running changes: `commit` swaps the result in, `discard` stops what this
    /// started. Code loaded here stays loaded either way (nothing is dlclosed).
    /// `directories`: the plugin directories for these specs (nil: the current ones).
    public func prepare(_ specs: [PluginSpec], directories: [String]? = nil) -> PreparedPlugins {
        let directories = directories ?? self.directories
        let loader = PluginLoader(directories: directories)
        let prepared = PreparedPlugins(directories: directories)
        prepared.missingDirectories = directories.filter { PluginLoader.realPath($0) == nil }
        var names = Set<String>()
        for (index, spec) in specs.enumerated() {
            var entry = Entry(name: spec.name ?? Self.fileName(spec.path), spec: spec, path: spec.path)
            var code: PluginCode?
            var remote: RemotePlugin?
            var keptRemote: PluginInstance?
            do throws(Refusal) {
                let file = try Self.open(spec, with: loader)
                entry.path = file.path
                let c: PluginCode
                if spec.isolation == .process {
                    // Its own helper, unless the running one has the same file and settings.
                    if let same = running.first(where: { $0.remote.map { $0.spec == spec && $0.path == file.path && $0.identity == file.identity } ?? false }),
                       !prepared.carried.contains(ObjectIdentifier(same)) {
                        Sys.close(file.fd)
                        keptRemote = same
                        c = same.code
                    } else {
                        let r = try RemotePlugin(file: file, spec: spec, logger: logger)
                        r.schedule = schedule
                        remote = r
                        c = r.code
                    }
                } else if let q = watch?.quarantine(name: spec.name ?? "", path: file.path, identity: file.identity, required: spec.required) {
                    Sys.close(file.fd)
                    entry.name = spec.name ?? q.plugin
                    throw Refusal(q.why, quarantined: true)
                } else if let loaded = self.code[file.path] {
                    Sys.close(file.fd)
                    c = loaded
                    if !loaded.isFile(file) {
                        prepared.stale.append(PluginProblem(plugin: spec.name ?? loaded.name, path: file.path, required: spec.required, index: index,
                            message: "its file changed on disk since tabd loaded it; the code loaded then keeps running: restart tabd to run the new code"))
                    }
                } else {
                    c = try loader.load(file)
                    self.code[file.path] = c
                }
                entry.name = spec.name ?? c.name
                guard !names.contains(entry.name) else {
                    throw Refusal("another configured plugin is already named '\(entry.name)'; give one of them a different `name`")
                }
                let settings: CheckedJSON
                do { settings = try CheckedJSON(spec.configJSON, maxDepth: maxJSONDepth) } catch {
                    throw Refusal("its settings are not JSON tabd accepts (\(error.description))")
                }
                guard settings.isObject else { throw Refusal("its settings are not a JSON object") }
                code = c
            } catch {
                entry.error = error.description
                entry.quarantined = error.quarantined
            }
            names.insert(entry.name)
            if code == nil { remote?.stop() }
            if let c = code {
                if let same = keptRemote ?? (remote != nil ? nil : running.first(where: { $0.name == entry.name && $0.code === c && $0.spec.configJSON == spec.configJSON && $0.remote == nil })),
                   !prepared.carried.contains(ObjectIdentifier(same)) {
                    same.spec = spec
                    entry.instance = same
                    prepared.carried.insert(ObjectIdentifier(same))
                } else {
                    let instance = PluginInstance(name: entry.name, code: c, spec: spec, host: self)
                    instance.remote = remote
                    instance.slowNanoseconds = slowHookNanoseconds
                    instance.mark = remote == nil ? nextMark(for: instance) : 0
                    everMade.append(instance)
                    entry.instance = instance
                    if let why = instance.start(configJSON: spec.configJSON) {
                        entry.error = "init failed: \(why)"
                    } else {
                        prepared.started.append(instance)
                    }
                }
            }
            if let error = entry.error {
                let problem = PluginProblem(plugin: entry.name, path: entry.path, required: spec.required, index: index, message: error)
                if spec.required { prepared.failures.append(problem) } else { prepared.refused.append(problem) }
            }
            prepared.entries.append(entry)
        }
        return prepared
    }

    /// The watch page's slot for a new in-process instance (0 when the page is full).
    private func nextMark(for instance: PluginInstance) -> UInt64 {
        guard let watch else { return 0 }
        let used = Set(everMade.filter { $0.running || $0 === instance }.map(\.mark))
        guard let slot = (1...PluginWatch.slots).first(where: { !used.contains(UInt64($0) << 32) }) else { return 0 }
        watch.assign(slot, name: instance.name, path: instance.code.path, identity: instance.code.identity)
        return UInt64(slot) << 32
    }

    /// Stops what `prepare` started (a configuration that will not be used).
    public func discard(_ prepared: PreparedPlugins) {
        for instance in prepared.started { instance.stop() }
        prepared.started.removeAll()
    }

    /// Makes `prepared` the running plugins. Running instances it does not keep are stopped:
    /// first each is told, once per controller in `controllers`, that it is about to stop
    /// (`will_stop`, so it can announce what it drops — the login gate, who it logs out),
    /// then fini. Returns the names started, stopped and kept, and what the stopped plugins
    /// asked for as they stopped.
    @discardableResult
    public func commit(_ prepared: PreparedPlugins, controllers: [Controller]) -> PluginChanges {
        precondition(prepared.isUsable, "commit of a plugin set whose required plugins do not run")
        var changes = PluginChanges()
        let old = running
        directories = prepared.directories
        entries = prepared.entries
        running = entries.compactMap { $0.error == nil ? $0.instance : nil }
        rebuildChains()
        for p in old where !prepared.carried.contains(ObjectIdentifier(p)) {
            willStop(p, controllers: controllers)
            hand(&changes.effects)
            p.stop()
            changes.stopped.append(p.name)
            if let successor = running.first(where: { $0.name == p.name }) {
                // One plugin's counters go on across its instances (stats and metrics count up).
                successor.inheritCounters(from: p)
                // Its store as the old instance left it: an isolated successor's helper was
                // given its copy at init, before the old instance's will_stop and fini.
                successor.remote?.syncStore()
                logger.notice("plugin stopped: a new instance with its new settings or code took over", metadata: ["plugin.name": .string(p.name)])
            } else {
                logger.notice("plugin stopped: it is no longer configured", metadata: ["plugin.name": .string(p.name)])
            }
        }
        if !prepared.missingDirectories.isEmpty {
            logger.warning("plugin directories that do not exist are ignored", metadata: ["plugin.directories": .array(prepared.missingDirectories.map { .string($0) })])
        }
        for e in entries {
            if let error = e.error {
                logger.error("plugin refused: \(error)", metadata: [
                    "plugin.name": .string(e.name), "plugin.path": .string(e.path),
                    "plugin.required": .stringConvertible(e.spec.required),
                ])
            } else if let i = e.instance {
                if prepared.carried.contains(ObjectIdentifier(i)) {
                    changes.kept.append(i.name)
                    continue
                }
                changes.started.append(i.name)
                logger.notice("plugin loaded", metadata: [
                    "plugin.name": .string(i.name), "plugin.version": .string(i.code.version),
                    "plugin.path": .string(i.code.path), "plugin.hooks": .array(i.code.hookNames.map { .string($0) }),
                    "plugin.abi": .string("\(i.code.abiMajor).\(i.code.abiMinor)"),
                ])
            }
        }
        for s in prepared.stale {
            logger.warning("plugin file changed on disk; the code loaded at start keeps running until tabd restarts",
                           metadata: ["plugin.name": .string(s.plugin), "plugin.path": .string(s.path)])
        }
        prepared.started.removeAll()
        hand(&changes.effects)  // what the new instances' init asked for (store writes, ...)
        return changes
    }

    /// will_stop, once per controller, for a plugin about to be stopped by a reload.
    private func willStop(_ plugin: PluginInstance, controllers: [Controller]) {
        guard let hook = plugin.code.willStop, !controllers.isEmpty else { return }
        let frame = self.frame, opaque = frame.opaque
        for controller in controllers {
            withUnsafePointer(to: controller) { controllerPointer in
                frame.controller = controllerPointer
                let t0 = monotonicNanoseconds()
                enter(plugin, .willStop)
                hook(plugin.state, opaque)
                leave()
                plugin.count(.willStop, since: t0)
                frame.endHook()
                frame.controller = nil
            }
        }
    }

    /// `prepare`, then `commit` when every required plugin runs; else `discard` and throw
    /// (nothing running changed).
    @discardableResult
    public func reload(_ specs: [PluginSpec], directories: [String]? = nil, controllers: [Controller] = []) throws -> PluginChanges {
        let prepared = prepare(specs, directories: directories)
        guard prepared.isUsable else {
            discard(prepared)
            throw prepared.requiredError!
        }
        return commit(prepared, controllers: controllers)
    }

    /// Runs every plugin's fini (at shutdown).
    public func shutdown() {
        for p in running { p.stop() }
        running.removeAll()
        rebuildChains()
    }

    private func rebuildChains() {
        selectChain = running.compactMap { p in p.code.hooks.should_select.map { (p, $0) } }
        freeLinks()
        let links = UnsafeMutableBufferPointer<SelectLink>.allocate(capacity: selectChain.count)
        for (i, (p, hook)) in selectChain.enumerated() {
            (links.baseAddress! + i).initialize(to: SelectLink(hook: hook, state: p.state, counters: p.counters(of: .shouldSelect), mark: p.mark, name: p.name))
        }
        hot.links = links
        supportedChain = running.compactMap { p in p.code.hooks.supported_orientations.map { (p, $0) } }
        preferredChain = running.compactMap { p in p.code.hooks.preferred_orientation.map { (p, $0) } }
        drawerChain = running.compactMap { p in p.code.hooks.may_open_drawer.map { (p, $0) } }
        collapseChain = running.compactMap { p in p.code.hooks.top_column_for_collapsing.map { (p, $0) } }
        expandChain = running.compactMap { p in p.code.hooks.display_mode_for_expanding.map { (p, $0) } }
        notifyChain = running.compactMap { p in p.code.hooks.notify.map { (p, $0) } }
        hot.decidesOrientations = !supportedChain.isEmpty || !preferredChain.isEmpty
        hot.hasDidSelect = running.contains { $0.code.hooks.did_select != nil }
        hot.watchesSelection = running.contains { $0.code.hooks.selection_changed != nil }
    }

    private func freeLinks() {
        let links = hot.links
        guard let base = links.baseAddress else { return }
        base.deinitialize(count: links.count)
        links.deallocate()
        hot.links = UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    /// The checks before dlopen, for `configure` and `check` alike: the configured name,
    /// then where the file is, every directory above it, and the file itself (`PluginLoader.open`).
    private static func open(_ spec: PluginSpec, with loader: PluginLoader) throws(Refusal) -> CheckedFile {
        if let name = spec.name, !PluginCode.isValidName(name) {
            throw Refusal("the configured name '\(name)' is not 1–64 characters of A–Z, a–z, 0–9, '-', '_' or '.'")
        }
        return try loader.open(spec.path)
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    // MARK: What operators see

    /// Every configured plugin, in order, loaded or refused.
    public var plugins: [PluginStatus] {
        entries.map { e in
            var status = e.status
            status.stale = e.instance.map { !$0.code.isUnchangedOnDisk() } ?? false
            return status
        }
    }

    /// Counts and timings of the plugins in the configuration.
    public var stats: [PluginStats] { entries.compactMap { $0.instance?.stats } }

    /// The last `limit` decisions, oldest first.
    public func explain(limit: Int) -> [DecisionRecord] { explain(ExplainQuery(limit: limit)) }

    /// The last `query.limit` decisions that match its filters, oldest first.
    public func explain(_ query: ExplainQuery) -> [DecisionRecord] {
        let rings = query.kind.map { [ring(for: $0)] } ?? [tapRecords, orientationRecords, timerRecords]
        let all = rings.flatMap(\.elements).filter { r in
            (query.kind.map { r.kind == $0 } ?? true)
                && (query.controller.map { r.controller == $0 } ?? true)
                && (query.plugin.map { p in r.answers.contains { $0.plugin == p } } ?? true)
        }
        return Array(all.sorted { $0.sequence < $1.sequence }.suffix(max(0, query.limit)))
    }

    /// The history records of `kind` are kept in.
    private func ring(for kind: DecisionKind) -> Ring<DecisionRecord> {
        switch kind {
        case .shouldSelect, .mayOpenDrawer: tapRecords
        case .supportedOrientations, .preferredOrientation, .topColumnForCollapsing, .displayModeForExpanding: orientationRecords
        case .timer: timerRecords
        }
    }

    // MARK: Policy

    /// Some running plugin has an orientation hook. Set with the chains: the state machine
    /// reads it after every command.
    public var decidesOrientations: Bool { hot.decidesOrientations }

    public func shouldSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) -> Decision {
        let links = hot.links
        if links.isEmpty { return defaultDecision }
        defer { hand(&effects) }
        // The answers of the record the last decision evicted, overwritten in place (`put`).
        var answers: [PluginAnswer] = []
        swap(&answers, &spareAnswers)
        var allowed = false
        let id = candidate.id
        frame.controller = controller.pointer
        let denial = withCandidate(candidate, id: id, in: controller) { cand in
            askChain(links, cand, id: id, controller: controller, allowed: &allowed, answers: &answers)
        }
        frame.controller = nil
        if denial == nil && allowed {
            // A plugin allowed and none refused (a logged-in tap): the common answer, without
            // `conclusion`'s pair of enums (+73 instructions a tap, measured).
            record(.shouldSelect, controller, candidate: id, answers: &answers, final: .allow(byDefault: false))
            return .allow
        }
        let (decision, final) = conclusion(denial, allowed: allowed)
        record(.shouldSelect, controller, candidate: id, answers: &answers, final: final)
        return decision
    }

    /// A refusal: who refused, why, and the sentence for people. A struct, not a tuple: an
    /// optional tuple is handled through the runtime's generic witnesses on every tap.
    private struct Denial {
        var plugin: String, reason: String, message: String?
        init(_ plugin: String, _ reason: String, _ message: String?) { self.plugin = plugin; self.reason = reason; self.message = message }
    }

    /// A veto chain's decision (should_select, may_open_drawer) and its record's final answer:
    /// the refusal if any, else allow when a plugin allowed, else `defaultDecision`.
    private func conclusion(_ denial: Denial?, allowed: Bool) -> (Decision, DecisionRecord.Final) {
        if let denial {
            return (.deny(by: denial.plugin, reason: denial.reason, message: denial.message),
                    .deny(plugin: denial.plugin, reason: denial.reason, message: denial.message))
        }
        if allowed { return (.allow, .allow(byDefault: false)) }
        if case .deny(let by, let reason, let message) = defaultDecision {
            return (defaultDecision, .deny(plugin: by, reason: reason, message: message))
        }
        return (defaultDecision, .allow(byDefault: true))
    }

    /// A plugin's deny or failure of a veto: counted, its answer appended. Returns the deny,
    /// or nil and why it failed (the caller words the failure's refusal and warning).
    private func vetoed(_ result: tabd_result, by plugin: PluginInstance, nanoseconds dt: UInt64,
                        answers: inout [PluginAnswer]) -> (denial: Denial?, why: String) {
        if result == TABD_DENY {
            plugin.denials += 1
            let reason = reply.pointee.reason.map { HookCaps.text($0) } ?? "denied"
            let message = reply.pointee.message.map { HookCaps.text($0) }
            answers.append(PluginAnswer(plugin: plugin.name, answer: .deny(reason: reason, message: message), nanoseconds: dt))
            return (Denial(plugin.name, reason, message), "")
        }
        plugin.failures += 1
        let why = result == TABD_ERROR
            ? (reply.pointee.message.map { HookCaps.text($0) } ?? "it returned TABD_ERROR")
            : "it returned \(result.rawValue), not TABD_ALLOW, TABD_DENY or TABD_ABSTAIN"
        answers.append(PluginAnswer(plugin: plugin.name, answer: .failed(why), nanoseconds: dt))
        return (nil, why)
    }

    /// `s` as a C string in the host's scratch when it is a small ASCII string (its two words,
    /// the discriminator cleared: the bytes past its length are zero), else nil.
    @inline(__always)
    private func smallCString(_ s: String) -> UnsafePointer<CChar>? {
        guard let (low, high) = SmallASCII.words(s) else { return nil }
        let scratch = idScratch
        scratch[0] = low
        scratch[1] = high & 0x00FF_FFFF_FFFF_FFFF
        return UnsafeRawPointer(scratch).assumingMemoryBound(to: CChar.self)
    }

    /// Asks the should_select chain about `cand` in load order until one refuses; puts
    /// answer i, plugin i's, at i of `answers` (dropping what follows from an earlier
    /// decision). Returns the refusal (a deny, or a failure counted as one).
    @inline(__always)
    private func askChain(_ links: UnsafeMutableBufferPointer<SelectLink>, _ cand: UnsafeMutablePointer<tabd_candidate>,
                          id: String, controller: LentController, allowed: inout Bool, answers: inout [PluginAnswer]) -> Denial? {
        let reply = self.reply, frame = self.frame, opaque = frame.opaque, marker = self.marker
        let slowNanoseconds = hot.slowNanoseconds, hookMark = UInt64(PluginHook.shouldSelect.index + 1)
        var denial: Denial?
        // One clock read per boundary: a plugin's time includes the host's bookkeeping of the
        // call before it (a few ns).
        var t0 = monotonicNanoseconds()
        for i in 0..<links.count {
            let link = links.baseAddress! + i
            reply.pointee = tabd_reply(struct_size: MemoryLayout<tabd_reply>.size, reason: nil, message: nil, json: nil)
            marker.pointee = link.pointee.mark | hookMark
            let result = link.pointee.hook(link.pointee.state, opaque, cand, reply)
            marker.pointee = 0
            let t1 = monotonicNanoseconds()
            let dt = t1 &- t0
            t0 = t1
            PluginInstance.add(dt, to: link.pointee.counters)
            if dt > slowNanoseconds { selectChain[i].0.slow(.shouldSelect, dt) }
            if result == TABD_ALLOW {
                allowed = true
                answers.put(i, plugin: SelectLink.name(of: link), .allow, nanoseconds: dt)
            } else if result == TABD_ABSTAIN {
                answers.put(i, plugin: SelectLink.name(of: link), .abstain, nanoseconds: dt)
            } else {
                answers.keep(first: i)
                denial = refusal(result, by: selectChain[i].0, nanoseconds: dt, id: id, controller: controller, answers: &answers)
            }
            frame.endHook()
            if denial != nil { break }
        }
        if denial == nil { answers.keep(first: links.count) }
        return denial
    }

    /// A plugin's deny or failure of a tap: counted, its answer appended.
    @inline(never)
    private func refusal(_ result: tabd_result, by plugin: PluginInstance, nanoseconds dt: UInt64, id: String,
                         controller: LentController, answers: inout [PluginAnswer]) -> Denial {
        let (denial, why) = vetoed(result, by: plugin, nanoseconds: dt, answers: &answers)
        if let denial { return denial }
        warnings.warn("should_select failed", subject: plugin.name, "plugin failed deciding a tap; counted as a refusal", metadata: [
            "plugin.name": .string(plugin.name), "controller": .string(controller.pointer.pointee.name),
            "tab": .string(id), "error": .string(why),
        ])
        return Denial(plugin.name, "plugin failed: \(why)",
                "'\(plugin.name)' failed deciding whether '\(id)' can be selected, so it is not: \(why)")
    }

    /// R15.26: a user's open of a drawer, asked of the may_open_drawer chain (ABI 1.10) like
    /// a tap of should_select: in load order until one refuses; a failure (an error, a value
    /// out of the enum, an isolated helper's crash or timeout) refuses, naming the plugin.
    /// There is no tab controller to lend: emit and request_select refuse; what else the
    /// plugins ask for (store writes) waits in `pending` for the engine (`takeEffects`).
    public func mayOpenDrawer(side: DrawerSide, gesture: DrawerGesture, controller: String) -> Decision {
        let chain = drawerChain
        if chain.isEmpty { return defaultDecision }
        var answers = takeAnswerBuffer()
        var allowed = false
        var denial: Denial?
        let reply = self.reply, frame = self.frame
        controller.withCString { name in
            side.rawValue.withCString { s in
                gesture.rawValue.withCString { g in
                    var open = tabd_drawer_open(struct_size: MemoryLayout<tabd_drawer_open>.size, controller: name, side: s, gesture: g)
                    var t0 = monotonicNanoseconds()
                    for (plugin, hook) in chain {
                        reply.pointee = tabd_reply(struct_size: MemoryLayout<tabd_reply>.size, reason: nil, message: nil, json: nil)
                        enter(plugin, .mayOpenDrawer)
                        let result = hook(plugin.state, &open, reply)
                        leave()
                        let t1 = monotonicNanoseconds()
                        let dt = t1 &- t0
                        t0 = t1
                        plugin.count(.mayOpenDrawer, nanoseconds: dt)
                        if result == TABD_ALLOW {
                            allowed = true
                            answers.append(PluginAnswer(plugin: plugin.name, answer: .allow, nanoseconds: dt))
                        } else if result == TABD_ABSTAIN {
                            answers.append(PluginAnswer(plugin: plugin.name, answer: .abstain, nanoseconds: dt))
                        } else {
                            denial = drawerRefusal(result, by: plugin, nanoseconds: dt, side: side, controller: controller, answers: &answers)
                        }
                        frame.endHook()
                        if denial != nil { break }
                    }
                }
            }
        }
        let (decision, final) = conclusion(denial, allowed: allowed)
        sequence += 1
        var first: [PluginAnswer] = []
        swap(&first, &answers)
        let record = DecisionRecord(sequence: sequence, controller: controller, kind: .mayOpenDrawer, candidate: side.rawValue,
                                    proposed: nil, answers: first, final: final, gesture: gesture.rawValue)
        tapRecords.push { record } reuse: { $0 = record }
        return decision
    }

    /// A plugin's deny or failure of a drawer's open: counted, its answer appended.
    private func drawerRefusal(_ result: tabd_result, by plugin: PluginInstance, nanoseconds dt: UInt64, side: DrawerSide,
                               controller: String, answers: inout [PluginAnswer]) -> Denial {
        let (denial, why) = vetoed(result, by: plugin, nanoseconds: dt, answers: &answers)
        if let denial { return denial }
        warnings.warn("may_open_drawer failed", subject: plugin.name, "plugin failed deciding a drawer's open; counted as a refusal", metadata: [
            "plugin.name": .string(plugin.name), "controller": .string(controller), "side": .string(side.rawValue), "error": .string(why),
        ])
        return Denial(plugin.name, "plugin failed: \(why)",
                "'\(plugin.name)' failed deciding whether the \(side.rawValue) drawer of '\(controller)' can be opened, so it is not: \(why)")
    }

    public func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask {
        let chain = supportedChain
        if chain.isEmpty { return proposed }
        defer { hand(&effects) }
        var mask = proposed.rawValue
        var answers = takeAnswerBuffer()
        let frame = self.frame, opaque = frame.opaque
        do {
            let controllerPointer = controller.pointer
            frame.controller = controllerPointer
            var t0 = monotonicNanoseconds()
            for (plugin, hook) in chain {
                var out: tabd_orientation_mask = 0
                enter(plugin, .supportedOrientations)
                let result = hook(plugin.state, opaque, mask, &out)
                leave()
                let t1 = monotonicNanoseconds()
                let dt = t1 &- t0
                t0 = t1
                plugin.count(.supportedOrientations, nanoseconds: dt)
                switch result {
                case TABD_OK:
                    let answer = out & UInt32(TABD_ORIENTATION_ALL)
                    mask &= answer
                    answers.append(PluginAnswer(plugin: plugin.name, answer: .orientations(OrientationMask(rawValue: answer)), nanoseconds: dt))
                case TABD_ABSTAIN:
                    answers.append(PluginAnswer(plugin: plugin.name, answer: .abstain, nanoseconds: dt))
                default:
                    plugin.failures += 1
                    answers.append(PluginAnswer(plugin: plugin.name, answer: .failed("it returned \(result.rawValue), not TABD_OK or TABD_ABSTAIN"), nanoseconds: dt))
                }
                frame.endHook()
            }
            frame.controller = nil
        }
        let result = OrientationMask(rawValue: mask)
        record(.supportedOrientations, controller, proposed: proposed, answers: &answers, final: .orientations(result))
        return result
    }

    public func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation? {
        let chain = preferredChain
        if chain.isEmpty { return nil }
        defer { hand(&effects) }
        var preferred: Orientation?
        var answers = takeAnswerBuffer()
        let frame = self.frame, opaque = frame.opaque
        do {
            let controllerPointer = controller.pointer
            frame.controller = controllerPointer
            var t0 = monotonicNanoseconds()
            for (plugin, hook) in chain {
                var out: tabd_orientation_mask = 0
                enter(plugin, .preferredOrientation)
                let result = hook(plugin.state, opaque, &out)
                leave()
                let t1 = monotonicNanoseconds()
                let dt = t1 &- t0
                t0 = t1
                plugin.count(.preferredOrientation, nanoseconds: dt)
                frame.endHook()
                if result == TABD_ABSTAIN {
                    answers.append(PluginAnswer(plugin: plugin.name, answer: .abstain, nanoseconds: dt))
                    continue
                }
                if result == TABD_OK, let o = Orientation.allCases.first(where: { $0.mask.rawValue == out }) {
                    answers.append(PluginAnswer(plugin: plugin.name, answer: .preferred(o), nanoseconds: dt))
                    preferred = o
                    break
                }
                plugin.failures += 1
                answers.append(PluginAnswer(plugin: plugin.name, answer: .failed(result == TABD_OK
                    ? "it answered \(out), not one TABD_ORIENTATION_* bit" : "it returned \(result.rawValue), not TABD_OK or TABD_ABSTAIN"),
                    nanoseconds: dt))
            }
            frame.controller = nil
        }
        record(.preferredOrientation, controller, answers: &answers, final: .preferred(preferred))
        return preferred
    }

    public func didSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        guard hot.hasDidSelect else { return }
        withCandidate(candidate, id: candidate.id, in: controller) { cand in
            notify(.didSelect, controller) { p, c in
                guard let hook = p.code.hooks.did_select else { return false }
                hook(p.state, c, cand)
                return true
            }
        }
    }

    public func willBeginCustomizing(tabs: [String], in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        withCStrings(tabs) { ids, n in
            notify(.willBeginCustomizing, controller) { p, c in
                guard let hook = p.code.hooks.will_begin_customizing else { return false }
                hook(p.state, c, ids, n)
                return true
            }
        }
    }

    public func willEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        withCStrings(tabs) { ids, n in
            notify(.willEndCustomizing, controller) { p, c in
                guard let hook = p.code.hooks.will_end_customizing else { return false }
                hook(p.state, c, ids, n, changed ? 1 : 0)
                return true
            }
        }
    }

    public func didEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        withCStrings(tabs) { ids, n in
            notify(.didEndCustomizing, controller) { p, c in
                guard let hook = p.code.hooks.did_end_customizing else { return false }
                hook(p.state, c, ids, n, changed ? 1 : 0)
                return true
            }
        }
    }

    public func visibilityChanged(_ tabs: [TabVisibility], in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        withCStrings(tabs.map(\.id)) { ids, n in
            var entries = (0..<n).map { tabd_visibility(id: ids[$0], hidden: tabs[$0].hidden ? 1 : 0) }
            entries.withUnsafeMutableBufferPointer { buffer in
                notify(.visibilityChanged, controller) { p, c in
                    guard let hook = p.code.hooks.visibility_changed else { return false }
                    hook(p.state, c, buffer.baseAddress, n)
                    return true
                }
            }
        }
    }

    public func displayOrderChanged(group: String?, order: [String], in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        withCStrings(order) { ids, n in
            withOptionalCString(group) { g in
                notify(.displayOrderChanged, controller) { p, c in
                    guard let hook = p.code.hooks.display_order_changed else { return false }
                    hook(p.state, c, g, ids, n)
                    return true
                }
            }
        }
    }

    /// Fills the candidate struct for `candidate` (its path too, since 1.4) for the length of
    /// `body`. A tab outside any group has a path of one id: itself, with no allocation, and a
    /// small ASCII id is written into scratch as its two words (inlined: what a closure
    /// around the hook captured was retained and released around it, ~250 instructions a tap).
    /// `id`: the candidate's id (`candidate.id`, which the caller has at hand).
    @inline(__always)
    private func withCandidate<R>(_ candidate: Candidate, id: String, in controller: LentController, _ body: (UnsafeMutablePointer<tabd_candidate>) -> R) -> R {
        let cand = self.candidate, slot = self.pathSlot
        let index: Int, isMore: Int32
        switch candidate {
        case .tab(_, let i): index = i; isMore = 0
        case .more: index = -1; isMore = 1
        }
        // Since 1.6: whether it is the search tab (R14.1); only an arranged controller has one.
        let isSearch: Int32 = controller.pointer.pointee.arranged && controller.pointer.pointee.isSearchTab(id) ? 1 : 0
        func fill(_ id: UnsafePointer<CChar>, _ path: UnsafePointer<UnsafePointer<CChar>?>, _ count: Int) -> R {
            cand.pointee = tabd_candidate(struct_size: MemoryLayout<tabd_candidate>.size, id: id,
                                          index: index, is_more: isMore,
                                          path: path, path_count: count, is_search: isSearch)
            return body(cand)
        }
        if controller.pointer.pointee.arranged, case .tab(let tab, _) = candidate, let path = controller.pointer.pointee.path(of: tab), path.count > 1 {
            return id.withCString { id in withCStrings(path) { ids, n in fill(id, ids, n) } }
        }
        if let small = smallCString(id) {
            slot.pointee = small
            return fill(small, UnsafePointer(slot), 1)
        }
        return id.withCString { id in
            slot.pointee = id
            return fill(id, UnsafePointer(slot), 1)
        }
    }

    /// Calls `body` for every running plugin with the controller set up; `body` returns
    /// whether the plugin had the hook (then it was timed).
    func notify(_ hook: PluginHook, _ controller: LentController, _ body: (PluginInstance, OpaquePointer) -> Bool) {
        guard !running.isEmpty else { return }
        let frame = self.frame, opaque = frame.opaque
        do {
            let controllerPointer = controller.pointer
            frame.controller = controllerPointer
            for plugin in running {
                let t0 = monotonicNanoseconds()
                enter(plugin, hook)
                let had = body(plugin, opaque)
                leave()
                if had { plugin.count(hook, since: t0) }
                frame.endHook()
            }
            frame.controller = nil
        }
    }

    func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>, Int) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer { for p in copies { free(p) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!, strings.count) }
    }

    func withOptionalCString(_ s: String?, _ body: (UnsafePointer<CChar>?) -> Void) {
        guard let s else { return body(nil) }
        s.withCString { body($0) }
    }

    // MARK: plugin.call

    /// Runs a plugin-defined method. `argsJSON` must be a JSON object. The result is compact
    /// JSON text that JSONParser accepted; output it refuses is `internal` (naming the plugin
    /// and the method), a refusal `denied` (naming the plugin), a plugin error
    /// `invalid_request`, an unknown plugin or method `not_found`. `caller`: the client that
    /// asked, which the plugin may read during the hook (nil: no client did).
    public func call(plugin name: String, method: String, argsJSON: String, controller: Controller,
                     caller: PluginCaller? = nil) -> PluginCallReply {
        guard case .object(let args)? = try? JSONParser.parse(argsJSON, maxDepth: maxJSONDepth) else {
            return PluginCallReply(result: .failure(TabError(.invalid, "args for '\(name)' must be a JSON object")))
        }
        return call(plugin: name, method: method, args: args, controller: controller, caller: caller)
    }

    /// `call` with arguments the client parser already accepted (a request's `args`): they
    /// are written once, straight into the text the hook reads.
    public func call(plugin name: String, method: String, args: JSONObject, controller: Controller,
                     caller: PluginCaller? = nil) -> PluginCallReply {
        var reply = PluginCallReply(result: answer(plugin: name, method: method, args: args, controller: controller, caller: caller))
        hand(&reply.effects)
        return reply
    }

    /// What a client is told of a method the plugin does not have (TABD_UNKNOWN_METHOD, or no
    /// `call` hook at all): one sentence, in tabd's words.
    static func unknownMethod(_ method: String, of plugin: String) -> TabError {
        TabError(.notFound, "plugin '\(plugin)' has no method '\(method)'", plugin: plugin)
    }

    private func answer(plugin name: String, method: String, args: JSONObject, controller: Controller,
                        caller: PluginCaller?) -> Result<String, TabError> {
        frame.caller = caller
        defer { frame.caller = nil }
        guard let plugin = running.first(where: { $0.name == name }) else {
            if let e = entries.first(where: { $0.name == name }), let error = e.error {
                return .failure(TabError(.notFound, "plugin '\(name)' is not loaded: \(error)"))
            }
            return .failure(TabError(.notFound, "no plugin named '\(name)' is loaded"))
        }
        guard let hook = plugin.code.hooks.call else {
            return .failure(Self.unknownMethod(method, of: name))
        }
        var argsText = JSONWriter(capacity: 256)
        argsText.write(.object(args))
        let reply = self.reply, frame = self.frame, opaque = frame.opaque
        reply.pointee = tabd_reply(struct_size: MemoryLayout<tabd_reply>.size, reason: nil, message: nil, json: nil)
        var outcome: Result<String, TabError> = .success("{}")
        withUnsafePointer(to: controller) { controllerPointer in
            frame.controller = controllerPointer
            let t0 = monotonicNanoseconds()
            enter(plugin, .call)
            let result = method.withCString { m in argsText.withCString { a in hook(plugin.state, opaque, m, a, reply) } }
            leave()
            plugin.count(.call, since: t0)
            let message = reply.pointee.message.map { HookCaps.text($0) }
            switch result {
            case TABD_OK:
                if let json = reply.pointee.json {
                    do throws(Refusal) {
                        outcome = .success(try CheckedJSON(json, maxBytes: PluginHost.maxResultBytes, maxDepth: maxJSONDepth).text)
                    } catch {
                        plugin.failures += 1
                        warnings.warn("call result refused", subject: name, "plugin answered a call with JSON tabd does not accept; the client gets an internal error", metadata: [
                            "plugin.name": .string(name), "plugin.method": .string(method), "error": .string(error.description),
                        ])
                        outcome = .failure(TabError(.internal, "plugin '\(name)' answered '\(method)' with JSON tabd does not accept (\(error.description)); the plugin needs fixing",
                                                    plugin: name, method: method))
                    }
                }
            case TABD_DENY:
                plugin.callRefusals += 1
                let reason = reply.pointee.reason.map { HookCaps.text($0) } ?? message ?? "denied"
                outcome = .failure(TabError(.denied, message ?? "'\(name)' refused '\(method)'", plugin: name, reason: reason))
            case TABD_UNKNOWN_METHOD:
                // tabd's words, whatever the plugin set: the same sentence from every plugin,
                // C or Swift, with or without a `call` hook.
                outcome = .failure(Self.unknownMethod(method, of: name))
            case TABD_ERROR:
                outcome = .failure(TabError(.invalid, message ?? "'\(name)' could not do '\(method)'", plugin: name))
            default:
                plugin.failures += 1
                outcome = .failure(TabError(.invalid, "plugin '\(name)' failed: '\(method)' returned \(result.rawValue)", plugin: name))
            }
            frame.endHook()
            frame.controller = nil
        }
        return outcome
    }

    // MARK: What plugins asked for

    /// Hands what plugins asked for during this call into the host to its caller (appended
    /// to `effects`), in the order they asked.
    @inline(__always)
    func hand(_ effects: inout [PolicyEffect]) {
        if hot.pending { handPending(&effects) }
    }

    /// What plugins asked for outside any call that hands it over (init at start, a timer):
    /// taken by the service, which does it.
    public func takeEffects() -> [PolicyEffect] {
        var effects: [PolicyEffect] = []
        hand(&effects)
        return effects
    }

    private func handPending(_ effects: inout [PolicyEffect]) {
        hot.pending = false
        effects.append(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
        pendingEvents = 0
        pendingSelections = 0
    }

    func enqueue(event json: String, from plugin: PluginInstance, controller: String) -> Bool {
        guard pendingEvents < Self.maxQueued else {
            warnings.warn("events queued", subject: plugin.name, "too many plugin events queued; dropped", metadata: ["plugin.name": .string(plugin.name)])
            return false
        }
        pendingEvents += 1
        pending.append(.event(plugin: plugin.name, controller: controller, dataJSON: json))
        hot.pending = true
        return true
    }

    func enqueue(store key: String, value: String?, from plugin: PluginInstance) {
        pending.append(.store(plugin: plugin.name, key: key, value: value))
        hot.pending = true
    }

    func enqueue(selection target: SelectTarget, from plugin: PluginInstance, controller: String) -> Bool {
        guard pendingSelections < Self.maxQueued else {
            warnings.warn("selections queued", subject: plugin.name, "too many plugin selections queued; dropped", metadata: ["plugin.name": .string(plugin.name)])
            return false
        }
        pendingSelections += 1
        pending.append(.select(controller: controller, target: target))
        hot.pending = true
        return true
    }

    // MARK: explain

    func record(_ kind: DecisionRecord.Kind, _ controller: LentController, candidate: String? = nil,
                        proposed: OrientationMask? = nil, answers: inout [PluginAnswer], final: DecisionRecord.Final) {
        sequence += 1
        let sequence = self.sequence
        let name = controller.namePointer
        // Once the ring is full, the oldest record is overwritten field by field where it lies
        // (no record moved, none destroyed whole: that went through its metadata), its answer
        // buffer kept for the next decision: a decision then allocates nothing.
        (kind == .shouldSelect ? tapRecords : orientationRecords).push {
            var first: [PluginAnswer] = []
            swap(&first, &answers)
            return DecisionRecord(sequence: sequence, controller: name.pointee, kind: kind, candidate: candidate,
                                  proposed: proposed, answers: first, final: final)
        } reuse: { r in
            r.sequence = sequence
            // Most decisions are about the controller the record they replace was about: its
            // name is compared where the controller keeps it, and copied only when it differs.
            assignIfChanged(&r.controller, to: name)
            r.kind = kind
            assignIfChanged(&r.candidate, candidate)
            r.proposed = proposed
            swap(&r.answers, &answers)
            r.final = final
            swap(&spareAnswers, &answers)
        }
    }

    /// A split proposal's fold, for `explain` (kept with the orientations: the environment's).
    func recordProposal(_ kind: DecisionKind, controller: String, split: DecisionRecord.SplitProposal,
                        answers: inout [PluginAnswer], result: String) {
        sequence += 1
        var first: [PluginAnswer] = []
        swap(&first, &answers)
        var record = DecisionRecord(sequence: sequence, controller: controller, kind: kind, candidate: nil,
                                    proposed: nil, answers: first, final: .proposal(result))
        record.split = split
        orientationRecords.push { record } reuse: { $0 = record }
    }

    /// A timer's run, for `explain` (a history of its own: ticks push out no tap).
    func recordTimer(_ timer: PluginTimer, answers: inout [PluginAnswer], ok: Bool) {
        sequence += 1
        var first: [PluginAnswer] = []
        swap(&first, &answers)
        let record = DecisionRecord(sequence: sequence, controller: timer.controller ?? "", kind: .timer, candidate: timer.name,
                                    proposed: nil, answers: first, final: .ran(ok: ok))
        timerRecords.push { record } reuse: { $0 = record }
    }

    /// An empty answer buffer, reusing an evicted record's storage when there is one.
    func takeAnswerBuffer() -> [PluginAnswer] {
        var answers: [PluginAnswer] = []
        swap(&answers, &spareAnswers)
        // One by one: a chain has a plugin or two, and removeAll(keepingCapacity:) costs a
        // replaceSubrange (~170 instructions).
        answers.keep(first: 0)
        return answers
    }
}

/// A fixed-size buffer keeping the last `capacity` elements, in memory of its own (no array:
/// no uniqueness check per decision).
final class Ring<Element> {
    private let storage: UnsafeMutablePointer<Element>
    private var count = 0
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Appends `make()` while the ring is not full; then `reuse` turns the oldest element,
    /// in place, into the one appended.
    @inline(__always)
    func push(_ make: () -> Element, reuse: (inout Element) -> Void) {
        if count < capacity {
            (storage + count).initialize(to: make())
            count += 1
        } else {
            reuse(&storage[next])
        }
        next = next + 1 == capacity ? 0 : next + 1
    }

    /// A ring of `capacity` holding this one's newest elements that fit.
    func resized(_ capacity: Int) -> Ring {
        let ring = Ring(capacity: capacity)
        for e in elements.suffix(capacity) { ring.push { e } reuse: { $0 = e } }
        return ring
    }

    /// Oldest first.
    var elements: [Element] {
        let all = UnsafeBufferPointer(start: storage, count: count)
        return count < capacity ? Array(all) : Array(all[next...]) + Array(all[..<next])
    }
}

/// `field = value` unless they are already the same string (the same bits: the same storage
/// or the same small string), when the assignment would only retain one and release the other.
@inline(__always)
func assignIfChanged(_ field: inout String?, _ value: String?) {
    withUnsafePointer(to: value) { assignIfChanged(&field, to: $0) }
}

/// `field = value.pointee` unless they are the same string, compared where `value` lies: it
/// is not even loaded (retained) then.
@inline(__always)
func assignIfChanged(_ field: inout String, to value: UnsafePointer<String>) {
    if !sameBits(&field, value) { field = value.pointee }
}

@inline(__always)
func assignIfChanged(_ field: inout String?, to value: UnsafePointer<String?>) {
    if !sameBits(&field, value) { field = value.pointee }
}

/// Whether two strings (String, String?: two words whose bits say which value it is) have the
/// same bits — the same storage, or the same small string. Only for those two types: the size
/// check below is a constant, and it stops a build that gives them another layout at once.
@inline(__always)
private func sameBits<S>(_ field: inout S, _ value: UnsafePointer<S>) -> Bool {
    typealias Words = (UInt64, UInt64)
    precondition(MemoryLayout<S>.size == MemoryLayout<Words>.size && (S.self == String.self || S.self == String?.self),
                 "sameBits compares two-word strings only")
    let new = UnsafeRawPointer(value).load(as: Words.self)
    let old = withUnsafeBytes(of: &field) { $0.load(as: Words.self) }
    return old == new
}

extension [PluginAnswer] {
    /// Answer `k` of a buffer holding an earlier decision's answers: the one there overwritten
    /// in place (its plugin name kept when it is the same string), else appended.
    @inline(__always)
    mutating func put(_ k: Int, plugin: UnsafePointer<String>, _ answer: PluginAnswer.Answer, nanoseconds: UInt64) {
        guard k < count else { return append(PluginAnswer(plugin: plugin.pointee, answer: answer, nanoseconds: nanoseconds)) }
        self[k].overwrite(plugin: plugin, answer, nanoseconds: nanoseconds)
    }

    /// Drops the answers from `n` on (an earlier decision's).
    @inline(__always)
    mutating func keep(first n: Int) {
        while count > n { removeLast() }
    }
}

extension PluginAnswer {
    @inline(__always)
    mutating func overwrite(plugin: UnsafePointer<String>, _ answer: Answer, nanoseconds: UInt64) {
        assignIfChanged(&self.plugin, to: plugin)
        self.answer = answer
        self.nanoseconds = nanoseconds
    }
}

@available(*, unavailable, message: "plugins are called only from the loop thread")
extension PluginHost: Sendable {}
