// R15's containers under attack, in the core: the cost of a command follows the container it
// changes (and the events it sends), not the tree around it nor the length of a list the
// request repeats.
import Foundation
import Testing
@testable import TabCore

@Suite("R15 containers under attack")
struct ContainerHostileTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// A root custom `r` in the window showing `n` custom containers `c0`… (child `k<i>`), each
    /// showing `n` screens `s0`…: n² visible children. Returns the tree and how long creating
    /// `r` took (its events: every one of them appearing).
    static func wideTree(_ n: Int) throws -> (TabContainers, Double) {
        var all = TabContainers.withDefault()
        let screens = (0..<n).map { child("s\($0)") }
        for i in 0..<n {
            try all.create("c\(i)", composite: CompositeSpec(body: .custom(CustomState(children: screens, shown: screens.map(\.id)))))
        }
        let kids = (0..<n).map { child("k\($0)", "c\($0)") }
        var events = 0
        let t = try seconds {
            events = try all.create("r", composite: CompositeSpec(body: .custom(CustomState(children: kids, shown: kids.map(\.id))), window: true)).events.count
        }
        #expect(events == 2 * n + 2 * (n + n * n) + n)  // containment, appearance of each visible child, parent_changed
        return (all, t)
    }

    /// A leaf's command computed the visible sets of the whole tree, twice, and each custom
    /// container's shown children by a scan of `shown` per child: on a root showing 300
    /// containers of 300 screens, one set_shown on a leaf took ~2 s (debug) where it now takes
    /// milliseconds. A request repeating one id 100 000 times in `shown` scanned the children
    /// for each (~7 s); now a set.
    @Test("a leaf's command costs what its own subtree does, not its tree's; a shown list's repeats cost one pass")
    func leafCommandsIgnoreTheRestOfTheTree() throws {
        var (all, _) = try Self.wideTree(300)
        var fastest = Double.infinity
        for _ in 0..<3 {
            fastest = min(fastest, try Self.seconds { _ = try all.apply(.setShown(["s0"]), to: "c7") })
            _ = try all.apply(.setShown((0..<300).map { "s\($0)" }), to: "c7")
        }
        #expect(fastest < 0.25, "a leaf's set_shown took \(fastest) s")
        var o = NodeOutcome()
        let repeated = try Self.seconds { o = try all.apply(.setShown(Array(repeating: "s299", count: 100_000)), to: "c8") }
        #expect(repeated < 1.5, "set_shown of one id 100 000 times took \(repeated) s")
        #expect(all.composites["c8"].map { if case .custom(let c) = $0.body { c.shown } else { [] } } == ["s299"])
        #expect(o.events.count == 2 * 299 + 1)
        // Refused with a stranger at the end: one pass too, nothing changed.
        let before = all
        let refused = Self.seconds { #expect(throws: TabError.self) { try all.apply(.setShown(Array(repeating: "s1", count: 100_000) + ["ghost"]), to: "c9") } }
        #expect(refused < 1.5 && all == before)
    }

    /// Detaching every child of `r` sent each visible child's disappearance once, but found
    /// each leaving child's run by a search of the whole visible set and took it out of the
    /// disappearing list by a scan of that list: cubic (13 s where creating the same tree, with
    /// as many events, took 1.2 s). Now it is as linear as creating.
    @Test("detaching a thousand-fold subtree costs what its events do")
    func detachingIsLinearInItsEvents() throws {
        var (all, created) = try Self.wideTree(300)
        var o = NodeOutcome()
        let detached = try Self.seconds { o = try all.apply(.setChildren((0..<300).map { child("x\($0)") }, shown: []), to: "r") }
        // Each leaving child: will_move, its subtree's two disappearances, did_move; each
        // entering screen: will_move, did_move; children_changed; parent_changed of each detached.
        #expect(o.events.count == 300 * 2 + 2 * (300 + 300 * 300) + 300 * 2 + 1 + 300)
        #expect(detached < 3 * created + 0.25, "detaching took \(detached) s, creating \(created) s")
        #expect(all.inconsistency == nil)
    }
}
