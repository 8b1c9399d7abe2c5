// Values that describe a tab container: idioms, orientations, tabs and their items.
// Everything here is a plain value: Codable for persistence, Equatable for tests.

/// The kind of device a controller behaves like (seeds: phone, pad, tv).
public enum Idiom: String, Codable, Sendable, CaseIterable {
    case phone, pad, tv

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
public enum Orientation: String, Codable, Sendable, CaseIterable {
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
public struct OrientationMask: OptionSet, Hashable, Sendable, Codable {
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

    public init(from decoder: Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([Orientation].self))
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(orientations)
    }
}

/// A tab's bar item (seeds: UITabBarItem): what the bar shows for it.
public struct TabItem: Codable, Equatable, Sendable {
    public var title: String?
    public var image: String?
    public var tag: Int?
    public var badge: String?
    public init(title: String? = nil, image: String? = nil, tag: Int? = nil, badge: String? = nil) {
        self.title = title; self.image = image; self.tag = tag; self.badge = badge
    }
}

/// A screen pushed onto a tab's navigation stack (R6).
public struct Screen: Codable, Equatable, Sendable {
    public var id: String
    public var title: String?
    public init(id: String, title: String? = nil) { self.id = id; self.title = title }
}

/// One child of a controller: a tab with a stable id (R1).
public struct Tab: Codable, Equatable, Sendable {
    public var id: String
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

    public init(id: String, title: String? = nil, item: TabItem? = nil, restorationID: String? = nil,
                orientations: OrientationMask? = nil, fullScreenLayout: Bool = false,
                navigation: Bool = false, stack: [Screen] = [], contentLoaded: Bool = false) {
        self.id = id; self.title = title; self.item = item; self.restorationID = restorationID
        self.orientations = orientations; self.fullScreenLayout = fullScreenLayout
        self.navigation = navigation; self.stack = stack; self.contentLoaded = contentLoaded
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
}

/// What a tap on a tab whose navigation stack is deeper than its root does (R4.3).
public enum TapPops: String, Codable, Sendable, CaseIterable {
    /// The seeds' rule: any tap on such a tab pops it to its root.
    case always
    /// Current UIKit: only a tap on the already selected tab pops; switching tabs keeps stacks.
    case reselect
}

/// What is selected, a tab (by id), or the More item (R3.3).
public enum Selection: Equatable, Sendable, Codable {
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

    /// The wire name: the tab id or "more".
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
public struct Frame: Equatable, Sendable, Codable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
