// R13.4: the bar of an arranged controller — fixed tabs, the user's order, pinned tabs —
// and the user's bar order kept across changes of the tree (R13.5).

extension Controller {
    // MARK: The bar (R13.4)

    var composedBar: ComposedBar { layout.bar }

    func composeBar() -> ComposedBar {
        var bar = ComposedBar(), defaults: [String] = [], movable: [String] = [], eligible = Set<String>()
        var search: String?
        // R14.4: compact appearances show only the compact tabs' roots (and what is inside them).
        let compact: Set<String>? = isCompact ? compactTabs.map(Set.init) : nil
        var root = ""
        forEachTab { t, isRoot, hiddenAbove in
            if isRoot { root = t.id }
            guard !t.hidden, !hiddenAbove else { return }
            if let compact, !compact.contains(root) { return }
            if t.isSearch, t.effectivePlacement(isRoot: isRoot) == .pinned { search = t.id; return }
            switch t.effectivePlacement(isRoot: isRoot) {
            case .fixed: bar.fixed.append(t.id)
            case .pinned: bar.pinned.append(t.id)
            case .default: defaults.append(t.id); eligible.insert(t.id)
            case .movable: defaults.append(t.id); movable.append(t.id); eligible.insert(t.id)
            case .optional: eligible.insert(t.id)
            case .sidebarOnly, .automatic: break
            }
        }
        if let search { bar.pinned.append(search) }  // R13.8: the search tab last
        guard let order = barOrder else {
            bar.middle = defaults
            return bar
        }
        bar.middle = order.filter(eligible.contains)
        var inOrder = Set(bar.middle)
        for id in movable where inOrder.insert(id).inserted { bar.middle.append(id) }  // cannot leave
        return bar
    }

    /// The bar item shown as selected: the deepest tab of the selected path that is on the
    /// bar, else More when one is under More.
    /// Read between commands: it uses the selected path as the last command left it.
    var arrangedBarSelected: String? { current.barItem }

    /// Sets the selected path as the command leaves it, and the bar item it shows selected.
    /// `leaf`: the path's last node, when the caller has it.
    mutating func setCurrentPath(_ path: [String], leaf: TreeNode? = nil) {
        current = leaf ?? layout.node(endingPath: path)
    }

    /// While the tab list changes (before `rebuildIndex`): the user's bar order keeps the tabs that are still there
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
        barOrder = order  // the caller's rebuildIndex derives the layout from it
    }
}
