// R7: customization (More → Edit).
import TestRandom
import Testing
@testable import TabCore

/// Seven phone tabs: t0…t3 on the bar, t4…t6 under More.
private func seven() throws -> Controller { try controller(tabs(count: 7)) }

@Suite("R7 Customization")
struct CustomizationTests {
    /// customizable is kept in tab order; null and empty both mean no rearranging.
    @Test("R7.1 customizable is a subset of the tabs; empty or null allows no moves")
    func subset() throws {
        var c = try seven()
        #expect(c.customizable == c.ids)
        _ = try c.apply(.setCustomizable(["t5", "t1", "t5"]))
        #expect(c.customizable == ["t1", "t5"])
        expectRefused(&c, .setCustomizable(["t1", "zz"]), .notFound)
        _ = try c.apply(.setCustomizable(nil))
        #expect(c.customizable == [])
        // R7.1 (issue 17): nothing customizable, no session (see r7_1_noSessionWithoutCustomizableTabs).
        _ = try c.apply(.setCustomizable(["t1"]))
        _ = try c.apply(.customizeBegin)
        expectRefused(&c, .customizeMove(tab: "t5", to: 4), .conflict)
        _ = try c.apply(.setCustomizable([]))
        expectRefused(&c, .customizeMove(tab: "t1", to: 2), .conflict)
    }

    /// Begin needs More on the bar (phone/pad with more tabs than fit) and is not available on tv.
    @Test("R7.2 a session exists only where More is shown")
    func onlyWithMore() throws {
        var five = try controller(tabs(count: 5))
        expectRefused(&five, .customizeBegin, .notAvailable)
        var pad = try controller(.pad, tabs(count: 8))
        expectRefused(&pad, .customizeBegin, .notAvailable)
        _ = try pad.apply(.addTab(Tab(id: "t8"), index: nil))
        _ = try pad.apply(.customizeBegin)
        #expect(pad.customizingOrder != nil)
        var tv = try controller(.tv, tabs(count: 12))
        expectRefused(&tv, .customizeBegin, .notAvailable)
    }

    /// Begin sends will-begin-customizing with the tabs in order, More not among them; one session at a time.
    @Test("R7.2 begin announces the tabs in order; only one session at a time")
    func begin() throws {
        var c = try seven()
        let policy = RecordingPolicy()
        let out = try c.apply(.customizeBegin, policy: policy)
        let all = (0..<7).map { "t\($0)" }
        #expect(out.notifications == [.willBeginCustomizing(tabs: all)])
        #expect(policy.calls == [.willBeginCustomizing(all)])
        #expect(c.customizingOrder == all)
        expectRefused(&c, .customizeBegin, .conflict)
        expectRefused(&c, .setTabs(tabs("x"), animated: false), .conflict)
        expectRefused(&c, .addTab(Tab(id: "x"), index: nil), .conflict)
        expectRefused(&c, .removeTab("t0"), .conflict)
    }

    /// Moves are only possible during a session.
    @Test("R7.3 a move outside a session is refused")
    func moveOutsideSession() throws {
        var c = try seven()
        expectRefused(&c, .customizeMove(tab: "t5", to: 0), .conflict)
        expectRefused(&c, .customizeEnd, .conflict)
    }

