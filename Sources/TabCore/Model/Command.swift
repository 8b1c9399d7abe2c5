// The inputs of the state machine. Every mutating wire command maps to one Command.

/// What `select` may name (R4.1).
public enum SelectTarget: Equatable, Sendable {
    case tab(String)
    case index(Int)
    case more
}

/// What a user may tap (R4.2–R4.4): a tab or More, never an index.
public enum TapTarget: Equatable, Sendable {
    case tab(String)
    case more
}

/// A field of `update_tab`: left as it is, or set (possibly to nil).
public enum Change<Value: Equatable & Sendable>: Equatable, Sendable {
    case keep
    case set(Value)
}

/// What `update_tab` changes: any field a client's description sets but `id` (a field of
/// `Tab.fields` that `accepts` `.read`), each left as it is or set (possibly to nil):
/// `update.title = .set("Inbox")` (a field of `Tab` looked up by its key path). The new
/// values are kept in a tab, with a bit for each field they are of: a new field of
/// `Tab.fields` is a field of `update_tab` with no edit here.
@dynamicMemberLookup
public struct TabUpdate: Equatable, Sendable {
    /// The new values; those of fields not in `changed` hold their defaults.
    public internal(set) var values = Tab(id: "")
    /// Which fields change: bit i for `Tab.fields[i]`.
    public internal(set) var changed: UInt64 = 0
    public init() {}

    /// The update `changes` makes: `TabUpdate { $0.title = .set("Inbox") }`.
    public init(_ changes: (inout TabUpdate) -> Void) {
        self.init()
        changes(&self)
    }
}

/// What `preserve` saves and `restore` applies (R11.1–R11.2).
public struct RestorationArchive: Equatable, Sendable {
    /// The selected tab's restoration path, or nil (no selection, More, or no restoration id).
    public var selected: String?
    /// Navigation stacks of tabs that have a restoration id, by restoration path.
    public var stacks: [String: [Screen]]
    /// The paths are tabd 0.1.0's, "<restoration id>#<tab id>", and only those match: set by
    /// the journal reader for the restore records of formats 1 and 2 (and a record that says
    /// `legacy_paths`), which must replay as they applied then. Never on the wire.
    public var legacyPaths = false
    public init(selected: String? = nil, stacks: [String: [Screen]] = [:], legacyPaths: Bool = false) {
        self.selected = selected; self.stacks = stacks; self.legacyPaths = legacyPaths
    }
}

/// The rules a command is applied under. Journals written before the amended rules
/// (SEMANTICS R2.5, R3.7, R7.1, R9.4) replay under the rules their commands were accepted
/// under, so that an upgraded tabd comes back in the state its clients were told — and
/// never refuses, on replay, a command it once accepted.
public enum Semantics: Sendable {
    /// SEMANTICS.md as amended (issue 17): what tabd applies to every request.
    case amended
    /// The rules before the amendments: `set_tabs` replaces every tab (no identity), no
    /// orientation check or re-orientation on a change of tabs, `select` of More and
    /// `customize.begin` without customizable tabs allowed.
    case original
    /// The amended rules as journals of format 3 (before issue 30) were accepted under: as
    /// `amended`, but fixed and pinned tabs that do not fit (R13.10) were not refused.
    case amendedBeforeTree
}

