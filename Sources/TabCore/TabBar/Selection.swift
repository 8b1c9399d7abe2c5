// R4 and R5: selection — what select and tap may name (R4.5), a programmatic select (R4.1),
// a user's tap asking the delegate (R4.2–R4.4, with R13.8's reach and R14.2's disabled tabs),
// and the appearance calls a move sends (R5.1, R5.2, R5.4).

extension Controller {
    /// R5.4: the child that decides the status bar's style and visibility.
    public var statusBarChild: String? { selection.wireValue }

    // MARK: R4 — selection

    /// Resolves a target to a candidate, or throws R4.5's errors.
    public func candidate(for target: SelectTarget) throws(TabError) -> Candidate {
        switch target {
        case .tab(let id):
            guard let index = self.index(of: id) else { throw .noTab(id) }
            return .tab(id: id, index: index)
        case .index(let index):
            guard index >= 0, index < tabs.count else {
                throw TabError(.outOfRange, tabs.isEmpty
                    ? "index \(index) is out of range: the controller has no tabs"
                    : "index \(index) is out of range: \(TabError.allowed(upTo: tabs.count - 1)) (\(tabs.count) tab\(tabs.count == 1 ? "" : "s"))")
            }
            return .tab(id: tabs[index].id, index: index)
        case .more:
            guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
            return .more
        }
    }

    /// R4.1: programmatic selection; the delegate is not consulted.
    mutating func select(_ target: SelectTarget, _ out: inout Outcome) throws(TabError) {
        if arranged {
            if case .tab(let id) = target {
                // The common case, a tab that is not a group: the same move, in one pass.
                guard let node = layout.node(id) else { throw .noTab(id) }
                if node.landsOnItself { return moveSelection(toLeaf: node, cause: .select, &out) }
                let (path, leaf) = try landing(at: node)
                // A group: its leaf is a node too, in one pass when it lands on itself.
                if let leaf, leaf.landsOnItself { return moveSelection(toLeaf: leaf, cause: .select, &out) }
                return moveSelection(to: path, leaf: leaf, cause: .select, &out)
            }
            let (path, leaf) = try landing(for: target)
            return moveSelection(to: path, leaf: leaf, cause: .select, &out)
        }
        let candidate = try candidate(for: target)
        if case .more = candidate, !moreShown, !original {
            // R3.7: as for a tap, More must be on the bar.
            throw TabError(.notAvailable, "More is not on the bar: the controller has \(tabs.count) tab(s) and shows up to \(maxVisible)")
        }
        changeSelection(to: candidate, cause: .select, &out)
    }

    /// R4.2–R4.4: a user's tap.
    mutating func tap(_ target: TapTarget, policy: Policy, _ out: inout Outcome) throws(TabError) {
        if arranged { return try tapArranged(target, policy: policy, &out) }
        let candidate: Candidate
        switch target {
        case .tab(let id):
            candidate = try self.candidate(for: .tab(id))
            if idiom == .tv, let index = candidate.index, index >= barTabCount {
                throw TabError(.notAvailable, "tab '\(id)' does not fit on the tv bar and cannot be tapped")
            }
        case .more:
            candidate = try self.candidate(for: .more)
            guard moreShown else {
                throw TabError(.notAvailable, "More is not on the bar: the controller has \(tabs.count) tab(s) and shows up to \(maxVisible)")
            }
        }
        // The delegate's effects gather in a local array, handed to `out` once at the end:
        // `&out.effects` rebuilt the outcome's boxed answers twice per call.
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(candidate, policy: policy, &effects, &out) else { return }
        // What a tap can change: the selection (and with it a tab's content loading, which
        // happens only when the selection moves) and the tapped tab's stack. The delegate's
        // did-select sees a copy and changes nothing.
        let selectionBefore = selection
        var poppedToRoot = false
        // R4.3: a tap shows the tab's root (with `tap_pops: reselect`, only a tap on the
        // selected tab). The pop comes before the appearance calls, so a front end applying
        // events in order never shows the deep screen.
        if case .tab(let id, let index) = candidate, !tabs[index].stack.isEmpty,
           tapPops == .always || selection == .tab(id) {
            Navigation.popToRoot(&tabs[index].stack, .tab)
            poppedToRoot = true
            out.notify(.navigationChanged(tab: id, stack: []))
        }
        changeSelection(to: candidate, cause: .tap, &out)
        out.notify(.didSelect(tab: candidate.id, index: candidate.index))
        lend { policy.didSelect(candidate, in: $0, effects: &effects) }
        if selection != selectionBefore || poppedToRoot { out.journalsCommand = true }
    }

