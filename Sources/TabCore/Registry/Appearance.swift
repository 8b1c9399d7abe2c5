// Appearance (R5.1, R15.5, R15.6 c): the calls a change of what is visible sends, made in one
// place from the visible set before and after the change. The operations of a kind say what
// they showed before and show after (a tab bar controller: its selected leaf, or More); the
// order of the calls is this function's.

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
