// R1 (children and items) and R2 (replacing the tabs).
import Testing
@testable import TabCore

@Suite("R1 Children and items")
struct ChildrenTests {
    /// A new controller of any idiom has no tabs, nothing selected and nothing customizable.
    @Test("R1.1 a controller starts with no tabs and nothing selected", arguments: Idiom.allCases)
    func startsEmpty(idiom: Idiom) {
        let c = Controller(name: "c", idiom: idiom)
        #expect(c.tabs.isEmpty)
        #expect(c.selection == .none)
        #expect(c.selectedIndex == nil)
        #expect(c.selection.wireValue == nil)
        #expect(c.barVisible.isEmpty)
        #expect(c.customizable.isEmpty)
        #expect(c.customizingOrder == nil)
    }

    /// Tabs keep the order they were given; index 0 is the leading tab on the bar.
    @Test("R1.2 tab order is display order")
    func order() throws {
        let c = try controller(tabs("b", "c", "a"))
        #expect(c.ids == ["b", "c", "a"])
        #expect(c.barVisible == ["b", "c", "a"])
        #expect(c.index(of: "b") == 0)
        #expect(c.index(of: "a") == 2)
        #expect(c.selectedIndex == 0)
        #expect(c.selection == .tab("b"))
    }

    /// A tab added at an index takes that place in the display order.
    @Test("R1.2 add_tab at an index inserts at that display position")
    func addAtIndex() throws {
        var c = try controller(tabs("a", "b"))
        _ = try c.apply(.addTab(Tab(id: "x"), index: 1))
        #expect(c.ids == ["a", "x", "b"])
        _ = try c.apply(.addTab(Tab(id: "y"), index: nil))
        #expect(c.ids == ["a", "x", "b", "y"])
        #expect(c.barVisible == ["a", "x", "b", "y"])
    }

    /// Without an item the bar shows the tab's title and no image; a given item is shown as given.
    @Test("R1.3 a tab without an item shows a default item: its title, no image")
    func defaultItem() {
        let plain = Tab(id: "music", title: "Music")
        #expect(plain.effectiveItem == TabItem(title: "Music", image: nil, tag: nil, badge: nil))
        let given = Tab(id: "music", title: "Music", item: TabItem(title: "Songs", image: "note.png", tag: 3, badge: "2"))
        #expect(given.effectiveItem == TabItem(title: "Songs", image: "note.png", tag: 3, badge: "2"))
        let untitledItem = Tab(id: "music", title: "Music", item: TabItem(image: "note.png"))
        #expect(untitledItem.effectiveItem.title == "Music")
        #expect(untitledItem.effectiveItem.image == "note.png")
    }

    /// A duplicate id in set_tabs is a conflict and the controller stays as it was.
    @Test("R1.4 set_tabs with a duplicate id is rejected and changes nothing")
    func duplicateInSetTabs() throws {
        var c = try controller(tabs("a", "b"))
        _ = try c.apply(.select(.tab("b")))
        expectRefused(&c, .setTabs(tabs("x", "y", "x"), animated: false), .conflict)
        #expect(c.ids == ["a", "b"])
    }

    /// Adding a tab whose id is already used is a conflict and changes nothing.
    @Test("R1.4 add_tab with an existing id is rejected and changes nothing")
    func duplicateInAddTab() throws {
        var c = try controller(tabs("a", "b"))
        expectRefused(&c, .addTab(Tab(id: "a", title: "other"), index: 0), .conflict)
        expectRefused(&c, .setTabs([Tab(id: "")], animated: false), .invalid)
    }

    /// The bar is derived from the tabs: only commands change what it shows.
    @Test("R1.5 the bar shows what the commands made of the tabs, nothing else")
    func barIsDerived() throws {
        var c = try controller(tabs("a", "b"))
        _ = try c.apply(.updateTab("b", TabUpdate { $0.item = .set(TabItem(title: "Bee", image: "b.png")) }))
        #expect(c.tab("b")?.effectiveItem == TabItem(title: "Bee", image: "b.png"))
        _ = try c.apply(.removeTab("a"))
        #expect(c.barVisible == ["b"])
        // The derived views have no setters; the tab list can only change through apply.
        #expect(c.barVisible == c.tabs.prefix(c.barTabCount).map(\.id))
    }

