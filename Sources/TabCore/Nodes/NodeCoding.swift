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
        writeSlots(to: &w, columnsNested: true)
        switch self {
        case .navigation:
            break
        case .drawer(let d):
            w.key(literal: "open_side"); w.string(d.openSide.rawValue)
            w.key(literal: "open_gestures"); w.strings(d.openGestures.map(\.rawValue))
            w.key(literal: "close_gestures"); w.strings(d.closeGestures.map(\.rawValue))
            w.key(literal: "center_interaction"); w.string(d.centerInteraction.rawValue)
        case .custom(let c):
            w.key(literal: "status_bar_child"); if let s = c.statusBarChild { w.string(s) } else { w.null() }
        case .split(let s):
            w.key(literal: "preferred_display_mode"); w.string(s.preferredDisplayMode.rawValue)
            w.key(literal: "preferred_split_behavior"); w.string(s.preferredSplitBehavior.rawValue)
            w.key(literal: "presents_with_gesture"); w.bool(s.presentsWithGesture)
            w.key(literal: "display_mode"); w.string(s.displayMode.rawValue)
            w.key(literal: "split_behavior"); w.string(s.splitBehavior.rawValue)
            s.writeCollapse(to: &w)
        }
    }

    /// The slots and what fills them, the members a container is created with (R15.2): a
    /// stack; a center and sides; children and shown; a style and its columns, in one
    /// `columns` object where the state holds them (`columnsNested`), beside the others in a
    /// create record, as `controller.create` asks them. Both forms, written here once.
    func writeSlots(to w: inout JSONWriter, columnsNested: Bool) {
        switch self {
        case .navigation(let n):
            w.key(literal: "stack"); ChildObject.write(n.stack, to: &w)
        case .drawer(let d):
            w.key(literal: "center"); d.center.write(to: &w)
            w.key(literal: "left"); ChildObject.writeOptional(d.left, to: &w)
            w.key(literal: "right"); ChildObject.writeOptional(d.right, to: &w)
        case .custom(let c):
            w.key(literal: "children"); ChildObject.write(c.children, to: &w)
            w.key(literal: "shown"); w.strings(c.shown)
        case .split(let s):
            w.key(literal: "style"); w.string(s.style.rawValue)
            if columnsNested { w.key(literal: "columns"); w.beginObject() }
            s.writeColumns(to: &w)
            if columnsNested { w.endObject() }
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
        case .split:
            let style = try NodeJSON.value(m.take("style"), m.place("style"), as: SplitStyle.self)
            var s = try NodeJSON.object(m.take("columns") ?? .null, at: m.place("columns")) { (c: inout TakenMembers) throws(TabFieldError) in
                try SplitState(style: style, columns: { c.take($0) }, at: c.place)
            }
            s.preferredDisplayMode = try NodeJSON.value(m.take("preferred_display_mode"), m.place("preferred_display_mode"), as: SplitDisplayMode.self)
            s.preferredSplitBehavior = try NodeJSON.value(m.take("preferred_split_behavior"), m.place("preferred_split_behavior"), as: SplitBehavior.self)
            s.presentsWithGesture = try NodeJSON.bool(m.take("presents_with_gesture"), m.place("presents_with_gesture")) ?? true
            s.displayMode = try NodeJSON.value(m.take("display_mode"), m.place("display_mode"), as: SplitDisplayMode.self)
            s.splitBehavior = try NodeJSON.value(m.take("split_behavior"), m.place("split_behavior"), as: SplitBehavior.self)
            if let top = try NodeJSON.optionalString(m.take("top_column"), m.place("top_column")) {
                guard let c = SplitColumn(rawValue: top) else { throw TabFieldError(m.place("top_column"), .value("unknown column '\(top)'")) }
                s.topColumn = c
            }
            // Derived from the members above: read past (the state's own check finds a contradiction).
            _ = m.take("collapsed"); _ = m.take("collapsed_stack"); _ = m.take("visible_columns")
            self = .split(s)
        case .tab:
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
        if let m = preferredDisplayMode { w.key(literal: "preferred_display_mode"); w.string(m.rawValue) }
        if let b = preferredSplitBehavior { w.key(literal: "preferred_split_behavior"); w.string(b.rawValue) }
        if let g = presentsWithGesture { w.key(literal: "presents_with_gesture"); w.bool(g) }
    }

    /// Reads what `writeMembers` wrote, from an object holding other members too.
    init(take: TakeMember) throws(TabFieldError) {
        self.init()
        if let v = take("open_gestures") { openGestures = try NodeJSON.gestures(v, "open_gestures") }
        if let v = take("close_gestures") { closeGestures = try NodeJSON.gestures(v, "close_gestures") }
        if let v = take("center_interaction") { centerInteraction = try NodeJSON.value(v, "center_interaction", as: CenterInteraction.self) }
        if let v = take("status_bar_child") { statusBarChild = .some(try NodeJSON.optionalString(v, "status_bar_child")) }
        if let v = take("preferred_display_mode") { preferredDisplayMode = try NodeJSON.value(v, "preferred_display_mode", as: SplitDisplayMode.self) }
        if let v = take("preferred_split_behavior") { preferredSplitBehavior = try NodeJSON.value(v, "preferred_split_behavior", as: SplitBehavior.self) }
        if let v = take("presents_with_gesture") { presentsWithGesture = try NodeJSON.bool(v, "presents_with_gesture") }
    }
}

