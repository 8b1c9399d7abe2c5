// R13.9–R13.12 and R14: who hides, fixed and pinned tabs that must fit, the pad bar at the
// top, collapsed sidebar groups; the search tab, enabled, the hidden bar, size class and
// compact tabs, the mode at run time, the editing session and select_child.
import Foundation
import Testing
@testable import TabCore

private func searchTab(_ id: String = "find", activates: Bool = true, placement: Placement = .automatic) -> Tab {
    var t = Tab(id: id, title: "Search", placement: placement)
    t.role = .search
    t.activatesSearch = activates
    return t
}

private func grp(_ id: String, _ kids: [String]) -> Tab { Tab(id: id, children: kids.map { Tab(id: $0) }) }

@Suite("R13.9–R13.12 and R14")
struct ModernRestTests {
    // MARK: R13.9

    @Test("r13_9: set_hidden is the user's (conflict without allows_hiding); the app hides through update_tab, cause app")
    func r13_9_whoHides() throws {
        var c = try controller(.pad, [tab("home"), tab("a"), tab("b", hideable: true)])
        expectRefused(&c, .setHidden(tab: "a", hidden: true), .conflict)
        var u = TabUpdate(); u.hidden = .set(true)
        let app = try c.apply(.updateTab("a", u))  // the app may hide any tab
        #expect(app.notifications.contains(.visibilityChanged(tabs: [TabVisibility(id: "a", hidden: true)], cause: .app)))
        let user = try c.apply(.setHidden(tab: "b", hidden: true))
        #expect(user.notifications.first == .visibilityChanged(tabs: [TabVisibility(id: "b", hidden: true)], cause: .user))
    }

    @Test("r13_9: hiding the selected tab moves to the nearest sibling that is visible, reachable and not the search tab")
    func r13_9_fallbackSkipsSearchAndUnreachable() throws {
        var c = try controller(.phone, [searchTab(), tab("x", hideable: true), tab("y")])
        _ = try c.apply(.select(.tab("x")))
        let out = try c.apply(.setHidden(tab: "x", hidden: true))
        #expect(c.selectedPath == ["y"])  // not the search tab before it
        #expect(out.selectionChanges.first.map { if case .selectionChanged(_, _, _, .hidden, _, _) = $0 { true } else { false } } == true)
        // A group qualifies only when it holds such a leaf.
        var tv = try controller(.tv, maxVisible: 3, [Tab(id: "g", children: []), tab("t", hideable: true), tab("next")])
        _ = try tv.apply(.select(.tab("t")))
        _ = try tv.apply(.setHidden(tab: "t", hidden: true))
        #expect(tv.selectedPath == ["next"])
    }

    // MARK: R13.10

    @Test("r13_10: fixed and pinned tabs must fit: no six items on a five-item phone bar")
    func r13_10_fit() throws {
        var c = Controller(name: "c", idiom: .phone)
        let five = (0..<5).map { tab("f\($0)", placement: .fixed) }
        _ = try c.apply(.setTabs(five, animated: false))  // 5 roots, 5 fixed: fits
        #expect(c.barVisible == ["f0", "f1", "f2", "f3", "f4"])
        let e = try #require(expectRefused(&c, .setTabs(five + [tab("more1")], animated: false), .conflict))
        #expect(e.message.contains("5 tabs would be fixed or pinned") && e.message.contains("at most 4"))
        expectRefused(&c, .addTab(tab("x"), index: nil), .conflict)
        // The search tab counts as pinned.
        var d = Controller(name: "d", idiom: .phone)
        expectRefused(&d, .setTabs((0..<4).map { tab("f\($0)", placement: .fixed) } + [searchTab(), tab("z")], animated: false), .conflict)
        // A layout accepted before the rule never shows more than max_visible items.
        var old = Controller(name: "o", idiom: .phone)
        _ = try old.apply(.setTabs((0..<6).map { tab("f\($0)", placement: .pinned) }, animated: false), semantics: .amendedBeforeTree)
        #expect(old.barVisible.count == 5 && old.barVisible.last == "more")
    }

