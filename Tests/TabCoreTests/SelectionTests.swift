// R4: programmatic selection versus user taps.
import Testing
@testable import TabCore

@Suite("R4 Selection")
struct SelectionTests {
    /// select by id, index and More never asks or tells the delegate anything.
    @Test("R4.1 select does not consult the delegate")
    func selectSkipsDelegate() throws {
        var c = try controller(tabs(count: 7))
        let policy = RecordingPolicy()
        policy.refuse = ["t1": ("gate", "no"), "t2": ("gate", "no"), "more": ("gate", "no")]
        let o1 = try c.apply(.select(.tab("t1")), policy: policy)
        #expect(c.selection == .tab("t1"))
        let o2 = try c.apply(.select(.index(2)), policy: policy)
        #expect(c.selection == .tab("t2"))
        let o3 = try c.apply(.select(.more), policy: policy)
        #expect(c.selection == .more)
        #expect(policy.calls.isEmpty)
        #expect((o1.didSelects + o2.didSelects + o3.didSelects).isEmpty)
    }

    /// A tap asks should-select first, then selects, then reports did-select.
    @Test("R4.2 tap: should-select, then the selection, then did-select")
    func tapOrder() throws {
        var c = try controller(tabs("a", "b", "c"))
        let policy = RecordingPolicy()
        let out = try c.apply(.tap(.tab("c")), policy: policy)
        #expect(policy.calls == [.shouldSelect("c", index: 2), .didSelect("c", index: 2)])
        #expect(policy.selectionAtDidSelect == [.tab("c")])
        #expect(c.selection == .tab("c"))
        #expect(out.notifications.suffix(2) == [.didSelect(tab: "c", index: 2), .barChanged])
        let changed = try #require(out.notifications.firstIndex(of: .selectionChanged(tab: "c", index: 2, previous: "a", cause: .tap)))
        #expect(changed < out.notifications.count - 2)
    }

    /// Tapping the tab that is already selected still reports did-select (and asks should-select).
    @Test("R4.2 tap on the selected tab still reports did-select")
    func tapSelected() throws {
        var c = try controller(tabs("a", "b"))
        let policy = RecordingPolicy()
        let out = try c.apply(.tap(.tab("a")), policy: policy)
        #expect(policy.calls == [.shouldSelect("a", index: 0), .didSelect("a", index: 0)])
        #expect(out.notifications == [.didSelect(tab: "a", index: 0)])
        #expect(!out.changed)
    }

    /// A refused tap changes nothing and is a denied error naming the plugin and its reason.
    @Test("R4.2 a refused tap leaves the state unchanged and names who refused and why")
    func refusal() throws {
        var c = try controller(tabs("a", "b"))
        let policy = RecordingPolicy()
        policy.refuse["b"] = ("login-gate", "not logged in")
        let error = try #require(expectRefused(&c, .tap(.tab("b")), policy: policy, .denied))
        #expect(error.plugin == "login-gate")
        #expect(error.reason == "not logged in")
        #expect(error.message.contains("login-gate"))
        #expect(policy.calls == [.shouldSelect("b", index: 1)])
        #expect(c.selection == .tab("a"))
    }

    /// Tapping a tab with pushed screens pops it to the root; did-select is still reported.
    @Test("R4.3 re-tapping the selected tab pops to root and still reports did-select")
    func retapPopsToRoot() throws {
        var c = try controller([Tab(id: "nav", navigation: true), Tab(id: "b")])
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s1")))
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s2")))
        let policy = RecordingPolicy()
        let out = try c.apply(.tap(.tab("nav")), policy: policy)
        #expect(c.tab("nav")?.stack == [])
        #expect(out.notifications == [.navigationChanged(tab: "nav", stack: []), .didSelect(tab: "nav", index: 0)])
        #expect(policy.calls.last == .didSelect("nav", index: 0))
        #expect(out.journal(of: .tap(.tab("nav"))) == .tap(.tab("nav")))
    }

