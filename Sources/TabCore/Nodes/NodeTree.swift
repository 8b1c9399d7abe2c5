// The tree of R15's containers as one registry sees it: what is visible (R15.5), who may act
// where (R15.9), what decides the status bar (R15.11), attaching (R15.3), and the events of a
// change, computed from the visible set before and after it (R15.6–R15.8) rather than sent by
// hand inside each command. A command of a kind says only what its container holds
// afterwards (NodeCommands.swift); everything here is the same for every kind.

extension TabContainers {
    /// The most controllers in one chain, root to leaf (R15.3).
    public static let maxChain = 8

    /// One visible child: the container showing it, the child, its depth (roots' children: 0).
    struct VisibleChild: Equatable {
        let container: String
        let child: ChildObject
        let depth: Int
        /// Whether `container` is a tab controller (its appearance events are its own:
        /// `sendAppearance`), known where the walk found it.
        var byTab = false
        /// Where `container` lies, known where the walk found it: its events are numbered
        /// there (`send(_:from:at:)`), with no lookup of its name.
        var at: Position? = nil

        func isSame(as other: VisibleChild) -> Bool { container == other.container && child.isSameChild(as: other.child) }

        /// What identifies it in a set (R15.2: the container, the id and the controller).
        var key: Key { Key(container: container, id: child.id, controller: child.controller) }
        struct Key: Hashable { let container: String, id: String, controller: String? }
    }

    /// The composite `name`, or the error a command of `name` gets.
    func composite(_ name: String) throws(TabError) -> Composite {
        if let c = composites[name] { return c }
        if nodes[name] != nil { throw TabError(.notAvailable, "'\(name)' is a tab controller") }
        throw TabError(.notFound, "no controller named '\(name)'")
    }

    /// The kind of the container `name`, or nil when there is none.
    public func kind(of name: String) -> ContainerKind? {
        if nodes.index(forKey: name) != nil { return .tab }  // not `nodes[name]`: a copy of the controller
        return composites[name]?.kind
    }

    /// The parent of any container (a tab controller's is always nil in this version).
    public func parent(of name: String) -> Attachment? {
        composites[name]?.parent ?? nodes[name]?.parent
    }

    /// Whether the container `name` is visible (R15.5): a root in a window, or shown by a
    /// visible container.
    public func isVisible(_ name: String) -> Bool {
        var current = name
        var steps = 0
        while let p = parent(of: current) {
            if let container = composites[p.parent] {
                guard container.body.shows(p.slot) else { return false }
            } else {
                // R15.5: a tab's content is shown while its tab is the selected leaf.
                guard let t = nodes[p.parent], t.tabBar.statusBarChild == p.slot else { return false }
            }
            current = p.parent
            steps += 1
            if steps > Self.maxChain * 2 { return false }
        }
        if let c = composites[current] { return c.window }
        return nodes[current]?.window ?? false
    }

    /// The root above `name` (itself when it is one).
    public func root(of name: String) -> String {
        var current = name
        var steps = 0
        while let p = parent(of: current), steps <= Self.maxChain * 2 { current = p.parent; steps += 1 }
        return current
    }

    /// How many containers from the root down to `name`, both counted.
    func chainAbove(_ name: String) -> Int {
        var n = 1, current = name
        while let p = parent(of: current), n <= Self.maxChain * 2 { current = p.parent; n += 1 }
        return n
    }

    /// How many containers in the longest chain from `name` down, itself counted. Counts no
    /// further than `Self.maxChain * 2` down (a chain is never longer than `maxChain`; the
    /// bound keeps a damaged tree from recursing without end).
    func chainBelow(_ name: String, depth: Int = 1) -> Int {
        guard depth <= Self.maxChain * 2 else { return 1 }
        let children: [ChildObject]
        if let c = composites[name] { children = c.body.children } else if let t = nodes[name], t.holdsContent { children = t.tabBar.contents } else { return 1 }
        var most = 0
        for child in children { if let x = child.controller { most = max(most, chainBelow(x, depth: depth + 1)) } }
        return most + 1
    }

