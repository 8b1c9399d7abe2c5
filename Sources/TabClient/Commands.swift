// One function per command of docs/protocol.md (TabCore's CommandName: the one list of
// command names; TabClientTests.everyCommandHasAFunction holds the two together). Each sends
// the command with the fields it names and returns the reply's `result` (typed where a front
// end reads it: hello, state, controllers, subscribe); an error reply throws TabdError.
// `controller` defaults to tabd's default (`main`) when nil. The commands of navigation,
// drawer and custom controllers (R15) are in Containers.swift.

import TabCore
import TabJSON
import TabProtocol

/// `hello`'s answer.
public struct Hello: Sendable, Equatable {
    public var name: String
    public var version: String
    public var protocolVersion: Int
    /// Changes at every start of tabd (docs/protocol.md, "Staying in sync").
    public var instance: String
    public var result: JSONObject

    public init(_ o: JSONObject) {
        name = o.text("name") ?? ""
        version = o.text("version") ?? ""
        protocolVersion = o.integer("protocol") ?? 0
        instance = o.text("instance") ?? ""
        result = o
    }
}

/// One entry of `controllers`.
public struct ControllerSummary: Sendable, Equatable {
    public var name: String
    public var idiom: String
    /// A tab controller's (0 for the other kinds).
    public var maxVisible: Int
    public var tabs: Int
    /// R15: what the container is, where it is attached (nil: a root) and whether it is a
    /// window's root (a tab controller always is, in this tabd).
    public var kind: ContainerKind = .tab
    public var parent: Attachment?
    public var window = true
}

/// Where a selection or a tap goes.
public enum Target: Sendable, Equatable {
    case tab(String)
    case index(Int)
    case more

    var fields: [(String, JSONValue)] {
        switch self {
        case .tab(let id): return [("tab", .string(id))]
        case .index(let i): return [("index", .int(Int64(i)))]
        case .more: return [("more", .bool(true))]
        }
    }
}

extension TabClient {
    func on(_ controller: String?, _ fields: [(String, JSONValue)]) -> [(String, JSONValue)] {
        (controller.map { [("controller", JSONValue.string($0))] } ?? []) + fields
    }

