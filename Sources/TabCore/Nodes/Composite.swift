// The containers of SEMANTICS R15 other than the tab bar controller: navigation (R15.13),
// drawer (R15.24) and custom (R15.30) controllers. Each holds child objects in slots (a
// stack, a drawer's center and sides, a custom list); a child object is a screen or another
// controller (R15.2), so containers nest. A `Composite` is one such container: its kind's
// state, its place in the tree and its own `seq`; the registry (`TabContainers`) keeps them by
// name beside the tab bar controllers, and works out what is visible, and the events a change
// sends, over the whole tree (NodeTree.swift).

/// A child object (R15.2): a screen, or, with `controller`, the controller of that name.
public struct ChildObject: Equatable, Sendable {
    /// Unique in its container (`conflict` otherwise).
    public var id: String
    public var title: String?
    public var restorationID: String?
    /// The controller this child is (its content), or nil for a screen.
    public var controller: String?

    public init(id: String, title: String? = nil, restorationID: String? = nil, controller: String? = nil) {
        self.id = id; self.title = title; self.restorationID = restorationID; self.controller = controller
    }

    /// The same child for containment (R15.2: a kept id whose `controller` changes is removed,
    /// then added).
    func isSameChild(as other: ChildObject) -> Bool { id == other.id && controller == other.controller }

    /// What `isSameChild` compares, for sets of children.
    var identity: Identity { Identity(id: id, controller: controller) }
    struct Identity: Hashable { let id: String, controller: String? }

    /// The children of `list` that are not in `other` (by `isSameChild`), in `list`'s order.
    static func children(_ list: [ChildObject], notIn other: [ChildObject]) -> [ChildObject] {
        if other.isEmpty { return list }
        // A few compared in place (hashing an id and a controller cost more than the scan).
        if list.count * other.count <= 64 { return list.filter { c in !other.contains { $0.isSameChild(as: c) } } }
        let known = Set(other.map(\.identity))
        return list.filter { !known.contains($0.identity) }
    }
}

/// A drawer's side (R15.24).
public enum DrawerSide: String, Sendable, Equatable, CaseIterable {
    case left, right
}

/// Which drawer is open (R15.24): one at most.
public enum OpenSide: String, Sendable, Equatable, CaseIterable {
    case none, left, right

    init(_ side: DrawerSide) { self = side == .left ? .left : .right }

    /// The side that is open, or nil.
    var side: DrawerSide? { self == .none ? nil : self == .left ? .left : .right }
}

/// The gestures of a drawer (R15.26, MMDrawerController's open and close modes).
public enum DrawerGesture: String, Sendable, Equatable, CaseIterable {
    case panNavigationBar = "pan_navigation_bar", panCenter = "pan_center", bezelPanCenter = "bezel_pan_center", custom
    case tapNavigationBar = "tap_navigation_bar", tapCenter = "tap_center", panDrawer = "pan_drawer"
    /// MMDrawerBarButtonItem: opens or closes, whatever the masks say.
    case button

    /// Whether the gesture can open a drawer (the rest only close one).
    public var opens: Bool {
        switch self {
        case .panNavigationBar, .panCenter, .bezelPanCenter, .custom, .button: return true
        case .tapNavigationBar, .tapCenter, .panDrawer: return false
        }
    }

    /// Whether the gesture is made on the center's navigation bar (needs a navigation controller as the center).
    var onNavigationBar: Bool { self == .panNavigationBar || self == .tapNavigationBar }
}

/// What a user may do below a drawer's center while a drawer is open (R15.29, R15.9).
public enum CenterInteraction: String, Sendable, Equatable, CaseIterable {
    case navigationBarOnly = "navigation_bar_only", full, none
}

/// A navigation controller's state (R15.13): its stack, bottom (the root) to top (shown).
public struct NavigationState: Equatable, Sendable {
    public internal(set) var stack: [ChildObject]
    public init(stack: [ChildObject]) { self.stack = stack }
}

