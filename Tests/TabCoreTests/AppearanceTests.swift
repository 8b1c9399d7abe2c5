// R5 (appearance and containment) and R6 (navigation stacks inside tabs).
import Testing
@testable import TabCore

@Suite("R5 Appearance and containment")
struct AppearanceTests {
    /// Switching tabs: old will-disappear, new will-appear, old did-disappear, new did-appear.
    @Test("R5.1 switching tabs sends the four appearance calls in order")
    func order() throws {
        var c = try controller(tabs("a", "b", "c", "d", "e", "f"))
        let out = try c.apply(.select(.tab("b")))
        #expect(out.appearances == [
            .appearance(tab: "a", phase: .willDisappear),
            .appearance(tab: "b", phase: .willAppear),
            .appearance(tab: "a", phase: .didDisappear),
            .appearance(tab: "b", phase: .didAppear),
        ])
        let tap = try c.apply(.tap(.more))
        #expect(tap.appearances == [
            .appearance(tab: "b", phase: .willDisappear),
            .appearance(tab: "more", phase: .willAppear),
            .appearance(tab: "b", phase: .didDisappear),
            .appearance(tab: "more", phase: .didAppear),
        ])
    }

    /// Selecting the tab that is already on screen sends no appearance calls.
    @Test("R5.1 only the selected tab is on screen: re-selecting it sends nothing")
    func noAppearanceWithoutChange() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.select(.tab("a")))
        #expect(out.notifications.isEmpty)
        #expect(!out.changed)
    }

    /// A tab's content loads on its first selection and is then kept.
    @Test("R5.2 content is loaded once, on first selection")
    func loadedOnce() throws {
        var c = Controller(name: "c")
        let first = try c.apply(.setTabs(tabs("a", "b"), animated: false))
        #expect(first.contentLoads == [.contentLoaded(tab: "a")])
        #expect(c.tab("a")?.contentLoaded == true)
        #expect(c.tab("b")?.contentLoaded == false)
        let toB = try c.apply(.select(.tab("b")))
        #expect(toB.contentLoads == [.contentLoaded(tab: "b")])
        #expect(toB.notifications.first == .contentLoaded(tab: "b"))
        let backToA = try c.apply(.select(.tab("a")))
        #expect(backToA.contentLoads.isEmpty)
        let againB = try c.apply(.tap(.tab("b")))
        #expect(againB.contentLoads.isEmpty)
        #expect(c.tab("b")?.contentLoaded == true)
    }

    /// A client cannot hand in a tab whose content is already loaded.
    @Test("R5.2 content of a new tab starts unloaded")
    func freshContent() throws {
        var c = try controller(tabs("a"))
        _ = try c.apply(.addTab(Tab(id: "b", contentLoaded: true), index: nil))
        #expect(c.tab("b")?.contentLoaded == false)
    }

    /// Adding a child: will-move(controller) then did-move(controller); no appearance when not selected.
    @Test("R5.3 adding a child sends will-move then did-move to the controller")
    func adding() throws {
        var c = try controller(tabs("a"))
        let out = try c.apply(.addTab(Tab(id: "b"), index: nil))
        #expect(out.appearanceAndContainment == [
            .containment(tab: "b", phase: .willMove, parent: "c"),
            .containment(tab: "b", phase: .didMove, parent: "c"),
        ])
    }

    /// Removing a child that is not on screen: will-move(nil) then did-move(nil), nothing else.
    @Test("R5.3 removing a child sends will-move then did-move to nil")
    func removing() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.removeTab("b"))
        #expect(out.appearanceAndContainment == [
            .containment(tab: "b", phase: .willMove, parent: nil),
            .containment(tab: "b", phase: .didMove, parent: nil),
        ])
    }

    /// Removing the selected child also sends its disappearance, then the next tab appears.
    @Test("R5.3 removing the selected child sends its disappearance")
    func removingSelected() throws {
        var c = try controller(tabs("a", "b"))
        let out = try c.apply(.removeTab("a"))
        #expect(out.appearanceAndContainment == [
            .containment(tab: "a", phase: .willMove, parent: nil),
            .appearance(tab: "a", phase: .willDisappear),
            .appearance(tab: "a", phase: .didDisappear),
            .containment(tab: "a", phase: .didMove, parent: nil),
            .appearance(tab: "b", phase: .willAppear),
            .appearance(tab: "b", phase: .didAppear),
        ])
        #expect(c.selection == .tab("b"))
    }

    /// The selected child (or More) decides the status bar; nothing selected, nobody decides.
    @Test("R5.4 the controller reports which child decides the status bar")
    func statusBarChild() throws {
        var c = Controller(name: "c")
        #expect(c.statusBarChild == nil)
        _ = try c.apply(.setTabs(tabs(count: 6), animated: false))
        #expect(c.statusBarChild == "t0")
        _ = try c.apply(.select(.tab("t5")))
        #expect(c.statusBarChild == "t5")
        _ = try c.apply(.select(.more))
        #expect(c.statusBarChild == "more")
    }
}

