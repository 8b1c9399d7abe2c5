// R13.5: display order — a group's children and the bar's middle, as the user reorders them.

extension Controller {
    // MARK: Display order (R13.5)

    mutating func reorder(_ group: String?, _ order: [String], policy: Policy, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("reorder")
        let before = current.path  // the start of the command: what the last one left
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
        out.notify(.displayOrderChanged(group: group, order: order, cause: .user))
        settleSelection(from: before, cause: .customize, &out)  // More may have left the bar
        lend { policy.displayOrderChanged(group: group, order: order, in: $0, effects: &out.effects) }
    }
}
