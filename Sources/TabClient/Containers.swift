// The containers beyond tabs (SEMANTICS R15; docs/protocol.md, "Containers beyond tabs"):
// a function per command of navigation, split, drawer and custom controllers, their
// creation, and their events typed as TabCore's `NodeEvent` (the daemon's own description
// of them).
//
// Children are TabCore's `ChildObject` (`{id, title?, restoration_id?, controller?}`: a
// screen, or with `controller` the controller of that name); sides, gestures and the center
// interaction are TabCore's enums (`import TabCore` names them; write
// `CenterInteraction.none` in full: where an optional is taken, `.none` alone is nil). Unlike
// a tab controller's commands, these have no default controller (`main` is a tab
// controller): `controller` names the container. Each returns the reply's `result`: `changed` and what the command
// moved (a stack and its `top`; a split's `columns` ids and modes; a drawer's `open_side` and
// `center`; a custom container's `children` and `shown`).
//
// `push`, `pop` and `pop_to_root` are one command each for both kinds: with a tab id first
// (Commands.swift) they change that tab's stack (R6); without one (here) a navigation
// controller's.

import TabCore
import TabJSON

extension ChildObject {
    /// The child object as a request carries it (members that are nil left out).
    var requestValue: JSONValue {
        var o: [(String, JSONValue)] = [("id", .string(id))]
        if let title { o.append(("title", .string(title))) }
        if let restorationID { o.append(("restoration_id", .string(restorationID))) }
        if let controller { o.append(("controller", .string(controller))) }
        return .object(JSONObject(o))
    }

    static func requestValues(_ list: [ChildObject]) -> JSONValue { .array(list.map(\.requestValue)) }
}

extension TabClient {
    private static func animated(_ animated: Bool?) -> [(String, JSONValue)] { animated.map { [("animated", .bool($0))] } ?? [] }

    private static func gestures(_ key: String, _ list: [DrawerGesture]?) -> [(String, JSONValue)] {
        list.map { [(key, .array($0.map { .string($0.rawValue) }))] } ?? []
    }

    private static func gesture(_ g: DrawerGesture?) -> [(String, JSONValue)] { g.map { [("gesture", .string($0.rawValue))] } ?? [] }

    // MARK: creating

    /// `controller.create` of a navigation controller (R15.13): `stack` bottom (the root) to
    /// top, at least one. `window`: a window's root (default false: a container to attach).
    /// The reply is the new controller's `state` (no event announces a creation, R15.8 b).
    @discardableResult
    public func createNavigation(_ name: String, stack: [ChildObject], window: Bool? = nil, idiom: String? = nil) async throws -> JSONObject {
        try await create(name, .navigation, window: window, idiom: idiom, [("stack", ChildObject.requestValues(stack))])
    }

