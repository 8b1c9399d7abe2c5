// R13: groups, hidden tabs, placement, display order and the sidebar.
import Foundation
import Testing
@testable import TabCore

/// A group with `children` (plain tabs with these ids).
func group(_ id: String, _ children: [String], defaultChild: String? = nil, reorderable: Bool = false,
           placement: Placement = .automatic) -> Tab {
    Tab(id: id, title: id.uppercased(), children: children.map { Tab(id: $0) }, defaultChild: defaultChild,
        allowsReordering: reorderable, placement: placement)
}

func tab(_ id: String, placement: Placement = .automatic, hideable: Bool = false, hidden: Bool = false) -> Tab {
    Tab(id: id, title: id.uppercased(), hidden: hidden, allowsHiding: hideable, placement: placement)
}

@Suite("R13 The modern tab model")
struct ModernModelTests {
    // MARK: R13.1

    /// Ids are unique in the whole tree; groups nest at most 4 deep; default_child is a child.
    @Test("R13.1 tree: unique ids, depth at most 4, default_child among the children")
    func treeRules() throws {
        var c = Controller(name: "c", idiom: .pad)
        let twice = try #require(expectRefused(&c, .setTabs([tab("a"), group("g", ["a"])], animated: false), .conflict))
        #expect(twice.message.contains("'a' appears twice"))
        var deep = Tab(id: "d4", children: [Tab(id: "leaf")])
        for d in (1...3).reversed() { deep = Tab(id: "d\(d)", children: [deep]) }
        let tooDeep = try #require(expectRefused(&c, .setTabs([deep], animated: false), .invalid))
        #expect(tooDeep.message.contains("nest at most 4"))
        var ok = Tab(id: "e3", children: [Tab(id: "e4")])
        for d in (1...2).reversed() { ok = Tab(id: "e\(d)", children: [ok]) }
        _ = try c.apply(.setTabs([ok], animated: false))
        #expect(c.selectedPath == ["e1", "e2", "e3", "e4"])
        expectRefused(&c, .setTabs([group("g", ["x"], defaultChild: "y")], animated: false), .invalid)
        expectRefused(&c, .addTab(tab("e4"), index: nil), .conflict)
    }

    /// A group selects its default child first, then remembers the child selected last.
    @Test("R13.1 a group remembers its selected child")
    func remembersSelectedChild() throws {
        var c = try controller(.pad, [tab("home"), group("lib", ["songs", "albums", "artists"], defaultChild: "albums")])
        _ = try c.apply(.select(.tab("lib")))
        #expect(c.selectedPath == ["lib", "albums"])
        _ = try c.apply(.select(.tab("artists")))
        _ = try c.apply(.select(.tab("home")))
        _ = try c.apply(.select(.tab("lib")))
        #expect(c.selectedPath == ["lib", "artists"])
        #expect(c.tab("lib")?.selectedChild == "artists")
    }

    // MARK: R13.2

