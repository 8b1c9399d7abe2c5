// The bridge from a `PolicyPlugin` type to the C descriptor tabd reads. One plugin type per
// shared object: `exportPolicy` is what the plugin's tabd_policy_entry returns.

import CTabPolicy
import Glibc
import TabStrings

/// The descriptor of `type`, for the plugin's `tabd_policy_entry`:
///
///     @_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(MyPolicy.self) }
public func exportPolicy<P: PolicyPlugin>(_ type: P.Type) -> UnsafeRawPointer {
    if let d = Exported.descriptor { return UnsafeRawPointer(d) }
    Exported.type = type
    let d = UnsafeMutablePointer<tabd_policy_descriptor>.allocate(capacity: 1)
    // A hook is in the descriptor exactly when the type conforms to its protocol.
    d.initialize(to: tabd_policy_descriptor(
        abi_major: UInt32(TABD_POLICY_ABI_MAJOR),
        abi_minor: UInt32(TABD_POLICY_ABI_MINOR),
        struct_size: MemoryLayout<tabd_policy_descriptor>.size,
        name: UnsafePointer(strdup(type.name)),
        version: UnsafePointer(strdup(type.version)),
        description: UnsafePointer(strdup(type.summary)),
        init: Thunks.initialize,
        fini: Thunks.fini,
        should_select: type is any ShouldSelectHook.Type ? Thunks.shouldSelect : nil,
        supported_orientations: type is any SupportedOrientationsHook.Type ? Thunks.supportedOrientations : nil,
        preferred_orientation: type is any PreferredOrientationHook.Type ? Thunks.preferredOrientation : nil,
        did_select: type is any DidSelectHook.Type ? Thunks.didSelect : nil,
        will_begin_customizing: type is any WillBeginCustomizingHook.Type ? Thunks.willBeginCustomizing : nil,
        will_end_customizing: type is any WillEndCustomizingHook.Type ? Thunks.willEndCustomizing : nil,
        did_end_customizing: type is any DidEndCustomizingHook.Type ? Thunks.didEndCustomizing : nil,
        call: type is any CallHook.Type ? Thunks.call : nil,
        will_stop: type is any WillStopHook.Type ? Thunks.willStop : nil,
        visibility_changed: type is any VisibilityChangedHook.Type ? Thunks.visibilityChanged : nil,
        display_order_changed: type is any DisplayOrderChangedHook.Type ? Thunks.displayOrderChanged : nil,
        selection_changed: type is any SelectionChangedHook.Type ? Thunks.selectionChanged : nil,
        timer: type is any TimerHook.Type ? Thunks.timer : nil,
        controller_created: type is any ControllerCreatedHook.Type ? Thunks.controllerCreated : nil,
        controller_deleted: type is any ControllerDeletedHook.Type ? Thunks.controllerDeleted : nil,
        may_open_drawer: type is any MayOpenDrawerHook.Type ? Thunks.mayOpenDrawer : nil,
        top_column_for_collapsing: type is any TopColumnForCollapsingHook.Type ? Thunks.topColumnForCollapsing : nil,
        display_mode_for_expanding: type is any DisplayModeForExpandingHook.Type ? Thunks.displayModeForExpanding : nil,
        notify: type is any NotifyHook.Type ? Thunks.notify : nil
    ))
    Exported.descriptor = d
    return UnsafeRawPointer(d)
}

/// What this shared object exports. Set once, by the first tabd_policy_entry call.
/// nonisolated(unsafe): tabd calls a plugin only from its loop thread (docs/plugins.md, "One
/// thread"), entry and hooks alike, so these are never read while being written.
enum Exported {
    nonisolated(unsafe) static var type: (any PolicyPlugin.Type)?
    nonisolated(unsafe) static var descriptor: UnsafeMutablePointer<tabd_policy_descriptor>?
    /// The message of the last failed init (there is no instance to keep it).
    nonisolated(unsafe) static var initError: UnsafeMutablePointer<CChar>?
}