    // MARK: R13.11

    @Test("r13_11: a regular pad's bar is at the top; a compact pad and the phone keep it at the bottom")
    func r13_11_padBarAtTop() throws {
        var pad = try controller(.pad, [tab("a"), tab("b")])
        var (bar, content) = pad.layout(width: 1024, height: 768)
        #expect(pad.barAtTop && bar == Frame(x: 0, y: 20, width: 1024, height: 50))
        #expect(content == Frame(x: 0, y: 70, width: 1024, height: 698))
        _ = try pad.apply(.setSizeClass(.compact))
        (bar, content) = pad.layout(width: 1024, height: 768)
        #expect(!pad.barAtTop && bar.y == 718 && content.y + content.height <= bar.y)
        let phone = try controller(tabs("a"))
        #expect(!phone.barAtTop)
    }

    // MARK: R13.12

    @Test("r13_12: groups collapse in the sidebar (persisted, kept across set_tabs); collapsing hides nothing from select")
    func r13_12_collapsedGroups() throws {
        var c = try controller(.pad, [tab("home"), grp("lib", ["a", "b"])])
        let out = try c.apply(.setExpanded(group: "lib", expanded: false))
        #expect(out.notifications.first == .sidebarChanged(visible: true))
        #expect(c.sidebarItems[1].expanded == false)
        #expect(try c.apply(.setExpanded(group: "lib", expanded: false)).notifications.isEmpty)
        _ = try c.apply(.setTabs([tab("home"), grp("lib", ["a", "b", "c"])], animated: false))
        #expect(c.tab("lib")?.isExpanded == false)  // left out: kept
        expectRefused(&c, .tap(.tab("b")), .notAvailable)  // hidden in a collapsed group
        _ = try c.apply(.select(.tab("b")))  // select still reaches it
        expectRefused(&c, .setExpanded(group: "home", expanded: false), .conflict)
        // update_tab takes `expanded` too (a tab object copied from state has it).
        var open = TabUpdate(); open.expanded = .set(true)
        let opened = try c.apply(.updateTab("lib", open))
        #expect(c.tab("lib")?.isExpanded == true && opened.notifications.contains(.sidebarChanged(visible: true)))
        var phone = try controller([tab("home"), grp("lib", ["a"])])
        expectRefused(&phone, .setExpanded(group: "lib", expanded: false), .notAvailable)
        // An update that changes the group's children and collapses it says so, once.
        let both = try c.apply(.updateTab("lib", TabUpdate { $0.children = .set([tab("a"), tab("b")]); $0.expanded = .set(false) }))
        #expect(c.tab("lib")?.isExpanded == false)
        #expect(both.notifications.filter { $0 == .sidebarChanged(visible: true) }.count == 1, "\(both.notifications)")
    }

    @Test("r13_6: in automatic mode the sidebar comes with the first group and goes with the last, announced by sidebar_changed")
    func r13_6_sidebarComesAndGoesWithTheTree() throws {
        var c = try controller(.pad, [tab("home"), tab("a")])
        #expect(!c.sidebarAvailable)
        let came = try c.apply(.addTab(grp("lib", ["b"]), index: nil))
        #expect(c.sidebarAvailable)
        #expect(came.notifications.filter { $0 == .sidebarChanged(visible: true) }.count == 1)
        // A change that keeps a group changes nothing of the sidebar's coming or going.
        let kept = try c.apply(.addTab(tab("c"), index: nil, group: "lib"))
        #expect(!kept.notifications.contains(.sidebarChanged(visible: true)))
        // The last group goes: through set_tabs, remove_tab or update_tab (children: null).
        var viaSetTabs = c, viaRemove = c, viaUpdate = c
        for (went, name) in [(try viaSetTabs.apply(.setTabs([tab("home"), tab("a")], animated: false)), "set_tabs"),
                             (try viaRemove.apply(.removeTab("lib")), "remove_tab"),
                             (try viaUpdate.apply(.updateTab("lib", TabUpdate { $0.children = .set(nil) })), "update_tab")] {
            #expect(went.notifications.filter { $0 == .sidebarChanged(visible: true) }.count == 1, "\(name)")
        }
        #expect(!viaSetTabs.sidebarAvailable && !viaRemove.sidebarAvailable && !viaUpdate.sidebarAvailable)
        // The phone has no sidebar whatever its tree: nothing to announce.
        var phone = try controller([tab("home")])
        #expect(!(try phone.apply(.addTab(grp("lib", ["b"]), index: nil))).notifications.contains { if case .sidebarChanged = $0 { true } else { false } })
    }

