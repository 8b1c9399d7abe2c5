// An isolated plugin's hooks as tabd calls them: C trampolines that send the hook to the
// helper (with the controller's snapshot) and turn its answer — or its failure — into what
// an in-process hook would have returned.

import CTabPolicy
import Glibc
import TabCore

extension RemotePlugin {
    static func of(_ state: UnsafeMutableRawPointer?) -> RemotePlugin {
        Unmanaged<RemotePlugin>.fromOpaque(state!).takeUnretainedValue()
    }

    /// The plugin's descriptor as tabd sees it: its identity from the hello, a trampoline
    /// for each hook it has (init and fini are run by `initialize` and `stop`).
    func makeCode(name: String, version: String, summary: String, major: UInt32, minor: UInt32, hooks bits: UInt32) throws(Refusal) -> PluginCode {
        func has(_ h: PluginHook) -> Bool { bits & (1 << UInt32(h.index)) != 0 }
        var d = tabd_policy_descriptor()
        d.abi_major = major; d.abi_minor = minor
        d.struct_size = MemoryLayout<tabd_policy_descriptor>.size
        // Descriptor strings live for ever, as a plugin's own do.
        d.name = UnsafePointer(strdup(name)); d.version = UnsafePointer(strdup(version)); d.description = UnsafePointer(strdup(summary))
        if has(.initialize) { d.`init` = { _, _, _, _ in TABD_ERROR } }  // listed only; `initialize` runs it
        if has(.fini) { d.fini = { _ in } }                                // listed only; `stop` runs it
        if has(.shouldSelect) { d.should_select = { s, c, cand, r in RemotePlugin.of(s).shouldSelect(c, cand, r) } }
        if has(.supportedOrientations) {
            d.supported_orientations = { s, c, proposed, out in RemotePlugin.of(s).orientations(.supportedOrientations, c, proposed, out) }
        }
        if has(.preferredOrientation) {
            d.preferred_orientation = { s, c, out in RemotePlugin.of(s).orientations(.preferredOrientation, c, 0, out) }
        }
        if has(.didSelect) { d.did_select = { s, c, cand in RemotePlugin.of(s).didSelect(c, cand) } }
        if has(.willBeginCustomizing) {
            d.will_begin_customizing = { s, c, ids, n in RemotePlugin.of(s).customizing(.willBeginCustomizing, c, ids, n, 0) }
        }
        if has(.willEndCustomizing) {
            d.will_end_customizing = { s, c, ids, n, changed in RemotePlugin.of(s).customizing(.willEndCustomizing, c, ids, n, changed) }
        }
        if has(.didEndCustomizing) {
            d.did_end_customizing = { s, c, ids, n, changed in RemotePlugin.of(s).customizing(.didEndCustomizing, c, ids, n, changed) }
        }
        if has(.call) { d.call = { s, c, m, a, r in RemotePlugin.of(s).call(c, m, a, r) } }
        if has(.willStop) { d.will_stop = { s, c in RemotePlugin.of(s).notify(.willStop, c) } }
        if has(.visibilityChanged) {
            d.visibility_changed = { s, c, tabs, n in RemotePlugin.of(s).visibilityChanged(c, tabs, n) }
        }
        if has(.displayOrderChanged) {
            d.display_order_changed = { s, c, group, ids, n in RemotePlugin.of(s).displayOrderChanged(c, group, ids, n) }
        }
        if has(.selectionChanged) { d.selection_changed = { s, c, change in RemotePlugin.of(s).selectionChanged(c, change) } }
        if has(.timer) { d.timer = { s, c, name in RemotePlugin.of(s).timer(c, name) } }
        if has(.controllerCreated) { d.controller_created = { s, c in RemotePlugin.of(s).controllerChanged(.controllerCreated, c) } }
        if has(.controllerDeleted) { d.controller_deleted = { s, c in RemotePlugin.of(s).controllerChanged(.controllerDeleted, c) } }
        if has(.mayOpenDrawer) { d.may_open_drawer = { s, open, r in RemotePlugin.of(s).mayOpenDrawer(open, r) } }
        if has(.topColumnForCollapsing) {
            d.top_column_for_collapsing = { s, c, out in
                guard let c else { return TABD_ERROR }
                return RemotePlugin.of(s).proposal(.topColumnForCollapsing, [c.pointee.controller, c.pointee.style, c.pointee.proposed], out)
            }
        }
        if has(.displayModeForExpanding) {
            d.display_mode_for_expanding = { s, e, out in
                guard let e else { return TABD_ERROR }
                return RemotePlugin.of(s).proposal(.displayModeForExpanding, [e.pointee.controller, e.pointee.style, e.pointee.behavior, e.pointee.proposed], out)
            }
        }
        if has(.notify) { d.notify = { s, n in RemotePlugin.of(s).notify(n) } }
        let p = UnsafeMutablePointer<tabd_policy_descriptor>.allocate(capacity: 1)
        p.initialize(to: d)
        return try PluginCode(path: path, identity: identity, descriptor: p)
    }