extension CompositeSpec {
    /// The journal's create record's members (after `op` and `controller`): what was asked.
    public func writeMembers(to w: inout JSONWriter) {
        w.key(literal: "kind"); w.string(kind.rawValue)
        w.key(literal: "window"); w.bool(window)
        w.key(literal: "idiom"); w.string(idiom.rawValue)
        body.writeSlots(to: &w, columnsNested: false)
        configuration.writeMembers(to: &w)
        if !answers.isEmpty { w.key(literal: "answers"); ProposalAnswer.write(answers, to: &w) }
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
        case .split:
            body = .split(try SplitState(style: try NodeJSON.value(take("style"), "style", as: SplitStyle.self), columns: take, at: { $0 }))
        case .tab:
            throw TabFieldError("kind", .value("'\(kind.rawValue)' is not a composite kind"))
        }
        self.init(body: body, window: window, idiom: idiom, configuration: try NodeConfiguration(take: take),
                  answers: try ProposalAnswer.read(take("answers"), "answers"))
    }
}

extension NodeCommand {
    /// The journal's op for the command: `node.` and its wire name (`node.push`), apart from a
    /// tab controller's `push`.
    public var journalOp: String { "node." + name }

    /// The command's members (after `op` and `controller`), every one written.
    /// A drawer command's `gesture` and `animated`, after a member: without a gesture (the
    /// app's move, the usual one) in one piece.
    static func writeGesture(_ g: DrawerGesture?, animated: Bool, to w: inout JSONWriter) {
        w.key(literal: "gesture")
        if let g {
            w.string(g.rawValue)
            w.key(literal: "animated")
        } else {
            w.literal("null,\"animated\":")
        }
        w.bool(animated)
    }

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
            // The side as a literal (its rawValue made a String to scan for escapes: a drawer's
            // move journals this record each time).
            w.key(literal: "side"); if side == .left { w.string(literal: "left") } else { w.string(literal: "right") }
            Self.writeGesture(g, animated: animated, to: &w)
        case .closeDrawer(let g, let animated):
            Self.writeGesture(g, animated: animated, to: &w)
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
        case .setColumn(let col, let c): w.key(literal: "column"); w.string(col.rawValue); w.key(literal: "child"); ChildObject.writeOptional(c, to: &w)
        case .showColumn(let col, let user, let animated), .hideColumn(let col, let user, let animated):
            w.key(literal: "column"); w.string(col.rawValue)
            w.key(literal: "user"); w.bool(user); w.key(literal: "animated"); w.bool(animated)
        case .showDetail(let c, let animated): w.key(literal: "child"); c.write(to: &w); w.key(literal: "animated"); w.bool(animated)
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
        func column() throws(TabFieldError) -> SplitColumn { try NodeJSON.value(take("column"), "column", as: SplitColumn.self) }
        func user() throws(TabFieldError) -> Bool { try NodeJSON.bool(take("user"), "user") ?? false }
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
        case .setColumn?: self = .setColumn(try column(), try NodeJSON.optionalChild(take("child"), "child"))
        case .showColumn?: self = .showColumn(try column(), user: try user(), animated: try animated())
        case .hideColumn?: self = .hideColumn(try column(), user: try user(), animated: try animated())
        case .showDetail?: self = .showDetail(try ChildObject(json: take("child") ?? .null, at: "child"), animated: try animated())
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


extension SplitState {
    /// `primary`, `supplementary`, `secondary`, `compact`: child objects or null (`state`'s
    /// `columns`, and the create record's members).
    func writeColumns(to w: inout JSONWriter) {
        w.key(literal: "primary"); primary.write(to: &w)
        w.key(literal: "supplementary"); ChildObject.writeOptional(supplementary, to: &w)
        w.key(literal: "secondary"); secondary.write(to: &w)
        w.key(literal: "compact"); ChildObject.writeOptional(compact, to: &w)
    }