    /// R4.2's should-select for a tap: true when the delegate allows it, else false with the
    /// refusal in `out` (and nothing changed). `effects`: the delegate's, gathered by the caller.
    @inline(__always)
    private mutating func allowsTap(_ candidate: Candidate, policy: Policy, _ effects: inout [PolicyEffect], _ out: inout Outcome) -> Bool {
        guard case .deny(let by, let reason, let message) = lend({ policy.shouldSelect(candidate, in: $0, effects: &effects) }) else { return true }
        refuse(candidate, by: by, reason: reason, message: message, &out)
        return false
    }

    /// R4.2–R4.4 with R13.2 and R13.8: a tap on what the user can touch now; should-select
    /// sees the tapped tab, did-select reports it with the path to the leaf it shows.
    private mutating func tapArranged(_ target: TapTarget, policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard case .tab(let id) = target else { return try tapMoreArranged(policy: policy, &out) }
        // The leaf is not optional (More is `tapMoreArranged`'s) and the tapped node is not
        // kept: a node unwrapped from an optional, or bound across the controller's mutating
        // calls, was retained and released around each of them (BENCHMARKS.md, issue 30).
        let (leaf, rootIndex) = try tapped(id)
        let candidate = Candidate.tab(id: id, index: rootIndex)
        // The delegate's effects gather in a local array, handed to `out` once at the end (as
        // in `tap`).
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(candidate, policy: policy, &effects, &out) else { return }
        // The start of the command, what the last one left: its node (compared, not kept: a
        // reference is a retain and a release) and, for did_select, its leaf.
        let start = ObjectIdentifier(current)
        let previous = out.recordsNotifications ? current.path.last : nil
        var popped = false
        // R4.3, R13.8: the tap shows the leaf it lands on at its root (with `reselect`, only a
        // tap on a tab of the selected path).
        if !Self.stackIsEmpty(at: leaf.address, in: tabs), tapPops == .always || current.path.contains(id) {
            modify(at: leaf.address) { Navigation.popToRoot(&$0.stack, .tab) }
            popped = true
            out.notify(.navigationChanged(tab: leaf.id, stack: []))
        }
        if leaf.landsOnItself { moveSelection(toLeaf: leaf, cause: .tap, &out) }
        else { moveSelection(to: leaf.path, leaf: leaf, cause: .tap, &out) }
        out.notify(.didSelect(tab: id, index: rootIndex, leaf: LeafChange(path: leaf.path, previous: previous)))
        lend { policy.didSelect(candidate, in: $0, effects: &effects) }
        // `current` is the node the move left: another node is another path (a move to the
        // same leaf keeps the node; the start's node was alive beside the leaf's, so their
        // identities differ).
        if ObjectIdentifier(current) != start || popped { out.journalsCommand = true }
    }

    /// `tapArranged`'s checks of the tapped tab `id` (R13.3, R13.8, R14.2): the leaf it lands
    /// on (`landing(at:)`'s, without its path) and its root's index, or why the user cannot
    /// tap it. Mutating though it changes nothing: the controller is then reached in place (a
    /// non-mutating call copied it first).
    @inline(__always)
    private mutating func tapped(_ id: String) throws(TabError) -> (leaf: TreeNode, rootIndex: Int) {
        guard let node = layout.node(id) else { throw .noTab(id) }
        let leaf = node.hidden ? try landing(at: node).leaf! : node.leaf(in: tabs)
        // R14.2: a disabled tab (or one in a disabled group) is refused before the delegate.
        if let off = node.disabled { throw Self.disabledTap(id, in: off) }
        guard Self.onScreen(node, from: current, layout, barHidden: barHidden, tv: idiom == .tv) || touchableInSidebar(node) else {
            throw Self.untouchableTap(id)
        }
        return (leaf, node.rootIndex)
    }

    /// `tapArranged` of More (R3.7): the bar's More item, which lands on More's list.
    private mutating func tapMoreArranged(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
        guard moreShown else { throw moreNotShown }
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(.more, policy: policy, &effects, &out) else { return }
        let start = ObjectIdentifier(current)
        let previous = out.recordsNotifications ? current.path.last : nil
        moveSelection(to: [Controller.moreID], cause: .tap, &out)
        out.notify(.didSelect(tab: Controller.moreID, index: nil, leaf: LeafChange(path: [Controller.moreID], previous: previous)))
        lend { policy.didSelect(.more, in: $0, effects: &effects) }
        if ObjectIdentifier(current) != start { out.journalsCommand = true }
    }

