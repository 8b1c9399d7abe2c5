// The Swift SDK for tabd policy plugins: a class conforming to `PolicyPlugin` and to the
// protocol of each hook it has, exported with one line,
//
//     @_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(MyPolicy.self) }
//
// then built as a dynamic library (`.library(type: .dynamic)`). The SDK speaks the C ABI
// of tabd/policy.h underneath; a Swift plugin never sees a C type.
//
// Why one protocol per hook, each without a default: the conformance is the registration.
// tabd calls exactly the hooks whose protocols the plugin conforms to, and a conformance
// whose method is misspelled or has another signature does not compile ("type 'X' does not
// conform to protocol 'SupportedOrientationsHook'"). With defaults, a near miss such as
// `supportedOrientations(in:)` compiled quietly and was never called.

import CTabPolicy

/// A tabd policy plugin: who it is and how it starts. tabd makes one instance per
/// configured plugin (at start, and at a reload that changes its settings or file), calls it
/// on its one thread, and releases it at fini. Its hooks are the hook protocols it conforms
/// to (`ShouldSelectHook`, `CallHook`, ...); a plugin with none loads and does nothing.
public protocol PolicyPlugin: AnyObject {
    /// Short and lower-case ("login-gate"): names the plugin in `plugins`, `plugin.call`,
    /// `explain`, `stats` and `denied` errors.
    static var name: String { get }
    /// The plugin's version ("1.0.0").
    static var version: String { get }
    /// One sentence saying what it does (`description` in `plugins`).
    static var summary: String { get }

    /// Called with the plugin's settings (a JSON object, `{}` when there are none). Throw
    /// (e.g. `PolicyError.invalid("…")`) to refuse to load; the message is logged and
    /// shown in `plugins` (and printed by `tabd --check-plugin`).
    init(settings: JSON, host: PolicyHost) throws
}

/// should_select: a user tapped `candidate` (a tab or More; never asked for a programmatic
/// select). Answer `.allow`, `.deny(reason:message:)` or `.abstain`; any deny refuses.
public protocol ShouldSelectHook: PolicyPlugin {
    func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict
}

/// supported_orientations: the orientations the controller may support, or nil to abstain.
/// tabd intersects the answer with `proposed` (what the tabs, and plugins before this one,
/// allow).
public protocol SupportedOrientationsHook: PolicyPlugin {
    func supportedOrientations(proposed: Orientations, in controller: ControllerView) -> Orientations?
}

/// preferred_orientation: the orientation preferred for presentation, or nil to abstain.
/// The first plugin that answers wins.
public protocol PreferredOrientationHook: PolicyPlugin {
    func preferredOrientation(in controller: ControllerView) -> Orientation?
}

/// did_select: a tap selected `candidate` (also when it was selected already); the
/// controller already shows it.
public protocol DidSelectHook: PolicyPlugin {
    func didSelect(_ candidate: Candidate, in controller: ControllerView)
}

/// will_begin_customizing: a customization session (More → Edit) begins with `tabs` in this
/// order.
public protocol WillBeginCustomizingHook: PolicyPlugin {
    func willBeginCustomizing(tabs: [String], in controller: ControllerView)
}

/// will_end_customizing: the session is about to end with `tabs` as the new order;
/// `changed` when it differs from the order at the start.
public protocol WillEndCustomizingHook: PolicyPlugin {
    func willEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView)
}

/// did_end_customizing: the session ended; `tabs` is the controller's order now.
public protocol DidEndCustomizingHook: PolicyPlugin {
    func didEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView)
}

/// call: a plugin-defined method (`plugin.call`). Return the result; throw
/// `PolicyError.denied` (→ `denied`), `.invalid` (→ `invalid_request`) or `.unknownMethod`
/// (→ `not_found`) to refuse.
public protocol CallHook: PolicyPlugin {
    func call(_ method: String, args: JSON, in controller: ControllerView) throws -> JSON
}