/// A drawer controller's state (R15.24–R15.29).
/// What changes seldom (the children, the gestures) lies in one immutable box, replaced when
/// one of them is set; the open side and `center_interaction` lie beside it. A copy (a read of
/// the drawer, a move, the undo log's) retains one object, and opening or closing the drawer
/// changes one byte where the drawer lies (issue 42: a drawer's move costs no more than a select).
public struct DrawerState: Equatable, Sendable {
    private final class Slots: Sendable {
        let center: ChildObject
        let left: ChildObject?, right: ChildObject?
        let openGestures: [DrawerGesture], closeGestures: [DrawerGesture]
        /// For each side: nil, no drawer; true, a screen; false, a controller (known here: a
        /// read of `left` or `right` copies the child, its four strings).
        let leftIsScreen: Bool?, rightIsScreen: Bool?

        init(center: ChildObject, left: ChildObject?, right: ChildObject?, openGestures: [DrawerGesture], closeGestures: [DrawerGesture]) {
            self.center = center; self.left = left; self.right = right
            self.openGestures = openGestures; self.closeGestures = closeGestures
            leftIsScreen = left.map { $0.controller == nil }
            rightIsScreen = right.map { $0.controller == nil }
        }
    }

    private var slots: Slots
    public internal(set) var openSide: OpenSide = .none
    public internal(set) var centerInteraction: CenterInteraction = .navigationBarOnly

    public internal(set) var center: ChildObject {
        get { slots.center }
        set { slots = Slots(center: newValue, left: slots.left, right: slots.right, openGestures: slots.openGestures, closeGestures: slots.closeGestures) }
    }
    public internal(set) var left: ChildObject? {
        get { slots.left }
        set { slots = Slots(center: slots.center, left: newValue, right: slots.right, openGestures: slots.openGestures, closeGestures: slots.closeGestures) }
    }
    public internal(set) var right: ChildObject? {
        get { slots.right }
        set { slots = Slots(center: slots.center, left: slots.left, right: newValue, openGestures: slots.openGestures, closeGestures: slots.closeGestures) }
    }
    public internal(set) var openGestures: [DrawerGesture] {
        get { slots.openGestures }
        set { slots = Slots(center: slots.center, left: slots.left, right: slots.right, openGestures: newValue, closeGestures: slots.closeGestures) }
    }
    public internal(set) var closeGestures: [DrawerGesture] {
        get { slots.closeGestures }
        set { slots = Slots(center: slots.center, left: slots.left, right: slots.right, openGestures: slots.openGestures, closeGestures: newValue) }
    }

    public init(center: ChildObject, left: ChildObject? = nil, right: ChildObject? = nil) {
        slots = Slots(center: center, left: left, right: right, openGestures: [], closeGestures: [])
    }

    public static func == (a: DrawerState, b: DrawerState) -> Bool {
        a.openSide == b.openSide && a.centerInteraction == b.centerInteraction
            && (a.slots === b.slots || (a.center == b.center && a.left == b.left && a.right == b.right
                                         && a.openGestures == b.openGestures && a.closeGestures == b.closeGestures))
    }

    public func drawer(_ side: DrawerSide) -> ChildObject? { side == .left ? left : right }

    /// Whether the drawer on `side` is a screen (true) or a controller (false); nil when there
    /// is none. Read without copying the child.
    func isScreen(_ side: DrawerSide) -> Bool? { side == .left ? slots.leftIsScreen : slots.rightIsScreen }

    /// The open drawer's child, if one is open.
    public var openDrawer: ChildObject? {
        switch openSide {
        case .none: return nil
        case .left: return left
        case .right: return right
        }
    }
}

/// A custom container's state (R15.30): its children, the subset it shows, and the child that
/// decides the status bar.
public struct CustomState: Equatable, Sendable {
    public internal(set) var children: [ChildObject]
    /// Ids of shown children, in `children`'s order.
    public internal(set) var shown: [String]
    public internal(set) var statusBarChild: String?

    public init(children: [ChildObject], shown: [String] = [], statusBarChild: String? = nil) {
        self.children = children; self.shown = shown; self.statusBarChild = statusBarChild
    }
}