    /// The refusals of a tap, made out of line: their sentences kept `tapArranged` too big for
    /// the calls it makes on every tap to be inlined (each copied the controller).
    @inline(never)
    private static func disabledTap(_ id: String, in off: String) -> TabError {
        TabError(.notAvailable, off == id ? "tab '\(id)' is disabled; enable it with set_enabled, or select it" : "tab '\(id)' is in the disabled group '\(off)'; enable it with set_enabled, or select it")
    }

    @inline(never)
    private static func untouchableTap(_ id: String) -> TabError {
        TabError(.notAvailable, "tab '\(id)' is not on the bar, in More's list, in the sidebar or inside the selected tab, so the user cannot tap it; use select")
    }

    /// R13.8, with `touchableInSidebar`: whether the user can touch `node` now: an item of the
    /// bar, a tab of More's list, a tab of the selected root's subtree (or a sidebar item, the
    /// sidebar shown). What it reads is passed in: a tap calls it without copying the
    /// controller. `current`: the selected path's node.
    @inline(__always)
    private static func onScreen(_ node: TreeNode, from current: TreeNode, _ layout: TreeLayout, barHidden: Bool, tv: Bool) -> Bool {
        // Roots compared by their indices (a node of this layout has its address; a path's
        // own node has none), else ids by their words (`InlineID.same`).
        if current.rootIndex >= 0 { if current.rootIndex == node.rootIndex { return true } }
        else if let root = current.path.first, InlineID.same(node.path[0], root) { return true }
        guard !barHidden else { return false }
        // A root tab's bar item is itself when it is on the bar, More when it is in More's
        // list (not on tv), none otherwise (`refreshArranged`).
        if node.address.count == 1 { return node.barItem != nil }
        return layout.shown.contains(where: { InlineID.same($0, node.id) })
            || !tv && layout.rest.contains(where: { InlineID.same($0, node.id) })
    }

    /// R13.12: a sidebar item inside a collapsed group is not shown.
    private func touchableInSidebar(_ node: TreeNode) -> Bool {
        sidebarAvailable && sidebarVisible && node.path.dropLast().allSatisfy { tab($0)?.isExpanded != false }
    }

    /// The delegate refused a tap: nothing changes; the outcome carries the `denied` error,
    /// with the delegate's own sentence when it gave one.
    private func refuse(_ candidate: Candidate, by: String, reason: String, message: String?, _ out: inout Outcome) {
        out.refusal = TabError(.denied, message ?? "'\(by)' refused selecting '\(candidate.id)': \(reason)", plugin: by, reason: reason)
    }

    /// Moves the selection, sending R5.1's appearance calls and R4.6's state change.
    mutating func changeSelection(to candidate: Candidate, cause: SelectionCause, _ out: inout Outcome) {
        // Compared in place: a select runs this, and each Selection copied is a string retained.
        switch candidate {
        case .tab(let id, _): if case .tab(let current) = selection, current == id { return }
        case .more: if case .more = selection { return }
        }
        var previous: Selection
        switch candidate {
        case .tab(let id, _): previous = .tab(id)
        case .more: previous = .more
        }
        // The bar's selected item moved, unless the new selection shows the same item as the
        // old: only possible when it is not a tab on the bar (More, a tab under More, a tv tab
        // off the bar), so the old one's index is looked up only then.
        let slot = barSlot(of: candidate)
        if slot >= 0 || slot != barSlot(of: selection, index: selectedIndex) { out.barMoved = true }
        swap(&previous, &selection)  // the new selection in, the old one out, nothing copied
        appear(selection, at: candidate.index, disappearing: previous, &out)
        guard out.recordsNotifications || out.recordsSelectionChanges else { return out.skip(1) }
        out.notify(.selectionChanged(tab: selection.wireValue, index: candidate.index,
                                     previous: previous.wireValue, cause: cause))
    }

    /// R5.1/R5.2: old will-disappear, new will-appear, old did-disappear, new did-appear;
    /// the new tab's content is loaded first if it never was.
    /// `nextIndex`: the new tab's index when the caller knows it (spares a lookup).
    mutating func appear(_ next: Selection, at nextIndex: Int? = nil, disappearing old: Selection, _ out: inout Outcome) {
        if case .tab(let id) = next, let index = nextIndex ?? self.index(of: id), !tabs[index].contentLoaded {
            tabs[index].contentLoaded = true
            out.notify(.contentLoaded(tab: id))
        }
        guard out.recordsNotifications else {
            // Nobody reads them (a select without subscribers): counted, not built.
            return out.skip((old.isNone ? 0 : 2) + (next.isNone ? 0 : 2))
        }
        out.visibleSetChanged(from: old.wireValue, to: next.wireValue)
    }
}
