// R13.3: hidden tabs — set_hidden, and where the selection goes when its tab is hidden
// (R13.9's nearest visible sibling).

extension Controller {
    // MARK: Hidden tabs (R13.3)

    mutating func setHidden(_ id: String, _ hidden: Bool, policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        guard self[at: at].allowsHiding else {
            throw TabError(.conflict, "tab '\(id)' does not allow hiding; give it \"allows_hiding\": true in set_tabs or add_tab")
        }
        guard self[at: at].hidden != hidden else { return }
        let before = current.path  // the start of the command: what the last one left
        let onSelectedPath = hidden && before.contains(id)
        modify(at: at) { $0.hidden = hidden }
        refreshArranged()
        let change = [TabVisibility(id: id, hidden: hidden)]
        out.notify(.visibilityChanged(tabs: change, cause: .user))
        if onSelectedPath { moveSelection(to: fallbackPath(hiding: id), from: before, cause: .hidden, &out) }
        else { settleSelection(from: before, cause: .hidden, &out) }
        lend { policy.visibilityChanged(change, in: $0, effects: &out.effects) }
    }

    /// After the bar or the tree's visibility changed without the selected tab being hidden:
    /// a More selection whose More left the bar moves as R2.2 says (the first root tab, or
    /// the nearest visible one), and a selected group that was a leaf (all its children
    /// hidden) and now shows a child descends into it — both announced, as any selection
    /// change. `before`: the selected path the last command left.
    mutating func settleSelection(from before: [String], cause: SelectionCause, _ out: inout Outcome) {
        var path = selectedPath
        if selection == .more, !moreShown {
            path = tabs.first.map(landingPath(ofRoot:)) ?? []
        }
        moveSelection(to: path, from: before, cause: cause, &out)
    }

    /// R13.3: where the selection goes when `id`, on the selected path, is hidden: the
    /// nearest visible sibling before it, else after it, else the same for its parent, and so
    /// on up; else nothing.
    func fallbackPath(hiding id: String) -> [String] {
        guard var above = path(of: id) else { return [] }
        // R13.9: a sibling qualifies when it is visible, reachable on this idiom (a tv root
        // on the bar) and not the search tab; a group only when it holds such a leaf.
        func qualifies(_ t: Tab, root: Bool) -> Bool {
            guard !t.hidden, !t.isSearch else { return false }
            if root, idiom == .tv, !layout.shown.contains(t.id) { return false }
            guard let kids = t.children else { return true }
            return kids.contains { qualifies($0, root: false) }
        }
        while let me = above.popLast() {
            let root = above.isEmpty
            let siblings = above.last.flatMap { tab($0)?.orderedChildren } ?? tabs
            guard let pos = siblings.firstIndex(where: { $0.id == me }) else { break }
            if let s = siblings[..<pos].last(where: { qualifies($0, root: root) })
                ?? siblings[(pos + 1)...].first(where: { qualifies($0, root: root) }) {
                var path = above + [s.id]
                appendDescent(from: s.id, to: &path)
                return path
            }
        }
        return []
    }
}