/// One mutating input of a controller.
///
/// The cases with big payloads (a whole tab, an update, a screen, an archive) are
/// `indirect`: a command is copied a few times per request (into the request, the outcome's
/// journal form), and a small enum copies in registers where a 200-byte one needs memmove.
public enum Command: Equatable, Sendable {
    /// R2.6: `selected` (a tab of the new list, by id or index; never More) is selected as
    /// part of the same change.
    case setTabs([Tab], animated: Bool, selected: SelectTarget? = nil)
    /// R13.8: `group` names the group the tab goes into (nil: the root), `index` its place there.
    indirect case addTab(Tab, index: Int?, group: String? = nil)
    case removeTab(String)
    indirect case updateTab(String, TabUpdate)
    case badge(tab: String, value: String?)
    case select(SelectTarget)
    case tap(TapTarget)
    indirect case push(tab: String, screen: Screen)
    case pop(tab: String)
    case popToRoot(tab: String)
    case setCustomizable([String]?)
    case customizeBegin
    case customizeMove(tab: String, to: Int)
    case customizeEnd
    case rotate(Orientation)
    /// The journal's form of a rotation that happened: applied without asking the delegate.
    case setOrientation(Orientation)
    indirect case restore(RestorationArchive)
    /// R13.3: hide or show a tab that allows hiding.
    case setHidden(tab: String, hidden: Bool)
    /// R13.5: the user's order of a group's children (`group`), or of the bar's tabs between
    /// the fixed and the pinned ones (`group` nil).
    case reorder(group: String?, order: [String])
    /// R13.6: show or hide the sidebar.
    case sidebar(visible: Bool)
    /// R13.12: expand or collapse a group in the sidebar.
    case setExpanded(group: String, expanded: Bool)
    /// R14.1: activate (only with the search tab selected) or cancel search.
    case search(active: Bool)
    /// R14.2: enable or disable a tab.
    case setEnabled(tab: String, enabled: Bool)
    /// R14.3: hide or show the whole bar.
    case setBarHidden(hidden: Bool, animated: Bool)
    /// R14.4: a pad's width class.
    case setSizeClass(SizeClass)
    /// R14.4: the root tabs compact appearances show (nil: all).
    case setCompactTabs([String]?)
    /// R14.5: the mode at run time.
    case setMode(Mode)
    /// R14.6: the sidebar's editing session.
    case editBegin
    case editEnd
    /// R14.7: a group's selected child, without selecting it (unless on the selected path).
    case selectChild(group: String, child: String)
}

/// Every command of the protocol, by its wire name, in the order `hello` lists them: the one
/// list of command names. A command's place in it (`index`) is what statistics count by.
public enum CommandName: String, CaseIterable, Sendable {
    case hello, ping, state, controllers
    case controllerCreate = "controller.create", controllerDelete = "controller.delete"
    case setTabs = "set_tabs", addTab = "add_tab", removeTab = "remove_tab", updateTab = "update_tab"
    case badge, select, tap, push, pop
    case popToRoot = "pop_to_root", customizable
    case customizeBegin = "customize.begin", customizeMove = "customize.move", customizeEnd = "customize.end"
    case rotate, layout, preserve, restore
    case setHidden = "set_hidden", reorder, sidebar, subscribe, unsubscribe, plugins
    case pluginCall = "plugin.call", explain, reload, stats, metrics, config
    // R13.12, R14 (issue 30).
    case setExpanded = "set_expanded", search, setEnabled = "set_enabled", setBarHidden = "set_bar_hidden"
    case setSizeClass = "set_size_class", setCompactTabs = "set_compact_tabs", setMode = "set_mode"
    case editBegin = "edit.begin", editEnd = "edit.end", selectChild = "select_child"
    // R15 (issue 42): navigation, drawer and custom containers.
    case configure, setWindow = "set_window", popTo = "pop_to", setStack = "set_stack"
    case openDrawer = "open_drawer", closeDrawer = "close_drawer", toggleDrawer = "toggle_drawer"
    case setCenter = "set_center", setDrawer = "set_drawer", setChildren = "set_children", setShown = "set_shown", transition
    case setColumn = "set_column", showColumn = "show_column", hideColumn = "hide_column", showDetail = "show_detail"

    /// The command's place in `allCases`: a case of an enum without payloads is stored as its
    /// place (one byte; CommandNameTests checks every case), so this is a load, not a search.
    @inlinable
    public var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}

