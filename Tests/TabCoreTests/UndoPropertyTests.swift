// Undoing a turn (`TabContainers.keepChanges` / `undoChanges`) on random command streams: a
// turn of random commands to two controllers (creating, deleting and numbering them too),
// then either kept or undone; undone, the set is the one the last kept turn left. Each
// command also goes through the debug build's check of its footprint (`Controller.footprint`:
// the roots an undo keeps for it), so a command that writes outside it stops the test.
//
// Reproduce a failure: TABCORE_SEED=<seed printed> swift test --filter UndoProperty
import Foundation
import TestRandom
import Testing
@testable import TabCore

@Suite("Undo property: random turns kept or undone")
struct UndoPropertyTests {
    static let sequences = ProcessInfo.processInfo.environment["TABCORE_SEQUENCES"].flatMap(Int.init) ?? 120
    static let turns = 40

    @Test("an undone turn gives back the set the last kept turn left, whatever its commands")
    func randomTurns() throws {
        let seeds: [UInt64]
        if let s = ProcessInfo.processInfo.environment["TABCORE_SEED"], let seed = UInt64(s, radix: 16) {
            seeds = [seed]
        } else {
            var root = SplitMix64(seed: 0x0_04D0)
            seeds = (0..<Self.sequences).map { _ in root.next() }
        }
        var reached = (undone: 0, rootsKept: 0, moves: 0)
        for seed in seeds {
            if let failure = Self.run(seed: seed, reached: &reached) {
                Issue.record("seed \(String(seed, radix: 16)) (TABCORE_SEED=\(String(seed, radix: 16))): \(failure)")
                return
            }
        }
        guard seeds.count > 1 else { return }
        // The streams must undo many turns, and many that kept only the edits of the roots;
        // and many moves in a customization session.
        #expect(reached.undone > 500 && reached.rootsKept > 200)
        #expect(reached.moves > 40, "\(reached.moves) customize.move undone by moving back")
    }

    static func run(seed: UInt64, reached: inout (undone: Int, rootsKept: Int, moves: Int)) -> String? {
        var gen = TreeGenerator(rng: SplitMix64(seed: seed))
        var set = TabContainers.withDefault()
        // A second controller of many flat tabs: the footprints' common case.
        try! set.create("big", idiom: gen.rng.pick(Idiom.allCases))
        _ = try! set.apply(.setTabs((0..<40).map { Tab(id: "t\($0)", navigation: true) }, animated: false), to: "big")
        set.keepChanges()
        var kept = set
        var history: [String] = []
        for turn in 0..<turns {
            for _ in 0..<gen.rng.int(1...6) {
                let name = gen.rng.pick([TabContainers.defaultName, "big", "big"])
                switch gen.rng.int(0...19) {
                case 0:
                    history.append("delete \(name)")
                    _ = try? set.delete(name)
                case 1:
                    history.append("create \(name)")
                    try? set.create(name, idiom: .phone)
                case 2:
                    history.append("nextSeq \(name)")
                    _ = set.nextSeq(name)
                default:
                    guard let c = set[name] else { continue }
                    let command = name == "big" ? bigCommand(&gen, c) : gen.command(for: c)
                    history.append("\(name): \(command)")
                    _ = try? set.apply(command, to: name)
                }
            }
            if gen.rng.chance(0.5) {
                if set.undoesRootsOnly { reached.rootsKept += 1 }
                reached.moves += set.undoneMoves
                set.undoChanges()
                reached.undone += 1
                if set != kept {
                    return "turn \(turn): undone, the set differs from the last kept one\n  last commands:\n    "
                        + history.suffix(8).joined(separator: "\n    ")
                }
            } else {
                set.keepChanges()
                kept = set
            }
            history.append("-- turn \(turn) ends")
        }
        return nil
    }

    /// A command for the 40-tab controller, mostly of those with a footprint.
    static func bigCommand(_ gen: inout TreeGenerator, _ c: Controller) -> Command {
        let id = c.tabs.isEmpty || gen.rng.chance(0.05) ? "zz" : gen.rng.pick(c.tabs.map(\.id))
        // While a session runs, mostly its moves (a move ends no session; most else is refused).
        if c.customizingOrder != nil, gen.rng.chance(0.6) { return .customizeMove(tab: id, to: gen.rng.int(-1...(c.tabs.count))) }
        switch gen.rng.int(0...16) {
        case 0: return .badge(tab: id, value: gen.rng.pick([nil, "1", "2"]))
        case 1: return .push(tab: id, screen: Screen(id: gen.rng.pick(["s1", "s2"])))
        case 2: return .pop(tab: id)
        case 3: return .popToRoot(tab: id)
        case 4: return .select(gen.rng.chance(0.8) ? .tab(id) : gen.rng.chance(0.5) ? .more : .index(gen.rng.int(-1...45)))
        case 5: return .tap(gen.rng.chance(0.9) ? .tab(id) : .more)
        case 6:
            var u = TabUpdate()
            u.title = .set(gen.rng.pick(["A", "B", nil]))
            if gen.rng.chance(0.2) { u.hidden = .set(gen.rng.chance(0.5)) }
            return .updateTab(id, u)
        case 7, 8:
            let added = Tab(id: "n\(gen.rng.int(0...60))", navigation: gen.rng.chance(0.5))
            return .addTab(added, index: gen.rng.chance(0.4) ? nil : gen.rng.int(-1...(c.tabs.count + 1)), group: nil)
        case 9: return .removeTab(id)
        // R7: a session's moves are undone by moving back (the order is not kept whole).
        case 10: return .customizeBegin
        case 11, 12: return .customizeMove(tab: id, to: gen.rng.int(-1...(c.tabs.count)))
        case 13: return .customizeEnd
        case 14: return .setCustomizable(gen.rng.chance(0.3) ? nil : c.tabs.map(\.id).filter { _ in gen.rng.chance(0.7) })
        default: return gen.command(for: c)
        }
    }
}
