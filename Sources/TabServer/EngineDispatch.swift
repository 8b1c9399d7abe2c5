// The engine's dispatch: a request → its handler → the reply in the step.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport

extension ServiceEngine {
    // MARK: Dispatch

    /// Handles a decoded request; its reply (or error reply) is in `out.reply` afterwards.
    mutating func run(_ request: Request, from client: () -> Client, into out: inout Step) {
        do {
            try handle(request, from: client, into: &out)
        } catch {
            fail(id: request.id, error, &out)
        }
    }

    /// A command failed: its error reply replaces whatever part of a reply was written.
    mutating func fail(id: RequestID?, _ error: ProtocolError, _ out: inout Step) {
        stats.countError(error.code)
        out.reply.reset()
        ReplyEncoder.failure(id: id, error, into: &out.reply)
    }

    /// Handles one request: the commands clients send most (what the fast decoder reads),
    /// then the rest.
    ///
    /// A switch of their own: in a switch with a case that takes its payload's ownership
    /// (`subscribe` keeps its lists), the whole command is copied first and destroyed after
    /// (~110 instructions a select); here each payload is only borrowed.
    private mutating func handle(_ r: Request, from client: () -> Client, into out: inout Step) throws(ProtocolError) {
        switch r.command {
        case .core(let command): try run(command, id: r.id, controller: r.controller, &out)
        case .state: try state(id: r.id, controller: r.controller, &out)
        case .ping: reply(r, &out) { _ in }
        case .drawer(let d):
            // Not in handleOther (no client, no admin check: a node command needs neither).
            // The step stays plain, as a select's does: what sets another of its members (an
            // event delivered) says so itself, and `requestID` is read only for a plugin call
            // or a reload (`storeWriters`).
            try runDrawer(id: r.id, controller: r.controller, d, &out)
        default: try handleOther(r, from: client(), into: &out)
        }
    }

    /// Handles a request of the other commands: the admin check, then the command's handler.
    private mutating func handleOther(_ r: Request, from client: Client, into out: inout Step) throws(ProtocolError) {
        if r.command.isAdminOnly, !isAdmin(client) {
            throw ProtocolError(.forbidden, "'\(r.name)' is for administrators (root or a configured admin uid/gid); you are uid \(client.peer.uid)")
        }
        switch r.command {
        case .core, .state, .ping, .drawer: assertionFailure("handle(_:from:into:) runs '\(r.name)'")
        case .boxed(.hello(let via)): hello(r, via: via, &out)
        case .controllers: listControllers(r, &out)
        case .controllerCreate(let spec):
            try createController(r, spec, &out)
        case .controllerDelete: try deleteController(r, &out)
        case .layout(let width, let height, let statusBar): try layout(r, width: width, height: height, statusBar: statusBar, &out)
        case .preserve:
            if containers.composites[r.controller] != nil {
                // R15.12: a tree's archive.
                let archive: TreeArchive
                do { archive = try containers.preserveTree(r.controller) } catch { throw ProtocolError(error) }
                return reply(r, &out) { w in w.key(literal: "archive"); archive.write(to: &w) }
            }
            let c = try controller(r.controller)
            if Self.deferIfBig(c, id: r.id, kind: .preserve, &out) { return }
            reply(r, &out) { w in w.key(literal: "archive"); ReplyEncoder.archive(c.preserve(), &w) }
        case .subscribe(let events, let controllers, let grouped): subscribe(r, events: events, controllers: controllers, grouped: grouped, client, &out)
        case .unsubscribe(let events): unsubscribe(r, events: events, client, &out)
        case .plugins: listPlugins(r, &out)
        case .boxed(.pluginCall(let plugin, let method, let args)): try callPlugin(r, plugin: plugin, method: method, args: args, client, &out)
        case .boxed(.explain(let query)): explain(r, query, &out)
        case .boxed(.brief(let command)): try run(command, id: r.id, controller: r.controller, brief: true, &out)
        case .boxed(.node(let command)): try runNode(r, command, &out)
        case .reload: askForReload(r, &out)
        case .stats:
            reply(r, &out) { w in stats.encode(&w, transport: host.transportStatus, subscribers: subscriptions.count, store: host.journalFigures, plugins: plugins) }
        case .config:
            reply(r, &out) { w in config.encodeEffective(&w) }
        case .metrics, .metricsPrometheus:
            let text = stats.metricsText(r.command == .metrics ? .openmetrics : .prometheus, transport: host.transportStatus, subscribers: subscriptions.count, controllers: containers.count,
                                         store: host.journalFigures, plugins: plugins.stats)
            reply(r, &out) { w in w.key(literal: "text"); w.string(text) }
        }
    }

