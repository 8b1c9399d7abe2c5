// SEMANTICS R15: navigation, drawer and custom containers, nested in one another. Each test is
// named after the rule it checks; events are written one per line as
// "container#seq event details" so that an order reads as the rule states it.
import TabJSON
import Testing
@testable import TabCore

/// A child object (a screen, or with `controller` the controller of that name).
func child(_ id: String, _ controller: String? = nil, title: String? = nil) -> ChildObject {
    ChildObject(id: id, title: title, controller: controller)
}

/// The events of an outcome, one line each.
func lines(_ o: NodeOutcome) -> [String] {
    o.events.map { e in
        let what: String
        switch e.event {
        case .appearance(let c, _, let phase): what = "\(c) \(phase.rawValue)"
        case .containment(let c, _, let phase, let parent): what = "\(c) \(phase.rawValue)\(parent == nil ? " nil" : "")"
        case .navigationChanged(let stack, let op, let cause): what = "navigation_changed \(stack.map(\.id).joined(separator: ",")) \(op.rawValue) \(cause.rawValue)"
        case .drawerChanged(_, _, _, let open, let previous, let cause): what = "drawer_changed \(open.rawValue) from \(previous.rawValue) \(cause.rawValue)"
        case .childrenChanged(let children, let shown): what = "children_changed \(children.joined(separator: ",")) shown \(shown.joined(separator: ","))"
        case .configChanged(let c): what = "config_changed \(c.fieldNames.joined(separator: ","))"
        case .windowChanged(let w): what = "window_changed \(w)"
        case .parentChanged(let p, _): what = "parent_changed \(p.map { "\($0.parent)/\($0.slot)" } ?? "nil")"
        case .statusBarChanged(let path): what = "status_bar_changed \(path.joined(separator: "/"))"
        case .tabAppearance(let tab, let phase): what = "\(tab) \(phase.rawValue)"
        case .contentLoaded(let tab): what = "content_loaded \(tab)"
        case .tab(let n): what = n.eventName
        case .orientationChanged(let from, let to): what = "orientation_changed \(from.rawValue) \(to.rawValue)"
        case .sizeClassChanged(let s): what = "size_class_changed \(s.rawValue)"
        case .displayModeWillChange(let m): what = "display_mode_will_change \(m.rawValue)"
        case .splitCollapsed(let top): what = "split_collapsed \(top.rawValue)"
        case .splitExpanded(let m): what = "split_expanded \(m.rawValue)"
        case .splitChanged(let c, let cause):
            what = "split_changed \(c.displayMode.rawValue) \(c.visibleColumns.map(\.rawValue).joined(separator: ",")) top \(c.topColumn?.rawValue ?? "-") \(cause.rawValue)"
        }
        return "\(e.controller)#\(e.seq) \(what)"
    }
}

/// The same lines without seqs (for orders).
func order(_ o: NodeOutcome) -> [String] {
    lines(o).map { line in
        let parts = line.split(separator: " ", maxSplits: 1)
        return String(parts[0].split(separator: "#")[0]) + " " + parts[1]
    }
}

/// `nav` (stack inbox) as the center `main` of the drawer `root` (in a window), left drawer `menu`.
func drawerOverNavigation(interaction: CenterInteraction? = nil, gestures: [DrawerGesture] = [], closing: [DrawerGesture] = []) throws -> TabContainers {
    var all = TabContainers.withDefault()
    try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("inbox")]))))
    try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("main", "nav"), left: child("menu"))), window: true,
                                                    configuration: NodeConfiguration(openGestures: gestures, closeGestures: gestures + closing, centerInteraction: interaction)))
    return all
}

/// A policy that refuses every drawer opening.
struct NoDrawers: Policy {
    func mayOpenDrawer(side: DrawerSide, gesture: DrawerGesture, controller: String) -> Decision {
        .deny(by: "gate", reason: "logged_out")
    }
}

@Suite("R15 containers beyond tabs")
struct ContainerKindsTests {
    // MARK: Common rules

    @Test("R15.1 a command of another kind is not_available, and a tab command on a drawer too")
    func kindsAreFixed() throws {
        var all = try drawerOverNavigation()
        let before = all
        #expect(throws: TabError.self) { try all.apply(.push(child("x"), animated: false), to: "root") }
        #expect((try? all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "nav")) == nil)
        do { _ = try all.apply(.select(.tab("x")), to: "root"); Issue.record("a select reached a drawer") } catch {
            #expect(error.code == .notAvailable && error.message.contains("'root' is a drawer controller"))
        }
        #expect(try all.apply(.setWindow(true), to: "main").changed == false)  // set_window is every kind's
        #expect(all == before)
    }