    /// `controller.create` of a split view controller (R15.15): its style, its columns
    /// (`supplementary` on triple only, required there; `compact` shown alone while
    /// collapsed), its preferences (R15.17) and whether a user may show and hide columns
    /// (R15.19). A phone split is collapsed from its creation (R15.20).
    @discardableResult
    public func createSplit(_ name: String, style: SplitStyle, primary: ChildObject, supplementary: ChildObject? = nil,
                            secondary: ChildObject, compact: ChildObject? = nil, preferredDisplayMode: SplitDisplayMode? = nil,
                            preferredSplitBehavior: SplitBehavior? = nil, presentsWithGesture: Bool? = nil,
                            window: Bool? = nil, idiom: String? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("style", .string(style.rawValue)), ("primary", primary.requestValue)]
        if let supplementary { fields.append(("supplementary", supplementary.requestValue)) }
        fields.append(("secondary", secondary.requestValue))
        if let compact { fields.append(("compact", compact.requestValue)) }
        fields += Self.splitSettings(preferredDisplayMode, preferredSplitBehavior, presentsWithGesture)
        return try await create(name, .split, window: window, idiom: idiom, fields)
    }

    private static func splitSettings(_ mode: SplitDisplayMode?, _ behavior: SplitBehavior?, _ gesture: Bool?) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if let mode { fields.append(("preferred_display_mode", .string(mode.rawValue))) }
        if let behavior { fields.append(("preferred_split_behavior", .string(behavior.rawValue))) }
        if let gesture { fields.append(("presents_with_gesture", .bool(gesture))) }
        return fields
    }

    /// `controller.create` of a drawer controller (R15.24): its `center`, and the drawers on
    /// either side; the gestures that open and close them (R15.26) and what a user may do
    /// below the center while one is open (R15.29).
    @discardableResult
    public func createDrawer(_ name: String, center: ChildObject, left: ChildObject? = nil, right: ChildObject? = nil,
                             openGestures: [DrawerGesture]? = nil, closeGestures: [DrawerGesture]? = nil,
                             centerInteraction: CenterInteraction? = nil, window: Bool? = nil, idiom: String? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("center", center.requestValue)]
        if let left { fields.append(("left", left.requestValue)) }
        if let right { fields.append(("right", right.requestValue)) }
        fields += Self.gestures("open_gestures", openGestures) + Self.gestures("close_gestures", closeGestures)
        if let centerInteraction { fields.append(("center_interaction", .string(centerInteraction.rawValue))) }
        return try await create(name, .drawer, window: window, idiom: idiom, fields)
    }

    /// `controller.create` of a custom container (R15.30): its children, the ids of those it
    /// shows, and the child that decides the status bar (R15.11).
    @discardableResult
    public func createCustom(_ name: String, children: [ChildObject] = [], shown: [String]? = nil, statusBarChild: String? = nil,
                             window: Bool? = nil, idiom: String? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("children", ChildObject.requestValues(children))]
        if let shown { fields.append(("shown", Self.strings(shown))) }
        if let statusBarChild { fields.append(("status_bar_child", .string(statusBarChild))) }
        return try await create(name, .custom, window: window, idiom: idiom, fields)
    }

    private func create(_ name: String, _ kind: ContainerKind, window: Bool?, idiom: String?, _ fields: [(String, JSONValue)]) async throws -> JSONObject {
        var f: [(String, JSONValue)] = [("kind", .string(kind.rawValue))]
        if let window { f.append(("window", .bool(window))) }
        if let idiom { f.append(("idiom", .string(idiom))) }
        return try await controllerCreate(name, fields: f + fields)
    }

    // MARK: every kind but tab

    /// The kind's configuration (R15.1), each member given changed and the others left as
    /// they are: a drawer's gestures and center interaction, a custom container's status bar
    /// child (`.set(nil)`: none), a split's preferences and `presents_with_gesture` (R15.17,
    /// R15.19). Announced by `config_changed` (a split's new modes then by `split_changed`).
    @discardableResult
    public func configure(openGestures: [DrawerGesture]? = nil, closeGestures: [DrawerGesture]? = nil, centerInteraction: CenterInteraction? = nil,
                          statusBarChild: Change<String?> = .keep, preferredDisplayMode: SplitDisplayMode? = nil,
                          preferredSplitBehavior: SplitBehavior? = nil, presentsWithGesture: Bool? = nil,
                          controller: String) async throws -> JSONObject {
        var fields = Self.gestures("open_gestures", openGestures) + Self.gestures("close_gestures", closeGestures)
        if let centerInteraction { fields.append(("center_interaction", .string(centerInteraction.rawValue))) }
        if case .set(let child) = statusBarChild { fields.append(("status_bar_child", child.map(JSONValue.string) ?? .null)) }
        fields += Self.splitSettings(preferredDisplayMode, preferredSplitBehavior, presentsWithGesture)
        return try await request("configure", on(controller, fields))
    }

    /// Makes a root a window's root view controller, or not (R15.4).
    @discardableResult
    public func setWindow(_ window: Bool, controller: String) async throws -> JSONObject {
        try await request("set_window", on(controller, [("window", .bool(window))]))
    }

    // MARK: navigation (R15.13)

    /// Pushes `screen` on a navigation controller's stack (`push` without `tab`).
    @discardableResult
    public func push(_ screen: ChildObject, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("push", on(controller, [("screen", screen.requestValue)] + Self.animated(animated)))
    }

    /// Pops a navigation controller's top; `user`: the back button or the edge swipe, a
    /// user's action that policy plugins and reach may refuse (R15.9).
    @discardableResult
    public func pop(user: Bool? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = user.map { [("user", .bool($0))] } ?? []
        fields += Self.animated(animated)
        return try await request("pop", on(controller, fields))
    }

    /// Pops a navigation controller down to the child `screen` of its stack.
    @discardableResult
    public func popTo(_ screen: String, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("pop_to", on(controller, [("screen", .string(screen))] + Self.animated(animated)))
    }

    /// Pops a navigation controller down to its root (`pop_to_root` without `tab`).
    @discardableResult
    public func popToRoot(animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("pop_to_root", on(controller, Self.animated(animated)))
    }

    /// Replaces a navigation controller's whole stack (bottom to top, at least one).
    @discardableResult
    public func setStack(_ stack: [ChildObject], animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("set_stack", on(controller, [("stack", ChildObject.requestValues(stack))] + Self.animated(animated)))
    }

    // MARK: drawer (R15.24–R15.29)

    /// Opens the drawer on `side`; a `gesture` makes it a user's action, refused unless the
    /// drawer's open gestures allow it (R15.26).
    @discardableResult
    public func openDrawer(_ side: DrawerSide, gesture: DrawerGesture? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("open_drawer", on(controller, [("side", .string(side.rawValue))] + Self.gesture(gesture) + Self.animated(animated)))
    }

    /// Closes the open drawer, if any.
    @discardableResult
    public func closeDrawer(gesture: DrawerGesture? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("close_drawer", on(controller, Self.gesture(gesture) + Self.animated(animated)))
    }

    /// Opens the drawer on `side`, or closes it when it is the one open.
    @discardableResult
    public func toggleDrawer(_ side: DrawerSide, gesture: DrawerGesture? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("toggle_drawer", on(controller, [("side", .string(side.rawValue))] + Self.gesture(gesture) + Self.animated(animated)))
    }

    /// Replaces the drawer's center (R15.27); `closeDrawer`: close the open drawer with it.
    @discardableResult
    public func setCenter(_ child: ChildObject, closeDrawer: Bool? = nil, controller: String) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("child", child.requestValue)]
        if let closeDrawer { fields.append(("close_drawer", .bool(closeDrawer))) }
        return try await request("set_center", on(controller, fields))
    }

    /// Puts `child` in the drawer on `side` (nil: removes that drawer, R15.28).
    @discardableResult
    public func setDrawer(_ side: DrawerSide, _ child: ChildObject?, controller: String) async throws -> JSONObject {
        try await request("set_drawer", on(controller, [("side", .string(side.rawValue)), ("child", child?.requestValue ?? .null)]))
    }

    // MARK: custom (R15.30–R15.31)

    /// Replaces a custom container's children; `shown` nil keeps those of the old `shown`
    /// that are still children.
    @discardableResult
    public func setChildren(_ children: [ChildObject], shown: [String]? = nil, controller: String) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("children", ChildObject.requestValues(children))]
        if let shown { fields.append(("shown", Self.strings(shown))) }
        return try await request("set_children", on(controller, fields))
    }

    /// The children a custom container shows (ids of its children).
    @discardableResult
    public func setShown(_ shown: [String], controller: String) async throws -> JSONObject {
        try await request("set_shown", on(controller, [("shown", Self.strings(shown))]))
    }

    /// Replaces the shown child `from` with `to` in one transition (R15.31).
    @discardableResult
    public func transition(from: String, to: ChildObject, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("transition", on(controller, [("from", .string(from)), ("to", to.requestValue)] + Self.animated(animated)))
    }
    // MARK: split (R15.15–R15.23)

    /// Puts `child` in a split's `column` (nil: empties the compact column, the only one
    /// that may be empty, R15.16).
    @discardableResult
    public func setColumn(_ column: SplitColumn, _ child: ChildObject?, controller: String) async throws -> JSONObject {
        try await request("set_column", on(controller, [("column", .string(column.rawValue)), ("child", child?.requestValue ?? .null)]))
    }

    /// Shows a split's `column` (R15.19; collapsed, pushes it, R15.20); `user`: a swipe or the
    /// display-mode button, refused while `presents_with_gesture` is false.
    @discardableResult
    public func showColumn(_ column: SplitColumn, user: Bool? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("show_column", on(controller, Self.column(column, user: user) + Self.animated(animated)))
    }

    /// Hides a split's `column` (R15.19; collapsed, pops it, R15.20).
    @discardableResult
    public func hideColumn(_ column: SplitColumn, user: Bool? = nil, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("hide_column", on(controller, Self.column(column, user: user) + Self.animated(animated)))
    }

    /// Makes `child` the split's secondary and shows it (showDetailViewController, R15.22).
    @discardableResult
    public func showDetail(_ child: ChildObject, animated: Bool? = nil, controller: String) async throws -> JSONObject {
        try await request("show_detail", on(controller, [("child", child.requestValue)] + Self.animated(animated)))
    }

    private static func column(_ column: SplitColumn, user: Bool?) -> [(String, JSONValue)] {
        [("column", .string(column.rawValue))] + (user.map { [("user", .bool($0))] } ?? [])
    }
}

