// Values that describe a tab container: idioms, orientations, tabs and their items.
// Everything here is a plain value, Equatable for tests; how a tab is read and written in
// each of its forms (the wire, the journal, the snapshot) is `Tab.fields`, below.

import TabJSON

/// The kind of device a controller behaves like (seeds: phone, pad, tv).
public enum Idiom: String, Sendable, CaseIterable {
    case phone, pad, tv

    /// R14.4: phone is always compact; tv always regular; a pad starts regular.
    public var defaultSizeClass: SizeClass { self == .phone ? .compact : .regular }

    /// The seeds' default number of items a bar shows before it needs More.
    public var defaultMaxVisible: Int {
        switch self {
        case .phone: return 5
        case .pad: return 8
        case .tv: return 7
        }
    }
}

/// One interface orientation. Raw values are the wire names.
public enum Orientation: String, Sendable, CaseIterable {
    case portrait
    case portraitUpsideDown = "portrait_upside_down"
    case landscapeLeft = "landscape_left"
    case landscapeRight = "landscape_right"

    /// The orientation's bit in an `OrientationMask` (the same bits as the C ABI's TABD_ORIENTATION_*).
    public var mask: OrientationMask {
        switch self {
        case .portrait: return .portrait
        case .landscapeLeft: return .landscapeLeft
        case .landscapeRight: return .landscapeRight
        case .portraitUpsideDown: return .portraitUpsideDown
        }
    }
}

/// A set of orientations. Bits match `tabd_orientation_mask` in policy.h.
public struct OrientationMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let portrait = OrientationMask(rawValue: 1 << 0)
    public static let landscapeLeft = OrientationMask(rawValue: 1 << 1)
    public static let landscapeRight = OrientationMask(rawValue: 1 << 2)
    public static let portraitUpsideDown = OrientationMask(rawValue: 1 << 3)
    public static let all: OrientationMask = [.portrait, .landscapeLeft, .landscapeRight, .portraitUpsideDown]
    public static let landscape: OrientationMask = [.landscapeLeft, .landscapeRight]

    public init(_ orientations: [Orientation]) {
        self = orientations.reduce(into: OrientationMask()) { $0.insert($1.mask) }
    }

    /// The orientations in the mask, in the fixed order of `Orientation.allCases`.
    public var orientations: [Orientation] { Orientation.allCases.filter { contains($0.mask) } }
}

/// A tab's bar item (seeds: UITabBarItem): what the bar shows for it.
public struct TabItem: Equatable, Sendable {
    public var title: String?
    public var image: String?
    public var tag: Int?
    public var badge: String?
    public init(title: String? = nil, image: String? = nil, tag: Int? = nil, badge: String? = nil) {
        self.title = title; self.image = image; self.tag = tag; self.badge = badge
    }
}

/// A screen pushed onto a tab's navigation stack (R6).
public struct Screen: Equatable, Sendable {
    public var id: String
    public var title: String?
    public init(id: String, title: String? = nil) { self.id = id; self.title = title }
}

/// One child of a controller: a tab with a stable id (R1).
public struct Tab: Equatable, Sendable {
    public var id: String
    /// Where `id` lies in a `Tab` (for writing a list's ids where they are:
    /// `JSONWriter.stringArray(_:stringAt:)`).
    public static let idOffset = MemoryLayout<Tab>.offset(of: \Tab.id)!
    public var title: String?
    /// The item as the client gave it; nil means the default item (R1.3).
    public var item: TabItem?
    public var restorationID: String?
    /// Declared orientations; nil means portrait only (R9.1).
    public var orientations: OrientationMask?
    public var fullScreenLayout: Bool
    /// Whether the tab is a navigation stack (R6.1).
    public var navigation: Bool
    /// Screens pushed above the root, bottom first (R6).
    public var stack: [Screen]
    /// Whether the tab's content has been loaded (R5.2): on its first selection.
    public var contentLoaded: Bool

    // R13: the modern tab model. A tab that sets none of these is a tab of R1–R12.

