// Plugin ABI 1.6: what a plugin keeps (its store), when it acts on its own (timers), and the
// selection changes it is told about, whatever their cause.
//
// The store: tabd keeps each plugin's keys and values in the containers (`pluginData`), so
// the journal and the snapshot carry them as they carry the controllers. A plugin reads the
// host's copy (`stores`) during any hook; a write updates it at once and becomes a `.store`
// effect, which the service journals and applies to the containers after the hook's command
// (never during it: the containers are being changed then). An isolated plugin's helper
// holds a copy of its own store and sends its writes back with each answer.

import CTabPolicy
import Glibc
import Logging
import Synchronization
import TabCore
import TabSystem

/// One plugin's store: its values, their size, and its keys in byte order (made when asked).
struct PluginStoreData {
    private(set) var values: [String: String] = [:]
    private(set) var bytes = 0
    private var sorted: [String]?
    /// store_generation (plugin ABI 1.12): a number no other store of this process had
    /// before, taken anew by every change of the values, so that a store made afresh (read
    /// from disk again) never answers a number a plugin saw earlier.
    private(set) var generation = Self.nextGeneration()

    /// The process's last generation. Atomic: tabd's plugins run on its loop alone, but a
    /// process may hold several hosts on several threads (the tests do), and a lost update
    /// there could hand a store a number it had before.
    private static let lastGeneration = Atomic<UInt64>(0)
    private static func nextGeneration() -> UInt64 {
        lastGeneration.wrappingAdd(1, ordering: .relaxed).newValue
    }