    /// R1.3 (amended): a tab without a title has a default item without a title — never its id.
    @Test("R1.3 a tab with no title has a default item with no title, never its id")
    func r1_3_noTitleMeansNoTitle() {
        #expect(Tab(id: "music").effectiveItem == TabItem(title: nil, image: nil, tag: nil, badge: nil))
        #expect(Tab(id: "music", item: TabItem(image: "note.png")).effectiveItem.title == nil)
        #expect(Tab(id: "music", item: TabItem(badge: "2")).effectiveItem == TabItem(badge: "2"))
    }
}

@Suite("R2 Replacing the tabs")
struct ReplacingTests {
    /// set_tabs sends every old child's will-move(nil)/did-move(nil) — the selected one's
    /// disappearance in between — before any new child's will-move/did-move(controller).
    @Test("R2.1 set_tabs removes every old child before installing the new ones")
    func containmentOrder() throws {
        var c = try controller(tabs("a", "b"))
        _ = try c.apply(.select(.tab("b")))
        let out = try c.apply(.setTabs(tabs("x", "y"), animated: true))
        #expect(out.appearanceAndContainment == [
            .containment(tab: "a", phase: .willMove, parent: nil),
            .containment(tab: "a", phase: .didMove, parent: nil),
            .containment(tab: "b", phase: .willMove, parent: nil),
            .appearance(tab: "b", phase: .willDisappear),
            .appearance(tab: "b", phase: .didDisappear),
            .containment(tab: "b", phase: .didMove, parent: nil),
            .containment(tab: "x", phase: .willMove, parent: "c"),
            .containment(tab: "x", phase: .didMove, parent: "c"),
            .containment(tab: "y", phase: .willMove, parent: "c"),
            .containment(tab: "y", phase: .didMove, parent: "c"),
            // R2.2: "b" is gone; "y" took its index.
            .appearance(tab: "y", phase: .willAppear),
            .appearance(tab: "y", phase: .didAppear),
        ])
    }

    /// The selected tab stays selected after a replacement when its id is still present, at any index.
    @Test("R2.2 reselection keeps the previously selected tab by id")
    func reselectByID() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.setTabs(tabs("c", "x", "y", "b"), animated: false))
        #expect(c.selection == .tab("b"))
        #expect(c.selectedIndex == 3)
    }

    /// When the selected id is gone, the tab now at the same index is selected.
    @Test("R2.2 reselection falls back to the same index")
    func reselectByIndex() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.index(2)))
        let out = try c.apply(.setTabs(tabs("x", "y", "z", "w"), animated: false))
        #expect(c.selection == .tab("z"))
        #expect(c.selectedIndex == 2)
        #expect(out.selectionChanges == [.selectionChanged(tab: "z", index: 2, previous: "c", cause: .tabs)])
    }

    /// When neither the id nor the index survives, index 0 is selected.
    @Test("R2.2 reselection falls back to index 0")
    func reselectFirst() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.index(2)))
        _ = try c.apply(.setTabs(tabs("x", "y"), animated: false))
        #expect(c.selection == .tab("x"))
        #expect(c.selectedIndex == 0)
    }

    /// An empty tab list selects nothing.
    @Test("R2.2 reselection selects nothing when the new list is empty")
    func reselectNothing() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.setTabs([], animated: false))
        #expect(c.selection == .none)
        #expect(c.selectedIndex == nil)
        #expect(out.selectionChanges == [.selectionChanged(tab: nil, index: nil, previous: "a", cause: .tabs)])
    }

    /// Removing the selected tab selects the tab that takes its index, else index 0; the last removal selects nothing.
    @Test("R2.2 removing the selected tab reselects by index, then 0, then nothing")
    func reselectAfterRemove() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.removeTab("b"))
        #expect(c.selection == .tab("c"))
        _ = try c.apply(.removeTab("c"))
        #expect(c.selection == .tab("a"))
        _ = try c.apply(.removeTab("a"))
        #expect(c.selection == .none)
    }

    /// Removing a tab before the selected one keeps the selection by id and reports its new index.
    @Test("R2.2 removing another tab keeps the selection by id")
    func removeOther() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.tab("c")))
        let out = try c.apply(.removeTab("a"))
        #expect(c.selection == .tab("c"))
        #expect(c.selectedIndex == 1)
        #expect(out.selectionChanges == [.selectionChanged(tab: "c", index: 1, previous: "c", cause: .tabs)])
        #expect(out.appearances.isEmpty)
    }

    /// set_tabs makes every tab customizable again, whatever was set before.
    @Test("R2.3 set_tabs resets customizable to all tabs")
    func resetBySet() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.setCustomizable(["b"]))
        #expect(c.customizable == ["b"])
        _ = try c.apply(.setTabs(tabs("c", "d"), animated: false))
        #expect(c.customizable == ["c", "d"])
    }

    /// add_tab is a replacement: customizable becomes all tabs, including the new one.
    @Test("R2.3 add_tab resets customizable to all tabs")
    func resetByAdd() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.setCustomizable(nil))
        #expect(c.customizable == [])
        let out = try c.apply(.addTab(Tab(id: "d"), index: 0))
        #expect(c.customizable == ["d", "a", "b", "c"])
        #expect(out.notifications.contains(.customizableChanged(tabs: ["d", "a", "b", "c"])))
    }

    /// remove_tab is a replacement: customizable becomes all remaining tabs.
    @Test("R2.3 remove_tab resets customizable to all tabs")
    func resetByRemove() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.setCustomizable(["a"]))
        _ = try c.apply(.removeTab("a"))
        #expect(c.customizable == ["b", "c"])
    }

    /// `animated` is only reported: the state is the same either way.
    @Test("R2.4 animated changes no state and is reported in tabs_changed")
    func animated() throws {
        var plain = try controller(tabs("a"))
        var animated = plain
        let o1 = try plain.apply(.setTabs(tabs("x", "y"), animated: false))
        let o2 = try animated.apply(.setTabs(tabs("x", "y"), animated: true))
        #expect(plain == animated)
        #expect(o1.notifications.contains(.tabsChanged(tabs: ["x", "y"], animated: false, changed: ["x", "y"])))
        #expect(o2.notifications.contains(.tabsChanged(tabs: ["x", "y"], animated: true, changed: ["x", "y"])))
    }

    /// `tabs_changed` names the tabs a change added or whose description it changed (their
    /// objects go with the event): a tab that stays as it was is not among them (R2.5), so
    /// that the event's size follows the request's, not the controller's.
    @Test("R2.5 tabs_changed names only the tabs added or changed")
    func tabsChangedNamesTheTabsAddedOrChanged() throws {
        var c = try controller(tabs("a", "b", "c"))
        var o = try c.apply(.setTabs([Tab(id: "a", title: "A"), Tab(id: "b", title: "Bee"), Tab(id: "d")], animated: false))
        #expect(o.notifications.contains(.tabsChanged(tabs: ["a", "b", "d"], animated: false, changed: ["b", "d"])))
        o = try c.apply(.addTab(Tab(id: "e"), index: 0))
        #expect(o.notifications.contains(.tabsChanged(tabs: ["e", "a", "b", "d"], animated: false, changed: ["e"])))
        o = try c.apply(.removeTab("a"))
        #expect(o.notifications.contains(.tabsChanged(tabs: ["e", "b", "d"], animated: false, changed: [])))
    }

    /// R2.5: a tab whose id is in both lists is the same child: its stack, loaded content and
    /// badge stay, it gets no containment calls; only removed tabs move to nil (first), only
    /// new tabs move to the controller. Its description comes from the new list.
    @Test("R2.5 tabs that stay keep stack, content and badge, and get no containment calls")
    func r2_5_tabsThatStayKeepStackAndBadge() throws {
        var c = try controller([Tab(id: "a", navigation: true), Tab(id: "b"), Tab(id: "c")])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "s1")))
        _ = try c.apply(.badge(tab: "b", value: "3"))
        _ = try c.apply(.select(.tab("b")))
        let out = try c.apply(.setTabs([Tab(id: "x"), Tab(id: "a", title: "Alpha", navigation: true), Tab(id: "b", title: "Bee")],
                                       animated: false))
        #expect(out.containments == [
            .containment(tab: "c", phase: .willMove, parent: nil),
            .containment(tab: "c", phase: .didMove, parent: nil),
            .containment(tab: "x", phase: .willMove, parent: "c"),
            .containment(tab: "x", phase: .didMove, parent: "c"),
        ])
        #expect(c.tab("a")?.stack == [Screen(id: "s1")])
        #expect(c.tab("a")?.contentLoaded == true)
        #expect(c.tab("a")?.title == "Alpha")
        #expect(c.tab("b")?.badge == "3")
        #expect(c.tab("b")?.title == "Bee")
        #expect(c.tab("x")?.contentLoaded == false)
        // The selected tab stayed: no appearance calls, no reload; only its index moved.
        #expect(c.selection == .tab("b"))
        #expect(out.appearances.isEmpty)
        #expect(out.contentLoads.isEmpty)
        #expect(out.selectionChanges == [.selectionChanged(tab: "b", index: 2, previous: "b", cause: .tabs)])
    }

    /// R2.5: the new description wins where it speaks: a badge it names replaces the kept one,
    /// and `navigation: false` drops the stack.
    @Test("R2.5 a badge the new description names wins; navigation false drops the stack")
    func r2_5_newDescriptionWins() throws {
        var c = try controller([Tab(id: "a", navigation: true), Tab(id: "b")])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "s1")))
        _ = try c.apply(.badge(tab: "b", value: "3"))
        _ = try c.apply(.setTabs([Tab(id: "a"), Tab(id: "b", item: TabItem(title: "Bee", badge: "9"))], animated: false))
        #expect(c.tab("a")?.navigation == false)
        #expect(c.tab("a")?.stack == [])
        #expect(c.tab("b")?.badge == "9")
        #expect(c.tab("b")?.effectiveItem.title == "Bee")
        // An item that names no badge keeps the badge.
        _ = try c.apply(.setTabs([Tab(id: "b", item: TabItem(image: "b.png"))], animated: false))
        #expect(c.tab("b")?.item == TabItem(image: "b.png", badge: "9"))
    }

    /// R2.5 with R2.2: the selected tab removed, the tab taking its index stays loaded.
    @Test("R2.5 a tab that stays and becomes selected does not load again")
    func r2_5_stayingTabDoesNotReload() throws {
        var c = try controller(tabs("a", "b"))
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.select(.tab("a")))
        let out = try c.apply(.setTabs(tabs("b"), animated: false))
        #expect(c.selection == .tab("b"))
        #expect(out.contentLoads.isEmpty)
        #expect(out.appearanceAndContainment == [
            .containment(tab: "a", phase: .willMove, parent: nil),
            .appearance(tab: "a", phase: .willDisappear),
            .appearance(tab: "a", phase: .didDisappear),
            .containment(tab: "a", phase: .didMove, parent: nil),
            .appearance(tab: "b", phase: .willAppear),
            .appearance(tab: "b", phase: .didAppear),
        ])
    }

    /// R2.6: set_tabs naming its selection: only that tab loads and appears, not tab 0.
    @Test("R2.6 set_tabs with selected: only the named tab loads and appears", arguments: [SelectTarget.tab("z"), .index(2)])
    func r2_6_selectedLoadsOnlyThatTab(target: SelectTarget) throws {
        var c = Controller(name: "c")
        let out = try c.apply(.setTabs(tabs("x", "y", "z"), animated: false, selected: target))
        #expect(c.selection == .tab("z"))
        #expect(out.contentLoads == [.contentLoaded(tab: "z")])
        #expect(out.appearances == [.appearance(tab: "z", phase: .willAppear), .appearance(tab: "z", phase: .didAppear)])
        #expect(out.selectionChanges == [.selectionChanged(tab: "z", index: 2, previous: nil, cause: .tabs)])
        #expect(c.tab("x")?.contentLoaded == false)
        // A replacement of a controller that had a selection: the old one goes, the named one comes.
        let again = try c.apply(.setTabs(tabs("x", "y", "z"), animated: false, selected: .tab("y")))
        #expect(c.selection == .tab("y"))
        #expect(again.appearances == [
            .appearance(tab: "z", phase: .willDisappear), .appearance(tab: "y", phase: .willAppear),
            .appearance(tab: "z", phase: .didDisappear), .appearance(tab: "y", phase: .didAppear),
        ])
    }

    /// R2.6: a selection that is not in the new list is refused and nothing changes.
    @Test("R2.6 an invalid selected is refused and changes nothing")
    func r2_6_invalidSelected() throws {
        var c = try controller(tabs("a", "b"))
        let e = expectRefused(&c, .setTabs(tabs("x", "y"), animated: false, selected: .tab("a")), .notFound)
        #expect(e?.message.contains("'a'") == true)
        expectRefused(&c, .setTabs(tabs("x", "y"), animated: false, selected: .index(2)), .outOfRange)
        expectRefused(&c, .setTabs(tabs("x", "y"), animated: false, selected: .index(-1)), .outOfRange)
        expectRefused(&c, .setTabs([], animated: false, selected: .index(0)), .outOfRange)
        expectRefused(&c, .setTabs(tabs(count: 7), animated: false, selected: .more), .invalid)
    }
}