// MARK: typed events

extension TabEvent {
    /// The event of a navigation, split, drawer or custom controller, typed as TabCore's
    /// `NodeEvent` (each case's payload what docs/protocol.md lists): `display_mode_will_change`,
    /// `split_collapsed`, `split_expanded`, `split_changed`, `drawer_changed`,
    /// `children_changed`, `config_changed`, `window_changed`, `parent_changed`,
    /// `status_bar_changed`, a `navigation_changed` without `tab`, an `appearance` or a
    /// `containment` with `child`. Nil for any other event, and for one whose data lacks
    /// what its case holds (a newer or older tabd).
    public var containerEvent: NodeEvent? { NodeEvent(event: name, data: data) }
}

extension NodeEvent {
    /// The typed form of an event's `data` (see `TabEvent.containerEvent`).
    public init?(event name: String, data d: JSONObject) {
        guard let kind = EventName(rawValue: name) else { return nil }
        switch kind {
        case .appearance:
            guard let child = d.text("child"), let phase = d.text("phase").flatMap(AppearancePhase.init) else { return nil }
            // A nested tab controller's leaf: its own event (`tab`), with R15's `child` beside it.
            if let tab = d.text("tab") { self = .tabAppearance(tab: tab, phase: phase); return }
            self = .appearance(child: child, controller: d.text("child_controller"), phase: phase)
        case .contentLoaded:
            guard let tab = d.text("tab") else { return nil }
            self = .contentLoaded(tab: tab)
        case .containment:
            guard let child = d.text("child"), let phase = d.text("phase").flatMap(ContainmentPhase.init), d["parent"] != nil else { return nil }
            self = .containment(child: child, controller: d.text("child_controller"), phase: phase, parent: d.text("parent"))
        case .navigationChanged:
            guard d["tab"] == nil, let stack = d.children("stack"), let operation = d.text("operation").flatMap(NavigationOperation.init),
                  let cause = d.text("cause").flatMap(NodeCause.init) else { return nil }
            self = .navigationChanged(stack: stack, operation: operation, cause: cause)
        case .drawerChanged:
            guard let center = d.text("center"), d["left"] != nil, d["right"] != nil,
                  let open = d.text("open_side").flatMap(OpenSide.init), let previous = d.text("previous").flatMap(OpenSide.init),
                  let cause = d.text("cause").flatMap(NodeCause.init) else { return nil }
            self = .drawerChanged(center: center, left: d.text("left"), right: d.text("right"), openSide: open, previous: previous, cause: cause)
        case .childrenChanged:
            guard let children = d.strings("children"), let shown = d.strings("shown") else { return nil }
            self = .childrenChanged(children: children, shown: shown)
        case .configChanged:
            guard let changes = d.object("changes").flatMap(NodeConfiguration.init(changes:)) else { return nil }
            self = .configChanged(changes)
        case .windowChanged:
            guard let window = d.flag("window") else { return nil }
            self = .windowChanged(window)
        case .parentChanged:
            guard let window = d.flag("window"), let parent = d.attachment("parent") else { return nil }
            self = .parentChanged(parent: parent, window: window)
        case .statusBarChanged:
            guard let path = d.strings("path") else { return nil }
            self = .statusBarChanged(path: path)
        case .displayModeWillChange:
            guard let m = d.text("display_mode").flatMap(SplitDisplayMode.init) else { return nil }
            self = .displayModeWillChange(m)
        case .splitCollapsed:
            guard let top = d.text("top_column").flatMap(SplitColumn.init) else { return nil }
            self = .splitCollapsed(topColumn: top)
        case .splitExpanded:
            guard let m = d.text("display_mode").flatMap(SplitDisplayMode.init) else { return nil }
            self = .splitExpanded(displayMode: m)
        case .splitChanged:
            guard let change = SplitChange(d), let cause = d.text("cause").flatMap(NodeCause.init) else { return nil }
            self = .splitChanged(change, cause: cause)
        default:
            return nil
        }
    }
}