    /// Every visible child in the tree of `root`, in pre-order; none when it is not a root in
    /// a window.
    mutating func visibleChildren(under root: String) -> [VisibleChild] {
        guard let at = position(of: root), case (nil, true) = placement(at) else { return [] }
        var out: [VisibleChild] = []
        appendVisible(below: at, name: root, depth: 0, to: &out)
        return out
    }

    /// Every visible child below the container `name`, in pre-order (depths from its own
    /// children's 0); none when `name` is not visible. A step of a command on `name` changes
    /// only what is below it (attaching takes a hidden root in, detaching takes one out), and
    /// its part of the tree's pre-order is this one, so its visible sets are these: the cost
    /// follows the container's subtree, not its whole tree (a leaf's command under a root
    /// showing a thousand containers of a thousand children each cost seconds).
    mutating func visibleChildren(below name: String) -> [VisibleChild] {
        guard let at = position(of: name) else { return [] }
        return visibleChildren(below: at, name: name)
    }

    /// `visibleChildren(below:)` of the container `name` at `at`.
    mutating func visibleChildren(below at: Position, name: String) -> [VisibleChild] {
        guard isVisible(at) else { return [] }
        var out: [VisibleChild] = []
        out.reserveCapacity(4)  // one allocation for a few (appending grew it one by one)
        appendVisible(below: at, name: name, depth: 0, to: &out)
        return out
    }

    /// The children the container `name` (at `at`) shows, and theirs below each, in pre-order.
    mutating func appendVisible(below at: Position, name: String, depth: Int, to out: inout [VisibleChild]) {
        switch at {
        case .tab:
            // A tab controller shows its selected leaf, or More (R5.1), and the leaf's content
            // controller (R15.2).
            guard let (leaf, x) = decidingChild(at) else { return }
            out.append(VisibleChild(container: name, child: ChildObject(id: leaf, controller: x), depth: depth, byTab: true, at: at))
            if let x, depth <= Self.maxChain * 2, let below = position(of: x) { appendVisible(below: below, name: x, depth: depth + 1, to: &out) }
        case .composite(let i):
            guard depth <= Self.maxChain * 2 else { return }
            func visit(_ child: ChildObject, _ out: inout [VisibleChild]) {
                out.append(VisibleChild(container: name, child: child, depth: depth, at: at))
                if let x = child.controller, let below = position(of: x) { appendVisible(below: below, name: x, depth: depth + 1, to: &out) }
            }
            guard composites.values[i].lend({ $0.body.readsShownInPlace }) else {
                for child in composites.values[i].lend({ $0.body.shownChildren }) { visit(child, &out) }
                return
            }
            // One child at a time, without a list of them.
            var k = 0
            while let child = composites.values[i].lend({ $0.body.shownChild(k) }) {
                visit(child, &out)
                k += 1
            }
        }
    }

    // MARK: Read in place
    //
    // The walks of a command (visibility, roots, status bar paths, visible sets) read each
    // container where it lies: a tab controller read out of `nodes` by key was a copy of the
    // whole controller (a retain and a release of each of its arrays and strings), and each
    // step of a walk looked a name up in both tables. A walk finds a name once (`position`)
    // and reads through the dictionaries' in-place access (mutating only for that: nothing
    // changes). The non-mutating forms above (`isVisible`, `root(of:)`, `statusBarPath(of:)`,
    // `parent(of:)`) are the encoders'.

    /// Where a container lies: its table and its position there (valid until a container is
    /// added or removed).
    enum Position: Equatable {
        case composite(Dictionary<String, Composite>.Index)
        case tab(Dictionary<String, ContainerNode>.Index)
    }

    /// Where the container `name` lies, or nil. Composites first: most nodes of a tree are.
    func position(of name: String) -> Position? {
        if let i = composites.index(forKey: name) { return .composite(i) }
        if let i = nodes.index(forKey: name) { return .tab(i) }
        return nil
    }

    /// The container's parent and window flag, read in place.
    mutating func placement(_ at: Position) -> (parent: Attachment?, window: Bool) {
        switch at {
        case .composite(let i): return composites.values[i].lend { ($0.parent, $0.window) }
        case .tab(let i): return nodes.values[i].lend { ($0.parent, $0.window) }
        }
    }