    /// A move of a tab that is not customizable is refused and changes nothing.
    @Test("R7.3 moving a non-customizable tab is refused")
    func moveFixed() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(["t0", "t1", "t4"]))
        _ = try c.apply(.customizeBegin)
        expectRefused(&c, .customizeMove(tab: "t2", to: 0), .conflict)
        expectRefused(&c, .customizeMove(tab: "zz", to: 0), .notFound)
        expectRefused(&c, .customizeMove(tab: "t0", to: 7), .outOfRange)
        expectRefused(&c, .customizeMove(tab: "t0", to: -1), .outOfRange)
        _ = try c.apply(.customizeMove(tab: "t0", to: 1))
        #expect(c.customizingOrder?.prefix(2) == ["t1", "t0"])
    }

    /// A move that would push a non-customizable tab off the bar into More is refused.
    @Test("R7.3 a non-customizable tab is not pushed off the bar")
    func notPushedOff() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(["t0", "t1", "t2", "t4", "t5", "t6"]))  // t3 fixed, last on the bar
        _ = try c.apply(.customizeBegin)
        expectRefused(&c, .customizeMove(tab: "t5", to: 0), .conflict)
        // Within the bar, t3 keeps its side: allowed.
        _ = try c.apply(.customizeMove(tab: "t2", to: 0))
        #expect(c.customizingOrder == ["t2", "t0", "t1", "t3", "t4", "t5", "t6"])
    }

    /// A move that would bring a non-customizable tab from More onto the bar is refused.
    @Test("R7.3 a non-customizable tab is not brought onto the bar from More")
    func notBroughtOn() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(["t0", "t1", "t2", "t3", "t5", "t6"]))  // t4 fixed, first under More
        _ = try c.apply(.customizeBegin)
        let error = expectRefused(&c, .customizeMove(tab: "t0", to: 6), .conflict)
        #expect(error?.message.contains("t4") == true)
        // Swapping two tabs across the boundary keeps t4 under More: allowed.
        _ = try c.apply(.customizeMove(tab: "t6", to: 0))
        _ = try c.apply(.customizeMove(tab: "t0", to: 6))
        #expect(c.customizingOrder == ["t6", "t1", "t2", "t3", "t4", "t5", "t0"])
    }

    /// End: will-end then did-end with the new order and changed = true; the order becomes
    /// the tab order and the selected tab stays selected (at its new index).
    @Test("R7.4 end reports the new order, applies it, and keeps the selected tab")
    func end() throws {
        var c = try seven()
        _ = try c.apply(.select(.tab("t5")))
        let policy = RecordingPolicy()
        _ = try c.apply(.customizeBegin, policy: policy)
        _ = try c.apply(.customizeMove(tab: "t5", to: 0), policy: policy)
        #expect(c.ids == (0..<7).map { "t\($0)" })  // not applied until the end
        let out = try c.apply(.customizeEnd, policy: policy)
        let order = ["t5", "t0", "t1", "t2", "t3", "t4", "t6"]
        #expect(Array(out.notifications.prefix(2)) == [
            .willEndCustomizing(tabs: order, changed: true),
            .didEndCustomizing(tabs: order, changed: true),
        ])
        #expect(policy.calls == [
            .willBeginCustomizing((0..<7).map { "t\($0)" }),
            .willEndCustomizing(order, changed: true),
            .didEndCustomizing(order, changed: true),
        ])
        #expect(c.ids == order)
        #expect(c.customizable == order)
        // The customizable set (kept in tab order) moved with it: announced, so that a client
        // keeps it from events alone.
        #expect(out.notifications.contains(.customizableChanged(tabs: order)))
        #expect(c.customizingOrder == nil)
        #expect(c.selection == .tab("t5"))
        #expect(c.selectedIndex == 0)
        #expect(c.barSelected == "t5")
        #expect(out.selectionChanges == [.selectionChanged(tab: "t5", index: 0, previous: "t5", cause: .customize)])
    }

    /// End without moves (or with moves that undo each other) reports changed = false.
    @Test("R7.4 end without a change reports changed = false")
    func endUnchanged() throws {
        var c = try seven()
        _ = try c.apply(.customizeBegin)
        _ = try c.apply(.customizeMove(tab: "t1", to: 0))
        _ = try c.apply(.customizeMove(tab: "t1", to: 1))
        let out = try c.apply(.customizeEnd)
        #expect(out.notifications == [
            .willEndCustomizing(tabs: c.ids, changed: false),
            .didEndCustomizing(tabs: c.ids, changed: false),
        ])
        #expect(c.sameState(as: try seven()))
    }

    /// The customized order and the customizable set survive encoding, as does a running session.
    @Test("R7.5 customization is persisted like any other state")
    func persisted() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(["t1", "t2", "t6"]))
        _ = try c.apply(.customizeBegin)
        _ = try c.apply(.customizeMove(tab: "t6", to: 5))
        #expect(try roundTrip(c) == c)
        _ = try c.apply(.customizeEnd)
        let back = try roundTrip(c)
        #expect(back == c)
        #expect(back.ids == ["t0", "t1", "t2", "t3", "t4", "t6", "t5"])
        #expect(back.customizable == ["t1", "t2", "t6"])
    }

    /// R7.1 (amended): with nothing customizable there is no editing session at all.
    @Test("R7.1 empty or null customizable: customize.begin is not_available")
    func r7_1_noSessionWithoutCustomizableTabs() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(nil))
        let e = expectRefused(&c, .customizeBegin, .notAvailable)
        #expect(e?.message.contains("no tab is customizable") == true)
        _ = try c.apply(.setCustomizable([]))
        expectRefused(&c, .customizeBegin, .notAvailable)
        _ = try c.apply(.setCustomizable(["t6"]))
        _ = try c.apply(.customizeBegin)
        #expect(c.customizingOrder != nil)
    }

    /// R7.2 (amended): will-begin-customizing lists the tabs the configuration screen shows:
    /// the customizable ones, in tab order; More never among them.
    @Test("R7.2 will_begin_customizing lists only the customizable tabs, in order")
    func r7_2_beginListsCustomizableTabs() throws {
        var c = try seven()
        _ = try c.apply(.setCustomizable(["t5", "t1", "t6"]))
        let policy = RecordingPolicy()
        let out = try c.apply(.customizeBegin, policy: policy)
        #expect(out.notifications == [.willBeginCustomizing(tabs: ["t1", "t5", "t6"])])
        #expect(policy.calls == [.willBeginCustomizing(["t1", "t5", "t6"])])
        #expect(c.customizingOrder == c.ids)  // the order edited is still all the tabs
    }
}