@Suite("R6 Navigation stacks")
struct NavigationTests {
    /// A navigation tab starts at its root and grows with pushes.
    @Test("R6.1 a tab may be a navigation stack: root plus pushed screens")
    func stack() throws {
        var c = try controller([Tab(id: "nav", navigation: true)])
        #expect(c.tab("nav")?.stack == [])
        let out = try c.apply(.push(tab: "nav", screen: Screen(id: "detail", title: "Detail")))
        #expect(c.tab("nav")?.stack == [Screen(id: "detail", title: "Detail")])
        #expect(out.notifications == [.navigationChanged(tab: "nav", stack: [Screen(id: "detail", title: "Detail")])])
    }

    /// A plain tab is not a stack: pushing onto it is not available.
    @Test("R6.1 pushing onto a tab that is not a navigation stack is refused")
    func notNavigation() throws {
        var c = try controller(tabs("a"))
        expectRefused(&c, .push(tab: "a", screen: Screen(id: "s")), .notAvailable)
        expectRefused(&c, .push(tab: "zz", screen: Screen(id: "s")), .notFound)
    }

    /// Push and pop change only the named tab's stack; popping the root is refused.
    @Test("R6.2 push/pop change only that tab; popping the root is rejected")
    func pushPop() throws {
        var c = try controller([Tab(id: "a", navigation: true), Tab(id: "b", navigation: true)])
        _ = try c.apply(.push(tab: "b", screen: Screen(id: "b1")))
        let before = c
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "a1")))
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "a2")))
        #expect(c.tab("b") == before.tab("b"))
        #expect(c.selection == before.selection)
        _ = try c.apply(.pop(tab: "a"))
        #expect(c.tab("a")?.stack.map(\.id) == ["a1"])
        _ = try c.apply(.pop(tab: "a"))
        #expect(c.tab("a")?.stack == [])
        #expect(c.sameState(as: before))
        expectRefused(&c, .pop(tab: "a"), .conflict)
    }

    /// pop-to-root clears the stack; at the root it changes nothing and writes nothing.
    @Test("R6.2 pop_to_root returns to the root; at the root it is a no-op")
    func popToRoot() throws {
        var c = try controller([Tab(id: "a", navigation: true)])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "a1")))
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "a2")))
        _ = try c.apply(.popToRoot(tab: "a"))
        #expect(c.tab("a")?.stack == [])
        let before = c
        let out = try c.apply(.popToRoot(tab: "a"))
        #expect(!out.changed)
        #expect(c == before)
    }

    /// A tap on a tab shows its root (see R4.3), for a tab under More too.
    @Test("R6.3 a tap shows the tab's root")
    func tapShowsRoot() throws {
        var c = try controller(tabs(count: 5) + [Tab(id: "nav", navigation: true)])
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s")))
        _ = try c.apply(.select(.tab("nav")))
        #expect(c.tab("nav")?.stack.count == 1)
        _ = try c.apply(.tap(.tab("nav")))
        #expect(c.tab("nav")?.stack == [])
    }
}