extension SplitChange {
    /// `split_changed`'s members.
    init?(_ d: JSONObject) {
        guard let columns = d.object("columns"), let primary = columns.text("primary"), let secondary = columns.text("secondary"),
              let mode = d.text("display_mode").flatMap(SplitDisplayMode.init), let behavior = d.text("split_behavior").flatMap(SplitBehavior.init),
              let visibleNames = d.strings("visible_columns") else { return nil }
        let visible = visibleNames.compactMap(SplitColumn.init)
        let stack = d.strings("collapsed_stack")?.compactMap(SplitColumn.init)
        guard visible.count == visibleNames.count else { return nil }
        self.init(primary: primary, supplementary: columns.text("supplementary"), secondary: secondary, compact: columns.text("compact"),
                  displayMode: mode, splitBehavior: behavior, topColumn: d.text("top_column").flatMap(SplitColumn.init),
                  collapsedStack: stack, visibleColumns: visible)
    }
}

extension NodeConfiguration {
    /// `config_changed`'s `changes` (the members asked; a cleared status bar child as null).
    init?(changes o: JSONObject) {
        self.init()
        func gestures(_ key: String) -> [DrawerGesture]?? {
            guard o[key] != nil else { return .some(nil) }
            guard let names = o.strings(key) else { return nil }
            let list = names.compactMap(DrawerGesture.init)
            return list.count == names.count ? .some(list) : nil
        }
        guard let open = gestures("open_gestures"), let close = gestures("close_gestures") else { return nil }
        openGestures = open; closeGestures = close
        if let v = o["center_interaction"] {
            guard case .string(let s) = v, let i = CenterInteraction(rawValue: s) else { return nil }
            centerInteraction = i
        }
        switch o["status_bar_child"] {
        case nil: break
        case .null?: statusBarChild = .some(nil)
        case .string(let s)?: statusBarChild = .some(s)
        default: return nil
        }
        // A split's (R15.17, R15.19).
        if let v = o["preferred_display_mode"] {
            guard case .string(let s) = v, let m = SplitDisplayMode(rawValue: s) else { return nil }
            preferredDisplayMode = m
        }
        if let v = o["preferred_split_behavior"] {
            guard case .string(let s) = v, let b = SplitBehavior(rawValue: s) else { return nil }
            preferredSplitBehavior = b
        }
        if let v = o["presents_with_gesture"] {
            guard case .bool(let b) = v else { return nil }
            presentsWithGesture = b
        }
    }
}

