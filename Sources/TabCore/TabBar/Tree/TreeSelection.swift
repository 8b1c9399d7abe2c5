// R13.2: selection in the tree — where a selection lands (a group descends to the child it
// shows), the path moved and remembered, and the leaves' appearance calls (R5.1, R5.2).

extension Controller {
    // MARK: Selection in the tree (R13.2)

    /// Where a selection of `target` lands: the path, root … leaf, and the leaf's node (nil
    /// for More); or R4.5's and R13.3's errors.
    func landing(for target: SelectTarget) throws(TabError) -> (path: [String], leaf: TreeNode?) {
        let node: TreeNode
        switch target {
        case .more:
            guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
            guard moreShown else { throw moreNotShown }
            return ([Controller.moreID], nil)
        case .index:
            node = layout.node(try candidate(for: target).id)!
        case .tab(let id):
            guard let n = layout.node(id) else { throw .noTab(id) }
            node = n
        }
        return try landing(at: node)
    }

    /// `landing(for:)` of the tab whose node is `node`.
    func landing(at node: TreeNode) throws(TabError) -> (path: [String], leaf: TreeNode?) {
        if node.hidden, let id = node.path.first(where: { tab($0)!.hidden }) {
            throw TabError(.notAvailable, id == node.id
                ? "tab '\(id)' is hidden; show it with set_hidden before selecting it"
                : "tab '\(node.id)' is in the hidden group '\(id)'; show the group with set_hidden before selecting it")
        }
        // A tab lands on its leaf's own path: the node's array, shared, not copied (a group's
        // leaf is a node of its own, whose path is the group's and the descent's).
        let leaf = node.leaf(in: tabs)
        return (leaf.path, leaf)
    }

    var moreNotShown: TabError {
        TabError(.notAvailable, "More is not on the bar: the controller has \(arranged ? composedBar.count : tabs.count) tab(s) in its bar and shows up to \(maxVisible)")
    }

    /// Moves the selection to `path` (root … leaf, `["more"]` or `[]`), remembering each
    /// group's selected child, with R5's appearance calls on the leaves and `selection_changed`.
    /// `old`: the selected path before the command changed anything (hiding a tab changes
    /// the path before the selection moves).
    mutating func moveSelection(to path: [String], leaf: TreeNode? = nil, from old: [String]? = nil, cause: SelectionCause, _ out: inout Outcome) {
        if let leaf, old == nil {
            // A select or tap: `leaf` is a node of the layout `current` is of (a select changes
            // no tree, and every command leaves `current` in the layout it leaves), where each
            // node has its own path: another node is another path.
            guard leaf !== current else { return }
        } else if InlineID.same(path, old ?? current.path) {
            return
        }
        // The leaves, not the paths: `current`'s id is its path's last id (none for nothing).
        let oldLeaf = old.map { $0.last } ?? (current === TreeNode.nothing ? nil : current.id)
        // Read only for the event (a select without subscribers builds none).
        // The selection change is built for subscribers, and for a plugin told every one.
        let tells = out.recordsNotifications || out.recordsSelectionChanges
        let previous = tells ? selection.wireValue : nil
        let previousPath = tells ? old ?? current.path : nil
        if path.isEmpty { selection = .none }
        else if path.count == 1, path[0] == Controller.moreID { selection = .more }
        else { selection = .tab(path[0]); remember(path, leaf: leaf) }
        setCurrentPath(path, leaf: leaf)  // a select or tap: the command's end reads it (`applyOnce`)
        appearLeaves(old: oldLeaf, new: leaf?.id ?? path.last, at: leaf?.address, &out)
        guard tells else { return out.skip(1) }
        out.notify(.selectionChanged(tab: selection.wireValue, index: leaf.map { $0.address[0] } ?? selectedIndex,
                                     previous: previous, cause: cause, path: path, previousPath: previousPath))
    }