    @Test("R15.2 child ids are unique in a container; a kept id whose controller changes is removed, then added")
    func childIdentity() throws {
        var all = TabContainers.withDefault()
        #expect(throws: TabError.self) { try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a"), child("a")])))) }
        try all.create("x", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("s")]))))
        _ = try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a")], shown: ["a"])), window: true))
        let o = try all.apply(.setChildren([child("a", "x")], shown: ["a"]), to: "c")
        #expect(order(o) == [
            "c a will_move nil", "c a will_disappear", "c a did_disappear", "c a did_move nil",
            "c a will_move", "c a did_move",
            "c a will_appear", "x s will_appear", "c a did_appear", "x s did_appear",
            "c children_changed a shown a", "x parent_changed c/a",
        ])
    }

    @Test("R15.3 attaching is refused, nothing changed: no such controller, a parent already, a window, a cycle, another idiom, a chain over 8, a tab controller in a stack")
    func attachRefusals() throws {
        var all = try drawerOverNavigation()
        try all.create("pad", composite: CompositeSpec(body: .custom(CustomState(children: [])), idiom: .pad))
        try all.create("shown", composite: CompositeSpec(body: .custom(CustomState(children: [])), window: true))
        try all.create("other", composite: CompositeSpec(body: .custom(CustomState(children: []))))
        let before = all
        func refused(_ command: NodeCommand, on name: String, _ code: TabError.Code, _ words: String) {
            do { _ = try all.apply(command, to: name); Issue.record("\(command) was accepted") } catch {
                #expect(error.code == code && error.message.contains(words), "\(error)")
            }
            #expect(all == before)
        }
        refused(.push(child("n", "ghost"), animated: false), on: "nav", .notFound, "no controller named 'ghost'")
        refused(.setChildren([child("n", "nav")], shown: nil), on: "other", .conflict, "already a child of 'root'")
        all = before
        refused(.push(child("n", "shown"), animated: false), on: "nav", .conflict, "a window's root")
        refused(.push(child("n", "root"), animated: false), on: "nav", .conflict, "cannot contain itself")
        refused(.push(child("n", "pad"), animated: false), on: "nav", .conflict, "a pad controller")
        refused(.push(child("n", "main"), animated: false), on: "nav", .conflict, "never in a stack")
        // A cycle: x holds y; y may not hold x.
        var tree = TabContainers.withDefault()
        try tree.create("y", composite: CompositeSpec(body: .custom(CustomState(children: []))))
        try tree.create("x", composite: CompositeSpec(body: .custom(CustomState(children: [child("y", "y")]))))
        do { _ = try tree.apply(.setChildren([child("x", "x")], shown: nil), to: "y"); Issue.record("a cycle was made") } catch {
            #expect(error.code == .conflict)
        }
        // A chain of 8 is the most: c1 holds c2 … c8; c9 under c8 would be 9.
        var chain = TabContainers.withDefault()
        for i in (1...8).reversed() {
            let kids = i == 8 ? [] : [child("k", "c\(i + 1)")]
            try chain.create("c\(i)", composite: CompositeSpec(body: .custom(CustomState(children: kids))))
        }
        #expect(chain.chainBelow("c1") == 8 && chain.inconsistency == nil)
        try chain.create("c9", composite: CompositeSpec(body: .custom(CustomState(children: []))))
        do { _ = try chain.apply(.setChildren([child("k", "c9")], shown: nil), to: "c8"); Issue.record("a chain of 9 was made") } catch {
            #expect(error.code == .conflict && error.message.contains("chain of 9"))
        }
    }

    @Test("R15.4 R15.42 a detached controller becomes a hidden root with parent_changed; set_window is for roots, showing sends status_bar_changed and hiding none; delete needs a detached, empty controller")
    func rootsAndWindows() throws {
        var all = try drawerOverNavigation()
        #expect(throws: TabError.self) { try all.apply(.setWindow(true), to: "nav") }
        #expect(throws: TabError.self) { try all.delete("nav") }
        #expect(throws: TabError.self) { try all.delete("root") }
        let o = try all.apply(.setCenter(child("home"), closeDrawer: false), to: "root")
        #expect(order(o).suffix(3) == ["root drawer_changed none from none app", "nav parent_changed nil", "root status_bar_changed home"])
        #expect(all.composites["nav"]!.isRoot && !all.composites["nav"]!.window && !all.isVisible("nav"))
        let shown = try all.apply(.setWindow(true), to: "nav")
        #expect(order(shown) == ["nav inbox will_appear", "nav inbox did_appear", "nav window_changed true", "nav status_bar_changed inbox"])
        let hidden = try all.apply(.setWindow(false), to: "nav")
        #expect(order(hidden) == ["nav inbox will_disappear", "nav inbox did_disappear", "nav window_changed false"])  // R15.42: none when hiding
        #expect(try all.apply(.setWindow(false), to: "nav").changed == false)
        _ = try all.delete("nav")
        #expect(all.composites["nav"] == nil && all.inconsistency == nil)
    }

    @Test("R15.5 an invisible container sends containment and its state event, never appearance")
    func invisibleContainers() throws {
        var all = TabContainers.withDefault()
        let created = try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        #expect(order(created) == ["nav a will_move", "nav a did_move"])
        let pushed = try all.apply(.push(child("b"), animated: true), to: "nav")
        #expect(order(pushed) == ["nav b will_move", "nav b did_move", "nav navigation_changed a,b push app"])
        #expect(!all.isVisible("nav"))
    }

    @Test("R15.6 a set change: each leaving child around its disappearance, each entering child, then the other visibility changes")
    func setChangeOrder() throws {
        var all = try drawerOverNavigation()
        _ = try all.apply(.push(child("msg"), animated: false), to: "nav")
        try all.create("other", composite: CompositeSpec(body: .custom(CustomState(children: [child("p"), child("q")], shown: ["q"]))))
        let o = try all.apply(.setCenter(child("main2", "other"), closeDrawer: false), to: "root")
        #expect(order(o) == [
            "root main will_move nil",
            "root main will_disappear", "nav msg will_disappear", "root main did_disappear", "nav msg did_disappear",
            "root main did_move nil",
            "root main2 will_move", "root main2 did_move",
            "root main2 will_appear", "other q will_appear", "root main2 did_appear", "other q did_appear",
            "root drawer_changed none from none app", "nav parent_changed nil", "other parent_changed root/main2",
            "root status_bar_changed main2",
        ])
    }

    @Test("R15.7 a transition is listing 5-3: will_move of leaving and entering, the appearance, then did_move")
    func transitionOrder() throws {
        var all = try drawerOverNavigation()
        let pushed = try all.apply(.push(child("msg"), animated: true), to: "nav")
        #expect(order(pushed) == [
            "nav msg will_move", "nav inbox will_disappear", "nav msg will_appear", "nav inbox did_disappear", "nav msg did_appear",
            "nav msg did_move", "nav navigation_changed inbox,msg push app", "root status_bar_changed main/msg",
        ])
        let popped = try all.apply(.pop(user: false, animated: true), to: "nav")
        #expect(order(popped) == [
            "nav msg will_move nil", "nav msg will_disappear", "nav inbox will_appear", "nav msg did_disappear", "nav inbox did_appear",
            "nav msg did_move nil", "nav navigation_changed inbox pop app", "root status_bar_changed main/inbox",
        ])
    }

    @Test("R15.8 a nested child's appearance follows its container's at once, each event numbered by its own container")
    func expansionAndSeqs() throws {
        var all = try drawerOverNavigation()
        let rootSeq = all.composites["root"]!.seq, navSeq = all.composites["nav"]!.seq
        let o = try all.apply(.setWindow(false), to: "root")
        #expect(lines(o) == [
            "root#\(rootSeq + 1) main will_disappear", "nav#\(navSeq + 1) inbox will_disappear",
            "root#\(rootSeq + 2) main did_disappear", "nav#\(navSeq + 2) inbox did_disappear",
            "root#\(rootSeq + 3) window_changed false",
        ])
        #expect(all.composites["root"]!.seq == rootSeq + 3 && all.composites["nav"]!.seq == navSeq + 2)
    }

    @Test("R15.8 b R15.39 one state event per container per command: set_center with close_drawer completes the new center, then closes, then one drawer_changed")
    func oneStateEvent() throws {
        var all = try drawerOverNavigation()
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        let o = try all.apply(.setCenter(child("home"), closeDrawer: true), to: "root")
        // R15.39: the new center's set change completes, then the drawer disappears, then one drawer_changed.
        #expect(order(o) == [
            "root main will_move nil", "root main will_disappear", "nav inbox will_disappear", "root main did_disappear", "nav inbox did_disappear",
            "root main did_move nil", "root home will_move", "root home did_move", "root home will_appear", "root home did_appear",
            "root menu will_disappear", "root menu did_disappear",
            "root drawer_changed none from left app", "nav parent_changed nil", "root status_bar_changed home",
        ])
    }

    @Test("R15.9 R15.29 reach: a user action below an open drawer's center is refused (none), but a user pop under navigation_bar_only and every action under full; an invisible controller is out of reach")
    func reach() throws {
        for interaction in CenterInteraction.allCases {
            var all = try drawerOverNavigation(interaction: interaction)
            _ = try all.apply(.push(child("msg"), animated: false), to: "nav")
            _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
            let before = all
            let pop = Result { () throws(TabError) in try all.apply(.pop(user: true, animated: false), to: "nav") }
            switch interaction {
            case .full, .navigationBarOnly: #expect((try? pop.get())?.changed == true)
            case .none:
                #expect(all == before)
                guard case .failure(let e) = pop else { Issue.record("a user pop reached under 'none'"); continue }
                #expect(e.code == .notAvailable && e.message.contains("below the center of 'root'"))
            }
            // An app pop is never refused for reach.
            var app = before
            #expect(try app.apply(.pop(user: false, animated: false), to: "nav").changed)
        }
        var hidden = TabContainers.withDefault()
        try hidden.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a"), child("b")]))))
        #expect(throws: TabError.self) { try hidden.apply(.pop(user: true, animated: false), to: "nav") }
        #expect(try hidden.apply(.pop(user: false, animated: false), to: "nav").changed)
    }

    @Test("R15.11 the status bar child: navigation its top, drawer the open drawer else the center, custom its own; a root's path follows them down")
    func statusBar() throws {
        var all = try drawerOverNavigation()
        #expect(all.statusBarPath(of: "root") == ["main", "inbox"])
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        #expect(all.statusBarPath(of: "root") == ["menu"])
        try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a"), child("b")], shown: ["a", "b"]))))
        #expect(all.statusBarPath(of: "c") == [])
        let o = try all.apply(.configure(NodeConfiguration(statusBarChild: .some("b"))), to: "c")
        #expect(order(o) == ["c config_changed status_bar_child"])  // not in a window: no status_bar_changed
        #expect(all.statusBarPath(of: "c") == ["b"])
    }

    // MARK: Navigation

    @Test("R15.13 the root cannot be popped; pop_to the top and pop_to_root at the root change nothing; an id twice is a conflict; the depth is bounded")
    func navigationRules() throws {
        var all = try drawerOverNavigation()
        let before = all
        #expect(throws: TabError.self) { try all.apply(.pop(user: false, animated: false), to: "nav") }
        #expect(try all.apply(.popTo("inbox", animated: false), to: "nav") == NodeOutcome())
        #expect(try all.apply(.popToRoot(animated: false), to: "nav") == NodeOutcome())
        #expect(throws: TabError.self) { try all.apply(.push(child("inbox"), animated: false), to: "nav") }
        #expect(all == before)
        var limits = ControllerLimits()
        limits.maxStackDepth = 2
        _ = try all.apply(.push(child("a"), animated: false), to: "nav", limits: limits)
        _ = try all.apply(.push(child("b"), animated: false), to: "nav", limits: limits)
        do { _ = try all.apply(.push(child("c"), animated: false), to: "nav", limits: limits); Issue.record("past the depth") } catch {
            #expect(error.code == .outOfRange && error.message.contains("limits.max_stack_depth"))
        }
        let o = try all.apply(.popTo("a", animated: false), to: "nav")
        #expect(order(o).prefix(6) == ["nav b will_move nil", "nav b will_disappear", "nav a will_appear", "nav b did_disappear", "nav a did_appear", "nav b did_move nil"])
    }

    @Test("R15.13 set_stack: kept ids get no containment, even reordered; the top's change is appearance")
    func setStack() throws {
        var all = try drawerOverNavigation()
        _ = try all.apply(.push(child("a"), animated: false), to: "nav")
        let o = try all.apply(.setStack([child("a"), child("inbox"), child("new")], animated: false), to: "nav")
        #expect(order(o) == [
            "nav new will_move", "nav a will_disappear", "nav new will_appear", "nav a did_disappear", "nav new did_appear", "nav new did_move",
            "nav navigation_changed a,inbox,new set_stack app", "root status_bar_changed main/new",
        ])
        #expect(try all.apply(.setStack([child("a"), child("inbox"), child("new")], animated: false), to: "nav").changed == false)
    }

    @Test("R15.14 a user pop is navigation_changed with cause user, after the appearance")
    func userPop() throws {
        var all = try drawerOverNavigation()
        _ = try all.apply(.push(child("msg"), animated: false), to: "nav")
        let o = try all.apply(.pop(user: true, animated: true), to: "nav")
        #expect(order(o)[6] == "nav navigation_changed inbox pop user")
    }

    // MARK: Drawer

    @Test("R15.24 opening a drawer sends appearance to the drawer only: the center stays visible")
    func centerStaysVisible() throws {
        var all = try drawerOverNavigation()
        let o = try all.apply(.openDrawer(.left, gesture: .button, animated: true), to: "root")
        #expect(order(o) == ["root menu will_appear", "root menu did_appear", "root drawer_changed left from none user", "root status_bar_changed menu"])
        #expect(all.isVisible("nav"))
        let closed = try all.apply(.closeDrawer(gesture: nil, animated: true), to: "root")
        #expect(order(closed) == ["root menu will_disappear", "root menu did_disappear", "root drawer_changed none from left app", "root status_bar_changed main/inbox"])
    }

    @Test("R15.25 no drawer there is not_available; open there is a no-op; the other side swaps as R5.1; toggle does nothing while the other is open")
    func drawerSides() throws {
        var all = try drawerOverNavigation()
        #expect(throws: TabError.self) { try all.apply(.openDrawer(.right, gesture: nil, animated: false), to: "root") }
        _ = try all.apply(.setDrawer(.right, child("tools")), to: "root")
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        #expect(try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root") == NodeOutcome())
        #expect(try all.apply(.toggleDrawer(.right, gesture: nil, animated: false), to: "root") == NodeOutcome())
        let swap = try all.apply(.openDrawer(.right, gesture: nil, animated: false), to: "root")
        #expect(order(swap) == [
            "root menu will_disappear", "root tools will_appear", "root menu did_disappear", "root tools did_appear",
            "root drawer_changed right from left app", "root status_bar_changed tools",
        ])
        #expect(order(try all.apply(.toggleDrawer(.right, gesture: nil, animated: false), to: "root")).first == "root tools will_disappear")
        #expect(order(try all.apply(.toggleDrawer(.left, gesture: nil, animated: false), to: "root")).first == "root menu will_appear")
    }

    @Test("R15.26 R15.37 gestures: a close-only gesture that would open, an open gesture while open, outside the mask, a navigation bar without a navigation center, then reach, then plugins")
    func gestureRefusals() throws {
        var all = try drawerOverNavigation(gestures: [.panCenter], closing: [.tapCenter])
        func refused(_ c: NodeCommand, _ code: TabError.Code, policy: Policy = DefaultPolicy(), _ state: TabContainers? = nil) {
            var s = state ?? all
            let before = s
            do { _ = try s.apply(c, to: "root", policy: policy); Issue.record("\(c) was accepted") } catch {
                #expect(error.code == code, "\(c): \(error)")
            }
            #expect(s == before)
        }
        refused(.openDrawer(.left, gesture: .tapCenter, animated: false), .invalid)
        refused(.openDrawer(.left, gesture: .bezelPanCenter, animated: false), .notAvailable)
        refused(.openDrawer(.left, gesture: .panCenter, animated: false), .denied, policy: NoDrawers())
        refused(.openDrawer(.left, gesture: .button, animated: false), .denied, policy: NoDrawers())
        #expect(try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root", policy: NoDrawers()).changed)  // an app open asks no plugin
        refused(.openDrawer(.left, gesture: .panCenter, animated: false), .conflict)
        refused(.closeDrawer(gesture: .panDrawer, animated: false), .notAvailable)
        #expect(try all.apply(.closeDrawer(gesture: .tapCenter, animated: false), to: "root").changed)
        // A navigation bar gesture needs a navigation controller as the center.
        var screen = TabContainers.withDefault()
        _ = try screen.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c"), left: child("l"))), window: true,
                                                               configuration: NodeConfiguration(openGestures: [.panNavigationBar])))
        refused(.openDrawer(.left, gesture: .panNavigationBar, animated: false), .notAvailable, screen)
        #expect(try all.apply(.configure(NodeConfiguration(openGestures: [.panNavigationBar])), to: "root").changed)
        #expect(try all.apply(.openDrawer(.left, gesture: .panNavigationBar, animated: false), to: "root").changed)
        // Reach: a hidden drawer's gestures are refused.
        var hidden = try drawerOverNavigation(gestures: [.panCenter])
        _ = try hidden.apply(.setWindow(false), to: "root")
        refused(.openDrawer(.left, gesture: .panCenter, animated: false), .notAvailable, hidden)
    }

    @Test("R15.27 set_center with the center's own id is a no-op; without close_drawer the drawer stays open")
    func setCenter() throws {
        var all = try drawerOverNavigation()
        #expect(try all.apply(.setCenter(child("main", "nav"), closeDrawer: true), to: "root") == NodeOutcome())
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        let o = try all.apply(.setCenter(child("home"), closeDrawer: false), to: "root")
        #expect(!order(o).contains("root menu will_disappear"))
        guard case .drawer(let d) = all.composites["root"]!.body else { Issue.record("not a drawer"); return }
        #expect(d.openSide == .left && d.center.id == "home")
    }

    @Test("R15.28 set_drawer null on the open side closes it with cause removed; a new drawer on the open side appears")
    func setDrawer() throws {
        var all = try drawerOverNavigation()
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        let replaced = try all.apply(.setDrawer(.left, child("menu2")), to: "root")
        #expect(order(replaced).prefix(8) == [
            "root menu will_move nil", "root menu will_disappear", "root menu did_disappear", "root menu did_move nil",
            "root menu2 will_move", "root menu2 did_move", "root menu2 will_appear", "root menu2 did_appear",
        ])
        let removed = try all.apply(.setDrawer(.left, nil), to: "root")
        #expect(order(removed).contains("root drawer_changed none from left removed"))
        #expect(try all.apply(.setDrawer(.left, nil), to: "root") == NodeOutcome())
    }

    // MARK: Custom

    @Test("R15.30 set_children keeps the old shown still present; set_shown is a visibility change; children_changed last")
    func customChildren() throws {
        var all = TabContainers.withDefault()
        _ = try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a"), child("b")], shown: ["b"])), window: true))
        let o = try all.apply(.setChildren([child("b"), child("c")], shown: nil), to: "c")
        #expect(order(o) == ["c a will_move nil", "c a did_move nil", "c c will_move", "c c did_move", "c children_changed b,c shown b"])
        let shown = try all.apply(.setShown(["c", "b"]), to: "c")
        #expect(order(shown) == ["c c will_appear", "c c did_appear", "c children_changed b,c shown b,c"])
        #expect(throws: TabError.self) { try all.apply(.setShown(["zzz"]), to: "c") }
    }

    @Test("R15.31 transition goes from a shown child to a new one, in listing 5-3's order")
    func customTransition() throws {
        var all = TabContainers.withDefault()
        _ = try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a"), child("b")], shown: ["a"])), window: true))
        #expect(throws: TabError.self) { try all.apply(.transition(from: "b", to: child("n"), animated: false), to: "c") }
        #expect(throws: TabError.self) { try all.apply(.transition(from: "a", to: child("b"), animated: false), to: "c") }
        let o = try all.apply(.transition(from: "a", to: child("n"), animated: true), to: "c")
        #expect(order(o) == [
            "c a will_move nil", "c n will_move", "c a will_disappear", "c n will_appear", "c a did_disappear", "c n did_appear",
            "c a did_move nil", "c n did_move", "c children_changed n,b shown n",
        ])
    }

    // MARK: Persistence and undo

    @Test("R15.12 the snapshot keeps every container of every kind, its place, window and seq")
    func snapshotRoundTrip() throws {
        var all = try drawerOverNavigation(interaction: .full, gestures: [.panCenter])
        _ = try all.apply(.push(child("m", title: "Message"), animated: false), to: "nav")
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        _ = try all.create("c", composite: CompositeSpec(body: .custom(CustomState(children: [child("a")], shown: ["a"], statusBarChild: nil)),
                                                         configuration: NodeConfiguration(statusBarChild: .some("a"))))
        var w = JSONWriter()
        all.writeSnapshot(to: &w)
        let json = try w.withBytes { try JSONParser.parse($0, maxDepth: 64) }
        var read = try TabContainers(snapshot: json)
        read.keepChanges()
        all.keepChanges()
        #expect(read == all)
        #expect(read.inconsistency == nil)
    }

    // MARK: Tab controllers in trees

    /// The tab controller `tabs` (mail, news; out of any window) as the center `main` of the drawer `root`.
    func tabsInDrawer(window: Bool = true) throws -> TabContainers {
        var all = TabContainers.withDefault()
        var options = TabBarOptions(idiom: .phone)
        options.window = false
        try all.create("tabs", .tab(options))
        _ = try all.apply(.setTabs([Tab(id: "mail"), Tab(id: "news")], animated: false, selected: nil), to: "tabs")
        try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("main", "tabs"), left: child("menu"))), window: window))
        return all
    }

    @Test("R15.3 a tab controller is attached to a drawer slot or a custom container only out of a window, never to a stack")
    func tabControllerAttaching() throws {
        var all = TabContainers.withDefault()
        do { try all.create("d", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c", "main"))))); Issue.record("a window's root attached") } catch {
            #expect(error.code == .conflict && error.message.contains("window"))
        }
        var tabs = try tabsInDrawer()
        #expect(tabs.parent(of: "tabs") == Attachment(parent: "root", slot: "main") && tabs.inconsistency == nil)
        try tabs.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        #expect(throws: TabError.self) { try tabs.apply(.push(child("t", "tabs"), animated: false), to: "nav") }
        #expect(throws: TabError.self) { try tabs.delete("tabs") }
        #expect(throws: TabError.self) { try tabs.apply(.setWindow(true), to: "tabs") }
    }

    @Test("R15.5 R15.8 a tab controller not visible sends no appearance and loads a tab at its first appearance; shown by its container, content_loaded comes just before will_appear")
    func hiddenTabController() throws {
        var all = try tabsInDrawer(window: false)
        let seq = all["tabs"]!.seq
        let o = try all.apply(.select(.tab("news")), to: "tabs")
        #expect(!o.notifications.contains { if case .appearance = $0 { true } else if case .contentLoaded = $0 { true } else { false } })
        #expect(all["tabs"]!.seq == seq + UInt64(o.notificationCount))
        #expect(all["tabs"]!.tab("news")?.contentLoaded == false)
        let shown = try all.apply(.setWindow(true), to: "root")
        #expect(order(shown) == [
            "root main will_appear", "tabs content_loaded news", "tabs news will_appear", "root main did_appear", "tabs news did_appear",
            "root window_changed true", "root status_bar_changed main/news",
        ])
        #expect(all["tabs"]!.tab("news")?.contentLoaded == true && all.inconsistency == nil)
    }

    @Test("R15.8 c a visible nested tab controller keeps its own order, and the root's status_bar_changed follows its bar_changed")
    func nestedSelection() throws {
        var all = try tabsInDrawer()
        let o = try all.apply(.select(.tab("news")), to: "tabs")
        #expect(o.notifications.contains(.appearance(tab: "news", phase: .willAppear)))
        #expect(lines(NodeOutcome(events: all.treeEvents)) == ["root#\(all.composites["root"]!.seq) status_bar_changed main/news"])
        _ = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        _ = try all.apply(.select(.tab("mail")), to: "tabs")
        #expect(all.treeEvents.isEmpty)  // the open drawer decides the status bar
    }

    @Test("R15.10 rotate and set_size_class are the root's: not_available on an attached tab controller")
    func environmentIsTheRoots() throws {
        var all = try tabsInDrawer()
        #expect(throws: TabError.self) { try all.apply(.rotate(.landscapeLeft), to: "tabs") }
        #expect(throws: TabError.self) { try all.apply(.setSizeClass(.compact), to: "tabs") }
    }

    @Test("R15.4 R15.12 where a tab controller sits survives the snapshot; detached it becomes a hidden root")
    func tabPlaces() throws {
        var all = try tabsInDrawer()
        var w = JSONWriter()
        all.writeSnapshot(to: &w)
        var read = try TabContainers(snapshot: try w.withBytes { try JSONParser.parse($0, maxDepth: 64) })
        read.keepChanges(); all.keepChanges()
        #expect(read == all && read.node("tabs")?.parent == Attachment(parent: "root", slot: "main"))
        let o = try all.apply(.setCenter(child("home"), closeDrawer: false), to: "root")
        #expect(order(o).contains("tabs parent_changed nil"))
        #expect(all.node("tabs")?.parent == nil && all.node("tabs")?.window == false && !all.isVisible("tabs"))
    }

    @Test("R15.12 preserve keeps what has restoration ids all the way down; restore applies it in pre-order with cause restore")
    func preserveAndRestore() throws {
        var all = TabContainers.withDefault()
        var hidden = TabBarOptions(idiom: .phone)
        hidden.window = false
        try all.create("tabs", .tab(hidden))
        _ = try all.apply(.setTabs([Tab(id: "mail", restorationID: "r-mail"), Tab(id: "news", restorationID: "r-news")], animated: false, selected: nil), to: "tabs")
        try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [ChildObject(id: "inbox", restorationID: "r-inbox")]))))
        try all.create("loose", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("x")]))))
        try all.create("side", composite: CompositeSpec(body: .custom(CustomState(children: [ChildObject(id: "n", restorationID: "r-n", controller: "nav"), child("l", "loose")], shown: ["n"]))))
        try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: ChildObject(id: "main", restorationID: "r-main", controller: "tabs"),
                                                                                  right: ChildObject(id: "s", restorationID: "r-side", controller: "side"))), window: true))
        _ = try all.apply(.push(ChildObject(id: "msg", restorationID: "r-msg"), animated: false), to: "nav")
        _ = try all.apply(.push(child("draft"), animated: false), to: "nav")  // no restoration id: not kept
        _ = try all.apply(.select(.tab("news")), to: "tabs")
        _ = try all.apply(.openDrawer(.right, gesture: nil, animated: false), to: "root")
        let archive = try all.preserveTree("root")
        #expect(archive.entries[""] == .openSide(.right))
        #expect(archive.entries["r-side"] == .nothing)
        #expect(archive.entries["r-side/r-n"] == .stack([ChildObject(id: "inbox", restorationID: "r-inbox"), ChildObject(id: "msg", restorationID: "r-msg")]))
        if case .tab(let a)? = archive.entries["r-main"] { #expect(a.selected == "r-news") } else { Issue.record("no tab archive: \(archive)") }
        #expect(archive.entries.count == 4)  // `loose` has no restoration id on the way: not kept
        #expect(throws: TabError.self) { try all.preserveTree("nav") }  // attached: preserve its root
        var w = JSONWriter()
        archive.write(to: &w)
        #expect(try TreeArchive(json: try w.withBytes { try JSONParser.parse($0, maxDepth: 64) }, at: "archive") == archive)
        _ = try all.apply(.closeDrawer(gesture: nil, animated: false), to: "root")
        _ = try all.apply(.popToRoot(animated: false), to: "nav")
        _ = try all.apply(.select(.tab("mail")), to: "tabs")
        let o = try all.apply(.restoreTree(archive), to: "root")
        #expect(o.changed && all.inconsistency == nil)
        let states = o.events.compactMap { e -> String? in
            switch e.event {
            case .drawerChanged(_, _, _, let open, _, let cause): return "\(e.controller) drawer \(open.rawValue) \(cause.rawValue)"
            case .navigationChanged(let s, _, let cause): return "\(e.controller) stack \(s.map(\.id).joined(separator: ",")) \(cause.rawValue)"
            case .tab(.selectionChanged(let tab, _, _, let cause, _, _)): return "\(e.controller) selected \(tab ?? "-") \(cause.rawValue)"
            default: return nil
            }
        }
        #expect(states == ["root drawer right restore", "tabs selected news restore", "nav stack inbox,msg restore"])
        guard case .drawer(let d) = all.composites["root"]!.body, case .navigation(let n) = all.composites["nav"]!.body else { Issue.record("kinds"); return }
        #expect(d.openSide == .right && n.stack.map(\.id) == ["inbox", "msg"] && all["tabs"]!.selection.wireValue == "news")
    }

    @Test("R15.10 a non-tab root has R14.4's size class and R9.3's rotation; an attached container has its root's, and may not change it")
    func environment() throws {
        var all = try drawerOverNavigation()
        let turned = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "root")
        #expect(order(turned) == ["root orientation_changed portrait landscape_left"])
        #expect(try all.apply(NodeCommand.rotate(.portraitUpsideDown), to: "root") == NodeOutcome())  // a phone does not turn upside down
        #expect(throws: TabError.self) { try all.apply(NodeCommand.rotate(.portrait), to: "nav") }
        #expect(throws: TabError.self) { try all.apply(NodeCommand.setSizeClass(.regular), to: "root") }  // a phone is always compact
        var pad = TabContainers.withDefault()
        try pad.create("p", composite: CompositeSpec(body: .custom(CustomState(children: [])), window: true, idiom: .pad))
        #expect(order(try pad.apply(NodeCommand.setSizeClass(.compact), to: "p")) == ["p size_class_changed compact"])
        #expect(try pad.apply(NodeCommand.setSizeClass(.compact), to: "p") == NodeOutcome())
        #expect(order(try pad.apply(NodeCommand.rotate(.portraitUpsideDown), to: "p")) == ["p orientation_changed portrait portrait_upside_down"])
    }

    @Test("an undone turn puts the containers back: created ones go, changed ones are as they were, seqs too")
    func undo() throws {
        var all = try drawerOverNavigation()
        all.keepChanges()
        let before = all
        _ = try all.apply(.push(child("m"), animated: false), to: "nav")
        _ = try all.apply(.setCenter(child("home"), closeDrawer: false), to: "root")
        _ = try all.create("x", composite: CompositeSpec(body: .custom(CustomState(children: []))))
        _ = try all.delete("nav")
        all.undoChanges()
        #expect(all == before)
    }
}