    /// `parent(of:)` in place.
    mutating func attachment(of name: String) -> Attachment? {
        guard let at = position(of: name) else { return nil }
        return placement(at).parent
    }

    /// `root(of:)` in place.
    mutating func rootInPlace(of name: String) -> String {
        var current = name
        var steps = 0
        while let p = attachment(of: current), steps <= Self.maxChain * 2 { current = p.parent; steps += 1 }
        return current
    }

    /// `isVisible` in place, from where the container lies: one lookup per container above it.
    mutating func isVisible(_ start: Position) -> Bool {
        var at = start
        var steps = 0
        while true {
            let (parent, window) = placement(at)
            guard let p = parent else { return window }
            guard let up = position(of: p.parent) else { return false }
            switch up {
            case .composite(let i): guard composites.values[i].lend({ $0.body.shows(p.slot) }) else { return false }
            // R15.5: a tab's content is shown while its tab is the selected leaf.
            case .tab(let i): guard nodes.values[i].lend({ $0.tabBar.statusBarChild == p.slot }) else { return false }
            }
            at = up
            steps += 1
            if steps > Self.maxChain * 2 { return false }
        }
    }

    /// `isVisible(_:)` of a name, in place.
    mutating func isVisibleInPlace(_ name: String) -> Bool {
        guard let at = position(of: name) else { return false }
        return isVisible(at)
    }

    /// The child that decides the container's status bar (R15.11), and its controller: a
    /// composite's `statusBarChild`, a tab controller's selected leaf and the leaf's content.
    mutating func decidingChild(_ at: Position) -> (id: String, controller: String?)? {
        switch at {
        case .composite(let i):
            return composites.values[i].lend { c in c.body.statusBarChild.map { ($0.id, $0.controller) } }
        case .tab(let i):
            return nodes.values[i].lend { n in n.tabBar.statusBarChild.map { ($0, n.holdsContent ? n.tabBar.content(of: $0) : nil) } }
        }
    }

    /// `statusBarPath(of:)` in place.
    mutating func statusBarPathInPlace(of name: String) -> [String] {
        statusBarPath(from: position(of: name))
    }

    /// `statusBarPathInPlace(of:)` from where the container lies.
    /// `known`: a visible set just walked, whose entries tell where their containers lie (a
    /// container found there is not looked up by name).
    mutating func statusBarPath(from start: Position?, known: [VisibleChild] = []) -> [String] {
        var path: [String] = []
        path.reserveCapacity(4)
        var next = start
        while path.count <= Self.maxChain * 2, let at = next, let (id, x) = decidingChild(at) {
            path.append(id)
            next = x.flatMap { x in known.firstIndex(where: { $0.container == x }).flatMap { known[$0].at } ?? position(of: x) }
        }
        return path
    }

    /// The status bar path of `name` (R15.11): its deciding child, then that child's, down.
    /// A tab controller's deciding child is its selected leaf (R5.4), and the path goes on
    /// into the leaf's content controller (R15.2).
    public func statusBarPath(of name: String) -> [String] {
        var path: [String] = []
        var current = name
        while path.count <= Self.maxChain * 2 {
            if let c = composites[current] {
                guard let child = c.body.statusBarChild else { break }
                path.append(child.id)
                guard let x = child.controller else { break }
                current = x
            } else if let t = nodes[current], let leaf = t.tabBar.statusBarChild {
                path.append(leaf)
                guard t.holdsContent, let x = t.tabBar.content(of: leaf) else { break }
                current = x
            } else {
                break
            }
        }
        return path
    }

    /// The status bar path of `root` if it is a root in a window (a hidden root has none; a
    /// tab root has one only while it holds a content controller: R15.8 c). Read in place.
    mutating func shownStatusBarPath(_ root: String) -> [String]? {
        position(of: root).flatMap { shownStatusBarPath(at: $0) }
    }

