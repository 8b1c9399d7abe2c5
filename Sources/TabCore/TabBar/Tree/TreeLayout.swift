// R13: what an arranged controller derives from its tree — the nodes (`TreeNode`), the
// composed bar (`ComposedBar`, R13.4) and their lookup (`TreeLayout`, `InlineID`) — and which
// tabs arrange it (`Tab.arranges`, R13.1–R13.5).

import TabStrings

extension Tab {
    /// Whether the tab changes how the bar is composed or what can be selected (R13.1–R13.5).
    /// A subtitle alone does not: it is only shown.
    var arranges: Bool {
        children != nil || defaultChild != nil || allowsReordering || hidden || allowsHiding
            || hiddenByDefault || placement != .automatic || role != nil || !enabled
    }

    /// R13.4: `automatic` is `default` for a root tab and `optional` inside a group.
    func effectivePlacement(isRoot: Bool) -> Placement {
        guard placement == .automatic else { return placement }
        if role == .search { return .pinned }  // R14.1: trailing, never under More
        return isRoot ? .default : .optional
    }
}

/// What a controller arranged with R13 derives from its tree, kept from one change of the
/// tree to the next (a select reads it several times and changes none of it). Immutable, and
/// a class: a controller that uses none of R13 carries one pointer for it, and copying a
/// controller (which the request path does) stays as cheap as before R13.
final class TreeLayout: Equatable, Sendable {
    let bar: ComposedBar
    /// `bar.split`: what the bar shows itself, and what does not fit.
    let shown: [String], rest: [String]
    /// Every tab of the tree, by id.
    let nodes: [String: TreeNode]
    /// The same nodes in a list, in tree order, while there are at most
    /// `Controller.linearLookupLimit`: comparing a few short ids in turn costs less than
    /// hashing one (as for root tabs).
    let few: [TreeNode]?
    /// `few`'s ids as `InlineID`s (`.none` for an id that is not one).
    let fewIDs: [InlineID]
    /// The search tab's id (R14.1), if the tree has one.
    let search: String?

    /// `ordered`: the nodes in tree order (the order `few` keeps).
    init(bar: ComposedBar = ComposedBar(), shown: [String] = [], rest: [String] = [], ordered: [TreeNode] = [], search: String? = nil) {
        self.bar = bar; self.shown = shown; self.rest = rest; self.search = search
        nodes = Dictionary(ordered.lazy.map { ($0.id, $0) }, uniquingKeysWith: { _, later in later })
        few = ordered.count <= Controller.linearLookupLimit ? ordered : nil
        fewIDs = few?.map { InlineID($0.id) ?? .none } ?? []
    }

    /// The node of the tab with this id.
    @inline(__always)
    func node(_ id: String) -> TreeNode? {
        guard let few else { return nodes[id] }
        if let key = InlineID(id) {
            // Two words compared per node; an id that is not inline is compared as a string.
            for i in few.indices {
                let k = fewIDs[i]
                if k == key || (k == .none && few[i].id == id) { return few[i] }
            }
            return nil
        }
        for n in few where n.id == id { return n }
        return nil
    }

    /// The layout of a controller that is not arranged.
    static let none = TreeLayout()

    /// The node `path` (root … leaf, `["more"]` or `[]`) ends at: for `[]` and More, nodes of
    /// their own; for a path that is not this layout's (a command's middle), a node of its own.
    func node(endingPath path: [String]) -> TreeNode {
        guard let last = path.last else { return .nothing }
        if path.count == 1, last == Controller.moreID { return .more }
        let n = node(last)
        if let n, n.path == path { return n }
        return TreeNode(id: last, address: [], path: path, hidden: false, childNodes: [], defaultChild: nil, barItem: n?.barItem,
                        barSlot: n?.barSlot ?? -1)
    }

    static func == (a: TreeLayout, b: TreeLayout) -> Bool {
        a === b || (a.bar == b.bar && a.shown == b.shown && a.rest == b.rest && a.nodes == b.nodes && a.search == b.search)
    }
}

