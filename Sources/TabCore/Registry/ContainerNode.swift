// A node of the registry (ARCHITECTURE.md, "One registry of containers"): one named container
// with its kind, where it is attached, whether it is a window's root, and the kind's own state.
// `TabContainers` keeps the nodes by name; the tree of containers follows from the parent
// links (as tmux's layout cells imply its tree), so a node is found by its name in one lookup
// wherever it sits.

/// What a container is (SEMANTICS R15.1), fixed for its life. The tab bar controller (R1–R14)
/// is the only kind so far; a kind brings its state, its commands and its field table (see
/// docs/architecture.md, "How to add a kind").
public enum ContainerKind: String, Sendable, CaseIterable, Equatable {
    /// The tab bar controller: `Controller`.
    case tab
    /// R15.13 (`Composite`, `NavigationState`).
    case navigation
    /// R15.15 (not yet built: `controller.create` refuses it).
    case split
    /// R15.24 (`DrawerState`).
    case drawer
    /// R15.30 (`CustomState`).
    case custom
}

/// Where a node is attached: its container and the slot it fills there (R15.2: a tab's
/// content, a stack's screen, a split's column, a drawer's side, a custom child).
public struct Attachment: Equatable, Sendable {
    /// The container's name.
    public let parent: String
    /// The slot in the container, in the container's own words (a tab id, a column name, …).
    public let slot: String

    public init(parent: String, slot: String) {
        self.parent = parent
        self.slot = slot
    }
}

/// One container: its kind, its place in the tree of containers, and the kind's own state.
public struct ContainerNode: Equatable, Sendable {
    public var name: String { tabBar.name }
    public var kind: ContainerKind { .tab }
    /// The container this node is attached to, or nil for a root (R15.4).
    public internal(set) var parent: Attachment?
    /// A root that is its window's root view controller (R15.4): visible, with what it shows.
    /// True for a tab controller from its creation (R1–R14 unchanged).
    public internal(set) var window: Bool
    /// The tab kind's state (R1–R14). Stored, not behind an enum's payload: a command
    /// changes it where it lies (a payload taken out and put back would retain and release
    /// each of the controller's arrays and strings per request).
    public internal(set) var tabBar: Controller
    /// Whether a tab of it has a controller as its content (R15.2, R15.14): kept beside the
    /// controller so that a tab controller holding none takes today's path (one flag read
    /// with `window`, `isInTree()`).
    public internal(set) var holdsContent = false

    /// The seq of the node's last event (R11.4): each node numbers its own events.
    public var seq: UInt64 { tabBar.seq }

    /// A root tab controller in a window, as every controller was before the registry.
    public init(_ tabBar: Controller) {
        self.tabBar = tabBar
        self.parent = nil
        self.window = true
    }

    /// Whether the node is a root (R15.4).
    public var isRoot: Bool { parent == nil }

    /// Whether a command of it is the tree's business: out of its window (R15.5), or holding
    /// a tab whose content is a controller (R15.2). Mutating only to be reached in place:
    /// `nodes.values[i].window` read the node out of the dictionary first, a copy that
    /// retained and released each of the controller's arrays and strings (~900 instructions
    /// a select, measured: BENCHMARKS.md).
    @inline(__always)
    mutating func isInTree() -> Bool { !window || holdsContent }

    /// Lends the node to `read` where it lies (mutating only to be reached in place, as
    /// `isOutOfWindow()`): the tree's walks read a tab controller's place and selected leaf
    /// without copying it.
    @inline(__always)
    mutating func lend<R>(_ read: (ContainerNode) -> R) -> R { read(self) }

    /// Numbers the next event (in place through the registry's index).
    @inline(__always)
    mutating func nextSeq() -> UInt64 {
        tabBar.seq &+= 1
        return tabBar.seq
    }

    /// What makes this node impossible (a state no sequence of commands produces), or nil.
    var inconsistency: String? {
        if parent != nil && window { return "controller '\(name)' is attached to '\(parent!.parent)' and a window's root at once" }
        if holdsContent != tabBar.hasContent { return "controller '\(name)' is marked as \(holdsContent ? "" : "not ")holding a content controller, and its tabs say otherwise" }
        return tabBar.inconsistency
    }
}
