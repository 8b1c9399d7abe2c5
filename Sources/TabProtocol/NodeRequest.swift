// Decoding the requests of R15's containers (PROTOCOL.md, "Containers beyond tabs"):
// `controller.create` of the kinds other than `tab`, child objects, and the commands of
// navigation, drawer and custom controllers. Strict, as every request: an unknown field or a
// wrong type is an `invalid_request` naming the field.

import TabCore
import TabJSON

extension RequestDecoder {
    /// The fields `controller.create` takes only for a tab controller.
    static let tabOnlyCreateFields = ["max_visible", "tap_pops", "mode", "size_class", "compact_tabs"]

    /// `controller.create` with a `kind` other than `tab`.
    static func compositeSpec(_ kind: ContainerKind, _ f: inout Fields) throws(ProtocolError) -> CompositeSpec {
        for field in tabOnlyCreateFields where f.has(field) {
            throw .invalid(field, "'\(field)' is a setting of tab controllers; a \(kind.rawValue) controller does not take it")
        }
        let idiomName = try f.string("idiom") ?? "phone"
        guard let idiom = Idiom(rawValue: idiomName) else {
            throw .invalid("idiom", "'idiom' must be one of phone, pad, tv (got '\(idiomName)')")
        }
        let window = try f.bool("window") ?? false
        let body: CompositeBody
        switch kind {
        case .navigation:
            let stack = try f.requiredArray("stack")
            body = .navigation(NavigationState(stack: try children(stack, path: "stack")))
        case .drawer:
            guard let center = f.value("center") else { throw .invalid("center", "a drawer needs \"center\": a child object") }
            body = .drawer(DrawerState(center: try child(center, path: "center"), left: try optionalChild(&f, "left"), right: try optionalChild(&f, "right")))
        case .custom:
            let list = f.has("children") ? try f.requiredArray("children") : []
            body = .custom(CustomState(children: try children(list, path: "children"), shown: try f.nullableStringArray("shown") ?? []))
        case .split:
            let styleName = try f.requiredString("style")
            guard let style = SplitStyle(rawValue: styleName) else { throw .invalid("style", "'style' must be \"double\" or \"triple\" (got '\(styleName)')") }
            body = .split(SplitState(style: style, primary: try requiredChild(&f, "primary", "a split"), supplementary: try optionalChild(&f, "supplementary"),
                                     secondary: try requiredChild(&f, "secondary", "a split"), compact: try optionalChild(&f, "compact")))
        case .tab:
            preconditionFailure("a tab controller's spec is read by decode")
        }
        return CompositeSpec(body: body, window: window, idiom: idiom, configuration: try configuration(&f, kind: kind, creating: true))
    }

    /// The kind-specific settings (`configure`'s fields, and `controller.create`'s beside the slots).
    static func configuration(_ f: inout Fields, kind: ContainerKind?, creating: Bool) throws(ProtocolError) -> NodeConfiguration {
        var c = NodeConfiguration()
        if f.has("open_gestures") { c.openGestures = try gestures(&f, "open_gestures") }
        if f.has("close_gestures") { c.closeGestures = try gestures(&f, "close_gestures") }
        if let name = try f.string("center_interaction") {
            guard let i = CenterInteraction(rawValue: name) else {
                throw .invalid("center_interaction", "'center_interaction' must be one of \(CenterInteraction.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(name)')")
            }
            c.centerInteraction = i
        }
        if f.has("status_bar_child") { c.statusBarChild = .some(try f.nullableString("status_bar_child")) }
        if let name = try f.string("preferred_display_mode") { c.preferredDisplayMode = try value(name, "preferred_display_mode", as: SplitDisplayMode.self) }
        if let name = try f.string("preferred_split_behavior") { c.preferredSplitBehavior = try value(name, "preferred_split_behavior", as: SplitBehavior.self) }
        if let g = try f.bool("presents_with_gesture") { c.presentsWithGesture = g }
        return c
    }

    /// `name` as one of `E`'s wire values, or `invalid_request` listing them.
    private static func value<E: RawRepresentable & CaseIterable>(_ name: String, _ field: String, as: E.Type) throws(ProtocolError) -> E where E.RawValue == String {
        guard let v = E(rawValue: name) else {
            throw .invalid(field, "'\(field)' must be one of \(E.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(name)')")
        }
        return v
    }

