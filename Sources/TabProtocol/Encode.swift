// Encoding replies, errors, events and journal records as JSON lines.

import TabCore

public enum ReplyEncoder {
    /// `{"id":…,"ok":true,"result":{…}}\n`; `result` writes the members of the result object.
    public static func success(id: JSONValue?, into w: inout JSONWriter, _ result: (inout JSONWriter) -> Void) {
        w.beginObject()
        if let id { w.key(literal: "id"); w.write(id); w.literal(",") }
        w.literal(#""ok":true,"result":{"#)
        result(&w)
        w.literal("}}\n")
    }

    /// `{"id":…,"ok":false,"error":{"code":…,"message":…,…details}}\n`.
    public static func failure(id: JSONValue?, _ error: ProtocolError, into w: inout JSONWriter) {
        w.beginObject()
        if let id { w.key("id"); w.write(id) }
        w.key("ok"); w.bool(false)
        w.key("error"); w.beginObject()
        w.key("code"); w.string(error.code.rawValue)
        w.key("message"); w.string(error.message)
        for (k, v) in error.details { w.key(k); w.string(v) }
        w.endObject()
        w.endObject()
        w.newline()
    }

    public static func failure(id: JSONValue?, _ error: ProtocolError) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        failure(id: id, error, into: &w)
        return w.bytes
    }

    // MARK: Values

    public static func optionalString(_ s: String?, _ w: inout JSONWriter) {
        if let s { w.string(s) } else { w.null() }
    }

    public static func optionalInt(_ i: Int?, _ w: inout JSONWriter) {
        if let i { w.int(i) } else { w.null() }
    }

    public static func strings(_ a: [String], _ w: inout JSONWriter) {
        w.beginArray()
        for s in a { w.string(s) }
        w.endArray()
    }

    public static func orientations(_ m: OrientationMask, _ w: inout JSONWriter) {
        w.beginArray()
        for o in m.orientations { w.string(o.rawValue) }
        w.endArray()
    }

    public static func item(_ item: TabItem, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("title"); optionalString(item.title, &w)
        w.key("image"); optionalString(item.image, &w)
        w.key("tag"); optionalInt(item.tag, &w)
        w.key("badge"); optionalString(item.badge, &w)
        w.endObject()
    }

    public static func screen(_ s: Screen, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(s.id)
        if let title = s.title { w.key("title"); w.string(title) }
        w.endObject()
    }

    public static func stack(_ stack: [Screen], _ w: inout JSONWriter) {
        w.beginArray()
        for s in stack { screen(s, &w) }
        w.endArray()
    }

    /// A tab as `state` shows it: the effective item and the runtime state.
    public static func tab(_ t: Tab, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(t.id)
        w.key("title"); w.string(t.title ?? t.id)
        w.key("item"); item(t.effectiveItem, &w)
        w.key("badge"); optionalString(t.badge, &w)
        w.key("restoration_id"); optionalString(t.restorationID, &w)
        w.key("orientations"); orientations(t.supportedOrientations, &w)
        w.key("full_screen_layout"); w.bool(t.fullScreenLayout)
        w.key("navigation"); w.bool(t.navigation)
        w.key("stack"); stack(t.stack, &w)
        w.key("content_loaded"); w.bool(t.contentLoaded)
        w.endObject()
    }

    /// The members of `state`'s result (PROTOCOL.md).
    public static func state(_ c: Controller, policy: Policy, _ w: inout JSONWriter) {
        w.key("controller"); w.string(c.name)
        w.key("idiom"); w.string(c.idiom.rawValue)
        w.key("max_visible"); w.int(c.maxVisible)
        w.key("tabs"); w.beginArray()
        for t in c.tabs { tab(t, &w) }
        w.endArray()
        w.key("selected"); optionalString(c.selection.wireValue, &w)
        w.key("selected_index"); optionalInt(c.selectedIndex, &w)
        w.key("bar"); w.beginObject()
        w.key("visible"); strings(c.barVisible, &w)
        w.key("more"); strings(c.moreList, &w)
        w.key("selected"); optionalString(c.barSelected, &w)
        if c.idiom == .tv { w.key("unreachable"); strings(c.unreachable, &w) }
        w.key("position"); w.string(c.idiom == .tv ? "top" : "bottom")
        w.endObject()
        w.key("customizable"); strings(c.customizable, &w)
        w.key("customizing"); w.bool(c.customizingOrder != nil)
        if let order = c.customizingOrder { w.key("customizing_order"); strings(order, &w) }
        orientationMembers(c, policy: policy, &w)
        w.key("status_bar_child"); optionalString(c.statusBarChild, &w)
    }