/// One initialised plugin: what `state` points at.
final class Instance {
    let plugin: any PolicyPlugin
    let host: PolicyHost
    // The plugin as each hook protocol it conforms to: cast once, here, not on every call.
    let shouldSelect: (any ShouldSelectHook)?
    let supportedOrientations: (any SupportedOrientationsHook)?
    let preferredOrientation: (any PreferredOrientationHook)?
    let didSelect: (any DidSelectHook)?
    let willBeginCustomizing: (any WillBeginCustomizingHook)?
    let willEndCustomizing: (any WillEndCustomizingHook)?
    let didEndCustomizing: (any DidEndCustomizingHook)?
    let call: (any CallHook)?
    let willStop: (any WillStopHook)?
    let shutdown: (any ShutdownHook)?
    let visibilityChanged: (any VisibilityChangedHook)?
    let displayOrderChanged: (any DisplayOrderChangedHook)?
    let selectionChanged: (any SelectionChangedHook)?
    let timer: (any TimerHook)?
    let controllerCreated: (any ControllerCreatedHook)?
    let controllerDeleted: (any ControllerDeletedHook)?
    let mayOpenDrawer: (any MayOpenDrawerHook)?
    let topColumnForCollapsing: (any TopColumnForCollapsingHook)?
    let displayModeForExpanding: (any DisplayModeForExpandingHook)?
    let notify: (any NotifyHook)?
    /// Strings handed to tabd in the last reply; tabd copies them when the hook returns.
    /// Unchecked: read by every hook, and no hook reaches it while another access is open
    /// (the dynamic check cost ~75 instructions per decision).
    @exclusivity(unchecked) private var kept: [UnsafeMutablePointer<CChar>] = []
    /// The last controller name the plugin read (`ControllerView.name`).
    private let names: UnsafeMutablePointer<NameMemo> = {
        let p = UnsafeMutablePointer<NameMemo>.allocate(capacity: 1)
        p.initialize(to: NameMemo())
        return p
    }()

    init(plugin: any PolicyPlugin, host: PolicyHost) {
        self.plugin = plugin; self.host = host
        shouldSelect = plugin as? any ShouldSelectHook
        supportedOrientations = plugin as? any SupportedOrientationsHook
        preferredOrientation = plugin as? any PreferredOrientationHook
        didSelect = plugin as? any DidSelectHook
        willBeginCustomizing = plugin as? any WillBeginCustomizingHook
        willEndCustomizing = plugin as? any WillEndCustomizingHook
        didEndCustomizing = plugin as? any DidEndCustomizingHook
        call = plugin as? any CallHook
        willStop = plugin as? any WillStopHook
        shutdown = plugin as? any ShutdownHook
        visibilityChanged = plugin as? any VisibilityChangedHook
        displayOrderChanged = plugin as? any DisplayOrderChangedHook
        selectionChanged = plugin as? any SelectionChangedHook
        timer = plugin as? any TimerHook
        controllerCreated = plugin as? any ControllerCreatedHook
        controllerDeleted = plugin as? any ControllerDeletedHook
        mayOpenDrawer = plugin as? any MayOpenDrawerHook
        topColumnForCollapsing = plugin as? any TopColumnForCollapsingHook
        displayModeForExpanding = plugin as? any DisplayModeForExpandingHook
        notify = plugin as? any NotifyHook
    }

    deinit {
        names.pointee.clear()
        names.deinitialize(count: 1)
        names.deallocate()
    }

    static func from(_ state: UnsafeMutableRawPointer?) -> Instance? {
        state.map { Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue() }
    }

    func view(_ c: OpaquePointer?) -> ControllerView { ControllerView(host.table, c, names: names) }

    /// Frees the previous reply's strings (tabd has copied them by now).
    @inline(__always)
    func beginHook() {
        if !kept.isEmpty { freeKept() }
    }

    private func freeKept() {
        for p in kept { free(p) }
        kept.removeAll(keepingCapacity: true)
    }

