// R11.3: the controller as the snapshot keeps it (`writeSnapshot`, `init(snapshot:)`), and
// what a loaded snapshot must not be (`inconsistency`).

import TabJSON

extension Controller {
    /// What makes this controller impossible (a state no sequence of commands produces), or
    /// nil. A snapshot whose checksum is right may still have been written by hand or by a
    /// buggy build: the store refuses it instead of trusting it.
    public var inconsistency: String? {
        guard TabBarOptions.maxVisibleRange(idiom).contains(maxVisible) else { return "controller '\(name)' has max_visible \(maxVisible)" }
        var ids = Set<String>()
        for t in tabs {
            do { try Self.validate(t) } catch { return "controller '\(name)': \(error.message)" }
            guard ids.insert(t.id).inserted else { return "controller '\(name)' has tab '\(t.id)' twice" }
        }
        if case .tab(let id) = selection, !ids.contains(id) { return "controller '\(name)' selects tab '\(id)', which it does not have" }
        guard Set(customizableList).count == customizableList.count, customizableList.allSatisfy(ids.contains) else {
            return "controller '\(name)' has customizable tabs it does not have"
        }
        if customizableAll ? !customizableList.isEmpty : customizableList.count == tabs.count {
            return "controller '\(name)' holds its customizable tabs in two forms"
        }
        for order in [customizingOrder, customizingStart].compactMap({ $0 }) where order.count != tabs.count || Set(order) != ids {
            return "controller '\(name)' has a customizing order that is not its tabs"
        }
        if (customizingOrder == nil) != (customizingStart == nil) { return "controller '\(name)' has half a customization session" }
        return treeInconsistency
    }
}

extension Controller {
    /// The controller as the snapshot keeps it: the names Swift's Codable gave its fields,
    /// keys sorted, what holds its default left out where Codable left it out.
    func writeSnapshot(to w: inout JSONWriter) {
        var m = SortedMembers()
        m.add("name") { $0.string(name) }
        m.add("idiom") { idiom.write(to: &$0, .snapshot) }
        m.add("maxVisible") { $0.int(maxVisible) }
        m.add("tabs") { tabs.write(to: &$0, .snapshot) }
        m.add("selection") { selection.writeSnapshot(to: &$0) }
        m.add("customizable") { customizable.write(to: &$0, .snapshot) }
        if let customizingOrder { m.add("customizingOrder") { customizingOrder.write(to: &$0, .snapshot) } }
        if let customizingStart { m.add("customizingStart") { customizingStart.write(to: &$0, .snapshot) } }
        m.add("orientation") { orientation.write(to: &$0, .snapshot) }
        m.add("seq") { $0.int(Int(truncatingIfNeeded: seq)) }
        m.add("tapPops") { tapPops.write(to: &$0, .snapshot) }
        if mode != .automatic { m.add("mode") { mode.write(to: &$0, .snapshot) } }
        if !sidebarVisible { m.add("sidebarVisible") { $0.bool(false) } }
        if let barOrder { m.add("barOrder") { barOrder.write(to: &$0, .snapshot) } }
        if sizeClass != idiom.defaultSizeClass { m.add("sizeClass") { sizeClass.write(to: &$0, .snapshot) } }
        if let compactTabs { m.add("compactTabs") { compactTabs.write(to: &$0, .snapshot) } }
        if barHidden { m.add("barHidden") { $0.bool(true) } }
        if searchActive { m.add("searchActive") { $0.bool(true) } }
        if let searchReturn { m.add("searchReturn") { $0.string(searchReturn) } }
        if let editingStart { m.add("editingStart") { editingStart.writeSnapshot(to: &$0) } }
        m.write(to: &w)
    }

