// The written forms of R15's containers: one set of members (the wire's snake_case names)
// for `state`, the snapshot, the journal's create record and its `node.*` command records,
// written and read here only. Every field is written, nulls included, so that reading needs
// no default that could drift.

import TabJSON

/// Reads members of one object by key; what was not taken is refused by the caller.
public typealias TakeMember = (String) -> JSONValue?

enum NodeJSON {
    static func string(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> String {
        guard case .string(let s)? = v else { throw TabFieldError(path, v == nil ? .missing : .type(expected: "a string")) }
        return s
    }

    static func optionalString(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> String? {
        switch v {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw TabFieldError(path, .type(expected: "a string or null"))
        }
    }

    static func bool(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> Bool? {
        switch v {
        case nil: return nil
        case .bool(let b)?: return b
        default: throw TabFieldError(path, .type(expected: "true or false"))
        }
    }

    static func strings(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> [String] {
        guard case .array(let a)? = v else { throw TabFieldError(path, v == nil ? .missing : .type(expected: "an array of strings")) }
        return try a.enumerated().map { (i, e) throws(TabFieldError) in try string(e, "\(path)[\(i)]") }
    }

    static func value<E: RawRepresentable>(_ v: JSONValue?, _ path: String, as: E.Type) throws(TabFieldError) -> E where E.RawValue == String {
        let s = try string(v, path)
        guard let e = E(rawValue: s) else { throw TabFieldError(path, .value("'\(path)' has an unknown value '\(s)'")) }
        return e
    }

    static func children(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> [ChildObject] {
        guard case .array(let a)? = v else { throw TabFieldError(path, v == nil ? .missing : .type(expected: "an array of child objects")) }
        return try a.enumerated().map { (i, e) throws(TabFieldError) in try ChildObject(json: e, at: "\(path)[\(i)]") }
    }

    static func optionalChild(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> ChildObject? {
        if case .null? = v { return nil }
        guard let v else { return nil }
        return try ChildObject(json: v, at: path)
    }

    static func gestures(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> [DrawerGesture] {
        try strings(v, path).enumerated().map { (i, s) throws(TabFieldError) in
            guard let g = DrawerGesture(rawValue: s) else { throw TabFieldError("\(path)[\(i)]", .value("unknown gesture '\(s)'")) }
            return g
        }
    }

    /// Reads the members of an object with `read`, then refuses any it did not take.
    static func object<R>(_ json: JSONValue, at path: String, _ read: (inout TakenMembers) throws(TabFieldError) -> R) throws(TabFieldError) -> R {
        guard case .object(let o) = json else { throw TabFieldError(path, .type(expected: "an object")) }
        var m = TakenMembers(object: o, path: path)
        let r = try read(&m)
        try m.finish()
        return r
    }
}

/// An object's members, each taken once; `finish` refuses the rest.
struct TakenMembers {
    let object: JSONObject
    let path: String
    private var taken = Set<String>()

    init(object: JSONObject, path: String) { self.object = object; self.path = path }

    func place(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    mutating func take(_ key: String) -> JSONValue? {
        guard let i = object.position(of: key) else { return nil }
        taken.insert(key)
        return object.value(at: i)
    }

    func finish() throws(TabFieldError) {
        for key in object.keys where !taken.contains(key) { throw TabFieldError(place(key), .unknown(object: path.isEmpty ? "the object" : path)) }
    }
}

extension ChildObject {
    /// `{id, title, restoration_id, controller}`, nulls written.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "id"); w.string(id)
        w.key(literal: "title"); if let title { w.string(title) } else { w.null() }
        w.key(literal: "restoration_id"); if let restorationID { w.string(restorationID) } else { w.null() }
        w.key(literal: "controller"); if let controller { w.string(controller) } else { w.null() }
        w.endObject()
    }

    public init(json: JSONValue, at path: String) throws(TabFieldError) {
        self = try NodeJSON.object(json, at: path) { (m: inout TakenMembers) throws(TabFieldError) in
            ChildObject(id: try NodeJSON.string(m.take("id"), m.place("id")), title: try NodeJSON.optionalString(m.take("title"), m.place("title")),
                        restorationID: try NodeJSON.optionalString(m.take("restoration_id"), m.place("restoration_id")),
                        controller: try NodeJSON.optionalString(m.take("controller"), m.place("controller")))
        }
    }

    static func write(_ list: [ChildObject], to w: inout JSONWriter) {
        w.beginArray()
        for c in list { c.write(to: &w) }
        w.endArray()
    }

    static func writeOptional(_ c: ChildObject?, to w: inout JSONWriter) {
        if let c { c.write(to: &w) } else { w.null() }
    }
}

extension JSONWriter {
    mutating func strings(_ list: [String]) {
        beginArray()
        for s in list { string(s) }
        endArray()
    }
}

extension CompositeBody {
    /// The kind's members as `state` shows them (and the snapshot keeps them).
    public func writeMembers(to w: inout JSONWriter) {
        switch self {
        case .navigation(let n):
            w.key(literal: "stack"); ChildObject.write(n.stack, to: &w)
        case .drawer(let d):
            w.key(literal: "center"); d.center.write(to: &w)
            w.key(literal: "left"); ChildObject.writeOptional(d.left, to: &w)
            w.key(literal: "right"); ChildObject.writeOptional(d.right, to: &w)
            w.key(literal: "open_side"); w.string(d.openSide.rawValue)
            w.key(literal: "open_gestures"); w.strings(d.openGestures.map(\.rawValue))
            w.key(literal: "close_gestures"); w.strings(d.closeGestures.map(\.rawValue))
            w.key(literal: "center_interaction"); w.string(d.centerInteraction.rawValue)
        case .custom(let c):
            w.key(literal: "children"); ChildObject.write(c.children, to: &w)
            w.key(literal: "shown"); w.strings(c.shown)
            w.key(literal: "status_bar_child"); if let s = c.statusBarChild { w.string(s) } else { w.null() }
        }
    }

    /// What `writeMembers` wrote, for `kind`.
    init(kind: ContainerKind, _ m: inout TakenMembers) throws(TabFieldError) {
        switch kind {
        case .navigation:
            self = .navigation(NavigationState(stack: try NodeJSON.children(m.take("stack"), m.place("stack"))))
        case .drawer:
            var d = DrawerState(center: try ChildObject(json: m.take("center") ?? .null, at: m.place("center")),
                                left: try NodeJSON.optionalChild(m.take("left"), m.place("left")),
                                right: try NodeJSON.optionalChild(m.take("right"), m.place("right")))
            d.openSide = try NodeJSON.value(m.take("open_side"), m.place("open_side"), as: OpenSide.self)
            d.openGestures = try NodeJSON.gestures(m.take("open_gestures"), m.place("open_gestures"))
            d.closeGestures = try NodeJSON.gestures(m.take("close_gestures"), m.place("close_gestures"))
            d.centerInteraction = try NodeJSON.value(m.take("center_interaction"), m.place("center_interaction"), as: CenterInteraction.self)
            self = .drawer(d)
        case .custom:
            self = .custom(CustomState(children: try NodeJSON.children(m.take("children"), m.place("children")),
                                       shown: try NodeJSON.strings(m.take("shown"), m.place("shown")),
                                       statusBarChild: try NodeJSON.optionalString(m.take("status_bar_child"), m.place("status_bar_child"))))
        case .tab, .split:
            throw TabFieldError(m.place("kind"), .value("'\(kind.rawValue)' is not a composite kind"))
        }
    }
}

extension NodeConfiguration {
    /// The members asked (absent ones not written; a cleared status bar child as null).
    public func writeMembers(to w: inout JSONWriter) {
        if let g = openGestures { w.key(literal: "open_gestures"); w.strings(g.map(\.rawValue)) }
        if let g = closeGestures { w.key(literal: "close_gestures"); w.strings(g.map(\.rawValue)) }
        if let i = centerInteraction { w.key(literal: "center_interaction"); w.string(i.rawValue) }
        if let s = statusBarChild { w.key(literal: "status_bar_child"); if let s { w.string(s) } else { w.null() } }
    }

    /// Reads what `writeMembers` wrote, from an object holding other members too.
    init(take: TakeMember) throws(TabFieldError) {
        self.init()
        if let v = take("open_gestures") { openGestures = try NodeJSON.gestures(v, "open_gestures") }
        if let v = take("close_gestures") { closeGestures = try NodeJSON.gestures(v, "close_gestures") }
        if let v = take("center_interaction") { centerInteraction = try NodeJSON.value(v, "center_interaction", as: CenterInteraction.self) }
        if let v = take("status_bar_child") { statusBarChild = .some(try NodeJSON.optionalString(v, "status_bar_child")) }
    }
}

extension CompositeSpec {
    /// The journal's create record's members (after `op` and `controller`): what was asked.
    public func writeMembers(to w: inout JSONWriter) {
        w.key(literal: "kind"); w.string(kind.rawValue)
        w.key(literal: "window"); w.bool(window)
        w.key(literal: "idiom"); w.string(idiom.rawValue)
        switch body {
        case .navigation(let n): w.key(literal: "stack"); ChildObject.write(n.stack, to: &w)
        case .drawer(let d):
            w.key(literal: "center"); d.center.write(to: &w)
            w.key(literal: "left"); ChildObject.writeOptional(d.left, to: &w)
            w.key(literal: "right"); ChildObject.writeOptional(d.right, to: &w)
        case .custom(let c):
            w.key(literal: "children"); ChildObject.write(c.children, to: &w)
            w.key(literal: "shown"); w.strings(c.shown)
        }
        configuration.writeMembers(to: &w)
    }

    /// Reads what `writeMembers` wrote, from an object holding other members too (`take`
    /// marks what it read).
    public init(kind: ContainerKind, take: TakeMember) throws(TabFieldError) {
        let window = try NodeJSON.bool(take("window"), "window") ?? false
        let idiom = try NodeJSON.value(take("idiom") ?? .string("phone"), "idiom", as: Idiom.self)
        let body: CompositeBody
        switch kind {
        case .navigation: body = .navigation(NavigationState(stack: try NodeJSON.children(take("stack"), "stack")))
        case .drawer:
            body = .drawer(DrawerState(center: try ChildObject(json: take("center") ?? .null, at: "center"),
                                       left: try NodeJSON.optionalChild(take("left"), "left"), right: try NodeJSON.optionalChild(take("right"), "right")))
        case .custom:
            body = .custom(CustomState(children: try NodeJSON.children(take("children"), "children"), shown: try NodeJSON.strings(take("shown"), "shown")))
        case .tab, .split:
            throw TabFieldError("kind", .value("'\(kind.rawValue)' is not a composite kind"))
        }
        self.init(body: body, window: window, idiom: idiom, configuration: try NodeConfiguration(take: take))
    }
}

extension NodeCommand {
    /// The journal's op for the command: `node.` and its wire name (`node.push`), apart from a
    /// tab controller's `push`.
    public var journalOp: String { "node." + name }

    /// The command's members (after `op` and `controller`), every one written.
    public func writeMembers(to w: inout JSONWriter) {
        switch self {
        case .setWindow(let b): w.key(literal: "window"); w.bool(b)
        case .configure(let c): c.writeMembers(to: &w)
        case .push(let s, let animated): w.key(literal: "screen"); s.write(to: &w); w.key(literal: "animated"); w.bool(animated)
        case .pop(let user, let animated): w.key(literal: "user"); w.bool(user); w.key(literal: "animated"); w.bool(animated)
        case .popTo(let id, let animated): w.key(literal: "screen"); w.string(id); w.key(literal: "animated"); w.bool(animated)
        case .popToRoot(let animated): w.key(literal: "animated"); w.bool(animated)
        case .setStack(let s, let animated): w.key(literal: "stack"); ChildObject.write(s, to: &w); w.key(literal: "animated"); w.bool(animated)
        case .openDrawer(let side, let g, let animated), .toggleDrawer(let side, let g, let animated):
            w.key(literal: "side"); w.string(side.rawValue)
            w.key(literal: "gesture"); if let g { w.string(g.rawValue) } else { w.null() }
            w.key(literal: "animated"); w.bool(animated)
        case .closeDrawer(let g, let animated):
            w.key(literal: "gesture"); if let g { w.string(g.rawValue) } else { w.null() }
            w.key(literal: "animated"); w.bool(animated)
        case .setCenter(let c, let close): w.key(literal: "child"); c.write(to: &w); w.key(literal: "close_drawer"); w.bool(close)
        case .setDrawer(let side, let c): w.key(literal: "side"); w.string(side.rawValue); w.key(literal: "child"); ChildObject.writeOptional(c, to: &w)
        case .setChildren(let c, let shown):
            w.key(literal: "children"); ChildObject.write(c, to: &w)
            w.key(literal: "shown"); if let shown { w.strings(shown) } else { w.null() }
        case .setShown(let s): w.key(literal: "shown"); w.strings(s)
        case .transition(let from, let to, let animated):
            w.key(literal: "from"); w.string(from); w.key(literal: "to"); to.write(to: &w); w.key(literal: "animated"); w.bool(animated)
        case .restoreTree(let archive):
            w.key(literal: "archive"); archive.write(to: &w)
        case .rotate(let o): w.key(literal: "orientation"); w.string(o.rawValue)
        case .setSizeClass(let s): w.key(literal: "size_class"); w.string(s.rawValue)
        }
    }

    /// Reads what `writeMembers` wrote for the command `name` (its wire name).
    public init(journal name: String, take: TakeMember) throws(TabFieldError) {
        func animated() throws(TabFieldError) -> Bool { try NodeJSON.bool(take("animated"), "animated") ?? false }
        func gesture() throws(TabFieldError) -> DrawerGesture? {
            guard let s = try NodeJSON.optionalString(take("gesture"), "gesture") else { return nil }
            guard let g = DrawerGesture(rawValue: s) else { throw TabFieldError("gesture", .value("unknown gesture '\(s)'")) }
            return g
        }
        func side() throws(TabFieldError) -> DrawerSide { try NodeJSON.value(take("side"), "side", as: DrawerSide.self) }
        switch CommandName(rawValue: name) {
        case .setWindow?: self = .setWindow(try NodeJSON.bool(take("window"), "window") ?? false)
        case .configure?: self = .configure(try NodeConfiguration(take: take))
        case .push?: self = .push(try ChildObject(json: take("screen") ?? .null, at: "screen"), animated: try animated())
        case .pop?: self = .pop(user: try NodeJSON.bool(take("user"), "user") ?? false, animated: try animated())
        case .popTo?: self = .popTo(try NodeJSON.string(take("screen"), "screen"), animated: try animated())
        case .popToRoot?: self = .popToRoot(animated: try animated())
        case .setStack?: self = .setStack(try NodeJSON.children(take("stack"), "stack"), animated: try animated())
        case .openDrawer?: self = .openDrawer(try side(), gesture: try gesture(), animated: try animated())
        case .toggleDrawer?: self = .toggleDrawer(try side(), gesture: try gesture(), animated: try animated())
        case .closeDrawer?: self = .closeDrawer(gesture: try gesture(), animated: try animated())
        case .setCenter?: self = .setCenter(try ChildObject(json: take("child") ?? .null, at: "child"), closeDrawer: try NodeJSON.bool(take("close_drawer"), "close_drawer") ?? false)
        case .setDrawer?: self = .setDrawer(try side(), try NodeJSON.optionalChild(take("child"), "child"))
        case .setChildren?:
            let shown = take("shown")
            self = .setChildren(try NodeJSON.children(take("children"), "children"), shown: shown == nil || shown == .null ? nil : try NodeJSON.strings(shown, "shown"))
        case .setShown?: self = .setShown(try NodeJSON.strings(take("shown"), "shown"))
        case .rotate?: self = .rotate(try NodeJSON.value(take("orientation"), "orientation", as: Orientation.self))
        case .setSizeClass?: self = .setSizeClass(try NodeJSON.value(take("size_class"), "size_class", as: SizeClass.self))
        case .restore?: self = .restoreTree(try TreeArchive(json: take("archive") ?? .null, at: "archive"))
        case .transition?: self = .transition(from: try NodeJSON.string(take("from"), "from"), to: try ChildObject(json: take("to") ?? .null, at: "to"), animated: try animated())
        default: throw TabFieldError("op", .value("unknown container command '\(name)'"))
        }
    }
}

extension Composite {
    /// The snapshot's form: every member.
    public func writeSnapshot(to w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "kind"); w.string(kind.rawValue)
        w.key(literal: "window"); w.bool(window)
        w.key(literal: "idiom"); w.string(idiom.rawValue)
        w.key(literal: "seq"); w.int(Int(truncatingIfNeeded: seq))
        w.key(literal: "parent"); Self.writeParent(parent, to: &w)
        w.key(literal: "size_class"); w.string(sizeClass.rawValue)
        w.key(literal: "orientation"); w.string(orientation.rawValue)
        body.writeMembers(to: &w)
        w.endObject()
    }

    /// `{controller, child}` or null (`state`'s and `parent_changed`'s `parent`).
    public static func writeParent(_ parent: Attachment?, to w: inout JSONWriter) {
        guard let parent else { return w.null() }
        w.beginObject()
        w.key(literal: "controller"); w.string(parent.parent)
        w.key(literal: "child"); w.string(parent.slot)
        w.endObject()
    }

    public init(name: String, snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        self = try NodeJSON.object(json, at: path) { (m: inout TakenMembers) throws(TabFieldError) in
            let kind = try NodeJSON.value(m.take("kind"), m.place("kind"), as: ContainerKind.self)
            let body = try CompositeBody(kind: kind, &m)
            var c = Composite(name: name, body: body, window: try NodeJSON.bool(m.take("window"), m.place("window")) ?? false,
                              idiom: try NodeJSON.value(m.take("idiom"), m.place("idiom"), as: Idiom.self))
            guard case .int(let seq)? = m.take("seq"), seq >= 0 else { throw TabFieldError(m.place("seq"), .type(expected: "a count")) }
            c.seq = UInt64(seq)
            c.parent = try Composite.readParent(m.take("parent"), at: m.place("parent"))
            if let v = m.take("size_class") { c.sizeClass = try NodeJSON.value(v, m.place("size_class"), as: SizeClass.self) }
            if let v = m.take("orientation") { c.orientation = try NodeJSON.value(v, m.place("orientation"), as: Orientation.self) }
            return c
        }
    }

    /// What `writeParent` wrote.
    static func readParent(_ v: JSONValue?, at path: String) throws(TabFieldError) -> Attachment? {
        switch v {
        case nil, .null?: return nil
        case let p?:
            return try NodeJSON.object(p, at: path) { (pm: inout TakenMembers) throws(TabFieldError) in
                Attachment(parent: try NodeJSON.string(pm.take("controller"), pm.place("controller")), slot: try NodeJSON.string(pm.take("child"), pm.place("child")))
            }
        }
    }
}
