// `tabctl show` of an R15 container (a navigation, split, drawer or custom controller, issue
// 42 item 7): the container and its subtree. Each container with its kind, where it stands
// (visible, a window's root, attached) and its slots: a stack with its top marked, a split's
// columns with the visible ones marked (collapsed: the top column) and its display mode, a
// drawer's center and sides with the open side marked, a custom controller's children with
// the shown ones marked. A child that is a controller (R15.2) has that controller drawn beneath it,
// from its own `state`. With --watch, TreeWatcher subscribes to the tree's controllers and
// draws again after each batch of their events.

import Foundation
import TabClient
import TabJSON

/// One container's `state`, as the tree drawing reads it.
struct ContainerState: Equatable {
    /// A child object (R15.2): a screen, or the controller `controller`.
    struct Child: Equatable {
        var id: String
        var title: String?
        var controller: String?

        init?(_ v: JSONValue?) {
            guard case .object(let o)? = v, let id = o.text("id") else { return nil }
            self.id = id; title = o.text("title"); controller = o.text("controller")
        }
    }

    /// A split's columns and modes (R15.15–R15.23).
    struct Split: Equatable {
        var style: String
        /// The columns in slot order (the style's, and compact), each with its child or nil.
        var columns: [(name: String, child: Child?)]
        var displayMode: String
        var splitBehavior: String
        var preferredDisplayMode: String
        var preferredSplitBehavior: String
        var presentsWithGesture: Bool
        /// Collapsed: the column on top and the stack up to it; nil while expanded.
        var topColumn: String?
        var collapsedStack: [String]?
        var visibleColumns: [String]

        static func == (a: Split, b: Split) -> Bool {
            a.style == b.style && a.columns.map(\.name) == b.columns.map(\.name) && a.columns.map(\.child) == b.columns.map(\.child)
                && a.displayMode == b.displayMode && a.splitBehavior == b.splitBehavior && a.preferredDisplayMode == b.preferredDisplayMode
                && a.preferredSplitBehavior == b.preferredSplitBehavior && a.presentsWithGesture == b.presentsWithGesture
                && a.topColumn == b.topColumn && a.collapsedStack == b.collapsedStack && a.visibleColumns == b.visibleColumns
        }

        init(_ o: JSONObject) {
            style = o.text("style") ?? "?"
            var columns: [(name: String, child: Child?)] = []
            var slots: JSONObject?
            if case .object(let c)? = o["columns"] { slots = c }
            for name in ["primary", "supplementary", "secondary", "compact"] {
                // A double split has no supplementary column: not drawn.
                if name == "supplementary" && style != "triple" && Child(slots?[name]) == nil { continue }
                columns.append((name, Child(slots?[name])))
            }
            self.columns = columns
            displayMode = o.text("display_mode") ?? "?"
            splitBehavior = o.text("split_behavior") ?? "?"
            preferredDisplayMode = o.text("preferred_display_mode") ?? "?"
            preferredSplitBehavior = o.text("preferred_split_behavior") ?? "?"
            presentsWithGesture = ContainerState.flag(o["presents_with_gesture"]) ?? true
            topColumn = o.text("top_column")
            collapsedStack = ContainerState.strings(o["collapsed_stack"])
            visibleColumns = ContainerState.strings(o["visible_columns"]) ?? []
        }
    }

    enum Slots: Equatable {
        /// Bottom (the root) to top (shown).
        case navigation(stack: [Child])
        case split(Split)
        case drawer(center: Child?, left: Child?, right: Child?, openSide: String, open: [String], close: [String], centerInteraction: String)
        case custom(children: [Child], shown: [String], statusBarChild: String?)
        /// A tab bar controller in the tree: `tabctl show NAME` draws it whole.
        case tab(tabs: Int, selected: String?)
    }

    var name: String
    var kind: String
    /// The container and child this one is attached to, nil for a root.
    var parent: (controller: String, child: String)?
    var window: Bool
    var visible: Bool?
    var idiom: String
    var seq: Int
    /// A root's status bar path (R15.11), nil for an attached container.
    var statusBarPath: [String]?
    var slots: Slots

