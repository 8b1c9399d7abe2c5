// TabClient's functions for navigation, split, drawer and custom controllers (R15) against a real
// tabd: each does what its command does, and every event those containers send is typed
// (`TabEvent.containerEvent`, TabCore's NodeEvent), each of NodeEvent's events among them.
// In TabClientTests (their own test process, see TabClientTests.swift).

import TabClient
import TabCore
import TabJSON
import TabProtocol
import Testing

extension TabClientTests {
    /// The events R15's containers send: every case of NodeEvent, by name.
    static let containerEventNames: Set<EventName> = [
        .appearance, .containment, .navigationChanged, .drawerChanged, .childrenChanged, .configChanged, .windowChanged,
        .parentChanged, .statusBarChanged,
    ]
    /// The events only a split sends (R15.17–R15.22).
    static let splitEventNames: Set<EventName> = [.displayModeWillChange, .splitCollapsed, .splitExpanded, .splitChanged]

    /// A drawer `root` (a window's root) whose center is the navigation controller `nav`,
    /// and a custom container `box`: each function's command, its reply, and the events of
    /// all three, each typed.
    @Test func containerFunctionsAndTypedEvents() async throws {
        let tabd = try TabdProcess()
        let client = try TabClient(path: tabd.socket)
        defer { client.close() }
        let watcher = try TabClient(path: tabd.socket)
        defer { watcher.close() }
        try await watcher.subscribe(controllers: ["nav", "root", "box"])

        let created = try await client.createNavigation("nav", stack: [ChildObject(id: "inbox", title: "Inbox")])
        #expect(created.string("kind") == "navigation" && created.string("top") == "inbox")
        try await client.createDrawer("root", center: ChildObject(id: "main", controller: "nav"), left: ChildObject(id: "menu"),
                                      openGestures: [.bezelPanCenter], closeGestures: [.tapCenter], centerInteraction: .full, window: true)
        try await client.createCustom("box", children: [ChildObject(id: "a"), ChildObject(id: "b", restorationID: "b")], shown: ["a"])
        let summaries = try await client.controllers()
        #expect(summaries.first { $0.name == "nav" }.map { ($0.kind, $0.parent, $0.window) } ?? (.tab, nil, true)
                == (.navigation, Attachment(parent: "root", slot: "main"), false))

        #expect(try await client.push(ChildObject(id: "msg", title: "Message"), animated: true, controller: "nav").string("top") == "msg")
        try await client.push(ChildObject(id: "reply"), controller: "nav")
        #expect(try await client.popTo("msg", controller: "nav").string("top") == "msg")
        #expect(try await client.pop(user: true, controller: "nav").string("top") == "inbox")
        try await client.setStack([ChildObject(id: "inbox"), ChildObject(id: "sent")], controller: "nav")
        #expect(try await client.popToRoot(controller: "nav").string("top") == "inbox")

        #expect(try await client.openDrawer(.left, gesture: .bezelPanCenter, controller: "root").string("open_side") == "left")
        #expect(try await client.closeDrawer(gesture: .tapCenter, controller: "root").string("open_side") == "none")
        #expect(try await client.toggleDrawer(.left, controller: "root").string("open_side") == "left")
        // (`.none` alone would be Optional.none here: the enum's case is named in full.)
        try await client.configure(openGestures: [.button], centerInteraction: CenterInteraction.none, controller: "root")
        try await client.setDrawer(.right, ChildObject(id: "info"), controller: "root")
        // The navigation controller leaves the center: a root again (parent_changed).
        #expect(try await client.setCenter(ChildObject(id: "home"), closeDrawer: true, controller: "root").string("center") == "home")

        try await client.setChildren([ChildObject(id: "a"), ChildObject(id: "c")], shown: ["a", "c"], controller: "box")
        try await client.setShown(["c"], controller: "box")
        try await client.transition(from: "c", to: ChildObject(id: "d"), animated: true, controller: "box")
        try await client.configure(statusBarChild: .set("d"), controller: "box")
        try await client.configure(statusBarChild: .set(nil), controller: "box")
        #expect(try await client.setWindow(true, controller: "box").bool("window") == true)
        try await client.setWindow(false, controller: "box")
        let state = try await client.stateObject("box")
        #expect(state.string("kind") == "custom" && state.bool("window") == false)