extension JSONObject {
    /// `key`'s `{controller, child}` or null (`state`'s and `parent_changed`'s `parent`):
    /// `.some(nil)` for null, nil when absent or neither.
    func attachment(_ key: String) -> Attachment?? {
        switch self[key] {
        case .null?: return .some(nil)
        case .object(let o)?:
            guard let controller = o.text("controller"), let child = o.text("child") else { return nil }
            return .some(Attachment(parent: controller, slot: child))
        default: return nil
        }
    }

    /// An array of child objects (nil when absent or not all child objects).
    func children(_ key: String) -> [ChildObject]? {
        guard let a = array(key) else { return nil }
        let list = a.compactMap { try? ChildObject(json: $0, at: key) }
        return list.count == a.count ? list : nil
    }
}

// MARK: the picture of a container

/// A navigation, split, drawer or custom controller as `state` reports it, kept up to date from
/// its events (the counterpart of ControllerView for tab controllers). Not announced by events,
/// and so as the `state` of seq `readAt` reported them: the status bar path of a root that is
/// not a window's (`status_bar_changed` is a visible root's), and whether an attached custom
/// container that shows nothing is visible (no child of its appears or disappears).
public struct CompositeView: Equatable, Sendable {
    public var name: String
    public var kind: ContainerKind
    /// Where it is attached; nil: a root.
    public var parent: Attachment?
    public var window: Bool
    public var visible: Bool
    public var idiom: String
    /// The seq of the last event this picture includes.
    public var seq: Int
    // Navigation: the stack, bottom to top.
    public var stack: [ChildObject] = []
    // Drawer.
    public var center: ChildObject?
    public var left: ChildObject?
    public var right: ChildObject?
    public var openSide: OpenSide = .none
    public var openGestures: [DrawerGesture] = []
    public var closeGestures: [DrawerGesture] = []
    public var centerInteraction: CenterInteraction?
    // Custom.
    public var children: [ChildObject] = []
    public var shown: [String] = []
    // Split (R15.15–R15.23): its style, its columns (nil: empty or not the style's), its
    // preferences and the modes derived from them.
    public var style: SplitStyle?
    public var primary: ChildObject?
    public var supplementary: ChildObject?
    public var secondary: ChildObject?
    public var compact: ChildObject?
    public var displayMode: SplitDisplayMode?
    public var splitBehavior: SplitBehavior?
    public var preferredDisplayMode: SplitDisplayMode?
    public var preferredSplitBehavior: SplitBehavior?
    public var presentsWithGesture: Bool?
    /// Collapsed: the column on top and the stack up to it (R15.20); nil while expanded.
    public var topColumn: SplitColumn?
    public var collapsedStack: [SplitColumn]?
    /// The columns on screen (R15.18, R15.20).
    public var visibleColumns: [SplitColumn] = []
    /// The child that decides the status bar (R15.11): a stack's top, a drawer's open drawer
    /// or else its center, a custom container's configured one.
    public var statusBarChild: String?
    /// A root's status bar path (nil: attached).
    public var statusBarPath: [String]?
    /// The children visible now: those a visible container shows (from appearance events).
    public private(set) var visibleChildren: Set<String>
    /// The seq of the `state` that what events do not announce was read from.
    public var readAt: Int

