// R7: customization (More → Edit) — which tabs the user may rearrange (R7.1), the session
// and its moves (R7.2, R7.3), and its end (R7.4).

extension Controller {
    // MARK: R7 — customization

    mutating func setCustomizable(_ ids: [String]?, _ out: inout Outcome) throws(TabError) {
        let wanted = Set(ids ?? [])
        for id in ids ?? [] where self.index(of: id) == nil { throw .noTab(id) }
        let ordered = tabs.map(\.id).filter(wanted.contains)
        guard ordered != customizable else { return }
        setCustomizable(list: ordered)
        out.notify(.customizableChanged(tabs: ordered))
    }

    /// Sets `customizable` to `ids` (root ids in tab order, none twice), kept canonically:
    /// all of them as `customizableAll`.
    mutating func setCustomizable(list ids: [String]) {
        setCustomizable(list: ids, everyTab: ids.count == tabs.count)
    }

    /// Sets `customizable` to `ids`: as `customizableAll` when `everyTab` (the caller found
    /// that `ids` are all the root tabs, in order), else as the list itself.
    mutating func setCustomizable(list ids: [String], everyTab: Bool) {
        if everyTab {
            makeEveryTabCustomizable()
        } else {
            customizableAll = false
            customizableList = ids
        }
    }

    /// R2.3: every root tab is customizable (no list made).
    mutating func makeEveryTabCustomizable() {
        customizableAll = true
        if !customizableList.isEmpty { customizableList = [] }
    }

    /// Whether the root tab `id` may be rearranged (R7.1).
    func isCustomizable(_ id: String) -> Bool {
        customizableAll ? index(of: id) != nil : customizableList.contains(id)
    }

    mutating func customizeBegin(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no customization") }
        guard !sidebarAvailable || original else {
            throw TabError(.notAvailable, "controller '\(name)' has a sidebar: the user edits it with edit.begin and edit.end (R14.6), not customize")
        }
        guard !arranged else {
            throw TabError(.notAvailable, "controller '\(name)' arranges its bar with groups, placement or hidden tabs (R13); the user rearranges it with reorder, not customize")
        }
        guard moreShown else {
            throw TabError(.notAvailable, "customization needs More: more than \(maxVisible) tabs (the controller has \(tabs.count))")
        }
        guard !(customizableAll ? tabs.isEmpty : customizableList.isEmpty) || original else {
            // R7.1: UIKit hides the Edit button.
            throw TabError(.notAvailable, "no tab is customizable; send customizable with the tabs the user may rearrange first")
        }
        guard customizingOrder == nil else { throw TabError(.conflict, "a customization session is already running") }
        let order = tabs.map(\.id)
        customizingOrder = order
        customizingStart = order
        // R7.2: the configuration screen shows the customizable tabs only, in order.
        out.notify(.willBeginCustomizing(tabs: customizable))
        let announced = customizable
        lend { policy.willBeginCustomizing(tabs: announced, in: $0, effects: &out.effects) }
    }

    mutating func customizeMove(_ id: String, to: Int, _ out: inout Outcome) throws(TabError) {
        guard var order = customizingOrder else {
            throw TabError(.conflict, "no customization session is running (send customize.begin first)")
        }
        guard let from = order.firstIndex(of: id) else { throw .noTab(id) }
        guard to >= 0, to < order.count else {
            throw TabError(.outOfRange, "position \(to) is out of range: \(TabError.allowed(upTo: order.count - 1))")
        }
        guard isCustomizable(id) else {
            throw TabError(.conflict, "tab '\(id)' is not customizable")
        }
        guard from != to else { return }
        if !customizableAll {
            // R7.3: a tab that is not customizable keeps its side of the bar. Only the tabs
            // between `from` and `to` shift, by one; the first one (in tab order) that would
            // cross is named.
            let onBar = barTabCount
            let movable = Set(customizableList)
            for tab in tabs where !movable.contains(tab.id) {
                let was = order.firstIndex(of: tab.id)!
                let now = from < to ? (was > from && was <= to ? was - 1 : was) : (was >= to && was < from ? was + 1 : was)
                let before = was < onBar
                if before != (now < onBar) {
                    throw TabError(.conflict, "moving '\(id)' to \(to) would move the non-customizable tab '\(tab.id)' \(before ? "off the bar into More" : "from More onto the bar")")
                }
            }
        }
        customizingOrder = nil  // the order's storage unshared while it moves
        order.move(from: from, to: to)
        customizingOrder = order
        // Moves notify nobody until the session ends, but they are state: journal them.
        out.journalsCommand = true
    }

    mutating func customizeEnd(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard let order = customizingOrder, let start = customizingStart else {
            throw TabError(.conflict, "no customization session is running")
        }
        let changed = order != start
        out.notify(.willEndCustomizing(tabs: order, changed: changed))
        lend { policy.willEndCustomizing(tabs: order, changed: changed, in: $0, effects: &out.effects) }
        let before = selectionSnapshot
        if changed {
            let byID = Dictionary(uniqueKeysWithValues: tabs.map { ($0.id, $0) })
            tabs = order.map { byID[$0]! }
            rebuildIndex()
        }
        customizingOrder = nil
        customizingStart = nil
        out.notify(.didEndCustomizing(tabs: order, changed: changed))
        lend { policy.didEndCustomizing(tabs: order, changed: changed, in: $0, effects: &out.effects) }
        // The customizable set is kept in tab order: announced when that order moved, so that
        // a client keeps it from events without reordering it itself.
        if customizableAll {
            // Every tab stays every tab, now in the session's order.
            if changed { out.notify(.customizableChanged(tabs: order)) }
        } else {
            let reordered = tabs.map(\.id).filter(Set(customizableList).contains)
            if reordered != customizableList {
                setCustomizable(list: reordered)
                out.notify(.customizableChanged(tabs: reordered))
            }
        }
        // R7.4: the selected tab stays selected; its index may have moved.
        if before.index != selectedIndex {
            out.notify(.selectionChanged(tab: selection.wireValue, index: selectedIndex,
                                                       previous: before.selection.wireValue, cause: .customize))
        }
    }

    func refuseWhileCustomizing(_ what: String) throws(TabError) {
        if customizingOrder != nil {
            throw TabError(.conflict, "cannot \(what) during a customization session; send customize.end first")
        }
    }
}
