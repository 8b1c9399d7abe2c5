// R13: the modern tab model — groups, hidden tabs, placement in the bar, the user's display
// order and the sidebar. A controller whose tabs use none of it (`arranged` false) never
// reaches this file's rules: its bar, More and selection are R1–R12's, on the same code path.

extension Tab {
    /// Whether the tab changes how the bar is composed or what can be selected (R13.1–R13.5).
    /// A subtitle alone does not: it is only shown.
    var arranges: Bool {
        children != nil || defaultChild != nil || allowsReordering || hidden || allowsHiding
            || hiddenByDefault || placement != .automatic
    }

    /// R13.4: `automatic` is `default` for a root tab and `optional` inside a group.
    func effectivePlacement(isRoot: Bool) -> Placement {
        placement == .automatic ? (isRoot ? .default : .optional) : placement
    }
}

/// The bar's tabs as R13.4 composes them: fixed ones, the user's order of the others, pinned
/// ones — visible tabs only.
struct ComposedBar: Equatable {
    var fixed: [String] = [], middle: [String] = [], pinned: [String] = []

    var count: Int { fixed.count + middle.count + pinned.count }

    /// What the bar shows itself and what does not fit (More's list on phone and pad, the
    /// unreachable tabs on tv). Fixed and pinned tabs always fit (R13.4): the middle gives
    /// way, and on phone and pad one place goes to More.
    func split(maxVisible: Int, idiom: Idiom) -> (shown: [String], rest: [String]) {
        guard count > maxVisible else { return (fixed + middle + pinned, []) }
        let room = maxVisible - (idiom == .tv ? 0 : 1) - fixed.count - pinned.count
        let k = max(0, min(middle.count, room))
        return (fixed + middle.prefix(k) + pinned, Array(middle.dropFirst(k)))
    }
}

extension Controller {
    /// Groups nest at most this deep: a root tab is at depth 1 (R13.1).
    public static let maxDepth = 4

    // MARK: The tree

    /// The tab's address: its root's index, then child indices (in `children` order).
    func locate(_ id: String) -> [Int]? {
        if let i = index(of: id) { return [i] }
        guard arranged else { return nil }
        func search(_ list: [Tab], _ prefix: [Int]) -> [Int]? {
            for (i, t) in list.enumerated() {
                if t.id == id { return prefix + [i] }
                if let kids = t.children, let found = search(kids, prefix + [i]) { return found }
            }
            return nil
        }
        for (i, t) in tabs.enumerated() {
            if let kids = t.children, let found = search(kids, [i]) { return found }
        }
        return nil
    }

    subscript(at address: [Int]) -> Tab {
        var t = tabs[address[0]]
        for i in address.dropFirst() { t = t.children![i] }
        return t
    }

    mutating func modify(at address: [Int], _ body: (inout Tab) -> Void) {
        func walk(_ t: inout Tab, _ rest: ArraySlice<Int>) {
            guard let i = rest.first else { return body(&t) }
            walk(&t.children![i], rest.dropFirst())
        }
        walk(&tabs[address[0]], address.dropFirst())
    }

    /// The ids from the root down to the tab (R13.2), or nil when there is no such tab.
    public func path(of id: String) -> [String]? {
        guard let at = locate(id) else { return nil }
        var ids: [String] = [], t = tabs[at[0]]
        ids.append(t.id)
        for i in at.dropFirst() { t = t.children![i]; ids.append(t.id) }
        return ids
    }

    /// Every tab of the tree, parents before their children, roots in tab order and children
    /// in display order, with whether it is a root.
    func forEachTab(_ body: (Tab, _ isRoot: Bool, _ hiddenAbove: Bool) -> Void) {
        func visit(_ t: Tab, root: Bool, hiddenAbove: Bool) {
            body(t, root, hiddenAbove)
            for c in t.orderedChildren { visit(c, root: false, hiddenAbove: hiddenAbove || t.hidden) }
        }
        for t in tabs { visit(t, root: true, hiddenAbove: false) }
    }

    /// Every id of the tree.
    public var treeIDs: Set<String> {
        var ids = Set<String>()
        forEachTab { t, _, _ in ids.insert(t.id) }
        return ids
    }

    /// How many tabs the tree holds (groups and their children).
    public var treeCount: Int {
        var n = 0
        forEachTab { _, _, _ in n += 1 }
        return n
    }

    /// The child a group shows (R13.1): the one it remembers, else its default child, else
    /// its first — visible children only, in display order. nil for a plain tab or a group
    /// whose children are all hidden.
    public func shownChild(of group: Tab) -> Tab? {
        let visible = group.orderedChildren.filter { !$0.hidden }
        return visible.first { $0.id == group.selectedChild }
            ?? visible.first { $0.id == group.defaultChild }
            ?? visible.first
    }