    /// A `state` result of a navigation, drawer or custom controller.
    public init(state o: JSONObject, name: String) {
        self.name = o.text("controller") ?? name
        kind = o.text("kind").flatMap(ContainerKind.init) ?? .custom
        parent = o.attachment("parent") ?? nil
        window = o.flag("window") ?? false
        visible = o.flag("visible") ?? false
        idiom = o.text("idiom") ?? "phone"
        seq = o.integer("seq") ?? 0
        stack = o.children("stack") ?? []
        func child(_ key: String) -> ChildObject? { o[key].flatMap { try? ChildObject(json: $0, at: key) } }
        center = child("center"); left = child("left"); right = child("right")
        openSide = o.text("open_side").flatMap(OpenSide.init) ?? .none
        openGestures = (o.strings("open_gestures") ?? []).compactMap(DrawerGesture.init)
        closeGestures = (o.strings("close_gestures") ?? []).compactMap(DrawerGesture.init)
        centerInteraction = o.text("center_interaction").flatMap(CenterInteraction.init)
        children = o.children("children") ?? []
        shown = o.strings("shown") ?? []
        if kind == .split {
            style = o.text("style").flatMap(SplitStyle.init)
            let columns = o.object("columns")
            func column(_ key: String) -> ChildObject? { columns?[key].flatMap { try? ChildObject(json: $0, at: key) } }
            primary = column("primary"); supplementary = column("supplementary"); secondary = column("secondary"); compact = column("compact")
            displayMode = o.text("display_mode").flatMap(SplitDisplayMode.init)
            splitBehavior = o.text("split_behavior").flatMap(SplitBehavior.init)
            preferredDisplayMode = o.text("preferred_display_mode").flatMap(SplitDisplayMode.init)
            preferredSplitBehavior = o.text("preferred_split_behavior").flatMap(SplitBehavior.init)
            presentsWithGesture = o.flag("presents_with_gesture")
            topColumn = o.text("top_column").flatMap(SplitColumn.init)
            collapsedStack = o.strings("collapsed_stack")?.compactMap(SplitColumn.init)
            visibleColumns = (o.strings("visible_columns") ?? []).compactMap(SplitColumn.init)
        }
        statusBarChild = o.text("status_bar_child")
        statusBarPath = o.strings("status_bar_path")
        visibleChildren = []
        readAt = seq
        if visible { visibleChildren = Set(shownChildren) }
    }

    /// The child in a split's `column`, if any.
    public func child(in column: SplitColumn) -> ChildObject? {
        switch column {
        case .primary: primary
        case .supplementary: supplementary
        case .secondary: secondary
        case .compact: compact
        }
    }

    /// The ids of the children it shows (R15.5): the top of the stack; a split's visible
    /// columns' (R15.18; collapsed, the top column's alone, R15.20); the center and the open
    /// drawer; a custom container's `shown`.
    public var shownChildren: [String] {
        switch kind {
        case .navigation: return stack.last.map { [$0.id] } ?? []
        case .split:
            if let top = topColumn { return child(in: top).map { [$0.id] } ?? [] }
            return visibleColumns.compactMap { child(in: $0)?.id }
        case .drawer: return [center?.id, openSide == .left ? left?.id : openSide == .right ? right?.id : nil].compactMap { $0 }
        default: return shown
        }
    }

