// R12: the controller's delegate. TabCore asks a Policy where it must decide and tells it
// what happened; the daemon's Policy is the plugin chain (TabPlugins). Every answer is a
// value the command returns: a refusal in its outcome's `refusal`, what the delegate asked
// for in its `effects`, the orientations it decided in its `orientations`.

/// A delegate's answer to should-select.
public enum Decision: Equatable, Sendable {
    case allow
    /// Refused. `by` names who refused (a plugin's name), `reason` says why in a few words,
    /// `message` is its sentence for people (nil: tabd says who refused what, and why).
    case deny(by: String, reason: String, message: String? = nil)
}

/// What the delegate asked for while it was asked or told something (a plugin's `emit` or
/// `request_select`): done after the command, in order.
public enum PolicyEffect: Equatable, Sendable {
    /// A `plugin` event from `plugin` for `controller`; `dataJSON` is a JSON object tabd accepted.
    case event(plugin: String, controller: String, dataJSON: String)
    /// A `select` of `target` in `controller`.
    case select(controller: String, target: SelectTarget)
    /// `plugin` set `key` of its store to `value` (nil: removed it): kept in the containers'
    /// `pluginData` and journaled.
    case store(plugin: String, key: String, value: String?)
}

/// R9.2: the orientations a controller supports once the delegate had its say, and the one
/// preferred for presentation (the delegate's, else the current one if supported, else the
/// first supported one).
public struct OrientationDecision: Equatable, Sendable {
    public var supported: OrientationMask
    public var preferred: Orientation?
    public init(supported: OrientationMask, preferred: Orientation?) {
        self.supported = supported; self.preferred = preferred
    }
}

/// A controller lent to the delegate for the length of one call, as it is at that moment:
/// read in place, never copied (a copy retains each of its arrays and strings). Its
/// properties read as the controller's; the pointer is valid only during the call.
@dynamicMemberLookup
public struct LentController {
    public let pointer: UnsafePointer<Controller>
    public init(_ pointer: UnsafePointer<Controller>) { self.pointer = pointer }
    public subscript<T>(dynamicMember property: KeyPath<Controller, T>) -> T { pointer.pointee[keyPath: property] }

    /// Where the controller keeps its name, to compare or copy it without loading it first
    /// (a load retains it): the plugin host's `explain` records compare it there.
    public var namePointer: UnsafePointer<String> {
        UnsafeRawPointer(pointer).advanced(by: Self.nameOffset).assumingMemoryBound(to: String.self)
    }
    private static var nameOffset: Int { MemoryLayout<Controller>.offset(of: \Controller.name)! }
}

/// The controller's delegate (the seeds' UITabBarControllerDelegate), as TabCore sees it.
/// Calls happen synchronously, inside the command that needs them; the controller lent
/// is the state at the moment of the call. What the delegate asks for meanwhile it appends
/// to `effects`.
public protocol Policy {
    /// Whether `supportedOrientations` or `preferredOrientation` may answer anything but the
    /// defaults: then a command that changes a controller asks both once, afterwards, and the
    /// controller keeps the answers (what `state` reports) until its next change.
    var decidesOrientations: Bool { get }
    /// Whether the containers' events are told to someone besides subscribers (the daemon's
    /// plugins with notify, ABI 1.11): a tab command in a tree keeps them for that, or for
    /// subscribers. True unless a policy knows nobody is told.
    var hearsEvents: Bool { get }
    /// R4.2/R4.4: may the user's tap select `candidate`? Not asked for programmatic selection.
    func shouldSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) -> Decision
    /// R9.2: the orientations the controller supports, given what its tabs support (`proposed`).
    func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask
    /// R9.2: the orientation preferred for presentation, or nil for no preference.
    func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation?
    /// R4.2: a tap selected `candidate` (also when it was selected already).
    func didSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect])
    /// R7.2: a customization session begins with `tabs` (ids, in order; More never among them).
    func willBeginCustomizing(tabs: [String], in controller: LentController, effects: inout [PolicyEffect])
    /// R7.4: a customization session is about to end with the new order.
    func willEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect])
    /// R7.4: a customization session ended; `tabs` is now the controller's order.
    func didEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect])
    /// R13.3, R13.9: the user hid or showed a tab (`set_hidden`); the app's changes of
    /// `hidden` (`set_tabs`, `update_tab`) are not told here.
    func visibilityChanged(_ tabs: [TabVisibility], in controller: LentController, effects: inout [PolicyEffect])
    /// R13.5: the user reordered a group's children (`group`) or the bar (`group` nil).
    func displayOrderChanged(group: String?, order: [String], in controller: LentController, effects: inout [PolicyEffect])
    /// R15.26: may the user open the `side` drawer of `controller` with `gesture`? Asked for
    /// user opens only (a veto, as should-select).
    func mayOpenDrawer(side: DrawerSide, gesture: DrawerGesture, controller: String) -> Decision
    /// R15.20, R15.33: the column on top when the split `controller` collapses without a
    /// compact child. Asked in load order, each plugin seeing the current proposal (first
    /// `secondary`); an answer replaces it, abstaining, an invalid answer (`compact`, a column
    /// the style lacks) or a failure keeps it. Returns the last proposal.
    func topColumnForCollapsing(proposed: SplitColumn, style: SplitStyle, controller: String) -> SplitColumn
    /// R15.21, R15.33: the display mode when the split `controller` expands, proposed as
    /// R15.17 derives it; an answer the style or `behavior` does not allow, or `automatic`,
    /// is ignored (the proposal kept).
    func displayModeForExpanding(proposed: SplitDisplayMode, behavior: SplitBehavior, style: SplitStyle, controller: String) -> SplitDisplayMode
}

extension Policy {
    public var decidesOrientations: Bool { false }
    public var hearsEvents: Bool { true }
    public func shouldSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) -> Decision { .allow }
    public func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask { proposed }
    public func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation? { nil }
    public func didSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) {}
    public func willBeginCustomizing(tabs: [String], in controller: LentController, effects: inout [PolicyEffect]) {}
    public func willEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {}
    public func didEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {}
    public func visibilityChanged(_ tabs: [TabVisibility], in controller: LentController, effects: inout [PolicyEffect]) {}
    public func displayOrderChanged(group: String?, order: [String], in controller: LentController, effects: inout [PolicyEffect]) {}
    public func mayOpenDrawer(side: DrawerSide, gesture: DrawerGesture, controller: String) -> Decision { .allow }
    public func topColumnForCollapsing(proposed: SplitColumn, style: SplitStyle, controller: String) -> SplitColumn { proposed }
    public func displayModeForExpanding(proposed: SplitDisplayMode, behavior: SplitBehavior, style: SplitStyle, controller: String) -> SplitDisplayMode { proposed }
}

/// The seeds' defaults: every tap allowed, orientations as the tabs say, no preference.
public struct DefaultPolicy: Policy {
    public init() {}
}
