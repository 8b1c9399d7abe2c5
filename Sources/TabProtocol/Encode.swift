// Encoding replies, errors, events and journal records as JSON lines.

import TabCore
import TabJSON

public enum ReplyEncoder {
    /// `{"id":…,"ok":true,"result":{…}}\n`; `result` writes the members of the result object.
    public static func success(id: RequestID?, into w: inout JSONWriter, _ result: (inout JSONWriter) -> Void) {
        w.beginObject()
        if let id { w.key(literal: "id"); id.write(into: &w); w.literal(",") }
        w.literal(#""ok":true,"result":{"#)
        result(&w)
        w.literal("}}\n")
    }

    /// `{"id":…,"ok":false,"error":{"code":…,"message":…,…details}}\n`.
    public static func failure(id: RequestID?, _ error: ProtocolError, into w: inout JSONWriter) {
        w.beginObject()
        if let id { w.key(literal: "id"); id.write(into: &w) }
        w.key(literal: "ok"); w.bool(false)
        w.key(literal: "error"); w.beginObject()
        w.key(literal: "code"); w.string(error.code.rawValue)
        w.key(literal: "message"); w.string(error.message)
        for (k, v) in error.details { w.key(k); w.string(v) }
        for (k, v) in error.lists { w.key(k); strings(v, &w) }
        w.endObject()
        w.endObject()
        w.newline()
    }

    public static func failure(id: RequestID?, _ error: ProtocolError) -> [UInt8] {
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
        w.strings(a)
    }

    /// The ids of `tabs` as a JSON array, read in place (no array of ids made).
    public static func ids(of tabs: [Tab], _ w: inout JSONWriter) {
        w.stringArray(tabs, stringAt: Tab.idOffset)
    }

    public static func orientations(_ m: OrientationMask, _ w: inout JSONWriter) { m.write(to: &w, .state) }

    public static func stack(_ stack: [Screen], _ w: inout JSONWriter) { stack.write(to: &w, .state) }

    /// A tab as `state` shows it (`Tab.fields`): the effective item and the runtime state.
    public static func tab(_ t: Tab, in controller: Controller? = nil, _ w: inout JSONWriter) {
        t.write(to: &w, .state, in: controller)
    }

    /// The members of `state`'s result (PROTOCOL.md). Asks no delegate: the orientations are
    /// those decided at the controller's last change (`Controller.decidedOrientations`).
    public static func state(_ c: Controller, _ w: inout JSONWriter) {
        w.key(literal: "controller"); w.string(c.name)
        w.key(literal: "idiom"); w.string(c.idiom.rawValue)
        w.key(literal: "max_visible"); w.int(c.maxVisible)
        w.key(literal: "tap_pops"); w.string(c.tapPops.rawValue)
        w.key(literal: "tabs"); w.beginArray()
        for t in c.tabs { tab(t, in: c, &w) }
        w.endArray()
        w.key(literal: "selected"); optionalString(c.selection.wireValue, &w)
        if c.usesModernModel {
            w.key(literal: "selected_path"); strings(c.selectedPath, &w)
            w.key(literal: "mode"); w.string(c.mode.rawValue)
            w.key(literal: "sidebar"); sidebar(c, &w)
            // R14.
            w.key(literal: "size_class"); w.string(c.sizeClass.rawValue)
            w.key(literal: "compact_tabs"); if let ids = c.compactTabs { strings(ids, &w) } else { w.null() }
            w.key(literal: "editing"); w.bool(c.editing)
            if c.hasSearchTab { w.key(literal: "search"); w.beginObject(); w.key(literal: "active"); w.bool(c.searchActive); w.endObject() }
        }
        w.key(literal: "selected_index"); optionalInt(c.selectedIndex, &w)
        w.key(literal: "bar"); bar(c, &w)
        w.key(literal: "customizable"); strings(c.customizable, &w)
        w.key(literal: "customizing"); w.bool(c.customizingOrder != nil)
        if let order = c.customizingOrder { w.key(literal: "customizing_order"); strings(order, &w) }
        orientationMembers(c, &w)
        w.key(literal: "status_bar_child"); optionalString(c.statusBarChild, &w)
        w.key(literal: "seq"); w.int(Int(truncatingIfNeeded: c.seq))
    }

    /// R13.6: `{"available", "visible", "items"}`.
    public static func sidebar(_ c: Controller, _ w: inout JSONWriter) {
        w.beginObject()
        sidebarMembers(c, &w)
        w.endObject()
    }

    private static func sidebarMembers(_ c: Controller, _ w: inout JSONWriter) {
        func items(_ list: [SidebarItem]) {
            w.beginArray()
            for i in list {
                w.beginObject()
                w.key(literal: "id"); w.string(i.id)
                if let kids = i.children { w.key(literal: "children"); items(kids) }
                if let e = i.expanded { w.key(literal: "expanded"); w.bool(e) }  // R13.12
                w.endObject()
            }
            w.endArray()
        }
        w.key(literal: "available"); w.bool(c.sidebarAvailable)
        w.key(literal: "visible"); w.bool(c.sidebarAvailable && c.sidebarVisible)
        w.key(literal: "items"); items(c.sidebarItems)
    }

    /// What the bar shows: `state`'s `bar`, and `bar_changed`'s data.
    public static func bar(_ c: Controller, _ w: inout JSONWriter) {
        w.beginObject()
        barMembers(c, &w)
        w.endObject()
    }

    private static func barMembers(_ c: Controller, _ w: inout JSONWriter) {
        w.key(literal: "visible"); strings(c.barVisible, &w)
        w.key(literal: "more"); strings(c.moreList, &w)
        w.key(literal: "selected"); optionalString(c.barSelected, &w)
        if c.idiom == .tv { w.key(literal: "unreachable"); strings(c.unreachable, &w) }
        w.key(literal: "position"); w.string(c.barAtTop ? "top" : "bottom")
        if c.barHidden || c.usesModernModel { w.key(literal: "hidden"); w.bool(c.barHidden) }  // R14.3
    }

    public static func orientationMembers(_ c: Controller, _ w: inout JSONWriter) {
        let decided = c.decidedOrientations
        w.key(literal: "orientation"); w.beginObject()
        w.key(literal: "current"); w.string(c.orientation.rawValue)
        w.key(literal: "supported"); orientations(decided.supported, &w)
        w.key(literal: "preferred"); optionalString(decided.preferred?.rawValue, &w)
        w.endObject()
    }

    public static func frame(_ f: Frame, _ w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "x"); w.double(f.x)
        w.key(literal: "y"); w.double(f.y)
        w.key(literal: "width"); w.double(f.width)
        w.key(literal: "height"); w.double(f.height)
        w.endObject()
    }

