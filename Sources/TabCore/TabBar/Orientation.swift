// R9: orientation — what the tabs support (R9.1), what the delegate decides (R9.2), a
// rotation (R9.3), and never an empty set or an unsupported orientation (R9.4).

extension Controller {
    /// R9.1: what every tab supports (portrait when there are none).
    public var tabsOrientations: OrientationMask {
        tabs.reduce(into: OrientationMask.all) { $0.formIntersection($1.supportedOrientations) }
            .intersection(tabs.isEmpty ? .portrait : .all)
    }

    /// R9.2: the supported and preferred orientations, the delegate asked once for each.
    public func orientations(policy: Policy, effects: inout [PolicyEffect]) -> OrientationDecision {
        var lent = self
        return lent.decide(policy: policy, effects: &effects)
    }

    /// `orientations(policy:effects:)` with this controller lent in place.
    mutating func decide(policy: Policy, effects: inout [PolicyEffect]) -> OrientationDecision {
        let proposed = tabsOrientations
        let supported = lend { policy.supportedOrientations(proposed: proposed, in: $0, effects: &effects) }
        let preferred = lend { policy.preferredOrientation(in: $0, effects: &effects) }
        return OrientationDecision(supported: supported, preferred: preferred ?? self.preferred(among: supported))
    }

    /// R9.2 without a preference: the current orientation if supported, else the first supported one.
    private func preferred(among supported: OrientationMask) -> Orientation? {
        supported.contains(orientation.mask) ? orientation : supported.orientations.first
    }

    /// What `state` reports as the supported and preferred orientations: the delegate's
    /// answers at the last change (or at `decideOrientations`), else what the tabs support.
    /// Asks nobody.
    public var decidedOrientations: OrientationDecision {
        if let decided = delegated.orientations { return decided }
        let supported = tabsOrientations
        return OrientationDecision(supported: supported, preferred: preferred(among: supported))
    }

    /// Asks `policy` for the orientations now and keeps its answers (`decidedOrientations`):
    /// for controllers the delegate has not seen change (it was loaded, or replaced, after
    /// their last change).
    public mutating func decideOrientations(policy: Policy, effects: inout [PolicyEffect]) {
        let decided = policy.decidesOrientations ? decide(policy: policy, effects: &effects) : nil
        delegated.orientations = decided
    }

    /// After a change (or a rotate): the delegate's orientations, asked once if it decides
    /// them, kept for `decidedOrientations`; forgotten under a delegate that does not.
    mutating func keepOrientations(policy: Policy, _ out: inout Outcome) {
        if policy.decidesOrientations {
            // The delegate's answers may follow the change: asked once, after it.
            if out.orientations == nil { out.orientations = decide(policy: policy, effects: &out.effects) }
            delegated.orientations = out.orientations
        } else if case .some = delegated.orientations {
            delegated.orientations = nil
        }
    }

    // MARK: R9 — orientation

    /// R9.3: the supported set decides; the preference is asked once the controller turned
    /// (or did not): both answers go with the outcome.
    mutating func rotate(to new: Orientation, policy: Policy, _ out: inout Outcome) {
        let proposed = tabsOrientations
        let supported = lend { policy.supportedOrientations(proposed: proposed, in: $0, effects: &out.effects) }
        out.rotated = supported.contains(new.mask)
        if out.rotated == true, new != orientation {
            setOrientation(new, &out)
            out.rewrittenJournal = .setOrientation(new)
        }
        let preferred = lend { policy.preferredOrientation(in: $0, effects: &out.effects) }
        out.orientations = OrientationDecision(supported: supported, preferred: preferred ?? self.preferred(among: supported))
    }

    /// R9.4: the supported set is never empty. Refuses (`conflict`) tabs with no orientation
    /// in common, naming `changed` (the tab added or updated) or else the first tab that
    /// leaves the ones before it nothing in common.
    static func requireCommonOrientation(_ tabs: [Tab], naming changed: String? = nil) throws(TabError) {
        var common = OrientationMask.all
        for t in tabs { common.formIntersection(t.supportedOrientations) }
        guard common.isEmpty, let first = tabs.first else { return }
        var culprit = first, others = OrientationMask.all
        if let changed, let t = tabs.first(where: { $0.id == changed }) {
            culprit = t
            for o in tabs where o.id != changed { others.formIntersection(o.supportedOrientations) }
        } else {
            for t in tabs {
                if others.intersection(t.supportedOrientations).isEmpty { culprit = t; break }
                others.formIntersection(t.supportedOrientations)
            }
        }
        func names(_ m: OrientationMask) -> String { m.isEmpty ? "no orientation" : m.orientations.map(\.rawValue).joined(separator: ", ") }
        let theirs = others.isEmpty ? "the other tabs share none" : "the other tabs only \(names(others))"
        throw TabError(.conflict, "tab '\(culprit.id)' supports \(names(culprit.supportedOrientations)) and \(theirs); tabs must have an orientation in common, so give '\(culprit.id)' one the others support")
    }

    /// R9.4: after a change of tabs, an orientation the tabs no longer all support gives way
    /// to the first one they do (in `Orientation.allCases` order: portrait first) — the
    /// preferred orientation when no delegate has a say, since the current one is out.
    /// Decided from the tabs alone, not the delegate (policy plugins): the journal records
    /// the command, not the rotation, and replay (which runs without plugins) must land in
    /// the same orientation.
    /// An attached tab controller's orientation is its root's (R15.10): not moved.
    mutating func reorientIfUnsupported(_ out: inout Outcome) {
        if original || followsTree { return }
        let supported = tabsOrientations
        guard !supported.contains(orientation.mask), let first = supported.orientations.first else { return }
        setOrientation(first, &out)
    }

    mutating func setOrientation(_ new: Orientation, _ out: inout Outcome) {
        guard new != orientation else { return }
        let old = orientation
        orientation = new
        out.notify(.orientationChanged(from: old, to: new))
    }
}