    /// The ids below `tab` that selecting it selects, down to a leaf (R13.2).
    func descent(from tab: Tab) -> [String] {
        var ids: [String] = [], t = tab
        while let next = shownChild(of: t) { ids.append(next.id); t = next }
        return ids
    }

    /// What is selected, root … leaf (R13.2): `[]` for nothing, `["more"]` for More.
    public var selectedPath: [String] {
        switch selection {
        case .none: return []
        case .more: return [Controller.moreID]
        case .tab(let id):
            guard let i = index(of: id) else { return [] }
            return [id] + descent(from: tabs[i])
        }
    }

    /// The selected leaf: the tab whose content shows (a tab id, "more", or nil).
    public var selectedLeaf: String? {
        if !arranged { return selection.wireValue }
        return selectedPath.last
    }

    /// Whether anything of R13 shows in this controller's `state` (a mode, a subtitle, a
    /// group…): `state` and events then carry R13's members; otherwise they are R1–R12's.
    public var usesModernModel: Bool {
        arranged || mode != .automatic || tabs.contains { $0.usesModernModel }
    }

    mutating func refreshArranged() {
        arranged = barOrder != nil || tabs.contains { $0.arranges }
    }

    // MARK: The bar (R13.4)

    var composedBar: ComposedBar {
        var bar = ComposedBar(), defaults: [String] = [], movable: [String] = [], eligible = Set<String>()
        forEachTab { t, isRoot, hiddenAbove in
            guard !t.hidden, !hiddenAbove else { return }
            switch t.effectivePlacement(isRoot: isRoot) {
            case .fixed: bar.fixed.append(t.id)
            case .pinned: bar.pinned.append(t.id)
            case .default: defaults.append(t.id); eligible.insert(t.id)
            case .movable: defaults.append(t.id); movable.append(t.id); eligible.insert(t.id)
            case .optional: eligible.insert(t.id)
            case .sidebarOnly, .automatic: break
            }
        }
        guard let order = barOrder else {
            bar.middle = defaults
            return bar
        }
        bar.middle = order.filter(eligible.contains)
        for id in movable where !bar.middle.contains(id) { bar.middle.append(id) }  // cannot leave
        return bar
    }

    /// The bar item shown as selected: the deepest tab of the selected path that is on the
    /// bar, else More when one is under More.
    var arrangedBarSelected: String? {
        if case .more = selection { return Controller.moreID }
        let path = selectedPath
        let split = composedBar.split(maxVisible: maxVisible, idiom: idiom)
        for id in path.reversed() {
            if split.shown.contains(id) { return id }
            if idiom != .tv, split.rest.contains(id) { return Controller.moreID }
        }
        return nil
    }

    /// After the tab list changed: the user's bar order keeps the tabs that are still there
    /// and takes the new tabs that go in the bar by default at its end (R13.5).
    mutating func adjustBarOrder(previous: Set<String>) {
        guard var order = barOrder else { return }
        let ids = treeIDs
        order = order.filter(ids.contains)
        var have = Set(order)
        forEachTab { t, isRoot, _ in
            let p = t.effectivePlacement(isRoot: isRoot)
            if !previous.contains(t.id), p == .default || p == .movable, have.insert(t.id).inserted { order.append(t.id) }
        }
        barOrder = order
    }

    // MARK: The sidebar (R13.6)

    /// A sidebar exists on the pad idiom in `tab_sidebar` mode, or `automatic` with a group.
    public var sidebarAvailable: Bool {
        idiom == .pad && (mode == .tabSidebar || (mode == .automatic && tabs.contains { $0.children != nil }))
    }

    /// The sidebar's tree: visible tabs in display order (sidebar-only ones included).
    public var sidebarItems: [SidebarItem] {
        guard sidebarAvailable else { return [] }
        func items(_ list: [Tab]) -> [SidebarItem] {
            list.filter { !$0.hidden }.map { SidebarItem(id: $0.id, children: $0.children == nil ? nil : items($0.orderedChildren)) }
        }
        return items(tabs)
    }

    mutating func setSidebar(_ visible: Bool, _ out: inout Outcome) throws(TabError) {
        guard sidebarAvailable else {
            throw TabError(.notAvailable, idiom != .pad
                ? "the \(idiom.rawValue) idiom has no sidebar"
                : "controller '\(name)' has no sidebar: it is in \(mode.rawValue) mode\(mode == .tabBar ? "" : " without a group")")
        }
        guard visible != sidebarVisible else { return }
        sidebarVisible = visible
        out.notify(.sidebarChanged(visible: visible))
    }

    // MARK: Selection in the tree (R13.2)