extension Command {
    /// The command's wire name; `set_orientation`, the journal's form of a rotation, is
    /// `rotate`'s (as statistics count it).
    public var commandName: CommandName {
        switch self {
        case .setTabs: .setTabs
        case .addTab: .addTab
        case .removeTab: .removeTab
        case .updateTab: .updateTab
        case .badge: .badge
        case .select: .select
        case .tap: .tap
        case .push: .push
        case .pop: .pop
        case .popToRoot: .popToRoot
        case .setCustomizable: .customizable
        case .customizeBegin: .customizeBegin
        case .customizeMove: .customizeMove
        case .customizeEnd: .customizeEnd
        case .rotate, .setOrientation: .rotate
        case .restore: .restore
        case .setHidden: .setHidden
        case .reorder: .reorder
        case .sidebar: .sidebar
        case .setExpanded: .setExpanded
        case .search: .search
        case .setEnabled: .setEnabled
        case .setBarHidden: .setBarHidden
        case .setSizeClass: .setSizeClass
        case .setCompactTabs: .setCompactTabs
        case .setMode: .setMode
        case .editBegin: .editBegin
        case .editEnd: .editEnd
        case .selectChild: .selectChild
        }
    }

    /// The journal's name of `set_orientation`, a command no client sends.
    public static let setOrientationName = "set_orientation"

    /// The command's name in the journal: its wire name, or `set_orientation`.
    public var name: String {
        if case .setOrientation = self { return Self.setOrientationName }
        return commandName.rawValue
    }
}

/// What a command did, besides the new state.
public struct Outcome: Equatable, Sendable {
    /// In order: what the controller told the world.
    public var notifications: [Notification] = []
    /// The command changed the state and is written to the journal as it was given.
    public internal(set) var journalsCommand = false
    /// The command changed the state and is written to the journal in another form (a
    /// rotation as the orientation it resolved to). Kept apart from `journalsCommand` so that
    /// the common case holds no copy of the command: `journal(of:)` gives the form either way.
    public internal(set) var rewrittenJournal: Command?
    /// The command changed the state (it has a journal form).
    public var changed: Bool {
        if journalsCommand { return true }
        if case .none = rewrittenJournal { return false }  // `!= nil` would copy the command
        return true
    }

    /// The command changed no state but was announced (a tap on the tab already shown sends
    /// `did_select`): it is journaled all the same, so that replaying numbers its events too
    /// and a restart never numbers an event again (R11.4).
    public internal(set) var journalsNumbering = false

    /// The deterministic form of `command` (the command this outcome is of) to write to the
    /// journal, or nil when it neither changed the state nor was announced. Replaying it
    /// (with any policy) reproduces the same state and the same `seq`.
    public func journal(of command: Command) -> Command? {
        journalsCommand || journalsNumbering ? command : rewrittenJournal
    }

    /// `journal(of:)` handed to `record` instead of returned: a command written as it was
    /// given is passed on as it is, not copied (the daemon journals every change this way).
    @inline(__always)
    public func journal(of command: Command, _ record: (Command) -> Void) {
        if journalsCommand || journalsNumbering { record(command) } else if let rewritten = rewrittenJournal { record(rewritten) }
    }

    /// What the bar shows changed: a `barChanged` ends the notifications.
    public internal(set) var barMoved = false

