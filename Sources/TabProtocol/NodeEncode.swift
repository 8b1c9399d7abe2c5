// Encoding R15's containers for clients: `state` of a navigation, drawer or custom
// controller, the replies of their commands, and their events (PROTOCOL.md, "Containers
// beyond tabs").

import TabCore
import TabJSON

extension ReplyEncoder {
    /// `state`'s members for a composite container (`containers` answers the tree queries).
    public static func state(_ c: Composite, in containers: TabContainers, _ w: inout JSONWriter) {
        w.key(literal: "controller"); w.string(c.name)
        w.key(literal: "kind"); w.string(c.kind.rawValue)
        w.key(literal: "parent"); Composite.writeParent(c.parent, to: &w)
        w.key(literal: "window"); w.bool(c.window)
        w.key(literal: "visible"); w.bool(containers.isVisible(c.name))
        w.key(literal: "idiom"); w.string(c.idiom.rawValue)
        // R15.10: the environment is the root's.
        let root = containers.composites[containers.root(of: c.name)] ?? c
        w.key(literal: "size_class"); w.string(root.sizeClass.rawValue)
        w.key(literal: "orientation"); w.string(root.orientation.rawValue)
        c.body.writeMembers(to: &w)
        switch c.body {
        case .navigation(let n): w.key(literal: "top"); w.string(n.stack.last?.id ?? "")
        case .drawer, .custom, .split: break
        }
        if case .custom = c.body {} else {
            w.key(literal: "status_bar_child"); optionalString(c.body.statusBarChild?.id, &w)
        }
        if c.isRoot { w.key(literal: "status_bar_path"); strings(containers.statusBarPath(of: c.name), &w) }
        w.key(literal: "seq"); w.int(Int(truncatingIfNeeded: c.seq))
    }

    /// R15.35's members of a tab controller that is not a window's root: `kind`, `parent`,
    /// `window`, `visible`, and on a root its `status_bar_path`.
    public static func treeMembers(of name: String, in containers: TabContainers, _ w: inout JSONWriter) {
        let parent = containers.parent(of: name)
        w.key(literal: "kind"); w.string(ContainerKind.tab.rawValue)
        w.key(literal: "parent"); Composite.writeParent(parent, to: &w)
        w.key(literal: "window"); w.bool(containers.node(name)?.window ?? false)
        w.key(literal: "visible"); w.bool(containers.isVisible(name))
        // R15.11: a root's path follows each deciding child down (into a tab's content).
        if parent == nil { w.key(literal: "status_bar_path"); strings(containers.statusBarPath(of: name), &w) }
    }

    /// The result members of a composite's command, after `changed`: what the command moved.
    public static func nodeResult(_ command: NodeCommand, _ c: Composite, _ w: inout JSONWriter) {
        switch c.body {
        case .navigation(let n):
            w.key(literal: "stack"); w.beginArray(); for s in n.stack { w.string(s.id) }; w.endArray()
            w.key(literal: "top"); w.string(n.stack.last?.id ?? "")
        case .drawer(let d):
            drawerResult(openSide: d.openSide, center: d.center.id, &w)
        case .custom(let s):
            w.key(literal: "children"); w.beginArray(); for ch in s.children { w.string(ch.id) }; w.endArray()
            w.key(literal: "shown"); strings(s.shown, &w)
        case .split(let s):
            splitMembers(SplitChange(s), &w)
        }
        switch command {
        case .setWindow: w.key(literal: "window"); w.bool(c.window)
        case .rotate(let o):
            // As a tab controller's rotate answers (R9.3).
            w.key(literal: "rotated"); w.bool(c.supportedOrientations.contains(o.mask))
            w.key(literal: "orientation"); w.string(c.orientation.rawValue)
            w.key(literal: "supported"); orientations(c.supportedOrientations, &w)
        case .setSizeClass: w.key(literal: "size_class"); w.string(c.sizeClass.rawValue)
        default: break
        }
    }

    /// A drawer command's result members after `changed`: `open_side` (a literal, no String
    /// made and scanned) and `center`.
    public static func drawerResult(openSide: OpenSide, center: String, _ w: inout JSONWriter) {
        w.key(literal: "open_side")
        switch openSide {
        case .none: w.string(literal: "none")
        case .left: w.string(literal: "left")
        case .right: w.string(literal: "right")
        }
        w.key(literal: "center"); w.string(center)
    }

