// R13.8 on random trees: random command sequences against controllers whose tabs are groups,
// nested groups, hidden and restorable tabs, with R13.8's laws checked after every step —
// identity, containment before appearance, reselection and restoration — besides refusals,
// journal replay and encoding.
//
// Reproduce a failure: TABCORE_SEED=<seed printed> swift test --filter TabCoreTests.TreeProperty
import TestRandom
import Foundation
import Testing
@testable import TabCore

/// Builds random trees and commands on them, valid and invalid.
struct TreeGenerator {
    var rng: SplitMix64
    static let pool = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]

    /// An id of the controller's tree (mostly), or one it does not have.
    mutating func id(in c: Controller) -> String {
        let ids = c.treeIDs.sorted()
        if !ids.isEmpty, rng.chance(0.85) { return rng.pick(ids) }
        return rng.pick(Self.pool + ["zz"])
    }

    mutating func tab(_ id: String) -> Tab {
        var t = Tab(id: id, title: rng.chance(0.7) ? id.uppercased() : nil,
                    item: rng.chance(0.2) ? TabItem(badge: rng.pick([nil, "1"])) : nil,
                    restorationID: rng.pick([nil, nil, "r1", "r2", "r\(id)"]), navigation: rng.chance(0.6))
        if rng.chance(0.25) { t.allowsHiding = true }
        if rng.chance(0.1) { t.hiddenByDefault = true; t.allowsHiding = true }
        if rng.chance(0.6) { t.keepsHidden = true; t.hidden = t.hiddenByDefault } else { t.hidden = t.allowsHiding && rng.chance(0.2) }
        return t
    }

    /// A forest over `ids`: each tab may take the ids after it as its children (depth ≤ 4).
    mutating func forest(_ ids: inout ArraySlice<String>, depth: Int) -> [Tab] {
        var list: [Tab] = []
        while let id = ids.first, list.count < 5 {
            ids = ids.dropFirst()
            var t = tab(id)
            if depth < Controller.maxDepth, rng.chance(depth == 1 ? 0.35 : 0.25) {
                var kids = ids.prefix(rng.int(0...3))
                ids = ids.dropFirst(kids.count)
                t.children = forest(&kids, depth: depth + 1)
                if let k = t.children?.last, rng.chance(0.3) { t.defaultChild = k.id }
            }
            list.append(t)
            if rng.chance(0.15) { break }
        }
        return list
    }

    mutating func tree() -> [Tab] {
        var ids = Array(Self.pool.shuffled(using: &rng).prefix(rng.int(0...12)))[...]
        var roots = forest(&ids, depth: 1)
        if !roots.isEmpty, rng.chance(0.03) { roots.append(roots[0]) }  // duplicate: refused
        return roots
    }

    /// Every id of `roots`' trees.
    static func ids(_ roots: [Tab]) -> [String] { roots.flatMap { [$0.id] + ids($0.children ?? []) } }

    mutating func command(for c: Controller) -> Command {
        switch rng.int(0...19) {
        case 17:
            // R14 and R13.12 meet the tree.
            switch rng.int(0...9) {
            case 0: return .setExpanded(group: id(in: c), expanded: rng.chance(0.5))
            case 1: return .search(active: rng.chance(0.5))
            case 2: return .setEnabled(tab: id(in: c), enabled: rng.chance(0.6))
            case 3: return .setBarHidden(hidden: rng.chance(0.5), animated: false)
            case 4: return .setSizeClass(rng.pick(SizeClass.allCases))
            case 5: return .setCompactTabs(rng.chance(0.3) ? nil : [id(in: c), id(in: c)])
            case 6: return .setMode(rng.pick(Mode.allCases))
            case 7: return rng.chance(0.5) ? .editBegin : .editEnd
            default:
                let g = id(in: c)
                return .selectChild(group: g, child: c.tab(g)?.children.map { rng.pick($0.map(\.id) + ["zz"]) } ?? id(in: c))
            }
        case 18, 19:
            var t = tab(rng.pick(["find", "srch"]))
            t.role = .search
            t.activatesSearch = rng.chance(0.6)
            return .addTab(t, index: nil, group: nil)
        case 0, 1, 2:
            let t = tree()
            let all = Self.ids(t)
            let selected: SelectTarget? = !all.isEmpty && rng.chance(0.3) ? .tab(rng.pick(all)) : nil
            return .setTabs(t, animated: false, selected: selected)
        case 3:
            let groups = c.treeIDs.filter { c.tab($0)?.children != nil }.sorted()
            let group = !groups.isEmpty && rng.chance(0.6) ? rng.pick(groups) : nil
            var ids = Array(Self.pool.shuffled(using: &rng).prefix(2))[...]
            let t = forest(&ids, depth: 2).first ?? tab("k")
            return .addTab(t, index: rng.chance(0.5) ? nil : rng.int(-1...3), group: group)
        case 4: return .removeTab(id(in: c))
        case 5:
            var u = TabUpdate()
            if rng.chance(0.3) { u.title = .set("T") }
            if rng.chance(0.3) { u.hidden = .set(rng.chance(0.5)) }
            if rng.chance(0.2) { u.allowsHiding = .set(rng.chance(0.7)) }
            if rng.chance(0.2) { u.restorationID = .set(rng.pick([nil, "r1", "r9"])) }
            if rng.chance(0.2) {
                var ids = Array(Self.pool.shuffled(using: &rng).prefix(3))[...]
                u.children = .set(forest(&ids, depth: 2))
            }
            return .updateTab(id(in: c), u)
        case 6, 7: return .select(.tab(id(in: c)))
        case 8, 9: return .tap(.tab(id(in: c)))
        case 10, 11: return .push(tab: id(in: c), screen: Screen(id: rng.pick(["s1", "s2"])))
        case 12: return .pop(tab: id(in: c))
        case 13: return .setHidden(tab: id(in: c), hidden: rng.chance(0.5))
        case 14: return .badge(tab: id(in: c), value: rng.pick([nil, "2"]))
        case 15: return .select(.index(rng.int(-1...3)))
        default: return .restore(c.preserve())
        }
    }
}