    // MARK: R14.1

    @Test("r14_1: the search tab: root and automatic/pinned only, one; trailing; activates and deactivates search")
    func r14_1_search() throws {
        var c = Controller(name: "c", idiom: .phone)
        var nested = grp("g", []); nested.children = [searchTab()]
        expectRefused(&c, .setTabs([nested], animated: false), .invalid)
        expectRefused(&c, .setTabs([searchTab(placement: .fixed)], animated: false), .invalid)
        expectRefused(&c, .setTabs([searchTab(), searchTab("s2")], animated: false), .conflict)
        _ = try c.apply(.setTabs([tab("a"), searchTab(), tab("p", placement: .pinned), tab("b")], animated: false))
        #expect(c.barVisible == ["a", "b", "p", "find"])  // the search tab last
        expectRefused(&c, .search(active: true), .notAvailable)  // not selected
        let on = try c.apply(.select(.tab("find")))
        #expect(c.searchActive)
        let changes = on.notifications.filter { if case .selectionChanged = $0 { true } else if case .searchChanged = $0 { true } else { false } }
        #expect(changes.last == .searchChanged(active: true))
        // Cancel: back to where the user was, cause search_cancelled.
        let cancel = try c.apply(.search(active: false))
        #expect(!c.searchActive && c.selectedPath == ["a"])
        #expect(cancel.selectionChanges.first.map { if case .selectionChanged(_, _, _, .searchCancelled, _, _) = $0 { true } else { false } } == true)
        // Leaving the search tab deactivates search, after the selection change.
        _ = try c.apply(.select(.tab("find")))
        let leave = try c.apply(.select(.tab("b")))
        #expect(!c.searchActive && leave.lastButBar == .searchChanged(active: false))
    }

    // MARK: R14.2