    /// The path a selection of `target` lands on, root … leaf, or R4.5's and R13.3's errors.
    func arrangedPath(for target: SelectTarget) throws(TabError) -> [String] {
        var named: [String]
        switch target {
        case .more:
            guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
            guard moreShown else { throw moreNotShown }
            return [Controller.moreID]
        case .index:
            named = [try candidate(for: target).id]
        case .tab(let id):
            guard let p = path(of: id) else { throw .noTab(id) }
            named = p
        }
        for id in named where tab(id)!.hidden {
            throw TabError(.notAvailable, id == named.last
                ? "tab '\(id)' is hidden; show it with set_hidden before selecting it"
                : "tab '\(named.last!)' is in the hidden group '\(id)'; show the group with set_hidden before selecting it")
        }
        return named + descent(from: tab(named.last!)!)
    }

    var moreNotShown: TabError {
        TabError(.notAvailable, "More is not on the bar: the controller has \(arranged ? composedBar.count : tabs.count) tab(s) in its bar and shows up to \(maxVisible)")
    }

    /// Moves the selection to `path` (root … leaf, `["more"]` or `[]`), remembering each
    /// group's selected child, with R5's appearance calls on the leaves and `selection_changed`.
    /// `old`: the selected path before the command changed anything (hiding a tab changes
    /// the path before the selection moves).
    mutating func moveSelection(to path: [String], from old: [String]? = nil, cause: SelectionCause, _ out: inout Outcome) {
        let old = old ?? selectedPath
        guard path != old else { return }
        let previous = selection.wireValue
        if path.isEmpty { selection = .none }
        else if path == [Controller.moreID] { selection = .more }
        else { selection = .tab(path[0]); remember(path) }
        appearLeaves(old: old.last, new: path.last, &out)
        out.notify(.selectionChanged(tab: selection.wireValue, index: selectedIndex, previous: previous,
                                     cause: cause, path: path))
    }

    /// Each group on the selected path remembers the child it shows (R13.1), so that showing
    /// a hidden tab again never moves the selection.
    mutating func remember(_ path: [String]) {
        guard path.count > 1, var at = locate(path[0]) else { return }
        for child in path.dropFirst() {
            guard let i = self[at: at].children?.firstIndex(where: { $0.id == child }) else { return }
            if self[at: at].selectedChild != child { modify(at: at) { $0.selectedChild = child } }
            at.append(i)
        }
    }

    /// R5.1/R5.2 for leaves: the new leaf's content loads first; then old will-disappear,
    /// new will-appear, old did-disappear, new did-appear. "more" has no content to load.
    mutating func appearLeaves(old: String?, new: String?, _ out: inout Outcome) {
        guard old != new else { return }
        if let new, new != Controller.moreID, let at = locate(new), !self[at: at].contentLoaded {
            modify(at: at) { $0.contentLoaded = true }
            out.notify(.contentLoaded(tab: new))
        }
        if let old { out.notify(.appearance(tab: old, phase: .willDisappear)) }
        if let new { out.notify(.appearance(tab: new, phase: .willAppear)) }
        if let old { out.notify(.appearance(tab: old, phase: .didDisappear)) }
        if let new { out.notify(.appearance(tab: new, phase: .didAppear)) }
    }

    // MARK: Hidden tabs (R13.3)

    mutating func setHidden(_ id: String, _ hidden: Bool, policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        guard self[at: at].allowsHiding else {
            throw TabError(.conflict, "tab '\(id)' does not allow hiding; give it \"allows_hiding\": true in set_tabs or add_tab")
        }
        guard self[at: at].hidden != hidden else { return }
        let before = selectedPath
        let onSelectedPath = hidden && before.contains(id)
        modify(at: at) { $0.hidden = hidden }
        refreshArranged()
        let change = [TabVisibility(id: id, hidden: hidden)]
        out.notify(.visibilityChanged(tabs: change))
        if onSelectedPath { moveSelection(to: fallbackPath(hiding: id), from: before, cause: .hidden, &out) }
        policy.visibilityChanged(change, in: self)
    }

    /// R13.3: where the selection goes when `id`, on the selected path, is hidden: the
    /// nearest visible sibling before it, else after it, else the same for its parent, and so
    /// on up; else nothing.
    func fallbackPath(hiding id: String) -> [String] {
        guard var above = path(of: id) else { return [] }
        while let me = above.popLast() {
            let siblings = above.last.flatMap { tab($0)?.orderedChildren } ?? tabs
            guard let pos = siblings.firstIndex(where: { $0.id == me }) else { break }
            if let s = siblings[..<pos].last(where: { !$0.hidden }) ?? siblings[(pos + 1)...].first(where: { !$0.hidden }) {
                return above + [s.id] + descent(from: s)
            }
        }
        return []
    }

    // MARK: Display order (R13.5)