    /// Tapping another tab whose stack is deep shows its root too.
    @Test("R4.3 tapping a tab with a deep stack shows its root")
    func tapOtherPopsToRoot() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "nav", navigation: true)])
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s1")))
        _ = try c.apply(.tap(.tab("nav")))
        #expect(c.selection == .tab("nav"))
        #expect(c.tab("nav")?.stack == [])
    }

    /// Tapping More passes "more" to should-select and did-select, with no index.
    @Test("R4.4 tapping More passes 'more' to should-select and did-select")
    func tapMore() throws {
        var c = try controller(tabs(count: 6))
        let policy = RecordingPolicy()
        let out = try c.apply(.tap(.more), policy: policy)
        #expect(policy.calls == [.shouldSelect("more", index: nil), .didSelect("more", index: nil)])
        #expect(out.didSelects == [.didSelect(tab: "more", index: nil)])
        #expect(c.selection == .more)
        policy.refuse["more"] = ("p", "r")
        _ = try c.apply(.select(.index(0)))
        expectRefused(&c, .tap(.more), policy: policy, .denied)
    }

    /// Unknown ids, indices out of range and More on tv are errors that change nothing.
    @Test("R4.5 unknown id, bad index and More on tv are rejected")
    func rejected() throws {
        var c = try controller(tabs("a", "b", "c"))
        _ = try c.apply(.select(.index(1)))
        expectRefused(&c, .select(.tab("zz")), .notFound)
        expectRefused(&c, .tap(.tab("zz")), .notFound)
        expectRefused(&c, .select(.index(3)), .outOfRange)
        expectRefused(&c, .select(.index(-1)), .outOfRange)
        var empty = Controller(name: "e")
        expectRefused(&empty, .select(.index(0)), .outOfRange)
        var tv = try controller(.tv, tabs("a", "b"))
        expectRefused(&tv, .select(.more), .notAvailable)
        expectRefused(&tv, .tap(.more), .notAvailable)
    }

    /// Every change of selection is announced with its cause; no change, no announcement.
    @Test("R4.6 every selection change is announced, whatever its cause")
    func announced() throws {
        var c = try controller(tabs(count: 6))
        #expect(try c.apply(.select(.tab("t1"))).selectionChanges
                == [.selectionChanged(tab: "t1", index: 1, previous: "t0", cause: .select)])
        #expect(try c.apply(.select(.tab("t1"))).selectionChanges.isEmpty)
        #expect(try c.apply(.tap(.tab("t2"))).selectionChanges
                == [.selectionChanged(tab: "t2", index: 2, previous: "t1", cause: .tap)])
        #expect(try c.apply(.removeTab("t2")).selectionChanges
                == [.selectionChanged(tab: "t3", index: 2, previous: "t2", cause: .tabs)])
        _ = try c.apply(.updateTab("t0", TabUpdate { $0.restorationID = .set("home") }))
        #expect(try c.apply(.restore(RestorationArchive(selected: "home#t0"))).selectionChanges
                == [.selectionChanged(tab: "t0", index: 0, previous: "t3", cause: .restore)])
    }

    /// R4.3 (amended): the pop is announced before the tab loads and appears, so a front end
    /// applying events in order never shows the deep screen; then the selection, then did-select.
    @Test("R4.3 a tap's pop to root is announced before the appearance calls")
    func r4_3_popBeforeAppearance() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "nav", navigation: true)])
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s1")))
        let out = try c.apply(.tap(.tab("nav")))
        #expect(out.notifications == [
            .navigationChanged(tab: "nav", stack: []),
            .contentLoaded(tab: "nav"),
            .appearance(tab: "a", phase: .willDisappear),
            .appearance(tab: "nav", phase: .willAppear),
            .appearance(tab: "a", phase: .didDisappear),
            .appearance(tab: "nav", phase: .didAppear),
            .selectionChanged(tab: "nav", index: 1, previous: "a", cause: .tap),
            .didSelect(tab: "nav", index: 1),
            .barChanged,
        ])
    }

    /// R4.3: with `tap_pops: reselect` only a tap on the selected tab pops; switching tabs
    /// keeps each tab's stack.
    @Test("R4.3 tap_pops reselect: switching keeps the stack, re-tapping pops")
    func r4_3_tapPopsReselect() throws {
        var c = Controller(name: "c", tapPops: .reselect)
        _ = try c.apply(.setTabs([Tab(id: "a"), Tab(id: "nav", navigation: true)], animated: false))
        _ = try c.apply(.push(tab: "nav", screen: Screen(id: "s1")))
        let switched = try c.apply(.tap(.tab("nav")))
        #expect(c.selection == .tab("nav"))
        #expect(c.tab("nav")?.stack == [Screen(id: "s1")])
        #expect(!switched.notifications.contains { if case .navigationChanged = $0 { true } else { false } })
        _ = try c.apply(.tap(.tab("a")))
        #expect(c.tab("nav")?.stack == [Screen(id: "s1")])
        _ = try c.apply(.tap(.tab("nav")))
        let retap = try c.apply(.tap(.tab("nav")))
        #expect(c.tab("nav")?.stack == [])
        #expect(retap.notifications == [.navigationChanged(tab: "nav", stack: []), .didSelect(tab: "nav", index: 1)])
        // The default is the seeds' rule.
        #expect(Controller(name: "d").tapPops == .always)
    }
}