    init(name: String, state o: JSONObject) {
        self.name = name
        kind = o.text("kind") ?? "tab"  // a tab bar controller's state has no kind
        if case .object(let p)? = o["parent"], let c = p.text("controller"), let ch = p.text("child") { parent = (c, ch) }
        window = Self.flag(o["window"]) ?? false
        visible = Self.flag(o["visible"])
        idiom = o.text("idiom") ?? "?"
        if case .int(let s)? = o["seq"] { seq = Int(s) } else { seq = 0 }
        statusBarPath = Self.strings(o["status_bar_path"])
        func child(_ key: String) -> Child? { Child(o[key]) }
        func children(_ key: String) -> [Child] {
            if case .array(let a)? = o[key] { return a.compactMap(Child.init) }
            return []
        }
        switch kind {
        case "navigation":
            slots = .navigation(stack: children("stack"))
        case "split":
            slots = .split(Split(o))
        case "drawer":
            slots = .drawer(center: child("center"), left: child("left"), right: child("right"),
                            openSide: o.text("open_side") ?? "none", open: Self.strings(o["open_gestures"]) ?? [],
                            close: Self.strings(o["close_gestures"]) ?? [], centerInteraction: o.text("center_interaction") ?? "?")
        case "custom":
            slots = .custom(children: children("children"), shown: Self.strings(o["shown"]) ?? [], statusBarChild: o.text("status_bar_child"))
        default:
            var count = 0
            if case .array(let tabs)? = o["tabs"] { count = tabs.count }
            slots = .tab(tabs: count, selected: o.text("selected"))
        }
    }

    static func == (a: ContainerState, b: ContainerState) -> Bool {
        a.name == b.name && a.kind == b.kind && a.parent?.controller == b.parent?.controller && a.parent?.child == b.parent?.child
            && a.window == b.window && a.visible == b.visible && a.idiom == b.idiom && a.seq == b.seq
            && a.statusBarPath == b.statusBarPath && a.slots == b.slots
    }

    /// Whether `state` is an R15 container's (a kind other than `tab`).
    static func isComposite(_ o: JSONObject) -> Bool { o.text("kind").map { $0 != "tab" } ?? false }

    static func flag(_ v: JSONValue?) -> Bool? {
        if case .bool(let b)? = v { return b }
        return nil
    }

    static func strings(_ v: JSONValue?) -> [String]? {
        guard case .array(let a)? = v else { return nil }
        return a.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// The controllers its children are, in slot order.
    var nested: [String] {
        switch slots {
        case .navigation(let stack): return stack.compactMap(\.controller)
        case .split(let s): return s.columns.compactMap { $0.child?.controller }
        case .drawer(let center, let left, let right, _, _, _, _): return [center, left, right].compactMap { $0?.controller }
        case .custom(let children, _, _): return children.compactMap(\.controller)
        case .tab: return []
        }
    }
}

/// A container and every controller below it, each from its own `state`. Read it with
/// `nextToRead` and `add`/`fail` until nothing is left to read.
struct ContainerTree: Equatable {
    let root: String
    var states: [String: ContainerState] = [:]
    /// Controllers whose `state` failed (not found: the error's message).
    var failed: [String: String] = [:]
    /// Every controller of the tree, root first, in the order they are drawn.
    private(set) var names: [String]

    init(root: String) {
        self.root = root
        names = [root]
    }

    /// The next controller whose state is wanted, nil when the tree is whole.
    var nextToRead: String? { names.first { states[$0] == nil && failed[$0] == nil } }

    mutating func add(_ name: String, _ state: JSONObject) {
        let s = ContainerState(name: name, state: state)
        states[name] = s
        // A controller held twice (or a cycle) is read and drawn once.
        let fresh = s.nested.filter { !names.contains($0) }
        if let at = names.firstIndex(of: name) { names.insert(contentsOf: fresh, at: at + 1) }
    }

    mutating func fail(_ name: String, _ message: String) { failed[name] = message }

