// R2: replacing the tabs — set_tabs, add_tab and remove_tab, and what they keep: a tab's
// identity across a replacement (R2.5), the reselection (R2.2, R2.6), containment (R5.3) and
// customizable's reset (R2.3); with R13.8, the one path by which the tree changes
// (`replaceTree`).

extension Controller {
    // MARK: R2 — replacing the tabs

    mutating func setTabs(_ new: [Tab], animated: Bool, selected: SelectTarget?, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("replace the tabs")
        var seen = Set<String>()
        for tab in new {
            try Controller.validate(tab)
            guard seen.insert(tab.id).inserted else {
                throw TabError(.conflict, "tab id '\(tab.id)' appears twice; tab ids must be unique")
            }
        }
        try Controller.validateTree(new)
        // R2.6, R13.8: the named selection is a tab of the new tree (an index counts root tabs).
        var named: String?
        switch selected {
        case nil: break
        case .tab(let id)?:
            guard seen.contains(id) || Controller.treeContains(new, id) else {
                throw TabError(.notFound, "'selected' names tab '\(id)', which is not in the new tabs")
            }
            named = id
        case .index(let i)?:
            guard i >= 0, i < new.count else {
                throw TabError(.outOfRange, new.isEmpty
                    ? "'selected' index \(i) is out of range: the new tab list is empty"
                    : "'selected' index \(i) is out of range: \(TabError.allowed(upTo: new.count - 1)) (\(new.count) new tab\(new.count == 1 ? "" : "s"))")
            }
            named = new[i].id
        case .more?:
            throw TabError(.invalid, "set_tabs selects a tab by id or index, not More; send select with more afterwards")
        }
        if original { return setTabsAsOriginally(new, animated: animated, named: named, &out) }
        try Controller.requireCommonOrientation(new)
        // R13.8: a replacement whose resulting state is the current one is a no-op: no events.
        let saved = self
        var local = Outcome(recordsNotifications: out.recordsNotifications, recordsSelectionChanges: out.recordsSelectionChanges)
        try replaceTree(new, as: .tabs(animated: animated), named: named, &local)
        if self == saved {
            // The value as it was, storage and all: an equal value in new arrays made every
            // later `state` compare the memo's controller field by field instead of by its
            // buffers.
            self = saved
            return
        }
        out.absorb(local)
    }

