// R15.12: `preserve` and `restore` of a root's tree of containers. A nested controller is
// kept only when every child object from the root down to it has a `restoration_id`; its
// entry is keyed by those ids joined with "/" ("" is the root itself). Kept: a stack's screens
// with restoration ids, bottom to top; a drawer's open side; a tab controller's R11 archive.
// Not kept: custom `shown` (the container's choice), split modes (the environment's).

import TabJSON

/// What `preserve` returns for a root of a kind other than `tab` (and `restore` takes).
public struct TreeArchive: Equatable, Sendable {
    public enum Entry: Equatable, Sendable {
        /// A navigation controller's screens with restoration ids, bottom to top.
        case stack([ChildObject])
        /// A drawer's open side.
        case openSide(OpenSide)
        /// A tab controller's R11 archive.
        case tab(RestorationArchive)
        /// A container nothing of which is kept (custom): there for its children's paths.
        case nothing
    }

    /// By restoration path ("" the root).
    public var entries: [String: Entry]

    public init(entries: [String: Entry] = [:]) { self.entries = entries }

    /// `{"controllers": {path: {…}}}`: `stack`, `open_side`, `archive`, or nothing.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "controllers"); w.beginObject()
        for path in entries.keys.sorted() {
            w.key(path); w.beginObject()
            switch entries[path]! {
            case .stack(let s): w.key(literal: "stack"); ChildObject.write(s, to: &w)
            case .openSide(let side): w.key(literal: "open_side"); w.string(side.rawValue)
            case .tab(let a): w.key(literal: "archive"); a.write(to: &w, .description)
            case .nothing: break
            }
            w.endObject()
        }
        w.endObject()
        w.endObject()
    }

    /// Whether `json` is a tree's archive (it has `controllers`), not a tab controller's.
    public static func isTree(_ json: JSONValue) -> Bool {
        if case .object(let o) = json { return o.position(of: "controllers") != nil }
        return false
    }

    public init(json: JSONValue, at path: String) throws(TabFieldError) {
        self = try NodeJSON.object(json, at: path) { (m: inout TakenMembers) throws(TabFieldError) in
            guard case .object(let all)? = m.take("controllers") else { throw TabFieldError(m.place("controllers"), .type(expected: "an object")) }
            var entries: [String: Entry] = [:]
            for (key, v) in all {
                let at = m.place("controllers") + "." + key
                entries[key] = try NodeJSON.object(v, at: at) { (e: inout TakenMembers) throws(TabFieldError) in
                    if let s = e.take("stack") { return .stack(try NodeJSON.children(s, e.place("stack"))) }
                    if let o = e.take("open_side") { return .openSide(try NodeJSON.value(o, e.place("open_side"), as: OpenSide.self)) }
                    if let a = e.take("archive") { return .tab(try RestorationArchive(json: a, at: e.place("archive"), .description, orNull: false)) }
                    return .nothing
                }
            }
            return TreeArchive(entries: entries)
        }
    }
}

extension TabContainers {
    /// The containers of `root`'s tree that a restoration path reaches, by path, in pre-order.
    func restorationPaths(of root: String) -> [(path: String, name: String)] {
        var out: [(String, String)] = []
        func walk(_ name: String, _ path: String, _ depth: Int) {
            out.append((path, name))
            guard depth < Self.maxChain else { return }
            // A tab controller's tabs whose content is a controller (R15.2), by the tab's restoration id.
            let children: [ChildObject]
            if let c = composites[name] { children = c.body.children } else if let t = nodes[name], t.holdsContent { children = t.tabBar.contents } else { return }
            for child in children {
                guard let x = child.controller, let rid = child.restorationID, !rid.isEmpty else { continue }
                walk(x, path.isEmpty ? rid : path + "/" + rid, depth + 1)
            }
        }
        walk(root, "", 0)
        return out
    }

    /// R15.12: what `preserve` keeps of the tree of the root `name`.
    public func preserveTree(_ name: String) throws(TabError) -> TreeArchive {
        let c = try composite(name)
        if let p = c.parent { throw TabError(.notAvailable, "'\(name)' is a child of '\(p.parent)'; preserve its root '\(root(of: name))'") }
        var archive = TreeArchive()
        for (path, x) in restorationPaths(of: name) {
            if let t = nodes[x] { archive.entries[path] = .tab(t.tabBar.preserve()); continue }
            switch composites[x]?.body {
            case .navigation(let n)?: archive.entries[path] = .stack(n.stack.filter { $0.controller == nil && $0.restorationID != nil })
            case .drawer(let d)?: archive.entries[path] = .openSide(d.openSide)
            // R15.12: a split's modes are its environment's; a custom's shown is not kept.
            case .custom?, .split?: archive.entries[path] = .nothing
            case nil: break
            }
        }
        return archive
    }

    /// R15.12: applies `archive` to the tree of the root `name`, in pre-order: a stack by
    /// set_stack (an empty one is skipped), a side by opening it if it has a drawer, else
    /// closing; a tab controller by its own `restore` (its events are its own, `tab`);
    /// `cause: restore`, no plugin asked. Paths the tree no longer has are left alone.
    mutating func restoreTree(_ name: String, _ archive: TreeArchive, limits: ControllerLimits) throws(TabError) -> NodeOutcome {
        let c = try composite(name)
        if let p = c.parent { throw TabError(.notAvailable, "'\(name)' is a child of '\(p.parent)'; restore its root '\(root(of: name))'") }
        var outcome = NodeOutcome()
        for (path, x) in restorationPaths(of: name) {
            guard let entry = archive.entries[path] else { continue }
            var step = NodeOutcome()
            switch (entry, composites[x]?.body) {
            case (.stack(let s), .navigation?) where !s.isEmpty:
                step = try apply(.setStack(s, animated: false), to: x, replaying: true, limits: limits, cause: .restore)
            case (.openSide(let side), .drawer(let d)?):
                if side != .none, let s = DrawerSide(rawValue: side.rawValue), d.drawer(s) != nil {
                    step = try apply(.openDrawer(s, gesture: nil, animated: false), to: x, replaying: true, limits: limits, cause: .restore)
                } else {
                    step = try apply(.closeDrawer(gesture: nil, animated: false), to: x, replaying: true, limits: limits, cause: .restore)
                }
            case (.tab(let a), nil) where nodes[x] != nil:
                let before = nodes[x]!.tabBar.seq
                let o = try apply(.restore(a), to: x, notifying: true)
                var seq = before &+ UInt64(o.notificationCount) &- UInt64(o.notifications.count)
                // The tree's events where they go among its own (R15.8 a: a tab's content after the tab).
                let (tree, places) = hasTreeEvents ? takePlacedTreeEvents() : ([], [])
                var next = 0
                for (k, n) in o.notifications.enumerated() {
                    while next < tree.count, places[next] <= k { step.events.append(tree[next]); next += 1 }
                    seq &+= 1
                    step.events.append(SentNodeEvent(controller: x, seq: seq, event: .tab(n)))
                }
                step.events += tree[next...]
                if o.changed { step.changed = true }
            default:
                continue
            }
            outcome.events += step.events
            outcome.answers += step.answers
            if step.changed { outcome.changed = true }
        }
        return outcome
    }
}