    static func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }

    /// `"brief": true` when asked (docs/protocol.md: the reply without the list as long as the
    /// controller — `tabs`, `customizable`, `customizing_order`).
    private static func brief(_ brief: Bool) -> [(String, JSONValue)] { brief ? [("brief", .bool(true))] : [] }

    public func hello() async throws -> Hello { Hello(try await request("hello")) }

    public func ping() async throws { try await request("ping") }

    /// `state` as the typed picture a front end draws (TabClient's model).
    public func state(_ controller: String? = nil) async throws -> ControllerView {
        ControllerView(state: try await stateObject(controller), name: controller ?? "main")
    }

    /// `state`'s result as tabd sent it.
    public func stateObject(_ controller: String? = nil) async throws -> JSONObject {
        try await request("state", on(controller, []))
    }

    @discardableResult
    public func select(_ target: Target, controller: String? = nil) async throws -> JSONObject {
        try await request("select", on(controller, target.fields))
    }

    /// What a user's tap does: the policy plugins decide (a refusal throws TabdError with
    /// code `denied` and the refusing `plugin`). `.index` is not a tap's.
    @discardableResult
    public func tap(_ target: Target, controller: String? = nil) async throws -> JSONObject {
        try await request("tap", on(controller, target.fields))
    }

    /// `tabs`: tab objects as docs/protocol.md describes them (only `id` is required).
    @discardableResult
    public func setTabs(_ tabs: [JSONValue], selected: Target? = nil, animated: Bool? = nil, controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("tabs", .array(tabs))]
        switch selected {
        case .tab(let id)?: fields.append(("selected", .string(id)))
        case .index(let i)?: fields.append(("selected", .int(Int64(i))))
        case .more?, nil: break
        }
        if let animated { fields.append(("animated", .bool(animated))) }
        return try await request("set_tabs", on(controller, fields + Self.brief(brief)))
    }

    /// `group`: the group the tab goes into (nil: the root); `index` its place there.
    @discardableResult
    public func addTab(_ tab: JSONValue, at index: Int? = nil, group: String? = nil, controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("tab", tab)]
        if let index { fields.append(("index", .int(Int64(index)))) }
        if let group { fields.append(("group", .string(group))) }
        return try await request("add_tab", on(controller, fields + Self.brief(brief)))
    }

    @discardableResult
    public func removeTab(_ id: String, controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        try await request("remove_tab", on(controller, [("tab", .string(id))] + Self.brief(brief)))
    }

    /// `fields`: the members to change (`title`, `item`, …), as update_tab takes them.
    @discardableResult
    public func updateTab(_ id: String, _ fields: [(String, JSONValue)], controller: String? = nil) async throws -> JSONObject {
        try await request("update_tab", on(controller, [("tab", .string(id))] + fields))
    }

    @discardableResult
    public func badge(_ id: String, _ value: String?, controller: String? = nil) async throws -> JSONObject {
        try await request("badge", on(controller, [("tab", .string(id)), ("value", value.map(JSONValue.string) ?? .null)]))
    }

    @discardableResult
    public func push(_ id: String, screen: String, title: String? = nil, controller: String? = nil) async throws -> JSONObject {
        var s: [(String, JSONValue)] = [("id", .string(screen))]
        if let title { s.append(("title", .string(title))) }
        return try await request("push", on(controller, [("tab", .string(id)), ("screen", .object(JSONObject(s)))]))
    }

    @discardableResult
    public func pop(_ id: String, controller: String? = nil) async throws -> JSONObject {
        try await request("pop", on(controller, [("tab", .string(id))]))
    }

    @discardableResult
    public func popToRoot(_ id: String, controller: String? = nil) async throws -> JSONObject {
        try await request("pop_to_root", on(controller, [("tab", .string(id))]))
    }

    /// nil: nothing may be rearranged.
    @discardableResult
    public func customizable(_ ids: [String]?, controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        try await request("customizable", on(controller, [("tabs", ids.map(Self.strings) ?? .null)] + Self.brief(brief)))
    }

    @discardableResult
    public func customizeBegin(controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        try await request("customize.begin", on(controller, Self.brief(brief)))
    }

    @discardableResult
    public func customizeMove(_ id: String, to: Int, controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        try await request("customize.move", on(controller, [("tab", .string(id)), ("to", .int(Int64(to)))] + Self.brief(brief)))
    }

    @discardableResult
    public func customizeEnd(controller: String? = nil, brief: Bool = false) async throws -> JSONObject {
        try await request("customize.end", on(controller, Self.brief(brief)))
    }

    @discardableResult
    public func rotate(_ orientation: String, controller: String? = nil) async throws -> JSONObject {
        try await request("rotate", on(controller, [("orientation", .string(orientation))]))
    }

    @discardableResult
    public func layout(width: Double, height: Double, statusBar: Double? = nil, controller: String? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("width", .double(width)), ("height", .double(height))]
        if let statusBar { fields.append(("status_bar", .double(statusBar))) }
        return try await request("layout", on(controller, fields))
    }

    @discardableResult
    public func setHidden(_ id: String, _ hidden: Bool, controller: String? = nil) async throws -> JSONObject {
        try await request("set_hidden", on(controller, [("tab", .string(id)), ("hidden", .bool(hidden))]))
    }

    /// `group` nil: the bar's order.
    @discardableResult
    public func reorder(group: String?, _ order: [String], controller: String? = nil) async throws -> JSONObject {
        try await request("reorder", on(controller, [("group", group.map(JSONValue.string) ?? .null), ("order", Self.strings(order))]))
    }

    @discardableResult
    public func sidebar(visible: Bool, controller: String? = nil) async throws -> JSONObject {
        try await request("sidebar", on(controller, [("visible", .bool(visible))]))
    }

    /// Expands or collapses a group in the sidebar (R13.12).
    @discardableResult
    public func setExpanded(group: String, _ expanded: Bool, controller: String? = nil) async throws -> JSONObject {
        try await request("set_expanded", on(controller, [("group", .string(group)), ("expanded", .bool(expanded))]))
    }

    /// Activates search (only with the search tab selected) or cancels it (R14.1).
    @discardableResult
    public func search(active: Bool, controller: String? = nil) async throws -> JSONObject {
        try await request("search", on(controller, [("active", .bool(active))]))
    }

    /// A disabled tab stays in the bar and the sidebar, but a tap on it is refused (R14.2).
    @discardableResult
    public func setEnabled(_ id: String, _ enabled: Bool, controller: String? = nil) async throws -> JSONObject {
        try await request("set_enabled", on(controller, [("tab", .string(id)), ("enabled", .bool(enabled))]))
    }

    /// Hides or shows the whole bar (R14.3).
    @discardableResult
    public func setBarHidden(_ hidden: Bool, animated: Bool? = nil, controller: String? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = [("hidden", .bool(hidden))]
        if let animated { fields.append(("animated", .bool(animated))) }
        return try await request("set_bar_hidden", on(controller, fields))
    }

    /// `sizeClass`: `regular` or `compact`; only a pad changes it (R14.4).
    @discardableResult
    public func setSizeClass(_ sizeClass: String, controller: String? = nil) async throws -> JSONObject {
        try await request("set_size_class", on(controller, [("size_class", .string(sizeClass))]))
    }

    /// The root tabs compact appearances show (R14.4); nil: all.
    @discardableResult
    public func setCompactTabs(_ ids: [String]?, controller: String? = nil) async throws -> JSONObject {
        try await request("set_compact_tabs", on(controller, [("tabs", ids.map(Self.strings) ?? .null)]))
    }

    /// `mode`: `automatic`, `tab_bar` or `tab_sidebar` (R14.5).
    @discardableResult
    public func setMode(_ mode: String, controller: String? = nil) async throws -> JSONObject {
        try await request("set_mode", on(controller, [("mode", .string(mode))]))
    }

    /// The sidebar's editing session (R14.6), where the sidebar exists.
    @discardableResult
    public func editBegin(controller: String? = nil) async throws -> JSONObject {
        try await request("edit.begin", on(controller, []))
    }

    @discardableResult
    public func editEnd(controller: String? = nil) async throws -> JSONObject {
        try await request("edit.end", on(controller, []))
    }

    /// The child `group` shows, without selecting it unless the group is on the selected
    /// path (R14.7).
    @discardableResult
    public func selectChild(group: String, _ child: String, controller: String? = nil) async throws -> JSONObject {
        try await request("select_child", on(controller, [("group", .string(group)), ("child", .string(child))]))
    }

    /// The archive to hand to `restore`.
    public func preserve(controller: String? = nil) async throws -> JSONObject {
        try await request("preserve", on(controller, []))
    }

    @discardableResult
    public func restore(_ archive: JSONValue, controller: String? = nil) async throws -> JSONObject {
        try await request("restore", on(controller, [("archive", archive)]))
    }

    public func controllers() async throws -> [ControllerSummary] {
        (try await request("controllers").array("controllers") ?? []).compactMap {
            guard case .object(let o) = $0, let name = o.text("name") else { return nil }
            let parent: Attachment? = o.attachment("parent") ?? nil
            return ControllerSummary(name: name, idiom: o.text("idiom") ?? "phone", maxVisible: o.integer("max_visible") ?? 0, tabs: o.integer("tabs") ?? 0,
                                     kind: o.text("kind").flatMap(ContainerKind.init) ?? .tab, parent: parent, window: o.flag("window") ?? true)
        }
    }

    @discardableResult
    public func controllerCreate(_ name: String, idiom: String? = nil, maxVisible: Int? = nil, fields: [(String, JSONValue)] = []) async throws -> JSONObject {
        var f: [(String, JSONValue)] = [("controller", .string(name))]
        if let idiom { f.append(("idiom", .string(idiom))) }
        if let maxVisible { f.append(("max_visible", .int(Int64(maxVisible)))) }
        return try await request("controller.create", f + fields)
    }

    /// For administrators (`forbidden` otherwise).
    @discardableResult
    public func controllerDelete(_ name: String) async throws -> JSONObject {
        try await request("controller.delete", [("controller", .string(name))])
    }

    /// `events` nil: all (`["*"]`); `controllers` nil: all controllers. Returns the reply's
    /// `seqs`: where each controller's numbering stands. The events come on `events`.
    @discardableResult
    /// `grouped`: each command's events as one line (docs/protocol.md, "A command's events as
    /// one unit"); `events` and `nextEvents()` hand them out one by one either way.
    public func subscribe(events: [String]? = nil, controllers: [String]? = nil, grouped: Bool? = nil) async throws -> [String: Int] {
        var fields: [(String, JSONValue)] = [("events", Self.strings(events ?? ["*"])), ("controllers", controllers.map(Self.strings) ?? .null)]
        if let grouped { fields.append(("grouped", .bool(grouped))) }
        let result = try await request("subscribe", fields)
        var seqs: [String: Int] = [:]
        for (name, value) in result.object("seqs") ?? JSONObject() { if case .int(let n) = value { seqs[name] = Int(n) } }
        return seqs
    }

    @discardableResult
    public func unsubscribe(events: [String]? = nil) async throws -> JSONObject {
        try await request("unsubscribe", [("events", Self.strings(events ?? ["*"]))])
    }

    public func plugins() async throws -> JSONObject { try await request("plugins") }

    /// A plugin's method; returns its `value`.
    public func pluginCall(_ plugin: String, _ method: String, args: JSONValue? = nil, controller: String? = nil) async throws -> JSONValue {
        var fields: [(String, JSONValue)] = [("plugin", .string(plugin)), ("method", .string(method))]
        if let args { fields.append(("args", args)) }
        return try await request("plugin.call", on(controller, fields))["value"] ?? .null
    }

    /// The login gate's login (the reference plugin `login-gate`).
    @discardableResult
    public func login(user: String, password: String, controller: String? = nil) async throws -> JSONValue {
        try await pluginCall("login-gate", "login", args: .object(JSONObject([("user", .string(user)), ("password", .string(password))])), controller: controller)
    }

    /// The last decisions; each filter given narrows them (`controller`, `plugin`, `kind`).
    public func explain(limit: Int? = nil, controller: String? = nil, plugin: String? = nil, kind: DecisionKind? = nil) async throws -> JSONObject {
        var fields: [(String, JSONValue)] = limit.map { [("limit", .int(Int64($0)))] } ?? []
        if let plugin { fields.append(("plugin", .string(plugin))) }
        if let kind { fields.append(("kind", .string(kind.rawValue))) }
        return try await request("explain", on(controller, fields))
    }

    /// For administrators (`forbidden` otherwise).
    @discardableResult
    public func reload() async throws -> JSONObject { try await request("reload") }

    public func stats() async throws -> JSONObject { try await request("stats") }

    /// The configuration tabd runs with (`file`, `flags`, `config`). For administrators
    /// (`forbidden` otherwise).
    public func config() async throws -> JSONObject { try await request("config") }

    /// The OpenMetrics text (`format` nil), or `prometheus`'s.
    public func metrics(format: String? = nil) async throws -> String {
        try await request("metrics", format.map { [("format", .string($0))] } ?? []).text("text") ?? ""
    }
}