    private static func gestures(_ f: inout Fields, _ key: String) throws(ProtocolError) -> [DrawerGesture] {
        let names = try f.nullableStringArray(key) ?? []
        return try names.enumerated().map { (i, name) throws(ProtocolError) in
            guard let g = DrawerGesture(rawValue: name) else {
                throw .invalid("\(key)[\(i)]", "unknown gesture '\(name)'; one of \(DrawerGesture.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return g
        }
    }

    private static func gesture(_ f: inout Fields) throws(ProtocolError) -> DrawerGesture? {
        guard let name = try f.string("gesture") else { return nil }
        guard let g = DrawerGesture(rawValue: name) else {
            throw .invalid("gesture", "unknown gesture '\(name)'; one of \(DrawerGesture.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return g
    }

    private static func side(_ f: inout Fields) throws(ProtocolError) -> DrawerSide {
        let name = try f.requiredString("side")
        guard let s = DrawerSide(rawValue: name) else { throw .invalid("side", "'side' must be \"left\" or \"right\" (got '\(name)')") }
        return s
    }

    /// A child object (R15.2): `{id, title?, restoration_id?, controller?}`.
    static func child(_ value: JSONValue, path: String) throws(ProtocolError) -> ChildObject {
        guard case .object(let object) = value else { throw .invalid(path, "'\(path)' must be a child object: {\"id\": …, \"title\": …, \"controller\": …}") }
        var f = Fields(object: object, path: path + ".")
        guard let id = try f.string("id") else { throw .invalid(path + ".id", "'\(path)' needs \"id\": a string") }
        let child = ChildObject(id: id, title: try f.nullableString("title"), restorationID: try f.nullableString("restoration_id"),
                                controller: try f.nullableString("controller"))
        try f.finish()
        return child
    }

    static func children(_ list: [JSONValue], path: String) throws(ProtocolError) -> [ChildObject] {
        try list.enumerated().map { (i, v) throws(ProtocolError) in try child(v, path: "\(path)[\(i)]") }
    }

    private static func optionalChild(_ f: inout Fields, _ key: String) throws(ProtocolError) -> ChildObject? {
        switch f.value(key) {
        case nil, .null?: return nil
        case let v?: return try child(v, path: key)
        }
    }

    private static func requiredChild(_ f: inout Fields, _ key: String, _ command: String) throws(ProtocolError) -> ChildObject {
        guard let v = f.value(key), v != .null else { throw .invalid(key, "\(command) needs \"\(key)\": a child object") }
        return try child(v, path: key)
    }

    /// A navigation command without `tab` (with it, the tab's R6 stack: `Command.push`…).
    static func navigation(_ name: CommandName, _ f: inout Fields) throws(ProtocolError) -> NodeCommand {
        let animated = try f.bool("animated") ?? false
        switch name {
        case .push: return .push(try requiredChild(&f, "screen", "push"), animated: animated)
        case .pop: return .pop(user: try f.bool("user") ?? false, animated: animated)
        case .popToRoot: return .popToRoot(animated: animated)
        default: preconditionFailure("\(name) is not a navigation command")
        }
    }

    /// The commands of R15 that have no tab-controller form: nil for any other.
    static func node(_ name: CommandName, _ f: inout Fields) throws(ProtocolError) -> NodeCommand? {
        switch name {
        case .setWindow:
            guard let w = try f.bool("window") else { throw .invalid("window", "set_window needs \"window\": true or false") }
            return .setWindow(w)
        case .configure:
            return .configure(try configuration(&f, kind: nil, creating: false))
        case .popTo:
            return .popTo(try f.requiredString("screen"), animated: try f.bool("animated") ?? false)
        case .setStack:
            return .setStack(try children(try f.requiredArray("stack"), path: "stack"), animated: try f.bool("animated") ?? false)
        case .openDrawer:
            return .openDrawer(try side(&f), gesture: try gesture(&f), animated: try f.bool("animated") ?? false)
        case .closeDrawer:
            return .closeDrawer(gesture: try gesture(&f), animated: try f.bool("animated") ?? false)
        case .toggleDrawer:
            return .toggleDrawer(try side(&f), gesture: try gesture(&f), animated: try f.bool("animated") ?? false)
        case .setCenter:
            return .setCenter(try requiredChild(&f, "child", "set_center"), closeDrawer: try f.bool("close_drawer") ?? false)
        case .setDrawer:
            let side = try side(&f)
            guard f.has("child") else { throw .invalid("child", "set_drawer needs \"child\": a child object, or null to remove the drawer") }
            return .setDrawer(side, try optionalChild(&f, "child"))
        case .setChildren:
            return .setChildren(try children(try f.requiredArray("children"), path: "children"), shown: try f.nullableStringArray("shown"))
        case .setShown:
            guard let shown = try f.nullableStringArray("shown") else { throw .invalid("shown", "set_shown needs \"shown\": child ids") }
            return .setShown(shown)
        case .transition:
            return .transition(from: try f.requiredString("from"), to: try requiredChild(&f, "to", "transition"), animated: try f.bool("animated") ?? false)
        case .setColumn:
            let column = try value(try f.requiredString("column"), "column", as: SplitColumn.self)
            guard f.has("child") else { throw .invalid("child", "set_column needs \"child\": a child object (null only for the compact column)") }
            return .setColumn(column, try optionalChild(&f, "child"))
        case .showColumn, .hideColumn:
            let column = try value(try f.requiredString("column"), "column", as: SplitColumn.self)
            let user = try f.bool("user") ?? false, animated = try f.bool("animated") ?? false
            return name == .showColumn ? .showColumn(column, user: user, animated: animated) : .hideColumn(column, user: user, animated: animated)
        case .showDetail:
            return .showDetail(try requiredChild(&f, "child", "show_detail"), animated: try f.bool("animated") ?? false)
        default:
            return nil
        }
    }
}