    public static func archive(_ a: RestorationArchive, _ w: inout JSONWriter) { a.write(to: &w, .state) }

    // MARK: Events

    /// `{"event":…,"controller":…,"seq":…,"data":{…}}\n` for one notification. `c`: the
    /// controller as the command left it (tab objects and the bar are read from it).
    /// `contents`: the controller holds a tab whose content is a controller (R15.2): that tab's
    /// appearance and containment name it (`child_controller`).
    public static func event(_ n: TabCore.Notification, controller: String, seq: UInt64, in c: Controller, contents: Bool = false,
                             into w: inout JSONWriter) {
        beginEvent(n.eventName, controller: controller, seq: seq, into: &w)
        switch n {
        case .selectionChanged(let tab, let index, let previous, let cause, let path, let previousPath):
            w.key(literal: "tab"); optionalString(tab, &w)
            w.key(literal: "index"); optionalInt(index, &w)
            w.key(literal: "previous"); optionalString(previous, &w)
            w.key(literal: "cause"); w.string(cause.rawValue)
            if let path { w.key(literal: "path"); strings(path, &w) }
            if let previousPath { w.key(literal: "previous_path"); strings(previousPath, &w) }
        case .didSelect(let tab, let index, let leaf):
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "index"); optionalInt(index, &w)
            if let leaf {
                w.key(literal: "path"); strings(leaf.path, &w)
                w.key(literal: "previous"); optionalString(leaf.previous, &w)
            }
        case .visibilityChanged(let tabs, let cause):
            w.key(literal: "cause"); w.string(cause.rawValue)
            w.key(literal: "tabs"); w.beginArray()
            for t in tabs {
                w.beginObject()
                w.key(literal: "id"); w.string(t.id)
                w.key(literal: "hidden"); w.bool(t.hidden)
                w.endObject()
            }
            w.endArray()
        case .displayOrderChanged(let group, let order, let cause):
            w.key(literal: "cause"); w.string(cause.rawValue)
            w.key(literal: "group"); optionalString(group, &w)
            w.key(literal: "order"); strings(order, &w)
        case .sidebarChanged:
            // R13.12: the whole `state.sidebar` (`visible` among its members, as before).
            sidebarMembers(c, &w)
        case .searchChanged(let active):
            w.key(literal: "active"); w.bool(active)
        case .sizeClassChanged(let size):
            w.key(literal: "size_class"); w.string(size.rawValue)
        case .modeChanged(let mode):
            w.key(literal: "mode"); w.string(mode.rawValue)
        case .willBeginEditing:
            break
        case .didEndEditing(let changed):
            w.key(literal: "changed"); w.bool(changed)
        case .contentLoaded(let tab):
            w.key(literal: "tab"); w.string(tab)
        case .tabUpdated(let tab):
            w.key(literal: "tab"); w.string(tab)
            if let t = c.tab(tab) { w.key(literal: "object"); self.tab(t, in: c, &w) }
        case .barChanged:
            barMembers(c, &w)
            // R14.4: `set_compact_tabs` announces itself here (absent: null); `state` says it at
            // its top level.
            if let ids = c.compactTabs { w.key(literal: "compact_tabs"); strings(ids, &w) }
        case .appearance(let tab, let phase):
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "phase"); w.string(phase.rawValue)
            if contents, let x = c.content(of: tab) { w.key(literal: "child_controller"); w.string(x) }
        case .containment(let tab, let phase, let parent):
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "phase"); w.string(phase.rawValue)
            w.key(literal: "parent"); optionalString(parent, &w)
            if contents, let x = c.content(of: tab) { w.key(literal: "child_controller"); w.string(x) }
        case .tabsChanged(let tabs, let animated, let changed):
            w.key(literal: "tabs"); strings(tabs, &w)
            w.key(literal: "animated"); w.bool(animated)
            // The objects of the tabs added or changed; the others are as they were.
            w.key(literal: "objects"); w.beginArray()
            for id in changed { if let t = c.tab(id) { tab(t, in: c, &w) } }
            w.endArray()
        case .customizableChanged(let tabs), .willBeginCustomizing(let tabs):
            w.key(literal: "tabs"); strings(tabs, &w)
        case .badgeChanged(let tab, let value):
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "value"); optionalString(value, &w)
        case .navigationChanged(let tab, let s):
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "stack"); stack(s, &w)
        case .willEndCustomizing(let tabs, let changed), .didEndCustomizing(let tabs, let changed):
            w.key(literal: "tabs"); strings(tabs, &w)
            w.key(literal: "changed"); w.bool(changed)
        case .orientationChanged(let from, let to):
            w.key(literal: "from"); w.string(from.rawValue)
            w.key(literal: "orientation"); w.string(to.rawValue)
        }
        w.endObject()
        w.endObject()
        w.newline()
    }

    /// `{"event":…,"controller":…,"seq":…,"data":{` — the data's members follow.
    static func beginEvent(_ name: String, controller: String, seq: UInt64, into w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "event"); w.string(name)
        w.key(literal: "controller"); w.string(controller)
        w.key(literal: "seq"); w.int(Int(truncatingIfNeeded: seq))
        w.key(literal: "data"); w.beginObject()
    }

    /// `controller_deleted`: the last event of a deleted controller; its data is empty.
    public static func controllerDeleted(_ controller: String, seq: UInt64, into w: inout JSONWriter) {
        beginEvent(TabCore.Notification.controllerDeleted, controller: controller, seq: seq, into: &w)
        w.endObject()
        w.endObject()
        w.newline()
    }

    /// A `plugin` event: `data` is the plugin's JSON text, wrapped with the plugin's name.
    /// `dataJSON` is written as it is: compact JSON of one value, as the plugin host makes it
    /// (checked by JSONParser, written by JSONWriter).
    public static func pluginEvent(plugin: String, controller: String, seq: UInt64, dataJSON: String, into w: inout JSONWriter) {
        beginEvent("plugin", controller: controller, seq: seq, into: &w)
        w.key(literal: "plugin"); w.string(plugin)
        w.key(literal: "data"); w.raw(dataJSON.utf8)
        w.endObject()
        w.endObject()
        w.newline()
    }
}
