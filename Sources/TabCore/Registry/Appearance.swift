// Containment and appearance of a set change (R5.3, R5.1; R15.5, R15.6), for every kind: the
// order is here, once. A kind says what leaves and enters its children and what it showed
// before and shows after (a tab bar controller: its one visible child, the selected leaf or
// More; the other kinds: the tree's visible children, `NodeTree.emit`).

/// R15.6 (a) and (b), R5.3 as tab bar controllers first sent it: each leaving child's
/// will_move(nil), its disappearance if it was on screen, did_move(nil); then each entering
/// child's will_move and did_move. R15.6 (c), the other visibility changes, follows from the
/// visible sets before and after (`Outcome.visibleSetChanged`, `NodeTree.emit`). A tab bar
/// controller's children are tabs (ids), the other kinds' child objects: one order for both.
enum SetChange {
    @inline(__always)
    static func containment<Leaving: Sequence, Entering: Sequence>(
        leaving: Leaving, entering: Entering,
        move: (Leaving.Element, ContainmentPhase, _ entering: Bool) -> Void,
        disappear: (Leaving.Element) -> Void
    ) where Leaving.Element == Entering.Element {
        for c in leaving {
            move(c, .willMove, false)
            disappear(c)
            move(c, .didMove, false)
        }
        for c in entering {
            move(c, .willMove, true)
            move(c, .didMove, true)
        }
    }
}

extension Outcome {
    /// The appearance calls for the visible set going from `old` to `new` (R15.6 c, in R5.1's
    /// order): each leaving node's will_disappear, each entering node's will_appear, then
    /// their did_disappear and did_appear. A node in both sets gets none (R15.5). A tab bar
    /// controller shows one child at a time, so each set holds at most one id here.
    /// Not built when nobody reads them (`recordsNotifications` false): counted.
    @inline(__always)
    mutating func visibleSetChanged(from old: String?, to new: String?) {
        if let old, let new, InlineID.same(old, new) { return }
        guard recordsNotifications else { return skip((old == nil ? 0 : 2) + (new == nil ? 0 : 2)) }
        if let old { notify(.appearance(tab: old, phase: .willDisappear)) }
        if let new { notify(.appearance(tab: new, phase: .willAppear)) }
        if let old { notify(.appearance(tab: old, phase: .didDisappear)) }
        if let new { notify(.appearance(tab: new, phase: .didAppear)) }
    }
}