    /// `via`: the connection relays for users tabd cannot see, and is no administrator from
    /// now on (a claim to fewer rights, safe to honour; nothing here grants more).
    private func hello(_ r: Request, via: String?, _ out: inout Step) {
        if let via {
            out.plain = false
            out.via = via
        }
        reply(r, &out) { w in
            w.key(literal: "name"); w.string("tabd")
            w.key(literal: "version"); w.string(version)
            w.key(literal: "protocol"); w.int(1)
            w.key(literal: "instance"); w.string(String(instance, radix: 16))
            w.key(literal: "commands"); ReplyEncoder.strings(commandNames, &w)
            w.key(literal: "events"); ReplyEncoder.strings(Notification.eventNames + ["plugin"], &w)
            w.key(literal: "plugins"); ReplyEncoder.strings(plugins.plugins.filter(\.loaded).map(\.name), &w)
        }
    }

    private func listControllers(_ r: Request, _ out: inout Step) {
        reply(r, &out) { w in
            w.key(literal: "controllers"); w.beginArray()
            for name in containers.allNames {
                w.beginObject()
                w.key(literal: "name"); w.string(name)
                if let n = containers.node(name) {
                    let c = n.tabBar
                    w.key(literal: "idiom"); w.string(c.idiom.rawValue)
                    w.key(literal: "max_visible"); w.int(c.maxVisible)
                    w.key(literal: "tabs"); w.int(c.tabs.count)
                    if !n.window {  // R15: only where it is not a window's root, so that today's entries stay as they were
                        w.key(literal: "parent"); Composite.writeParent(n.parent, to: &w)
                        w.key(literal: "window"); w.bool(false)
                    }
                } else if let c = containers.composites[name] {
                    // R15: the kind and the parent; a tab controller's entry is as before.
                    w.key(literal: "kind"); w.string(c.kind.rawValue)
                    w.key(literal: "idiom"); w.string(c.idiom.rawValue)
                    w.key(literal: "parent"); Composite.writeParent(c.parent, to: &w)
                    w.key(literal: "window"); w.bool(c.window)
                }
                w.endObject()
            }
            w.endArray()
        }
    }

    private mutating func createController(_ r: Request, _ spec: ContainerSpec, _ out: inout Step) throws(ProtocolError) {
        try requireWritable()
        do { try createController(r.controller, spec, &out) } catch { throw ProtocolError(error) }
        if let c = containers.composites[r.controller] {
            // R15.8 b: the reply carries the state (no state event).
            let containers = self.containers
            return reply(r, &out) { w in ReplyEncoder.state(c, in: containers, &w) }
        }
        var options = containers[r.controller]!.options
        options.window = containers.node(r.controller)!.window
        reply(r, &out) { w in
            w.key(literal: "controller"); w.string(r.controller)
            options.writeMembers(to: &w, .reply)
        }
    }

    private mutating func deleteController(_ r: Request, _ out: inout Step) throws(ProtocolError) {
        try requireWritable()
        // A delete that will be refused (`main`; R15.4: a controller attached, or holding
        // one) is refused before the plugins hear of it: told, they end its sessions and
        // drop its timers, though it stays.
        do { try containers.checkDelete(r.controller) } catch { throw ProtocolError(error) }
        // Plugin ABI 1.7: the plugins are told while the controller is still there (its
        // timers go too); what they write is kept and what they emit reaches its subscribers
        // before it goes, but a selection in it is moot.
        var effects: [PolicyEffect] = []
        let plugins = self.plugins
        _ = try? containers.reading(r.controller) { c in
            withUnsafePointer(to: c) { p in plugins.controllerDeleting(in: LentController(p), effects: &effects) }
        }
        perform(effects.filter { if case .select(let c, _) = $0, c == r.controller { false } else { true } }, &out)
        let last: UInt64
        do { last = try containers.delete(r.controller) } catch { throw ProtocolError(error) }
        journal.append(.deleteController(name: r.controller))
        reply(r, &out) { w in w.key(literal: "deleted"); w.string(r.controller) }
        controllerDeleted(r.controller, seq: last, &out)
    }