        // Every event of the three, each typed; the last command's window_changed ends them.
        var seen: [TabEvent] = []
        while !seen.contains(where: { $0.controller == "box" && $0.containerEvent == .windowChanged(false) }) {
            let batch = await watcher.nextEvents()
            if batch.isEmpty { break }
            seen += batch
        }
        let untyped = seen.filter { $0.containerEvent == nil }
        #expect(untyped.isEmpty, "events without a typed form: \(untyped.map { "\($0.controller) \($0.name) \($0.data)" })")
        let kinds = Set(seen.compactMap { $0.containerEvent?.event })
        #expect(kinds == Self.containerEventNames, "not seen: \(Self.containerEventNames.subtracting(kinds).map(\.rawValue))")
        let ofRoot = seen.filter { $0.controller == "root" }.compactMap(\.containerEvent)
        #expect(ofRoot.contains(.drawerChanged(center: "main", left: "menu", right: nil, openSide: .left, previous: .none, cause: .user)))
        #expect(ofRoot.contains(.configChanged(NodeConfiguration(openGestures: [.button], centerInteraction: CenterInteraction.none))))
        #expect(ofRoot.contains(.statusBarChanged(path: ["menu"])))
        #expect(ofRoot.contains(.containment(child: "main", controller: "nav", phase: .willMove, parent: nil)))
        let ofNav = seen.filter { $0.controller == "nav" }.compactMap(\.containerEvent)
        #expect(ofNav.contains(.navigationChanged(stack: [ChildObject(id: "inbox", title: "Inbox"), ChildObject(id: "msg", title: "Message")],
                                                  operation: .push, cause: .app)))
        #expect(ofNav.last == .parentChanged(parent: nil, window: false), "\(ofNav)")
        let ofBox = seen.filter { $0.controller == "box" }.compactMap(\.containerEvent)
        #expect(ofBox.contains(.configChanged(NodeConfiguration(statusBarChild: .some(nil)))))
        #expect(ofBox.contains(.childrenChanged(children: ["a", "c"], shown: ["a", "c"])))
        #expect(ofBox.contains(.windowChanged(true)))
    }

    /// Every event name of R15's containers has its typed form: what tabd's encoder writes
    /// for each NodeEvent reads back as the same NodeEvent.
    @Test func everyContainerEventNameHasATypedForm() {
        let samples: [NodeEvent] = [
            .appearance(child: "a", controller: "nav", phase: .willAppear),
            .appearance(child: "a", controller: nil, phase: .didDisappear),
            .containment(child: "a", controller: nil, phase: .didMove, parent: "box"),
            .containment(child: "a", controller: "nav", phase: .willMove, parent: nil),
            .navigationChanged(stack: [ChildObject(id: "s", title: "S", restorationID: "r", controller: nil)], operation: .popTo, cause: .user),
            .drawerChanged(center: "c", left: nil, right: "r", openSide: .right, previous: .none, cause: .app),
            .childrenChanged(children: ["a", "b"], shown: ["b"]),
            .configChanged(NodeConfiguration(openGestures: [.panCenter], closeGestures: [], centerInteraction: .navigationBarOnly, statusBarChild: .some("x"))),
            .configChanged(NodeConfiguration(statusBarChild: .some(nil))),
            .windowChanged(true),
            .parentChanged(parent: Attachment(parent: "root", slot: "main"), window: false),
            .parentChanged(parent: nil, window: false),
            .statusBarChanged(path: ["root", "main"]),
            .configChanged(NodeConfiguration(preferredDisplayMode: .twoOver, preferredSplitBehavior: .displace, presentsWithGesture: false)),
            .displayModeWillChange(.oneOver),
            .splitCollapsed(topColumn: .supplementary),
            .splitExpanded(displayMode: .twoDisplace),
            .splitChanged(SplitChange(primary: "p", supplementary: nil, secondary: "s", compact: "c", displayMode: .oneBeside, splitBehavior: .tile,
                                      topColumn: nil, collapsedStack: nil, visibleColumns: [.primary, .secondary]), cause: .environment),
            .splitChanged(SplitChange(primary: "p", supplementary: "m", secondary: "s", compact: nil, displayMode: .twoBeside, splitBehavior: .tile,
                                      topColumn: .supplementary, collapsedStack: [.primary, .supplementary], visibleColumns: [.supplementary]), cause: .user),
        ]
        #expect(Set(samples.map(\.event)) == Self.containerEventNames.union(Self.splitEventNames))
        for e in samples {
            var w = JSONWriter()
            ReplyEncoder.event(SentNodeEvent(controller: "x", seq: 3, event: e), into: &w)
            let line = String(decoding: w.bytes.dropLast(), as: UTF8.self)
            let event = (try? object(line)).flatMap(TabEvent.init)
            #expect(event?.containerEvent == e, "\(line)")
        }
    }
}

/// A container's picture without what events do not announce (CompositeView's comment).
func announced(_ v: CompositeView) -> CompositeView {
    var v = v
    v.readAt = 0
    if v.parent == nil && !v.window { v.statusBarPath = nil }
    return v
}