    /// `shownStatusBarPath(_:)` of the container at `at`.
    mutating func shownStatusBarPath(at: Position, known: [VisibleChild] = []) -> [String]? {
        switch at {
        case .composite(let i): guard composites.values[i].lend({ $0.isRoot && $0.window }) else { return nil }
        case .tab(let i): guard nodes.values[i].lend({ $0.isRoot && $0.window && $0.holdsContent }) else { return nil }
        }
        return statusBarPath(from: at, known: known)
    }

    /// R15.9: refuses a user action on `name` that the user cannot reach. `userPop`: the
    /// action is a user pop of a navigation controller (allowed below a center under
    /// `navigation_bar_only`).
    func checkReach(_ name: String, command: String, userPop: Bool) throws(TabError) {
        guard isVisible(name) else {
            throw TabError(.notAvailable, "'\(name)' is not visible, so a user cannot \(command) there; an app action (no 'user' or 'gesture') can")
        }
        var current = name
        while let p = parent(of: current) {
            if let d = composites[p.parent], case .drawer(let drawer) = d.body, drawer.center.id == p.slot, drawer.openSide != .none {
                switch drawer.centerInteraction {
                case .full: break
                case .navigationBarOnly where userPop: break
                default:
                    throw TabError(.notAvailable, "'\(name)' is below the center of '\(d.name)' and its \(drawer.openSide.rawValue) drawer is open; close it first, or configure center_interaction")
                }
            }
            if let s = composites[p.parent], case .split(let split) = s.body, split.secondary.id == p.slot, split.dimsSecondary {
                throw TabError(.notAvailable, "'\(name)' is below the secondary column of '\(s.name)', dimmed in \(split.displayMode.rawValue); hide the column over it first")
            }
            current = p.parent
        }
    }

    /// R15.3: refuses attaching the child objects `entering` to `container` (whose chain
    /// from the root is `above` long), nothing changed. `moving`: controllers the same command
    /// takes out of `container` (a tab's content moved to another tab: detached, then attached,
    /// R15.2, R15.4), which may enter again.
    func checkAttach(_ entering: [ChildObject], to container: String, kind: ContainerKind, idiom: Idiom, above: Int,
                     moving: Set<String> = []) throws(TabError) {
        var seen = Set<String>()
        for child in entering {
            guard let x = child.controller else { continue }
            guard seen.insert(x).inserted else { throw TabError(.conflict, "'\(x)' is given twice; a controller has one parent") }
            if let t = nodes[x] {
                // R15.3: a tab controller only in a drawer slot or a custom container (or a
                // split's secondary or compact column), never in a stack or a tab.
                if kind == .navigation {
                    throw TabError(.conflict, "tab controller '\(x)' cannot be pushed onto navigation controller '\(container)'; a tab bar interface is never in a stack")
                }
                if kind == .tab {
                    throw TabError(.conflict, "tab controller '\(x)' cannot be the content of a tab of '\(container)'; a tab bar interface is never installed in a tab (use a navigation, split, drawer or custom controller)")
                }
                if x == container || root(of: container) == x || isAncestor(x, of: container) {
                    throw TabError(.conflict, "'\(x)' is '\(container)' or above it; a controller cannot contain itself")
                }
                if let p = t.parent, p.parent != container || !moving.contains(x) {
                    throw TabError(.conflict, "'\(x)' is already a child of '\(p.parent)'; a controller has one parent (remove it there first)")
                }
                if t.window { throw TabError(.conflict, "tab controller '\(x)' is a window's root; create it with \"window\": false, or set_window false first") }
                if t.tabBar.idiom != idiom { throw TabError(.conflict, "'\(x)' is a \(t.tabBar.idiom.rawValue) controller and '\(container)' is in a \(idiom.rawValue) tree") }
                if above + chainBelow(x) > Self.maxChain { throw TabError(.conflict, "attaching '\(x)' to '\(container)' would make a chain of \(above + chainBelow(x)) controllers; at most \(Self.maxChain)") }
                continue
            }
            guard let c = composites[x] else { throw TabError(.notFound, "no controller named '\(x.prefix(Self.maxNameLength))' (create it first, then attach it)") }
            if x == container || root(of: container) == x || isAncestor(x, of: container) {
                throw TabError(.conflict, "'\(x)' is '\(container)' or above it; a controller cannot contain itself")
            }
            if let p = c.parent, p.parent != container || !moving.contains(x) {
                throw TabError(.conflict, "'\(x)' is already a child of '\(p.parent)'; a controller has one parent (remove it there first)")
            }
            if c.window { throw TabError(.conflict, "'\(x)' is a window's root; set_window false first") }
            if c.idiom != idiom { throw TabError(.conflict, "'\(x)' is a \(c.idiom.rawValue) controller and '\(container)' is in a \(idiom.rawValue) tree") }
            // R15.3: a split is never pushed onto a stack, nor put in a split (decision).
            if c.kind == .split, kind == .navigation || kind == .split {
                throw TabError(.conflict, "split '\(x)' cannot be \(kind == .navigation ? "pushed onto navigation controller" : "a column of split") '\(container)'; a split goes in a drawer, a custom container, a tab or a window")
            }
            if above + chainBelow(x) > Self.maxChain {
                throw TabError(.conflict, "attaching '\(x)' to '\(container)' would make a chain of \(above + chainBelow(x)) controllers; at most \(Self.maxChain)")
            }
        }
    }