    func keep(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s, let p = strdup(s) else { return nil }
        kept.append(p)
        return UnsafePointer(p)
    }

    /// should_select: the plugin's verdict on the candidate.
    func shouldSelect(_ c: OpaquePointer?, _ cand: UnsafePointer<tabd_candidate>?, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        beginHook()
        // Called through the optional: the existential is not copied (retained) around it.
        guard let verdict = shouldSelect?.shouldSelect(candidate(cand), in: view(c)) else { return TABD_ABSTAIN }
        return answer(verdict, reply)
    }

    /// A veto's verdict as its C result, a deny's words in the reply.
    @inline(__always)
    private func answer(_ verdict: Verdict, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        switch verdict {
        case .allow: return TABD_ALLOW
        case .abstain: return TABD_ABSTAIN
        case .deny(let reason, let message):
            reply?.pointee.reason = keep(reason)
            reply?.pointee.message = keep(message)
            return TABD_DENY
        }
    }

    /// may_open_drawer: the plugin's verdict on a user's open of a drawer.
    func mayOpenDrawer(_ open: UnsafePointer<tabd_drawer_open>?, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        beginHook()
        guard let open, let hook = mayOpenDrawer else { return TABD_ABSTAIN }
        let o = open.pointee
        let request = DrawerOpen(controller: field(o.controller), side: field(o.side), gesture: field(o.gesture))
        return answer(hook.mayOpenDrawer(request), reply)
    }

    /// A split proposal's answer (a wire name, or nil to abstain) as its C result, the name
    /// kept until the next hook.
    func propose(_ answer: String?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result {
        guard let answer else { return TABD_ABSTAIN }
        out?.pointee = keep(answer)
        return TABD_OK
    }

    func fail(_ error: Error, _ reply: UnsafeMutablePointer<tabd_reply>?) -> tabd_result {
        guard let e = error as? PolicyError else {
            reply?.pointee.message = keep(String(describing: error))
            return TABD_ERROR
        }
        // An unknown method is worded by tabd ("plugin 'p' has no method 'x'", with the name
        // the configuration gives the plugin), as for a plugin in C.
        if e.kind != .unknownMethod { reply?.pointee.message = keep(e.message) }
        switch e.kind {
        case .invalid: return TABD_ERROR
        case .denied:
            reply?.pointee.reason = keep(e.reason ?? e.message)
            return TABD_DENY
        case .unknownMethod: return TABD_UNKNOWN_METHOD
        }
    }
}

private func candidate(_ c: UnsafePointer<tabd_candidate>?) -> Candidate {
    guard let c, c.pointee.is_more == 0, let id = c.pointee.id else { return .more }
    // The path, since 1.4: only when tabd's struct has it. A path of the tab alone (tabd
    // passes the id's own pointer, or an equal string) is left to `Candidate.path` to make
    // when read: no array per decision about a tab outside any group.
    let hasPath = c.pointee.struct_size >= MemoryLayout<tabd_candidate>.offset(of: \tabd_candidate.path_count)! + MemoryLayout<Int>.size
    var deeper: [String]?
    if hasPath, let p = c.pointee.path {
        let n = c.pointee.path_count
        if n == 1, let first = p[0], first == id || strcmp(first, id) == 0 {
            deeper = nil
        } else {
            let path = strings(p, n)
            deeper = path.isEmpty ? nil : path
        }
    }
    // Since 1.6: whether it is the search tab.
    let hasSearch = c.pointee.struct_size >= MemoryLayout<tabd_candidate>.offset(of: \tabd_candidate.is_search)! + MemoryLayout<Int32>.size
    return Candidate(id: string(id), index: c.pointee.index, deeperPath: deeper, isSearch: hasSearch && c.pointee.is_search != 0)
}

/// The String of a C string tabd handed over: a tab id is nearly always short ASCII, made
/// from its bytes without the standard library's validation (SmallASCII); anything else as
/// `String(cString:)` makes it.
@inline(__always)
func string(_ p: UnsafePointer<CChar>) -> String {
    SmallASCII.string(cString: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self)) ?? String(cString: p)
}