    /// `set_tabs` under the original rules: every old child leaves and every new one is
    /// installed fresh (no identity across the replacement, R2.5), whatever their orientations.
    private mutating func setTabsAsOriginally(_ new: [Tab], animated: Bool, named: String?, _ out: inout Outcome) {
        let before = selectionSnapshot
        changeChildren(leaving: tabs.lazy.map(\.id), entering: new.lazy.map(\.id), onScreen: shownUnder, &out)
        tabs = new.map(Controller.fresh)
        rebuildIndex()
        out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: animated, changed: tabs.map(\.id)))
        resetCustomizable(&out)
        reselect(after: before, removedSelected: before.selection.isTab, named: named, cause: .tabs, &out)
    }

    mutating func addTab(_ tab: Tab, at index: Int?, group: String?, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("add a tab")
        try Controller.validate(tab)
        guard self.index(of: tab.id) == nil else {
            throw TabError(.conflict, "a tab with id '\(tab.id)' already exists")
        }
        if let group {
            // R13.8: into a group, at `index` among its children.
            guard let at = locate(group) else { throw .noTab(group) }
            let g = self[at: at]
            guard let kids = g.children else {
                throw TabError(.conflict, "tab '\(group)' is not a group: add_tab's 'group' names a tab with children")
            }
            let i = index ?? kids.count
            guard i >= 0, i <= kids.count else {
                throw TabError(.outOfRange, "index \(i) is out of range: \(TabError.allowed(upTo: kids.count)) (group '\(group)' has \(kids.count) child\(kids.count == 1 ? "" : "ren"))")
            }
            if original { throw TabError(.invalid, "add_tab into a group was not a command before issue 30") }
            var roots = tabs
            Controller.modify(&roots, at: at) { $0.children!.insert(tab, at: i) }
            try Controller.validateTree(roots)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let previousIDs = arranged || tab.arranges ? treeIDs : []
        if arranged || tab.arranges { try Controller.validateTree([tab], taken: previousIDs) }
        let at = index ?? tabs.count
        guard at >= 0, at <= tabs.count else {
            throw TabError(.outOfRange, "index \(at) is out of range: \(TabError.allowed(upTo: tabs.count)) (\(tabs.count) tab\(tabs.count == 1 ? "" : "s"))")
        }
        if !original, tabsOrientations.intersection(tab.supportedOrientations).isEmpty {
            try Controller.requireCommonOrientation(tabs + [tab], naming: tab.id)  // names the culprit
        }
        if !original, arranged || tab.arranges {
            var roots = tabs
            roots.insert(tab, at: at)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let before = selectionSnapshot
        let stayFlat = !arranged && !tab.arranges
        tabs.insert(Controller.fresh(tab), at: at)
        if stayFlat {
            reindex(from: at, inserted: true)  // a flat list stays flat: no bar order, no layout
        } else {
            adjustBarOrder(previous: previousIDs)
            rebuildIndex()
        }
        changeChildren(leaving: EmptyCollection(), entering: CollectionOfOne(tab.id), onScreen: nil, &out)
        out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: false, changed: [tab.id]))
        resetCustomizable(&out)
        reselect(after: before, removedSelected: false, cause: .tabs, &out)
        reorientIfUnsupported(&out)
    }

    mutating func removeTab(_ id: String, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("remove a tab")
        guard let index = self.index(of: id) else {
            // R13.8: any tab of the tree (a group with its subtree).
            guard let at = locate(id), !original else { throw .noTab(id) }
            var roots = tabs
            Controller.modify(&roots, at: Array(at.dropLast())) { g in
                g.children!.remove(at: at[at.count - 1])
                if g.defaultChild == id { g.defaultChild = nil }
            }
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        if arranged, !original {
            var roots = tabs
            roots.remove(at: index)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let before = selectionSnapshot
        changeChildren(leaving: CollectionOfOne(id), entering: EmptyCollection(), onScreen: shownUnder, &out)
        tabs.remove(at: index)
        if arranged {
            adjustBarOrder(previous: barOrder == nil ? [] : treeIDs)  // no tab is new: none joins the bar
            rebuildIndex()
        } else {
            reindex(from: index, inserted: false, removedID: id)  // a flat list stays flat
        }
        out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: false, changed: []))
        resetCustomizable(&out)
        reselect(after: before, removedSelected: before.selection == .tab(id), cause: .tabs, &out)
        // Fewer tabs support at least as much, but none: portrait only (R9.1).
        if tabs.isEmpty { reorientIfUnsupported(&out) }
    }

    /// What a change of the tree is, for its events: a replacement of the tab list (`set_tabs`,
    /// `add_tab`, `remove_tab`: `tabs_changed`, and R2.3's reset of `customizable`) or an
    /// `update_tab` of one tab (`tab_updated`).
    enum TreeChange {
        case tabs(animated: Bool)
        case update(String)
    }

    /// R2 with R13.8: the tree becomes `descriptions`, each tab matched to the current tree by
    /// id wherever it stands (identity). Removed tabs leave first (containment to nil, the one
    /// on screen disappearing), then new ones are installed (at any depth), then the selection
    /// follows its leaf (R13.8's reselection) or `named`. Throws before changing anything.
    mutating func replaceTree(_ descriptions: [Tab], as change: TreeChange, named: String?, _ out: inout Outcome) throws(TabError) {
        let before = selectionSnapshot
        let oldLeaf: String? = before.path?.last ?? before.selection.wireValue
        let previousIDs = barOrder == nil ? [] : treeIDs
        try Controller.validateTree(descriptions)
        let r = matched(descriptions)
        try requireFit(r.roots)
        if let named, let hidden = Controller.hiddenOnPath(to: named, in: r.roots) {
            throw TabError(.notAvailable, hidden == named
                ? "'selected' names tab '\(named)', which is hidden; show it first or name another tab"
                : "'selected' names tab '\(named)', which is in the hidden group '\(hidden)'; show the group first or name another tab")
        }
        // R14.6: a change that takes the sidebar away (automatic mode, no group left) ends the
        // editing session first.
        if editingStart != nil, mode == .automatic, !r.roots.contains(where: { $0.children != nil }) { endEditing(&out) }
        changeChildren(leaving: r.removed, entering: r.added, onScreen: oldLeaf.map { (holder: $0, leaf: $0) }, &out)
        var oldRoots: [String: Tab] = [:]
        for t in tabs { oldRoots[t.id] = t }
        let oldUpdated: Tab? = if case .update(let id) = change { tab(id) } else { nil }
        tabs = r.roots
        adjustBarOrder(previous: previousIDs)
        rebuildIndex()
        switch change {
        case .tabs(let animated):
            out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: animated,
                                    changed: tabs.filter { oldRoots[$0.id] != $0 }.map(\.id)))
        case .update(let id):
            let t = tab(id)
            out.notify(.tabUpdated(tab: id))
            if t?.badge != oldUpdated?.badge { out.notify(.badgeChanged(tab: id, value: t?.badge)) }
            if let t, t.stack != oldUpdated?.stack { out.notify(.navigationChanged(tab: id, stack: t.stack)) }
        }
        if !r.visibility.isEmpty { out.notify(.visibilityChanged(tabs: r.visibility, cause: .app)) }
        if case .tabs = change { resetCustomizable(&out) }
        let removedSelected = oldLeaf.map { $0 != Controller.moreID && !r.kept.contains($0) } ?? false
        // The leaf is still there but can no longer be shown: the app hid it (R13.9).
        let hid = !removedSelected && oldLeaf.flatMap { layout.node($0) }?.hidden == true
        let replaced: Bool = if case .tabs = change { true } else { false }
        reselect(after: before, removedSelected: removedSelected, named: named, cause: hid ? .hidden : .tabs,
                 replacement: replaced, &out)
        reorientIfUnsupported(&out)
    }

    /// The tree `descriptions` describe, matched to the current one (R13.8): what stays, what
    /// leaves and what comes, in tree order (parents first, children in `children` order).
    struct Matched {
        var roots: [Tab] = []
        var kept = Set<String>()
        var removed: [String] = [], added: [String] = []
        /// Kept tabs whose `hidden` the description changed.
        var visibility: [TabVisibility] = []
    }

    func matched(_ descriptions: [Tab]) -> Matched {
        var old: [String: Tab] = [:], oldOrder: [String] = []
        func collect(_ t: Tab) {
            old[t.id] = t; oldOrder.append(t.id)
            for k in t.children ?? [] { collect(k) }
        }
        for t in tabs { collect(t) }
        var m = Matched()
        func build(_ d: Tab) -> Tab {
            var t: Tab
            // A kept id that switches between leaf and group is removed, then added.
            if let o = old[d.id], (o.children == nil) == (d.children == nil) {
                m.kept.insert(d.id)
                t = Controller.staying(o, as: d)
                if t.hidden != o.hidden { m.visibility.append(TabVisibility(id: d.id, hidden: t.hidden)) }
            } else {
                m.added.append(d.id)
                t = Controller.freshOne(d)
            }
            if let kids = d.children { t.children = kids.map(build) }
            return t
        }
        m.roots = descriptions.map(build)
        m.removed = oldOrder.filter { !m.kept.contains($0) }
        return m
    }

    /// Whether `id` is a tab of the trees `roots`.
    static func treeContains(_ roots: [Tab], _ id: String) -> Bool {
        roots.contains { $0.id == id || treeContains($0.children ?? [], id) }
    }

    /// The first hidden tab on the path to `id` in `roots` (`id` itself included), or nil.
    static func hiddenOnPath(to id: String, in roots: [Tab]) -> String? {
        func find(_ list: [Tab], _ hiddenAbove: String?) -> String?? {
            for t in list {
                let h = hiddenAbove ?? (t.hidden ? t.id : nil)
                if t.id == id { return .some(h) }
                if let r = find(t.children ?? [], h) { return r }
            }
            return nil
        }
        return find(roots, nil) ?? nil
    }

    static func modify(_ roots: inout [Tab], at address: [Int], _ body: (inout Tab) -> Void) {
        func walk(_ t: inout Tab, _ rest: ArraySlice<Int>) {
            guard let i = rest.first else { return body(&t) }
            walk(&t.children![i], rest.dropFirst())
        }
        walk(&roots[address[0]], address.dropFirst())
    }

    /// R5.3, which R15.6 (a) and (b) made every kind's (`SetChange.containment`): each
    /// leaving tab's will-move(nil), the disappearance of what is on screen if the tab is
    /// `onScreen.holder` (the leaf shown, or the root tab that holds it), did-move(nil); then
    /// each entering tab's will-move and did-move.
    @inline(__always)
    private func changeChildren<Leaving: Sequence, Entering: Sequence>(leaving: Leaving, entering: Entering, onScreen: (holder: String, leaf: String)?,
                                                                       _ out: inout Outcome)
        where Leaving.Element == String, Entering.Element == String {
        SetChange.containment(leaving: leaving, entering: entering,
                              move: { id, phase, entering in out.notify(.containment(tab: id, phase: phase, parent: entering ? name : nil)) },
                              disappear: { id in if let onScreen, id == onScreen.holder { out.visibleSetChanged(from: onScreen.leaf, to: nil) } })
    }

    /// The selected root tab and the leaf it shows, for a change of the root tabs.
    private var shownUnder: (holder: String, leaf: String)? {
        guard case .tab(let id) = selection, let leaf = selectedLeaf else { return nil }
        return (id, leaf)
    }

    /// R2.3: any change of the tab list makes every tab customizable again (the event's
    /// list is made only for a subscriber).
    private mutating func resetCustomizable(_ out: inout Outcome) {
        makeEveryTabCustomizable()
        out.notify(.customizableChanged(tabs: tabs.map(\.id)))
    }

    struct SelectionSnapshot {
        var selection: Selection
        var index: Int?
        /// The selected path (R13.2) of a controller arranged with R13, else nil.
        var path: [String]?
    }

    var selectionSnapshot: SelectionSnapshot {
        SelectionSnapshot(selection: selection, index: selectedIndex, path: arranged ? selectedPath : nil)
    }

    /// R2.2: the same tab by id, else the same index, else index 0, else nothing.
    /// More stays selected while it is still shown. `removedSelected`: the selected child
    /// was removed (its disappearance was already sent). `named`: the selection the change
    /// names (R2.6), which wins.
    mutating func reselect(after before: SelectionSnapshot, removedSelected: Bool, named: String? = nil,
                                   cause: SelectionCause, replacement: Bool = false, _ out: inout Outcome) {
        if arranged || before.path != nil {
            return reselectArranged(after: before, removedSelected: removedSelected, named: named, cause: cause,
                                    replacement: replacement, &out)
        }
        var next: Selection = named.map { .tab($0) } ?? .none
        switch named == nil ? before.selection : .none {
        case .tab(let id) where self.index(of: id) != nil:
            next = .tab(id)
        case .tab:
            if let i = before.index, i < tabs.count { next = .tab(tabs[i].id) }
        case .more where moreShown:
            next = .more
        default:
            break
        }
        if next == .none, let first = tabs.first { next = .tab(first.id) }
        let previous = before.selection
        if removedSelected || previous != next {
            selection = .none
            appear(next, disappearing: removedSelected ? .none : previous, &out)
        }
        selection = next
        if previous != next || before.index != selectedIndex {
            out.notify(.selectionChanged(tab: next.wireValue, index: selectedIndex,
                                                       previous: previous.wireValue, cause: cause))
        }
    }

    /// R2.2 with R13.8: the selected leaf stays selected while its id is in the tree (the
    /// path follows it), else the deepest tab of the old path still in the tree, else the
    /// root at the same index, else index 0 — never a hidden tab (R13.3's search instead);
    /// appearance calls on the leaves.
    /// `replacement`: the tab list was replaced (set_tabs, add_tab, remove_tab), after which
    /// the selection is never an unreachable tab either.
    private mutating func reselectArranged(after before: SelectionSnapshot, removedSelected: Bool, named: String?,
                                           cause: SelectionCause, replacement: Bool, _ out: inout Outcome) {
        let oldPath = before.path ?? (before.selection.wireValue.map { [$0] } ?? [])
        var path: [String]?
        // A controller no longer arranged (no group left) has no nodes: its tabs are roots.
        func landing(_ id: String) -> [String]? {
            if !arranged { return index(of: id) == nil ? nil : [id] }
            return layout.node(id).map(visibleLanding)
        }
        let namedPath = named.flatMap(landing)
        if let namedPath {
            path = namedPath
        } else if case .more = before.selection, moreShown {
            path = [Controller.moreID]
        } else if case .tab = before.selection {
            for id in oldPath.reversed() {
                if let p = landing(id) { path = p; break }
            }
            if path == nil, let i = before.index, i < tabs.count { path = landingPath(ofRoot: tabs[i]) }
        }
        if path == nil { path = tabs.first.map(landingPath(ofRoot:)) ?? [] }
        // R13.8, R3.6: after a replacement, never an unreachable tab — on tv, a root off the
        // bar — unless the replacement names it (as a select may): R13.3's search from that
        // root instead.
        if replacement, namedPath == nil, arranged, idiom == .tv, let root = path?.first,
           root != Controller.moreID, !layout.shown.contains(root) {
            let reachable = fallbackPath(hiding: root)
            if !reachable.isEmpty { path = reachable }
        }
        let newPath = path!
        selection = .none
        if newPath == [Controller.moreID] { selection = .more } else if let root = newPath.first { selection = .tab(root) }
        remember(newPath)
        if removedSelected || oldPath != newPath {
            appearLeaves(old: removedSelected ? nil : oldPath.last, new: newPath.last, &out)
        }
        if oldPath != newPath || before.index != selectedIndex {
            out.notify(.selectionChanged(tab: selection.wireValue, index: selectedIndex, previous: before.selection.wireValue,
                                         cause: cause, path: newPath, previousPath: oldPath))
        }
    }

    /// Where a selection of `node` lands, or, when it or a group above it is hidden, where
    /// R13.3's search for the nearest visible tab leads instead.
    func visibleLanding(_ node: TreeNode) -> [String] {
        if node.hidden, let top = node.path.first(where: { tab($0)?.hidden == true }) { return fallbackPath(hiding: top) }
        return (try? landing(at: node))?.path ?? []
    }

    /// R2.5, R13.8: a tab that stays across a replacement, as its new description says (its
    /// children are matched by the caller): with the child's runtime state — its stack (while
    /// it is still a navigation stack), its loaded content, its badge unless the new
    /// description names one (a non-nil `item.badge`: a nil one cannot say "no badge" apart
    /// from "not given"), its `hidden` unless the description names it, and for a group its
    /// selected child and display order (new children at its end).
    static func staying(_ old: Tab, as new: Tab) -> Tab {
        var t = new
        t.keepsHidden = false
        if new.keepsHidden { t.hidden = old.hidden }
        // R13.12: a group's expansion, kept when the description does not say (stored as
        // false or nil: expanded).
        t.expanded = new.expanded.map { $0 ? nil : false } ?? old.expanded
        t.contentLoaded = old.contentLoaded
        t.stack = new.navigation ? old.stack : []
        // Never what the new description says of them (a journal record's tab carries both).
        t.selectedChild = nil
        t.displayOrder = nil
        if let kids = new.children {
            let ids = kids.map(\.id)
            if let s = old.selectedChild, ids.contains(s) { t.selectedChild = s }
            if let order = old.displayOrder {
                let present = Set(ids)
                var kept = order.filter(present.contains)
                var have = Set(kept)
                for id in ids where have.insert(id).inserted { kept.append(id) }
                if kept != ids { t.displayOrder = kept }
            }
        }
        if new.item?.badge == nil, let badge = old.badge {
            if t.item == nil { t.item = TabItem(badge: badge) } else { t.item!.badge = badge }
        }
        t.keepForm(of: old)
        return t
    }

    /// A tab as a client hands it in: runtime state starts fresh (its children as they are).
    static func freshOne(_ tab: Tab) -> Tab {
        var t = tab
        if t.keepsHidden { t.hidden = t.hiddenByDefault }  // R13.9: new to the tree
        t.keepsHidden = false
        if t.expanded == true { t.expanded = nil }
        t.contentLoaded = false
        if !t.navigation { t.stack = [] }
        t.selectedChild = nil
        t.displayOrder = nil
        return t
    }

    /// A tab and its subtree as a client hands them in.
    static func fresh(_ tab: Tab) -> Tab {
        var t = freshOne(tab)
        if let kids = t.children { t.children = kids.map(fresh) }
        return t
    }
}