/// will_stop (ABI 1.2): a reload is about to stop this instance (its settings or file
/// changed, or it is no longer configured). Called once per controller before fini, to
/// announce what it drops with `host.emit`. Not called when a reload keeps the instance,
/// nor at tabd's shutdown.
public protocol WillStopHook: PolicyPlugin {
    func willStop(in controller: ControllerView)
}

/// fini: the instance stops (a reload replaced or dropped it, or tabd shuts down). Called
/// right before tabd releases it; `deinit` runs after, as for any object.
public protocol ShutdownHook: PolicyPlugin {
    func shutdown()
}

/// R13.3: tabs were hidden or shown (`set_hidden`).
public protocol VisibilityChangedHook: PolicyPlugin {
    func visibilityChanged(_ changes: [(id: String, hidden: Bool)], in controller: ControllerView)
}

/// R13.5: the user reordered a group's children (`group` its id) or the bar (`group` nil).
public protocol DisplayOrderChangedHook: PolicyPlugin {
    func displayOrderChanged(group: String?, order: [String], in controller: ControllerView)
}

/// selection_changed (ABI 1.6): the selection changed, whatever the cause (a client's or a
/// plugin's select, a tap, new tabs, a customization, a restoration, a hide). Called after the
/// command that changed it; the controller shows the new selection.
public protocol SelectionChangedHook: PolicyPlugin {
    func selectionChanged(_ change: SelectionChange, in controller: ControllerView)
}

/// timer (ABI 1.6): a timer the plugin armed with `host.setTimer` is due. `controller` is
/// the one it was armed for, nil for a timer of no controller.
public protocol TimerHook: PolicyPlugin {
    func timer(_ name: String, in controller: ControllerView?)
}

/// controller_created (ABI 1.7): a controller was created (a client's `controller.create`, or
/// one tabd's configuration names). Not called for those that exist as the plugin starts:
/// `host.controllers` lists them in `init`.
public protocol ControllerCreatedHook: PolicyPlugin {
    func controllerCreated(_ controller: ControllerView)
}

/// controller_deleted (ABI 1.7): `controller` is about to be deleted (`controller.delete`),
/// still readable. Forget what the plugin keeps for it: a controller created again under its
/// name is a new one. Events emitted now reach its subscribers before it goes.
public protocol ControllerDeletedHook: PolicyPlugin {
    func controllerDeleted(_ controller: ControllerView)
}

/// may_open_drawer (ABI 1.10): a user opens a drawer (a drawer command with a gesture; never
/// asked for an app's open or a close). Answer `.allow`, `.deny(reason:message:)` or
/// `.abstain`; the first deny refuses and the client gets `denied` naming the plugin. There
/// is no tab controller here: nothing to emit an event in or select; the store, timers and
/// the log work as in any hook.
public protocol MayOpenDrawerHook: PolicyPlugin {
    func mayOpenDrawer(_ open: DrawerOpen) -> Verdict
}

/// A user's open of a drawer (may_open_drawer, ABI 1.10).
public struct DrawerOpen: Equatable, Sendable {
    /// The drawer controller's name (a controller of kind "drawer").
    public let controller: String
    /// "left" or "right".
    public let side: String
    /// The gesture as the wire names it: "pan_navigation_bar", "pan_center",
    /// "bezel_pan_center", "custom" or "button" (a later tabd may add gestures).
    public let gesture: String

    public init(controller: String, side: String, gesture: String) {
        self.controller = controller; self.side = side; self.gesture = gesture
    }
}

/// top_column_for_collapsing (ABI 1.11, SEMANTICS R15.20): a split controller without a
/// compact child collapses; which column is on top of its stack? Answer "primary",
/// "supplementary" (a triple split only) or "secondary", or nil to abstain. Plugins are asked
/// in load order, each seeing the proposal so far (`collapse.proposed`, first "secondary"):
/// an answer replaces it; one the split cannot take ("compact", "supplementary" on a double
/// split) is ignored. No tab controller here: the store, timers and the log work.
public protocol TopColumnForCollapsingHook: PolicyPlugin {
    func topColumnForCollapsing(_ collapse: SplitCollapse) -> String?
}