    /// A group's children (R13.1), in the order the client gave them; nil for a plain tab.
    public var children: [Tab]?
    /// The child a group selects until one was selected (R13.1); nil: the first child.
    public var defaultChild: String?
    /// Whether the user may reorder the group's children (R13.5).
    public var allowsReordering: Bool
    /// Whether the tab is hidden (R13.3): in neither the bar nor the sidebar, not selectable.
    public var hidden: Bool
    /// Whether `set_hidden` may hide or show the tab (R13.3).
    public var allowsHiding: Bool
    /// The initial value of `hidden` (R13.3).
    public var hiddenByDefault: Bool
    /// Where the tab goes in the bar (R13.4).
    public var placement: Placement
    /// A second line of text for the sidebar.
    public var subtitle: String?
    /// A group's selected child (R13.1), remembered while another tab is selected; nil until
    /// one was selected.
    public var selectedChild: String?
    /// A group's children in the user's order (R13.5); nil: the children's order.
    public var displayOrder: [String]?
    // R14 and R13.12.

    /// `search` for the search tab (R14.1, UISearchTab); nil for every other tab.
    public var role: TabRole?
    /// Selecting the search tab makes search active (R14.1).
    public var activatesSearch = false
    /// A disabled tab stays in the bar and sidebar but cannot be tapped (R14.2).
    public var enabled = true
    /// A group in the sidebar is collapsed (`false`) or expanded (nil: the default, true)
    /// (R13.12). In a description, nil also means "not said": a kept group keeps its value.
    public var expanded: Bool?
    /// R15.2: the controller that is the tab's content (not with `navigation` or `children`).
    public var controller: String?

    /// Whether the group is expanded in the sidebar (R13.12).
    public var isExpanded: Bool { expanded ?? true }

    /// Input only (never state): the description left out `hidden`, so that a tab kept by the
    /// identity rule keeps its value and a new one starts at `hidden_by_default` (R13.8,
    /// R13.9). The controller clears it when it installs the tab.
    public var keepsHidden = false

    /// Every field of a tab, in the order the wire and the journal write them: its names (the
    /// wire's and the journal's; the snapshot's), its default, where each form writes it
    /// (`TabField.field`'s parameters say). Adding an optional field is its property (above)
    /// and its row here: the wire's decoder and `state`, `update_tab`, the journal, the
    /// snapshot and TabClient's mirror follow (docs/architecture.md, "How to add a field").
    public static let fields: [TabField] = [
        .field("id", "id", \.id, \.id, default: "", journal: .always, snapshot: .always),
        .field("title", "title", \.title, \.title, default: nil, journal: .always),  // R1.3: null, never the id
        .field("item", "item", \.item, \.item, default: nil, journal: .always,
               state: { t, _, w in t.effectiveItem.write(to: &w, .state) }),
        .shown("badge") { t, _, w in t.badge.write(to: &w, .state) },
        .field("restoration_id", "restorationID", \.restorationID, \.restorationID, default: nil, journal: .always),
        .field("orientations", "orientations", \.orientations, \.orientations, default: nil, journal: .always,
               state: { t, _, w in t.supportedOrientations.write(to: &w, .state) }),
        .field("full_screen_layout", "fullScreenLayout", \.fullScreenLayout, \.fullScreenLayout, default: false, journal: .always, snapshot: .always),
        .field("navigation", "navigation", \.navigation, \.navigation, default: false, journal: .always, snapshot: .always),
        .field("stack", "stack", \.stack, \.stack, default: [], accepts: .ignored, snapshot: .always),
        .field("content_loaded", "contentLoaded", \.contentLoaded, \.contentLoaded, default: false, accepts: .ignored, snapshot: .always),
        // R13.8: the description left `hidden` out (input only, never state): issue 30's records.
        .field("keeps_hidden", "keepsHidden", \.keepsHidden, \.keepsHidden, default: false, accepts: .refused, snapshot: .never, shown: .never),
        // R13 and R14: written by `state` only for a tab that uses them.
        .field("placement", "placement", \.placement, \.placement, default: .automatic, shown: .modern, arranges: true,
               state: { t, _, w in w.string(t.placement.rawValue) }),
        .field("hidden", "hidden", \.hidden, \.hidden, default: false, shown: .modern, arranges: true),
        .field("allows_hiding", "allowsHiding", \.allowsHiding, \.allowsHiding, default: false, shown: .modern, arranges: true),
        .field("hidden_by_default", "hiddenByDefault", \.hiddenByDefault, \.hiddenByDefault, default: false, shown: .modern, arranges: true),
        .field("subtitle", "subtitle", \.subtitle, \.subtitle, default: nil, shown: .modern),
        .field("enabled", "enabled", \.enabled, \.enabled, default: true, shown: .modern),  // R14.2
        .field("role", "role", \.role, \.role, default: nil, shown: .modern, arranges: true, showsIf: { $0.role != nil }),  // R14.1
        .field("activates_search", "activatesSearch", \.activatesSearch, \.activatesSearch, default: false, shown: .modern,
               showsIf: { $0.isSearch || $0.activatesSearch }),
        // A group's (R13.1, R13.12).
        .field("expanded", "expanded", \.expanded, \.expanded, default: nil, shown: .group,
               state: { t, _, w in w.bool(t.isExpanded) }),
        .field("children", "children", \.children, \.children, default: nil, shown: .group, arranges: true,
               state: { t, c, w in
                   w.beginArray()
                   for k in t.children ?? [] { k.write(to: &w, .state, in: c) }
                   w.endArray()
               }),
        .field("default_child", "defaultChild", \.defaultChild, \.defaultChild, default: nil, shown: .group, arranges: true),
        .field("allows_reordering", "allowsReordering", \.allowsReordering, \.allowsReordering, default: false, shown: .group, arranges: true),
        .field("selected_child", "selectedChild", \.selectedChild, \.selectedChild, default: nil, accepts: .ignored, shown: .group,
               state: { t, c, w in (c?.shownChildID(of: t.id) ?? t.selectedChild).write(to: &w, .state) }),
        .field("display_order", "displayOrder", \.displayOrder, \.displayOrder, default: nil, accepts: .ignored, shown: .group,
               state: { t, _, w in t.orderedChildren.map(\.id).write(to: &w, .state) }),
        // R15.2: a tab whose content is a controller; shown only for such a tab.
        // `update_tab` names it `content_controller` (its `controller` is the container addressed).
        .field("controller", "controller", \.controller, \.controller, default: nil, update: "content_controller", showsIf: { $0.controller != nil }),
    ]