/// R13.8's laws for one accepted command. `contained`: the tabs added and not removed so far,
/// kept from the containment events alone.
func treeViolation(_ command: Command, before: Controller, after: Controller, _ out: Outcome, contained: inout Set<String>) -> String? {
    // Containment before appearance: a tab loads or appears only once it was added.
    for n in out.notifications {
        switch n {
        case .containment(let id, .didMove, let parent):
            if parent == nil { contained.remove(id) } else { contained.insert(id) }
        case .appearance(let id, .willAppear), .contentLoaded(let id):
            if id != Controller.moreID, !contained.contains(id) { return "containment: '\(id)' appears or loads before it was added" }
        default: break
        }
    }
    if contained != after.treeIDs { return "containment: the events leave \(contained.sorted()) in the controller, the tree has \(after.treeIDs.sorted())" }
    // Identity: a tab kept by id (of the same kind) keeps its loaded content and its stack,
    // and gets no containment events.
    let moved = Set(out.notifications.compactMap { n -> String? in if case .containment(let id, _, _) = n { id } else { nil } })
    for id in after.treeIDs {
        guard let old = before.tab(id), let new = after.tab(id), (old.children == nil) == (new.children == nil) else { continue }
        if moved.contains(id) { return "identity: '\(id)' stayed but got containment events" }
        if old.contentLoaded, !new.contentLoaded { return "identity: '\(id)' stayed but lost its loaded content" }
        if case .setTabs = command, new.navigation, old.navigation, new.stack != old.stack {
            return "identity: '\(id)' stayed but its stack is \(new.stack), was \(old.stack)"
        }
    }
    // Reselection: after a replacement that names no selection, a leaf that is still a
    // visible leaf of the tree stays selected.
    if case .setTabs(_, _, nil) = command, let leaf = before.selectedLeaf, leaf != Controller.moreID,
       let kept = after.tab(leaf), kept.children == nil, after.layout.node(leaf)?.hidden != true, after.selectedLeaf != leaf {
        return "reselection: '\(leaf)' (path \(before.selectedPath)) is still in the tree but \(after.selectedPath) is selected"
    }
    return nil
}

/// What holds of every controller with a tree.
func treeInvariantViolation(_ c: Controller) -> String? {
    if let why = c.inconsistency { return why }
    let path = c.selectedPath
    // R13.3 allows nothing selected when no visible sibling or ancestor's sibling is left.
    if path.isEmpty || path == [Controller.moreID] { return nil }
    for id in path where c.tab(id) == nil { return "the selected path \(path) names '\(id)', which is not in the tree" }
    guard c.arranged else { return c.tab(path[0])?.contentLoaded == true ? nil : "the selected tab '\(path[0])' has no content loaded" }
    guard let node = c.layout.node(path.last!) else { return "no node for the leaf \(path)" }
    if node.hidden { return "the selected leaf '\(node.id)' is hidden" }
    if c.tab(node.id)?.contentLoaded != true { return "the selected leaf '\(node.id)' has no content loaded" }
    return nil
}

