// R13.2: a select of a tab that lands on itself (not a group, visible) takes a one-pass path
// (`Controller.moveSelection(toLeaf:)`). It must do exactly what the general path does
// (`landing(at:)` then `moveSelection(to:leaf:)`): compared here on random trees, in random
// states (groups remembering children, hidden tabs, More or nothing selected, user orders),
// with and without notifications recorded.
import TestRandom
import Testing
@testable import TabCore

@Suite("R13.2: a select of a leaf, one-pass path against the general one")
struct LeafSelectTests {
    static let pool = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
                       "a-long-tab-identifier", "ümlaut", "x#y"]

    /// A random tree of up to 4 levels, ids unique, some tabs hidden or hideable.
    static func tree(_ rng: inout SplitMix64) -> [Tab] {
        var ids = pool.shuffled(using: &rng)[...]
        func make(depth: Int) -> Tab? {
            guard let id = ids.popFirst() else { return nil }
            var kids: [Tab]?
            if depth < Controller.maxDepth, rng.chance(depth == 1 ? 0.6 : 0.4) {
                kids = (0..<rng.int(0...3)).compactMap { _ in make(depth: depth + 1) }
            }
            let hideable = rng.chance(0.4)
            return Tab(id: id, contentLoaded: rng.chance(0.2), children: kids,
                       defaultChild: kids.flatMap { $0.isEmpty || !rng.chance(0.3) ? nil : rng.pick($0).id },
                       allowsReordering: kids != nil && rng.chance(0.3),
                       allowsHiding: hideable, hiddenByDefault: hideable && rng.chance(0.2))
        }
        return (0..<rng.int(1...6)).compactMap { _ in make(depth: 1) }
    }

    @Test("moveSelection(toLeaf:) changes, notifies and counts as landing + moveSelection do")
    func onePassMatchesGeneral() throws {
        var rng = SplitMix64(seed: 0x1EAF_5E1E)
        var compared = 0, deep = 0, fromMore = 0
        for _ in 0..<300 {
            let idiom = rng.pick(Idiom.allCases)
            var c = Controller(name: "c", idiom: idiom, maxVisible: rng.chance(0.5) ? nil : rng.int((idiom == .tv ? 1 : 2)...5))
            guard (try? c.apply(.setTabs(Self.tree(&rng), animated: false))) != nil, c.arranged else { continue }
            for _ in 0..<60 {
                let ids = c.treeIDs.sorted()
                let id = rng.pick(ids)
                if let node = c.layout.node(id), node.landsOnItself {
                    for notifying in [true, false] {
                        var fast = c, general = c
                        var fastOut = Outcome(recordsNotifications: notifying), generalOut = Outcome(recordsNotifications: notifying)
                        fast.moveSelection(toLeaf: node, cause: .select, &fastOut)
                        let (path, leaf) = try general.landing(at: node)
                        #expect(leaf === node && path == node.path)
                        general.moveSelection(to: path, leaf: leaf, cause: .select, &generalOut)
                        #expect(fast == general, "\(id) from \(c.currentPath)")
                        #expect(fast.current === general.current)
                        #expect(fastOut == generalOut, "\(id) from \(c.currentPath)")
                        #expect(fastOut.notificationCount == generalOut.notificationCount)
                    }
                    compared += 1
                    if node.address.count > 2 { deep += 1 }
                    if c.selection == .more { fromMore += 1 }
                }
                // Move on: mostly selects (through `apply`, so both paths' effects accumulate),
                // with hiding, reordering and More mixed in.
                let command: Command
                switch rng.int(0...9) {
                case 0: command = .setHidden(tab: id, hidden: rng.chance(0.5))
                case 1: command = .select(.more)
                case 2: command = .tap(.tab(id))
                case 3:
                    let group = c.layout.node(id).flatMap { $0.childNodes.isEmpty ? nil : $0 }
                    command = .reorder(group: group?.id, order: (group?.children ?? c.layout.bar.middle).shuffled(using: &rng))
                default: command = .select(.tab(id))
                }
                _ = try? c.apply(command)
            }
        }
        #expect(compared > 3000)
        #expect(deep > 100)
        #expect(fromMore > 10)
    }
}
