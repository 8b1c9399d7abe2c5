// The host side of the ABI: the tabd_host function table each plugin receives, and the
// per-call frame a `tabd_controller *` points at.
//
// Every function here is called by plugin code on tabd's one thread, only during a hook.
// They return NULL / -1 / 0 / TABD_ERROR instead of trapping when given a stale pointer
// or an index out of range.

import CTabPolicy
import Glibc
import Logging
import TabCore

/// What a `tabd_controller *` points at: the controller of the hook being run, and the
/// strings handed out during it (freed when the hook returns). One per host, reused.
final class CallFrame {
    /// The controller of the current hook; nil between hooks (stale pointers read nothing).
    var controller: UnsafePointer<Controller>?
    /// The client whose `plugin.call` is running; nil outside a call hook (`caller` says
    /// "no caller").
    var caller: PluginCaller?
    private var strings: [UnsafeMutablePointer<CChar>] = []
    /// The JSON builders made during the current hook (json_builder, since 1.3), and which
    /// hook call they belong to: a handle of an earlier call names nothing.
    var builders: [JSONBuild] = []
    private(set) var builderEpoch: UInt = 1
    /// What the current hook call did through the host, for HookCaps (reset by endHook):
    /// log lines, events, selections asked for; `counted` once any of them is non-zero.
    var logs = 0, events = 0, selections = 0
    /// Bytes written to the plugin's store during the current hook call (1.6), and whether
    /// passing the cap was logged.
    var storeBytes = 0, storeCapLogged = false
    /// A refused set_timer was logged during the current hook call.
    var timerRefusalLogged = false
    var counted = false

    /// The opaque pointer plugins receive.
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> CallFrame? {
        guard let pointer else { return nil }
        return Unmanaged<CallFrame>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// The controller's name as a C string: kept across hooks (it is asked for on most
    /// decisions, and one controller has one name), replaced when another is asked for.
    /// Two fields, not an optional pair: comparing then copies nothing out.
    private var cachedName = ""
    private var cachedC: UnsafeMutablePointer<CChar>?

    /// Takes the controller's name, not the controller: passing `ctl.pointee` copied the
    /// whole controller (each of its arrays and strings retained, then released) on every
    /// call, about 490 instructions of a tap through the login gate.
    func name(of controller: UnsafePointer<Controller>) -> UnsafePointer<CChar>? {
        if let c = cachedC, cachedName == controller.pointee.name { return UnsafePointer(c) }
        let name = controller.pointee.name
        guard let c = strdup(name) else { return nil }
        free(cachedC)
        cachedC = c
        cachedName = name
        return UnsafePointer(c)
    }

    /// A C copy of `ids` (the caller's groups), valid until `endHook()`; nil when empty.
    func keep(_ ids: [UInt32]) -> UnsafePointer<UInt32>? {
        guard !ids.isEmpty, let p = malloc(ids.count * MemoryLayout<UInt32>.stride) else { return nil }
        let groups = p.bindMemory(to: UInt32.self, capacity: ids.count)
        groups.initialize(from: ids, count: ids.count)
        strings.append(p.assumingMemoryBound(to: CChar.self))  // freed with the strings
        return UnsafePointer(groups)
    }

    /// A C copy of `s`, valid until `endHook()`.
    func keep(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s, let p = strdup(s) else { return nil }
        strings.append(p)
        return UnsafePointer(p)
    }

    /// A new hook call's HookCaps budget.
    @inline(__always)
    func resetCounts() {
        if counted { logs = 0; events = 0; selections = 0; storeBytes = 0; storeCapLogged = false; timerRefusalLogged = false; counted = false }
    }

    /// Frees what the hook was handed. Cheap when nothing was.
    @inline(__always)
    func endHook() {
        guard !strings.isEmpty || !builders.isEmpty || counted else { return }
        resetCounts()
        for p in strings { free(p) }
        strings.removeAll(keepingCapacity: true)
        if !builders.isEmpty {
            builders.removeAll(keepingCapacity: true)
            builderEpoch &+= 1
        }
    }
}

/// One plugin's host table, followed by who it belongs to. The table is the first field,
/// so the `const tabd_host *` a plugin passes back leads to its owner.
struct HostSlot {
    var table: tabd_host
    /// Checked: a plugin that kept the table and calls it after its instance went (code stays
    /// loaded) stops tabd with a clear trap, not a use of freed memory. `unowned(unsafe)`
    /// measured no gain (10,033 against 10,041 instructions per tap; BENCHMARKS.md).
    unowned var owner: PluginInstance
    /// The owner's store, held (+1, never given back: the slot is never freed either) so
    /// that store_generation, asked on every tap by a gate that keeps what it read, reads it
    /// without a reference count or a lookup (~100 instructions through `owner`).
    let store: Unmanaged<PluginStoreBox>