@Suite("R13.8 property: random trees")
struct TreePropertyTests {
    static let sequences = ProcessInfo.processInfo.environment["TABCORE_SEQUENCES"].flatMap(Int.init) ?? 150
    static let steps = ProcessInfo.processInfo.environment["TABCORE_STEPS"].flatMap(Int.init) ?? 120

    @Test("r13_8 identity, containment before appearance, reselection and restoration hold at every random step")
    func randomTrees() throws {
        let seeds: [UInt64]
        if let s = ProcessInfo.processInfo.environment["TABCORE_SEED"], let seed = UInt64(s, radix: 16) {
            seeds = [seed]
        } else {
            var root = SplitMix64(seed: 0x7EE_5EED)
            seeds = (0..<Self.sequences).map { _ in root.next() }
        }
        var failures = 0
        var reached = (nested: 0, restored: 0, moved: 0)
        for seed in seeds {
            if let failure = Self.run(seed: seed, reached: &reached) {
                Issue.record("seed \(String(seed, radix: 16)) (TABCORE_SEED=\(String(seed, radix: 16))): \(failure)")
                failures += 1
                if failures >= 5 { break }
            }
        }
        guard failures == 0, seeds.count > 1 else { return }
        // The generator must reach nested selections, restorations that select and kept tabs.
        #expect(reached.nested > 100 && reached.restored > 20 && reached.moved > 20)
    }

    static func run(seed: UInt64, reached: inout (nested: Int, restored: Int, moved: Int)) -> String? {
        var gen = TreeGenerator(rng: SplitMix64(seed: seed))
        let idiom = gen.rng.pick(Idiom.allCases)
        let tapPops = gen.rng.pick(TapPops.allCases)
        var c = Controller(name: "t", idiom: idiom, tapPops: tapPops)
        var replay = c
        var contained = Set<String>()
        var history: [String] = []
        for step in 0..<steps {
            let command = gen.command(for: c)
            history.append("\(command)")
            func fail(_ why: String) -> String {
                "\(idiom) \(tapPops), step \(step): \(why)\n  last commands:\n    " + history.suffix(6).joined(separator: "\n    ")
            }
            let before = c
            do {
                let out = try c.apply(command)
                var quiet = before
                guard let q = try? quiet.apply(command, notifying: false), quiet == c, q.notificationCount == out.notifications.count else {
                    return fail("apply(notifying: false) differs")
                }
                if let why = selectionOnlyViolation(command, before: before, policy: DefaultPolicy(), full: out, live: c) { return fail(why) }
                if let entry = out.journal(of: command) {
                    do { _ = try replay.apply(entry) } catch { return fail("the journal entry was refused on replay: \(error)") }
                } else if c != before {
                    return fail("the state changed but nothing was journaled")
                }
                if let why = treeViolation(command, before: before, after: c, out, contained: &contained) { return fail(why) }
                if case .setTabs = command, !before.treeIDs.isDisjoint(with: c.treeIDs) { reached.moved += 1 }
            } catch {
                if c != before { return fail("a refused command (\(error)) changed the controller") }
            }
            if replay != c { return fail("replaying the journal gives another controller") }
            if let why = treeInvariantViolation(c) { return fail(why) }
            do {
                if try roundTrip(c) != c { return fail("encode → decode changed the controller") }
            } catch { return fail("encode → decode failed: \(error)") }
            if c.selectedPath.count > 1 { reached.nested += 1 }
            // Restoration: restoring what preserve saved selects the same leaf and keeps every
            // restorable stack.
            let archive = c.preserve()
            if archive.selected != nil {
                var r = c
                do { _ = try r.apply(.restore(archive)) } catch { return fail("restore of preserve refused: \(error)") }
                if r.selectedPath != c.selectedPath { return fail("restoration: restore(preserve()) selects \(r.selectedPath), was \(c.selectedPath)") }
                for id in c.treeIDs where c.tab(id)?.restorationID != nil && c.tab(id)?.navigation == true && r.tab(id)?.stack != c.tab(id)?.stack {
                    return fail("restoration: '\(id)' lost its stack")
                }
                reached.restored += 1
            }
        }
        return nil
    }
}