    /// Applies one event of this container (with seq > self.seq); `.unsure` when it does not
    /// say enough: new child objects (`drawer_changed`, `children_changed` and `split_changed`
    /// name ids, and a kept id is the same child; a split's child entering with an id it
    /// holds is another child object), or a container that becomes a root (its status bar
    /// path goes on below it), or the root's environment changed (the picture does not hold
    /// it).
    public mutating func apply(event: String, seq: Int, data: JSONObject) -> ControllerView.Outcome {
        self.seq = seq
        guard let kind = TabEvent.Kind(rawValue: event) else { return .applied }
        if kind == .controllerDeleted { return .deleted }
        guard let e = NodeEvent(event: event, data: data) else { return kind == .plugin ? .applied : .unsure }
        switch e {
        case .appearance(let child, _, let phase):
            if phase == .didAppear { visibleChildren.insert(child) }
            if phase == .didDisappear { visibleChildren.remove(child) }
        case .containment(let child, _, _, let parent):
            // A split's child entering with an id a column holds: a new object with a kept id
            // (set_column or show_detail of another controller under the same id).
            if self.kind == .split, parent != nil, SplitColumn.allCases.contains(where: { self.child(in: $0)?.id == child }) { return .unsure }
        case .navigationChanged(let stack, _, _):
            self.stack = stack
        case .drawerChanged(let c, let l, let r, let open, let previous, _):
            // Only a drawer opening or closing keeps every object; another change may bring new ones.
            guard c == center?.id, l == left?.id, r == right?.id, open != previous else { return .unsure }
            openSide = open
        case .childrenChanged(let ids, let shown):
            guard ids == children.map(\.id) else { return .unsure }
            self.shown = shown
        case .configChanged(let c):
            if let g = c.openGestures { openGestures = g }
            if let g = c.closeGestures { closeGestures = g }
            if let i = c.centerInteraction { centerInteraction = i }
            if let s = c.statusBarChild { statusBarChild = s }
            if let m = c.preferredDisplayMode { preferredDisplayMode = m }
            if let b = c.preferredSplitBehavior { preferredSplitBehavior = b }
            if let g = c.presentsWithGesture { presentsWithGesture = g }
        case .windowChanged(let w):
            window = w
        case .parentChanged(let p, let w):
            parent = p; window = w
            guard p != nil else { return .unsure }
            statusBarPath = nil
        case .statusBarChanged(let path):
            statusBarPath = path
        case .tabAppearance, .contentLoaded, .tab:
            break  // a tab controller's events: not a composite's
        case .orientationChanged, .sizeClassChanged:
            return .unsure  // R15.10: the environment, which the picture does not hold
        case .displayModeWillChange, .splitCollapsed, .splitExpanded:
            break  // split_changed follows with the whole of it
        case .splitChanged(let change, _):
            // The columns' ids: the same ones keep their objects; others are new objects.
            guard change.primary == primary?.id, change.supplementary == supplementary?.id, change.secondary == secondary?.id,
                  change.compact == compact?.id else { return .unsure }
            displayMode = change.displayMode
            splitBehavior = change.splitBehavior
            topColumn = change.topColumn
            collapsedStack = change.collapsedStack
            visibleColumns = change.visibleColumns
        }
        follow()
        return .applied
    }

    /// What follows from the rest: the status bar child of a stack or a drawer, and whether
    /// the container is visible (a root: its window; attached: a child of it is, unless it
    /// shows none).
    private mutating func follow() {
        switch kind {
        case .navigation: statusBarChild = stack.last?.id
        case .drawer: statusBarChild = (openSide == .left ? left : openSide == .right ? right : nil)?.id ?? center?.id
        // R15.11 (tabd's decision): collapsed, the top column's child; else the secondary.
        case .split: statusBarChild = (topColumn.flatMap { child(in: $0) } ?? secondary)?.id
        default: break
        }
        if parent == nil {
            visible = window
        } else if !shownChildren.isEmpty {
            visible = !visibleChildren.isEmpty
        }
    }
}

extension TabClient {
    /// `state` of a navigation, split, drawer or custom controller, as the typed picture.
    public func compositeState(_ controller: String) async throws -> CompositeView {
        CompositeView(state: try await stateObject(controller), name: controller)
    }
}