/// A tab id that is a small ASCII string — at most 15 bytes, kept inside the `String` itself
/// — as its two words: two such ids are equal exactly when their words are. A nested select
/// finds its node by comparing these (two integer comparisons per node) where `String`'s
/// `==` calls into the standard library for every id that differs (BENCHMARKS-HISTORY.md,
/// "The modern tab model"). The words are read by `SmallASCII`, which
/// checks the standard library's layout once: where it does not hold, every id is compared
/// as a string.
struct InlineID: Equatable {
    let low: UInt64, high: UInt64

    /// Not an id: a small string's high word is never 0.
    static let none = InlineID(low: 0, high: 0)

    private init(low: UInt64, high: UInt64) { self.low = low; self.high = high }

    /// nil unless `s` is a small ASCII string.
    @inline(__always)
    init?(_ s: String) {
        guard let (low, high) = SmallASCII.words(s) else { return nil }
        self.low = low; self.high = high
    }

    /// Whether two ids are equal: by their words when both are inline, else as strings.
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        if let x = InlineID(a), let y = InlineID(b) { return x == y }
        return a == b
    }

    /// Whether two paths are equal, their ids compared as `same` does.
    static func same(_ a: [String], _ b: [String]) -> Bool {
        guard a.count == b.count else { return false }
        for i in a.indices where !same(a[i], b[i]) { return false }
        return true
    }
}

/// What the tree says of one tab (derived, `TreeLayout`): where it is and what a selection
/// of it descends into. What changes with a selection (a group's selected child) is not here.
/// A class: a select looks nodes up several times, and a reference is one retain where the
/// fields would be four.
final class TreeNode: Equatable, Sendable {
    let id: String
    /// Root index, then child indices (in `children` order).
    let address: [Int]
    /// Ids from the root tab down to this one.
    let path: [String]
    /// The tab or a group above it is hidden.
    let hidden: Bool
    /// The first tab of the path that is disabled (R14.2), or nil: a tap reads it here.
    let disabled: String?
    /// A group's visible children, in display order (empty: nothing to descend into).
    let children: [String]
    /// The nodes of `children`, in the same order: a descent follows them without lookups.
    let childNodes: [TreeNode]
    let defaultChild: String?
    /// The bar item shown as selected while this tab is the selected leaf: the deepest tab
    /// of its path on the bar, else More when one is under More, else nil.
    let barItem: String?
    /// `barItem` as a number within its layout: its index in the bar's shown tabs, -2 for
    /// More, -1 for none. A select or tap compares it before and after (an `Int` kept across
    /// the command where the string was retained, released and compared).
    let barSlot: Int
    /// `address[0]`, the root's index (-1 for a node without an address): read without
    /// retaining the array.
    let rootIndex: Int
    /// `id` as an `InlineID` (`.none` when it is not one): derived, compared by `sameID`.
    let key: InlineID
    /// Whether a select of this tab lands on it (R13.2, R13.3): a visible tab that is not a
    /// group, nor More's id. Derived from the fields above (`moveSelection(toLeaf:)`).
    let landsOnItself: Bool

    init(id: String, address: [Int], path: [String], hidden: Bool, childNodes: [TreeNode], defaultChild: String?, barItem: String?,
         barSlot: Int = -1, disabled: String? = nil) {
        self.id = id; self.address = address; self.path = path; self.hidden = hidden; self.disabled = disabled
        self.childNodes = childNodes; self.children = childNodes.map(\.id)
        self.defaultChild = defaultChild; self.barItem = barItem; self.barSlot = barSlot
        rootIndex = address.first ?? -1
        key = InlineID(id) ?? .none
        landsOnItself = childNodes.isEmpty && !hidden && !address.isEmpty && path.count == address.count
            && id != Controller.moreID
    }

