// `tabctl show`'s picture of a controller: read from one `state` reply, then kept up to date
// from events alone (docs/protocol.md, "Staying in sync"). Two things events do not say:
// `orientation.supported`/`preferred` (policy plugins decide them when asked) and
// `customizing_order` (moves are announced only when the session ends). The mirror keeps
// them as the last `state` reported them and remembers that reply's seq (`readAt`), so the
// drawing can say how old they are.

import TabCore
import TabJSON

public struct ScreenView: Equatable, Sendable {
    public var id: String
    public var title: String?

    /// A `stack` array (of `state` or `navigation_changed`): the pushed screens.
    static func stack(_ values: [JSONValue]) -> [ScreenView] {
        values.compactMap {
            guard let s = try? Screen(json: $0, at: "stack", .state, orNull: false) else { return nil }
            return ScreenView(id: s.id, title: s.title)
        }
    }
}

public struct TabView: Equatable, Sendable {
    public var id: String
    public var title: String?
    public var itemTitle: String?
    public var badge: String?
    public var navigation: Bool
    public var stack: [ScreenView]
    public var contentLoaded: Bool
    // R13 (nil/false when the tab object has none of its members).
    public var placement: String?
    public var hidden = false
    public var children: [TabView]?
    public var defaultChild: String?
    /// The children's ids in the user's order.
    public var displayOrder: [String] = []
    /// The child the group remembers: known from a selection's path, or from `state` when
    /// its `selected_child` is not what the group would show without one (nil: none known).
    public var remembered: String?
    /// Whether `remembered` is known for sure (else the group may remember a child `state`
    /// does not name: a change of what the group would show is a reason to read `state`).
    public var rememberedKnown = false
    // R14 and R13.12.
    /// The search tab (`role: "search"`).
    public var isSearch = false
    public var enabled = true
    /// A group collapsed in the sidebar: false.
    public var expanded = true

    /// A tab object as `state` reports it (also in `tabs_changed.objects` and `tab_updated`),
    /// read by TabCore's one description of a tab (`Tab.fields`); nil when it is not one.
    public init?(_ value: JSONValue) {
        guard let tab = try? Tab(json: value, at: "tab", .state) else { return nil }
        self.init(tab)
    }

    /// The picture of a tab read from its `state` object (whose item is the effective one).
    init(_ tab: Tab) {
        id = tab.id
        title = tab.title
        itemTitle = tab.item?.title
        badge = tab.badge
        navigation = tab.navigation
        stack = tab.stack.map { ScreenView(id: $0.id, title: $0.title) }
        contentLoaded = tab.contentLoaded
        // R13's members are reported only for a tab that uses R13 or R14.
        placement = tab.usesModernModel ? tab.placement.rawValue : nil
        hidden = tab.hidden
        isSearch = tab.isSearch
        enabled = tab.enabled
        expanded = tab.isExpanded
        guard let kids = tab.children else { return }
        let parsed = kids.map(TabView.init)
        children = parsed
        defaultChild = tab.defaultChild
        displayOrder = tab.displayOrder ?? parsed.map(\.id)
        let shown = tab.selectedChild
        rememberedKnown = shown != fallbackChild
        remembered = rememberedKnown ? shown : nil
    }

    /// The visible children in display order.
    public var visibleChildren: [TabView] {
        displayOrder.compactMap { id in children?.first { $0.id == id } }.filter { !$0.hidden }
    }

    /// What the group shows when it remembers no visible child: its default child, else its
    /// first visible one (R13.1).
    public var fallbackChild: String? {
        let visible = visibleChildren
        return visible.first { $0.id == defaultChild }?.id ?? visible.first?.id
    }

    /// The child the group shows (`state`'s `selected_child`).
    public var shownChild: String? {
        visibleChildren.first { $0.id == remembered }?.id ?? fallbackChild
    }

    /// Applies `body` to the tab `id` of this subtree; false when it is not there.
    public mutating func modify(_ id: String, _ body: (inout TabView) -> Void) -> Bool {
        if self.id == id { body(&self); return true }
        guard children != nil else { return false }
        for i in children!.indices where children![i].modify(id, body) { return true }
        return false
    }

    /// The group whose child is `id` in this subtree, as a path of ids, or nil.
    public func parent(of id: String) -> String? {
        guard let kids = children else { return nil }
        if kids.contains(where: { $0.id == id }) { return self.id }
        return kids.lazy.compactMap { $0.parent(of: id) }.first
    }
}


public struct BarView: Equatable, Sendable {
    /// Tab ids, plus "more" when the More item is shown.
    public var visible: [String] = []
    public var more: [String] = []
    /// The highlighted item: a tab id, "more", or nil (nothing highlighted).
    public var selected: String?
    /// tv only: tabs the bar has no room for.
    public var unreachable: [String] = []
    public var position = "bottom"
    /// The whole bar is hidden (R14.3).
    public var hidden = false