    private func layout(_ r: Request, width: Double, height: Double, statusBar: Double?, _ out: inout Step) throws(ProtocolError) {
        let c = try controller(r.controller)
        let frames = c.layout(width: width, height: height, statusBar: statusBar)
        reply(r, &out) { w in
            w.key(literal: "bar"); ReplyEncoder.frame(frames.bar, &w)
            w.key(literal: "content"); ReplyEncoder.frame(frames.content, &w)
            w.key(literal: "bar_position"); w.string(c.barAtTop ? "top" : "bottom")
            w.key(literal: "status_bar_child"); ReplyEncoder.optionalString(c.statusBarChild, &w)
        }
    }

    /// `brief`: the reply leaves out the lists as long as the controller (`"brief": true`).
    mutating func run(_ command: Command, id: RequestID?, controller name: String, brief: Bool = false, _ out: inout Step) throws(ProtocolError) {
        try requireWritable()
        let outcome: Outcome
        // Unretained: the engine keeps the memo alive, and a strong (or unowned) reference used
        // in the reply's closure cost a retain and a release every command.
        let paths = Unmanaged.passUnretained(self.paths)
        do {
            try config.controllerLimits.check(command) { () throws(TabError) in try containers.controller(name) }
            if command.addsTabs { try ControllerLimits.checkTotal(command, on: name, in: containers, maxTotal: config.maxTotalTabs) }
            outcome = try containers.apply(command, to: name, policy: policy, notifying: notifying,
                                           selectionChanges: plugins.watchesSelection) { c, outcome in
                guard !outcome.isRefused else { return }
                paths._withUnsafeGuaranteedRef { paths in
                    ReplyEncoder.success(id: id, into: &out.reply) { w in Self.result(of: command, c, outcome, paths, brief: brief, &w) }
                }
            }
        } catch {
            // PROTOCOL.md: a navigation controller's push and pop name no tab (looked at only
            // once the command failed: a select pays nothing for it).
            if containers.composites[name] != nil {
                // R15.10: a non-tab root's environment.
                switch command {
                case .rotate(let o): return try runNode(id: id, controller: name, .rotate(o), &out)
                case .setSizeClass(let s): return try runNode(id: id, controller: name, .setSizeClass(s), &out)
                default: break
                }
            }
            if containers.composites[name]?.kind == .navigation, Self.navigationTab(of: command) != nil {
                throw ProtocolError(.invalidRequest, "'\(name)' is a navigation controller: \(command.name) there takes no \"tab\" (its stack is its own)", details: [("field", "tab")])
            }
            throw ProtocolError(error)
        }
        if outcome.isRefused, let refusal = outcome.refusal {
            stats.denials += 1
            perform(outcome.effects, &out)
            throw ProtocolError(refusal)
        }
        journal(outcome, of: command, controller: name)
        // R15.8: a tab controller in a tree: the other containers' events among its own.
        if containers.hasTreeEvents { publishInTree(outcome, controller: name, &out) } else { publish(outcome, controller: name, &out) }
        if outcome.hasEffects { perform(outcome.effects, &out) }
        if plugins.watchesSelection {
            var effects: [PolicyEffect] = []
            tellSelectionChanges(outcome, controller: name, effects: &effects)
            perform(effects, &out)
        }
    }

