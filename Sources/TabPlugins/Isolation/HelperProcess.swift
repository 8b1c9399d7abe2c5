// The helper process of an isolated plugin (`tabd --plugin-host`): it sandboxes itself,
// loads the one plugin tabd checked and handed over, and answers tabd's hook requests
// (HelperWire.swift) until tabd closes the socket. The plugin sees the same host table as
// in tabd; its controller readers answer from the snapshot each request carries, and what
// it asks of tabd (log, emit, request_select) goes back with the answer, in order.

import CPluginSandbox
import CTabPolicy
import Glibc
import Logging
import TabCore
import TabSystem

public enum PluginHelperProcess {
    /// The socket to tabd, and the plugin's file (opened and checked by tabd).
    static let socketFD: Int32 = 3
    static let pluginFD: Int32 = 4
    /// The hidden first argument that makes tabd a helper.
    public static let flag = "--plugin-host"

    /// `tabd --plugin-host <tabd's pid> <user or ""> <name>`: runs the helper; never returns.
    public static func main(_ arguments: [String]) -> Never {
        // stdin and stdout are /dev/null, stderr is tabd's; nothing else stays open.
        tabd_sandbox_close_from(pluginFD + 1)
        _ = tabd_sandbox_parent_death_signal(SIGKILL)
        let parent = arguments.count > 0 ? pid_t(arguments[0]) ?? 0 : 0
        if getppid() != parent { exit(1) }  // tabd went away before the signal was armed
        let user = arguments.count > 1 ? arguments[1] : ""
        let session = HelperSession()
        HelperSession.current = session
        if let problem = becomeUser(user) {
            session.sendHello(error: problem)
            exit(1)
        }
        var note: String?
        do {
            _ = try syscall("prctl(PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP)") { tabd_sandbox_restrict() }
        } catch {
            note = "the seccomp filter could not be installed (\(error.reason)); the helper runs with no new privileges only"
        }
        guard let st = try? Sys.fstat(pluginFD) else {
            session.sendHello(error: "the helper did not receive the plugin's file")
            exit(1)
        }
        let name = arguments.count > 2 ? arguments[2] : "plugin"
        do throws(Refusal) {
            let code = try PluginLoader(directories: []).load(CheckedFile(path: name, fd: pluginFD, identity: CheckedFile.Identity(st)))
            session.adopt(code, name: name)
            session.sendHello(code: code, note: note)
        } catch {
            session.sendHello(error: error.description)
            exit(1)
        }
        session.serve()
    }

    /// Switches to `user` when one is configured: only root can; another user than the
    /// current one is refused then (nil: done, or nothing to do).
    private static func becomeUser(_ user: String) -> String? {
        guard !user.isEmpty else { return nil }
        guard let (uid, gid) = (try? Sys.user(named: user)) ?? nil else {
            return "the user '\(user)' (plugins.load user) does not exist; create it or remove `user`"
        }
        if Sys.effectiveUserID() != 0 {
            return uid == Sys.effectiveUserID() ? nil
                : "it is to run as '\(user)' but tabd is not root and cannot switch users; run tabd as root or remove `user`"
        }
        do {
            _ = try syscall("setgroups, setgid, setuid") { tabd_sandbox_become(uid, gid) }
        } catch {
            return "the helper could not switch to the user '\(user)': \(error.reason)"
        }
        return nil
    }
}

/// The helper's one plugin, its host table and the request being answered.
final class HelperSession {
    /// Set once, at the start of `main`; read by the host functions the plugin calls (C
    /// callbacks with no context of their own). nonisolated(unsafe) because the helper
    /// process has one thread: nothing reads it concurrently with that one write.
    nonisolated(unsafe) static var current: HelperSession!

