// R12: the controller's delegate. TabCore asks a Policy where it must decide and tells it
// what happened; the daemon's Policy is the plugin chain (TabPlugins).

/// A delegate's answer to should-select.
public enum Decision: Equatable, Sendable {
    case allow
    /// Refused. `by` names who refused (a plugin's name), `reason` says why, for people.
    case deny(by: String, reason: String)
}

/// The controller's delegate (the seeds' UITabBarControllerDelegate), as TabCore sees it.
/// Calls happen synchronously, inside the command that needs them; the controller passed
/// is the state at the moment of the call.
public protocol Policy {
    /// R4.2/R4.4: may the user's tap select `candidate`? Not asked for programmatic selection.
    func shouldSelect(_ candidate: Candidate, in controller: Controller) -> Decision
    /// R9.2: the orientations the controller supports, given what its tabs support (`proposed`).
    func supportedOrientations(proposed: OrientationMask, in controller: Controller) -> OrientationMask
    /// R9.2: the orientation preferred for presentation, or nil for no preference.
    func preferredOrientation(in controller: Controller) -> Orientation?
    /// R4.2: a tap selected `candidate` (also when it was selected already).
    func didSelect(_ candidate: Candidate, in controller: Controller)
    /// R7.2: a customization session begins with `tabs` (ids, in order; More never among them).
    func willBeginCustomizing(tabs: [String], in controller: Controller)
    /// R7.4: a customization session is about to end with the new order.
    func willEndCustomizing(tabs: [String], changed: Bool, in controller: Controller)
    /// R7.4: a customization session ended; `tabs` is now the controller's order.
    func didEndCustomizing(tabs: [String], changed: Bool, in controller: Controller)
    /// R13.3: tabs were hidden or shown.
    func visibilityChanged(_ tabs: [TabVisibility], in controller: Controller)
    /// R13.5: the user reordered a group's children (`group`) or the bar (`group` nil).
    func displayOrderChanged(group: String?, order: [String], in controller: Controller)
}

extension Policy {
    public func shouldSelect(_ candidate: Candidate, in controller: Controller) -> Decision { .allow }
    public func supportedOrientations(proposed: OrientationMask, in controller: Controller) -> OrientationMask { proposed }
    public func preferredOrientation(in controller: Controller) -> Orientation? { nil }
    public func didSelect(_ candidate: Candidate, in controller: Controller) {}
    public func willBeginCustomizing(tabs: [String], in controller: Controller) {}
    public func willEndCustomizing(tabs: [String], changed: Bool, in controller: Controller) {}
    public func didEndCustomizing(tabs: [String], changed: Bool, in controller: Controller) {}
    public func visibilityChanged(_ tabs: [TabVisibility], in controller: Controller) {}
    public func displayOrderChanged(group: String?, order: [String], in controller: Controller) {}
}

/// The seeds' defaults: every tap allowed, orientations as the tabs say, no preference.
public struct DefaultPolicy: Policy {
    public init() {}
}