    /// `collapsed`, `top_column`, `collapsed_stack`, `visible_columns` (R15.18, R15.20).
    func writeCollapse(to w: inout JSONWriter) {
        Self.writeCollapse(top: topColumn, stack: collapsedStack, visible: visibleColumns, to: &w)
    }

    public static func writeCollapse(top: SplitColumn?, stack: [SplitColumn]?, visible: [SplitColumn], to w: inout JSONWriter) {
        w.key(literal: "collapsed"); w.bool(top != nil)
        w.key(literal: "top_column"); if let top { w.string(top.rawValue) } else { w.null() }
        w.key(literal: "collapsed_stack"); if let stack { w.strings(stack.map(\.rawValue)) } else { w.null() }
        w.key(literal: "visible_columns"); w.strings(visible.map(\.rawValue))
    }

    /// The columns `writeColumns` wrote, read with `take` (`place` names a member for errors).
    init(style: SplitStyle, columns take: TakeMember, at place: (String) -> String) throws(TabFieldError) {
        self.init(style: style, primary: try ChildObject(json: take("primary") ?? .null, at: place("primary")),
                  supplementary: try NodeJSON.optionalChild(take("supplementary"), place("supplementary")),
                  secondary: try ChildObject(json: take("secondary") ?? .null, at: place("secondary")),
                  compact: try NodeJSON.optionalChild(take("compact"), place("compact")))
    }
}

extension ProposalAnswer {
    /// `[{"controller": …, "top_column": …}` or `"display_mode": …}]`.
    public static func write(_ list: [ProposalAnswer], to w: inout JSONWriter) {
        w.beginArray()
        for a in list {
            w.beginObject()
            w.key(literal: "controller"); w.string(a.controller)
            switch a.answer {
            case .topColumn(let c): w.key(literal: "top_column"); w.string(c.rawValue)
            case .displayMode(let m): w.key(literal: "display_mode"); w.string(m.rawValue)
            }
            w.endObject()
        }
        w.endArray()
    }

    /// What `write` wrote (absent: none).
    public static func read(_ v: JSONValue?, _ path: String) throws(TabFieldError) -> [ProposalAnswer] {
        guard let v, v != .null else { return [] }
        guard case .array(let a) = v else { throw TabFieldError(path, .type(expected: "an array of answers")) }
        return try a.enumerated().map { (i, e) throws(TabFieldError) in
            try NodeJSON.object(e, at: "\(path)[\(i)]") { (m: inout TakenMembers) throws(TabFieldError) in
                let controller = try NodeJSON.string(m.take("controller"), m.place("controller"))
                if let c = m.take("top_column") { return ProposalAnswer(controller: controller, .topColumn(try NodeJSON.value(c, m.place("top_column"), as: SplitColumn.self))) }
                return ProposalAnswer(controller: controller, .displayMode(try NodeJSON.value(m.take("display_mode"), m.place("display_mode"), as: SplitDisplayMode.self)))
            }
        }
    }
}
