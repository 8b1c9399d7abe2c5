// R13.1: the tree of an arranged controller — finding a tab at any depth, its path, the child
// a group shows, the selected path — and `refreshArranged`, which derives the layout after
// each change of the tree. A controller whose tabs use none of R13 (`arranged` false) never
// reaches the rules of Tree/: its bar, More and selection are R1–R12's, on the same code path.

extension Controller {
    /// Groups nest at most this deep: a root tab is at depth 1 (R13.1).
    public static let maxDepth = 4

    // MARK: The tree

    /// The tab's address: its root's index, then child indices (in `children` order).
    func locate(_ id: String) -> [Int]? {
        if arranged { return layout.node(id)?.address }
        return index(of: id).map { [$0] }
    }

    /// The selected child of the group at `address` (its first `depth` indices: all of
    /// them by default), read in place (no copy of the tab).
    func selectedChild(at a: [Int], depth: Int? = nil) -> String? {
        switch depth ?? a.count {
        case 1: return tabs[a[0]].selectedChild
        case 2: return tabs[a[0]].children![a[1]].selectedChild
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].selectedChild
        case let d: return self[at: Array(a.prefix(d))].selectedChild
        }
    }

    /// Whether the tab at `address` in the tree `tabs` has no pushed screens, read in place
    /// (no copy of the tab). Static: a mutating command calls it without copying the
    /// controller (an instance method inlined into a tap still copied it).
    @inline(__always)
    static func stackIsEmpty(at a: [Int], in tabs: [Tab]) -> Bool {
        switch a.count {
        case 1: return tabs[a[0]].stack.isEmpty
        case 2: return tabs[a[0]].children![a[1]].stack.isEmpty
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].stack.isEmpty
        default:
            var t = tabs[a[0]]
            for i in a.dropFirst() { t = t.children![i] }
            return t.stack.isEmpty
        }
    }

    /// Whether the tab at `address` has loaded its content, read in place.
    func contentLoaded(at a: [Int]) -> Bool {
        switch a.count {
        case 1: return tabs[a[0]].contentLoaded
        case 2: return tabs[a[0]].children![a[1]].contentLoaded
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].contentLoaded
        default: return self[at: a].contentLoaded
        }
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
        if arranged { return layout.node(id)?.path }
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
    func shownChild(of node: TreeNode) -> TreeNode? { node.shownChild(in: tabs) }

    /// The id of the child the group `id` shows (`shownChild`), or nil.
    public func shownChildID(of id: String) -> String? {
        guard arranged, let node = layout.node(id) else { return nil }
        return shownChild(of: node)?.id
    }

    /// Where a selection of the root tab `t` lands (R13.2), or, when it is hidden, where the
    /// selection goes instead (R13.3): set_tabs' reselection, restore, a More that left the bar.
    func landingPath(ofRoot t: Tab) -> [String] {
        guard !t.hidden else { return fallbackPath(hiding: t.id) }
        var path = [t.id]
        appendDescent(from: t.id, to: &path)
        return path
    }

    /// Appends to `ids` the ids below the tab `id` that a selection of it descends into,
    /// down to a leaf (R13.2): one array for the whole path.
    func appendDescent(from id: String, to ids: inout [String]) {
        guard arranged, let node = layout.node(id) else { return }
        _ = appendDescent(from: node, to: &ids)
    }

    /// Appends the ids below `node` that a selection of it descends into; returns the leaf.
    func appendDescent(from node: TreeNode, to ids: inout [String]) -> TreeNode {
        var n = node
        while let next = shownChild(of: n) {
            n = next
            ids.append(n.id)
        }
        return n
    }

    /// `selectedPath` as the last command left it: for readers between commands (replies).
    public var currentPath: [String] { arranged ? current.path : selectedPath }

    /// For an arranged controller, an object that stands for `currentPath`: while it is the
    /// same object, the path is the same (the nodes of a tree never change; a change of the
    /// tree makes new ones). A reader may keep what it derived from the path against it.
    public var currentPathIdentity: AnyObject { current }

    /// `currentPathIdentity`'s identity, read without holding the object.
    public var currentPathID: ObjectIdentifier { ObjectIdentifier(current) }

    /// What is selected, root … leaf (R13.2): `[]` for nothing, `["more"]` for More.
    public var selectedPath: [String] {
        switch selection {
        case .none: return []
        case .more: return [Controller.moreID]
        case .tab(let id):
            var path = [id]
            path.reserveCapacity(Controller.maxDepth)
            appendDescent(from: id, to: &path)
            return path
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
        arranged || mode != .automatic || sizeClass != idiom.defaultSizeClass || compactTabs != nil || barHidden
            || editingStart != nil || tabs.contains { $0.usesModernModel }
    }

    /// Whether the controller shows a compact appearance (R14.4): the phone, a compact pad.
    public var isCompact: Bool { idiom == .phone || (idiom == .pad && sizeClass == .compact) }

    /// Whether the controller is arranged, and what it derives from its tree: after every
    /// change of the tree, its hidden tabs or its orders.
    mutating func refreshArranged() {
        arranged = barOrder != nil || barHidden || tabs.contains { $0.arranges } || (compactTabs != nil && isCompact)
        guard arranged else {
            if layout !== TreeLayout.none { layout = .none }
            if current !== TreeNode.nothing { current = .nothing }
            return
        }
        let bar = composeBar()
        let (shown, rest) = bar.split(maxVisible: maxVisible, idiom: idiom)
        let tv = idiom == .tv
        var ordered: [TreeNode] = []
        // A long bar is looked up through sets: every node asks, and a nested scan of a bar
        // at max_tabs would be quadratic.
        let long = shown.count + rest.count > Controller.linearLookupLimit
        let shownIndex = long ? Dictionary(shown.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : [:]
        let restSet = long ? Set(rest) : []
        func barItem(_ path: [String]) -> (item: String, slot: Int)? {
            for id in path.reversed() {
                if let i = long ? shownIndex[id] : shown.firstIndex(of: id) { return (id, i) }
                if !tv, long ? restSet.contains(id) : rest.contains(id) { return (Controller.moreID, -2) }
            }
            return nil
        }
        // Children first: a node holds its children's nodes.
        func node(_ t: Tab, _ address: [Int], _ above: [String], hiddenAbove: Bool, disabledAbove: String?) -> TreeNode {
            let path = above + [t.id], hidden = hiddenAbove || t.hidden
            let disabled = disabledAbove ?? (t.enabled ? nil : t.id)
            var byID: [String: TreeNode] = [:]
            for (i, k) in (t.children ?? []).enumerated() {
                byID[k.id] = node(k, address + [i], path, hiddenAbove: hidden, disabledAbove: disabled)
            }
            let shownKids = t.orderedChildren.filter { !$0.hidden }.compactMap { byID[$0.id] }
            let bar = barItem(path)
            let n = TreeNode(id: t.id, address: address, path: path, hidden: hidden, childNodes: shownKids,
                             defaultChild: t.defaultChild, barItem: bar?.item, barSlot: bar?.slot ?? -1, disabled: disabled)
            ordered.append(n)  // after its children: leaves come first, where selects go
            return n
        }
        for (i, t) in tabs.enumerated() { _ = node(t, [i], [], hiddenAbove: false, disabledAbove: nil) }
        layout = TreeLayout(bar: bar, shown: shown, rest: rest, ordered: ordered, search: tabs.first(where: \.isSearch)?.id)
        setCurrentPath(selectedPath)
    }

}