    private mutating func state(id: RequestID?, controller name: String, _ out: inout Step) throws(ProtocolError) {
        do {
            // The memo handed in beside the controller, not captured: a class captured cost a
            // retain and a release a state (~40 instructions).
            let read: Void? = try containers.reading(name, with: &states) { c, states in
                if let i = states.find(c) {
                    if id == nil { out.keptReply = states.line(i) } else { states.write(i, &out.reply, id: id) }
                    return
                }
                if Self.deferIfBig(c, id: id, kind: .state, &out) { return }
                ReplyEncoder.success(id: id, into: &out.reply) { w in
                    let start = w.count
                    ReplyEncoder.state(c, &w)
                    states.keep(c, w, from: start)
                }
            }
            if read == nil {
                // R15.35: out of a window, or holding a tab's content controller, `state` says
                // where the controller is and its root's status bar path (no memo: it depends
                // on the tree, not on the controller alone).
                let containers = self.containers
                guard let c = containers.node(name)?.tabBar else { return }
                ReplyEncoder.success(id: id, into: &out.reply) { w in
                    ReplyEncoder.state(c, &w)
                    ReplyEncoder.treeMembers(of: name, in: containers, &w)
                }
            }
        } catch {
            if let c = containers.composites[name] {
                let containers = self.containers
                return ReplyEncoder.success(id: id, into: &out.reply) { w in ReplyEncoder.state(c, in: containers, &w) }
            }
            throw ProtocolError(error)
        }
    }

    /// A `state` or `preserve` of a big controller (`BigReply.estimatedBytes`) is not encoded
    /// here: the adapter encodes it off the loop, or sends one kept for an equal controller.
    /// False when `c` is small (the caller encodes it).
    static func deferIfBig(_ c: Controller, id: RequestID?, kind: BigReply, _ out: inout Step) -> Bool {
        guard BigReply.estimatedBytes(c) >= BigReply.bigBytes else { return false }
        out.plain = false
        out.deferred = Step.DeferredReply(controller: c, kind: kind, id: id)
        return true
    }

    /// The result members of a state-machine command's reply.
    private static func result(of command: Command, _ c: Controller, _ outcome: Outcome, _ paths: EncodedPaths, brief: Bool, _ w: inout JSONWriter) {
        w.key(literal: "selected"); ReplyEncoder.optionalString(c.selection.wireValue, &w)
        w.key(literal: "selected_index"); ReplyEncoder.optionalInt(c.selectedIndex, &w)
        w.key(literal: "changed"); w.bool(outcome.changed)
        if brief { return }  // only commands whose other members are their lists (repliesWithList)
        switch command {
        case .rotate:
            // PROTOCOL.md: `rotated`, `orientation` (the current one, a name) and `supported`.
            w.key(literal: "rotated"); w.bool(outcome.rotated ?? false)
            w.key(literal: "orientation"); w.string(c.orientation.rawValue)
            let decided = outcome.orientations ?? c.decidedOrientations  // a rotate always has them
            w.key(literal: "supported"); ReplyEncoder.orientations(decided.supported, &w)
            w.key(literal: "preferred"); ReplyEncoder.optionalString(decided.preferred?.rawValue, &w)
        case .push, .pop, .popToRoot:
            w.key(literal: "stack"); ReplyEncoder.stack(Self.navigationTab(of: command).flatMap { c.tab($0)?.stack } ?? [], &w)
        case .customizeEnd, .setTabs, .addTab, .removeTab:
            w.key(literal: "tabs"); ReplyEncoder.ids(of: c.tabs, &w)
        case .setCustomizable:
            w.key(literal: "customizable"); ReplyEncoder.strings(c.customizable, &w)
        case .customizeBegin, .customizeMove:
            w.key(literal: "customizing_order"); ReplyEncoder.strings(c.customizingOrder ?? [], &w)
        case .setHidden, .reorder:
            // R13: what the command moved — the path (hiding may move the selection) and the bar.
            w.key(literal: "selected_path"); ReplyEncoder.strings(c.selectedPath, &w)
            w.key(literal: "bar"); ReplyEncoder.bar(c, &w)
        case .sidebar, .setExpanded, .setMode:
            w.key(literal: "sidebar"); ReplyEncoder.sidebar(c, &w)
            if case .setMode = command { w.key(literal: "mode"); w.string(c.mode.rawValue) }
        case .setBarHidden, .setCompactTabs, .setSizeClass:
            w.key(literal: "bar"); ReplyEncoder.bar(c, &w)
            if case .setSizeClass = command {
                w.key(literal: "size_class"); w.string(c.sizeClass.rawValue)
                w.key(literal: "sidebar"); ReplyEncoder.sidebar(c, &w)
            }
        case .search:
            w.key(literal: "search"); w.beginObject(); w.key(literal: "active"); w.bool(c.searchActive); w.endObject()
            w.key(literal: "selected_path"); ReplyEncoder.strings(c.selectedPath, &w)
        case .selectChild:
            w.key(literal: "selected_path"); ReplyEncoder.strings(c.selectedPath, &w)
        case .editBegin, .editEnd:
            w.key(literal: "editing"); w.bool(c.editing)
        case .setEnabled(let id, _):
            w.key(literal: "tab_changed"); ReplyEncoder.optionalString(outcome.changed ? id : nil, &w)
        case .updateTab(let id, _), .badge(let id, _):
            // What changed is the tab (`changed` beside the selection reads as a new selection):
            // its id when the command changed it, null when it was already so.
            w.key(literal: "tab_changed"); ReplyEncoder.optionalString(outcome.changed ? id : nil, &w)
        default:
            break
        }
        // `select` and `tap` in a controller arranged with R13: the reply names the path.
        if c.arranged, Controller.movesSelectionOnly(command) {
            w.key(literal: "selected_path"); paths.selectedPath(of: c, &w)
        }
    }