    public init() {}

    /// `state`'s `bar` object, or a `bar_changed` event's data (the same members).
    public init(_ o: JSONObject) {
        visible = o.strings("visible") ?? []
        more = o.strings("more") ?? []
        selected = o.text("selected")
        unreachable = o.strings("unreachable") ?? []
        position = o.text("position") ?? "bottom"
        hidden = o.flag("hidden") ?? false
    }
}

public struct ControllerView: Equatable, Sendable {
    public var name: String
    public var idiom = "phone"
    public var maxVisible = 5
    public var tapPops: String?
    /// The seq of the last event this picture includes (0: none yet).
    public var seq = 0
    public var tabs: [TabView] = []
    public var selected: String?
    public var selectedIndex: Int?
    public var bar = BarView()
    /// nil: nothing may be rearranged.
    public var customizable: [String]?
    public var customizing = false
    public var orientation = "portrait"
    // Not announced by events: as the `state` reply of seq `readAt` reported them.
    public var supported: [String] = []
    public var preferred: String?
    public var readAt = 0
    public var customizingOrder: [String]?
    /// When customizingOrder was last known: a `state` reply or the session's start.
    public var orderReadAt = 0
    // R13: reported only by a controller that uses it (`mode` nil: automatic, or not reported).
    public var mode: String?
    /// Whether the sidebar is to be shown where it exists (it is at first, R13.6).
    public var sidebarWanted = true
    // R14 (from `state`, then from events).
    public var sizeClass: String?
    public var editing = false
    /// Whether search is active; nil when the controller has no search tab.
    public var searchActive: Bool?
    /// From `state`, then from `bar_changed` (which `set_compact_tabs` sends; without the
    /// member: null).
    public var compactTabs: [String]?

    public init(name: String) { self.name = name }

    /// A `state` result. A tabd older than issue 17 reports no seq: 0.
    public init(state o: JSONObject, name: String) {
        self.name = o.text("controller") ?? name
        idiom = o.text("idiom") ?? "phone"
        maxVisible = o.integer("max_visible") ?? 5
        tapPops = o.text("tap_pops")
        seq = o.integer("seq") ?? 0
        tabs = (o.array("tabs") ?? []).compactMap(TabView.init)
        selected = o.text("selected")
        selectedIndex = o.integer("selected_index")
        bar = o.object("bar").map(BarView.init) ?? BarView()
        customizable = o.strings("customizable")
        customizing = o.flag("customizing") ?? false
        // A tab controller's `orientation` is an object; a navigation, split, drawer or custom
        // controller's the root's current one (R15.10), which orientation_changed moves too.
        orientation = o.object("orientation")?.text("current") ?? o.text("orientation") ?? "portrait"
        mode = o.text("mode")
        if let sb = o.object("sidebar"), sb.flag("available") == true { sidebarWanted = sb.flag("visible") ?? true }
        sizeClass = o.text("size_class")
        editing = o.flag("editing") ?? false
        searchActive = o.object("search")?.flag("active")
        readUnannounced(from: o)
    }

    /// Applies `body` to the tab `id` anywhere in the tree; false when there is none.
    public mutating func modifyTab(_ id: String, _ body: (inout TabView) -> Void) -> Bool {
        for i in tabs.indices where tabs[i].modify(id, body) { return true }
        return false
    }

    /// Any tab of the tree.
    public func anyTab(_ id: String) -> TabView? {
        func find(_ list: [TabView]) -> TabView? {
            for t in list {
                if t.id == id { return t }
                if let kids = t.children, let found = find(kids) { return found }
            }
            return nil
        }
        return find(tabs)
    }

    /// Whether the controller reports R13's members: a mode, or a tab object with them.
    public var usesModernModel: Bool {
        (mode ?? "automatic") != "automatic" || tabs.contains { $0.placement != nil } || sizeClass != nil
    }

    /// What is selected, root … leaf (R13.2): the selected root, then each group's shown child.
    public var selectedPath: [String] {
        guard let sel = selected else { return [] }
        var path = [sel], t = tab(sel)
        while let g = t, let next = g.shownChild { path.append(next); t = g.children?.first { $0.id == next } }
        return path
    }

    /// Whether the sidebar exists (R13.6): a pad in tab_sidebar mode, or automatic with a group.
    public var sidebarAvailable: Bool {
        idiom == "pad" && sizeClass != "compact"
            && (mode == "tab_sidebar" || (mode ?? "automatic") == "automatic" && tabs.contains { $0.children != nil })
    }