/// A string field of a struct tabd passed (NULL: "").
private func field(_ p: UnsafePointer<CChar>?) -> String { p.map { string($0) } ?? "" }

private func strings(_ p: UnsafePointer<UnsafePointer<CChar>?>?, _ n: Int) -> [String] {
    guard let p else { return [] }
    return (0..<n).compactMap { p[$0].map { String(cString: $0) } }
}

/// The C hooks: each finds the instance behind `state` and calls the Swift method.
enum Thunks {
    static let initialize: @convention(c) (UnsafePointer<tabd_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result = { host, config, state, reply in
        free(Exported.initError)
        Exported.initError = nil
        func failed(_ message: String) -> tabd_result {
            Exported.initError = strdup(message)
            reply?.pointee.message = UnsafePointer(Exported.initError)
            return TABD_ERROR
        }
        guard let type = Exported.type, let host, let state else { return failed("tabd_policy_entry was not called") }
        do {
            let settings = try JSON(parsing: config.map { String(cString: $0) } ?? "{}")
            guard case .object = settings else { return failed("settings must be a JSON object") }
            let policyHost = PolicyHost(host)
            let plugin = try type.init(settings: settings, host: policyHost)
            state.pointee = Unmanaged.passRetained(Instance(plugin: plugin, host: policyHost)).toOpaque()
            return TABD_OK
        } catch let e as PolicyError {
            return failed(e.message)
        } catch {
            return failed(String(describing: error))
        }
    }

    static let fini: @convention(c) (UnsafeMutableRawPointer?) -> Void = { state in
        guard let state else { return }
        let instance = Unmanaged<Instance>.fromOpaque(state)
        instance.takeUnretainedValue().shutdown?.shutdown()
        instance.takeUnretainedValue().beginHook()
        instance.release()
    }

    static let willStop: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void = { state, c in
        guard let i = Instance.from(state) else { return }
        i.willStop?.willStop(in: i.view(c))
    }

    static let visibilityChanged: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_visibility>?, Int) -> Void = { state, c, tabs, n in
        guard let i = Instance.from(state), let tabs else { return }
        let changes = (0..<n).compactMap { k in tabs[k].id.map { (id: String(cString: $0), hidden: tabs[k].hidden != 0) } }
        i.visibilityChanged?.visibilityChanged(changes, in: i.view(c))
    }