    /// The seq of each container, for `--watch`'s separator line.
    var seqLine: String {
        names.compactMap { n in states[n].map { "\($0.seq) (\(Drawing.clean(n, limit: 32)))" } }.joined(separator: ", ")
    }
}

extension Drawing {
    /// The tree below `tree.root`, one container after the other, each nested one indented
    /// beneath the child that holds it.
    func draw(_ tree: ContainerTree) -> String {
        var lines: [String] = []
        var drawn: Set<String> = []
        container(tree.root, in: tree, depth: 0, top: true, drawn: &drawn, into: &lines)
        if let path = tree.states[tree.root]?.statusBarPath {
            lines.append("status bar: " + (path.isEmpty ? "none" : path.map { Self.clean($0) }.joined(separator: " › ")))
        }
        if !colour {
            lines.append("key: >id< top of a stack, visible column, open drawer or shown child; \"…\" its title; → the controller a child is")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func container(_ name: String, in tree: ContainerTree, depth: Int, top: Bool, drawn: inout Set<String>, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        let title = Span(text: Self.clean(name, limit: 64), sgr: [Self.bold])
        guard let c = tree.states[name] else {
            lines.append(indent + render([title, Span(text: " — " + Self.clean(tree.failed[name] ?? "not read", limit: 80), sgr: [Self.dim])]))
            return
        }
        guard drawn.insert(name).inserted else {
            lines.append(indent + render([title, Span(text: " — drawn above", sgr: [Self.dim])]))
            return
        }
        var about = [c.kind, c.idiom]
        if c.window { about.append("window") }
        if top, let p = c.parent { about.append("child \(Self.clean(p.child)) of \(Self.clean(p.controller))") }
        if let v = c.visible { about.append(v ? "visible" : "not visible") }
        switch c.slots {
        case .split(let s):
            about.append(s.style)
            // Collapsed, the mode is kept but has no effect (R15.20).
            about.append(s.topColumn.map { "collapsed, top \(Self.clean($0))" } ?? "\(Self.clean(s.displayMode)) (\(Self.clean(s.splitBehavior)))")
        case .drawer(_, _, _, let side, _, _, _): about.append(side == "none" ? "closed" : "open \(side)")
        case .custom(_, _, let sb?): about.append("status bar from \(Self.clean(sb))")
        case .tab(let tabs, let selected):
            about.append("\(tabs) tab\(tabs == 1 ? "" : "s")")
            about.append("selected " + (selected.map { Self.clean($0) } ?? "none"))
        default: break
        }
        about.append("seq \(c.seq)")
        lines.append(indent + render([title, Span(text: " — " + about.joined(separator: ", "))]))
        let inner = indent + "  "
        func row(_ slot: String, _ child: ContainerState.Child?, marked: Bool, mark: String) {
            guard let child else {
                lines.append(inner + slot + "  -")
                return
            }
            var name = [Span(text: Self.clean(child.id))]
            if let t = child.title { name.append(Span(text: " \"" + Self.clean(t) + "\"")) }
            let text: String
            if colour {
                text = slot + "  " + (marked ? render(name, extra: [Self.reverse]) : render(name))
            } else {
                text = slot + (marked ? " >" + render(name) + "<" : "  " + render(name))
            }
            var line = inner + text
            if let nested = child.controller { line += " → " + Self.clean(nested, limit: 64) }
            if marked { line += colour ? " ◀ " + mark : "  (" + mark + ")" }
            lines.append(line)
            if let nested = child.controller {
                container(nested, in: tree, depth: depth + 3, top: false, drawn: &drawn, into: &lines)
            }
        }
        func numbered(_ children: [ContainerState.Child], marked: (Int, ContainerState.Child) -> Bool, mark: String) {
            let width = String(max(children.count - 1, 0)).count
            for (i, ch) in children.enumerated() {
                let n = String(i)
                row(String(repeating: " ", count: width - n.count) + n, ch, marked: marked(i, ch), mark: mark)
            }
        }
        switch c.slots {
        case .navigation(let stack):
            numbered(stack, marked: { i, _ in i == stack.count - 1 }, mark: "top")
        case .split(let s):
            let width = s.columns.map(\.name.count).max() ?? 0
            for (column, child) in s.columns {
                let slot = column + String(repeating: " ", count: width - column.count)
                let mark = s.topColumn == nil ? "visible" : column == s.topColumn ? "top" : ""
                row(slot, child, marked: s.visibleColumns.contains(column), mark: mark)
            }
            var notes = ["display mode \(Self.clean(s.displayMode)) (preferred \(Self.clean(s.preferredDisplayMode)))",
                         "behavior \(Self.clean(s.splitBehavior)) (preferred \(Self.clean(s.preferredSplitBehavior)))"]
            if let stack = s.collapsedStack { notes.append("collapsed stack " + stack.map { Self.clean($0) }.joined(separator: " › ")) }
            notes.append(s.presentsWithGesture ? "presents with gesture" : "no gesture")
            lines.append(inner + render([Span(text: notes.joined(separator: "; "), sgr: [Self.dim])]))
        case .drawer(let center, let left, let right, let side, let open, let close, let interaction):
            row("center", center, marked: false, mark: "")
            row("left  ", left, marked: side == "left", mark: "open")
            row("right ", right, marked: side == "right", mark: "open")
            let list = { (g: [String]) in g.isEmpty ? "none" : g.map { Self.clean($0) }.joined(separator: ", ") }
            lines.append(inner + render([Span(text: "gestures: open \(list(open)); close \(list(close)); center interaction \(Self.clean(interaction))", sgr: [Self.dim])]))
        case .custom(let children, let shown, _):
            if children.isEmpty { lines.append(inner + render([Span(text: "no children", sgr: [Self.dim])])) }
            numbered(children, marked: { _, ch in shown.contains(ch.id) }, mark: "shown")
        case .tab:
            lines.append(inner + render([Span(text: "a tab bar controller: tabctl show \(Self.clean(name, limit: 64)) draws it", sgr: [Self.dim])]))
        }
    }
}

/// `show --watch` of an R15 container: subscribed to every event of the tree's controllers
/// (`subscribe`'s `controllers` names only those), it reads the tree again after each batch of
/// their events, subscribes again when the tree gained or lost a controller, and draws when
/// the tree changed. Reconnects with backoff after tabd went away, as the tab controller's
/// mirror does.
final class TreeWatcher: WatchScreen, @unchecked Sendable {
    private var subscribed: [String] = []

    override func run() async -> Int32 {
        var shown: ContainerTree?
        var instance: String?
        while !Task.isCancelled {
            guard let c = await connect(again: instance != nil) else { return Task.isCancelled ? 0 : sayUnreachable() }
            defer { c.close() }
            do {
                let hello = try await c.hello()
                subscribed = []
                var tree = try await read(c)
                if tree.states[name] == nil {
                    if instance == nil {
                        FileHandle.standardError.write(Data("tabctl: \(tree.failed[name] ?? "not_found")\n".utf8))
                        return 1
                    }
                    return finish(seq: nil)
                }
                if let previous = instance {
                    sayReconnected(instance: hello.instance, previous: previous)
                    say(tree == shown ? "nothing changed (seq \(tree.seqLine))" : "read the tree again")
                }
                instance = hello.instance
                redraw(tree)
                shown = tree
                while true {
                    let batch = await c.nextEvents()
                    if batch.isEmpty { throw TabClientError.disconnected }
                    try Task.checkCancellation()
                    if let gone = batch.first(where: { $0.controller == name && $0.kind == .controllerDeleted }) {
                        return finish(seq: gone.seq)
                    }
                    tree = try await read(c)
                    if tree.states[name] == nil { return finish(seq: nil) }
                    if tree != shown { redraw(tree); shown = tree }
                }
            } catch is CancellationError {
                return 0
            } catch {
                // The connection ended: reconnect.
            }
            if Task.isCancelled { return 0 }
            sayDisconnected()
        }
        return 0
    }

    /// A connection, retried with backoff (50 ms doubling to 1 s) for --reconnect-seconds after
    /// the first one; nil when it could not be made.
    private func connect(again: Bool) async -> TabClient? {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(reconnectSeconds)
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled {
            if let c = try? TabClient(path: common.socketPath) { return c }
            if !again || clock.now + delay > deadline { return nil }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(1))
        }
        return nil
    }

    /// The tree as it is now, subscribed to all of its controllers: read, subscribed again
    /// when its controllers are not the ones subscribed to, and read again after that (a
    /// change between the read and the subscription is then in the second read).
    private func read(_ c: TabClient) async throws -> ContainerTree {
        var tries = 0
        while true {
            tries += 1
            var tree = ContainerTree(root: name)
            while let next = tree.nextToRead {
                do {
                    tree.add(next, try await c.stateObject(next))
                } catch let e as TabdError {
                    tree.fail(next, "\(e.codeName): \(e.message)".oneLine)
                }
            }
            // A tree that changes its controllers under every read: drawn as read, the next
            // batch of events reads it again.
            if tree.names == subscribed || tries > 8 { return tree }
            _ = try await c.subscribe(events: ["*"], controllers: tree.names)
            subscribed = tree.names
        }
    }

    private func redraw(_ tree: ContainerTree) { present(drawing.draw(tree), seq: tree.seqLine) }
}