    /// `moveSelection(to: leaf.path, leaf: leaf, cause: cause, &out)` for a select of a tab
    /// that lands on itself (`TreeNode.landsOnItself`: `landing` returns its own path and
    /// node), with the same effects, notifications and counts, in one pass that reads the
    /// node's fields in place: no path array passed along, the groups' remembered children
    /// compared where they are stored, the appearance counted without building the ids.
    mutating func moveSelection(toLeaf leaf: TreeNode, cause: SelectionCause, _ out: inout Outcome) {
        // As in `moveSelection`: `leaf` is a node of the layout `current` is of.
        guard leaf !== current else { return }
        // The old leaf is `current`'s id; `TreeNode.nothing` (no leaf) is the one node whose
        // path is empty. Same id: `appearLeaves` does nothing.
        let hadLeaf = !current.path.isEmpty
        let sameLeaf = hadLeaf && current.sameID(leaf)
        // Nobody told (no subscribers, no plugin told every selection change): nothing is
        // built, and no optional is kept for the events (each was released by every select).
        guard out.recordsNotifications || out.recordsSelectionChanges else {
            selection = .tab(leaf.path[0])
            rememberInPlace(leaf)
            current = leaf
            if !sameLeaf {
                loadContent(of: leaf, &out)
                out.skip(hadLeaf ? 4 : 2)
            }
            return out.skip(1)
        }
        let records = out.recordsNotifications
        let previous = selection.wireValue
        let oldLeaf: String? = records && hadLeaf && !sameLeaf ? current.id : nil
        let previousPath = current.path
        selection = .tab(leaf.path[0])
        rememberInPlace(leaf)
        current = leaf  // `setCurrentPath(leaf.path, leaf: leaf)`
        if !sameLeaf {
            loadContent(of: leaf, &out)
            if records {
                out.visibleSetChanged(from: oldLeaf, to: leaf.id)
            } else {
                out.skip(hadLeaf ? 4 : 2)
            }
        }
        out.notify(.selectionChanged(tab: selection.wireValue, index: leaf.rootIndex,
                                     previous: previous, cause: cause, path: leaf.path, previousPath: previousPath))
    }

    /// `appearLeaves(old:new:at:)`'s loading of a leaf that is not More (`landsOnItself`): its
    /// content flag read in place (a call to `contentLoaded(at:)` copied the controller).
    @inline(__always)
    private mutating func loadContent(of leaf: TreeNode, _ out: inout Outcome) {
        let a = leaf.address
        let loaded: Bool
        switch a.count {
        case 1: loaded = tabs[a[0]].contentLoaded
        case 2: loaded = tabs[a[0]].children![a[1]].contentLoaded
        default: loaded = contentLoaded(at: a)
        }
        if !loaded {
            modify(at: leaf.address) { $0.contentLoaded = true }
            out.notify(.contentLoaded(tab: leaf.id))
        }
    }

    /// `remember(leaf.path, leaf: leaf)`, the groups of a path up to 3 deep read and written
    /// in place (a group's child is written only when it changes, as there).
    @inline(__always)
    private mutating func rememberInPlace(_ leaf: TreeNode) {
        let a = leaf.address
        switch a.count {
        case 1:
            return
        case 2:
            if !Self.holds(tabs[a[0]].selectedChild, leaf.path[1]) { tabs[a[0]].selectedChild = leaf.path[1] }
        case 3:
            if !Self.holds(tabs[a[0]].selectedChild, leaf.path[1]) { tabs[a[0]].selectedChild = leaf.path[1] }
            if !Self.holds(tabs[a[0]].children![a[1]].selectedChild, leaf.path[2]) {
                tabs[a[0]].children![a[1]].selectedChild = leaf.path[2]
            }
        default:
            remember(leaf.path, leaf: leaf)
        }
    }

    /// Whether a group's remembered child `s` is `child` (`s == child`, as `InlineID.same`).
    /// (Comparing their bits in place first saved nothing: BENCHMARKS.md, "Unsafe constructs".)
    @inline(__always)
    private static func holds(_ s: borrowing String?, _ child: borrowing String) -> Bool {
        switch s {
        case .some(let s): return InlineID.same(copy s, copy child)
        case .none: return false
        }
    }

    /// Each group on the selected path remembers the child it shows (R13.1), so that showing
    /// a hidden tab again never moves the selection.
    mutating func remember(_ path: [String], leaf: TreeNode? = nil) {
        guard path.count > 1, let address = leaf?.address ?? locate(path[path.count - 1]) else { return }
        // The groups on the path are the leaf's address's prefixes.
        for k in 1..<path.count where selectedChild(at: address, depth: k) != path[k] {
            let child = path[k]
            modify(at: Array(address[..<k])) { $0.selectedChild = child }
        }
    }

    /// R5.1/R5.2 for leaves: the new leaf's content loads first; then old will-disappear,
    /// new will-appear, old did-disappear, new did-appear. "more" has no content to load.
    mutating func appearLeaves(old: String?, new: String?, at address: [Int]? = nil, _ out: inout Outcome) {
        if old == nil && new == nil { return }
        if let old, let new, InlineID.same(old, new) { return }
        if let new, new != Controller.moreID, let at = address ?? locate(new), !contentLoaded(at: at) {
            modify(at: at) { $0.contentLoaded = true }
            out.notify(.contentLoaded(tab: new))
        }
        out.visibleSetChanged(from: old, to: new)
    }
}