/// The kind-specific state of a composite container.
/// Indirect: each case's state in a box of its own, so that a copy (the registry's lookups, the
/// visible-set walks, undo) retains one object instead of each child's strings.
/// A drawer's state is not boxed: its own box holds what a copy would retain (`DrawerState`),
/// and a move changes its open side in place.
public enum CompositeBody: Equatable, Sendable {
    indirect case navigation(NavigationState)
    case drawer(DrawerState)
    indirect case custom(CustomState)
    indirect case split(SplitState)

    public var kind: ContainerKind {
        switch self {
        case .navigation: return .navigation
        case .drawer: return .drawer
        case .custom: return .custom
        case .split: return .split
        }
    }

    /// Every child object, in slot order (R15: stack bottom→top; center, left, right; custom
    /// `children`).
    public var children: [ChildObject] {
        switch self {
        case .navigation(let n): return n.stack
        case .drawer(let d): return [d.center] + [d.left, d.right].compactMap { $0 }
        case .custom(let c): return c.children
        case .split(let s): return s.columns.map(\.1)
        }
    }

    /// The children the container shows (R15.5), in slot order: the top of a stack; a
    /// drawer's center and its open drawer; a custom container's `shown`.
    public var shownChildren: [ChildObject] {
        switch self {
        case .navigation(let n): return n.stack.last.map { [$0] } ?? []
        case .drawer(let d): return [d.center] + (d.openDrawer.map { [$0] } ?? [])
        case .custom(let c):
            // A set: a custom container may show up to limits.max_tabs children (a scan of
            // `shown` per child was quadratic, and ran for every command in its tree).
            if c.shown.count <= 8 { return c.children.filter { c.shown.contains($0.id) } }
            let shown = Set(c.shown)
            return c.children.filter { shown.contains($0.id) }
        case .split(let s): return s.visibleColumns.compactMap { s.child(in: $0) }
        }
    }

    /// The `k`th child `shownChildren` lists, read without building the list (the tree's walks
    /// run for every command: a list a container was an allocation each); nil past the last,
    /// and where `readsShownInPlace` is false.
    func shownChild(_ k: Int) -> ChildObject? {
        switch self {
        case .navigation(let n): return k == 0 ? n.stack.last : nil
        case .drawer(let d): return k == 0 ? d.center : k == 1 ? d.openDrawer : nil
        case .custom: return nil
        case .split(let s):
            guard let top = s.topColumn else { return nil }
            return k == 0 ? s.child(in: top) : nil  // collapsed: its top column
        }
    }

    /// The controllers of the children `shownChild(_:)` reads (at most two), with how many
    /// there are; nil where `readsShownInPlace` is false. One read of the body: the child
    /// objects are not copied (four strings each, retained and released).
    func shownControllers() -> (count: Int, first: String?, second: String?)? {
        switch self {
        case .navigation(let n):
            guard let top = n.stack.last else { return (0, nil, nil) }
            return (1, top.controller, nil)
        case .drawer(let d):
            guard let open = d.openDrawer else { return (1, d.center.controller, nil) }
            return (2, d.center.controller, open.controller)
        case .custom: return nil
        case .split(let s):
            guard let top = s.topColumn else { return nil }
            guard let x = s.controller(in: top) else { return (0, nil, nil) }
            return (1, x, nil)
        }
    }

    /// Whether `shownChild(_:)` reads what the container shows: all but a custom container
    /// (its `shown` is a set's work) and an expanded split (its columns are a list already).
    var readsShownInPlace: Bool {
        switch self {
        case .navigation, .drawer: return true
        case .custom: return false
        case .split(let s): return s.topColumn != nil
        }
    }

    /// Whether the container shows its child `id` (R15.5), without listing what it shows.
    public func shows(_ id: String) -> Bool {
        switch self {
        case .navigation(let n): return n.stack.last?.id == id
        case .drawer(let d): return d.center.id == id || d.openDrawer?.id == id
        case .custom(let c): return c.shown.contains(id)
        case .split(let s): return s.visibleColumns.contains { s.child(in: $0)?.id == id }
        }
    }