    /// The sidebar's tree as `state` reports it: visible tabs in display order, with depth.
    public var sidebarRows: [(depth: Int, tab: TabView)] {
        var rows: [(Int, TabView)] = []
        func visit(_ t: TabView, _ depth: Int) {
            rows.append((depth, t))
            for k in t.visibleChildren { visit(k, depth + 1) }
        }
        for t in tabs where !t.hidden { visit(t, 0) }
        return rows
    }

    /// Each group on `path` remembers the child the path goes through (R13.1).
    public mutating func remember(_ path: [String]) {
        for (group, child) in zip(path, path.dropFirst()) {
            _ = modifyTab(group) { $0.remembered = child; $0.rememberedKnown = true }
        }
    }

    /// After a group's visible children or their order changed: fine when the group knows
    /// what it remembers, else what it shows may have changed in a way events do not say.
    public func groupIsSure(_ id: String?) -> Bool {
        guard let id, let g = anyTab(id) else { return true }
        return g.rememberedKnown || g.children == nil
    }

    /// Takes from a `state` result what events do not announce.
    public mutating func readUnannounced(from o: JSONObject) {
        supported = o.object("orientation")?.strings("supported") ?? []
        preferred = o.object("orientation")?.text("preferred")
        customizingOrder = o.strings("customizing_order")
        compactTabs = o.strings("compact_tabs")
        readAt = o.integer("seq") ?? seq
        orderReadAt = readAt
    }

    public func tab(_ id: String) -> TabView? { tabs.first { $0.id == id } }

    public enum Outcome: Equatable, Sendable {
        case applied
        /// The controller was deleted: its last event.
        case deleted
        /// The event lacks what the mirror needs (an older tabd, or a malformed event):
        /// read `state` again.
        case unsure
    }

    /// Whether what the picture holds says the controller uses R13 or R14, so that `state`
    /// reports their members (`mode`, `size_class`, `editing`, `selected_path`, …). False
    /// when nothing it holds does: a user's order of the bar (`reorder` without a group),
    /// which neither events nor `state` show, may still.
    public var holdsModernModel: Bool {
        (mode ?? "automatic") != "automatic" || compactTabs != nil || bar.hidden || editing
            || sizeClass.map { $0 != Idiom(rawValue: idiom)?.defaultSizeClass.rawValue } == true
            || tabs.contains { $0.placement != nil }
    }

    /// The events after which `state` may start or stop reporting R13's and R14's members
    /// (no event says so): the mirror compares what it holds with what it had.
    static let mayTurnTheModernModel: Set<TabEvent.Kind> = [
        .tabsChanged, .tabUpdated, .barChanged, .modeChanged, .sizeClassChanged, .willBeginEditing, .didEndEditing,
    ]