    /// For `rotate`: whether the controller rotated (R9.3).
    public var rotated: Bool?
    /// The delegate's orientations (R9.2), when the command asked for them: always for
    /// `rotate`, and after a change when the delegate `decidesOrientations`. Asked once each.
    public internal(set) var orientations: OrientationDecision?
    /// The delegate refused the command (a tap, R4.2): it changed nothing, and this is the
    /// `denied` error to answer with — the plugin, its reason and its sentence for people.
    public internal(set) var refusal: TabError? {
        get { if case .answered(let refusal, _)? = delegate { return refusal } else { return nil } }
        set { answered(refusal: newValue, effects: effects) }
    }
    /// What the delegate asked for during the command, in order: events to publish and
    /// selections to make once the command is done (also after a refusal).
    public internal(set) var effects: [PolicyEffect] {
        get { if case .answered(_, let effects)? = delegate { return effects } else { return [] } }
        set { answered(refusal: refusal, effects: newValue) }
    }
    /// `refusal` and `effects`, boxed: one word in every outcome (nil for the commands whose
    /// delegate neither refused nor asked for anything) instead of an error and an array that
    /// each command would initialise, copy and destroy.
    @usableFromInline var delegate: DelegateAnswers?
    @usableFromInline indirect enum DelegateAnswers: Equatable, Sendable {
        case answered(refusal: TabError?, effects: [PolicyEffect])
    }

    private mutating func answered(refusal: TabError?, effects: [PolicyEffect]) {
        delegate = refusal == nil && effects.isEmpty ? nil : .answered(refusal: refusal, effects: effects)
    }

    /// Whether the delegate refused the command (without unboxing the error).
    @inlinable public var isRefused: Bool {
        if case .answered(let refusal, _)? = delegate { return refusal != nil }
        return false
    }

    /// Whether the delegate asked for anything.
    @inlinable public var hasEffects: Bool {
        if case .answered(_, let effects)? = delegate { return !effects.isEmpty }
        return false
    }

    /// How many notifications the command produced, built or not.
    public private(set) var notificationCount = 0
    /// False when nobody listens: notifications are then counted (so `seq` still advances)
    /// but not built, which spares a select most of its allocations.
    public var recordsNotifications = true
    /// With `recordsNotifications` false: the selection changes are built all the same (and
    /// only they), for a delegate that is told every one (a plugin's selection_changed).
    public var recordsSelectionChanges = false

    @inline(__always)
    public init(recordsNotifications: Bool = true, recordsSelectionChanges: Bool = false) {
        self.recordsNotifications = recordsNotifications
        self.recordsSelectionChanges = recordsSelectionChanges && !recordsNotifications
    }

    /// Takes over what `other` (an outcome of the same command, built apart) notified.
    mutating func absorb(_ other: Outcome) {
        notificationCount += other.notificationCount
        if recordsNotifications || recordsSelectionChanges { notifications.append(contentsOf: other.notifications) }
        if other.journalsCommand { journalsCommand = true }
        if other.barMoved { barMoved = true }
    }

    /// R15.5: a tab controller that is not visible sends no appearance. Its appearance and
    /// content_loaded notifications go (built: the caller made them recorded); returns how
    /// many went and the tabs whose content they loaded (to be loaded at first appearance).
    mutating func dropAppearance() -> (removed: Int, loaded: [String]) {
        var loaded: [String] = []
        let count = notifications.count
        notifications.removeAll { n in
            switch n {
            case .appearance: return true
            case .contentLoaded(let tab): loaded.append(tab); return true
            default: return false
            }
        }
        notificationCount -= count - notifications.count
        return (count - notifications.count, loaded)
    }

    /// `count` notifications that are not built: only for `recordsNotifications == false`.
    mutating func skip(_ count: Int) {
        assert(!recordsNotifications)
        notificationCount += count
    }

    mutating func notify(_ n: @autoclosure () -> Notification) {
        notificationCount += 1
        if recordsNotifications {
            notifications.append(n())
        } else if recordsSelectionChanges {
            let built = n()
            if case .selectionChanged = built { notifications.append(built) }
        }
    }
}

extension Command {
    /// `set_tabs`, `add_tab` and an `update_tab` that gives a tab children: the commands that
    /// can add tabs (`limits.max_total_tabs`).
    @inlinable
    public var addsTabs: Bool {
        switch self {
        case .setTabs, .addTab: true
        case .updateTab(_, let update): update.children != .keep
        default: false
        }
    }

    public var isSetTabs: Bool {
        if case .setTabs = self { return true }
        return false
    }
}