    public init(id: String, title: String? = nil, item: TabItem? = nil, restorationID: String? = nil,
                orientations: OrientationMask? = nil, fullScreenLayout: Bool = false,
                navigation: Bool = false, stack: [Screen] = [], contentLoaded: Bool = false,
                children: [Tab]? = nil, defaultChild: String? = nil, allowsReordering: Bool = false,
                hidden: Bool = false, allowsHiding: Bool = false, hiddenByDefault: Bool = false,
                placement: Placement = .automatic, subtitle: String? = nil) {
        self.id = id; self.title = title; self.item = item; self.restorationID = restorationID
        self.orientations = orientations; self.fullScreenLayout = fullScreenLayout
        self.navigation = navigation; self.stack = stack; self.contentLoaded = contentLoaded
        self.children = children; self.defaultChild = defaultChild; self.allowsReordering = allowsReordering
        self.hidden = hidden; self.allowsHiding = allowsHiding; self.hiddenByDefault = hiddenByDefault
        self.placement = placement; self.subtitle = subtitle
        self.selectedChild = nil; self.displayOrder = nil
    }

    /// Whether the tab uses anything of R13 or R14 (a controller whose tabs use none behaves as
    /// R1–R12): the fields `Tab.fields` shows among R13's members (TabSchemaTests compares).
    public var usesModernModel: Bool {
        children != nil || defaultChild != nil || allowsReordering || hidden || allowsHiding
            || hiddenByDefault || placement != .automatic || subtitle != nil || role != nil || activatesSearch || !enabled
    }

    /// The search tab (R14.1).
    public var isSearch: Bool { role == .search }

    /// A group's children in display order (R13.5): the user's order, else the given one.
    public var orderedChildren: [Tab] {
        guard let children else { return [] }
        guard let order = displayOrder else { return children }
        var byID: [String: Tab] = [:]
        for c in children { byID[c.id] = c }
        return order.compactMap { byID[$0] }
    }

    /// What the bar shows (R1.3): the item, or a default item with the tab's title and no
    /// image. A tab without a title shows no title (nil), never its id.
    public var effectiveItem: TabItem {
        guard var item else { return TabItem(title: title) }
        if item.title == nil { item.title = title }
        return item
    }

    /// The badge shown on the tab's item (R8).
    public var badge: String? { item?.badge }

    /// Orientations this tab supports (R9.1: nothing declared → portrait only).
    public var supportedOrientations: OrientationMask { orientations ?? .portrait }

    /// Where this tab says what `old` says in another form — `orientations` as the set they
    /// mean, `item` as the item shown — it keeps `old`'s form: a tab object copied from
    /// `state` (which reports the meaning) and sent back changes nothing (R13.8).
    mutating func keepForm(of old: Tab) {
        if orientations != old.orientations, supportedOrientations == old.supportedOrientations { orientations = old.orientations }
        if item != old.item, effectiveItem == old.effectiveItem { item = old.item }
    }
}

