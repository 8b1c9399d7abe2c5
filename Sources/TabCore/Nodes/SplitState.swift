// The split view controller of SEMANTICS R15.15–R15.23 (UISplitViewController, column
// style): its columns, its preferred and derived modes, and whether it is collapsed. The
// derivations here are pure functions of the state and the root's environment; Split.swift
// applies them to the registry and sends their events.

/// A split's style, fixed at creation (R15.15).
public enum SplitStyle: String, Sendable, Equatable, CaseIterable {
    case double, triple
}

/// A split's column (R15.15), in slot order.
public enum SplitColumn: String, Sendable, Equatable, CaseIterable, Comparable {
    case primary, supplementary, secondary, compact

    public static func < (a: SplitColumn, b: SplitColumn) -> Bool { a.order < b.order }
    private var order: Int {
        switch self {
        case .primary: 0
        case .supplementary: 1
        case .secondary: 2
        case .compact: 3
        }
    }
}

/// A split's display mode (R15.17): `automatic` is a preference only, never derived.
public enum SplitDisplayMode: String, Sendable, Equatable, CaseIterable {
    case automatic
    case secondaryOnly = "secondary_only"
    case oneBeside = "one_beside", oneOver = "one_over"
    case twoBeside = "two_beside", twoOver = "two_over", twoDisplace = "two_displace"

    /// How many columns beside the secondary it shows: 0, 1 or 2 (nil for `automatic`).
    public var besides: Int? {
        switch self {
        case .automatic: nil
        case .secondaryOnly: 0
        case .oneBeside, .oneOver: 1
        case .twoBeside, .twoOver, .twoDisplace: 2
        }
    }

    /// R15.17: the variant of a mode showing `besides` columns that `behavior` allows.
    public static func variant(besides: Int, under behavior: SplitBehavior) -> SplitDisplayMode {
        switch (besides, behavior) {
        case (0, _): .secondaryOnly
        case (1, .overlay): .oneOver
        case (1, _): .oneBeside
        case (_, .tile): .twoBeside
        case (_, .overlay): .twoOver
        default: .twoDisplace
        }
    }

    /// Whether `behavior` allows this mode [S4 "Allowed displayModes depend on the splitBehavior"].
    public func isAllowed(under behavior: SplitBehavior, style: SplitStyle) -> Bool {
        guard let n = besides else { return false }
        if n == 2 && style == .double { return false }
        return Self.variant(besides: n, under: behavior) == self
    }
}

/// A split's behavior (R15.17): `automatic` is a preference only.
public enum SplitBehavior: String, Sendable, Equatable, CaseIterable {
    case automatic, tile, overlay, displace
}

/// What `split_changed` tells (R15.16–R15.22): the columns' ids and the modes.
public struct SplitChange: Equatable, Sendable {
    /// The id in each column, nil for an empty one.
    public var primary: String, supplementary: String?, secondary: String, compact: String?
    public var displayMode: SplitDisplayMode
    public var splitBehavior: SplitBehavior
    /// Collapsed: the column on top and the stack up to it; nil while expanded.
    public var topColumn: SplitColumn?
    public var collapsedStack: [SplitColumn]?
    public var visibleColumns: [SplitColumn]

    public init(primary: String, supplementary: String?, secondary: String, compact: String?, displayMode: SplitDisplayMode,
                splitBehavior: SplitBehavior, topColumn: SplitColumn?, collapsedStack: [SplitColumn]?, visibleColumns: [SplitColumn]) {
        self.primary = primary; self.supplementary = supplementary; self.secondary = secondary; self.compact = compact
        self.displayMode = displayMode; self.splitBehavior = splitBehavior
        self.topColumn = topColumn; self.collapsedStack = collapsedStack; self.visibleColumns = visibleColumns
    }

    public init(_ s: SplitState) {
        self.init(primary: s.primary.id, supplementary: s.supplementary?.id, secondary: s.secondary.id, compact: s.compact?.id,
                  displayMode: s.displayMode, splitBehavior: s.splitBehavior, topColumn: s.topColumn, collapsedStack: s.collapsedStack,
                  visibleColumns: s.visibleColumns)
    }

    public var collapsed: Bool { topColumn != nil }

    /// The id in `column`.
    public func id(in column: SplitColumn) -> String? {
        switch column {
        case .primary: primary
        case .supplementary: supplementary
        case .secondary: secondary
        case .compact: compact
        }
    }
}

