// One configured, initialised plugin: its code, its state pointer, its host table and
// its counters. Kept for the life of the host once made (plugins may keep pointers).

import CTabPolicy
import Glibc
import Logging
import TabCore
import TabSystem

final class PluginInstance {
    let name: String
    let code: PluginCode
    var spec: PluginSpec
    /// What init stored in *state.
    var state: UnsafeMutableRawPointer?
    /// Whether init succeeded and fini has not run since.
    private(set) var running = false
    /// init is running (it may arm timers already).
    private(set) var starting = false
    private(set) var slot: UnsafeMutablePointer<HostSlot>!
    unowned let host: PluginHost
    /// `isolation: process`: the helper that runs the plugin's code (nil: it runs in tabd).
    var remote: RemotePlugin?
    /// An isolated plugin's helper failures so far (crashes and timeouts), nil in process: a
    /// hook whose count moved failed that way (the trampoline's result says no more).
    var helperFailures: UInt64? { remote.map { $0.crashes &+ $0.timeouts } }
    /// Its store (plugin ABI 1.6): the host's for its name, shared by its instances.
    private(set) lazy var store: PluginStoreBox = host.storeBox(for: name)

    /// Counters, on the decision path: calls, total ns and max ns per hook, then denials (of
    /// taps), failures and refused calls. Raw memory, so counting costs no exclusivity check
    /// or COW test.
    private let counters: UnsafeMutablePointer<UInt64>
    private static let hookCount = PluginHook.allCases.count
    var denials: UInt64 {
        get { counters[3 * Self.hookCount] }
        set { counters[3 * Self.hookCount] = newValue }
    }
    var failures: UInt64 {
        get { counters[3 * Self.hookCount + 1] }
        set { counters[3 * Self.hookCount + 1] = newValue }
    }
    /// `plugin.call` requests the plugin refused (TABD_DENY from `call`): not taps.
    var callRefusals: UInt64 {
        get { counters[3 * Self.hookCount + 2] }
        set { counters[3 * Self.hookCount + 2] = newValue }
    }
    private static let counterCount = 3 * hookCount + 3

    init(name: String, code: PluginCode, spec: PluginSpec, host: PluginHost) {
        self.name = name; self.code = code; self.spec = spec; self.host = host
        counters = .allocate(capacity: Self.counterCount)
        counters.initialize(repeating: 0, count: Self.counterCount)
        slot = HostSlot.make(for: self)
    }

    /// The counters of `hook`: calls, total ns, max ns (what `count` adds to).
    func counters(of hook: PluginHook) -> UnsafeMutablePointer<UInt64> { counters + 3 * hook.index }

    var hostTable: UnsafePointer<tabd_host> { UnsafeRawPointer(slot).assumingMemoryBound(to: tabd_host.self) }

    /// Runs init with `configJSON`. Returns nil, or why it failed.
    func start(configJSON: String) -> String? {
        precondition(!running, "start on a running plugin")
        host.enter(self, .initialize)
        starting = true
        defer { host.leave(); starting = false }
        if let remote {
            remote.owner = self
            let t0 = monotonicNanoseconds()
            let (result, message) = remote.initialize(configJSON: configJSON)
            count(.initialize, since: t0)
            guard result == TABD_OK else {
                failures += 1
                return message ?? (result == TABD_ERROR ? "init failed without saying why" : "init returned \(result.rawValue), which is not TABD_OK or TABD_ERROR")
            }
            // Its hooks are trampolines: their state is the helper's proxy.
            state = Unmanaged.passUnretained(remote).toOpaque()
            running = true
            return nil
        }
        guard let initHook = code.hooks.`init` else {
            running = true
            return nil
        }
        let reply = host.reply
        reply.pointee = tabd_reply(struct_size: MemoryLayout<tabd_reply>.size, reason: nil, message: nil, json: nil)
        var newState: UnsafeMutableRawPointer?
        // Whether init was slow is judged on its own time: the wall clock less the time this
        // thread waited for a CPU meanwhile, so that a busy machine alone does not make a
        // plugin's init "slow" (its counters keep the wall clock, what clients waited).
        let waited0 = runQueueWaitNanoseconds()
        let t0 = monotonicNanoseconds()
        let result = configJSON.withCString { initHook(hostTable, $0, &newState, reply) }
        let dt = monotonicNanoseconds() &- t0
        let waited = waited0.flatMap { w0 in runQueueWaitNanoseconds().map { $0 &- w0 } } ?? 0
        count(.initialize, nanoseconds: dt, own: dt &- min(dt, waited))
        // What init was handed (json_* strings, builders) lives until it returned and its
        // reply was read.
        defer { host.frame.endHook() }
        if result == TABD_OK {
            state = newState
            running = true
            return nil
        }
        failures += 1
        if let m = reply.pointee.message { return HookCaps.text(m) }
        return result == TABD_ERROR ? "init failed without saying why" : "init returned \(result.rawValue), which is not TABD_OK or TABD_ERROR"
    }