    private func isAncestor(_ x: String, of name: String) -> Bool {
        var current = name
        var steps = 0
        while let p = parent(of: current), steps <= Self.maxChain * 2 {
            if p.parent == x { return true }
            current = p.parent; steps += 1
        }
        return false
    }

    /// Checks a container's children: ids given, unique, bounded (`conflict`, `invalid_request`).
    static func checkChildren(_ children: [ChildObject], limits: ControllerLimits) throws(TabError) {
        guard children.count <= limits.maxTabs else {
            throw TabError(.outOfRange, "\(children.count) children; a container holds at most \(limits.maxTabs) (limits.max_tabs)")
        }
        var ids = Set<String>()
        for c in children {
            guard !c.id.isEmpty else { throw TabError(.invalid, "a child object needs a non-empty 'id'") }
            guard c.id.utf8.count <= limits.maxIDBytes else { throw TabError(.outOfRange, "child id '\(c.id.prefix(32))…' is longer than \(limits.maxIDBytes) bytes (limits.max_id_bytes)") }
            if let t = c.title, t.utf8.count > limits.maxTextBytes { throw TabError(.outOfRange, "the title of child '\(c.id)' is longer than \(limits.maxTextBytes) bytes (limits.max_text_bytes)") }
            if let r = c.restorationID, r.utf8.count > limits.maxIDBytes { throw TabError(.outOfRange, "the restoration_id of child '\(c.id)' is longer than \(limits.maxIDBytes) bytes (limits.max_id_bytes)") }
            guard ids.insert(c.id).inserted else { throw TabError(.conflict, "two children have the id '\(c.id)'; ids are unique in a container") }
        }
    }

    /// How the events of one step of a command are ordered.
    enum StepOrder {
        /// R15.6: containment of each leaving child around its disappearance, then each
        /// entering child's, then the other visibility changes.
        case setChange
        /// R15.7: listing 5-3.
        case transition
        /// Only visibility changes (R15.6 c): nothing enters or leaves.
        case visibility
    }

    /// Numbers and appends one event sent by `controller`.
    mutating func send(_ event: consuming NodeEvent, from controller: String, _ outcome: inout NodeOutcome) {
        guard let at = position(of: controller) else { return }
        send(event, from: controller, at: at, &outcome)
    }

    /// `send(_:from:_:)` of the container lying at `at` (a walk's, or the command's own: no
    /// lookup of its name, ~300 instructions an event). Numbered in place: reading
    /// `composites[controller]!.seq` copied the whole container out.
    mutating func send(_ event: consuming NodeEvent, from controller: String, at: Position, _ outcome: inout NodeOutcome) {
        let seq = nextSeq(controller, at: at)
        guard keepsEvents else { unkeptEvents &+= 1; return }
        outcome.events.append(SentNodeEvent(controller: controller, seq: seq, event: event))
    }