/// A split view controller's state (R15.15–R15.23).
public struct SplitState: Equatable, Sendable {
    public let style: SplitStyle
    public internal(set) var primary: ChildObject
    /// Triple only (required there).
    public internal(set) var supplementary: ChildObject?
    public internal(set) var secondary: ChildObject
    /// Optional: shown alone while collapsed (R15.20).
    public internal(set) var compact: ChildObject?
    public internal(set) var preferredDisplayMode: SplitDisplayMode = .automatic
    public internal(set) var preferredSplitBehavior: SplitBehavior = .automatic
    public internal(set) var presentsWithGesture = true
    /// Derived (R15.17), never `automatic`; kept unchanged while collapsed (R15.20).
    public internal(set) var displayMode: SplitDisplayMode = .oneBeside
    public internal(set) var splitBehavior: SplitBehavior = .tile
    /// Collapsed: the column on top (R15.20); nil while expanded.
    public internal(set) var topColumn: SplitColumn?

    public init(style: SplitStyle, primary: ChildObject, supplementary: ChildObject? = nil, secondary: ChildObject, compact: ChildObject? = nil) {
        self.style = style; self.primary = primary; self.supplementary = supplementary; self.secondary = secondary; self.compact = compact
    }

    public var collapsed: Bool { topColumn != nil }

    /// The child in `column`, if any.
    public func child(in column: SplitColumn) -> ChildObject? {
        switch column {
        case .primary: primary
        case .supplementary: supplementary
        case .secondary: secondary
        case .compact: compact
        }
    }

    /// `child(in:)`'s controller, read in place (`.some(nil)`: a screen; nil: no child there).
    func controller(in column: SplitColumn) -> String?? {
        switch column {
        case .primary: .some(primary.controller)
        case .supplementary: supplementary.map { $0.controller }
        case .secondary: .some(secondary.controller)
        case .compact: compact.map { $0.controller }
        }
    }

    mutating func set(_ column: SplitColumn, _ child: ChildObject?) {
        switch column {
        case .primary: primary = child!
        case .supplementary: supplementary = child
        case .secondary: secondary = child!
        case .compact: compact = child
        }
    }

    /// The columns the style has, compact aside: primary, (supplementary,) secondary.
    public var stackColumns: [SplitColumn] { style == .triple ? [.primary, .supplementary, .secondary] : [.primary, .secondary] }

    /// Every filled column, in slot order.
    public var columns: [(SplitColumn, ChildObject)] {
        SplitColumn.allCases.compactMap { c in child(in: c).map { (c, $0) } }
    }

    /// Collapsed: the columns stacked from primary up to the top one (R15.20); a compact
    /// child is alone. Nil while expanded.
    public var collapsedStack: [SplitColumn]? {
        guard let top = topColumn else { return nil }
        if top == .compact { return [.compact] }
        return stackColumns.filter { $0 <= top }
    }

    /// The columns on screen (R15.18): collapsed, the top one; expanded, by display mode.
    public var visibleColumns: [SplitColumn] {
        if let top = topColumn { return [top] }
        switch displayMode.besides ?? 1 {
        case 0: return [.secondary]
        case 1: return [style == .triple ? .supplementary : .primary, .secondary]
        default: return stackColumns
        }
    }

    /// R15.9: the secondary is dimmed (out of reach) in these modes.
    public var dimsSecondary: Bool {
        topColumn == nil && (displayMode == .twoOver || displayMode == .twoDisplace || displayMode == .oneOver)
    }

    /// R15.19: a column shown in full (show is then ignored).
    func isFullyVisible(_ column: SplitColumn) -> Bool {
        guard visibleColumns.contains(column) else { return false }
        if column == .secondary { return displayMode == .secondaryOnly || displayMode == .oneBeside || displayMode == .twoBeside }
        return true
    }

    // MARK: R15.17's derivations

    /// The behavior `preferred` gives in `orientation`: `automatic` tiles in landscape and
    /// overlays in portrait (decision: UIKit's width buckets are undocumented).
    public static func behavior(preferred: SplitBehavior, orientation: Orientation) -> SplitBehavior {
        guard preferred == .automatic else { return preferred }
        return orientation == .landscapeLeft || orientation == .landscapeRight ? .tile : .overlay
    }

    /// The mode `preferred` gives under `behavior`.
    public static func displayMode(preferred: SplitDisplayMode, behavior: SplitBehavior) -> SplitDisplayMode {
        guard let n = preferred.besides else { return behavior == .overlay ? .secondaryOnly : .oneBeside }
        return SplitDisplayMode.variant(besides: n, under: behavior)
    }

    /// The derived behavior and mode from the preferences and `orientation`.
    func derived(orientation: Orientation) -> (SplitBehavior, SplitDisplayMode) {
        let b = Self.behavior(preferred: preferredSplitBehavior, orientation: orientation)
        return (b, Self.displayMode(preferred: preferredDisplayMode, behavior: b))
    }
}
