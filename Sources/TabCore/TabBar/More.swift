// R3: the bar and the More overflow — what the bar shows itself, what More lists, what a tv
// bar cannot reach, and which item shows as selected (R3.1–R3.6), for a controller that is
// not arranged with R13 (an arranged one reads them from its tree: Tree/TreeBar.swift).

extension Controller {
    /// R3.1: More is shown on phone and pad when there are more tabs than fit.
    public var moreShown: Bool {
        if arranged { return idiom != .tv && composedBar.count > maxVisible }
        return idiom != .tv && tabs.count > maxVisible
    }

    /// How many tabs the bar shows itself (R3.1, R3.6).
    public var barTabCount: Int {
        if arranged { return layout.shown.count }
        if moreShown { return maxVisible - 1 }
        return min(tabs.count, maxVisible)
    }

    /// Ids on the bar, plus "more" when shown.
    public var barVisible: [String] {
        if arranged {
            var ids = layout.shown
            if moreShown { ids.append(Controller.moreID) }
            return ids
        }
        var ids = tabs.prefix(barTabCount).map(\.id)
        if moreShown { ids.append(Controller.moreID) }
        return ids
    }

    /// Ids listed by More (phone/pad), in order.
    public var moreList: [String] {
        if arranged { return idiom == .tv ? [] : layout.rest }
        return moreShown ? tabs.dropFirst(barTabCount).map(\.id) : []
    }

    /// tv: ids that do not fit on the bar and are not reachable from it (R3.6).
    public var unreachable: [String] {
        if arranged { return idiom == .tv ? layout.rest : [] }
        return idiom == .tv ? tabs.dropFirst(barTabCount).map(\.id) : []
    }

    /// R3.3: the index of the selected tab; nil for More or nothing.
    public var selectedIndex: Int? {
        if case .tab(let id) = selection { return self.index(of: id) }
        return nil
    }

    /// The bar item shown as selected: a tab listed by More shows More (R3.5); on tv, a tab
    /// that does not fit on the bar shows no item (R3.6).
    public var barSelected: String? {
        if arranged { return arrangedBarSelected }
        switch barSlot(of: selection, index: selectedIndex) {
        case Self.noBarItem: return nil
        case Self.moreBarItem: return Controller.moreID
        case let i: return tabs[i].id
        }
    }

    private static let noBarItem = -1, moreBarItem = -2

    /// `barSelected` as a number, for comparing without making strings: the index of the tab
    /// on the bar, `moreBarItem` or `noBarItem`. `index`: the selected tab's index.
    @inline(__always)
    func barSlot(of candidate: Candidate) -> Int {
        switch candidate {
        case .more: return Self.moreBarItem
        case .tab(_, let index):
            if index < barTabCount { return index }
            return moreShown ? Self.moreBarItem : Self.noBarItem
        }
    }

    @inline(__always)
    func barSlot(of selection: Selection, index: Int?) -> Int {
        switch selection {
        case .none: return Self.noBarItem
        case .more: return Self.moreBarItem
        case .tab:
            guard let index else { return Self.noBarItem }
            if index < barTabCount { return index }
            return moreShown ? Self.moreBarItem : Self.noBarItem
        }
    }
}