    static let displayOrderChanged: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?, Int) -> Void = { state, c, group, order, n in
        guard let i = Instance.from(state) else { return }
        i.displayOrderChanged?.displayOrderChanged(group: group.map { String(cString: $0) }, order: strings(order, n), in: i.view(c))
    }

    static let selectionChanged: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_selection_change>?) -> Void = { state, c, change in
        guard let i = Instance.from(state), let change else { return }
        let ch = change.pointee
        let path = strings(ch.path, ch.path_count)
        i.selectionChanged?.selectionChanged(SelectionChange(tab: ch.id.map { string($0) }, previous: ch.previous.map { string($0) },
                                                             cause: SelectionChange.Cause(ch.cause), path: path), in: i.view(c))
    }

    static let timer: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = { state, c, name in
        guard let i = Instance.from(state), let name else { return }
        i.timer?.timer(String(cString: name), in: c == nil ? nil : i.view(c))
    }

    static let controllerCreated: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void = { state, c in
        guard let i = Instance.from(state) else { return }
        i.controllerCreated?.controllerCreated(i.view(c))
    }

    static let controllerDeleted: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void = { state, c in
        guard let i = Instance.from(state) else { return }
        i.controllerDeleted?.controllerDeleted(i.view(c))
    }

    static let mayOpenDrawer: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_drawer_open>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result = { state, open, reply in
        guard let i = Instance.from(state) else { return TABD_ERROR }
        return i.mayOpenDrawer(open, reply)
    }

    static let topColumnForCollapsing: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_split_collapse>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result = { state, collapse, out in
        guard let i = Instance.from(state), let c = collapse?.pointee else { return TABD_ERROR }
        i.beginHook()
        return i.propose(i.topColumnForCollapsing?.topColumnForCollapsing(
            SplitCollapse(controller: field(c.controller), style: field(c.style), proposed: field(c.proposed))), out)
    }

    static let displayModeForExpanding: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_split_expand>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result = { state, expand, out in
        guard let i = Instance.from(state), let e = expand?.pointee else { return TABD_ERROR }
        i.beginHook()
        return i.propose(i.displayModeForExpanding?.displayModeForExpanding(
            SplitExpand(controller: field(e.controller), style: field(e.style), behavior: field(e.behavior), proposed: field(e.proposed))), out)
    }

    static let notify: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_notification>?) -> tabd_result = { state, n in
        guard let i = Instance.from(state), let n = n?.pointee else { return TABD_ERROR }
        i.notify?.notify(ContainerEvent(name: field(n.name), controller: field(n.controller), json: n.json.map { String(cString: $0) } ?? ""))
        return TABD_OK
    }

    static let shouldSelect: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_candidate>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result = { state, c, cand, reply in
        guard let state else { return TABD_ERROR }
        // Borrowed, not retained and released: tabd holds the instance (init's reference)
        // until fini, which no hook can reach.
        return Unmanaged<Instance>.fromOpaque(state)._withUnsafeGuaranteedRef { $0.shouldSelect(c, cand, reply) }
    }

    static let supportedOrientations: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, tabd_orientation_mask, UnsafeMutablePointer<tabd_orientation_mask>?) -> tabd_result = { state, c, proposed, mask in
        guard let i = Instance.from(state) else { return TABD_ERROR }
        guard let answer = i.supportedOrientations?.supportedOrientations(proposed: Orientations(rawValue: proposed), in: i.view(c)) else {
            return TABD_ABSTAIN
        }
        mask?.pointee = answer.rawValue
        return TABD_OK
    }

    static let preferredOrientation: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<tabd_orientation_mask>?) -> tabd_result = { state, c, out in
        guard let i = Instance.from(state) else { return TABD_ERROR }
        guard let o = i.preferredOrientation?.preferredOrientation(in: i.view(c)) else { return TABD_ABSTAIN }
        out?.pointee = o.mask.rawValue
        return TABD_OK
    }

    static let didSelect: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_candidate>?) -> Void = { state, c, cand in
        guard let i = Instance.from(state) else { return }
        i.didSelect?.didSelect(candidate(cand), in: i.view(c))
    }

    static let willBeginCustomizing: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>?, Int) -> Void = { state, c, tabs, n in
        guard let i = Instance.from(state) else { return }
        i.willBeginCustomizing?.willBeginCustomizing(tabs: strings(tabs, n), in: i.view(c))
    }

    static let willEndCustomizing: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>?, Int, Int32) -> Void = { state, c, tabs, n, changed in
        guard let i = Instance.from(state) else { return }
        i.willEndCustomizing?.willEndCustomizing(tabs: strings(tabs, n), changed: changed != 0, in: i.view(c))
    }

    static let didEndCustomizing: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>?, Int, Int32) -> Void = { state, c, tabs, n, changed in
        guard let i = Instance.from(state) else { return }
        i.didEndCustomizing?.didEndCustomizing(tabs: strings(tabs, n), changed: changed != 0, in: i.view(c))
    }

    static let call: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result = { state, c, method, args, reply in
        guard let i = Instance.from(state), let method else { return TABD_ERROR }
        guard let hook = i.call else { return TABD_UNKNOWN_METHOD }
        i.beginHook()
        do {
            let parsed = try args.map { try JSON(parsing: $0, count: strlen($0)) } ?? .object([:])
            let result = try hook.call(String(cString: method), args: parsed, in: i.view(c))
            reply?.pointee.json = i.keep(result.text)
            return TABD_OK
        } catch {
            return i.fail(error, reply)
        }
    }
}