    public static func orientationMembers(_ c: Controller, policy: Policy, _ w: inout JSONWriter) {
        w.key("orientation"); w.beginObject()
        w.key("current"); w.string(c.orientation.rawValue)
        w.key("supported"); orientations(c.supportedOrientations(policy: policy), &w)
        w.key("preferred"); optionalString(c.preferredOrientation(policy: policy)?.rawValue, &w)
        w.endObject()
    }

    public static func frame(_ f: Frame, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("x"); w.double(f.x)
        w.key("y"); w.double(f.y)
        w.key("width"); w.double(f.width)
        w.key("height"); w.double(f.height)
        w.endObject()
    }

    public static func archive(_ a: RestorationArchive, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("selected"); optionalString(a.selected, &w)
        w.key("stacks"); w.beginObject()
        for path in a.stacks.keys.sorted() { w.key(path); stack(a.stacks[path]!, &w) }
        w.endObject()
        w.endObject()
    }

    // MARK: Events

    /// `{"event":…,"controller":…,"seq":…,"data":{…}}\n` for one notification.
    public static func event(_ n: TabCore.Notification, controller: String, seq: UInt64, into w: inout JSONWriter) {
        w.beginObject()
        w.key("event"); w.string(n.eventName)
        w.key("controller"); w.string(controller)
        w.key("seq"); w.int(Int(seq))
        w.key("data"); w.beginObject()
        switch n {
        case .selectionChanged(let tab, let index, let previous, let cause):
            w.key("tab"); optionalString(tab, &w)
            w.key("index"); optionalInt(index, &w)
            w.key("previous"); optionalString(previous, &w)
            w.key("cause"); w.string(cause.rawValue)
        case .didSelect(let tab, let index):
            w.key("tab"); w.string(tab)
            w.key("index"); optionalInt(index, &w)
        case .contentLoaded(let tab), .tabUpdated(let tab):
            w.key("tab"); w.string(tab)
        case .appearance(let tab, let phase):
            w.key("tab"); w.string(tab)
            w.key("phase"); w.string(phase.rawValue)
        case .containment(let tab, let phase, let parent):
            w.key("tab"); w.string(tab)
            w.key("phase"); w.string(phase.rawValue)
            w.key("parent"); optionalString(parent, &w)
        case .tabsChanged(let tabs, let animated):
            w.key("tabs"); strings(tabs, &w)
            w.key("animated"); w.bool(animated)
        case .customizableChanged(let tabs), .willBeginCustomizing(let tabs):
            w.key("tabs"); strings(tabs, &w)
        case .badgeChanged(let tab, let value):
            w.key("tab"); w.string(tab)
            w.key("value"); optionalString(value, &w)
        case .navigationChanged(let tab, let s):
            w.key("tab"); w.string(tab)
            w.key("stack"); stack(s, &w)
        case .willEndCustomizing(let tabs, let changed), .didEndCustomizing(let tabs, let changed):
            w.key("tabs"); strings(tabs, &w)
            w.key("changed"); w.bool(changed)
        case .orientationChanged(let from, let to):
            w.key("from"); w.string(from.rawValue)
            w.key("orientation"); w.string(to.rawValue)
        }
        w.endObject()
        w.endObject()
        w.newline()
    }

    /// A `plugin` event: `data` is the plugin's JSON text, wrapped with the plugin's name.
    public static func pluginEvent(plugin: String, controller: String, seq: UInt64, dataJSON: String, into w: inout JSONWriter) {
        w.beginObject()
        w.key("event"); w.string("plugin")
        w.key("controller"); w.string(controller)
        w.key("seq"); w.int(Int(seq))
        w.key("data"); w.beginObject()
        w.key("plugin"); w.string(plugin)
        w.key("data")
        if let v = try? JSONParser.parse(dataJSON) { w.write(v) } else { w.string(dataJSON) }
        w.endObject()
        w.endObject()
        w.newline()
    }