    static func owner(of host: UnsafePointer<tabd_host>?) -> PluginInstance? {
        guard let host else { return nil }
        return UnsafeRawPointer(host).assumingMemoryBound(to: HostSlot.self).pointee.owner
    }

    /// Allocates the slot for `owner`. Never freed: a plugin may keep the pointer.
    static func make(for owner: PluginInstance) -> UnsafeMutablePointer<HostSlot> {
        precondition(MemoryLayout<HostSlot>.offset(of: \HostSlot.table) == 0, "the host table must come first")
        let slot = UnsafeMutablePointer<HostSlot>.allocate(capacity: 1)
        slot.initialize(to: HostSlot(table: HostSlot.table, owner: owner, store: .passRetained(owner.store)))
        return slot
    }

    /// The table: 1.0's functions, then each later minor's. New functions are appended (and
    /// struct_size grows with them).
    static let table = tabd_host(
        struct_size: MemoryLayout<tabd_host>.size,
        abi_major: UInt32(TABD_POLICY_ABI_MAJOR),
        abi_minor: UInt32(TABD_POLICY_ABI_MINOR),
        log: { host, level, message in
            guard let plugin = HostSlot.owner(of: host), let message else { return }
            guard plugin.admitLog() else { return }
            plugin.log(level, HookCaps.text(message, limit: HookCaps.logBytes))
        },
        controller_name: { c in
            // Borrowed (asked on most decisions): the host holds its frame for its life.
            guard let c else { return nil }
            return Unmanaged<CallFrame>.fromOpaque(UnsafeRawPointer(c))._withUnsafeGuaranteedRef { f in
                guard let ctl = f.controller else { return nil }
                return f.name(of: ctl)
            }
        },
        controller_idiom: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return TABD_IDIOM_PHONE }
            switch ctl.pointee.idiom {
            case .phone: return TABD_IDIOM_PHONE
            case .pad: return TABD_IDIOM_PAD
            case .tv: return TABD_IDIOM_TV
            }
        },
        max_visible: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return 0 }
            return ctl.pointee.maxVisible
        },
        more_shown: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return 0 }
            return ctl.pointee.moreShown ? 1 : 0
        },
        orientation: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return 0 }
            return ctl.pointee.orientation.mask.rawValue
        },
        tab_count: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return 0 }
            return ctl.pointee.tabs.count
        },
        tab_id: { c, i in
            guard let f = CallFrame.from(c), let tab = f.tab(at: i) else { return nil }
            return f.keep(tab.id)
        },
        tab_title: { c, i in
            guard let f = CallFrame.from(c), let tab = f.tab(at: i) else { return nil }
            return f.keep(tab.effectiveItem.title ?? tab.id)
        },
        tab_badge: { c, i in
            guard let f = CallFrame.from(c), let tab = f.tab(at: i) else { return nil }
            return f.keep(tab.badge)
        },
        tab_restoration_id: { c, i in
            guard let f = CallFrame.from(c), let tab = f.tab(at: i) else { return nil }
            return f.keep(tab.restorationID)
        },
        tab_index: { c, id in
            guard let ctl = CallFrame.from(c)?.controller, let id else { return -1 }
            return ctl.pointee.index(of: String(cString: id)) ?? -1
        },
        selected_tab: { c in
            guard let f = CallFrame.from(c), let ctl = f.controller else { return nil }
            return f.keep(ctl.pointee.selection.wireValue)
        },
        selected_index: { c in
            guard let ctl = CallFrame.from(c)?.controller else { return -1 }
            return ctl.pointee.selectedIndex ?? -1
        },
        emit: { host, c, json in
            guard let plugin = HostSlot.owner(of: host), let ctl = CallFrame.from(c)?.controller, let json else {
                return TABD_ERROR
            }
            return plugin.emit(json, controller: ctl.pointee.name) ? TABD_OK : TABD_ERROR
        },
        request_select: { host, c, tab in
            guard let plugin = HostSlot.owner(of: host), let ctl = CallFrame.from(c)?.controller, let tab else {
                return TABD_ERROR
            }
            return plugin.requestSelect(String(cString: tab), controller: ctl.pointee.name) ? TABD_OK : TABD_ERROR
        },
        // since 1.1
        caller: { host, out in
            guard let plugin = HostSlot.owner(of: host), let out, let caller = plugin.host.frame.caller else { return 0 }
            caller.write(to: out, frame: plugin.host.frame)
            return 1
        },
        // since 1.3
        json_get_string: HostJSON.getString,
        json_get_int: HostJSON.getInt,
        json_get_number: HostJSON.getNumber,
        json_get_bool: HostJSON.getBool,
        json_get_object: HostJSON.getObject,
        json_builder: HostJSON.builder,
        json_begin_object: HostJSON.beginObject,
        json_begin_array: HostJSON.beginArray,
        json_end: HostJSON.end,
        json_add_string: HostJSON.addString,
        json_add_int: HostJSON.addInt,
        json_add_number: HostJSON.addNumber,
        json_add_bool: HostJSON.addBool,
        json_add_null: HostJSON.addNull,
        json_add_json: HostJSON.addJSON,
        json_finish: HostJSON.finish,
        selected_path: { c, depth in
            guard let f = CallFrame.from(c), let ctl = f.controller else { return nil }
            guard ctl.pointee.arranged else { return depth == 0 ? f.keep(ctl.pointee.selection.wireValue) : nil }
            let path = ctl.pointee.selectedPath
            return depth < path.count ? f.keep(path[depth]) : nil
        },
        // since 1.5
        json_get_array: HostJSON.getArray,
        json_array_length: HostJSON.arrayLength,
        json_array_string: HostJSON.arrayString,
        json_array_int: HostJSON.arrayInt,
        json_array_number: HostJSON.arrayNumber,
        json_array_bool: HostJSON.arrayBool,
        json_array_object: HostJSON.arrayObject,
        json_array_array: HostJSON.arrayArray,
        json_object_key: HostJSON.objectKey,
        // since 1.6
        store_get: { host, key, value in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_STORE_INVALID }
            return plugin.storeGet(key, value)
        },
        store_put: { host, key, value in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_STORE_INVALID }
            return plugin.storeSet(key, value, delete: false)
        },
        store_delete: { host, key in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_STORE_INVALID }
            return plugin.storeSet(key, nil, delete: true)
        },
        store_key: { host, index, key in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_STORE_INVALID }
            return plugin.storeKey(index, key)
        },
        set_timer: { host, controller, name, ms in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_ERROR }
            return plugin.setTimer(controller, name, ms)
        },
        cancel_timer: { host, controller, name in
            guard let plugin = HostSlot.owner(of: host) else { return TABD_ERROR }
            return plugin.cancelTimer(controller, name)
        },
        // since 1.7
        controller_at: { host, index in
            guard let plugin = HostSlot.owner(of: host) else { return nil }
            let names = plugin.host.controllerNames
            return index < names.count ? plugin.host.frame.keep(names[index]) : nil
        },
        // since 1.9 (HostClock.swift): answered where the plugin runs, the helper included
        wall_clock_ms: { _ in HostClock.wallClockMilliseconds() },
        local_time: { host, ms, out in HostClock.localTime(ms, out, frame: HostSlot.owner(of: host)?.host.frame) },
        // since 1.12: where the plugin runs (an isolated helper's copy of the store has its own)
        store_generation: { host in
            guard let host else { return 0 }
            return UnsafeRawPointer(host).assumingMemoryBound(to: HostSlot.self).pointee.store._withUnsafeGuaranteedRef { $0.generation }
        }
    )
}

extension PluginCaller {
    /// Fills the fields the plugin's tabd_caller has (its struct_size says how many); the
    /// groups live in `frame` until the hook returns.
    func write(to out: UnsafeMutablePointer<tabd_caller>, frame: CallFrame) {
        let size = out.pointee.struct_size
        func put<T>(_ field: KeyPath<tabd_caller, T>, _ value: T) { storeField(out, size: size, field, value) }
        put(\.uid, uid)
        put(\.gid, gid)
        put(\.pid, pid)
        put(\.is_admin, isAdmin ? 1 : 0)
        put(\.group_count, groups.count)
        put(\.groups, frame.keep(groups))
        put(\.via, frame.keep(via))
    }
}

extension CallFrame {
    @inline(__always)
    func tab(at index: Int) -> Tab? {
        guard let ctl = controller, index >= 0, index < ctl.pointee.tabs.count else { return nil }
        return ctl.pointee.tabs[index]
    }
}

extension Logger.Level {
    init(_ level: tabd_log_level) {
        switch level {
        case TABD_LOG_DEBUG: self = .debug
        case TABD_LOG_INFO: self = .info
        case TABD_LOG_NOTICE: self = .notice
        case TABD_LOG_WARNING: self = .warning
        default: self = .error
        }
    }
}