    /// Runs fini if init had succeeded.
    func stop() {
        guard running else { return }
        running = false
        host.cancelTimers(of: self)
        host.enter(self, .fini)
        defer { host.leave() }
        if let remote {
            let t0 = monotonicNanoseconds()
            remote.stop()
            count(.fini, since: t0)
        } else if let fini = code.hooks.fini {
            let t0 = monotonicNanoseconds()
            fini(state)
            count(.fini, since: t0)
            host.frame.endHook()
        }
        state = nil
    }

    @inline(__always)
    func count(_ hook: PluginHook, since t0: UInt64) {
        let dt = monotonicNanoseconds() &- t0
        count(hook, nanoseconds: dt)
    }

    /// Counts a call of `dt` ns; it is slow when `own` (its time less what the machine's load
    /// took from it, where that is known; else all of it) is above plugins.slow_hook_ms.
    @inline(__always)
    func count(_ hook: PluginHook, nanoseconds dt: UInt64, own: UInt64? = nil) {
        Self.add(dt, to: counters + 3 * hook.index)
        if (own ?? dt) > slowNanoseconds { slow(hook, own ?? dt) }
    }

    /// Counts one call of `dt` ns into a hook's counters (calls, total ns, max ns).
    @inline(__always)
    static func add(_ dt: UInt64, to c: UnsafeMutablePointer<UInt64>) {
        c[0] &+= 1
        c[1] &+= dt
        if dt > c[2] { c[2] = dt }
    }

    /// The loop time its timers may still take now (ns; `PluginTimer.loopShare`), and when it
    /// was last refilled (0: never: the burst is whole).
    private var timerAllowance = Double(PluginTimer.burstNanoseconds)
    private var timerRefilledAt: UInt64 = 0

    /// How long a timer due now must wait for the plugin's share of the loop (0: it runs).
    func timerWait(_ now: UInt64) -> Double {
        if timerRefilledAt != 0 {
            timerAllowance = min(Double(PluginTimer.burstNanoseconds),
                                 timerAllowance + Double(now &- timerRefilledAt) * PluginTimer.loopShare)
        }
        timerRefilledAt = now
        guard timerAllowance <= 0 else { return 0 }
        return max(0.001, -timerAllowance / PluginTimer.loopShare / 1e9)
    }

    /// A timer of this plugin took `nanoseconds` of the loop (its hook, its effects, its commit).
    func spendTimerTime(_ nanoseconds: UInt64) {
        timerAllowance -= Double(nanoseconds)
    }

    /// Which slot of the crash watch's page this plugin is, shifted into place (0: unwatched).
    var mark: UInt64 = 0
    /// A hook slower than this is logged (plugins.slow_hook_ms).
    var slowNanoseconds: UInt64 = 10_000_000
    private var lastSlowLog: UInt64 = 0
    private var slowUnlogged = 0

    /// Logs a slow hook: at most one line a second per plugin, saying how many were not logged.
    @inline(never)
    func slow(_ hook: PluginHook, _ dt: UInt64) {
        guard remote == nil else { return }  // an isolated plugin has its deadline instead
        let now = monotonicNanoseconds()
        guard lastSlowLog == 0 || now &- lastSlowLog >= 1_000_000_000 else { slowUnlogged += 1; return }
        lastSlowLog = now
        let ms = Double(dt / 10_000) / 100
        var metadata: Logger.Metadata = ["plugin.name": .string(name), "plugin.hook": .string(hook.rawValue), "duration_ms": "\(ms)"]
        if slowUnlogged > 0 { metadata["plugin.slow_hooks_not_logged"] = "\(slowUnlogged)" }
        slowUnlogged = 0
        host.logger.warning("plugin \(name) took \(ms) ms in \(hook.rawValue), more than plugins.slow_hook_ms (\(slowNanoseconds / 1_000_000) ms); every client waited for it: make the hook faster or run the plugin with isolation: process", metadata: metadata)
    }

