// R13.8: the tree is one controller — identity, containment, reselection, selection, taps,
// restoration, add/remove/update in groups and no-op replacements, at any depth.
import Testing
@testable import TabCore

/// A navigation tab (it can hold a stack).
private func nav(_ id: String, rid: String? = nil) -> Tab {
    Tab(id: id, title: id.uppercased(), restorationID: rid, navigation: true)
}

private func grp(_ id: String, _ kids: [Tab], rid: String? = nil) -> Tab {
    Tab(id: id, title: id.uppercased(), restorationID: rid, children: kids)
}

private extension Outcome {
    /// The containment phases, as "+id" (added: did-move to the controller) and "-id" (removed).
    var moves: [String] {
        notifications.compactMap { n in
            if case .containment(let id, .didMove, let parent) = n { return (parent == nil ? "-" : "+") + id }
            return nil
        }
    }
}

@Suite("R13.8 The tree is one controller")
struct TreeTests {
    // MARK: Identity

    @Test("r13_8_identity: a tab moved from the root into a group keeps its stack, content and badge, and is not moved")
    func r13_8_identityRootToGroup() throws {
        var c = try controller(.pad, [nav("a"), tab("b"), grp("g", [tab("x")])])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "deep")))
        _ = try c.apply(.badge(tab: "a", value: "3"))
        let out = try c.apply(.setTabs([tab("b"), grp("g", [tab("x"), nav("a")])], animated: false))
        #expect(out.moves.isEmpty)
        let a = try #require(c.tab("a"))
        #expect(a.stack == [Screen(id: "deep")] && a.contentLoaded && a.badge == "3")
        // It was selected: the path follows it into the group.
        #expect(c.selectedPath == ["g", "a"])
        #expect(out.appearances.isEmpty)
        // And back out to the root, still selected, still the same child.
        let back = try c.apply(.setTabs([nav("a"), tab("b"), grp("g", [tab("x")])], animated: false))
        #expect(back.moves.isEmpty)
        #expect(c.selectedPath == ["a"] && c.tab("a")?.stack == [Screen(id: "deep")])
    }

    @Test("r13_8_identity: group to group keeps the tab; a group keeps its selected child; leaf ↔ group is removed then added")
    func r13_8_identityGroupToGroup() throws {
        var c = try controller(.pad, [grp("g1", [nav("a"), tab("b")]), grp("g2", [tab("c")])])
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.select(.tab("c")))
        let out = try c.apply(.setTabs([grp("g1", [tab("b")]), grp("g2", [tab("c"), nav("a")])], animated: false))
        #expect(out.moves.isEmpty)
        #expect(c.tab("g1")?.selectedChild == "b")
        // `c` (a leaf) becomes a group: removed, then added, with its new child.
        let switched = try c.apply(.setTabs([grp("g1", [tab("b")]), grp("g2", [grp("c", [tab("d")]), nav("a")])], animated: false))
        #expect(switched.moves == ["-c", "+c", "+d"])
        #expect(c.selectedPath == ["g2", "c", "d"])
    }

    @Test("r13_8_identity: a kept tab whose description leaves out hidden keeps it; hidden_by_default only for new tabs")
    func r13_8_identityKeepsHidden() throws {
        var shown = Tab(id: "n", allowsHiding: true, hiddenByDefault: true)
        shown.keepsHidden = true
        var c = try controller(.pad, [tab("a"), shown])
        #expect(c.tab("n")?.hidden == true)  // new: hidden by default
        _ = try c.apply(.setHidden(tab: "n", hidden: false))
        let again = try c.apply(.setTabs([tab("a"), shown], animated: false))
        #expect(c.tab("n")?.hidden == false)  // the user's choice survives
        #expect(again.notifications.isEmpty && !again.changed)
        // The app names `hidden`: it wins, announced with cause app.
        let hide = try c.apply(.setTabs([tab("a"), Tab(id: "n", hidden: true, allowsHiding: true, hiddenByDefault: true)], animated: false))
        #expect(hide.notifications.contains(.visibilityChanged(tabs: [TabVisibility(id: "n", hidden: true)], cause: .app)))
    }

    // MARK: Containment

    @Test("r13_8_containment: every tab of the tree is added before it loads or appears, and removed (disappearing first)")
    func r13_8_containment() throws {
        var c = Controller(name: "c", idiom: .pad)
        let out = try c.apply(.setTabs([grp("g", [grp("h", [tab("leaf")]), tab("y")]), tab("z")], animated: false))
        #expect(out.moves == ["+g", "+h", "+leaf", "+y", "+z"])
        let added = try #require(out.notifications.firstIndex(of: .containment(tab: "leaf", phase: .didMove, parent: "c")))
        let loaded = try #require(out.notifications.firstIndex(of: .contentLoaded(tab: "leaf")))
        let appears = try #require(out.notifications.firstIndex(of: .appearance(tab: "leaf", phase: .willAppear)))
        #expect(added < loaded && added < appears)
        for n in out.notifications { if case .containment(_, _, let parent) = n { #expect(parent == "c") } }  // the controller, not the group
        // Removing the group removes its subtree; the leaf on screen disappears inside its own removal.
        let gone = try c.apply(.removeTab("g"))
        #expect(gone.moves == ["-g", "-h", "-leaf", "-y"])
        let will = try #require(gone.notifications.firstIndex(of: .containment(tab: "leaf", phase: .willMove, parent: nil)))
        let dis = try #require(gone.notifications.firstIndex(of: .appearance(tab: "leaf", phase: .willDisappear)))
        let did = try #require(gone.notifications.firstIndex(of: .containment(tab: "leaf", phase: .didMove, parent: nil)))
        #expect(will < dis && dis < did)
        #expect(c.selectedPath == ["z"])
    }

    // MARK: The leaf

    @Test("r13_8_leaf: push and pop on a group that has children are not_available")
    func r13_8_leafPushOnGroup() throws {
        var c = try controller(.pad, [Tab(id: "g", navigation: true, children: [nav("a")])])
        let e = try #require(expectRefused(&c, .push(tab: "g", screen: Screen(id: "s")), .notAvailable))
        #expect(e.message.contains("'a'"))
        expectRefused(&c, .pop(tab: "g"), .notAvailable)
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "s")))
    }

    // MARK: Reselection

    @Test("r13_8_reselection: the leaf stays; else the deepest tab of the old path; else the same root index")
    func r13_8_reselection() throws {
        var c = try controller(.pad, [tab("home"), grp("g", [grp("h", [tab("a"), tab("b")]), tab("y")])])
        _ = try c.apply(.select(.tab("b")))
        // The leaf leaves: the deepest tab of the old path still there is h, which lands on its first child.
        let out = try c.apply(.setTabs([tab("home"), grp("g", [grp("h", [tab("a")]), tab("y")])], animated: false))
        #expect(c.selectedPath == ["g", "h", "a"])
        #expect(out.selectionChanges == [.selectionChanged(tab: "g", index: 1, previous: "g", cause: .tabs, path: ["g", "h", "a"],
                                                           previousPath: ["g", "h", "b"])])
        // The whole path leaves: the root at the same index.
        _ = try c.apply(.setTabs([tab("home"), tab("other")], animated: false))
        #expect(c.selectedPath == ["other"])
    }

    @Test("r13_8_reselection: on tv a kept leaf whose root is off the bar does not stay selected (R13.3's search), unless named")
    func r13_8_reselectionNeverUnreachableOnTV() throws {
        let four = [grp("g", [tab("a"), tab("b")]), tab("c"), tab("d"), tab("e")]
        var c = try controller(.tv, maxVisible: 2, four)
        _ = try c.apply(.select(.tab("d")))  // R3.6: a select may choose a tab off the tv bar
        #expect(c.selectedPath == ["d"] && c.barSelected == nil && c.unreachable == ["d", "e"])
        let out = try c.apply(.setTabs(four + [tab("f")], animated: false))
        #expect(c.selectedPath == ["c"] && c.barSelected == "c")  // the nearest sibling on the bar
        #expect(out.selectionChanges == [.selectionChanged(tab: "c", index: 1, previous: "d", cause: .tabs, path: ["c"],
                                                           previousPath: ["d"])])
        // Named by the replacement, it is selected, as a select may.
        _ = try c.apply(.setTabs(four, animated: false, selected: .tab("e")))
        #expect(c.selectedPath == ["e"] && c.barSelected == nil)
        // A change that is not a replacement (update_tab) leaves it where the app put it.
        var u = TabUpdate(); u.title = .set("E")
        _ = try c.apply(.updateTab("e", u))
        #expect(c.selectedPath == ["e"])
        // A leaf in a group pushed off the bar: the search starts from its root.
        var nested = try controller(.tv, maxVisible: 2, [tab("c"), grp("g", [tab("a"), tab("b")])])
        _ = try nested.apply(.select(.tab("b")))
        _ = try nested.apply(.setTabs([tab("c"), tab("n"), grp("g", [tab("a"), tab("b")])], animated: false))
        #expect(nested.selectedPath == ["n"] && nested.barSelected == "n")
    }

    // MARK: Selection

    @Test("r13_8_selection: set_tabs' selected names any tab of the tree; a hidden one is not_available")
    func r13_8_setTabsSelectedNested() throws {
        var c = Controller(name: "c", idiom: .phone)
        let out = try c.apply(.setTabs([tab("home"), grp("g", [tab("a"), tab("b")])], animated: false, selected: .tab("b")))
        #expect(c.selectedPath == ["g", "b"])
        #expect(out.appearances.map { if case .appearance(let t, _) = $0 { t } else { "" } } == ["b", "b"])  // only b appears
        let hidden = [tab("home"), grp("g", [tab("a"), tab("b", hideable: true, hidden: true)])]
        let e = try #require(expectRefused(&c, .setTabs(hidden, animated: false, selected: .tab("b")), .notAvailable))
        #expect(e.message.contains("hidden"))
        var inHidden = grp("g", [tab("a")]); inHidden.hidden = true; inHidden.allowsHiding = true
        expectRefused(&c, .setTabs([tab("home"), inHidden], animated: false, selected: .tab("a")), .notAvailable)
        expectRefused(&c, .select(.tab("zz")), .notFound)
    }

    // MARK: Taps

    @Test("r13_8_taps: only what the user can touch now; elsewhere not_available")
    func r13_8_tapTouchable() throws {
        var c = try controller(.phone, [tab("home"), grp("g", [tab("a"), tab("b")]), grp("k", [tab("c")])])
        let e = try #require(expectRefused(&c, .tap(.tab("b")), .notAvailable))  // inside a group that is not selected
        #expect(e.message.contains("use select"))
        _ = try c.apply(.tap(.tab("g")))  // on the bar
        _ = try c.apply(.tap(.tab("b")))  // inside the selected root
        #expect(c.selectedPath == ["g", "b"])
        expectRefused(&c, .tap(.tab("c")), .notAvailable)
        // A pad with a sidebar shown: every visible item can be tapped.
        var pad = try controller(.pad, [tab("home"), grp("g", [tab("a"), tab("b")]), grp("k", [tab("c")])])
        _ = try pad.apply(.tap(.tab("c")))
        _ = try pad.apply(.sidebar(visible: false))
        expectRefused(&pad, .tap(.tab("b")), .notAvailable)
    }

    @Test("r13_8_taps: tapping a group pops the leaf it shows; with reselect, re-tapping the selected group does")
    func r13_8_tapGroupPops() throws {
        for pops in TapPops.allCases {
            var c = Controller(name: "c", idiom: .phone, tapPops: pops)
            _ = try c.apply(.setTabs([tab("home"), grp("g", [nav("a")])], animated: false))
            _ = try c.apply(.select(.tab("a")))
            _ = try c.apply(.push(tab: "a", screen: Screen(id: "deep")))
            _ = try c.apply(.select(.tab("home")))
            let switching = try c.apply(.tap(.tab("g")))
            #expect(c.tab("a")?.stack == (pops == .always ? [] : [Screen(id: "deep")]))
            if pops == .always {
                let pop = try #require(switching.notifications.firstIndex(of: .navigationChanged(tab: "a", stack: [])))
                let shows = try #require(switching.notifications.firstIndex(of: .appearance(tab: "a", phase: .willAppear)))
                #expect(pop < shows)
            }
            let again = try c.apply(.tap(.tab("g")))  // the selected group, re-tapped
            #expect(c.tab("a")?.stack == [])
            #expect(again.didSelects == [.didSelect(tab: "g", index: 1, leaf: LeafChange(path: ["g", "a"], previous: "a"))])
        }
    }

    // MARK: Restoration

    @Test("r13_8_restoration: preserve records the leaf and every nested stack; restore selects a nested tab")
    func r13_8_restoration() throws {
        var c = try controller(.pad, [nav("home", rid: "home"), grp("g", [nav("a", rid: "ra"), nav("b", rid: "rb")], rid: "rg")])
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.push(tab: "b", screen: Screen(id: "deep")))
        let archive = c.preserve()
        #expect(archive.selected == "rb")
        #expect(archive.stacks["rb"] == [Screen(id: "deep")] && archive.stacks["ra"] == [])
        _ = try c.apply(.select(.tab("home")))
        _ = try c.apply(.pop(tab: "b"))
        let out = try c.apply(.restore(archive))
        #expect(c.selectedPath == ["g", "b"] && c.tab("b")?.stack == [Screen(id: "deep")])
        #expect(out.selectionChanges.count == 1)
        // The deepest tab of the path that has one, when the leaf has none.
        var d = try controller(.pad, [tab("home"), grp("g", [tab("a"), tab("b")], rid: "rg")])
        _ = try d.apply(.select(.tab("b")))
        #expect(d.preserve().selected == "rg")
        // Never a hidden tab.
        var e = try controller(.pad, [tab("home"), grp("g", [nav("a", rid: "ra"), Tab(id: "b", restorationID: "rb", allowsHiding: true)])])
        _ = try e.apply(.select(.tab("b")))
        let saved = e.preserve()
        _ = try e.apply(.setHidden(tab: "b", hidden: true))
        _ = try e.apply(.select(.tab("home")))
        _ = try e.apply(.restore(saved))
        #expect(e.selectedPath.last != "b")
    }

    // MARK: Add, remove, update in groups

    @Test("r13_8_groups: add_tab into a group, remove_tab of a nested tab, update_tab moves a tab between root and group")
    func r13_8_addRemoveUpdate() throws {
        var c = try controller(.pad, [nav("a"), grp("g", [tab("x")])])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "deep")))
        let added = try c.apply(.addTab(tab("y"), index: 0, group: "g"))
        #expect(c.tab("g")?.children?.map(\.id) == ["y", "x"])
        #expect(added.moves == ["+y"])
        expectRefused(&c, .addTab(tab("z"), index: 5, group: "g"), .outOfRange)
        expectRefused(&c, .addTab(tab("z"), index: nil, group: "a"), .conflict)
        expectRefused(&c, .addTab(tab("z"), index: nil, group: "nope"), .notFound)
        expectRefused(&c, .addTab(tab("x"), index: nil, group: "g"), .conflict)
        let removed = try c.apply(.removeTab("x"))
        #expect(removed.moves == ["-x"] && c.tab("x") == nil)
        // update_tab gives the group new children, matched by id: `y` stays (its badge kept), `z` comes.
        _ = try c.apply(.badge(tab: "y", value: "1"))
        var u = TabUpdate()
        u.children = .set([nav("z"), tab("y")])
        let updated = try c.apply(.updateTab("g", u))
        #expect(updated.moves == ["+z"] && updated.notifications.contains(.tabUpdated(tab: "g")))
        #expect(c.tab("y")?.badge == "1")
        // A root tab named among a group's children is twice in the tree: refused.
        var twice = TabUpdate(); twice.children = .set([tab("a")])
        expectRefused(&c, .updateTab("g", twice), .conflict)
        #expect(c.tab("a")?.stack == [Screen(id: "deep")])
    }

    @Test("r13_8_groups: update_tab takes a tab object's R13 fields (placement, hidden, allows_hiding, default_child, subtitle)")
    func r13_8_updateModernFields() throws {
        var c = try controller(.pad, [tab("home"), grp("g", [tab("a"), tab("b")])])
        var u = TabUpdate()
        u.placement = .set(.pinned); u.subtitle = .set("sub"); u.defaultChild = .set("b"); u.allowsHiding = .set(true)
        _ = try c.apply(.updateTab("g", u))
        let g = try #require(c.tab("g"))
        #expect(g.placement == .pinned && g.subtitle == "sub" && g.defaultChild == "b" && g.allowsHiding)
        var bad = TabUpdate(); bad.defaultChild = .set("zz")
        expectRefused(&c, .updateTab("g", bad), .invalid)
        // The app hides the selected tab: announced with cause app, the selection moves (cause hidden).
        _ = try c.apply(.select(.tab("a")))
        var hide = TabUpdate(); hide.hidden = .set(true)
        let out = try c.apply(.updateTab("a", hide))
        #expect(out.notifications.contains(.visibilityChanged(tabs: [TabVisibility(id: "a", hidden: true)], cause: .app)))
        #expect(c.selectedPath == ["g", "b"])
        #expect(out.selectionChanges.first.map { if case .selectionChanged(_, _, _, .hidden, _, _) = $0 { true } else { false } } == true)
    }

    // MARK: No-op replacement

    @Test("r13_8_noop: an identical set_tabs answers changed false with no events; a reset of customizable is a change")
    func r13_8_noOpReplacement() throws {
        let list = [tab("home"), grp("g", [tab("a"), tab("b")])]
        var c = try controller(.pad, list)
        let same = try c.apply(.setTabs(list, animated: true))
        #expect(!same.changed && same.notifications.isEmpty && same.notificationCount == 0)
        var flat = try controller(tabs("a", "b", "c"))
        #expect(try flat.apply(.setTabs(tabs("a", "b", "c"), animated: false)).notifications.isEmpty)
        _ = try flat.apply(.setCustomizable(["a"]))
        let reset = try flat.apply(.setTabs(tabs("a", "b", "c"), animated: false))
        #expect(reset.changed && reset.notifications == [.tabsChanged(tabs: ["a", "b", "c"], animated: false, changed: []),
                                                         .customizableChanged(tabs: ["a", "b", "c"])])
    }
}
