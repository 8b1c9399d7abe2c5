// SEMANTICS R15.2, R15.14: a tab whose content is a controller. Each test is named after the
// rule it checks; a tab command's events are written one per line, its own notifications and
// the tree's events where the daemon publishes them ("container event details").
import TabJSON
import Testing
@testable import TabCore

/// A tab command's notifications with the tree's events in their places, one line each,
/// without seqs (as `order` writes a node outcome's).
func merged(_ o: Outcome, _ all: inout TabContainers, _ name: String) -> [String] {
    let (events, places) = all.takePlacedTreeEvents()
    let tree = order(NodeOutcome(events: events))
    var out: [String] = []
    var next = 0
    for (k, n) in o.notifications.enumerated() {
        while next < events.count, places[next] <= k { out.append(tree[next]); next += 1 }
        switch n {
        case .appearance(let tab, let phase): out.append("\(name) \(tab) \(phase.rawValue)")
        case .containment(let tab, let phase, let parent): out.append("\(name) \(tab) \(phase.rawValue)\(parent == nil ? " nil" : "")")
        case .contentLoaded(let tab): out.append("\(name) content_loaded \(tab)")
        default: out.append("\(name) \(n.eventName)")
        }
    }
    while next < events.count { out.append(tree[next]); next += 1 }
    return out
}

/// `main` (the phone tab root in its window) with `news` selected and `mail`, whose content
/// is the navigation controller `boxes` (stack inbox, thread).
func tabsOverNavigation(stack: [String] = ["inbox", "thread"], tapPops: TapPops = .always) throws -> TabContainers {
    var all = TabContainers.withDefault()
    if tapPops != .always {
        _ = try all.delete("main", replaying: true)
        try all.create("main", idiom: .phone, tapPops: tapPops)
    }
    try all.create("boxes", composite: CompositeSpec(body: .navigation(NavigationState(stack: stack.map { child($0) }))))
    var mail = Tab(id: "mail")
    mail.controller = "boxes"
    _ = try all.apply(.setTabs([Tab(id: "news"), mail], animated: false, selected: nil), to: "main")
    _ = all.takeTreeEvents()
    return all
}

@Suite struct TabContentTests {
    @Test("R15.2: a tab's content is attached to its tab controller as {controller, child: tab}")
    func contentIsAttached() throws {
        let all = try tabsOverNavigation()
        #expect(all.parent(of: "boxes") == Attachment(parent: "main", slot: "mail"))
        #expect(all.node("main")!.holdsContent)
        #expect(!all.isVisible("boxes"))
        #expect(all.inconsistency == nil)
    }

