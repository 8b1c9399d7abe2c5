// What a command tells the world, in order: delegate calls, selection changes, appearance
// and containment phases, badge/orientation/tab-list changes. The server turns each into
// an event for subscribers.

public enum AppearancePhase: String, Sendable, Equatable, Codable {
    case willAppear = "will_appear", didAppear = "did_appear"
    case willDisappear = "will_disappear", didDisappear = "did_disappear"
}

public enum ContainmentPhase: String, Sendable, Equatable, Codable {
    case willMove = "will_move", didMove = "did_move"
}

/// Why the selection changed (the `cause` of `selection_changed`).
public enum SelectionCause: String, Sendable, Equatable, Codable {
    case select, tap, tabs, customize, restore
    /// R13.3: the selected tab (or its group) was hidden.
    case hidden
    /// R14.1: search was cancelled and the selection went back to where it was before.
    case searchCancelled = "search_cancelled"
}

public enum Notification: Equatable, Sendable {
    /// R4.6: the selection changed, whatever the cause. `tab` is an id, "more" or nil.
    /// `path`: the selected path, root … leaf (R13.2), for a controller that uses R13; nil
    /// otherwise (the event is then as R4.6 has it).
    /// `previousPath`: the path before the change (R13.8), with `path`.
    case selectionChanged(tab: String?, index: Int?, previous: String?, cause: SelectionCause, path: [String]? = nil,
                          previousPath: [String]? = nil)
    /// R4.2: a tap selected `tab` (an id or "more"); taps only. For a controller that uses
    /// R13, `leaf` says what the tap selected (R13.2): the tapped tab's path and the
    /// previous leaf.
    case didSelect(tab: String, index: Int?, leaf: LeafChange? = nil)
    /// R5.2: the tab's content was loaded (first selection).
    case contentLoaded(tab: String)
    /// R5.1/R5.3: appearance callbacks; `tab` may be "more".
    case appearance(tab: String, phase: AppearancePhase)
    /// R5.3/R2.1: containment callbacks; `parent` is the controller's name, or nil for removal.
    case containment(tab: String, phase: ContainmentPhase, parent: String?)
    /// R2: the tab list changed; `tabs` are the ids in order, `changed` those of the tabs the
    /// change added or whose description it changed (in tab order): the event carries their
    /// objects, so that its size follows the request's, not the controller's.
    case tabsChanged(tabs: [String], animated: Bool, changed: [String])
    /// R7.1/R2.3: the customizable set changed.
    case customizableChanged(tabs: [String])
    /// R8.
    case badgeChanged(tab: String, value: String?)
    /// R6: a tab's navigation stack changed; `stack` is its pushed screens, bottom first
    /// (empty: the root screen shows).
    case navigationChanged(tab: String, stack: [Screen])
    /// R7.
    case willBeginCustomizing(tabs: [String])
    case willEndCustomizing(tabs: [String], changed: Bool)
    case didEndCustomizing(tabs: [String], changed: Bool)
    /// R9.3.
    case orientationChanged(from: Orientation, to: Orientation)
    /// A tab's properties (title, item, restoration id, orientations, layout) changed.
    case tabUpdated(tab: String)
    /// What the bar shows (its visible items, More's list, the selected item) changed,
    /// whatever the cause; always the last notification of a command. Carries nothing: the
    /// bar is read from the controller as the command left it.
    case barChanged
    /// R13.3: tabs were hidden or shown.
    case visibilityChanged(tabs: [TabVisibility], cause: ChangeCause = .user)
    /// R13.5: the user's order of a group's children (`group`) or of the bar (`group` nil).
    case displayOrderChanged(group: String?, order: [String], cause: ChangeCause = .user)
    /// R13.6, R13.12: the sidebar changed (shown or hidden, a group expanded or collapsed, its
    /// availability): the event carries the whole `state.sidebar`.
    case sidebarChanged(visible: Bool)
    /// R14.1.
    case searchChanged(active: Bool)
    /// R14.4.
    case sizeClassChanged(SizeClass)
    /// R14.5.
    case modeChanged(Mode)
    /// R14.6: the sidebar's editing session began / ended.
    case willBeginEditing
    case didEndEditing(changed: Bool)

    /// The event this notification is on the wire (EventName: the one list of event names).
    public var event: EventName {
        switch self {
        case .selectionChanged: return .selectionChanged
        case .didSelect: return .didSelect
        case .contentLoaded: return .contentLoaded
        case .appearance: return .appearance
        case .containment: return .containment
        case .tabsChanged: return .tabsChanged
        case .customizableChanged: return .customizableChanged
        case .badgeChanged: return .badgeChanged
        case .navigationChanged: return .navigationChanged
        case .willBeginCustomizing: return .willBeginCustomizing
        case .willEndCustomizing: return .willEndCustomizing
        case .didEndCustomizing: return .didEndCustomizing
        case .orientationChanged: return .orientationChanged
        case .tabUpdated: return .tabUpdated
        case .barChanged: return .barChanged
        case .visibilityChanged: return .visibilityChanged
        case .displayOrderChanged: return .displayOrderChanged
        case .sidebarChanged: return .sidebarChanged
        case .searchChanged: return .searchChanged
        case .sizeClassChanged: return .sizeClassChanged
        case .modeChanged: return .modeChanged
        case .willBeginEditing: return .willBeginEditing
        case .didEndEditing: return .didEndEditing
        }
    }

    /// The event name on the wire.
    public var eventName: String { event.rawValue }

    /// Every event name a notification can have, and `controller_deleted`, for `hello` and
    /// `subscribe` (EventName's, without `plugin`).
    public static let eventNames = EventName.allCases.filter { $0 != .plugin }.map(\.rawValue)

    /// The event a deleted controller's subscribers get last (sent by the daemon: it is not
    /// a state machine's notification).
    public static let controllerDeleted = EventName.controllerDeleted.rawValue
}

/// Who changed a tab's visibility or a display order (R13.9): the user (`set_hidden`,
/// `reorder`) or the app (everything else).
public enum ChangeCause: String, Sendable, Equatable, Codable {
    case user, app
}

/// One tab of a `visibility_changed` (R13.3).
public struct TabVisibility: Equatable, Sendable {
    public var id: String
    public var hidden: Bool
    public init(id: String, hidden: Bool) { self.id = id; self.hidden = hidden }
}

/// What a tap selected in a controller that uses R13 (R13.2): `did_select`'s extra data.
public struct LeafChange: Equatable, Sendable {
    /// The tapped tab's path, root … tab.
    public var path: [String]
    /// The leaf selected before the tap (nil: nothing, "more": More).
    public var previous: String?
    public init(path: [String], previous: String?) { self.path = path; self.previous = previous }
}