/// What a tab is for beyond showing its content (R14.1). Raw values are the wire names.
public enum TabRole: String, Sendable, CaseIterable {
    /// UISearchTab: trailing in the bar, never under More; may activate search.
    case search

    /// Compared by case, not by raw strings (as `Placement`).
    @inline(__always)
    public static func == (a: TabRole, b: TabRole) -> Bool {
        switch (a, b) {
        case (.search, .search): true
        }
    }
}

/// A pad's width class (R14.4): `compact` behaves as a phone's bar (no sidebar, compact tabs).
/// Raw values are the wire names.
public enum SizeClass: String, Sendable, CaseIterable {
    case regular, compact
}

/// Where a tab goes in the bar (R13.4). Raw values are the wire names.
public enum Placement: String, Sendable, CaseIterable {
    /// `default` for a root tab, `optional` for a tab inside a group.
    case automatic
    /// In the bar; the user may move it or take it out.
    case `default`
    /// Not in the bar until the user adds it.
    case optional
    /// In the bar; the user may move it but not take it out.
    case movable
    /// Always in the bar, trailing; never moved, never under More.
    case pinned
    /// Always in the bar, leading; never moved, never under More.
    case fixed
    /// Never in the bar: only the sidebar lists it.
    case sidebarOnly = "sidebar_only"

    /// Compared by case. Without it `==` and `!=` resolved to RawRepresentable's (the raw
    /// strings compared), and a test of a tab's placement inside an `||` made the optimizer
    /// copy the whole tab, a retain and a release of each of its strings and arrays
    /// (BENCHMARKS.md, "One tab schema").
    @inline(__always)
    public static func == (a: Placement, b: Placement) -> Bool { a.ordinal == b.ordinal }

    @inline(__always)
    private var ordinal: Int {
        switch self {
        case .automatic: 0
        case .default: 1
        case .optional: 2
        case .movable: 3
        case .pinned: 4
        case .fixed: 5
        case .sidebarOnly: 6
        }
    }
}

/// How a controller presents its tabs (R13.6). Raw values are the wire names.
public enum Mode: String, Sendable, CaseIterable {
    /// A sidebar on the pad idiom when the tabs have a group; a bar otherwise.
    case automatic
    /// A bar only.
    case tabBar = "tab_bar"
    /// A sidebar on the pad idiom, whatever the tabs.
    case tabSidebar = "tab_sidebar"
}

/// One entry of the sidebar (R13.6): a visible tab and, for a group, its visible children.
public struct SidebarItem: Equatable, Sendable {
    public var id: String
    /// nil for a tab that is not a group.
    public var children: [SidebarItem]?
    /// A group's expansion (R13.12); nil for a tab that is not a group.
    public var expanded: Bool?
    public init(id: String, children: [SidebarItem]? = nil, expanded: Bool? = nil) {
        self.id = id; self.children = children; self.expanded = expanded
    }
}

/// What a tap on a tab whose navigation stack is deeper than its root does (R4.3).
public enum TapPops: String, Sendable, CaseIterable {
    /// The seeds' rule: any tap on such a tab pops it to its root.
    case always
    /// Current UIKit: only a tap on the already selected tab pops; switching tabs keeps stacks.
    case reselect
}

/// What is selected, a tab (by id), or the More item (R3.3).
public enum Selection: Equatable, Sendable {
    case none
    case tab(String)
    case more

    /// Nothing is selected (a test without the copy `== .none` makes).
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// The wire form: a tab id, "more", or nil.
    public var wireValue: String? {
        switch self {
        case .none: return nil
        case .tab(let id): return id
        case .more: return Controller.moreID
        }
    }
}

/// Something a client or the delegate can select or tap: a tab or More.
public enum Candidate: Equatable, Sendable {
    case tab(id: String, index: Int)
    case more

    /// The wire name: the tab id or "more". Inlinable: the plugin host reads it on every tap.
    @inlinable
    public var id: String {
        switch self {
        case .tab(let id, _): return id
        case .more: return Controller.moreID
        }
    }
    public var index: Int? {
        if case .tab(_, let index) = self { return index }
        return nil
    }
}

/// A rectangle in points (R10).
public struct Frame: Equatable, Sendable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