    /// A split's columns (ids, null for an empty one) and modes: `split_changed`'s members and
    /// its commands' result.
    static func splitMembers(_ s: SplitChange, _ w: inout JSONWriter) {
        w.key(literal: "columns"); w.beginObject()
        for col in SplitColumn.allCases {
            w.key(col.rawValue); optionalString(s.id(in: col), &w)
        }
        w.endObject()
        w.key(literal: "display_mode"); w.string(s.displayMode.rawValue)
        w.key(literal: "split_behavior"); w.string(s.splitBehavior.rawValue)
        SplitState.writeCollapse(top: s.topColumn, stack: s.collapsedStack, visible: s.visibleColumns, to: &w)
    }

    /// One event of an R15 container, with its envelope. `tab`: it is a tab controller's (a
    /// tab whose content changed, R15.2): its appearance and containment name the child as
    /// `tab` too, as a tab controller's own do.
    public static func event(_ e: SentNodeEvent, tab: Bool = false, into w: inout JSONWriter) {
        beginEvent(e.event.event.rawValue, controller: e.controller, seq: e.seq, into: &w)
        switch e.event {
        case .appearance(let child, let controller, let phase):
            if tab { w.key(literal: "tab"); w.string(child) }
            w.key(literal: "child"); w.string(child)
            if let controller { w.key(literal: "child_controller"); w.string(controller) }
            w.key(literal: "phase"); w.string(phase.rawValue)
        case .containment(let child, let controller, let phase, let parent):
            if tab { w.key(literal: "tab"); w.string(child) }
            w.key(literal: "child"); w.string(child)
            if let controller { w.key(literal: "child_controller"); w.string(controller) }
            w.key(literal: "phase"); w.string(phase.rawValue)
            w.key(literal: "parent"); optionalString(parent, &w)
        case .navigationChanged(let stack, let operation, let cause):
            w.key(literal: "stack"); w.beginArray(); for s in stack { s.write(to: &w) }; w.endArray()
            w.key(literal: "operation"); w.string(operation.rawValue)
            w.key(literal: "cause"); w.string(cause.rawValue)
        case .drawerChanged(let center, let left, let right, let openSide, let previous, let cause):
            w.key(literal: "center"); w.string(center)
            w.key(literal: "left"); optionalString(left, &w)
            w.key(literal: "right"); optionalString(right, &w)
            w.key(literal: "open_side"); w.string(openSide.rawValue)
            w.key(literal: "previous"); w.string(previous.rawValue)
            w.key(literal: "cause"); w.string(cause.rawValue)
        case .childrenChanged(let children, let shown):
            w.key(literal: "children"); strings(children, &w)
            w.key(literal: "shown"); strings(shown, &w)
        case .displayModeWillChange(let m):
            w.key(literal: "display_mode"); w.string(m.rawValue)
        case .splitCollapsed(let top):
            w.key(literal: "top_column"); w.string(top.rawValue)
        case .splitExpanded(let m):
            w.key(literal: "display_mode"); w.string(m.rawValue)
        case .splitChanged(let s, let cause):
            splitMembers(s, &w)
            w.key(literal: "cause"); w.string(cause.rawValue)
        case .configChanged(let config):
            w.key(literal: "changes"); w.beginObject(); config.writeMembers(to: &w); w.endObject()
        case .windowChanged(let window):
            w.key(literal: "window"); w.bool(window)
        case .parentChanged(let parent, let window):
            w.key(literal: "parent"); Composite.writeParent(parent, to: &w)
            w.key(literal: "window"); w.bool(window)
        case .statusBarChanged(let path):
            w.key(literal: "path"); strings(path, &w)
        case .tabAppearance(let tab, let phase):
            // A tab controller's event as ever (`tab`), with R15's `child` beside it.
            w.key(literal: "tab"); w.string(tab)
            w.key(literal: "child"); w.string(tab)
            w.key(literal: "phase"); w.string(phase.rawValue)
        case .contentLoaded(let tab):
            w.key(literal: "tab"); w.string(tab)
        case .orientationChanged(let from, let to):
            w.key(literal: "from"); w.string(from.rawValue)
            w.key(literal: "orientation"); w.string(to.rawValue)
        case .sizeClassChanged(let s):
            w.key(literal: "size_class"); w.string(s.rawValue)
        case .tab:
            assertionFailure("a tab controller's notification is encoded with its controller (ReplyEncoder.event(_:controller:seq:in:into:))")
        }
        w.endObject()
        w.endObject()
        w.newline()
    }
}