extension TabClientTests {
    /// CompositeView kept from events alone equals `state` after each command, through
    /// pushes and pops below a hidden root and a shown one, a custom container showing and
    /// hiding a navigation controller, a drawer opening and closing, configuration and
    /// windows; it reads `state` again only where events name new children by id or a
    /// container becomes a root.
    @Test func compositeViewFollowsEvents() async throws {
        let tabd = try TabdProcess()
        let c = try TabClient(path: tabd.socket)
        defer { c.close() }
        let names = ["nav", "box", "dr"]
        try await c.subscribe(controllers: names)
        try await c.createNavigation("nav", stack: [ChildObject(id: "inbox", title: "Inbox")])
        try await c.createCustom("box", children: [ChildObject(id: "a"), ChildObject(id: "n", controller: "nav")], shown: ["a"])
        try await c.createDrawer("dr", center: ChildObject(id: "c", controller: "box"), left: ChildObject(id: "menu"), window: true)
        var views: [String: CompositeView] = [:]
        for name in names { views[name] = try await c.compositeState(name) }
        _ = await c.nextEvents()  // the creations' (the states include them)
        var rereads: [String] = []
        var applied: [EventName: Int] = [:]

        let steps: [(String, () async throws -> Void)] = [
            ("push below a hidden root", { try await c.push(ChildObject(id: "msg", title: "Message"), controller: "nav") }),
            ("show the navigation controller", { try await c.setShown(["a", "n"], controller: "box") }),
            ("its status bar", { try await c.configure(statusBarChild: .set("n"), controller: "box") }),
            ("pop where it shows", { try await c.pop(controller: "nav") }),
            ("open the drawer", { try await c.openDrawer(.left, controller: "dr") }),
            ("close it", { try await c.closeDrawer(controller: "dr") }),
            ("hide a screen", { try await c.setShown(["n"], controller: "box") }),
            ("replace the navigation controller", { try await c.transition(from: "n", to: ChildObject(id: "b"), controller: "box") }),
            ("a window of its own", { try await c.setWindow(true, controller: "nav") }),
            ("a new stack", { try await c.setStack([ChildObject(id: "x"), ChildObject(id: "y", restorationID: "y")], controller: "nav") }),
            ("gestures", { try await c.configure(openGestures: [.panCenter, .button], centerInteraction: CenterInteraction.none, controller: "dr") }),
            ("the drawer's window closes", { try await c.setWindow(false, controller: "dr") }),
            ("the navigation's too", { try await c.setWindow(false, controller: "nav") }),
            ("pop to root, unseen", { try await c.popToRoot(controller: "nav") }),
        ]
        for (what, step) in steps {
            try await step()
            for event in await c.nextEvents() {
                guard var view = views[event.controller], event.seq > view.seq else { continue }
                let outcome = event.seq == view.seq + 1 ? view.apply(event: event.name, seq: event.seq, data: event.data) : .unsure
                if outcome == .unsure {
                    rereads.append("\(what): \(event.controller) \(event.name)")
                    view = try await c.compositeState(event.controller)
                } else if let kind = event.kind {
                    applied[kind, default: 0] += 1
                }
                views[event.controller] = view
            }
            for name in names {
                let state = try await c.compositeState(name)
                #expect(announced(views[name]!) == announced(state), "after \(what), \(name):\nview  \(views[name]!)\nstate \(state)")
            }
        }
        #expect(rereads.allSatisfy { $0.hasPrefix("replace the navigation controller") }, "\(rereads)")
        // Each kind of event was applied from its data, not read again.
        let kinds: Set<EventName> = [.appearance, .containment, .navigationChanged, .drawerChanged, .childrenChanged, .configChanged, .windowChanged, .statusBarChanged]
        #expect(kinds.subtracting(applied.keys).isEmpty, "\(applied)")
    }
}

