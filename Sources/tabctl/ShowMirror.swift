// `tabctl show`'s picture of a controller: read from one `state` reply, then kept up to date
// from events alone (docs/protocol.md, "Staying in sync"). Two things events do not say:
// `orientation.supported`/`preferred` (policy plugins decide them when asked) and
// `customizing_order` (moves are announced only when the session ends). The mirror keeps
// them as the last `state` reported them and remembers that reply's seq (`readAt`), so the
// drawing can say how old they are.

import TabProtocol

struct ScreenView: Equatable {
    var id: String
    var title: String?

    /// A `stack` array (of `state` or `navigation_changed`): the pushed screens.
    static func stack(_ values: [JSONValue]) -> [ScreenView] {
        values.compactMap {
            guard case .object(let s) = $0, let id = s.text("id") else { return nil }
            return ScreenView(id: id, title: s.text("title"))
        }
    }
}

struct TabView: Equatable {
    var id: String
    var title: String?
    var itemTitle: String?
    var badge: String?
    var navigation: Bool
    var stack: [ScreenView]
    var contentLoaded: Bool

    /// A tab object as `state` reports it (also in `tabs_changed.objects` and `tab_updated`).
    init?(_ value: JSONValue) {
        guard case .object(let o) = value, let id = o.text("id") else { return nil }
        self.id = id
        title = o.text("title")
        let item = o.object("item")
        itemTitle = item?.text("title")
        badge = o.text("badge") ?? item?.text("badge")
        navigation = o.flag("navigation") ?? false
        stack = ScreenView.stack(o.array("stack") ?? [])
        contentLoaded = o.flag("content_loaded") ?? false
    }
}

struct BarView: Equatable {
    /// Tab ids, plus "more" when the More item is shown.
    var visible: [String] = []
    var more: [String] = []
    /// The highlighted item: a tab id, "more", or nil (nothing highlighted).
    var selected: String?
    /// tv only: tabs the bar has no room for.
    var unreachable: [String] = []
    var position = "bottom"

    init() {}

    /// `state`'s `bar` object, or a `bar_changed` event's data (the same members).
    init(_ o: JSONObject) {
        visible = o.strings("visible") ?? []
        more = o.strings("more") ?? []
        selected = o.text("selected")
        unreachable = o.strings("unreachable") ?? []
        position = o.text("position") ?? "bottom"
    }
}

struct ControllerView: Equatable {
    var name: String
    var idiom = "phone"
    var maxVisible = 5
    var tapPops: String?
    /// The seq of the last event this picture includes (0: none yet).
    var seq = 0
    var tabs: [TabView] = []
    var selected: String?
    var selectedIndex: Int?
    var bar = BarView()
    /// nil: nothing may be rearranged.
    var customizable: [String]?
    var customizing = false
    var orientation = "portrait"
    // Not announced by events: as the `state` reply of seq `readAt` reported them.
    var supported: [String] = []
    var preferred: String?
    var readAt = 0
    var customizingOrder: [String]?
    /// When customizingOrder was last known: a `state` reply or the session's start.
    var orderReadAt = 0

    init(name: String) { self.name = name }

    /// A `state` result. A tabd older than issue 17 reports no seq: 0.
    init(state o: JSONObject, name: String) {
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
        orientation = o.object("orientation")?.text("current") ?? "portrait"
        readUnannounced(from: o)
    }

    /// Takes from a `state` result what events do not announce.
    mutating func readUnannounced(from o: JSONObject) {
        supported = o.object("orientation")?.strings("supported") ?? []
        preferred = o.object("orientation")?.text("preferred")
        customizingOrder = o.strings("customizing_order")
        readAt = o.integer("seq") ?? seq
        orderReadAt = readAt
    }

    func tab(_ id: String) -> TabView? { tabs.first { $0.id == id } }

    enum Outcome: Equatable {
        case applied
        /// The controller was deleted: its last event.
        case deleted
        /// The event lacks what the mirror needs (an older tabd, or a malformed event):
        /// read `state` again.
        case unsure
    }

    /// Applies one event (already known to be for this controller, with seq > self.seq).
    mutating func apply(event: String, seq: Int, data: JSONObject) -> Outcome {
        self.seq = seq
        switch event {
        case "tabs_changed":
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
        case "tab_updated":
            guard let object = data["object"], let tab = TabView(object),
                  let i = tabs.firstIndex(where: { $0.id == tab.id }) else { return .unsure }
            tabs[i] = tab
        case "badge_changed":
            guard let id = data.text("tab"), let i = tabs.firstIndex(where: { $0.id == id }) else { return .unsure }
            tabs[i].badge = data.text("value")
        case "navigation_changed":
            guard let id = data.text("tab"), let i = tabs.firstIndex(where: { $0.id == id }),
                  let stack = data.array("stack") else { return .unsure }
            tabs[i].stack = ScreenView.stack(stack)
        case "content_loaded":
            guard let id = data.text("tab"), let i = tabs.firstIndex(where: { $0.id == id }) else { return .unsure }
            tabs[i].contentLoaded = true
        case "selection_changed":
            selected = data.text("tab")
            selectedIndex = data.integer("index")
        case "bar_changed":
            bar = BarView(data)
        case "customizable_changed":
            customizable = data.strings("tabs")
        case "will_begin_customizing":
            customizing = true
            // What customize.begin starts from; later moves are not announced.
            customizingOrder = tabs.map(\.id)
            orderReadAt = seq
        case "will_end_customizing":
            break
        case "did_end_customizing":
            customizing = false
            customizingOrder = nil
            // The new order of all tabs (a tabs_changed with the objects follows when it changed).
            if let order = data.strings("tabs"), Set(order) == Set(tabs.map(\.id)), order.count == tabs.count {
                tabs = order.compactMap { id in tabs.first { $0.id == id } }
            }
        case "orientation_changed":
            guard let to = data.text("orientation") else { return .unsure }
            orientation = to
        case "controller_deleted":
            return .deleted
        default:
            break  // did_select, appearance, containment, plugin: nothing the drawing shows
        }
        return .applied
    }

    /// Events after which what events do not announce (supported, preferred orientation)
    /// may have changed because the tabs' own declarations or the orientation did (R9.1,
    /// R9.4). `show --watch` reads `state` again after them for those fields only.
    static let rereadAfter: Set<String> = ["tabs_changed", "tab_updated", "orientation_changed"]
}

extension JSONObject {
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