    init(_ values: [String: String] = [:]) {
        self.values = values
        bytes = values.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The limits of tabd/policy.h (TABD_STORE_*), the one place they are stated.
    static let maxKeyBytes = Int(TABD_STORE_MAX_KEY_BYTES)
    static let maxValueBytes = Int(TABD_STORE_MAX_VALUE_BYTES)
    static let maxKeys = Int(TABD_STORE_MAX_KEYS)
    static let maxTotalBytes = Int(TABD_STORE_MAX_TOTAL_BYTES)
    static let writeCostBytes = Int(TABD_STORE_WRITE_COST_BYTES)
    /// The most writes one hook call makes (each costs more than writeCostBytes).
    static let maxWritesPerCall = maxTotalBytes / writeCostBytes

    /// Sets `key` to `value` (nil: removes it) when the limits allow it and then `admit`
    /// does (tabd's journal is writable, the hook call's budget not spent); else changes
    /// nothing. One lookup of the key.
    mutating func write(_ key: String, _ value: String?, admit: () -> tabd_store_status) -> tabd_store_status {
        let k = key.utf8.count
        guard k > 0 else { return TABD_STORE_INVALID }
        guard k <= Self.maxKeyBytes else { return TABD_STORE_TOO_LARGE }
        let i = values.index(forKey: key)
        guard let value else {
            guard let i else { return TABD_STORE_MISSING }
            let admitted = admit()
            guard admitted == TABD_STORE_OK else { return admitted }
            bytes -= k + values.values[i].utf8.count
            values.remove(at: i)
            sorted = nil
            generation = Self.nextGeneration()
            return TABD_STORE_OK
        }
        let v = value.utf8.count
        guard v <= Self.maxValueBytes else { return TABD_STORE_TOO_LARGE }
        let old = i.map { k + values.values[$0].utf8.count } ?? 0
        if i == nil, values.count >= Self.maxKeys { return TABD_STORE_TOO_LARGE }
        guard bytes - old + k + v <= Self.maxTotalBytes else { return TABD_STORE_TOO_LARGE }
        let admitted = admit()
        guard admitted == TABD_STORE_OK else { return admitted }
        if let i {
            values.values[i] = value
        } else {
            values[key] = value
            sorted = nil
        }
        bytes += k + v - old
        generation = Self.nextGeneration()
        return TABD_STORE_OK
    }

    /// Puts `key` back to `value` (nil: absent), whatever the limits: what it held before a
    /// write the journal could not keep.
    mutating func restore(_ key: String, _ value: String?) {
        let old = values[key].map { key.utf8.count + $0.utf8.count } ?? 0
        if (values[key] == nil) != (value == nil) { sorted = nil }
        values[key] = value
        bytes += (value.map { key.utf8.count + $0.utf8.count } ?? 0) - old
        generation = Self.nextGeneration()
    }

    /// The key at `index` in byte order.
    mutating func key(at index: Int) -> String? {
        if sorted == nil { sorted = values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        return index >= 0 && index < sorted!.count ? sorted![index] : nil
    }
}

/// One plugin's store where its instances reach it without a lookup by name: the host keeps
/// one per plugin name, and each instance holds its own.
final class PluginStoreBox {
    var data = PluginStoreData()
    /// store_generation: the field read in place (not the data copied out to read it).
    var generation: UInt64 { data.generation }
    /// What the plugin may still write now (plugin ABI 1.7's budget: `PluginHost.storeBudget`),
    /// and when that was last refilled (0: never spent yet, the budget is full).
    var allowance = 0.0
    var refilledAt: UInt64 = 0
    /// Writes tabd refused for the budget or the journal, and the bytes written (each write's
    /// key, value and TABD_STORE_WRITE_COST_BYTES), since start: `stats` and `metrics`.
    var refusals: UInt64 = 0
    var writtenBytes: UInt64 = 0

    /// Takes `cost` from the allowance after refilling it: false (nothing taken) when it does
    /// not hold that much.
    func spend(_ cost: Int, _ budget: PluginStoreBudget, now: UInt64) -> Bool {
        if refilledAt == 0 {
            allowance = Double(budget.burstBytes)
        } else {
            allowance = min(Double(budget.burstBytes), allowance + Double(now &- refilledAt) / 1e9 * Double(budget.bytesPerSecond))
        }
        refilledAt = now
        guard allowance >= Double(cost) else { return false }
        allowance -= Double(cost)
        return true
    }
}

/// What each plugin may write to its store over time (plugin ABI 1.7): `bytesPerSecond`
/// (plugins.store_bytes_per_second), after a burst of `burstBytes` (plugins.store_burst_bytes);
/// each write counts its key, its value and TABD_STORE_WRITE_COST_BYTES.
public struct PluginStoreBudget: Sendable, Equatable {
    public var bytesPerSecond: Int
    public var burstBytes: Int
    public init(bytesPerSecond: Int = Self.defaultBytesPerSecond, burstBytes: Int = Self.defaultBurstBytes) {
        self.bytesPerSecond = bytesPerSecond
        self.burstBytes = burstBytes
    }
    public static let defaultBytesPerSecond = 64 << 10
    /// A full store's worth at once: what one hook call may write.
    public static let defaultBurstBytes = PluginStoreData.maxTotalBytes
    /// The least burst: one write of the largest key and value, or it could never be made.
    public static let leastBurstBytes = PluginStoreData.maxKeyBytes + PluginStoreData.maxValueBytes + PluginStoreData.writeCostBytes
}

/// A plugin's timer: armed by set_timer, due once.
public struct PluginTimer {
    struct Key: Hashable {
        let plugin: ObjectIdentifier
        let controller: String?
        let name: String
    }
    struct Armed {
        let cancel: () -> Void
        let generation: UInt64
    }
    let key: Key
    let generation: UInt64
    unowned let instance: PluginInstance
    /// The controller it was armed for (nil: none): the service lends it to `fire`.
    public var controller: String? { key.controller }
    public var name: String { key.name }

    static let maxNameBytes = 64
    static let maxArmed = Int(TABD_TIMER_MAX)
    static let maxMilliseconds = UInt64(TABD_TIMER_MAX_MS)
    /// The share of tabd's time one plugin's timers may take (their hooks, what those asked
    /// for and its commit), after a burst of `burstNanoseconds`: a timer due past it runs when
    /// the plugin's share allows (docs/plugins.md, "Acting on time"). No plugin's timers can
    /// keep other clients waiting, in process or isolated (a helper's round trips included).
    public static let loopShare = 0.2
    public static let burstNanoseconds: UInt64 = 2_000_000
}

extension PluginHost {
    // MARK: The store

    /// The plugins' stores as the containers hold them (at start, before init runs).
    public func adoptStore(_ data: [String: [String: String]]) {
        for (name, box) in stores where data[name] == nil { box.data = PluginStoreData() }
        for (name, values) in data { storeBox(for: name).data = PluginStoreData(values) }
    }

    /// `plugin`'s store (made empty the first time).
    func storeBox(for plugin: String) -> PluginStoreBox {
        if let box = stores[plugin] { return box }
        let box = PluginStoreBox()
        stores[plugin] = box
        return box
    }

    /// Puts store keys back as they were before writes the journal could not keep: (plugin,
    /// key, value before; nil: absent). Isolated helpers get their plugin's store again.
    public func restoreStore(_ entries: [(plugin: String, key: String, value: String?)]) {
        var plugins = Set<String>()
        for e in entries {
            storeBox(for: e.plugin).data.restore(e.key, e.value)
            plugins.insert(e.plugin)
        }
        for p in runningPlugins where plugins.contains(p.name) { p.remote?.syncStore() }
    }

    /// Sets one key of `plugin`'s store as tabd holds it (an isolated helper's copy).
    func patchStore(_ plugin: String, _ key: String, _ value: String?) {
        storeBox(for: plugin).data.restore(key, value)
    }

    /// What `plugin`'s store holds (for the helper of an isolated plugin, and tests).
    public func storeValues(of plugin: String) -> [String: String] { stores[plugin]?.data.values ?? [:] }

    // MARK: Timers

    func setTimer(_ instance: PluginInstance, controller: String?, name: String, milliseconds: UInt64) -> Bool {
        guard let scheduleTimer, !timersStopped, instance.running || instance.starting else { return false }
        guard !name.isEmpty, name.utf8.count <= PluginTimer.maxNameBytes,
              milliseconds >= 1, milliseconds <= PluginTimer.maxMilliseconds else { return false }
        let key = PluginTimer.Key(plugin: ObjectIdentifier(instance), controller: controller, name: name)
        if let armed = timers[key] {
            armed.cancel()
        } else if timers.keys.lazy.filter({ $0.plugin == key.plugin }).count >= PluginTimer.maxArmed {
            return false
        }
        timerGeneration &+= 1
        let timer = PluginTimer(key: key, generation: timerGeneration, instance: instance)
        let cancel = scheduleTimer(Double(milliseconds) / 1000) { [weak self] in self?.due(timer) }
        timers[key] = PluginTimer.Armed(cancel: cancel, generation: timer.generation)
        return true
    }

    /// A check's timers (`--check-config`, `--check-plugin`): nothing runs during a check, so
    /// set_timer is checked as a start checks it (name, delay, `TABD_TIMER_MAX` per plugin) and
    /// counted, and arms nothing. Before, a check refused every timer an `init` armed and
    /// warned "bad name or delay".
    public func checkTimersOnly() {
        scheduleTimer = { _, _ in {} }
    }

    /// How many timers each plugin `prepared` started holds armed (a check: set_timer calls
    /// that a start would have armed), by plugin name.
    public func armedTimers(of prepared: PreparedPlugins) -> [String: Int] {
        var counts: [String: Int] = [:]
        for instance in prepared.started {
            let id = ObjectIdentifier(instance)
            counts[instance.name] = timers.keys.lazy.filter { $0.plugin == id }.count
        }
        return counts
    }

    func cancelTimer(_ instance: PluginInstance, controller: String?, name: String) {
        let key = PluginTimer.Key(plugin: ObjectIdentifier(instance), controller: controller, name: name)
        timers.removeValue(forKey: key)?.cancel()
    }

    /// Disarms every timer of `instance` (it stops).
    func cancelTimers(of instance: PluginInstance) {
        let id = ObjectIdentifier(instance)
        for key in timers.keys where key.plugin == id { timers.removeValue(forKey: key)?.cancel() }
    }

    /// tabd is stopping: every armed timer is disarmed, and none is armed again (set_timer
    /// answers TABD_ERROR, unlogged). The plugins' other hooks, fini included, still run.
    public func stopTimers() {
        timersStopped = true
        for key in Array(timers.keys) { timers.removeValue(forKey: key)?.cancel() }
    }

    /// Disarms every plugin's timers for the controller `name` (it was deleted): a controller
    /// created again under its name is a new one, which they must not fire into.
    public func controllerDeleted(_ name: String) {
        guard !timers.isEmpty else { return }
        for key in timers.keys where key.controller == name { timers.removeValue(forKey: key)?.cancel() }
    }

    private func due(_ timer: PluginTimer) {
        guard let armed = timers[timer.key], armed.generation == timer.generation else { return }
        guard timer.instance.running else { timers[timer.key] = nil; return }
        let plugin = timer.instance, now = monotonicNanoseconds()
        let wait = plugin.timerWait(now)
        if wait > 0, let scheduleTimer {
            // Past its share of the loop: later, as the same timer (set_timer still moves it).
            let cancel = scheduleTimer(wait) { [weak self] in self?.due(timer) }
            timers[timer.key] = PluginTimer.Armed(cancel: cancel, generation: armed.generation)
            warnings.warn("timer share", subject: plugin.name, "plugin '\(plugin.name)''s timers took more than \(Int(PluginTimer.loopShare * 100))% of tabd's time, so they run later than asked: arm fewer timers, or do less in them", metadata: ["plugin.name": .string(plugin.name)])
            return
        }
        timers[timer.key] = nil
        if let onTimer { onTimer(timer) } else { _ = fire(timer, in: nil) }
        plugin.spendTimerTime(monotonicNanoseconds() &- now)
    }

    /// Runs `timer`'s hook with `controller` lent (nil: a timer of no controller). Returns what
    /// the plugin asked for meanwhile.
    public func fire(_ timer: PluginTimer, in controller: LentController?) -> [PolicyEffect] {
        let plugin = timer.instance
        var effects: [PolicyEffect] = []
        guard plugin.running, let hook = plugin.code.hooks.timer else { return effects }
        let frame = self.frame, opaque = frame.opaque
        frame.controller = controller?.pointer
        let failuresBefore = plugin.helperFailures
        let t0 = monotonicNanoseconds()
        enter(plugin, .timer)
        timer.name.withCString { hook(plugin.state, controller == nil ? nil : opaque, $0) }
        leave()
        let dt = monotonicNanoseconds() &- t0
        plugin.count(.timer, nanoseconds: dt)
        frame.endHook()
        frame.controller = nil
        let ok = failuresBefore == plugin.helperFailures
        var answers = takeAnswerBuffer()
        answers.append(PluginAnswer(plugin: plugin.name, answer: ok ? .ran : .failed("its helper crashed or timed out"), nanoseconds: dt))
        recordTimer(timer, answers: &answers, ok: ok)
        hand(&effects)
        return effects
    }

    // MARK: Selection changes

    /// The selection of `controller` changed (any cause): selection_changed, to every running
    /// plugin that has it.
    public func selectionChanged(_ change: SelectionChange, in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        guard watchesSelection else { return }
        func tell(_ id: UnsafePointer<CChar>?, _ previous: UnsafePointer<CChar>?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ n: Int) {
            var c = tabd_selection_change(struct_size: MemoryLayout<tabd_selection_change>.size, id: id, previous: previous,
                                          cause: change.cause.c, path: n == 0 ? nil : ids, path_count: n)
            notify(.selectionChanged, controller) { p, opaque in
                guard let hook = p.code.hooks.selection_changed else { return false }
                hook(p.state, opaque, &c)
                return true
            }
        }
        withOptionalCString(change.tab) { id in withOptionalCString(change.previous) { previous in
            // A path of the selected tab alone (no groups): its own C string, nothing copied.
            if let path = change.path {
                withCStrings(path) { ids, n in tell(id, previous, ids, n) }
            } else if let id {
                var one: UnsafePointer<CChar>? = id
                withUnsafePointer(to: &one) { tell(id, previous, $0, 1) }
            } else {
                tell(nil, previous, nil, 0)
            }
        } }
    }
}

/// A change of a controller's selection, as selection_changed tells it.
public struct SelectionChange: Sendable, Equatable {
    public var tab: String?
    public var previous: String?
    public var cause: SelectionCause
    /// The selected path, root first; nil: the selected tab alone (a controller without
    /// groups), or nothing when nothing is selected.
    public var path: [String]?
    public init(tab: String?, previous: String?, cause: SelectionCause, path: [String]?) {
        self.tab = tab; self.previous = previous; self.cause = cause; self.path = path
    }
}

extension SelectionCause {
    var c: tabd_selection_cause {
        switch self {
        case .select: return TABD_CAUSE_SELECT
        case .tap: return TABD_CAUSE_TAP
        case .tabs: return TABD_CAUSE_TABS
        case .customize: return TABD_CAUSE_CUSTOMIZE
        case .restore: return TABD_CAUSE_RESTORE
        case .hidden: return TABD_CAUSE_HIDDEN
        case .searchCancelled: return TABD_CAUSE_SEARCH_CANCELLED
        }
    }
}

extension PluginInstance {
    // MARK: What the host table does on this plugin's behalf (1.6)

    func storeGet(_ key: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_store_status {
        guard let key, let out, let k = String(validatingCString: key) else { return TABD_STORE_INVALID }
        guard let value = store.data.values[k] else { return TABD_STORE_MISSING }
        out.pointee = host.frame.keep(value)
        return TABD_STORE_OK
    }

    func storeKey(_ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_store_status {
        guard let out else { return TABD_STORE_INVALID }
        guard let key = store.data.key(at: index) else { return TABD_STORE_MISSING }
        out.pointee = host.frame.keep(key)
        return TABD_STORE_OK
    }

    /// store_put (`value` non-nil) or store_delete.
    func storeSet(_ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?, delete: Bool) -> tabd_store_status {
        guard let key, delete || value != nil else { return TABD_STORE_INVALID }
        // Read no further than a limit allows: a hostile plugin's 1 GiB string is not copied.
        guard strnlen(key, PluginStoreData.maxKeyBytes + 1) <= PluginStoreData.maxKeyBytes else { return TABD_STORE_TOO_LARGE }
        if let value, strnlen(value, PluginStoreData.maxValueBytes + 1) > PluginStoreData.maxValueBytes { return TABD_STORE_TOO_LARGE }
        guard let k = String(validatingCString: key) else { return TABD_STORE_INVALID }
        var v: String?
        if let value {
            guard let text = String(validatingCString: value) else { return TABD_STORE_INVALID }
            v = text
        }
        return storeSet(k, v)
    }

    /// Sets (nil: removes) `key` of this plugin's store, within its limits and this hook
    /// call's write budget; the write becomes a `.store` effect.
    func storeSet(_ key: String, _ value: String?) -> tabd_store_status {
        let status = store.data.write(key, value) {
            guard host.storeWritable() else { return TABD_STORE_UNAVAILABLE }
            // Per hook call: at most the store's whole size written, each write counting its
            // journal record too (a plugin rewriting one key in a loop, or a million tiny
            // ones, cannot fill the journal).
            let frame = host.frame
            frame.counted = true
            frame.storeBytes += key.utf8.count + (value?.utf8.count ?? 0) + PluginStoreData.writeCostBytes
            guard frame.storeBytes > PluginStoreData.maxTotalBytes else { return admitOverTime(key, value) }
            if !frame.storeCapLogged {
                frame.storeCapLogged = true
                host.warnings.warn("store per call", subject: name, "plugin wrote more than \(PluginStoreData.maxTotalBytes) bytes to its store in one hook call; the rest of this call's writes are refused", metadata: ["plugin.name": .string(name)])
            }
            return TABD_STORE_TOO_LARGE
        }
        if status == TABD_STORE_OK { host.enqueue(store: key, value: value, from: self) }
        return status
    }

    /// The store's share over time (plugin ABI 1.7): a write waits while tabd's journal waits
    /// for a compaction (so plugins cannot grow the state directory past about twice
    /// limits.compact_bytes), and is within the plugin's budget. Refusals are counted and
    /// said once per plugins.warning_period_seconds.
    private func admitOverTime(_ key: String, _ value: String?) -> tabd_store_status {
        guard let budget = host.storeBudget else { return TABD_STORE_OK }
        let cost = key.utf8.count + (value?.utf8.count ?? 0) + PluginStoreData.writeCostBytes
        guard host.storeRoom() else {
            store.refusals &+= 1
            host.warnings.warn("store waits for compaction", subject: name, "plugin '\(name)' wrote to its store while tabd's journal waited for a compaction to finish (limits.compact_bytes written since it began); its writes are refused until then: write less, or raise limits.compact_bytes", metadata: ["plugin.name": .string(name)])
            return TABD_STORE_RATE_LIMITED
        }
        guard store.spend(cost, budget, now: monotonicNanoseconds()) else {
            store.refusals &+= 1
            host.warnings.warn("store budget", subject: name, "plugin '\(name)' wrote more to its store than its budget allows (plugins.store_bytes_per_second \(budget.bytesPerSecond), plugins.store_burst_bytes \(budget.burstBytes)); its writes are refused until the budget refills: write less often, or raise the budget", metadata: ["plugin.name": .string(name)])
            return TABD_STORE_RATE_LIMITED
        }
        store.writtenBytes &+= UInt64(cost)
        return TABD_STORE_OK
    }

    func setTimer(_ controller: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?, _ ms: UInt64) -> tabd_result {
        guard let name, strnlen(name, PluginTimer.maxNameBytes + 1) <= PluginTimer.maxNameBytes,
              let n = String(validatingCString: name) else { return TABD_ERROR }
        let c = controller.flatMap { String(validatingCString: $0) }
        if controller != nil, c == nil { return TABD_ERROR }
        guard host.setTimer(self, controller: c, name: n, milliseconds: ms) else {
            let frame = host.frame
            if !frame.timerRefusalLogged, !host.timersStopped {
                frame.counted = true
                frame.timerRefusalLogged = true
                host.warnings.warn("set_timer refused", subject: self.name, "plugin's set_timer refused: a bad name or delay, or \(PluginTimer.maxArmed) timers armed already (TABD_TIMER_MAX); said once per hook call", metadata: ["plugin.name": .string(self.name)])
            }
            return TABD_ERROR
        }
        return TABD_OK
    }

    func cancelTimer(_ controller: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?) -> tabd_result {
        guard let name, let n = String(validatingCString: name) else { return TABD_ERROR }
        host.cancelTimer(self, controller: controller.flatMap { String(validatingCString: $0) }, name: n)
        return TABD_OK
    }
}