    /// The tab a push or pop names. Apart from `result(of:)`'s switch: a case there that binds
    /// a payload makes every command (a select too) be copied before it is switched on.
    private static func navigationTab(of command: Command) -> String? {
        switch command {
        case .push(let id, _), .pop(let id), .popToRoot(let id): return id
        default: return nil
        }
    }

    func reply(_ r: Request, _ out: inout Step, _ result: (inout JSONWriter) -> Void) {
        ReplyEncoder.success(id: r.id, into: &out.reply, result)
    }

    func controller(_ name: String) throws(ProtocolError) -> Controller {
        do { return try containers.controller(name) } catch { throw ProtocolError(error) }
    }

    /// Root, tabd's own user, an admin uid, or a peer whose primary or supplementary group is
    /// an admin gid; never a relay (`hello` with `via`). The supplementary groups cost a
    /// system call: asked for only when admin_gids is set and nothing else matched (a
    /// failure to get them is not an admin).
    public func isAdmin(_ client: Client) -> Bool {
        guard client.via == nil else { return false }
        let peer = client.peer
        if peer.uid == 0 || peer.uid == ownUID || config.adminUIDs.contains(peer.uid) || config.adminGIDs.contains(peer.gid) {
            return true
        }
        guard !config.adminGIDs.isEmpty else { return false }
        do {
            return try host.peerGroups(of: client).contains(where: config.adminGIDs.contains)
        } catch {
            logger.warning("cannot read a peer's supplementary groups; it is not an admin by group", metadata: [
                "connection.id": "\(client.id)", "error": "\(error)",
            ])
            return false
        }
    }
}

/// The JSON of a few paths, each kept against the object that stands for it: in three lists,
/// the identities compared (no reference counting), the objects (kept alive, so that an
/// identity is never another's), the JSON. The oldest goes first. A class: the engine's
/// reply closures reach it while the engine's controllers are being changed.
final class EncodedPaths {
    private var ids: [ObjectIdentifier] = [], kept: [AnyObject] = []
    /// The JSON of each, one after the other in one buffer: an array of arrays cost a retain
    /// and a release of the one copied on every nested select and group tap (~48 instructions).
    private var store = JSONWriter(capacity: 512)
    private var spans: [(start: Int, count: Int)] = []
    private static let size = 8

    /// Appends the JSON kept for `id`; false when none is kept.
    func write(_ id: ObjectIdentifier, _ w: inout JSONWriter) -> Bool {
        for i in ids.indices where ids[i] == id {
            let span = spans[i]
            store.withBytes { w.append(bytes: UnsafeRawBufferPointer(rebasing: $0[span.start..<(span.start + span.count)])) }
            return true
        }
        return false
    }