    /// The seq of the next event of the container `controller` lying at `at`, saved for undo.
    @inline(__always)
    mutating func nextSeq(_ controller: String, at: Position) -> UInt64 {
        switch at {
        case .composite(let i):
            saveComposite(controller, at: i)
            return composites.values[i].nextSeq()
        case .tab(let i):
            saveSeq(controller, at: i)
            return nodes.values[i].nextSeq()
        }
    }

    /// `send` of an event nobody keeps: numbered and counted.
    mutating func number(_ controller: String, at: Position) {
        _ = nextSeq(controller, at: at)
        unkeptEvents &+= 1
    }

    /// Sets where a child controller of any kind is attached (nil: a hidden root), saved for undo.
    mutating func place(_ x: String, _ parent: Attachment?) {
        if composites[x] != nil {
            saveComposite(x)
            composites[x]!.parent = parent
        } else if nodes[x] != nil {
            saveWhole(x)
            nodes[x]!.parent = parent
            recent = Recent()  // `saveWhole` may have copied; positions stay, but be plain about it
        }
    }

    /// Applies one step of a command: `name`'s body becomes `body`; children that leave are
    /// detached (their controllers become hidden roots), those that enter attached; the
    /// containment and appearance events are sent in `order`. Returns the controllers
    /// detached and attached, for their `parent_changed` after the container's own events.
    /// A controller attached takes the root's environment first, silently (R15.10): a split
    /// under a compact root is collapsed as if it had always been (asking `policy`).
    /// `between`: events of `name` sent between a set change's containment and the other
    /// visibility changes (R15.38).
    mutating func step(_ name: String, to body: CompositeBody, _ order: StepOrder, policy: Policy = DefaultPolicy(), between: [NodeEvent] = [],
                       _ outcome: inout NodeOutcome) -> (detached: [String], attached: [String]) {
        if order == .visibility, case .composite(let i)? = position(of: name) {
            stepVisibility(name, at: i, to: body, &outcome)
            return ([], [])
        }
        var leaving: [ChildObject] = [], entering: [ChildObject] = []
        if order != .visibility {
            let old = composites[name]!.body
            leaving = ChildObject.children(old.children, notIn: body.children)
            entering = ChildObject.children(body.children, notIn: old.children)
        }
        let before = visibleChildren(below: name)
        saveComposite(name)
        composites[name]!.body = body
        for c in leaving { if let x = c.controller { place(x, nil) } }
        for c in entering {
            guard let x = c.controller else { continue }
            place(x, Attachment(parent: name, slot: c.id))
            spreadEnvironment(below: root(of: name), from: x, events: false, policy: policy, &outcome)
        }
        let after = visibleChildren(below: name)
        emit(name, leaving: leaving, entering: entering, before: before, after: after, order, between: between, &outcome)
        return (leaving.compactMap(\.controller), entering.compactMap(\.controller))
    }

    /// A visibility step (R15.6 c) of the composite `name` at `i`: nothing enters or leaves,
    /// and what is below a child shown before and after is the same (only `name` changes), so
    /// the visible sets differ by the children `name` stops or starts showing, each with what
    /// is below it. Those alone are walked (the whole sets before and after, diffed, cost a
    /// drawer's open ~3,000 instructions); the events are the ones `emit` gives for the whole
    /// sets, in the same order (each run in pre-order, as the sets list it).
    private mutating func stepVisibility(_ name: String, at i: Dictionary<String, Composite>.Index, to body: CompositeBody,
                                         _ outcome: inout NodeOutcome) {
        let visible = isVisible(.composite(i))
        let old = composites.values[i].body
        saveComposite(name, at: i)
        composites.values[i].body = body
        guard visible else { return }
        var gone: [VisibleChild] = [], came: [VisibleChild] = []
        func visit(_ c: ChildObject, into out: inout [VisibleChild]) {
            out.append(VisibleChild(container: name, child: c, depth: 0, at: .composite(i)))
            if let x = c.controller, let below = position(of: x) { appendVisible(below: below, name: x, depth: 1, to: &out) }
        }
        if old.readsShownInPlace && body.readsShownInPlace {
            // A child or two each (a stack's top, a drawer's center and open side, a collapsed
            // split's top column): read in place, no lists made.
            func runs(_ list: CompositeBody, notIn other: CompositeBody, into out: inout [VisibleChild]) {
                var k = 0
                while let c = list.shownChild(k) {
                    k += 1
                    var j = 0, kept = false
                    while !kept, let d = other.shownChild(j) { kept = d.isSameChild(as: c); j += 1 }
                    if !kept { visit(c, into: &out) }
                }
            }
            runs(old, notIn: body, into: &gone)
            runs(body, notIn: old, into: &came)
        } else {
            let before = old.shownChildren, after = body.shownChildren
            for c in ChildObject.children(before, notIn: after) { visit(c, into: &gone) }
            for c in ChildObject.children(after, notIn: before) { visit(c, into: &came) }
        }
        sendVisibilityChanges(gone: gone, came: came, &outcome)
    }