    /// Applies one event (already known to be for this controller, with seq > self.seq).
    public mutating func apply(event: String, seq: Int, data: JSONObject) -> Outcome {
        self.seq = seq
        // An event of a newer tabd: nothing this picture has.
        guard let kind = TabEvent.Kind(rawValue: event) else { return .applied }
        let reported = mode != nil  // `state` reports `mode` exactly when it reports R13's members
        switch kind {
        case .tabsChanged:
            // `tabs` is the new order; `objects` the tabs added or changed. The others are as
            // they were (the same children, R2.5).
            guard let ids = data.array("tabs"), let objects = data.array("objects") else { return .unsure }
            let parsed = objects.compactMap(TabView.init)
            guard parsed.count == objects.count else { return .unsure }
            var known = Dictionary(tabs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for t in parsed { known[t.id] = t }
            var next: [TabView] = []
            for value in ids {
                guard case .string(let id) = value, let t = known[id] else { return .unsure }
                next.append(t)
            }
            tabs = next
            followTheSearchTab()
        case .tabUpdated:
            guard let object = data["object"], let tab = TabView(object), modifyTab(tab.id, { $0 = tab }) else { return .unsure }
            followTheSearchTab()
        case .badgeChanged:
            guard let id = data.text("tab"), modifyTab(id, { $0.badge = data.text("value") }) else { return .unsure }
        case .navigationChanged:
            guard let id = data.text("tab"), let stack = data.array("stack"),
                  modifyTab(id, { $0.stack = ScreenView.stack(stack) }) else { return .unsure }
        case .contentLoaded:
            // Any tab of the tree: in a group, the leaf's content loads (R13.2).
            guard let id = data.text("tab"), modifyTab(id, { $0.contentLoaded = true }) else { return .unsure }
        case .selectionChanged:
            selected = data.text("tab")
            selectedIndex = data.integer("index")
            if let path = data.strings("path") { remember(path) }
        case .visibilityChanged:
            // R13.3: each tab's new visibility; a group whose children change may show another child.
            guard let changes = data.array("tabs") else { return .unsure }
            for case .object(let change) in changes {
                guard let id = change.text("id"), let hidden = change.flag("hidden"),
                      modifyTab(id, { $0.hidden = hidden }) else { return .unsure }
                if !groupIsSure(tabs.lazy.compactMap { $0.parent(of: id) }.first) { return .unsure }
            }
        case .displayOrderChanged:
            // R13.5: a group's order (the bar's order is in bar_changed).
            guard let order = data.strings("order") else { return .unsure }
            if let group = data.text("group") {
                guard modifyTab(group, { $0.displayOrder = order }), groupIsSure(group) else { return .unsure }
            } else if !reported {
                // A user's order of the bar makes `state` report R13's members from now on.
                return .unsure
            }
        case .sidebarChanged:
            // R13.12: the whole sidebar; its groups' expansion is read from its items.
            guard let visible = data.flag("visible") else { return .unsure }
            if data.flag("available") != false { sidebarWanted = visible }
            func expand(_ items: [JSONValue]) {
                for case .object(let i) in items {
                    if let id = i.text("id"), let e = i.flag("expanded") { _ = modifyTab(id) { $0.expanded = e } }
                    expand(i.array("children") ?? [])
                }
            }
            expand(data.array("items") ?? [])
        case .searchChanged:
            guard let active = data.flag("active") else { return .unsure }
            searchActive = active
            followTheSearchTab()  // (a set_tabs that removes the search tab cancels search after it)
        case .sizeClassChanged:
            guard let size = data.text("size_class") else { return .unsure }
            sizeClass = size
        case .modeChanged:
            guard let m = data.text("mode") else { return .unsure }
            mode = m
        case .willBeginEditing:
            editing = true
        case .didEndEditing:
            editing = false
        case .barChanged:
            bar = BarView(data)
            compactTabs = data.strings("compact_tabs")
        case .customizableChanged:
            customizable = data.strings("tabs")
        case .willBeginCustomizing:
            customizing = true
            // What customize.begin starts from; later moves are not announced.
            customizingOrder = tabs.map(\.id)
            orderReadAt = seq
        case .didEndCustomizing:
            customizing = false
            customizingOrder = nil
            // The new order of all tabs (a tabs_changed with the objects follows when it changed).
            if let order = data.strings("tabs"), Set(order) == Set(tabs.map(\.id)), order.count == tabs.count {
                tabs = order.compactMap { id in tabs.first { $0.id == id } }
            }
        case .orientationChanged:
            guard let to = data.text("orientation") else { return .unsure }
            orientation = to
        case .controllerDeleted:
            return .deleted
        case .didSelect, .appearance, .containment, .willEndCustomizing, .plugin:
            break  // nothing the drawing shows
        case .drawerChanged, .childrenChanged, .configChanged, .windowChanged, .parentChanged, .statusBarChanged,
             .displayModeWillChange, .splitCollapsed, .splitExpanded, .splitChanged:
            return .unsure  // R15's containers' events: a tab controller's picture has none of them
        }
        if Self.mayTurnTheModernModel.contains(kind) {
            // `bar_changed` is `state`'s bar, which has `hidden` exactly when R13's members are
            // reported; after the others, what the picture holds is a sure yes, a likely no.
            let now = kind == .barChanged ? data["hidden"] != nil : holdsModernModel
            if now != reported { return .unsure }
        }
        return .applied
    }

    /// `state` has `search` exactly while it reports R13's members and a root search tab
    /// exists, inactive when the tab comes (R14.1): no event but the tab's own says so.
    mutating func followTheSearchTab() {
        searchActive = mode != nil && tabs.contains(where: \.isSearch) ? (searchActive ?? false) : nil
    }

    /// Events after which what events do not announce (supported, preferred orientation)
    /// may have changed because the tabs' own declarations or the orientation did (R9.1,
    /// R9.4). `show --watch` reads `state` again after them for those fields only.
    public static let rereadAfter: Set<String> = ["tabs_changed", "tab_updated", "orientation_changed"]
}

extension JSONObject {  // internal: the tests have accessors of their own
    func text(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        return nil
    }
    func integer(_ key: String) -> Int? {
        if case .int(let i)? = self[key] { return Int(i) }
        return nil
    }
    func flag(_ key: String) -> Bool? {
        if case .bool(let b)? = self[key] { return b }
        return nil
    }
    func object(_ key: String) -> JSONObject? {
        if case .object(let o)? = self[key] { return o }
        return nil
    }
    func array(_ key: String) -> [JSONValue]? {
        if case .array(let a)? = self[key] { return a }
        return nil
    }
    /// An array of strings (nil when absent, null or not all strings).
    func strings(_ key: String) -> [String]? {
        guard let a = array(key) else { return nil }
        let s = a.compactMap { v -> String? in if case .string(let s) = v { return s } else { return nil } }
        return s.count == a.count ? s : nil
    }
}