    @Test("R15.8 a: selecting a tab whose content is a controller expands each phase into it, in pre-order")
    func selectExpands() throws {
        var all = try tabsOverNavigation()
        let o = try all.apply(.select(.tab("mail")), to: "main")
        #expect(merged(o, &all, "main") == [
            "main content_loaded mail",
            "main news will_disappear", "main mail will_appear", "boxes thread will_appear",
            "main news did_disappear", "main mail did_appear", "boxes thread did_appear",
            "main selection_changed", "main bar_changed", "main status_bar_changed mail/thread",
        ])
        #expect(all.isVisible("boxes"))
        let back = try all.apply(.select(.tab("news")), to: "main")
        #expect(merged(back, &all, "main") == [
            "main mail will_disappear", "boxes thread will_disappear", "main news will_appear",
            "main mail did_disappear", "boxes thread did_disappear", "main news did_appear",
            "main selection_changed", "main bar_changed", "main status_bar_changed news",
        ])
    }

    @Test("R15.8 a: the expansion goes down through nested containers, each event from its own container")
    func nestedExpansion() throws {
        var all = TabContainers.withDefault()
        try all.create("boxes", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("inbox")]))))
        try all.create("mails", composite: CompositeSpec(body: .custom(CustomState(children: [child("list", "boxes"), child("msg")], shown: ["list", "msg"], statusBarChild: "msg"))))
        var mail = Tab(id: "mail")
        mail.controller = "mails"
        _ = try all.apply(.setTabs([Tab(id: "news"), mail], animated: false, selected: nil), to: "main")
        _ = all.takeTreeEvents()
        let o = try all.apply(.select(.tab("mail")), to: "main")
        #expect(merged(o, &all, "main") == [
            "main content_loaded mail",
            "main news will_disappear", "main mail will_appear", "mails list will_appear", "boxes inbox will_appear", "mails msg will_appear",
            "main news did_disappear", "main mail did_appear", "mails list did_appear", "boxes inbox did_appear", "mails msg did_appear",
            "main selection_changed", "main bar_changed", "main status_bar_changed mail/msg",
        ])
    }

    @Test("R15.3: a tab's content is checked as any attach; a refused command changes nothing")
    func attachRules() throws {
        var all = try tabsOverNavigation()
        try all.create("other", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        try all.create("shown", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")])), window: true))
        var hiddenTabs = TabBarOptions(idiom: .phone)
        hiddenTabs.window = false
        try all.create("tabs2", .tab(hiddenTabs))
        try all.create("padnav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")])), idiom: .pad))
        let kept = all
        func refused(_ tab: Tab, _ code: TabError.Code, _ command: ((Tab) -> Command)? = nil) {
            let cmd = command?(tab) ?? .addTab(tab, index: nil)
            do { _ = try all.apply(cmd, to: "main"); Issue.record("\(tab.controller ?? "-") was attached") } catch {
                #expect(error.code == code, "\(error.message)")
            }
            #expect(all == kept)
        }
        func tab(_ id: String, _ x: String, navigation: Bool = false, children: [Tab]? = nil) -> Tab {
            var t = Tab(id: id, navigation: navigation, children: children)
            t.controller = x
            return t
        }
        refused(tab("t", "nothing"), .notFound)
        refused(tab("t", "boxes"), .conflict)  // has a parent
        refused(tab("t", "shown"), .conflict)  // a window's root
        refused(tab("t", "tabs2"), .conflict)  // a tab controller
        refused(tab("t", "padnav"), .conflict)  // another idiom
        refused(tab("t", "main"), .conflict)  // itself
        refused(tab("t", "other", navigation: true), .invalid)
        refused(tab("t", "other", children: [Tab(id: "c")]), .invalid)
        refused(tab("t", "other"), .invalid) { .setTabs([$0, Tab(id: "more")], animated: false, selected: nil) }  // the controller's own refusal: nothing attached
        refused(tab("t", "other"), .conflict) { .setTabs([$0, tab("u", "other")], animated: false, selected: nil) }  // one parent
        var u = TabUpdate()
        u.controller = .set("other")
        u.navigation = .set(true)
        do { _ = try all.apply(.updateTab("news", u), to: "main"); Issue.record("a navigation tab took a controller") } catch { #expect(error.code == .invalid) }
        #expect(all == kept)
        do { _ = try all.apply(.push(tab: "mail", screen: Screen(id: "s")), to: "main"); Issue.record("pushed on a tab with content") } catch {
            #expect(error.code == .notAvailable)
            #expect(error.message.contains("boxes"))
        }
        do { _ = try all.delete("main", replaying: true); Issue.record("deleted a controller holding content") } catch { #expect(error.code == .conflict) }
        #expect(all == kept)
        // A cycle: the tab controller in a drawer that is its own tab's content.
        try all.create("d", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c")))))
        _ = try all.apply(.addTab(tab("t", "d"), index: nil), to: "tabs2")
        do { _ = try all.apply(.setCenter(child("c2", "tabs2"), closeDrawer: false), to: "d"); Issue.record("a cycle") } catch { #expect(error.code == .conflict) }
    }

    @Test("R15.2, R15.4: removing the tab, or changing its controller, detaches the content (a hidden root) after the tab controller's events")
    func removingDetaches() throws {
        var all = try tabsOverNavigation()
        _ = try all.apply(.select(.tab("mail")), to: "main")
        _ = all.takeTreeEvents()
        let o = try all.apply(.removeTab("mail"), to: "main")
        let lines = merged(o, &all, "main")
        #expect(lines.contains("boxes thread will_disappear"))
        #expect(Array(lines.suffix(2)) == ["boxes parent_changed nil", "main status_bar_changed news"])
        #expect(all.parent(of: "boxes") == nil)
        #expect(!all.node("main")!.holdsContent)
        #expect(all.inconsistency == nil)
        // Another controller for a kept tab: removed, then added.
        var all2 = try tabsOverNavigation()
        try all2.create("other", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        var u = TabUpdate()
        u.controller = .set("other")
        let o2 = try all2.apply(.updateTab("mail", u), to: "main")
        #expect(Array(merged(o2, &all2, "main").suffix(2)) == ["boxes parent_changed nil", "other parent_changed main/mail"])
        #expect(all2.parent(of: "other") == Attachment(parent: "main", slot: "mail"))
        #expect(all2.parent(of: "boxes") == nil)
        #expect(all2.inconsistency == nil)
    }

    @Test("R15.14: a tap on the selected tab pops its content navigation controller to its root where R4.3 pops a stack")
    func tapPopsContent() throws {
        var all = try tabsOverNavigation()
        _ = try all.apply(.select(.tab("mail")), to: "main")
        _ = all.takeTreeEvents()
        let o = try all.apply(.tap(.tab("mail")), to: "main")
        #expect(merged(o, &all, "main") == [
            "boxes thread will_move nil", "boxes thread will_disappear", "boxes inbox will_appear", "boxes thread did_disappear", "boxes inbox did_appear",
            "boxes thread did_move nil", "boxes navigation_changed inbox pop_to_root tap",
            "main did_select", "main status_bar_changed mail/inbox",
        ])
        #expect(o.changed)
        // Switching to it (tap_pops always) pops it while hidden: containment only, then it appears at its root.
        var hidden = try tabsOverNavigation()
        let o2 = try hidden.apply(.tap(.tab("mail")), to: "main")
        let lines = merged(o2, &hidden, "main")
        #expect(Array(lines.prefix(3)) == ["boxes thread will_move nil", "boxes thread did_move nil", "boxes navigation_changed inbox pop_to_root tap"])
        #expect(lines.contains("boxes inbox will_appear"))
        #expect(!lines.contains("boxes thread will_disappear"))
        // reselect: switching keeps the stack.
        var kept = try tabsOverNavigation(tapPops: .reselect)
        let o3 = try kept.apply(.tap(.tab("mail")), to: "main")
        #expect(merged(o3, &kept, "main").contains("boxes thread will_appear"))
    }

    @Test("R15.10: a split attached in a tab of a compact tab root is collapsed as if it had always been there")
    func environmentAdopted() throws {
        var all = TabContainers.withDefault()
        try all.create("s", composite: CompositeSpec(body: .split(SplitState(style: .double, primary: child("p"), secondary: child("q"))), idiom: .phone))
        var t = Tab(id: "t")
        t.controller = "s"
        let o = try all.apply(.setTabs([t], animated: false, selected: nil), to: "main")
        #expect(split(all).collapsed)
        #expect(merged(o, &all, "main").contains("s parent_changed main/t"))
    }

    @Test("R15.10: a tab root's set_size_class reaches the split in its tab after its own events: the split collapses, then expands")
    func environmentSpreads() throws {
        var all = TabContainers()
        try all.create("pad", idiom: .pad)
        try all.create("s", composite: CompositeSpec(body: .split(SplitState(style: .double, primary: child("p"), secondary: child("q"))), idiom: .pad))
        var t = Tab(id: "t")
        t.controller = "s"
        _ = try all.apply(.setTabs([t], animated: false, selected: nil), to: "pad")
        _ = all.takeTreeEvents()
        #expect(!split(all).collapsed)
        let o = try all.apply(.setSizeClass(.compact), to: "pad")
        let lines = merged(o, &all, "pad")
        #expect(split(all).collapsed)
        let first = try #require(lines.firstIndex { $0.hasPrefix("s ") })
        #expect(lines[..<first].allSatisfy { $0.hasPrefix("pad ") })
        #expect(lines.contains("s split_collapsed secondary"))
        #expect(lines.last?.hasPrefix("s split_changed") == true, "\(lines)")  // the top column is the secondary: the path stays t/q
        let back = try all.apply(.setSizeClass(.regular), to: "pad")
        #expect(merged(back, &all, "pad").contains { $0.hasPrefix("s split_expanded") })
        #expect(!split(all).collapsed)
        #expect(all.inconsistency == nil)
    }

    @Test("R15.12: the tab's content is in the snapshot; a loaded one holds it again")
    func snapshot() throws {
        var all = try tabsOverNavigation()
        _ = try all.apply(.select(.tab("mail")), to: "main")
        var w = JSONWriter()
        all.writeSnapshot(to: &w)
        var loaded = try TabContainers(snapshot: try w.withBytes { try JSONParser.parse($0, maxDepth: 64) })
        loaded.keepChanges(); all.keepChanges()
        #expect(loaded == all)
        #expect(loaded.node("main")!.holdsContent)
        #expect(loaded.parent(of: "boxes") == Attachment(parent: "main", slot: "mail"))
        #expect(loaded.inconsistency == nil)
    }

    @Test("R15.8 a, R15.8 c: PROTOCOL.md's example: a tab controller at a drawer's center, its tab's content a split holding a navigation controller")
    func protocolExample() throws {
        var all = TabContainers()
        try all.create("main", .tab({ var o = TabBarOptions(idiom: .pad); o.window = false; return o }()))
        try all.create("boxes", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("inbox")])), idiom: .pad))
        try all.create("mails", composite: CompositeSpec(body: .split(SplitState(style: .double, primary: child("boxes", "boxes"), secondary: child("msg"))), idiom: .pad,
                                                         configuration: NodeConfiguration(preferredDisplayMode: .oneBeside)))
        var mail = Tab(id: "mail")
        mail.controller = "mails"
        _ = try all.apply(.setTabs([Tab(id: "news"), mail], animated: false, selected: nil), to: "main")
        try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("main", "main"), left: child("menu"))), window: true, idiom: .pad))
        _ = all.takeTreeEvents()
        let o = try all.apply(.select(.tab("mail")), to: "main")
        #expect(merged(o, &all, "main") == [
            "main content_loaded mail",
            "main news will_disappear", "main mail will_appear", "mails boxes will_appear", "boxes inbox will_appear", "mails msg will_appear",
            "main news did_disappear", "main mail did_appear", "mails boxes did_appear", "boxes inbox did_appear", "mails msg did_appear",
            "main selection_changed", "main bar_changed", "root status_bar_changed main/mail/msg",
        ])
        // Opening the drawer's left side: nothing for main, mails or boxes (R15.24).
        let open = try all.apply(.openDrawer(.left, gesture: nil, animated: false), to: "root")
        #expect(order(open) == ["root menu will_appear", "root menu did_appear", "root drawer_changed left from none app", "root status_bar_changed menu"])
        #expect(all.inconsistency == nil)
    }

    @Test("R15.12: preserve and restore of a tree go down through a tab into its content, by the tab's restoration id")
    func restorationThroughATab() throws {
        var all = TabContainers()
        try all.create("tabs", .tab({ var o = TabBarOptions(idiom: .phone); o.window = false; return o }()))
        try all.create("boxes", composite: CompositeSpec(body: .navigation(NavigationState(stack: [ChildObject(id: "inbox", restorationID: "r-inbox"), ChildObject(id: "msg", restorationID: "r-msg")]))))
        var mail = Tab(id: "mail", restorationID: "r-mail")
        mail.controller = "boxes"
        _ = try all.apply(.setTabs([mail], animated: false, selected: nil), to: "tabs")
        try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: ChildObject(id: "main", restorationID: "r-main", controller: "tabs"))), window: true))
        let archive = try all.preserveTree("root")
        #expect(archive.entries["r-main/r-mail"] == .stack([ChildObject(id: "inbox", restorationID: "r-inbox"), ChildObject(id: "msg", restorationID: "r-msg")]))
        _ = try all.apply(.popToRoot(animated: false), to: "boxes")
        let o = try all.apply(.restoreTree(archive), to: "root")
        #expect(order(o).contains("boxes navigation_changed inbox,msg set_stack restore"))
        guard case .navigation(let n) = all.composites["boxes"]!.body else { Issue.record("not a stack"); return }
        #expect(n.stack.map(\.id) == ["inbox", "msg"])
    }
}