    /// The child that decides the status bar (R15.11), or nil.
    public var statusBarChild: ChildObject? {
        switch self {
        case .navigation(let n): return n.stack.last
        case .drawer(let d): return d.openDrawer ?? d.center
        case .custom(let c): return c.statusBarChild.flatMap { id in c.children.first { $0.id == id } }
        // R15.11 (decision): the top column's child when collapsed, else the secondary's.
        case .split(let s): return s.topColumn.flatMap { s.child(in: $0) } ?? s.secondary
        }
    }

    /// The slot a child with this id fills, in the container's words (for `parent`: its id).
    func child(_ id: String) -> ChildObject? { children.first { $0.id == id } }
}

/// One container of a kind other than `tab`: its name, kind state, place in the tree and seq.
public struct Composite: Equatable, Sendable {
    public let name: String
    public internal(set) var body: CompositeBody
    /// The container this one is attached to, or nil for a root (R15.4).
    public internal(set) var parent: Attachment?
    /// A root that is a window's root view controller (R15.4): default false for these kinds.
    public internal(set) var window: Bool
    /// Fixed at creation (R15.3: a controller of another idiom cannot be attached).
    public let idiom: Idiom
    /// The seq of the last event this container sent (R11.4).
    public internal(set) var seq: UInt64 = 0
    /// R15.10: a root's environment (R14.4's size class, R9.3's orientation); an attached
    /// container has its root's (these are kept as they were, R15.41).
    public internal(set) var sizeClass: SizeClass
    public internal(set) var orientation: Orientation = .portrait

    /// R15.10: what a non-tab root supports: all but upside-down on phone, all on pad and tv.
    public var supportedOrientations: OrientationMask { idiom == .phone ? [.portrait, .landscapeLeft, .landscapeRight] : .all }

    public var kind: ContainerKind { body.kind }
    public var isRoot: Bool { parent == nil }

    /// Lends the container to `read` where it lies (mutating only to be reached in place
    /// through the registry's index: a read by key copies it).
    @inline(__always)
    mutating func lend<R>(_ read: (Composite) -> R) -> R { read(self) }

    /// Numbers the next event (mutating: used in place through the registry's index).
    mutating func nextSeq() -> UInt64 {
        seq &+= 1
        return seq
    }

    public init(name: String, body: CompositeBody, window: Bool = false, idiom: Idiom = .phone) {
        self.name = name; self.body = body; self.window = window; self.idiom = idiom
        self.sizeClass = idiom.defaultSizeClass
    }

    /// What makes this container impossible, or nil.
    var inconsistency: String? {
        if parent != nil && window { return "controller '\(name)' is attached to '\(parent!.parent)' and a window's root at once" }
        var seen = Set<String>()
        for c in body.children where !seen.insert(c.id).inserted { return "controller '\(name)' holds two children with the id '\(c.id)'" }
        switch body {
        case .navigation(let n): if n.stack.isEmpty { return "navigation controller '\(name)' has an empty stack" }
        case .drawer(let d): if d.openSide != .none && d.openDrawer == nil { return "drawer '\(name)' has its \(d.openSide.rawValue) side open with no drawer there" }
        case .custom(let c):
            for s in c.shown where c.children.first(where: { $0.id == s }) == nil { return "custom controller '\(name)' shows '\(s)', which is not its child" }
        case .split(let s):
            if (s.style == .triple) != (s.supplementary != nil) { return "split '\(name)' is \(s.style.rawValue) and \(s.supplementary == nil ? "has no" : "has a") supplementary column" }
            if s.displayMode == .automatic || s.splitBehavior == .automatic { return "split '\(name)' has an automatic display mode or behavior, which is a preference only" }
            if s.displayMode.besides == 2 && s.style == .double { return "split '\(name)' is double and shows two columns beside its secondary" }
            if let top = s.topColumn, s.child(in: top) == nil || (top == .compact) != (s.compact != nil) { return "split '\(name)' is collapsed onto its \(top.rawValue) column, which it cannot be" }
        }
        return nil
    }
}
