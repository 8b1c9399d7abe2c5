// `TabContainers.moveDrawer`, open_drawer and close_drawer where the drawer lies (issue 42),
// against the general path (`apply(.openDrawer…)` / `apply(.closeDrawer…)`), which the R15
// rule tests check: over generated drawers (screens or controllers on each side, in a window
// or not, a root or attached, gestures configured or not) and generated moves (the app's, a
// user's gesture, a plugin that refuses), whenever the fast path takes a move it must answer,
// refuse, number and send exactly what the general path does, and leave the same state (undo
// log included); when it declines (nil), it must have changed nothing.
import Testing
import TestRandom
@testable import TabCore

extension SplitMix64 {
    fileprivate mutating func chance(_ n: Int, in d: Int) -> Bool { Int.random(in: 0..<d, using: &self) < n }
}

@Suite("R15.25 open_drawer and close_drawer where the drawer lies")
struct DrawerMoveTests {
    /// A drawer `d` drawn from `rng`: its center and sides screens or navigation controllers,
    /// its gestures and center interaction, in a window or not, a root or a custom's child.
    static func tree(_ rng: inout SplitMix64) throws -> TabContainers {
        var all = TabContainers.withDefault()
        func side(_ id: String) throws -> ChildObject? {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return nil
            case 1: return child(id)
            default:
                try all.create("nav-" + id, composite: CompositeSpec(body: .navigation(NavigationState(stack: [child(id + "-top")]))))
                return child(id, "nav-" + id)
            }
        }
        let center = try side("c") ?? child("c")
        let opening = DrawerGesture.allCases.filter(\.opens)
        let config = NodeConfiguration(openGestures: opening.filter { _ in rng.chance(1, in: 2) },
                                       closeGestures: DrawerGesture.allCases.filter { _ in rng.chance(1, in: 2) },
                                       centerInteraction: rng.pick(CenterInteraction.allCases))
        let attached = rng.chance(1, in: 5)
        try all.create("d", composite: CompositeSpec(body: .drawer(DrawerState(center: center, left: try side("l"), right: try side("r"))),
                                                     window: !attached && rng.chance(3, in: 4), configuration: config))
        if attached {
            let shown = rng.chance(1, in: 2) ? ["slot"] : []
            try all.create("outer", composite: CompositeSpec(body: .custom(CustomState(children: [child("slot", "d")], shown: shown)), window: rng.chance(1, in: 2)))
        }
        return all
    }

    @Test("R15.25 a move where the drawer lies is the general path's, event for event, over generated drawers and moves")
    func sameAsTheGeneralPath() throws {
        var taken = 0, declined = 0, refused = 0, heard = 0
        for seed in UInt64(1)...300 {
            var rng = SplitMix64(seed: seed)
            var all = try Self.tree(&rng)
            all.keepChanges()
            for step in 0..<16 {
                let side: DrawerSide? = rng.chance(1, in: 3) ? nil : rng.pick(DrawerSide.allCases)
                let gesture: DrawerGesture? = rng.chance(1, in: 2) ? nil : rng.pick(DrawerGesture.allCases)
                let policy: Policy = rng.chance(1, in: 4) ? NoDrawers() : DefaultPolicy()
                let keeping = rng.chance(1, in: 2)
                let command: NodeCommand = side.map { .openDrawer($0, gesture: gesture, animated: false) } ?? .closeDrawer(gesture: gesture, animated: false)
                let context = ("seed \(seed), step \(step): \(command.name) \(side?.rawValue ?? "") gesture \(gesture?.rawValue ?? "none"), keeping \(keeping)")

                var fast = all, general = all
                var events: [SentNodeEvent] = []
                let fastResult: Result<DrawerMove?, TabError>
                do { fastResult = .success(try fast.moveDrawer("d", open: side, gesture: gesture, policy: policy, keepingEvents: keeping, &events)) } catch { fastResult = .failure(error) }
                let generalResult: Result<NodeOutcome, TabError>
                do { generalResult = .success(try general.apply(command, to: "d", policy: policy, keepingEvents: keeping)) } catch { generalResult = .failure(error) }

                switch (fastResult, generalResult) {
                case (.success(nil), _):
                    declined += 1
                    #expect(fast == all, "a declined move changed nothing: \(context)")
                    #expect(events.isEmpty, "\(context)")
                case (.success(let move?), .success(let outcome)):
                    taken += 1
                    if !events.isEmpty { heard += 1 }
                    #expect(move.changed == outcome.changed, "\(context)")
                    #expect(events == outcome.events, "the same events, seqs and members: \(lines(NodeOutcome(events: events))) against \(lines(outcome)): \(context)")
                    #expect(fast == general, "the same state, seqs and undo log: \(context)")
                    guard case .drawer(let d)? = general.composites["d"]?.body else { Issue.record("no drawer: \(context)"); return }
                    #expect(move.openSide == d.openSide && move.center == d.center.id, "\(context)")
                case (.failure(let a), .failure(let b)):
                    refused += 1
                    #expect(a.code == b.code && a.message == b.message, "\(context)")
                    #expect(fast == all && general == all, "a refusal changes nothing: \(context)")
                case (.success(let move?), .failure(let error)):
                    Issue.record("the fast path moved (\(move)) where the general path refused: \(error.message): \(context)")
                case (.failure(let error), .success):
                    Issue.record("the fast path refused where the general path moved: \(error.message): \(context)")
                }
                // Go on from the general path's state (a declined move is its to make).
                all = general
                if rng.chance(1, in: 3) { all.keepChanges() }
            }
        }
        // Every branch was drawn, or the comparison proved little.
        #expect(taken > 500 && declined > 300 && refused > 100 && heard > 200, "taken \(taken), declined \(declined), refused \(refused), heard \(heard)")
    }

    @Test("R15.25 a move where the drawer lies reaches its drawer by the last lookup, and finds it again after a controller is created or deleted")
    func lookUpSurvivesNewControllers() throws {
        var all = TabContainers.withDefault()
        try all.create("d", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c"), left: child("l"))), window: true))
        var events: [SentNodeEvent] = []
        #expect(try all.moveDrawer("d", open: .left, gesture: nil, policy: DefaultPolicy(), keepingEvents: true, &events)?.changed == true)
        // Positions move when the table grows: each create and delete forgets the last lookup.
        for k in 0..<40 { try all.create("n\(k)", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("s")])))) }
        #expect(try all.moveDrawer("d", open: nil, gesture: nil, policy: DefaultPolicy(), keepingEvents: true, &events)?.changed == true)
        for k in 0..<40 { try all.delete("n\(k)") }
        #expect(try all.moveDrawer("d", open: .left, gesture: nil, policy: DefaultPolicy(), keepingEvents: true, &events)?.changed == true)
        try all.create("e", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c"), right: child("r"))), window: true))
        #expect(try all.moveDrawer("e", open: .right, gesture: nil, policy: DefaultPolicy(), keepingEvents: true, &events)?.changed == true)
        #expect(try all.moveDrawer("d", open: nil, gesture: nil, policy: DefaultPolicy(), keepingEvents: true, &events)?.changed == true)
        guard case .drawer(let d)? = all.composites["d"]?.body, case .drawer(let e)? = all.composites["e"]?.body else { Issue.record("no drawers"); return }
        #expect(d.openSide == .none && e.openSide == .right)
        #expect(all.inconsistency == nil)
    }
}
