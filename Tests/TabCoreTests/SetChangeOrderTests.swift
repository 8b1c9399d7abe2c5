// Issue 41, item 2 (docs/architecture.md, "Containment and appearance"): one set-change order
// for every kind (R15.6, which is R5.3). The same children leaving and entering a tab bar
// controller (`set_tabs`) and a custom container (`set_children`) send the same containment
// and appearance calls in the same order; only the state events around them are each kind's.
import TestRandom
import Testing
@testable import TabCore

@Suite("One set-change order (R5.3, R15.6)")
struct SetChangeOrderTests {
    /// A tab bar controller's containment and appearance calls, as "id phase".
    static func calls(_ o: Outcome) -> [String] {
        o.notifications.compactMap { n in
            switch n {
            case .containment(let id, let phase, let parent): "\(id) \(phase.rawValue)\(parent == nil ? " nil" : "")"
            case .appearance(let id, let phase): "\(id) \(phase.rawValue)"
            default: nil
            }
        }
    }

    /// A composite's, the same way.
    static func calls(_ o: NodeOutcome) -> [String] {
        o.events.compactMap { e in
            switch e.event {
            case .containment(let id, _, let phase, let parent): "\(id) \(phase.rawValue)\(parent == nil ? " nil" : "")"
            case .appearance(let id, _, let phase): "\(id) \(phase.rawValue)"
            default: nil
            }
        }
    }

    @Test("R15.6 R5.3 a tab bar controller and a custom container send one set-change order for the same children, whatever leaves and enters")
    func tabsAndChildrenShareTheOrder() throws {
        var rng = SplitMix64(seed: 0x5E7C)
        let pool = ["a", "b", "c", "d", "e", "f"]
        for round in 0..<200 {
            let old = Array(pool.shuffled(using: &rng).prefix(Int.random(in: 1...5, using: &rng)))
            let new = Array(pool.shuffled(using: &rng).prefix(Int.random(in: 1...5, using: &rng)))
            // The custom container shows what the tab controller selects before and after
            // (R2.2 picks the selection after): the same visible sets, so the same calls.
            let shownBefore = old[Int.random(in: 0..<old.count, using: &rng)]
            var tabs = TabContainers.withDefault()
            _ = try tabs.apply(.setTabs(old.map { Tab(id: $0) }, animated: false, selected: nil), to: TabContainers.defaultName)
            _ = try tabs.apply(Command.select(.tab(shownBefore)), to: TabContainers.defaultName)
            let tabCalls = Self.calls(try tabs.apply(.setTabs(new.map { Tab(id: $0) }, animated: false, selected: nil), to: TabContainers.defaultName))
            let shownNow = try tabs.controller(TabContainers.defaultName).statusBarChild
            var all = TabContainers.withDefault()
            try all.create("box", composite: CompositeSpec(body: .custom(CustomState(children: old.map { child($0) }, shown: [shownBefore])), window: true))
            let boxCalls = Self.calls(try all.apply(.setChildren(new.map { child($0) }, shown: [shownNow ?? new[0]]), to: "box"))
            #expect(tabCalls == boxCalls, "round \(round): \(old) → \(new)")
            guard tabCalls == boxCalls else { return }
        }
    }
}