/// display_mode_for_expanding (ABI 1.11, SEMANTICS R15.21): a split controller expands;
/// which display mode does it take? Answer a display mode's wire name ("secondary_only",
/// "one_beside", "one_over", "two_beside", "two_over", "two_displace"), or nil to abstain;
/// folded as top_column_for_collapsing. "automatic", a mode `expand.behavior` does not allow
/// and a "two_*" mode on a double split are ignored.
public protocol DisplayModeForExpandingHook: PolicyPlugin {
    func displayModeForExpanding(_ expand: SplitExpand) -> String?
}

/// notify (ABI 1.11, SEMANTICS R15.33): an event of a container beyond tabs (navigation,
/// split, drawer, custom: their state events, their children's appearance and containment),
/// after the command that made it, in the order subscribers get them. Told only; no tab
/// controller here: the store, timers and the log work.
public protocol NotifyHook: PolicyPlugin {
    func notify(_ event: ContainerEvent)
}

/// A split collapsing (top_column_for_collapsing, ABI 1.11).
public struct SplitCollapse: Equatable, Sendable {
    /// The split controller's name.
    public let controller: String
    /// "double" or "triple".
    public let style: String
    /// The column proposed so far: "secondary" (tabd's), or what a plugin before answered.
    public let proposed: String

    public init(controller: String, style: String, proposed: String) {
        self.controller = controller; self.style = style; self.proposed = proposed
    }
}

/// A split expanding (display_mode_for_expanding, ABI 1.11).
public struct SplitExpand: Equatable, Sendable {
    /// The split controller's name.
    public let controller: String
    /// "double" or "triple".
    public let style: String
    /// Its split behavior: "tile", "overlay" or "displace".
    public let behavior: String
    /// The display mode proposed so far (never "automatic").
    public let proposed: String

    public init(controller: String, style: String, behavior: String, proposed: String) {
        self.controller = controller; self.style = style; self.behavior = behavior; self.proposed = proposed
    }
}

/// An event of a container beyond tabs (notify, ABI 1.11).
public struct ContainerEvent: Equatable, Sendable {
    /// The event's name ("drawer_changed", "appearance", …; a later tabd may add some).
    public let name: String
    /// The controller that sends it.
    public let controller: String
    /// The event as a subscriber gets it: `{"event":…,"controller":…,"seq":…,"data":{…}}`.
    public let json: String

    public init(name: String, controller: String, json: String) {
        self.name = name; self.controller = controller; self.json = json
    }

    /// `json` parsed (`data` is the event's members).
    public var value: JSON? { try? JSON(parsing: json) }
}

/// One change of a controller's selection (selection_changed).
public struct SelectionChange: Equatable, Sendable {
    /// Why it changed (the wire event's `cause`).
    public enum Cause: Equatable, Sendable {
        case select, tap, tabs, customize, restore, hidden
        /// Search was cancelled and the selection went back to where it was (R14.1).
        case searchCancelled
        /// A cause a later tabd added (its number in tabd/policy.h).
        case other(UInt32)

        init(_ c: tabd_selection_cause) {
            switch c {
            case TABD_CAUSE_SELECT: self = .select
            case TABD_CAUSE_TAP: self = .tap
            case TABD_CAUSE_TABS: self = .tabs
            case TABD_CAUSE_CUSTOMIZE: self = .customize
            case TABD_CAUSE_RESTORE: self = .restore
            case TABD_CAUSE_HIDDEN: self = .hidden
            case TABD_CAUSE_SEARCH_CANCELLED: self = .searchCancelled
            default: self = .other(c.rawValue)
            }
        }

