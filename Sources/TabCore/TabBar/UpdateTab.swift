// update_tab (R1, R13.8): any field of any tab of the tree; a change of R13's fields takes
// the tree's path (`replaceTree`), the others change the tab in place.

extension Controller {
    // MARK: Tab properties

    /// `update_tab` of any tab of the tree. Only a root tab's orientations count towards the
    /// controller's (R9.1, R13.1): a nested tab's change is never refused for them.
    mutating func updateTab(_ id: String, _ update: TabUpdate, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        let old = self[at: at]
        var tab = old
        update.apply(to: &tab, arranging: false)
        if update.navigation == .set(false) { tab.stack = [] }  // no longer a navigation stack: its screens go (as R2.5)
        // R13.12: only a group has an expansion, and expanded is its default (nil).
        if case .set(let v) = update.expanded { tab.expanded = old.children == nil ? old.expanded : v == false ? false : nil }
        tab.keepForm(of: old)
        if update.arranges {
            // R13.8: the tab as described, its children matched to the tree by identity.
            update.apply(to: &tab, arranging: true)
            guard tab != old else { return }
            try refuseWhileCustomizing("change a tab's place in the tree")
            if original { throw TabError(.invalid, "update_tab of R13 fields was not a command before issue 30") }
            var roots = tabs
            Controller.modify(&roots, at: at) { $0 = tab }
            try Controller.validateTree(roots)
            try Controller.requireCommonOrientation(roots, naming: id)
            let sidebarBefore = sidebarAvailable
            try replaceTree(roots, as: .update(id), named: nil, &out)
            // R13.12: a group collapsed or expanded by the same update. (A sidebar that came or
            // went is announced once, by `applyOnce`.)
            if self.tab(id)?.isExpanded != old.isExpanded, sidebarBefore, sidebarAvailable {
                out.notify(.sidebarChanged(visible: sidebarVisible))
            }
            return
        }
        guard tab != old else { return }
        let root = at.count == 1
        if root, tab.supportedOrientations != old.supportedOrientations, !original {
            var all = tabs
            all[at[0]] = tab
            try Controller.requireCommonOrientation(all, naming: id)
        }
        if root { tabs[at[0]] = tab } else { modify(at: at) { $0 = tab } }
        if old.arranges != tab.arranges || old.enabled != tab.enabled { refreshArranged() }
        out.notify(.tabUpdated(tab: id))
        if tab.badge != old.badge { out.notify(.badgeChanged(tab: id, value: tab.badge)) }
        if tab.stack != old.stack { out.notify(.navigationChanged(tab: id, stack: tab.stack)) }
        if tab.isExpanded != old.isExpanded, sidebarAvailable { out.notify(.sidebarChanged(visible: sidebarVisible)) }
        // The orientation is always one the tabs support (R9.1): only a change of this tab's
        // can leave it unsupported (the check reads every tab).
        if tab.supportedOrientations != old.supportedOrientations { reorientIfUnsupported(&out) }
    }
}