    /// Writes the reply's `selected_path` (after its key), kept encoded against the object
    /// that stands for it (`Controller.currentPathIdentity`): a select of a nested tab copies
    /// its path's JSON instead of writing each id again (BENCHMARKS-HISTORY.md, "The modern tab model").
    func selectedPath(of c: Controller, _ w: inout JSONWriter) {
        if write(c.currentPathID, &w) { return }
        let identity = c.currentPathIdentity
        // Full: the kept paths are forgotten together (a ring of spans in one buffer would
        // need room management for no gain at eight entries).
        if ids.count == Self.size {
            ids.removeAll(keepingCapacity: true); kept.removeAll(keepingCapacity: true); spans.removeAll(keepingCapacity: true)
            store.reset(keepingAtMost: 64 << 10)
        }
        var one = JSONWriter(capacity: 64)  // a writer of its own: `store`'s would put a comma first
        ReplyEncoder.strings(c.currentPath, &one)
        let start = store.count
        one.withBytes { store.append(bytes: $0) }
        let span = (start: start, count: store.count - start)
        store.withBytes { w.append(bytes: UnsafeRawBufferPointer(rebasing: $0[span.start..<(span.start + span.count)])) }
        ids.append(ObjectIdentifier(identity)); kept.append(identity); spans.append(span)
    }
}

extension Controller {
    /// Whether a `state` of `other` is the one kept for `self`: `self == other`, which
    /// compares everything a `state` shows, the orientations the plugins decided included (a
    /// reload changes them with nothing else). `self` is reached in place (an array's
    /// `_modify`): `kept[i] == c` copied the kept controller out first, a retain and a
    /// release of each of its arrays and strings (~290 instructions a `state`).
    mutating func isEqual(to other: Controller) -> Bool {
        self == other
    }
}

/// `state` replies (their result's members), encoded, each with the controller value it was
/// encoded from. A `state` of a controller equal to one of them, with the same orientations
/// the plugins decided (`isEqual(to:)`) — nothing changed it since — copies the bytes instead
/// of encoding every tab again. That comparison is the whole test, so no change can be
/// missed; it is cheap for an unchanged controller, whose arrays are the same buffers
/// (compared by identity first) and whose strings the same bits. A few controllers, replies
/// up to 64 KiB each (BENCHMARKS-HISTORY.md, "state from a memo").
struct EncodedStates {
    /// Each kept reply as the whole line a request without an id gets
    /// (`{"ok":true,"result":{…}}` and the newline): such a `state` is sent from these bytes,
    /// with no copy into the step's reply (a 6-tab state's ~1.8 KB, ~230 instructions).
    private var controllers: [Controller] = [], lines: [[UInt8]] = []
    private var next = 0
    private static let size = 4, largest = 64 << 10
    private static let head = Array(#"{"ok":true,"result":{"#.utf8), tail = Array("}}\n".utf8)

    /// Where the reply kept for a controller equal to `c` is; nil when none is kept.
    /// Mutating (it changes nothing) so that the engine's memo is used in place.
    mutating func find(_ c: Controller) -> Int? {
        for i in controllers.indices where controllers[i].isEqual(to: c) { return i }
        return nil
    }

    /// The kept reply `i` as a request without an id gets it, the whole line.
    func line(_ i: Int) -> [UInt8] { lines[i] }

    /// The kept reply `i` for a request with `id` (its members copied in).
    func write(_ i: Int, _ w: inout JSONWriter, id: RequestID?) {
        ReplyEncoder.success(id: id, into: &w) { w in
            lines[i].withUnsafeBytes { w.append(bytes: UnsafeRawBufferPointer(rebasing: $0[Self.head.count..<($0.count - Self.tail.count)])) }
        }
    }

    /// Keeps what `w` holds from `start` on as `c`'s members, in place of the controller's
    /// earlier reply or else of the oldest kept.
    mutating func keep(_ c: Controller, _ w: borrowing JSONWriter, from start: Int) {
        guard w.count - start <= Self.largest else { return }
        var line: [UInt8] = []
        line.reserveCapacity(Self.head.count + w.count - start + Self.tail.count)
        line += Self.head
        w.withBytes { line += $0[start...] }
        line += Self.tail
        if let i = controllers.firstIndex(where: { $0.name == c.name }) {
            controllers[i] = c; lines[i] = line
        } else if controllers.count < Self.size {
            controllers.append(c); lines.append(line)
        } else {
            controllers[next] = c; lines[next] = line
            next = (next + 1) % Self.size
        }
    }
}