extension TabClientTests {
    /// A pad split, a window's root (R15.15–R15.23), through TabClient's split functions: each
    /// reply, every event typed, and a CompositeView kept from the events equal to `state`
    /// after each command — expanded in portrait and landscape, columns hidden and shown (by
    /// a user too), a detail shown, its settings configured, collapsed and expanded by the
    /// size class, a compact column set and emptied, a navigation controller as its primary.
    /// It reads `state` again only where the environment changes or a column gets a new child.
    @Test func splitFunctionsAndCompositeView() async throws {
        let tabd = try TabdProcess()
        let c = try TabClient(path: tabd.socket)
        defer { c.close() }
        try await c.subscribe(controllers: ["cols", "nav"])
        let created = try await c.createSplit("cols", style: .double, primary: ChildObject(id: "list", title: "Mail"), secondary: ChildObject(id: "detail"),
                                              window: true, idiom: "pad")
        #expect(created.string("display_mode") == "secondary_only" && created.string("split_behavior") == "overlay", "\(created)")
        try await c.createNavigation("nav", stack: [ChildObject(id: "boxes")], idiom: "pad")
        var view = try await c.compositeState("cols")
        #expect(view.kind == .split && view.style == .double && view.visibleColumns == [.secondary] && view.shownChildren == ["detail"], "\(view)")
        _ = await c.nextEvents()  // the creations' (the state includes them)
        var rereads: [String] = []
        var applied: [EventName: Int] = [:]
        var typed: [NodeEvent] = []

        let steps: [(String, () async throws -> JSONObject)] = [
            ("rotate to landscape", { try await c.rotate("landscape_left", controller: "cols") }),
            ("hide the primary", { try await c.hideColumn(.primary, controller: "cols") }),
            ("a user shows it", { try await c.showColumn(.primary, user: true, animated: true, controller: "cols") }),
            ("show a detail", { try await c.showDetail(ChildObject(id: "message", title: "Re: hi"), controller: "cols") }),
            ("configure", { try await c.configure(preferredDisplayMode: .oneOver, presentsWithGesture: false, controller: "cols") }),
            ("collapse", { try await c.setSizeClass("compact", controller: "cols") }),
            ("pop to the primary", { try await c.showColumn(.primary, controller: "cols") }),
            ("push the secondary", { try await c.showColumn(.secondary, controller: "cols") }),
            ("hide the secondary", { try await c.hideColumn(.secondary, controller: "cols") }),
            ("a compact child", { try await c.setColumn(.compact, ChildObject(id: "compact"), controller: "cols") }),
            ("no compact child", { try await c.setColumn(.compact, nil, controller: "cols") }),
            ("expand", { try await c.setSizeClass("regular", controller: "cols") }),
            ("a navigation controller as the primary", { try await c.setColumn(.primary, ChildObject(id: "mailboxes", controller: "nav"), controller: "cols") }),
            ("prefer two columns beside", { try await c.configure(preferredSplitBehavior: .tile, controller: "cols") }),
        ]
        for (what, step) in steps {
            let reply = try await step()
            #expect(reply["columns"] != nil && reply["visible_columns"] != nil, "\(what): \(reply)")
            for event in await c.nextEvents() where event.controller == "cols" {
                if let e = event.containerEvent { typed.append(e) }
                guard event.seq > view.seq else { continue }
                let outcome = event.seq == view.seq + 1 ? view.apply(event: event.name, seq: event.seq, data: event.data) : .unsure
                if outcome == .unsure {
                    rereads.append("\(what): \(event.name)")
                    view = try await c.compositeState("cols")
                } else if let kind = event.kind {
                    applied[kind, default: 0] += 1
                }
            }
            let state = try await c.compositeState("cols")
            #expect(announced(view) == announced(state), "after \(what):\nview  \(view)\nstate \(state)")
        }
        #expect(view.shownChildren == ["mailboxes", "message"] && view.statusBarChild == "message" && view.primary?.controller == "nav", "\(view)")
        #expect(view.preferredDisplayMode == .oneOver && view.preferredSplitBehavior == .tile && view.presentsWithGesture == false, "\(view)")
        // Only the environment and new children made it read state again.
        let expectedRereads = ["rotate to landscape: orientation_changed", "show a detail: split_changed", "collapse: size_class_changed",
                               "a compact child: split_changed", "no compact child: split_changed", "expand: size_class_changed",
                               "a navigation controller as the primary: split_changed"]
        #expect(rereads == expectedRereads, "\(rereads)")
        let kinds: Set<EventName> = [.appearance, .containment, .configChanged, .splitChanged, .statusBarChanged]
        #expect(kinds.subtracting(applied.keys).isEmpty, "\(applied)")
        // Every split event, typed.
        #expect(Self.splitEventNames.isSubset(of: Set(typed.map(\.event))), "\(typed.map(\.event))")
        #expect(typed.contains(.displayModeWillChange(.oneBeside)) && typed.contains(.splitCollapsed(topColumn: .secondary)), "\(typed)")
        #expect(typed.contains(.configChanged(NodeConfiguration(preferredDisplayMode: .oneOver, presentsWithGesture: false))), "\(typed)")
        #expect(typed.contains { if case .splitChanged(let s, .user) = $0 { s.visibleColumns == [.primary, .secondary] } else { false } }, "\(typed)")
        // presents_with_gesture false: a user cannot show a column.
        await #expect(throws: TabdError.self) { try await c.showColumn(.primary, user: true, controller: "cols") }
    }
}