    /// R15.6 (c) in R5.1's order: each of `gone`'s will_disappear, each of `came`'s
    /// will_appear, then their did_disappear and did_appear.
    mutating func sendVisibilityChanges(gone: [VisibleChild], came: [VisibleChild], _ outcome: inout NodeOutcome) {
        for k in gone.indices { sendAppearance(gone, k, .willDisappear, &outcome) }
        for k in came.indices { sendAppearance(came, k, .willAppear, &outcome) }
        for k in gone.indices { sendAppearance(gone, k, .didDisappear, &outcome) }
        for k in came.indices { sendAppearance(came, k, .didAppear, &outcome) }
    }

    /// The events of a step, from what left and entered `name` and the visible sets.
    mutating func emit(_ name: String, leaving: [ChildObject], entering: [ChildObject], before: [VisibleChild], after: [VisibleChild],
                       _ order: StepOrder, between: [NodeEvent] = [], _ outcome: inout NodeOutcome) {
        // Sets of keys when a container shows many children (this runs for every command); a
        // few are compared in place (hashing a key's three strings cost more than the scan).
        var gone: [VisibleChild], came: [VisibleChild]
        if before.count * after.count <= 64 {
            gone = before.filter { v in !after.contains { $0.isSame(as: v) } }
            came = after.filter { v in !before.contains { $0.isSame(as: v) } }
        } else {
            let beforeKeys = Set(before.map(\.key)), afterKeys = Set(after.map(\.key))
            gone = before.filter { !afterKeys.contains($0.key) }
            came = after.filter { !beforeKeys.contains($0.key) }
        }
        func appear(_ list: [VisibleChild], _ phase: AppearancePhase, _ outcome: inout NodeOutcome) {
            for k in list.indices { sendAppearance(list, k, phase, &outcome) }
        }
        func move(_ c: ChildObject, _ phase: ContainmentPhase, entering: Bool, _ outcome: inout NodeOutcome) {
            send(.containment(child: c.id, controller: c.controller, phase: phase, parent: entering ? name : nil), from: name, &outcome)
        }
        // Where each of `name`'s own visible children is in `before` (one pass, not a search
        // per leaving child).
        var own: [VisibleChild.Key: Int] = [:]
        if order == .setChange, !leaving.isEmpty {
            for (i, v) in before.enumerated() where v.container == name { own[v.key] = i }
        }
        /// A leaving child's visible entry and those below it.
        func subtree(of c: ChildObject) -> [VisibleChild] {
            guard let i = own[VisibleChild.Key(container: name, id: c.id, controller: c.controller)] else { return [] }
            var run = [before[i]]
            var j = i + 1
            while j < before.count, before[j].depth > before[i].depth { run.append(before[j]); j += 1 }
            return run
        }
        func others(_ outcome: inout NodeOutcome) { sendVisibilityChanges(gone: gone, came: came, &outcome) }
        switch order {
        case .setChange:
            var left = Set<VisibleChild.Key>()
            SetChange.containment(leaving: leaving, entering: entering,
                                  move: { c, phase, entering in move(c, phase, entering: entering, &outcome) },
                                  disappear: { c in
                                      let run = subtree(of: c)
                                      appear(run, .willDisappear, &outcome)
                                      appear(run, .didDisappear, &outcome)
                                      for v in run { left.insert(v.key) }
                                  })
            // Once, after them all: a removal per leaving child rescanned every entry gone.
            if !left.isEmpty { gone.removeAll { left.contains($0.key) } }
            for e in between { send(e, from: name, &outcome) }
            others(&outcome)
        case .transition:
            for c in leaving { move(c, .willMove, entering: false, &outcome) }
            for c in entering { move(c, .willMove, entering: true, &outcome) }
            others(&outcome)
            for c in leaving { move(c, .didMove, entering: false, &outcome) }
            for c in entering { move(c, .didMove, entering: true, &outcome) }
        case .visibility:
            others(&outcome)
        }
    }

