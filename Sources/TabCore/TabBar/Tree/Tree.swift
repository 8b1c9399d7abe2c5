// R13: the modern tab model — groups, hidden tabs, placement in the bar, the user's display
// order and the sidebar. A controller whose tabs use none of it (`arranged` false) never
// reaches this file's rules: its bar, More and selection are R1–R12's, on the same code path.

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
/// `==` calls into the standard library for every id that differs (about 40 instructions
/// each; BENCHMARKS-HISTORY.md, "The modern tab model"). The words are read by `SmallASCII`, which
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
    /// the controller's `tabs`: a mutating command calls it without copying the controller
    /// (~30 instructions a call).
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

extension Controller {
    /// Groups nest at most this deep: a root tab is at depth 1 (R13.1).
    public static let maxDepth = 4

    // MARK: The tree

    /// The tab's address: its root's index, then child indices (in `children` order).
    func locate(_ id: String) -> [Int]? {
        if arranged { return layout.node(id)?.address }
        return index(of: id).map { [$0] }
    }

    /// The selected child of the group at `address` (its first `depth` indices: all of
    /// them by default), read in place (no copy of the tab).
    func selectedChild(at a: [Int], depth: Int? = nil) -> String? {
        switch depth ?? a.count {
        case 1: return tabs[a[0]].selectedChild
        case 2: return tabs[a[0]].children![a[1]].selectedChild
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].selectedChild
        case let d: return self[at: Array(a.prefix(d))].selectedChild
        }
    }

    /// Whether the tab at `address` in the tree `tabs` has no pushed screens, read in place
    /// (no copy of the tab). Static: a mutating command calls it without copying the
    /// controller (an instance method inlined into a tap still copied it, ~30 instructions).
    @inline(__always)
    static func stackIsEmpty(at a: [Int], in tabs: [Tab]) -> Bool {
        switch a.count {
        case 1: return tabs[a[0]].stack.isEmpty
        case 2: return tabs[a[0]].children![a[1]].stack.isEmpty
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].stack.isEmpty
        default:
            var t = tabs[a[0]]
            for i in a.dropFirst() { t = t.children![i] }
            return t.stack.isEmpty
        }
    }

    /// Whether the tab at `address` has loaded its content, read in place.
    func contentLoaded(at a: [Int]) -> Bool {
        switch a.count {
        case 1: return tabs[a[0]].contentLoaded
        case 2: return tabs[a[0]].children![a[1]].contentLoaded
        case 3: return tabs[a[0]].children![a[1]].children![a[2]].contentLoaded
        default: return self[at: a].contentLoaded
        }
    }

    subscript(at address: [Int]) -> Tab {
        var t = tabs[address[0]]
        for i in address.dropFirst() { t = t.children![i] }
        return t
    }

    mutating func modify(at address: [Int], _ body: (inout Tab) -> Void) {
        func walk(_ t: inout Tab, _ rest: ArraySlice<Int>) {
            guard let i = rest.first else { return body(&t) }
            walk(&t.children![i], rest.dropFirst())
        }
        walk(&tabs[address[0]], address.dropFirst())
    }

    /// The ids from the root down to the tab (R13.2), or nil when there is no such tab.
    public func path(of id: String) -> [String]? {
        if arranged { return layout.node(id)?.path }
        guard let at = locate(id) else { return nil }
        var ids: [String] = [], t = tabs[at[0]]
        ids.append(t.id)
        for i in at.dropFirst() { t = t.children![i]; ids.append(t.id) }
        return ids
    }

    /// Every tab of the tree, parents before their children, roots in tab order and children
    /// in display order, with whether it is a root.
    func forEachTab(_ body: (Tab, _ isRoot: Bool, _ hiddenAbove: Bool) -> Void) {
        func visit(_ t: Tab, root: Bool, hiddenAbove: Bool) {
            body(t, root, hiddenAbove)
            for c in t.orderedChildren { visit(c, root: false, hiddenAbove: hiddenAbove || t.hidden) }
        }
        for t in tabs { visit(t, root: true, hiddenAbove: false) }
    }

    /// Every id of the tree.
    public var treeIDs: Set<String> {
        var ids = Set<String>()
        forEachTab { t, _, _ in ids.insert(t.id) }
        return ids
    }

    /// How many tabs the tree holds (groups and their children).
    public var treeCount: Int {
        var n = 0
        forEachTab { _, _, _ in n += 1 }
        return n
    }

    /// The child a group shows (R13.1): the one it remembers, else its default child, else
    /// its first — visible children only, in display order. nil for a plain tab or a group
    /// whose children are all hidden.
    func shownChild(of node: TreeNode) -> TreeNode? { node.shownChild(in: tabs) }

    /// The id of the child the group `id` shows (`shownChild`), or nil.
    public func shownChildID(of id: String) -> String? {
        guard arranged, let node = layout.node(id) else { return nil }
        return shownChild(of: node)?.id
    }

    /// Where a selection of the root tab `t` lands (R13.2), or, when it is hidden, where the
    /// selection goes instead (R13.3): set_tabs' reselection, restore, a More that left the bar.
    func landingPath(ofRoot t: Tab) -> [String] {
        guard !t.hidden else { return fallbackPath(hiding: t.id) }
        var path = [t.id]
        appendDescent(from: t.id, to: &path)
        return path
    }

    /// Appends to `ids` the ids below the tab `id` that a selection of it descends into,
    /// down to a leaf (R13.2): one array for the whole path.
    func appendDescent(from id: String, to ids: inout [String]) {
        guard arranged, let node = layout.node(id) else { return }
        _ = appendDescent(from: node, to: &ids)
    }

    /// Appends the ids below `node` that a selection of it descends into; returns the leaf.
    func appendDescent(from node: TreeNode, to ids: inout [String]) -> TreeNode {
        var n = node
        while let next = shownChild(of: n) {
            n = next
            ids.append(n.id)
        }
        return n
    }

    /// `selectedPath` as the last command left it: for readers between commands (replies).
    public var currentPath: [String] { arranged ? current.path : selectedPath }

    /// For an arranged controller, an object that stands for `currentPath`: while it is the
    /// same object, the path is the same (the nodes of a tree never change; a change of the
    /// tree makes new ones). A reader may keep what it derived from the path against it.
    public var currentPathIdentity: AnyObject { current }

    /// `currentPathIdentity`'s identity, read without holding the object.
    public var currentPathID: ObjectIdentifier { ObjectIdentifier(current) }

    /// What is selected, root … leaf (R13.2): `[]` for nothing, `["more"]` for More.
    public var selectedPath: [String] {
        switch selection {
        case .none: return []
        case .more: return [Controller.moreID]
        case .tab(let id):
            var path = [id]
            path.reserveCapacity(Controller.maxDepth)
            appendDescent(from: id, to: &path)
            return path
        }
    }

    /// The selected leaf: the tab whose content shows (a tab id, "more", or nil).
    public var selectedLeaf: String? {
        if !arranged { return selection.wireValue }
        return selectedPath.last
    }

    /// Whether anything of R13 shows in this controller's `state` (a mode, a subtitle, a
    /// group…): `state` and events then carry R13's members; otherwise they are R1–R12's.
    public var usesModernModel: Bool {
        arranged || mode != .automatic || sizeClass != idiom.defaultSizeClass || compactTabs != nil || barHidden
            || editingStart != nil || tabs.contains { $0.usesModernModel }
    }

    /// Whether the controller shows a compact appearance (R14.4): the phone, a compact pad.
    public var isCompact: Bool { idiom == .phone || (idiom == .pad && sizeClass == .compact) }

    /// Whether the controller is arranged, and what it derives from its tree: after every
    /// change of the tree, its hidden tabs or its orders.
    mutating func refreshArranged() {
        arranged = barOrder != nil || barHidden || tabs.contains { $0.arranges } || (compactTabs != nil && isCompact)
        guard arranged else {
            if layout !== TreeLayout.none { layout = .none }
            if current !== TreeNode.nothing { current = .nothing }
            return
        }
        let bar = composeBar()
        let (shown, rest) = bar.split(maxVisible: maxVisible, idiom: idiom)
        let tv = idiom == .tv
        var ordered: [TreeNode] = []
        // A long bar is looked up through sets: every node asks, and a nested scan of a bar
        // at max_tabs would be quadratic.
        let long = shown.count + rest.count > Controller.linearLookupLimit
        let shownIndex = long ? Dictionary(shown.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : [:]
        let restSet = long ? Set(rest) : []
        func barItem(_ path: [String]) -> (item: String, slot: Int)? {
            for id in path.reversed() {
                if let i = long ? shownIndex[id] : shown.firstIndex(of: id) { return (id, i) }
                if !tv, long ? restSet.contains(id) : rest.contains(id) { return (Controller.moreID, -2) }
            }
            return nil
        }
        // Children first: a node holds its children's nodes.
        func node(_ t: Tab, _ address: [Int], _ above: [String], hiddenAbove: Bool, disabledAbove: String?) -> TreeNode {
            let path = above + [t.id], hidden = hiddenAbove || t.hidden
            let disabled = disabledAbove ?? (t.enabled ? nil : t.id)
            var byID: [String: TreeNode] = [:]
            for (i, k) in (t.children ?? []).enumerated() {
                byID[k.id] = node(k, address + [i], path, hiddenAbove: hidden, disabledAbove: disabled)
            }
            let shownKids = t.orderedChildren.filter { !$0.hidden }.compactMap { byID[$0.id] }
            let bar = barItem(path)
            let n = TreeNode(id: t.id, address: address, path: path, hidden: hidden, childNodes: shownKids,
                             defaultChild: t.defaultChild, barItem: bar?.item, barSlot: bar?.slot ?? -1, disabled: disabled)
            ordered.append(n)  // after its children: leaves come first, where selects go
            return n
        }
        for (i, t) in tabs.enumerated() { _ = node(t, [i], [], hiddenAbove: false, disabledAbove: nil) }
        layout = TreeLayout(bar: bar, shown: shown, rest: rest, ordered: ordered, search: tabs.first(where: \.isSearch)?.id)
        setCurrentPath(selectedPath)
    }

    // MARK: The bar (R13.4)

    var composedBar: ComposedBar { layout.bar }

    private func composeBar() -> ComposedBar {
        var bar = ComposedBar(), defaults: [String] = [], movable: [String] = [], eligible = Set<String>()
        var search: String?
        // R14.4: compact appearances show only the compact tabs' roots (and what is inside them).
        let compact: Set<String>? = isCompact ? compactTabs.map(Set.init) : nil
        var root = ""
        forEachTab { t, isRoot, hiddenAbove in
            if isRoot { root = t.id }
            guard !t.hidden, !hiddenAbove else { return }
            if let compact, !compact.contains(root) { return }
            if t.isSearch, t.effectivePlacement(isRoot: isRoot) == .pinned { search = t.id; return }
            switch t.effectivePlacement(isRoot: isRoot) {
            case .fixed: bar.fixed.append(t.id)
            case .pinned: bar.pinned.append(t.id)
            case .default: defaults.append(t.id); eligible.insert(t.id)
            case .movable: defaults.append(t.id); movable.append(t.id); eligible.insert(t.id)
            case .optional: eligible.insert(t.id)
            case .sidebarOnly, .automatic: break
            }
        }
        if let search { bar.pinned.append(search) }  // R13.8: the search tab last
        guard let order = barOrder else {
            bar.middle = defaults
            return bar
        }
        bar.middle = order.filter(eligible.contains)
        var inOrder = Set(bar.middle)
        for id in movable where inOrder.insert(id).inserted { bar.middle.append(id) }  // cannot leave
        return bar
    }

    /// The bar item shown as selected: the deepest tab of the selected path that is on the
    /// bar, else More when one is under More.
    /// Read between commands: it uses the selected path as the last command left it.
    var arrangedBarSelected: String? { current.barItem }

    /// Sets the selected path as the command leaves it, and the bar item it shows selected.
    /// `leaf`: the path's last node, when the caller has it.
    mutating func setCurrentPath(_ path: [String], leaf: TreeNode? = nil) {
        current = leaf ?? layout.node(endingPath: path)
    }

    /// While the tab list changes (before `rebuildIndex`): the user's bar order keeps the tabs that are still there
    /// and takes the new tabs that go in the bar by default at its end (R13.5).
    mutating func adjustBarOrder(previous: Set<String>) {
        guard var order = barOrder else { return }
        let ids = treeIDs
        order = order.filter(ids.contains)
        var have = Set(order)
        forEachTab { t, isRoot, _ in
            let p = t.effectivePlacement(isRoot: isRoot)
            if !previous.contains(t.id), p == .default || p == .movable, have.insert(t.id).inserted { order.append(t.id) }
        }
        barOrder = order  // the caller's rebuildIndex derives the layout from it
    }

    // MARK: The sidebar (R13.6)

    /// A sidebar exists on the pad idiom in `tab_sidebar` mode, or `automatic` with a group.
    public var sidebarAvailable: Bool {
        idiom == .pad && sizeClass == .regular
            && (mode == .tabSidebar || (mode == .automatic && tabs.contains { $0.children != nil }))
    }

    /// The sidebar's tree: visible tabs in display order (sidebar-only ones included).
    public var sidebarItems: [SidebarItem] {
        guard sidebarAvailable else { return [] }
        func items(_ list: [Tab]) -> [SidebarItem] {
            list.filter { !$0.hidden }.map {
                SidebarItem(id: $0.id, children: $0.children == nil ? nil : items($0.orderedChildren),
                            expanded: $0.children == nil ? nil : $0.isExpanded)
            }
        }
        return items(tabs)
    }

    mutating func setSidebar(_ visible: Bool, _ out: inout Outcome) throws(TabError) {
        guard sidebarAvailable else { throw noSidebar }
        guard visible != sidebarVisible else { return }
        sidebarVisible = visible
        out.notify(.sidebarChanged(visible: visible))
    }

    /// Where there is no sidebar, `sidebar` and `set_expanded` are refused (R13.12).
    var noSidebar: TabError {
        TabError(.notAvailable, idiom != .pad
            ? "the \(idiom.rawValue) idiom has no sidebar"
            : sizeClass == .compact ? "controller '\(name)' is compact: a compact pad has no sidebar"
            : "controller '\(name)' has no sidebar: it is in \(mode.rawValue) mode\(mode == .tabBar ? "" : " without a group")")
    }

    // MARK: Selection in the tree (R13.2)

    /// The path a selection of `target` lands on, root … leaf, or R4.5's and R13.3's errors.
    /// Where a selection of `target` lands: the path, root … leaf, and the leaf's node (nil
    /// for More); or R4.5's and R13.3's errors.
    func landing(for target: SelectTarget) throws(TabError) -> (path: [String], leaf: TreeNode?) {
        let node: TreeNode
        switch target {
        case .more:
            guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
            guard moreShown else { throw moreNotShown }
            return ([Controller.moreID], nil)
        case .index:
            node = layout.node(try candidate(for: target).id)!
        case .tab(let id):
            guard let n = layout.node(id) else { throw .noTab(id) }
            node = n
        }
        return try landing(at: node)
    }

    /// `landing(for:)` of the tab whose node is `node`.
    func landing(at node: TreeNode) throws(TabError) -> (path: [String], leaf: TreeNode?) {
        if node.hidden, let id = node.path.first(where: { tab($0)!.hidden }) {
            throw TabError(.notAvailable, id == node.id
                ? "tab '\(id)' is hidden; show it with set_hidden before selecting it"
                : "tab '\(node.id)' is in the hidden group '\(id)'; show the group with set_hidden before selecting it")
        }
        // A tab lands on its leaf's own path: the node's array, shared, not copied (a group's
        // leaf is a node of its own, whose path is the group's and the descent's).
        let leaf = node.leaf(in: tabs)
        return (leaf.path, leaf)
    }

    var moreNotShown: TabError {
        TabError(.notAvailable, "More is not on the bar: the controller has \(arranged ? composedBar.count : tabs.count) tab(s) in its bar and shows up to \(maxVisible)")
    }

    /// Moves the selection to `path` (root … leaf, `["more"]` or `[]`), remembering each
    /// group's selected child, with R5's appearance calls on the leaves and `selection_changed`.
    /// `old`: the selected path before the command changed anything (hiding a tab changes
    /// the path before the selection moves).
    mutating func moveSelection(to path: [String], leaf: TreeNode? = nil, from old: [String]? = nil, cause: SelectionCause, _ out: inout Outcome) {
        if let leaf, old == nil {
            // A select or tap: `leaf` is a node of the layout `current` is of (a select changes
            // no tree, and every command leaves `current` in the layout it leaves), where each
            // node has its own path: another node is another path.
            guard leaf !== current else { return }
        } else if InlineID.same(path, old ?? current.path) {
            return
        }
        // The leaves, not the paths: `current`'s id is its path's last id (none for nothing).
        let oldLeaf = old.map { $0.last } ?? (current === TreeNode.nothing ? nil : current.id)
        // Read only for the event (a select without subscribers builds none).
        // The selection change is built for subscribers, and for a plugin told every one.
        let tells = out.recordsNotifications || out.recordsSelectionChanges
        let previous = tells ? selection.wireValue : nil
        let previousPath = tells ? old ?? current.path : nil
        if path.isEmpty { selection = .none }
        else if path.count == 1, path[0] == Controller.moreID { selection = .more }
        else { selection = .tab(path[0]); remember(path, leaf: leaf) }
        setCurrentPath(path, leaf: leaf)  // a select or tap: the command's end reads it (`applyOnce`)
        appearLeaves(old: oldLeaf, new: leaf?.id ?? path.last, at: leaf?.address, &out)
        guard tells else { return out.skip(1) }
        out.notify(.selectionChanged(tab: selection.wireValue, index: leaf.map { $0.address[0] } ?? selectedIndex,
                                     previous: previous, cause: cause, path: path, previousPath: previousPath))
    }

    /// `moveSelection(to: leaf.path, leaf: leaf, cause: cause, &out)` for a select of a tab
    /// that lands on itself (`TreeNode.landsOnItself`: `landing` returns its own path and
    /// node), with the same effects, notifications and counts, in one pass that reads the
    /// node's fields in place: no path array passed along, the groups' remembered children
    /// compared where they are stored, the appearance counted without building the ids.
    mutating func moveSelection(toLeaf leaf: TreeNode, cause: SelectionCause, _ out: inout Outcome) {
        // As in `moveSelection`: `leaf` is a node of the layout `current` is of.
        guard leaf !== current else { return }
        // The old leaf is `current`'s id; `TreeNode.nothing` (no leaf) is the one node whose
        // path is empty. Same id: `appearLeaves` does nothing.
        let hadLeaf = !current.path.isEmpty
        let sameLeaf = hadLeaf && current.sameID(leaf)
        // Nobody told (no subscribers, no plugin told every selection change): nothing is
        // built, and no optional is kept for the events (each was released by every select).
        guard out.recordsNotifications || out.recordsSelectionChanges else {
            selection = .tab(leaf.path[0])
            rememberInPlace(leaf)
            current = leaf
            if !sameLeaf {
                loadContent(of: leaf, &out)
                out.skip(hadLeaf ? 4 : 2)
            }
            return out.skip(1)
        }
        let records = out.recordsNotifications
        let previous = selection.wireValue
        let oldLeaf: String? = records && hadLeaf && !sameLeaf ? current.id : nil
        let previousPath = current.path
        selection = .tab(leaf.path[0])
        rememberInPlace(leaf)
        current = leaf  // `setCurrentPath(leaf.path, leaf: leaf)`
        if !sameLeaf {
            loadContent(of: leaf, &out)
            if records {
                if let oldLeaf { out.notify(.appearance(tab: oldLeaf, phase: .willDisappear)) }
                out.notify(.appearance(tab: leaf.id, phase: .willAppear))
                if let oldLeaf { out.notify(.appearance(tab: oldLeaf, phase: .didDisappear)) }
                out.notify(.appearance(tab: leaf.id, phase: .didAppear))
            } else {
                out.skip(hadLeaf ? 4 : 2)
            }
        }
        out.notify(.selectionChanged(tab: selection.wireValue, index: leaf.rootIndex,
                                     previous: previous, cause: cause, path: leaf.path, previousPath: previousPath))
    }

    /// `appearLeaves(old:new:at:)`'s loading of a leaf that is not More (`landsOnItself`): its
    /// content flag read in place (a call to `contentLoaded(at:)` copied the controller).
    @inline(__always)
    private mutating func loadContent(of leaf: TreeNode, _ out: inout Outcome) {
        let a = leaf.address
        let loaded: Bool
        switch a.count {
        case 1: loaded = tabs[a[0]].contentLoaded
        case 2: loaded = tabs[a[0]].children![a[1]].contentLoaded
        default: loaded = contentLoaded(at: a)
        }
        if !loaded {
            modify(at: leaf.address) { $0.contentLoaded = true }
            out.notify(.contentLoaded(tab: leaf.id))
        }
    }

    /// `remember(leaf.path, leaf: leaf)`, the groups of a path up to 3 deep read and written
    /// in place (a group's child is written only when it changes, as there).
    @inline(__always)
    private mutating func rememberInPlace(_ leaf: TreeNode) {
        let a = leaf.address
        switch a.count {
        case 1:
            return
        case 2:
            if !Self.holds(tabs[a[0]].selectedChild, leaf.path[1]) { tabs[a[0]].selectedChild = leaf.path[1] }
        case 3:
            if !Self.holds(tabs[a[0]].selectedChild, leaf.path[1]) { tabs[a[0]].selectedChild = leaf.path[1] }
            if !Self.holds(tabs[a[0]].children![a[1]].selectedChild, leaf.path[2]) {
                tabs[a[0]].children![a[1]].selectedChild = leaf.path[2]
            }
        default:
            remember(leaf.path, leaf: leaf)
        }
    }

    /// Whether a group's remembered child `s` is `child` (`s == child`, as `InlineID.same`).
    /// (Comparing their bits in place first saved nothing: BENCHMARKS.md, "Unsafe constructs".)
    @inline(__always)
    private static func holds(_ s: borrowing String?, _ child: borrowing String) -> Bool {
        switch s {
        case .some(let s): return InlineID.same(copy s, copy child)
        case .none: return false
        }
    }

    /// Each group on the selected path remembers the child it shows (R13.1), so that showing
    /// a hidden tab again never moves the selection.
    mutating func remember(_ path: [String], leaf: TreeNode? = nil) {
        guard path.count > 1, let address = leaf?.address ?? locate(path[path.count - 1]) else { return }
        // The groups on the path are the leaf's address's prefixes.
        for k in 1..<path.count where selectedChild(at: address, depth: k) != path[k] {
            let child = path[k]
            modify(at: Array(address[..<k])) { $0.selectedChild = child }
        }
    }

    /// R5.1/R5.2 for leaves: the new leaf's content loads first; then old will-disappear,
    /// new will-appear, old did-disappear, new did-appear. "more" has no content to load.
    mutating func appearLeaves(old: String?, new: String?, at address: [Int]? = nil, _ out: inout Outcome) {
        if old == nil && new == nil { return }
        if let old, let new, InlineID.same(old, new) { return }
        if let new, new != Controller.moreID, let at = address ?? locate(new), !contentLoaded(at: at) {
            modify(at: at) { $0.contentLoaded = true }
            out.notify(.contentLoaded(tab: new))
        }
        guard out.recordsNotifications else {
            // Nobody reads them (no subscribers): counted, not built, as for a flat select.
            return out.skip((old == nil ? 0 : 2) + (new == nil ? 0 : 2))
        }
        if let old { out.notify(.appearance(tab: old, phase: .willDisappear)) }
        if let new { out.notify(.appearance(tab: new, phase: .willAppear)) }
        if let old { out.notify(.appearance(tab: old, phase: .didDisappear)) }
        if let new { out.notify(.appearance(tab: new, phase: .didAppear)) }
    }

    // MARK: Hidden tabs (R13.3)

    mutating func setHidden(_ id: String, _ hidden: Bool, policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        guard self[at: at].allowsHiding else {
            throw TabError(.conflict, "tab '\(id)' does not allow hiding; give it \"allows_hiding\": true in set_tabs or add_tab")
        }
        guard self[at: at].hidden != hidden else { return }
        let before = current.path  // the start of the command: what the last one left
        let onSelectedPath = hidden && before.contains(id)
        modify(at: at) { $0.hidden = hidden }
        refreshArranged()
        let change = [TabVisibility(id: id, hidden: hidden)]
        out.notify(.visibilityChanged(tabs: change, cause: .user))
        if onSelectedPath { moveSelection(to: fallbackPath(hiding: id), from: before, cause: .hidden, &out) }
        else { settleSelection(from: before, cause: .hidden, &out) }
        lend { policy.visibilityChanged(change, in: $0, effects: &out.effects) }
    }

    /// After the bar or the tree's visibility changed without the selected tab being hidden:
    /// a More selection whose More left the bar moves as R2.2 says (the first root tab, or
    /// the nearest visible one), and a selected group that was a leaf (all its children
    /// hidden) and now shows a child descends into it — both announced, as any selection
    /// change. `before`: the selected path the last command left.
    mutating func settleSelection(from before: [String], cause: SelectionCause, _ out: inout Outcome) {
        var path = selectedPath
        if selection == .more, !moreShown {
            path = tabs.first.map(landingPath(ofRoot:)) ?? []
        }
        moveSelection(to: path, from: before, cause: cause, &out)
    }

    /// R13.3: where the selection goes when `id`, on the selected path, is hidden: the
    /// nearest visible sibling before it, else after it, else the same for its parent, and so
    /// on up; else nothing.
    func fallbackPath(hiding id: String) -> [String] {
        guard var above = path(of: id) else { return [] }
        // R13.9: a sibling qualifies when it is visible, reachable on this idiom (a tv root
        // on the bar) and not the search tab; a group only when it holds such a leaf.
        func qualifies(_ t: Tab, root: Bool) -> Bool {
            guard !t.hidden, !t.isSearch else { return false }
            if root, idiom == .tv, !layout.shown.contains(t.id) { return false }
            guard let kids = t.children else { return true }
            return kids.contains { qualifies($0, root: false) }
        }
        while let me = above.popLast() {
            let root = above.isEmpty
            let siblings = above.last.flatMap { tab($0)?.orderedChildren } ?? tabs
            guard let pos = siblings.firstIndex(where: { $0.id == me }) else { break }
            if let s = siblings[..<pos].last(where: { qualifies($0, root: root) })
                ?? siblings[(pos + 1)...].first(where: { qualifies($0, root: root) }) {
                var path = above + [s.id]
                appendDescent(from: s.id, to: &path)
                return path
            }
        }
        return []
    }

    // MARK: Display order (R13.5)

    mutating func reorder(_ group: String?, _ order: [String], policy: Policy, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("reorder")
        let before = current.path  // the start of the command: what the last one left
        var seen = Set<String>()
        for id in order where !seen.insert(id).inserted {
            throw TabError(.invalid, "'order' names '\(id)' twice")
        }
        if let group {
            guard let at = locate(group) else { throw .noTab(group) }
            let g = self[at: at]
            guard let kids = g.children else {
                throw TabError(.conflict, "tab '\(group)' is not a group: only a group's children can be reordered")
            }
            guard g.allowsReordering else {
                throw TabError(.conflict, "group '\(group)' does not allow reordering; give it \"allows_reordering\": true in set_tabs or add_tab")
            }
            let ids = Set(kids.map(\.id))
            if let stranger = order.first(where: { !ids.contains($0) }) {
                throw TabError(.invalid, "'\(stranger)' is not a child of group '\(group)'; 'order' must list its children: \(kids.map(\.id).joined(separator: ", "))")
            }
            if let missing = kids.first(where: { !seen.contains($0.id) }) {
                throw TabError(.invalid, "'order' leaves out '\(missing.id)'; it must list every child of group '\(group)'")
            }
            guard order != g.orderedChildren.map(\.id) else { return }
            modify(at: at) { $0.displayOrder = order }
            refreshArranged()
        } else {
            var placements: [String: (Placement, Bool)] = [:]
            forEachTab { t, isRoot, hiddenAbove in placements[t.id] = (t.effectivePlacement(isRoot: isRoot), t.hidden || hiddenAbove) }
            for id in order {
                guard let (p, hidden) = placements[id] else { throw .noTab(id) }
                if hidden { throw TabError(.conflict, "tab '\(id)' is hidden and cannot be put in the bar; show it with set_hidden first") }
                switch p {
                case .fixed: throw TabError(.conflict, "tab '\(id)' is fixed: it leads the bar and is not part of the user's order; leave it out")
                case .pinned: throw TabError(.conflict, "tab '\(id)' is pinned: it ends the bar and is not part of the user's order; leave it out")
                case .sidebarOnly: throw TabError(.conflict, "tab '\(id)' is sidebar_only and never goes in the bar")
                default: break
                }
            }
            for (id, (p, hidden)) in placements where p == .movable && !hidden && !seen.contains(id) {
                throw TabError(.conflict, "tab '\(id)' is movable: it can move in the bar but not leave it; include it in 'order'")
            }
            guard order != composedBar.middle || barOrder == nil else { return }
            barOrder = order
            refreshArranged()
        }
        out.notify(.displayOrderChanged(group: group, order: order, cause: .user))
        settleSelection(from: before, cause: .customize, &out)  // More may have left the bar
        lend { policy.displayOrderChanged(group: group, order: order, in: $0, effects: &out.effects) }
    }

    // MARK: Fixed and pinned tabs must fit (R13.10)

    /// R13.10: with more root tabs than `max_visible` (hidden ones counted) at most
    /// `max_visible - 1` tabs may be fixed or pinned (More takes a place), else at most
    /// `max_visible`; a tree that breaks this is refused with `conflict`.
    func requireFit(_ roots: [Tab]) throws(TabError) {
        guard !original, !fitUnchecked else { return }
        var count = 0
        func visit(_ t: Tab, root: Bool) {
            let p = t.effectivePlacement(isRoot: root)
            if p == .fixed || p == .pinned { count += 1 }
            for k in t.children ?? [] { visit(k, root: false) }
        }
        for t in roots { visit(t, root: true) }
        let more = idiom != .tv && roots.count > maxVisible
        let room = more ? maxVisible - 1 : maxVisible
        guard count > room else { return }
        throw TabError(.conflict, "\(count) tabs would be fixed or pinned, but a \(idiom.rawValue) bar of max_visible \(maxVisible) with \(roots.count) root tabs holds at most \(room) of them\(more ? " (More takes a place)" : ""); make some default, movable or optional")
    }

    // MARK: Validation

    /// R13.1: ids unique in the whole tree (also against `taken`), groups at most `maxDepth`
    /// deep, a group's `default_child` one of its children.
    static func validateTree(_ roots: [Tab], taken: Set<String> = []) throws(TabError) {
        var seen = taken
        var search: String?
        func visit(_ t: Tab, depth: Int) throws(TabError) {
            try validate(t)
            if t.isSearch {
                // R14.1: one search tab, a root, automatic or pinned.
                guard depth == 1 else { throw TabError(.invalid, "tab '\(t.id)' has role search but is inside a group; the search tab is a root tab") }
                guard t.placement == .automatic || t.placement == .pinned else {
                    throw TabError(.invalid, "tab '\(t.id)' has role search and placement \(t.placement.rawValue); the search tab's placement is automatic or pinned")
                }
                guard t.children == nil else { throw TabError(.invalid, "tab '\(t.id)' has role search and children; the search tab is not a group") }
                if let other = search { throw TabError(.conflict, "tabs '\(other)' and '\(t.id)' both have role search; a controller has one search tab") }
                search = t.id
            }
            guard seen.insert(t.id).inserted else {
                throw taken.contains(t.id)
                    ? TabError(.conflict, "a tab with id '\(t.id)' already exists")
                    : TabError(.conflict, "tab id '\(t.id)' appears twice; tab ids must be unique")
            }
            guard let kids = t.children else {
                if t.defaultChild != nil { throw TabError(.invalid, "tab '\(t.id)' names a default_child but has no children") }
                if t.allowsReordering { throw TabError(.invalid, "tab '\(t.id)' allows reordering but has no children") }
                return
            }
            if !kids.isEmpty, depth >= maxDepth {
                throw TabError(.invalid, "group '\(t.id)' is at depth \(depth) and has children; groups nest at most \(maxDepth) deep")
            }
            if let d = t.defaultChild, !kids.contains(where: { $0.id == d }) {
                throw TabError(.invalid, "default_child '\(d)' of group '\(t.id)' is not one of its children")
            }
            for k in kids { try visit(k, depth: depth + 1) }
        }
        for t in roots { try visit(t, depth: 1) }
    }

    /// What makes the tree impossible, or nil (see `inconsistency`).
    var treeInconsistency: String? {
        do { try Self.validateTree(tabs) } catch { return "controller '\(name)': \(error.message)" }
        var problem: String?
        forEachTab { t, _, _ in
            guard problem == nil, let kids = t.children else { return }
            let ids = kids.map(\.id)
            if let s = t.selectedChild, !ids.contains(s) { problem = "group '\(t.id)' selects '\(s)', which is not its child" }
            if let o = t.displayOrder, o.count != ids.count || Set(o) != Set(ids) { problem = "group '\(t.id)' has a display order that is not its children" }
        }
        if let problem { return "controller '\(name)': \(problem)" }
        if let order = barOrder, Set(order).count != order.count || !Set(order).isSubset(of: treeIDs) {
            return "controller '\(name)' has a bar order that names tabs it does not have"
        }
        return nil
    }
}