    var code: PluginCode?
    var state: UnsafeMutableRawPointer?
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// The plugin's host table: inside a HostSlot of a helper-side PluginInstance, as in tabd,
    /// so that the host functions that find their caller through the table (the JSON
    /// helpers, since 1.3) find one here too. Made when the code is loaded (`adopt`).
    private(set) var table: UnsafePointer<tabd_host>!
    /// The table's functions: tabd's, with the controller readers and the calls back to tabd
    /// (log, emit, request_select, caller) answered from the request.
    private var functions: tabd_host
    /// What owns the table, and whose frame keeps what the host hands out during a hook.
    private var instance: PluginInstance?
    private(set) var host: PluginHost?
    let reply = UnsafeMutablePointer<tabd_reply>.allocate(capacity: 1)
    let candidate = UnsafeMutablePointer<tabd_candidate>.allocate(capacity: 1)
    /// What plugins receive as their controller: any pointer that is not NULL.
    let token = OpaquePointer(UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16))

    // The snapshot of the request being answered (pointers into `buffer`).
    var inHook = false
    var name: UnsafePointer<CChar>?
    var idiom: UInt8 = 0
    var maxVisible = 0
    var moreShown = false
    var orientation: UInt32 = 0
    var selected: UnsafePointer<CChar>?
    var selectedIndex = -1
    /// The selected path below a group (empty without groups: selected_path answers `selected`).
    var selectedPath: [UnsafePointer<CChar>?] = []
    /// The candidate's path (since 1.4): pointers into `buffer`, and one NULL.
    var candidatePath = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 8)
    var candidatePathCapacity = 8
    var tabs: [(id: UnsafePointer<CChar>?, title: UnsafePointer<CChar>?, badge: UnsafePointer<CChar>?, restoration: UnsafePointer<CChar>?)] = []
    var caller: PluginCaller?

    /// The hook's effects, encoded, and how many.
    var effects = WireWriter(.answer)
    var effectCount: UInt32 = 0
    /// Effects of each kind (1 log, 2 emit, 3 select) this hook made: one past HookCaps' cap
    /// is sent, so that tabd, which enforces the caps, sees the excess and says so once; the
    /// rest are not sent at all.
    var effectsOfKind = [0, 0, 0, 0, 0, 0]

    init() {
        var t = HostSlot.table
        t.log = { _, level, message in
            guard let s = HelperSession.current, let message else { return }
            s.effect(1) { $0.u32(level.rawValue); $0.string(message, max: HookCaps.logBytes + 1) }
        }
        t.controller_name = { c in HelperSession.reading(c)?.name }
        t.controller_idiom = { c in tabd_idiom(rawValue: UInt32(HelperSession.reading(c)?.idiom ?? 0)) }
        t.max_visible = { c in HelperSession.reading(c)?.maxVisible ?? 0 }
        t.more_shown = { c in (HelperSession.reading(c)?.moreShown ?? false) ? 1 : 0 }
        t.orientation = { c in HelperSession.reading(c)?.orientation ?? 0 }
        t.tab_count = { c in HelperSession.reading(c)?.tabs.count ?? 0 }
        t.tab_id = { c, i in HelperSession.tab(c, i)?.id }
        t.tab_title = { c, i in HelperSession.tab(c, i)?.title }
        t.tab_badge = { c, i in HelperSession.tab(c, i)?.badge }
        t.tab_restoration_id = { c, i in HelperSession.tab(c, i)?.restoration }
        t.tab_index = { c, id in
            guard let s = HelperSession.reading(c), let id else { return -1 }
            return s.tabs.firstIndex { $0.id.map { strcmp($0, id) == 0 } ?? false } ?? -1
        }
        t.selected_tab = { c in HelperSession.reading(c)?.selected }
        t.selected_index = { c in HelperSession.reading(c)?.selectedIndex ?? -1 }
        t.selected_path = { c, depth in
            guard let s = HelperSession.reading(c) else { return nil }
            if s.selectedPath.isEmpty { return depth == 0 ? s.selected : nil }
            return depth < s.selectedPath.count ? s.selectedPath[depth] : nil
        }
        t.emit = { _, c, json in
            guard let s = HelperSession.reading(c), let json else { return TABD_ERROR }
            // Checked here so the plugin learns at once; tabd checks it again.
            guard let event = try? CheckedJSON(json, maxBytes: PluginHost.maxEventBytes, maxDepth: 64), event.isObject else { return TABD_ERROR }
            s.effect(2) { $0.string(json) }
            return TABD_OK
        }
        t.request_select = { _, c, tab in
            guard let s = HelperSession.reading(c), let tab, tab.pointee != 0 else { return TABD_ERROR }
            s.effect(3) { $0.string(tab) }
            return TABD_OK
        }
        t.caller = { _, out in
            guard let s = HelperSession.current, s.inHook, let out, let caller = s.caller else { return 0 }
            guard let frame = s.host?.frame else { return 0 }
            caller.write(to: out, frame: frame)
            return 1
        }
        // Since 1.6: the store is the helper's copy (its PluginHost's), and a write goes back
        // to tabd as an effect; timers are armed by tabd.
        t.store_put = { host, key, value in HelperSession.current?.storeSet(host, key, value, delete: false) ?? TABD_STORE_INVALID }
        t.store_delete = { host, key in HelperSession.current?.storeSet(host, key, nil, delete: true) ?? TABD_STORE_INVALID }
        t.set_timer = { _, controller, name, ms in
            guard let s = HelperSession.current, let name, strnlen(name, PluginTimer.maxNameBytes + 1) <= PluginTimer.maxNameBytes,
                  name.pointee != 0, ms >= 1, ms <= PluginTimer.maxMilliseconds else { return TABD_ERROR }
            // The helper counts what it armed (tabd counts again), so that the plugin hears
            // TABD_ERROR past TABD_TIMER_MAX as it would in process.
            let key = HelperSession.timerKey(controller, name)
            guard s.armed.contains(key) || s.armed.count < PluginTimer.maxArmed else { return TABD_ERROR }
            s.armed.insert(key)
            s.effect(5) { $0.string(controller); $0.string(name); $0.i64(Int64(ms)) }
            return TABD_OK
        }
        t.cancel_timer = { _, controller, name in
            guard let s = HelperSession.current, let name else { return TABD_ERROR }
            s.armed.remove(HelperSession.timerKey(controller, name))
            s.effect(5) { $0.string(controller); $0.string(name); $0.i64(-1) }
            return TABD_OK
        }
        // Since 1.7: the controllers as tabd last sent them (init, and each change).
        t.controller_at = { _, index in
            guard let s = HelperSession.current, index < s.controllers.count else { return nil }
            return s.host?.frame.keep(s.controllers[index])
        }
        functions = t
    }

    /// The names of tabd's controllers, as its last message said (since 1.7).
    var controllers: [String] = []

    private func readControllers(_ r: inout WireReader) throws(WireReader.Short) {
        var names: [String] = []
        for _ in 0..<min(try r.u32(), 1 << 20) { names.append(try r.string() ?? "") }
        controllers = names
    }

    /// The timers the plugin armed and that have not run or been cancelled since.
    var armed = Set<String>()

    static func timerKey(_ controller: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>) -> String {
        (controller.map { String(cString: $0) + "\u{0}" } ?? "\u{1}") + String(cString: name)
    }

    /// store_put / store_delete: the helper's copy (its host's store, within the limits),
    /// then the write as an effect for tabd, which checks it again and journals it.
    func storeSet(_ table: UnsafePointer<tabd_host>?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?, delete: Bool) -> tabd_store_status {
        guard let instance, let key else { return TABD_STORE_INVALID }
        let status = instance.storeSet(key, value, delete: delete)
        guard status == TABD_STORE_OK else { return status }
        effect(4) { $0.string(key); $0.string(delete ? nil : value) }
        return TABD_STORE_OK
    }

    /// The plugin's code, loaded: its host table is made now.
    func adopt(_ code: PluginCode, name: String) {
        self.code = code
        let host = PluginHost(directories: [], logger: Logger(label: "tabd.plugin-helper"))
        let instance = PluginInstance(name: name, code: code, spec: PluginSpec(path: name), host: host)
        instance.slot.pointee.table = functions
        self.host = host
        self.instance = instance
        table = instance.hostTable
    }

    /// Frees what the plugin was handed during the hook (strings, JSON builders): after the
    /// answer, which copied what it needed, is written.
    func endHook() { host?.frame.endHook() }

    static func reading(_ c: OpaquePointer?) -> HelperSession? {
        guard let s = current, s.inHook, c == s.token else { return nil }
        return s
    }

    static func tab(_ c: OpaquePointer?, _ i: Int) -> (id: UnsafePointer<CChar>?, title: UnsafePointer<CChar>?, badge: UnsafePointer<CChar>?, restoration: UnsafePointer<CChar>?)? {
        guard let s = reading(c), i >= 0, i < s.tabs.count else { return nil }
        return s.tabs[i]
    }

    fileprivate func effect(_ kind: UInt8, _ body: (inout WireWriter) -> Void) {
        // Store writes are bounded by bytes (the store's own limit per hook call, which the
        // helper's copy enforced: every write it admitted is sent, or the copies would
        // differ), timers by TABD_TIMER_MAX at tabd: a generous count suffices for them here.
        let cap = kind == 1 ? HookCaps.logLines : kind == 2 ? HookCaps.events : kind == 3 ? HookCaps.selections
            : kind == 4 ? PluginStoreData.maxWritesPerCall : 4 * PluginStoreData.maxKeys
        effectsOfKind[Int(kind)] += 1
        guard effectsOfKind[Int(kind)] <= cap + 1 else { return }
        effects.u8(kind)
        body(&effects)
        effectCount += 1
    }

    private func send(_ w: WireWriter) {
        if Packets.send(PluginHelperProcess.socketFD, w.bytes, wait: Packets.noWaiting) != nil { exit(0) }
    }

    func sendHello(error: String) {
        var w = WireWriter(.hello)
        w.u8(0)
        w.string(error)
        send(w)
    }

    func sendHello(code: PluginCode, note: String?) {
        var w = WireWriter(.hello)
        w.u8(1)
        w.string(code.name); w.string(code.version); w.string(code.summary)
        w.u32(code.abiMajor); w.u32(code.abiMinor)
        var bits: UInt32 = 0
        for name in code.hookNames {
            if let hook = PluginHook(rawValue: name) { bits |= 1 << UInt32(hook.index) }
        }
        w.u32(bits)
        w.string(note)
        send(w)
    }

    /// Answers requests until tabd closes the socket.
    func serve() -> Never {
        while true {
            switch Packets.receive(PluginHelperProcess.socketFD, into: &buffer, wait: Packets.noWaiting) {
            case .message(let n):
                do throws(WireReader.Short) {
                    try answer(WireReader(base: UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)), count: n))
                } catch {
                    exit(2)  // tabd sent what this helper does not understand
                }
            case .end, .failed, .gaveUp:
                exit(0)
            }
        }
    }

    private func readSnapshot(_ r: inout WireReader) throws(WireReader.Short) {
        name = try r.cString()
        idiom = try r.u8()
        maxVisible = Int(try r.u32())
        moreShown = try r.u8() != 0
        orientation = try r.u32()
        selected = try r.cString()
        selectedIndex = Int(try r.i64())
        let n = Int(try r.u32())
        tabs.removeAll(keepingCapacity: true)
        for _ in 0..<n {
            tabs.append((try r.cString(), try r.cString(), try r.cString(), try r.cString()))
        }
        selectedPath = try readTabs(&r)
        selectedPath.removeLast()  // readTabs ends the list with NULL
    }

    private func readCandidate(_ r: inout WireReader) throws(WireReader.Short) {
        let id = try r.cString()
        let index = Int(try r.i64())
        let more = try r.u8()
        let ids = try readTabs(&r)
        let isSearch = try r.u8()  // since 1.6
        let count = ids.count - 1
        // The plugin reads the path through a pointer: a buffer of ours, not an array's.
        if candidatePathCapacity < ids.count {
            candidatePath.deallocate()
            candidatePathCapacity = max(8, ids.count)
            candidatePath = .allocate(capacity: candidatePathCapacity)
        }
        for (i, p) in ids.enumerated() { candidatePath[i] = p }
        candidate.pointee = tabd_candidate(struct_size: MemoryLayout<tabd_candidate>.size, id: id, index: index, is_more: Int32(more),
                                           path: count > 0 ? UnsafePointer(candidatePath) : nil, path_count: count,
                                           is_search: Int32(isSearch))
    }

    private func readTabs(_ r: inout WireReader) throws(WireReader.Short) -> [UnsafePointer<CChar>?] {
        let n = Int(try r.u32())
        var ids: [UnsafePointer<CChar>?] = []
        ids.reserveCapacity(n + 1)
        for _ in 0..<n { ids.append(try r.cString()) }
        ids.append(nil)
        return ids
    }

    /// The helper's copy of its plugin's store, as tabd sent it (RemotePlugin.writeStore).
    private func adoptStore(_ r: inout WireReader) throws(WireReader.Short) {
        var values: [String: String] = [:]
        for _ in 0..<min(try r.u32(), UInt32(PluginStoreData.maxKeys)) {
            if let k = try r.string(), let v = try r.string() { values[k] = v }
        }
        if let host, let instance { host.adoptStore([instance.name: values]) }
    }

    private func answer(_ message: WireReader) throws(WireReader.Short) {
        var r = message
        guard let op = HelperOp(rawValue: try r.u8()), let code else { exit(2) }
        let hooks = code.hooks
        effects = WireWriter(.answer)
        effectCount = 0
        effectsOfKind = [0, 0, 0, 0, 0, 0]
        caller = nil
        reply.pointee = tabd_reply(struct_size: MemoryLayout<tabd_reply>.size, reason: nil, message: nil, json: nil)
        var result = TABD_OK
        var mask: UInt32 = 0
        switch op {
        case .initialize:
            let config = try r.cString()
            try adoptStore(&r)
            try readControllers(&r)
            if let hook = hooks.`init` {
                var newState: UnsafeMutableRawPointer?
                result = hook(table, config, &newState, reply)
                if result == TABD_OK { state = newState }
            }
        case .fini:
            hooks.fini?(state)
            state = nil
        case .shouldSelect:
            try readSnapshot(&r); try readCandidate(&r)
            inHook = true
            result = hooks.should_select?(state, token, candidate, reply) ?? TABD_ABSTAIN
        case .supportedOrientations:
            try readSnapshot(&r)
            let proposed = try r.u32()
            inHook = true
            result = hooks.supported_orientations?(state, token, proposed, &mask) ?? TABD_ABSTAIN
        case .preferredOrientation:
            try readSnapshot(&r)
            inHook = true
            result = hooks.preferred_orientation?(state, token, &mask) ?? TABD_ABSTAIN
        case .didSelect:
            try readSnapshot(&r); try readCandidate(&r)
            inHook = true
            hooks.did_select?(state, token, candidate)
        case .willBeginCustomizing, .willEndCustomizing, .didEndCustomizing:
            try readSnapshot(&r)
            let ids = try readTabs(&r)
            let changed = Int32(try r.u8())
            inHook = true
            ids.withUnsafeBufferPointer { p in
                let n = ids.count - 1
                switch op {
                case .willBeginCustomizing: hooks.will_begin_customizing?(state, token, p.baseAddress!, n)
                case .willEndCustomizing: hooks.will_end_customizing?(state, token, p.baseAddress!, n, changed)
                default: hooks.did_end_customizing?(state, token, p.baseAddress!, n, changed)
                }
            }
        case .call:
            try readSnapshot(&r)
            let method = try r.cString(), args = try r.cString()
            if try r.u8() == 1 {
                var c = PluginCaller(uid: try r.u32(), gid: try r.u32(), pid: Int32(bitPattern: try r.u32()))
                c.isAdmin = try r.u8() == 1
                for _ in 0..<min(try r.u32(), 65536) { c.groups.append(try r.u32()) }
                c.via = try r.string()
                caller = c
            }
            inHook = true
            result = hooks.call?(state, token, method, args, reply) ?? TABD_UNKNOWN_METHOD
        case .willStop:
            try readSnapshot(&r)
            inHook = true
            code.willStop?(state, token)
        case .visibilityChanged:
            try readSnapshot(&r)
            let n = Int(try r.u32())
            var entries: [tabd_visibility] = []
            for _ in 0..<n { entries.append(tabd_visibility(id: try r.cString(), hidden: Int32(try r.u8()))) }
            inHook = true
            entries.withUnsafeBufferPointer { hooks.visibility_changed?(state, token, $0.baseAddress, n) }
        case .displayOrderChanged:
            try readSnapshot(&r)
            let hasGroup = try r.u8() == 1
            let group = try r.cString()
            let ids = try readTabs(&r)
            inHook = true
            ids.withUnsafeBufferPointer { hooks.display_order_changed?(state, token, hasGroup ? group : nil, $0.baseAddress!, ids.count - 1) }
        case .selectionChanged:
            try readSnapshot(&r)
            let id = try r.cString(), previous = try r.cString()
            let cause = tabd_selection_cause(rawValue: try r.u32())
            let ids = try readTabs(&r)
            var change = tabd_selection_change(struct_size: MemoryLayout<tabd_selection_change>.size, id: id, previous: previous,
                                               cause: cause, path: nil, path_count: ids.count - 1)
            inHook = true
            ids.withUnsafeBufferPointer { p in
                if change.path_count > 0 { change.path = p.baseAddress }
                hooks.selection_changed?(state, token, &change)
            }
        case .timer:
            let hasController = try r.u8() == 1
            if hasController { try readSnapshot(&r) }
            let timerName = try r.cString()
            if let timerName { armed.remove(Self.timerKey(hasController ? name : nil, timerName)) }
            inHook = true
            hooks.timer?(state, hasController ? token : nil, timerName)
        case .storeSync:
            try adoptStore(&r)
        case .controllerCreated, .controllerDeleted:
            try readSnapshot(&r)
            try readControllers(&r)
            inHook = true
            if op == .controllerCreated { hooks.controller_created?(state, token) } else { hooks.controller_deleted?(state, token) }
        case .controllersSync:
            try readControllers(&r)
        case .mayOpenDrawer:
            let controller = try r.cString(), side = try r.cString(), gesture = try r.cString()
            var open = tabd_drawer_open(struct_size: MemoryLayout<tabd_drawer_open>.size, controller: controller, side: side, gesture: gesture)
            inHook = true
            result = hooks.may_open_drawer?(state, &open, reply) ?? TABD_ABSTAIN
        case .topColumnForCollapsing:
            let controller = try r.cString(), style = try r.cString(), proposed = try r.cString()
            var c = tabd_split_collapse(struct_size: MemoryLayout<tabd_split_collapse>.size, controller: controller, style: style, proposed: proposed)
            var answer: UnsafePointer<CChar>?
            inHook = true
            result = hooks.top_column_for_collapsing?(state, &c, &answer) ?? TABD_ABSTAIN
            reply.pointee.reason = answer  // the answer goes back in the reason slot
        case .displayModeForExpanding:
            let controller = try r.cString(), style = try r.cString(), behavior = try r.cString(), proposed = try r.cString()
            var e = tabd_split_expand(struct_size: MemoryLayout<tabd_split_expand>.size, controller: controller, style: style,
                                      behavior: behavior, proposed: proposed)
            var answer: UnsafePointer<CChar>?
            inHook = true
            result = hooks.display_mode_for_expanding?(state, &e, &answer) ?? TABD_ABSTAIN
            reply.pointee.reason = answer
        case .notify:
            let event = try r.cString(), controller = try r.cString(), json = try r.cString()
            var n = tabd_notification(struct_size: MemoryLayout<tabd_notification>.size, name: event, controller: controller,
                                      json: json, json_length: json.map { strlen($0) } ?? 0)
            inHook = true
            result = hooks.notify?(state, &n) ?? TABD_OK
        case .storePatch:
            for _ in 0..<min(try r.u32(), UInt32(PluginStoreData.maxKeys) * 4) {
                if let k = try r.string() { let v = try r.string(); if let instance { host?.patchStore(instance.name, k, v) } }
            }
        case .hello, .answer:
            exit(2)
        }
        inHook = false
        var w = WireWriter(.answer, capacity: 64 + effects.bytes.count)
        w.u32(result.rawValue)
        w.u32(mask)
        w.string(reply.pointee.reason, max: HookCaps.textBytes + 1); w.string(reply.pointee.message, max: HookCaps.textBytes + 1)
        w.string(reply.pointee.json, max: PluginHost.maxResultBytes + 1)
        w.u32(effectCount)
        w.bytes.append(contentsOf: effects.bytes.dropFirst())
        _ = host?.takeEffects()  // the helper's host queued the store writes sent above
        endHook()
        send(w)
    }
}