        /// The wire event's `cause` ("select", "search_cancelled", …; "other" for `.other`).
        public var name: String {
            switch self {
            case .select: return "select"
            case .tap: return "tap"
            case .tabs: return "tabs"
            case .customize: return "customize"
            case .restore: return "restore"
            case .hidden: return "hidden"
            case .searchCancelled: return "search_cancelled"
            case .other: return "other"
            }
        }
    }
    /// What is selected now: a root tab's id, "more", or nil.
    public let tab: String?
    /// What was selected before.
    public let previous: String?
    public let cause: Cause
    /// The selected path now, root first (`[tab]` without groups; `[]` when nothing is).
    public let path: [String]

    public init(tab: String?, previous: String?, cause: Cause, path: [String]) {
        self.tab = tab; self.previous = previous; self.cause = cause; self.path = path
    }
}

/// The list of hooks of SDKs before ABI 1.3. A plugin declares its hooks by conforming to
/// their protocols now, so that a misspelled hook cannot compile.
@available(*, unavailable, message: "conform to the hook protocols instead (ShouldSelectHook, SupportedOrientationsHook, PreferredOrientationHook, DidSelectHook, WillBeginCustomizingHook, WillEndCustomizingHook, DidEndCustomizingHook, CallHook, WillStopHook, ShutdownHook, VisibilityChangedHook, DisplayOrderChangedHook, SelectionChangedHook, TimerHook, ControllerCreatedHook, ControllerDeletedHook, MayOpenDrawerHook, TopColumnForCollapsingHook, DisplayModeForExpandingHook, NotifyHook); see plugins.md, \"A plugin in Swift\"")
public struct PolicyHooks {}

/// An answer to should-select (and may-open-drawer).
public enum Verdict: Equatable, Sendable {
    /// Let it happen (another plugin's deny still wins).
    case allow
    /// Refuse. `reason` is short ("not logged in"); `message` is a sentence for people.
    case deny(reason: String, message: String? = nil)
    /// No opinion: never an allow by itself.
    case abstain
}

/// What a user tapped: a tab (of any depth, in a group or not), or the More item.
public struct Candidate: Equatable, Sendable {
    /// The tab id, or "more".
    public let id: String
    /// The index of the tab's root tab in the controller; nil for More (a tab's index is
    /// never Int.min, which stands for More's).
    public var index: Int? { rawIndex == Self.noIndex ? nil : rawIndex }
    /// `index`, More's as `noIndex`: with it, a candidate is four words, passed and destroyed
    /// in registers (five were destroyed from memory through the metadata of each field's
    /// type, ~100 instructions a decision).
    private let rawIndex: Int
    private static var noIndex: Int { Int.min }
    /// The ids from the root tab down to this one (R13.2): `[id]` for a tab outside any
    /// group, and for More (since ABI 1.4; a tabd before it gives `[id]` too).
    public var path: [String] { given?.path ?? [id] }
    /// Whether the candidate is the controller's search tab (R14.1, UISearchTab; since ABI
    /// 1.6: false from a tabd before it).
    public var isSearch: Bool { given?.isSearch ?? false }
    /// The path as given; nil for `[id]`, which is then made only when `path` is read: a
    /// decision about a tab outside any group allocates no array. In a box, not an optional
    /// array: that was destroyed through its type's metadata (~60 instructions a decision).
    private let given: GivenPath?

    private final class GivenPath: Sendable {
        let path: [String]?
        /// The search tab (R14.1): rare, so kept here rather than as a fifth word.
        let isSearch: Bool
        init(_ path: [String]?, isSearch: Bool) { self.path = path; self.isSearch = isSearch }
    }

    init(id: String, index: Int?, deeperPath: [String]?, isSearch: Bool = false) {
        self.id = id; rawIndex = index ?? Self.noIndex
        given = deeperPath == nil && !isSearch ? nil : GivenPath(deeperPath, isSearch: isSearch)
    }

    /// A tab: `path` defaults to the tab alone (a tab outside any group).
    public static func tab(id: String, index: Int, path: [String]? = nil, isSearch: Bool = false) -> Candidate {
        Candidate(id: id, index: index, deeperPath: path, isSearch: isSearch)
    }
    /// The More item.
    public static let more = Candidate(id: "more", index: nil, deeperPath: nil)