    /// A request for `op` with the controller's snapshot; nil when the frame has no controller.
    private func request(_ op: HelperOp, _ c: OpaquePointer?) -> (WireWriter, CallFrame, Controller)? {
        guard let frame = CallFrame.from(c), let ctl = frame.controller else { return nil }
        var w = WireWriter(op, capacity: 512)
        ControllerSnapshot.write(ctl.pointee, &w)
        return (w, frame, ctl.pointee)
    }

    private static func write(_ cand: UnsafePointer<tabd_candidate>, _ w: inout WireWriter) {
        w.string(cand.pointee.id)
        w.i64(Int64(cand.pointee.index))
        w.u8(cand.pointee.is_more != 0 ? 1 : 0)
        // The path (since 1.4): tabd always fills it.
        let n = cand.pointee.path == nil ? 0 : cand.pointee.path_count
        w.u32(UInt32(n))
        for i in 0..<n { w.string(cand.pointee.path[i]) }
        w.u8(cand.pointee.is_search != 0 ? 1 : 0)  // since 1.6: tabd always fills it
    }

    func visibilityChanged(_ c: OpaquePointer?, _ tabs: UnsafePointer<tabd_visibility>?, _ n: Int) {
        guard let (message, _, controller) = request(.visibilityChanged, c) else { return }
        var w = message
        w.u32(UInt32(n))
        for i in 0..<n { w.string(tabs?[i].id); w.u8(tabs?[i].hidden != 0 ? 1 : 0) }
        if case .success(let a) = exchange(w.bytes, hook: .visibilityChanged) { apply(a.effects, controller: controller.name) }
    }

    func displayOrderChanged(_ c: OpaquePointer?, _ group: UnsafePointer<CChar>?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ n: Int) {
        guard let (message, _, controller) = request(.displayOrderChanged, c) else { return }
        var w = message
        w.u8(group == nil ? 0 : 1); w.string(group)
        w.u32(UInt32(n))
        for i in 0..<n { w.string(ids?[i]) }
        if case .success(let a) = exchange(w.bytes, hook: .displayOrderChanged) { apply(a.effects, controller: controller.name) }
    }

    func selectionChanged(_ c: OpaquePointer?, _ change: UnsafePointer<tabd_selection_change>?) {
        guard let change, let (message, _, controller) = request(.selectionChanged, c) else { return }
        var w = message
        w.string(change.pointee.id); w.string(change.pointee.previous)
        w.u32(change.pointee.cause.rawValue)
        let n = change.pointee.path == nil ? 0 : change.pointee.path_count
        w.u32(UInt32(n))
        for i in 0..<n { w.string(change.pointee.path[i]) }
        if case .success(let a) = exchange(w.bytes, hook: .selectionChanged) { apply(a.effects, controller: controller.name) }
    }