    /// The helper counts of the instances this one replaced.
    private(set) var inherited: (crashes: UInt64, timeouts: UInt64, restarts: UInt64) = (0, 0, 0)

    /// Adds `other`'s counts to this instance's (the instance it replaced).
    func inheritCounters(from other: PluginInstance) {
        let s = other.stats
        inherited = (s.crashes, s.timeouts, s.restarts)
        let hooks = 3 * Self.hookCount  // per hook: calls, total ns, max ns; then denials, failures, call refusals
        for i in 0..<Self.counterCount {
            counters[i] = i < hooks && i % 3 == 2 ? max(counters[i], other.counters[i]) : counters[i] &+ other.counters[i]
        }
    }

    var stats: PluginStats {
        var hooks: [PluginStats.Hook] = []
        for hook in PluginHook.allCases {
            let c = counters + 3 * hook.index
            if c[0] > 0 { hooks.append(.init(hook: hook, calls: c[0], totalNanoseconds: c[1], maxNanoseconds: c[2])) }
        }
        var stats = PluginStats(name: name, hooks: hooks, denials: denials, failures: failures)
        stats.callRefusals = callRefusals
        stats.storeRefusals = store.refusals
        stats.storeBytes = store.writtenBytes
        if let remote {
            stats.isolation = .process
            stats.crashes = remote.crashes &+ inherited.crashes
            stats.timeouts = remote.timeouts &+ inherited.timeouts
            stats.restarts = remote.restarts &+ inherited.restarts
        }
        return stats
    }

    // MARK: What the host table does on this plugin's behalf

    func log(_ level: tabd_log_level, _ message: String) {
        host.logger.log(level: Logger.Level(level), "\(message)", metadata: ["plugin.name": .string(name)])
    }

    /// Whether one more of what `count` counts fits this hook call's cap (HookCaps); the
    /// first one past it is logged once, naming the plugin.
    private func admit(_ count: ReferenceWritableKeyPath<CallFrame, Int>, cap: Int, _ what: String) -> Bool {
        let frame = host.frame
        frame.counted = true
        frame[keyPath: count] += 1
        let n = frame[keyPath: count]
        if n <= cap { return true }
        if n == cap + 1 {
            host.warnings.warn(what, subject: name, "plugin \(what) more than \(cap) times in one hook call; the rest of this call's are dropped", metadata: ["plugin.name": .string(name)])
        }
        return false
    }

    /// A log line fits this hook call's cap.
    func admitLog() -> Bool { admit(\.logs, cap: HookCaps.logLines, "logged") }

    func emit(_ json: UnsafePointer<CChar>, controller: String) -> Bool {
        guard admit(\.events, cap: HookCaps.events, "emitted an event") else { return false }
        let event: CheckedJSON
        do throws(Refusal) {
            event = try CheckedJSON(json, maxBytes: PluginHost.maxEventBytes, maxDepth: host.maxJSONDepth)
            guard event.isObject else { throw Refusal("it is not a JSON object") }
        } catch {
            failures += 1
            host.warnings.warn("event refused", subject: name, "plugin emitted an event tabd does not accept; dropped", metadata: [
                "plugin.name": .string(name), "error": .string(error.description),
            ])
            return false
        }
        return host.enqueue(event: event.text, from: self, controller: controller)
    }

    func requestSelect(_ tab: String, controller: String) -> Bool {
        guard !tab.isEmpty, admit(\.selections, cap: HookCaps.selections, "asked for a selection") else { return false }
        return host.enqueue(selection: tab == Controller.moreID ? .more : .tab(tab), from: self, controller: controller)
    }
}

extension PluginHook {
    var index: Int {
        switch self {
        case .initialize: return 0
        case .fini: return 1
        case .shouldSelect: return 2
        case .supportedOrientations: return 3
        case .preferredOrientation: return 4
        case .didSelect: return 5
        case .willBeginCustomizing: return 6
        case .willEndCustomizing: return 7
        case .didEndCustomizing: return 8
        case .call: return 9
        case .willStop: return 10
        case .visibilityChanged: return 11
        case .displayOrderChanged: return 12
        case .selectionChanged: return 13
        case .timer: return 14
        case .controllerCreated: return 15
        case .controllerDeleted: return 16
        case .mayOpenDrawer: return 17
        case .topColumnForCollapsing: return 18
        case .displayModeForExpanding: return 19
        case .notify: return 20
        }
    }
}