    @Test("r14_2: a disabled tab stays in the bar, is not tappable (no plugin asked) but selectable; set_enabled → tab_updated")
    func r14_2_enabled() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.setEnabled(tab: "b", enabled: false))
        #expect(out.notifications.first == .tabUpdated(tab: "b"))
        #expect(c.barVisible == ["a", "b"])
        let policy = RecordingPolicy()
        expectRefused(&c, .tap(.tab("b")), policy: policy, .notAvailable)
        #expect(policy.calls.isEmpty)
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.setEnabled(tab: "a", enabled: false))
        #expect(c.selection == .tab("b"))
        _ = try c.apply(.setEnabled(tab: "b", enabled: false))
        #expect(c.selection == .tab("b"))  // disabling the selected tab keeps it selected
    }

    // MARK: R14.3

    @Test("r14_3: the hidden bar: bar_changed reports it, layout has no bar inset, taps on bar items are not_available")
    func r14_3_hiddenBar() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.setBarHidden(hidden: true, animated: true))
        #expect(out.notifications == [.barChanged] && c.barHidden && out.changed)
        let (bar, content) = c.layout(width: 320, height: 480)
        #expect(bar.height == 0 && content.y + content.height == 480)
        expectRefused(&c, .tap(.tab("b")), .notAvailable)
        _ = try c.apply(.select(.tab("b")))
        #expect(c.barVisible == ["a", "b"])  // it still lists what the bar holds
    }

    // MARK: R14.4

    @Test("r14_4: size class (pad only) and compact tabs: a filter for compact appearances, More on what remains")
    func r14_4_sizeClassAndCompactTabs() throws {
        var phone = try controller(tabs("a", "b", "c"))
        expectRefused(&phone, .setSizeClass(.regular), .notAvailable)
        _ = try phone.apply(.setCompactTabs(["c", "a", "nested-or-unknown"]))
        #expect(phone.barVisible == ["a", "c"])  // the bar's own order
        #expect(phone.barSelected == "a")
        _ = try phone.apply(.select(.tab("b")))
        #expect(phone.selection == .tab("b") && phone.barSelected == nil)
        var pad = try controller(.pad, [tab("a"), grp("g", ["x"]), tab("c")])
        _ = try pad.apply(.setCompactTabs(["a"]))
        #expect(pad.barVisible == ["a", "g", "c"] && pad.sidebarAvailable)  // regular: no filter
        let out = try pad.apply(.setSizeClass(.compact))
        #expect(pad.barVisible == ["a"] && !pad.sidebarAvailable)
        #expect(out.notifications.prefix(2) == [.sizeClassChanged(.compact), .sidebarChanged(visible: true)])
        var containers = TabContainers.withDefault()
        #expect(throws: TabError.self) { try containers.create("t", idiom: .tv, sizeClass: .compact) }
    }

    @Test("r14_4: set_compact_tabs announces itself with bar_changed, also where the bar does not change (a regular pad)")
    func r14_4_setCompactTabsSendsBarChanged() throws {
        var pad = try controller(.pad, [tab("a"), grp("g", ["x"]), tab("c")])
        let set = try pad.apply(.setCompactTabs(["a"]))
        #expect(set.notifications == [.barChanged] && set.changed && pad.barVisible == ["a", "g", "c"])
        #expect(try pad.apply(.setCompactTabs(["a"])).notifications.isEmpty)  // the same: nothing
        let cleared = try pad.apply(.setCompactTabs(nil))
        #expect(cleared.notifications == [.barChanged] && pad.compactTabs == nil)
        // Counted in seq as any event, so that replaying the journal numbers it again.
        var phone = try controller(tabs("a", "b", "c"))
        let before = phone.seq
        _ = try phone.apply(.setCompactTabs(["a"]))
        #expect(phone.seq == before + 1)
    }

    // MARK: R14.5

    @Test("r14_5: set_mode at run time: mode_changed, then sidebar_changed where its availability changed")
    func r14_5_mode() throws {
        var c = try controller(.pad, [tab("a"), tab("b")])
        #expect(!c.sidebarAvailable)
        let out = try c.apply(.setMode(.tabSidebar))
        #expect(out.notifications.prefix(2) == [.modeChanged(.tabSidebar), .sidebarChanged(visible: true)])
        #expect(c.sidebarAvailable)
        #expect(try c.apply(.setMode(.tabSidebar)).notifications.isEmpty)
    }

    // MARK: R14.6

    @Test("r14_6: edit.begin/edit.end where the sidebar exists, customize elsewhere, never both; it ends first when the sidebar goes")
    func r14_6_editing() throws {
        var c = try controller(.pad, [tab("home"), Tab(id: "g", children: [tab("a", hideable: true), tab("b")], allowsReordering: true)])
        expectRefused(&c, .customizeBegin, .notAvailable)
        #expect(try c.apply(.editBegin).notifications == [.willBeginEditing])
        expectRefused(&c, .editBegin, .conflict)
        #expect(try c.apply(.editEnd).notifications == [.didEndEditing(changed: false)])
        _ = try c.apply(.editBegin)
        _ = try c.apply(.reorder(group: "g", order: ["b", "a"]))
        _ = try c.apply(.setHidden(tab: "a", hidden: true))
        #expect(try c.apply(.editEnd).notifications == [.didEndEditing(changed: true)])
        _ = try c.apply(.editBegin)
        let gone = try c.apply(.setMode(.tabBar))
        #expect(gone.notifications.prefix(2) == [.didEndEditing(changed: false), .modeChanged(.tabBar)])
        #expect(!c.editing)
        // A change of tabs that leaves no group (automatic mode): the session ends first.
        _ = try c.apply(.setMode(.automatic))
        _ = try c.apply(.editBegin)
        let flat = try c.apply(.setTabs([tab("home"), tab("x")], animated: false))
        #expect(flat.notifications.first == .didEndEditing(changed: false) && !c.editing)
        var phone = try controller(tabs("a", "b"))
        expectRefused(&phone, .editBegin, .notAvailable)
    }

    @Test("r14_6: whatever change of tabs takes the sidebar away, did_end_editing comes before its other events")
    func r14_6_didEndEditingComesFirst() throws {
        func first(_ change: Command) throws -> (TabCore.Notification?, Bool) {
            var c = try controller(.pad, [tab("home"), grp("g", ["a", "b"])])
            _ = try c.apply(.select(.tab("b")))
            _ = try c.apply(.editBegin)
            let out = try c.apply(change)
            #expect(out.notifications.filter { $0 == .didEndEditing(changed: false) }.count == 1)
            return (out.notifications.first, c.editing)
        }
        var leaf = TabUpdate(); leaf.children = .set(nil)
        for change: Command in [
            .setTabs([tab("home"), tab("x")], animated: false),                          // the group leaves
            .setTabs([tab("home"), tab("a"), tab("b")], animated: false),                // its children move out
            .setTabs([tab("home"), tab("g")], animated: false, selected: .tab("g")),     // it becomes a leaf
            .removeTab("g"),
            .updateTab("g", leaf),
        ] {
            let (event, editing) = try first(change)
            #expect(event == .didEndEditing(changed: false) && !editing, "\(change)")
        }
        // Another group stays: the sidebar stays, and so does the session.
        var c = try controller(.pad, [tab("home"), grp("g", ["a"]), grp("h", ["z"])])
        _ = try c.apply(.editBegin)
        let kept = try c.apply(.setTabs([tab("home"), grp("h", ["z"])], animated: false))
        #expect(c.editing && !kept.notifications.contains(.didEndEditing(changed: false)) && !kept.notifications.contains(.didEndEditing(changed: true)))
    }

    // MARK: R14.7

    @Test("r14_7: select_child sets a group's child without selecting it; on the selected path it moves the selection")
    func r14_7_selectChild() throws {
        var c = try controller(.pad, [tab("home"), grp("g", ["a", "b"])])
        let quiet = try c.apply(.selectChild(group: "g", child: "b"))
        #expect(quiet.notifications.isEmpty && quiet.changed && c.selectedPath == ["home"])
        _ = try c.apply(.select(.tab("g")))
        #expect(c.selectedPath == ["g", "b"])
        let moved = try c.apply(.selectChild(group: "g", child: "a"))
        #expect(c.selectedPath == ["g", "a"])
        #expect(moved.selectionChanges.first.map { if case .selectionChanged(_, _, _, .select, _, _) = $0 { true } else { false } } == true)
        expectRefused(&c, .selectChild(group: "g", child: "zz"), .notFound)
        expectRefused(&c, .selectChild(group: "home", child: "a"), .conflict)
    }

    // MARK: R14.8

    @Test("r14_8: everything of R14 is kept by encode → decode (snapshots)")
    func r14_8_persisted() throws {
        var c = Controller(name: "c", idiom: .pad, compactTabs: ["a"])
        _ = try c.apply(.setTabs([tab("a"), grp("g", ["x", "y"]), searchTab()], animated: false))
        _ = try c.apply(.setExpanded(group: "g", expanded: false))
        _ = try c.apply(.setEnabled(tab: "a", enabled: false))
        _ = try c.apply(.setBarHidden(hidden: true, animated: false))
        _ = try c.apply(.select(.tab("find")))
        _ = try c.apply(.editBegin)
        _ = try c.apply(.setSizeClass(.compact))  // ends the session
        _ = try c.apply(.setSizeClass(.regular))
        _ = try c.apply(.editBegin)
        let back = try roundTrip(c)
        #expect(back == c && back.editing && back.searchActive && back.barHidden && back.compactTabs == ["a"])
    }
}