    /// A controller from the snapshot; what snapshots written before a field have not is its
    /// default.
    init(snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, .snapshot, orNull: false, expected: "a controller object")
        name = try r.required("name")
        idiom = try r.required("idiom")
        maxVisible = try r.required("maxVisible")
        tapPops = try r.read("tapPops") ?? .always  // absent before issue 17
        mode = try r.read("mode") ?? .automatic  // R13's: absent before issue 18
        sidebarVisible = try r.read("sidebarVisible") ?? true
        barOrder = try r.read("barOrder")
        // R13.11–R14's: absent before issue 30.
        sizeClass = try r.read("sizeClass") ?? idiom.defaultSizeClass
        barHidden = try r.read("barHidden") ?? false
        searchActive = try r.read("searchActive") ?? false
        if let v = try r.read("compactTabs", as: [String].self) { compactTabs = v }
        if let v = try r.read("searchReturn", as: String.self) { searchReturn = v }
        if let v = r.take("editingStart") { editingStart = try EditingStart(snapshot: v, at: r.place("editingStart")) }
        tabs = try r.required("tabs")
        guard let selection = r.take("selection") else { throw TabFieldError(r.place("selection"), .missing) }
        self.selection = try Selection(snapshot: selection, at: r.place("selection"))
        // After `tabs`: every tab as such (canonical); any other list as written, for
        // `inconsistency` to refuse if it names a tab the controller does not have. Every tab
        // is found by comparing, not by count: a written list may repeat or reorder tabs.
        let customizable: [String] = try r.required("customizable")
        setCustomizable(list: customizable, everyTab: customizable == tabs.map(\.id))
        customizingOrder = try r.read("customizingOrder")
        customizingStart = try r.read("customizingStart")
        orientation = try r.required("orientation")
        let seq = try r.read("seq", as: Int.self) ?? 0  // snapshots written before seq was kept
        guard seq >= 0 else { throw TabFieldError(r.place("seq"), .type(expected: "a count")) }
        self.seq = UInt64(seq)
        rebuildIndex()
    }
}

extension Idiom: TabFieldName {}
extension Orientation: TabFieldName {}
extension TapPops: TabFieldName {}
extension Mode: TabFieldName {}
extension SizeClass: TabFieldName {}

extension Selection {
    /// Codable's synthesized form, which snapshots keep: `{"none":{}}`, `{"tab":{"_0":id}}`,
    /// `{"more":{}}`.
    func writeSnapshot(to w: inout JSONWriter) {
        w.beginObject()
        switch self {
        case .none: w.key(literal: "none"); w.beginObject(); w.endObject()
        case .tab(let id): w.key(literal: "tab"); w.beginObject(); w.key(literal: "_0"); w.string(id); w.endObject()
        case .more: w.key(literal: "more"); w.beginObject(); w.endObject()
        }
        w.endObject()
    }

    init(snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        guard case .object(let o) = json, o.count == 1 else { throw TabFieldError(path, .type(expected: "a selection object")) }
        switch o.key(at: 0) {
        case "none": self = .none
        case "more": self = .more
        case "tab":
            var r = try TabObjectReader.object(o.value(at: 0), at: path + ".tab", .snapshot, orNull: false, expected: "an object")
            self = .tab(try r.required("_0"))
        default: throw TabFieldError(path, .type(expected: "a selection object"))
        }
    }
}

/// An object's members written in the order of their keys (Swift's String order), as
/// Codable's sorted keys wrote them: the snapshot's objects.
struct SortedMembers {
    private var members: [(key: String, write: (inout JSONWriter) -> Void)] = []

    mutating func add(_ key: String, _ write: @escaping (inout JSONWriter) -> Void) { members.append((key, write)) }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        for m in members.sorted(by: { $0.key < $1.key }) {
            w.key(m.key)
            m.write(&w)
        }
        w.endObject()
    }

    /// A dictionary's entries, keys sorted.
    static func write<V>(_ d: [String: V], to w: inout JSONWriter, _ value: (V, inout JSONWriter) -> Void) {
        w.beginObject()
        for k in d.keys.sorted() {
            w.key(k)
            value(d[k]!, &w)
        }
        w.endObject()
    }

    /// A dictionary's entries, read with `value`.
    static func read<V>(_ json: JSONValue, at path: String, _ value: (JSONValue, String) throws(TabFieldError) -> V) throws(TabFieldError) -> [String: V] {
        guard case .object(let o) = json else { throw TabFieldError(path, .type(expected: "an object")) }
        var out: [String: V] = [:]
        for (k, v) in o { out[k] = try value(v, path + "." + k) }
        return out
    }
}