    mutating func reorder(_ group: String?, _ order: [String], policy: Policy, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("reorder")
        var seen = Set<String>()
        for id in order where !seen.insert(id).inserted {
            throw TabError(.invalid, "'order' names '\(id)' twice")
        }
        if let group {
            guard let at = locate(group) else { throw .noTab(group) }
            let g = self[at: at]
            guard let kids = g.children else {
                throw TabError(.conflict, "tab '\(group)' is not a group: only a group's children can be reordered")
            }
            guard g.allowsReordering else {
                throw TabError(.conflict, "group '\(group)' does not allow reordering; give it \"allows_reordering\": true in set_tabs or add_tab")
            }
            let ids = Set(kids.map(\.id))
            if let stranger = order.first(where: { !ids.contains($0) }) {
                throw TabError(.invalid, "'\(stranger)' is not a child of group '\(group)'; 'order' must list its children: \(kids.map(\.id).joined(separator: ", "))")
            }
            if let missing = kids.first(where: { !seen.contains($0.id) }) {
                throw TabError(.invalid, "'order' leaves out '\(missing.id)'; it must list every child of group '\(group)'")
            }
            guard order != g.orderedChildren.map(\.id) else { return }
            modify(at: at) { $0.displayOrder = order }
            refreshArranged()
        } else {
            var placements: [String: (Placement, Bool)] = [:]
            forEachTab { t, isRoot, hiddenAbove in placements[t.id] = (t.effectivePlacement(isRoot: isRoot), t.hidden || hiddenAbove) }
            for id in order {
                guard let (p, hidden) = placements[id] else { throw .noTab(id) }
                if hidden { throw TabError(.conflict, "tab '\(id)' is hidden and cannot be put in the bar; show it with set_hidden first") }
                switch p {
                case .fixed: throw TabError(.conflict, "tab '\(id)' is fixed: it leads the bar and is not part of the user's order; leave it out")
                case .pinned: throw TabError(.conflict, "tab '\(id)' is pinned: it ends the bar and is not part of the user's order; leave it out")
                case .sidebarOnly: throw TabError(.conflict, "tab '\(id)' is sidebar_only and never goes in the bar")
                default: break
                }
            }
            for (id, (p, hidden)) in placements where p == .movable && !hidden && !seen.contains(id) {
                throw TabError(.conflict, "tab '\(id)' is movable: it can move in the bar but not leave it; include it in 'order'")
            }
            guard order != composedBar.middle || barOrder == nil else { return }
            barOrder = order
            refreshArranged()
        }
        out.notify(.displayOrderChanged(group: group, order: order))
        policy.displayOrderChanged(group: group, order: order, in: self)
    }

    // MARK: Validation

    /// R13.1: ids unique in the whole tree (also against `taken`), groups at most `maxDepth`
    /// deep, a group's `default_child` one of its children.
    static func validateTree(_ roots: [Tab], taken: Set<String> = []) throws(TabError) {
        var seen = taken
        func visit(_ t: Tab, depth: Int) throws(TabError) {
            try validate(t)
            guard seen.insert(t.id).inserted else {
                throw taken.contains(t.id)
                    ? TabError(.conflict, "a tab with id '\(t.id)' already exists")
                    : TabError(.conflict, "tab id '\(t.id)' appears twice; tab ids must be unique")
            }
            guard let kids = t.children else {
                if t.defaultChild != nil { throw TabError(.invalid, "tab '\(t.id)' names a default_child but has no children") }
                if t.allowsReordering { throw TabError(.invalid, "tab '\(t.id)' allows reordering but has no children") }
                return
            }
            if !kids.isEmpty, depth >= maxDepth {
                throw TabError(.invalid, "group '\(t.id)' is at depth \(depth) and has children; groups nest at most \(maxDepth) deep")
            }
            if let d = t.defaultChild, !kids.contains(where: { $0.id == d }) {
                throw TabError(.invalid, "default_child '\(d)' of group '\(t.id)' is not one of its children")
            }
            for k in kids { try visit(k, depth: depth + 1) }
        }
        for t in roots { try visit(t, depth: 1) }
    }

    /// What makes the tree impossible, or nil (see `inconsistency`).
    var treeInconsistency: String? {
        do { try Self.validateTree(tabs) } catch { return "controller '\(name)': \(error.message)" }
        var problem: String?
        forEachTab { t, _, _ in
            guard problem == nil, let kids = t.children else { return }
            let ids = kids.map(\.id)
            if let s = t.selectedChild, !ids.contains(s) { problem = "group '\(t.id)' selects '\(s)', which is not its child" }
            if let o = t.displayOrder, o.count != ids.count || Set(o) != Set(ids) { problem = "group '\(t.id)' has a display order that is not its children" }
        }
        if let problem { return "controller '\(name)': \(problem)" }
        if let order = barOrder, Set(order).count != order.count || !Set(order).isSubset(of: treeIDs) {
            return "controller '\(name)' has a bar order that names tabs it does not have"
        }
        return nil
    }
}
