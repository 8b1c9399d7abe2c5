// R13.10 and R13.1: what a tree must be — fixed and pinned tabs that fit the bar, unique
// ids, groups at most `maxDepth` deep, a group's default child among its children — and what
// makes a loaded tree impossible.

extension Controller {
    // MARK: Fixed and pinned tabs must fit (R13.10)

    /// R13.10: with more root tabs than `max_visible` (hidden ones counted) at most
    /// `max_visible - 1` tabs may be fixed or pinned (More takes a place), else at most
    /// `max_visible`; a tree that breaks this is refused with `conflict`.
    func requireFit(_ roots: [Tab]) throws(TabError) {
        guard !original, !fitUnchecked else { return }
        var count = 0
        func visit(_ t: Tab, root: Bool) {
            let p = t.effectivePlacement(isRoot: root)
            if p == .fixed || p == .pinned { count += 1 }
            for k in t.children ?? [] { visit(k, root: false) }
        }
        for t in roots { visit(t, root: true) }
        let more = idiom != .tv && roots.count > maxVisible
        let room = more ? maxVisible - 1 : maxVisible
        guard count > room else { return }
        throw TabError(.conflict, "\(count) tabs would be fixed or pinned, but a \(idiom.rawValue) bar of max_visible \(maxVisible) with \(roots.count) root tabs holds at most \(room) of them\(more ? " (More takes a place)" : ""); make some default, movable or optional")
    }

    // MARK: Validation

    /// R13.1: ids unique in the whole tree (also against `taken`), groups at most `maxDepth`
    /// deep, a group's `default_child` one of its children.
    static func validateTree(_ roots: [Tab], taken: Set<String> = []) throws(TabError) {
        var seen = taken
        var search: String?
        func visit(_ t: Tab, depth: Int) throws(TabError) {
            try validate(t)
            if t.isSearch {
                // R14.1: one search tab, a root, automatic or pinned.
                guard depth == 1 else { throw TabError(.invalid, "tab '\(t.id)' has role search but is inside a group; the search tab is a root tab") }
                guard t.placement == .automatic || t.placement == .pinned else {
                    throw TabError(.invalid, "tab '\(t.id)' has role search and placement \(t.placement.rawValue); the search tab's placement is automatic or pinned")
                }
                guard t.children == nil else { throw TabError(.invalid, "tab '\(t.id)' has role search and children; the search tab is not a group") }
                if let other = search { throw TabError(.conflict, "tabs '\(other)' and '\(t.id)' both have role search; a controller has one search tab") }
                search = t.id
            }
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