    /// One visible child's appearance event, from its container: a tab controller's leaf is
    /// its own event, its content loaded first if it never was (R15.8 a).
    /// The entry is `list[k]`, read where it lies (a `VisibleChild` passed or iterated was a
    /// copy: its strings retained and released, ~250 instructions an event).
    mutating func sendAppearance(_ list: [VisibleChild], _ k: Int, _ phase: AppearancePhase, _ outcome: inout NodeOutcome) {
        guard let at = list[k].at ?? position(of: list[k].container) else { return }
        guard list[k].byTab, case .tab(let i) = at else {
            send(.appearance(child: list[k].child.id, controller: list[k].child.controller, phase: phase), from: list[k].container, at: at, &outcome)
            return
        }
        if phase == .willAppear, nodes.values[i].lend({ $0.tabBar.isLoaded(list[k].child.id) }) == false {
            saveWhole(list[k].container)
            nodes.values[i].tabBar.setLoaded(list[k].child.id, true)
            send(.contentLoaded(tab: list[k].child.id), from: list[k].container, at: at, &outcome)
        }
        send(.tabAppearance(tab: list[k].child.id, phase: phase), from: list[k].container, at: at, &outcome)
    }

    /// What follows a command's steps: `parent_changed` of each controller detached, then of
    /// each attached (R15.4), then `status_bar_changed` of each visible root whose path
    /// changed (R15.8 c, R15.42): the addressed container's root, the only one a command
    /// changes (`pathBefore`: its path before, nil when it was hidden).
    /// `root`: where `name` lies when it is a root (its root found without a walk).
    /// `deciding`: given with `root` for a command that changed only what the root shows, the
    /// id of its deciding child before (`pathBefore` not read): the path changed if that did.
    mutating func finish(_ name: String, detached: [String], attached: [String], pathBefore: [String]?, root: Position? = nil,
                         deciding: String?? = nil, _ outcome: inout NodeOutcome) {
        for x in detached where attachment(of: x) == nil && position(of: x) != nil {
            send(.parentChanged(parent: nil, window: false), from: x, &outcome)
        }
        for x in attached { if let p = attachment(of: x) { send(.parentChanged(parent: p, window: false), from: x, &outcome) } }
        let tree = root == nil ? rootInPlace(of: name) : name
        guard let at = root ?? position(of: tree) else { return }
        if let deciding, root != nil {
            guard decidingChild(at)?.id != deciding, let now = shownStatusBarPath(at: at) else { return }
            return send(.statusBarChanged(path: now), from: tree, at: at, &outcome)
        }
        if let now = shownStatusBarPath(at: at), now != pathBefore { send(.statusBarChanged(path: now), from: tree, at: at, &outcome) }
    }

    /// Remembers the composite `name` (nil: absent) as it is before it changes, once a turn.
    /// Called for every event a composite sends: a turn's few names are compared in place
    /// (hashing one cost more), a set kept past `UndoLog.scannedComposites`.
    mutating func saveComposite(_ name: String) {
        guard before.firstSave(of: name) else { return }
        before.composites.append((name, composites[name]))
    }

    /// `saveComposite(_:)` of the composite lying at `i`.
    mutating func saveComposite(_ name: String, at i: Dictionary<String, Composite>.Index) {
        guard before.firstSave(of: name) else { return }
        before.composites.append((name, composites.values[i]))
    }
}