    /// `Controller.shownChild(of:)` of this node, the groups' remembered children read from
    /// the controller's `tabs`: a mutating command calls it without copying the controller.
    @inline(__always)
    func shownChild(in tabs: [Tab]) -> TreeNode? {
        guard let first = childNodes.first else { return nil }
        let a = address
        let remembered: TreeNode?
        switch a.count {  // read in place, as `selectedChild(at:)` does
        case 1: remembered = child(tabs[a[0]].selectedChild)
        case 2: remembered = child(tabs[a[0]].children![a[1]].selectedChild)
        default:
            var t = tabs[a[0]]
            for i in a.dropFirst() { t = t.children![i] }
            remembered = child(t.selectedChild)
        }
        return remembered ?? child(defaultChild) ?? first
    }

    /// The node of the visible child `id` (nil for nil), its id compared by its words as
    /// `TreeLayout.node` does.
    @inline(__always)
    func child(_ id: String?) -> TreeNode? {
        guard let id else { return nil }
        if let key = InlineID(id) {
            for c in childNodes where c.key == key || (c.key == .none && c.id == id) { return c }
            return nil
        }
        for c in childNodes where c.id == id { return c }
        return nil
    }

    /// This node, or the leaf below it its groups show, child by child (R13.2).
    @inline(__always)
    func leaf(in tabs: [Tab]) -> TreeNode {
        // Unrolled for the usual depths: a `let` is read in place, where a loop's variable was
        // retained and released around each call on it (a group's leaf: one retain here, where
        // `var leaf = self` and the loop took three and two releases).
        guard let child = shownChild(in: tabs) else { return self }
        guard let grandchild = child.shownChild(in: tabs) else { return child }
        var leaf = grandchild
        while let next = leaf.shownChild(in: tabs) { leaf = next }
        return leaf
    }

    /// Whether the two nodes' ids are equal (`InlineID.same`, from the kept keys).
    @inline(__always)
    func sameID(_ other: TreeNode) -> Bool {
        if key.high != 0, other.key.high != 0 { return key == other.key }  // neither `.none`
        return id == other.id
    }

    /// The end of the empty path (nothing selected).
    static let nothing = TreeNode(id: "", address: [], path: [], hidden: false, childNodes: [], defaultChild: nil, barItem: nil)
    /// The end of `["more"]`: More is selected and is its own bar item.
    static let more = TreeNode(id: Controller.moreID, address: [], path: [Controller.moreID], hidden: false, childNodes: [],
                               defaultChild: nil, barItem: Controller.moreID, barSlot: -2)

    static func == (a: TreeNode, b: TreeNode) -> Bool {
        a === b || a.id == b.id && a.address == b.address && a.path == b.path && a.hidden == b.hidden && a.children == b.children
            && a.childNodes == b.childNodes && a.defaultChild == b.defaultChild && a.barItem == b.barItem && a.barSlot == b.barSlot && a.disabled == b.disabled
    }
}

/// The bar's tabs as R13.4 composes them: fixed ones, the user's order of the others, pinned
/// ones — visible tabs only.
struct ComposedBar: Equatable {
    var fixed: [String] = [], middle: [String] = [], pinned: [String] = []

    var count: Int { fixed.count + middle.count + pinned.count }

    /// What the bar shows itself and what does not fit (More's list on phone and pad, the
    /// unreachable tabs on tv). Fixed and pinned tabs always fit (R13.4): the middle gives
    /// way, and on phone and pad one place goes to More.
    func split(maxVisible: Int, idiom: Idiom) -> (shown: [String], rest: [String]) {
        guard count > maxVisible else { return (fixed + middle + pinned, []) }
        let cap = maxVisible - (idiom == .tv ? 0 : 1)
        let room = cap - fixed.count - pinned.count
        let k = max(0, min(middle.count, room))
        guard room < 0 else { return (fixed + middle.prefix(k) + pinned, Array(middle.dropFirst(k))) }
        // R13.10 refuses this for new changes; a tree accepted before (a format 3 journal)
        // still never shows more than `max_visible` items: the trailing ones go under More.
        let ends = fixed + pinned
        return (Array(ends.prefix(cap)), Array(ends.dropFirst(cap)) + middle)
    }
}