/// R7.3 on random sessions: a move is refused exactly when the order it would make puts a
/// non-customizable tab on the other side of the bar (found here by looking the tab up in
/// both orders), naming the first such tab in tab order; an accepted move makes that order.
@Test("R7.3 random moves: refused exactly when a fixed tab would cross the bar")
func customizeMoveAgainstItsDefinition() throws {
    var rng = SplitMix64(seed: 0x7_3_3)
    for _ in 0..<300 {
        let count = rng.int(3...12)
        var c = try controller(tabs(count: count))
        let ids = c.ids
        let movable = ids.filter { _ in rng.chance(0.7) }
        guard !movable.isEmpty else { continue }
        _ = try c.apply(.setCustomizable(movable))
        guard (try? c.apply(.customizeBegin)) != nil else { continue }
        for _ in 0..<8 {
            let id = rng.pick(movable), to = rng.int(0...(count - 1))
            let was = c.customizingOrder!
            var order = was
            order.remove(at: order.firstIndex(of: id)!)
            order.insert(id, at: to)
            let onBar = c.barTabCount
            let crossing = ids.first { other in
                !movable.contains(other) && (was.firstIndex(of: other)! < onBar) != (order.firstIndex(of: other)! < onBar)
            }
            do {
                _ = try c.apply(.customizeMove(tab: id, to: to))
                #expect(crossing == nil, "moving \(id) to \(to) in \(was) was accepted though '\(crossing ?? "")' crosses")
                #expect(c.customizingOrder == order)
            } catch {
                #expect(crossing != nil && error.message.contains("'\(crossing!)'"), "moving \(id) to \(to) in \(was): \(error.message)")
                #expect(c.customizingOrder == was)
            }
        }
    }
}