    // MARK: Journal

    /// The wire form of a core command: the request that, decoded again, gives the same
    /// command. The journal stores these, so recovery uses the same decoder as clients.
    public static func request(_ command: Command, controller: String, into w: inout JSONWriter) {
        w.beginObject()
        func cmd(_ name: StaticString) {
            w.key(literal: "cmd"); w.string(literal: name); w.key(literal: "controller"); w.string(controller)
        }
        func tabInput(_ t: Tab) {
            w.beginObject()
            w.key("id"); w.string(t.id)
            if let title = t.title { w.key("title"); w.string(title) }
            if let i = t.item { w.key("item"); item(i, &w) }
            if let r = t.restorationID { w.key("restoration_id"); w.string(r) }
            if let o = t.orientations { w.key("orientations"); orientations(o, &w) }
            if t.fullScreenLayout { w.key("full_screen_layout"); w.bool(true) }
            if t.navigation { w.key("navigation"); w.bool(true) }
            w.endObject()
        }
        switch command {
        case .setTabs(let tabs, let animated):
            cmd("set_tabs")
            w.key("tabs"); w.beginArray(); for t in tabs { tabInput(t) }; w.endArray()
            if animated { w.key("animated"); w.bool(true) }
        case .addTab(let t, let index):
            cmd("add_tab")
            w.key("tab"); tabInput(t)
            if let index { w.key("index"); w.int(index) }
        case .removeTab(let id):
            cmd("remove_tab"); w.key("tab"); w.string(id)
        case .updateTab(let id, let u):
            cmd("update_tab"); w.key("tab"); w.string(id)
            if case .set(let v) = u.title { w.key("title"); optionalString(v, &w) }
            if case .set(let v) = u.item { w.key("item"); if let v { item(v, &w) } else { w.null() } }
            if case .set(let v) = u.restorationID { w.key("restoration_id"); optionalString(v, &w) }
            if case .set(let v) = u.orientations { w.key("orientations"); if let v { orientations(v, &w) } else { w.null() } }
            if case .set(let v) = u.fullScreenLayout { w.key("full_screen_layout"); w.bool(v) }
        case .badge(let tab, let value):
            cmd("badge"); w.key("tab"); w.string(tab); w.key("value"); optionalString(value, &w)
        case .select(let target):
            cmd("select")
            switch target {
            case .tab(let id): w.key(literal: "tab"); w.string(id)
            case .index(let i): w.key(literal: "index"); w.int(i)
            case .more: w.key(literal: "more"); w.bool(true)
            }
        case .tap(let target):
            cmd("tap")
            switch target {
            case .tab(let id): w.key(literal: "tab"); w.string(id)
            case .more: w.key(literal: "more"); w.bool(true)
            }
        case .push(let tab, let s):
            cmd("push"); w.key("tab"); w.string(tab); w.key("screen"); screen(s, &w)
        case .pop(let tab):
            cmd("pop"); w.key("tab"); w.string(tab)
        case .popToRoot(let tab):
            cmd("pop_to_root"); w.key("tab"); w.string(tab)
        case .setCustomizable(let ids):
            cmd("customizable"); w.key("tabs"); if let ids { strings(ids, &w) } else { w.null() }
        case .customizeBegin: cmd("customize.begin")
        case .customizeMove(let tab, let to):
            cmd("customize.move"); w.key("tab"); w.string(tab); w.key("to"); w.int(to)
        case .customizeEnd: cmd("customize.end")
        case .rotate(let o):
            cmd("rotate"); w.key("orientation"); w.string(o.rawValue)
        case .setOrientation(let o):
            cmd("_set_orientation"); w.key("orientation"); w.string(o.rawValue)
        case .restore(let a):
            cmd("restore"); w.key("archive"); archive(a, &w)
        }
        w.endObject()
    }
}