    public var isMore: Bool { index == nil }
    /// The group the tab is in (its parent), or nil for a root tab and More.
    public var group: String? {
        guard let path = given?.path ?? nil, path.count > 1 else { return nil }
        return path[path.count - 2]
    }

    /// Equal when id, index and path are (a path given as `[id]` is the path left out).
    public static func == (a: Candidate, b: Candidate) -> Bool {
        a.id == b.id && a.index == b.index && a.path == b.path && a.isSearch == b.isSearch
    }
}

/// The kind of device a controller behaves like.
public enum Idiom: String, Sendable {
    case phone, pad, tv
}

/// One orientation; raw values are tabd's wire names.
public enum Orientation: String, CaseIterable, Sendable {
    case portrait
    case landscapeLeft = "landscape_left"
    case landscapeRight = "landscape_right"
    case portraitUpsideDown = "portrait_upside_down"

    public var mask: Orientations {
        switch self {
        case .portrait: return .portrait
        case .landscapeLeft: return .landscapeLeft
        case .landscapeRight: return .landscapeRight
        case .portraitUpsideDown: return .portraitUpsideDown
        }
    }

    /// The orientation of a single-bit mask.
    public init?(mask: Orientations) {
        guard let o = Orientation.allCases.first(where: { $0.mask == mask }) else { return nil }
        self = o
    }
}

/// A set of orientations (the TABD_ORIENTATION_* bits).
public struct Orientations: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let portrait = Orientations(rawValue: 1 << 0)
    public static let landscapeLeft = Orientations(rawValue: 1 << 1)
    public static let landscapeRight = Orientations(rawValue: 1 << 2)
    public static let portraitUpsideDown = Orientations(rawValue: 1 << 3)
    public static let landscape: Orientations = [.landscapeLeft, .landscapeRight]
    public static let all: Orientations = [.portrait, .landscapeLeft, .landscapeRight, .portraitUpsideDown]

    /// The orientations in the set, in a fixed order.
    public var orientations: [Orientation] { Orientation.allCases.filter { contains($0.mask) } }

    /// From settings: one name or a list of names. Besides the wire names, "landscape"
    /// means both landscapes and "all" every orientation.
    public init(settings value: JSON) throws(PolicyError) {
        var names: [JSON]
        switch value {
        case .string: names = [value]
        case .array(let a): names = a
        default: throw PolicyError.invalid("orientations must be a name or a list of names")
        }
        var mask = Orientations()
        for n in names {
            guard let s = n.stringValue else { throw PolicyError.invalid("orientation names are strings") }
            switch s {
            case "landscape": mask.formUnion(.landscape)
            case "all": mask.formUnion(.all)
            default:
                guard let o = Orientation(rawValue: s) else {
                    throw PolicyError.invalid("unknown orientation '\(s)' (portrait, landscape_left, landscape_right, portrait_upside_down, landscape, all)")
                }
                mask.insert(o.mask)
            }
        }
        self = mask
    }
}

/// An error a plugin throws to refuse a call or its settings.
public struct PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad arguments or settings: the client gets `invalid_request`.
        case invalid
        /// Refused (wrong password, rate-limited): the client gets `denied`.
        case denied
        /// No such method: the client gets `not_found`.
        case unknownMethod
    }
    public var kind: Kind
    /// A sentence for people.
    public var message: String
    /// For `denied`: a short reason.
    public var reason: String?

    public init(_ kind: Kind, _ message: String, reason: String? = nil) {
        self.kind = kind; self.message = message; self.reason = reason
    }

    public static func invalid(_ message: String) -> PolicyError { PolicyError(.invalid, message) }
    public static func denied(_ message: String, reason: String? = nil) -> PolicyError { PolicyError(.denied, message, reason: reason) }
    public static func unknownMethod(_ method: String) -> PolicyError { PolicyError(.unknownMethod, "no method '\(method)'") }

    public var description: String { message }
}