@Suite struct TabContentChangeTests {
    @Test("R15.2, R15.6: a visible tab's content replaced by update_tab is a set change: the old one leaves and disappears, the new one enters and appears")
    func r15_2_replacedContentIsASetChange() throws {
        var all = try tabsOverNavigation()
        try all.create("other", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        _ = try all.apply(.select(.tab("mail")), to: "main")
        _ = all.takeTreeEvents()
        var u = TabUpdate()
        u.controller = .set("other")
        let o = try all.apply(.updateTab("mail", u), to: "main")
        let lines = merged(o, &all, "main")
        let tree = Array(lines.drop { !$0.hasPrefix("main mail will_move") })
        #expect(tree == [
            "main mail will_move nil", "main mail will_disappear", "boxes thread will_disappear", "main mail did_disappear", "boxes thread did_disappear",
            "main mail did_move nil",
            "main mail will_move", "main mail did_move",
            "main mail will_appear", "other a will_appear", "main mail did_appear", "other a did_appear",
            "boxes parent_changed nil", "other parent_changed main/mail", "main status_bar_changed mail/a",
        ], "\(lines)")
        #expect(all.inconsistency == nil)
    }

    @Test("R15.2, R15.6: setting and clearing the content of a kept tab send its containment whether or not it is visible")
    func r15_2_setAndClearedContent() throws {
        var all = try tabsOverNavigation()
        try all.create("other", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        // news is selected (visible): a plain tab given a controller.
        var set = TabUpdate()
        set.controller = .set("other")
        let o = try all.apply(.updateTab("news", set), to: "main")
        let lines = merged(o, &all, "main")
        #expect(Array(lines.drop { !$0.hasPrefix("main news will_move") }) == [
            "main news will_move nil", "main news will_disappear", "main news did_disappear", "main news did_move nil",
            "main news will_move", "main news did_move",
            "main news will_appear", "other a will_appear", "main news did_appear", "other a did_appear",
            "other parent_changed main/news", "main status_bar_changed news/a",
        ], "\(lines)")
        // mail is not selected: containment only.
        var clear = TabUpdate()
        clear.controller = .set(nil)
        let o2 = try all.apply(.updateTab("mail", clear), to: "main")
        #expect(Array(merged(o2, &all, "main").drop { !$0.hasPrefix("main mail will_move") }) == [
            "main mail will_move nil", "main mail did_move nil", "main mail will_move", "main mail did_move", "boxes parent_changed nil",
        ])
        #expect(all.parent(of: "boxes") == nil)
        #expect(all.inconsistency == nil)
    }

    @Test("R15.2, R15.4: a content controller moved from one tab to another in one set_tabs is detached and attached: one parent_changed")
    func r15_2_contentMovesBetweenTabs() throws {
        var all = try tabsOverNavigation()
        var news = Tab(id: "news")
        news.controller = "boxes"
        let o = try all.apply(.setTabs([news, Tab(id: "mail")], animated: false, selected: nil), to: "main")
        let lines = merged(o, &all, "main")
        #expect(all.parent(of: "boxes") == Attachment(parent: "main", slot: "news"))
        #expect(lines.filter { $0.hasPrefix("boxes parent_changed") } == ["boxes parent_changed main/news"], "\(lines)")
        // One set change, in slot order: news (now boxes) before mail (now plain).
        #expect(lines.filter { $0.contains("_move") } == [
            "main news will_move nil", "main news did_move nil", "main mail will_move nil", "main mail did_move nil",
            "main news will_move", "main news did_move", "main mail will_move", "main mail did_move",
        ], "\(lines)")
        #expect(lines.contains("boxes thread will_appear"))  // news is selected: its new content appears
        #expect(all.inconsistency == nil)
        // Still one parent: given to two tabs, or kept in one and given to another, it is refused.
        var twice = Tab(id: "mail")
        twice.controller = "boxes"
        let kept = all
        do { _ = try all.apply(.setTabs([news, twice], animated: false, selected: nil), to: "main"); Issue.record("two parents") } catch { #expect(error.code == .conflict) }
        var u = TabUpdate()
        u.controller = .set("boxes")
        do { _ = try all.apply(.updateTab("mail", u), to: "main"); Issue.record("two parents") } catch { #expect(error.code == .conflict) }
        #expect(all == kept)
    }
}