    /// A timer: with the controller's snapshot, or none (a timer of no controller).
    func timer(_ c: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
        var w = WireWriter(.timer, capacity: 512)
        var controller: String?
        if let ctl = CallFrame.from(c)?.controller {
            w.u8(1)
            ControllerSnapshot.write(ctl.pointee, &w)
            controller = ctl.pointee.name
        } else {
            w.u8(0)
        }
        w.string(name)
        if case .success(let a) = exchange(w.bytes, hook: .timer) { apply(a.effects, controller: controller) }
    }

    func shouldSelect(_ c: OpaquePointer?, _ cand: UnsafePointer<tabd_candidate>?, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        guard let cand, let reply, let (message, frame, controller) = request(.shouldSelect, c) else { return TABD_ERROR }
        var w = message
        Self.write(cand, &w)
        switch exchange(w.bytes, hook: .shouldSelect) {
        case .success(let a):
            apply(a.effects, controller: controller.name)
            reply.pointee.reason = frame.keep(a.reason)
            reply.pointee.message = frame.keep(a.message)
            return a.result
        case .failure(let f):
            // Fail closed: a deny naming the plugin, with why.
            let id = cand.pointee.id.map { String(cString: $0) } ?? "?"
            reply.pointee.reason = frame.keep(f.reason)
            reply.pointee.message = frame.keep("plugin '\(displayName)' \(f.reason) while deciding whether '\(id)' can be selected, so it is not; its helper is restarted")
            return TABD_DENY
        }
    }

    /// may_open_drawer (since 1.10): the drawer's name, side and gesture. A crash or a timeout
    /// refuses, as for should_select.
    func mayOpenDrawer(_ open: UnsafePointer<tabd_drawer_open>?, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        guard let open, let reply, let frame = owner?.host.frame else { return TABD_ERROR }
        var w = WireWriter(.mayOpenDrawer, capacity: 128)
        w.string(open.pointee.controller); w.string(open.pointee.side); w.string(open.pointee.gesture)
        switch exchange(w.bytes, hook: .mayOpenDrawer) {
        case .success(let a):
            apply(a.effects, controller: nil)
            reply.pointee.reason = frame.keep(a.reason)
            reply.pointee.message = frame.keep(a.message)
            return a.result
        case .failure(let f):
            let side = open.pointee.side.map { String(cString: $0) } ?? "?"
            let controller = open.pointee.controller.map { String(cString: $0) } ?? "?"
            reply.pointee.reason = frame.keep(f.reason)
            reply.pointee.message = frame.keep("plugin '\(displayName)' \(f.reason) while deciding whether the \(side) drawer of '\(controller)' can be opened, so it is not; its helper is restarted")
            return TABD_DENY
        }
    }