    /// Any tab of the tree can be selected; `selected` stays the root tab.
    @Test("R13.2 select a nested tab: selected is the root, selected_path goes to the leaf")
    func selectNested() throws {
        var c = try controller(.pad, [tab("home"), group("lib", ["songs", "albums"])])
        let out = try c.apply(.select(.tab("albums")))
        #expect(c.selection == .tab("lib"))
        #expect(c.selectedIndex == 1)
        #expect(c.selectedPath == ["lib", "albums"])
        #expect(out.selectionChanges == [.selectionChanged(tab: "lib", index: 1, previous: "home", cause: .select, path: ["lib", "albums"], previousPath: ["home"])])
        // Appearance follows the leaves; the new leaf's content loads first.
        #expect(out.contentLoads == [.contentLoaded(tab: "albums")])
        #expect(out.appearances == [.appearance(tab: "home", phase: .willDisappear), .appearance(tab: "albums", phase: .willAppear),
                                    .appearance(tab: "home", phase: .didDisappear), .appearance(tab: "albums", phase: .didAppear)])
        // Within the group: the root stays, the leaf changes, and it is announced.
        let inside = try c.apply(.select(.tab("songs")))
        #expect(inside.selectionChanges == [.selectionChanged(tab: "lib", index: 1, previous: "lib", cause: .select, path: ["lib", "songs"], previousPath: ["lib", "albums"])])
    }

    /// A tap asks should-select with the tapped tab; did-select reports its path and the previous leaf.
    @Test("R13.2 tap: should-select sees the tapped tab, did-select its path and the previous leaf")
    func tapNested() throws {
        var c = try controller(.pad, [tab("home"), group("lib", ["songs", "albums"])])
        let policy = RecordingPolicy()
        let out = try c.apply(.tap(.tab("albums")), policy: policy)
        #expect(policy.calls == [.shouldSelect("albums", index: 1), .didSelect("albums", index: 1)])
        #expect(out.didSelects == [.didSelect(tab: "albums", index: 1, leaf: LeafChange(path: ["lib", "albums"], previous: "home"))])
        policy.refuse = ["songs": ("gate", "no")]
        let refused = try #require(expectRefused(&c, .tap(.tab("songs")), policy: policy, .denied))
        #expect(refused.plugin == "gate")
    }

    // MARK: R13.3

    /// A hidden tab is in neither bar nor sidebar and cannot be selected; hiding needs allows_hiding.
    @Test("R13.3 hidden tabs: not in the bar or sidebar, not selectable, hiding needs allows_hiding")
    func hiddenTabs() throws {
        var c = try controller(.pad, [tab("home"), tab("news", hideable: true), group("lib", ["songs"]),
                                      Tab(id: "extra", allowsHiding: true, hiddenByDefault: true)])
        #expect(c.tab("extra")?.hidden == false)  // hidden_by_default is read by the wire decoder
        #expect(c.barVisible == ["home", "news", "lib", "extra"])
        let out = try c.apply(.setHidden(tab: "news", hidden: true))
        #expect(out.notifications.first == .visibilityChanged(tabs: [TabVisibility(id: "news", hidden: true)]))
        #expect(out.notifications.last == .barChanged)
        #expect(c.barVisible == ["home", "lib", "extra"])
        #expect(!c.sidebarItems.map(\.id).contains("news"))
        let e = try #require(expectRefused(&c, .select(.tab("news")), .notAvailable))
        #expect(e.message.contains("hidden"))
        expectRefused(&c, .tap(.tab("news")), .notAvailable)
        let no = try #require(expectRefused(&c, .setHidden(tab: "home", hidden: true), .conflict))
        #expect(no.message.contains("allows_hiding"))
        // The same value again changes nothing.
        #expect(try c.apply(.setHidden(tab: "news", hidden: true)).notifications.isEmpty)
    }

    /// Hiding the selected tab selects the nearest visible sibling before it, else after it,
    /// else the parent's nearest sibling, else nothing.
    @Test("R13.3 hiding the selected tab moves the selection as the rule says")
    func hidingMovesSelection() throws {
        let kids = ["a", "b", "c"].map { Tab(id: $0, allowsHiding: true) }
        var c = try controller(.pad, [tab("home"), Tab(id: "g", children: kids, allowsHiding: true), tab("last", hideable: true)])
        _ = try c.apply(.select(.tab("b")))
        let out = try c.apply(.setHidden(tab: "b", hidden: true))
        #expect(c.selectedPath == ["g", "a"])  // before it
        #expect(out.selectionChanges == [.selectionChanged(tab: "g", index: 1, previous: "g", cause: .hidden, path: ["g", "a"], previousPath: ["g", "b"])])
        _ = try c.apply(.setHidden(tab: "a", hidden: true))
        #expect(c.selectedPath == ["g", "c"])  // none before: after it
        _ = try c.apply(.setHidden(tab: "c", hidden: true))
        #expect(c.selectedPath == ["home"])  // no visible sibling: the group's nearest sibling before it
        _ = try c.apply(.select(.tab("last")))
        _ = try c.apply(.setHidden(tab: "g", hidden: true))
        #expect(c.selectedPath == ["last"])  // not on the selected path: nothing moves
        _ = try c.apply(.setHidden(tab: "last", hidden: true))
        #expect(c.selectedPath == ["home"])
        // Showing a tab again never moves the selection.
        _ = try c.apply(.setHidden(tab: "g", hidden: false))
        _ = try c.apply(.setHidden(tab: "a", hidden: false))
        #expect(c.selectedPath == ["home"])
        var alone = try controller(.pad, [Tab(id: "only", allowsHiding: true)])
        _ = try alone.apply(.setHidden(tab: "only", hidden: true))
        #expect(alone.selection == .none)
    }

    // MARK: R13.4

    /// The bar: fixed tabs, then the user's order of the others, then pinned tabs;
    /// automatic is default at the root and optional inside a group; sidebar_only never.
    @Test("R13.4 the bar's composition: fixed, the others, pinned")
    func barComposition() throws {
        let c = try controller(.pad, [tab("search", placement: .pinned), tab("home"), tab("now", placement: .fixed),
                                      group("lib", ["songs"]), Tab(id: "radio", children: [Tab(id: "live", placement: .default)]),
                                      tab("prefs", placement: .sidebarOnly), tab("extra", placement: .optional)])
        #expect(c.barVisible == ["now", "home", "lib", "radio", "live", "search"])
        #expect(c.moreList.isEmpty)
    }

    /// On the phone the bar obeys max_visible and More; fixed and pinned tabs never go under More.
    @Test("R13.4 phone: More never takes fixed or pinned tabs")
    func phoneMore() throws {
        var c = try controller(.phone, [tab("a"), tab("b"), tab("c"), tab("d"), tab("e"),
                                        tab("pin", placement: .pinned), tab("fix", placement: .fixed)])
        #expect(c.barVisible == ["fix", "a", "b", "pin", "more"])
        #expect(c.moreList == ["c", "d", "e"])
        _ = try c.apply(.select(.tab("e")))
        #expect(c.barSelected == "more")
        _ = try c.apply(.select(.tab("pin")))
        #expect(c.barSelected == "pin")
        // R7's customization is for bars without R13; these use reorder.
        expectRefused(&c, .customizeBegin, .notAvailable)
    }

    // MARK: R13.5

    /// The user's bar order: default tabs may leave, optional ones join, movable ones stay;
    /// fixed, pinned and sidebar-only ones are not part of it.
    @Test("R13.5 reorder the bar within what placement allows")
    func reorderBar() throws {
        var c = try controller(.pad, [tab("now", placement: .fixed), tab("home"), tab("news", placement: .movable),
                                      tab("extra", placement: .optional), tab("search", placement: .pinned),
                                      tab("prefs", placement: .sidebarOnly)])
        let policy = RecordingPolicy()
        let out = try c.apply(.reorder(group: nil, order: ["extra", "news"]), policy: policy)
        #expect(c.barVisible == ["now", "extra", "news", "search"])
        #expect(out.notifications.contains(.displayOrderChanged(group: nil, order: ["extra", "news"])))
        #expect(out.notifications.last == .barChanged)
        #expect(policy.calls.last == .displayOrderChanged(group: nil, order: ["extra", "news"]))
        expectRefused(&c, .reorder(group: nil, order: ["home"]), .conflict)  // movable 'news' cannot leave
        expectRefused(&c, .reorder(group: nil, order: ["news", "now"]), .conflict)  // fixed
        expectRefused(&c, .reorder(group: nil, order: ["news", "search"]), .conflict)  // pinned
        expectRefused(&c, .reorder(group: nil, order: ["news", "prefs"]), .conflict)  // sidebar only
        expectRefused(&c, .reorder(group: nil, order: ["news", "nope"]), .notFound)
        expectRefused(&c, .reorder(group: nil, order: ["news", "news"]), .invalid)
        // The user's order survives a change of the tab list; new default tabs join at its end.
        _ = try c.apply(.addTab(tab("fresh"), index: nil))
        #expect(c.barVisible == ["now", "extra", "news", "fresh", "search"])
    }

    /// A group's children are reordered only when it allows reordering, and only as a permutation.
    @Test("R13.5 reorder a group's children")
    func reorderGroup() throws {
        var c = try controller(.pad, [group("lib", ["a", "b", "c"], reorderable: true), group("fixed", ["x", "y"])])
        let out = try c.apply(.reorder(group: "lib", order: ["c", "a", "b"]))
        #expect(out.notifications == [.displayOrderChanged(group: "lib", order: ["c", "a", "b"])])
        #expect(c.tab("lib")?.orderedChildren.map(\.id) == ["c", "a", "b"])
        #expect(c.sidebarItems.first?.children?.map(\.id) == ["c", "a", "b"])
        expectRefused(&c, .reorder(group: "fixed", order: ["y", "x"]), .conflict)
        expectRefused(&c, .reorder(group: "lib", order: ["a", "b"]), .invalid)
        expectRefused(&c, .reorder(group: "lib", order: ["a", "b", "z"]), .invalid)
        expectRefused(&c, .reorder(group: "a", order: []), .conflict)
        #expect(try c.apply(.reorder(group: "lib", order: ["c", "a", "b"])).notifications.isEmpty)
        // The order stays when the group is given again with the same children.
        _ = try c.apply(.setTabs([group("lib", ["a", "b", "c", "d"], reorderable: true)], animated: false))
        #expect(c.tab("lib")?.orderedChildren.map(\.id) == ["c", "a", "b", "d"])
    }

    // MARK: R13.6

    /// A sidebar exists only on the pad, with tab_sidebar or automatic and a group.
    @Test("R13.6 the sidebar: where it exists, its tree, showing and hiding it")
    func sidebar() throws {
        var pad = try controller(.pad, [tab("home"), group("lib", ["a", "b"]), tab("prefs", placement: .sidebarOnly)])
        #expect(pad.sidebarAvailable)
        #expect(pad.sidebarItems == [SidebarItem(id: "home"), SidebarItem(id: "lib", children: [SidebarItem(id: "a"), SidebarItem(id: "b")], expanded: true),
                                     SidebarItem(id: "prefs")])
        let out = try pad.apply(.sidebar(visible: false))
        #expect(out.notifications == [.sidebarChanged(visible: false)])
        #expect(!pad.sidebarVisible)
        #expect(try pad.apply(.sidebar(visible: false)).notifications.isEmpty)
        var flat = try controller(.pad, [tab("home")])
        expectRefused(&flat, .sidebar(visible: true), .notAvailable)
        var forced = Controller(name: "f", idiom: .pad, mode: .tabSidebar)
        _ = try forced.apply(.setTabs([tab("home")], animated: false))
        #expect(forced.sidebarAvailable)
        var barOnly = Controller(name: "b", idiom: .pad, mode: .tabBar)
        _ = try barOnly.apply(.setTabs([group("lib", ["a"])], animated: false))
        expectRefused(&barOnly, .sidebar(visible: true), .notAvailable)
        for idiom in [Idiom.phone, .tv] {
            var c = Controller(name: "p", idiom: idiom, mode: .tabSidebar)
            _ = try c.apply(.setTabs([group("lib", ["a"])], animated: false))
            #expect(!c.sidebarAvailable)
            #expect(c.barVisible == ["lib"])  // a group shows as its root tab
            expectRefused(&c, .sidebar(visible: true), .notAvailable)
        }
    }

    // MARK: Limits (hostile clients)

    /// max_tabs bounds the whole tree, not the root tabs: a group cannot smuggle in more tabs
    /// than a flat list may hold. A tree at the limit still answers every R13 command.
    @Test("R13 limits: every tab of the tree counts toward max_tabs")
    func treeCountsTowardMaxTabs() throws {
        let limits = ControllerLimits(maxTabs: 100)
        let big = [Tab(id: "root")] + [Tab(id: "g", children: (0..<100).map { Tab(id: "c\($0)") }, allowsReordering: true)]
        let c = Controller(name: "c", idiom: .pad)
        #expect(throws: TabError.self) { try limits.check(.setTabs(big, animated: false), on: { c }) }
        let fits = [Tab(id: "g", children: (0..<99).map { Tab(id: "c\($0)", allowsHiding: true) }, allowsReordering: true)]
        try limits.check(.setTabs(fits, animated: false), on: { c })
        var full = c
        _ = try full.apply(.setTabs(fits, animated: false))
        #expect(full.treeCount == 100)
        #expect(throws: TabError.self) { try limits.check(.addTab(Tab(id: "one-more"), index: nil), on: { full }) }
        let reversed = (0..<99).reversed().map { "c\($0)" }
        _ = try full.apply(.reorder(group: "g", order: reversed))
        #expect(full.tab("g")?.orderedChildren.first?.id == "c98")
        _ = try full.apply(.setHidden(tab: "c98", hidden: true))
        #expect(full.sidebarItems.first?.children?.count == 98)
        #expect(full.inconsistency == nil)
    }

    // MARK: R13.7

    /// A controller that uses none of R13 is not arranged: R1–R12's paths, unchanged events.
    @Test("R13.7 a controller without R13 behaves as R1–R12")
    func flatUnchanged() throws {
        var c = try controller(tabs(count: 7))
        #expect(!c.arranged && !c.usesModernModel)
        let out = try c.apply(.select(.tab("t6")))
        #expect(out.selectionChanges == [.selectionChanged(tab: "t6", index: 6, previous: "t0", cause: .select)])
        #expect(c.selectedPath == ["t6"])
    }

    /// Everything R13 adds is state: it survives encoding and decoding (snapshots).
    @Test("R13.7 the tree, hidden tabs, orders, mode and sidebar survive a snapshot")
    func snapshotRoundTrip() throws {
        var c = Controller(name: "c", idiom: .pad, mode: .tabSidebar)
        _ = try c.apply(.setTabs([tab("home"), group("lib", ["a", "b"], reorderable: true), tab("x", hideable: true)], animated: false))
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.reorder(group: "lib", order: ["b", "a"]))
        _ = try c.apply(.reorder(group: nil, order: ["lib", "home"]))
        _ = try c.apply(.setHidden(tab: "x", hidden: true))
        _ = try c.apply(.sidebar(visible: false))
        let back = try roundTrip(c)
        #expect(back == c)
        #expect(back.inconsistency == nil)
        #expect(back.arranged)
    }
}