@Suite struct RecordedProposalsTests {
    @Test("R15.8 d: replayed answers that match are taken in order and say nothing")
    func r15_8_matchingAnswers() {
        let r = RecordedProposals([ProposalAnswer(controller: "s", .topColumn(.primary))])
        #expect(r.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .primary)
        #expect(r.mismatches.isEmpty)
        #expect(RecordedProposals([]).topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
        #expect(RecordedProposals([]).mismatches.isEmpty)  // a record from before answers were kept
    }

    @Test("R15.8 d: a damaged record's answers that do not match keep the proposal and say so")
    func r15_8_mismatchedAnswersAreReported() {
        let other = RecordedProposals([ProposalAnswer(controller: "t", .topColumn(.primary))])
        #expect(other.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
        #expect(other.mismatches.count == 2)  // for another split, then left unasked
        #expect(other.mismatches[0].contains("'t'"))
        let kind = RecordedProposals([ProposalAnswer(controller: "s", .displayMode(.oneBeside))])
        #expect(kind.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
        #expect(kind.mismatches == ["split 's' asked top-column-for-collapsing and the record's answer 1 is a display mode; the proposal was kept"])
        let short = RecordedProposals([ProposalAnswer(controller: "s", .topColumn(.primary))])
        _ = short.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s")
        #expect(short.displayModeForExpanding(proposed: .oneBeside, behavior: .tile, style: .double, controller: "s") == .oneBeside)
        #expect(short.mismatches.count == 1)
        #expect(short.mismatches[0].contains("no answer left"))
    }
}

@Suite struct TabContentSelectionTests {
    @Test("R15.2, R15.8 a: a content replaced in the command that selects its tab appears once, with the tab's own appearance")
    func r15_2_replacedAndSelectedAppearsOnce() throws {
        var all = try tabsOverNavigation()
        try all.create("other", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")]))))
        var mail = Tab(id: "mail")
        mail.controller = "other"
        let o = try all.apply(.setTabs([mail], animated: false, selected: nil), to: "main")
        let lines = merged(o, &all, "main")
        for line in ["main mail will_appear", "other a will_appear", "main mail did_appear", "other a did_appear"] {
            #expect(lines.filter { $0 == line }.count == 1, "\(line): \(lines)")
        }
        #expect(lines.contains("main mail will_move nil") && lines.contains("main mail will_move"))
        #expect(all.parent(of: "other") == Attachment(parent: "main", slot: "mail"))
        #expect(all.parent(of: "boxes") == nil)
        #expect(all.inconsistency == nil)
    }
}