    /// top_column_for_collapsing or display_mode_for_expanding (since 1.11): the struct's
    /// strings in order; the helper's answer comes back in the `reason` slot. A crash or a
    /// timeout is a failure (TABD_ERROR): the proposal is kept.
    func proposal(_ hook: PluginHook, _ strings: [UnsafePointer<CChar>?], _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result {
        guard let out, let frame = owner?.host.frame else { return TABD_ERROR }
        var w = WireWriter(hook == .topColumnForCollapsing ? .topColumnForCollapsing : .displayModeForExpanding, capacity: 128)
        for s in strings { w.string(s) }
        guard case .success(let a) = exchange(w.bytes, hook: hook) else { return TABD_ERROR }
        apply(a.effects, controller: nil)
        out.pointee = frame.keep(a.reason)
        return a.result
    }

    /// notify (since 1.11): the event's name, controller and JSON. Told only: a crash or a
    /// timeout changes nothing but the helper's restart.
    func notify(_ n: UnsafePointer<tabd_notification>?) -> tabd_result {
        guard let n else { return TABD_ERROR }
        var w = WireWriter(.notify, capacity: 64 + n.pointee.json_length)
        w.string(n.pointee.name); w.string(n.pointee.controller); w.string(n.pointee.json)
        guard case .success(let a) = exchange(w.bytes, hook: .notify) else { return TABD_ERROR }
        apply(a.effects, controller: nil)
        return a.result
    }

    func orientations(_ hook: PluginHook, _ c: OpaquePointer?, _ proposed: tabd_orientation_mask, _ out: UnsafeMutablePointer<tabd_orientation_mask>?) -> tabd_result {
        guard let out, let (message, _, controller) = request(hook == .supportedOrientations ? .supportedOrientations : .preferredOrientation, c) else { return TABD_ERROR }
        var w = message
        if hook == .supportedOrientations { w.u32(proposed) }
        guard case .success(let a) = exchange(w.bytes, hook: hook) else { return TABD_ERROR }
        apply(a.effects, controller: controller.name)
        out.pointee = a.mask
        return a.result
    }

    func didSelect(_ c: OpaquePointer?, _ cand: UnsafePointer<tabd_candidate>?) {
        guard let cand, let (message, _, controller) = request(.didSelect, c) else { return }
        var w = message
        Self.write(cand, &w)
        if case .success(let a) = exchange(w.bytes, hook: .didSelect) { apply(a.effects, controller: controller.name) }
    }

    func customizing(_ hook: PluginHook, _ c: OpaquePointer?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ n: Int, _ changed: Int32) {
        let op: HelperOp = hook == .willBeginCustomizing ? .willBeginCustomizing : hook == .willEndCustomizing ? .willEndCustomizing : .didEndCustomizing
        guard let (message, _, controller) = request(op, c) else { return }
        var w = message
        w.u32(UInt32(n))
        for i in 0..<n { w.string(ids?[i]) }
        w.u8(changed != 0 ? 1 : 0)
        if case .success(let a) = exchange(w.bytes, hook: hook) { apply(a.effects, controller: controller.name) }
    }

    /// controller_created or controller_deleted (since 1.7): the snapshot, then the names of
    /// the controllers after the change.
    func controllerChanged(_ hook: PluginHook, _ c: OpaquePointer?) {
        guard let (message, _, controller) = request(hook == .controllerCreated ? .controllerCreated : .controllerDeleted, c) else { return }
        var w = message
        writeControllers(&w)
        if case .success(let a) = exchange(w.bytes, hook: hook) { apply(a.effects, controller: controller.name) }
    }

    func notify(_ hook: PluginHook, _ c: OpaquePointer?) {
        guard let (w, _, controller) = request(.willStop, c) else { return }
        if case .success(let a) = exchange(w.bytes, hook: hook) { apply(a.effects, controller: controller.name) }
    }

    func call(_ c: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ args: UnsafePointer<CChar>?, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        guard let reply, let (message, frame, controller) = request(.call, c) else { return TABD_ERROR }
        var w = message
        w.string(method); w.string(args)
        if let caller = frame.caller {
            w.u8(1); w.u32(caller.uid); w.u32(caller.gid); w.u32(UInt32(bitPattern: caller.pid))
            w.u8(caller.isAdmin ? 1 : 0); w.u32(UInt32(caller.groups.count))
            for g in caller.groups { w.u32(g) }
            w.string(caller.via)
        } else {
            w.u8(0)
        }
        switch exchange(w.bytes, hook: .call) {
        case .success(let a):
            apply(a.effects, controller: controller.name)
            reply.pointee.reason = frame.keep(a.reason)
            reply.pointee.message = frame.keep(a.message)
            reply.pointee.json = frame.keep(a.json)
            return a.result
        case .failure(let f):
            let m = method.map { String(cString: $0) } ?? "?"
            reply.pointee.message = frame.keep("plugin '\(displayName)' \(f.reason) while running '\(m)'; its helper is restarted")
            return TABD_ERROR
        }
    }
}
