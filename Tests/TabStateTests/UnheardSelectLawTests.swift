// Issue 42: a `select` of a tab controller holding a content controller that nobody hears (no
// subscriber, no policy told the tree's events) takes a path of its own
// (`TabContainers.applyUnheardSelect`): it counts the tree's events per container instead of
// building them. Held here to the full path (`applyInTree`, events built and kept) over the
// round-trip law's generated streams, at every step: the same containers (seqs, loaded
// contents, bodies), the same undo log, the same journal form and count of notifications.

import TabCore
import Testing
@testable import TabState

@Suite("Issue 42: a select nobody hears")
struct UnheardSelectLawTests {
    /// The daemon's policy with no plugin told the tree's events.
    struct Unheard: Policy {
        var hearsEvents: Bool { false }
    }

    static let streamCount = 150

    @Test("a select nobody hears leaves the containers, the undo log and the journal as one heard, over generated streams")
    func unheardSelectsMatchHeardOnes() {
        var reached = 0, selects = 0
        for n in 0..<Self.streamCount {
            let seed = 0x42_5E1E_C7 &+ UInt64(n)
            guard Self.run(seed: seed, steps: 120, reached: &reached, selects: &selects) else { return }
        }
        // The streams reach the path: selects of a window's root tab controller holding a
        // content that move its leaf from or to a tab whose content is a controller.
        #expect(reached > Self.streamCount * 2, "reached \(reached) of \(selects) selects")
    }

    /// One stream; false after recording an issue.
    static func run(seed: UInt64, steps: Int, reached: inout Int, selects: inout Int) -> Bool {
        var g = StreamGenerator(seed: seed)
        var heard = TabContainers.withDefault()
        var unheard = heard
        for step in 0..<steps {
            let action: StreamGenerator.Action
            if g.chance(1, in: 3) {
                // A select of a tab controller that may hold contents, mostly of a content's tab.
                let name = g.pick(["main", "main", "t1", "t2"])
                let c = heard[name]
                let content = (c?.contents ?? []).map(\.id).filter { $0 != c?.statusBarChild }
                action = .command(name, .select(.tab(!content.isEmpty && g.chance(1, in: 2) ? g.pick(content) : g.tabID(c))))
            } else if g.chance(1, in: 3) {
                action = g.tabContentAction(heard)
            } else if g.chance(1, in: 2) {
                action = g.r15Action(heard)  // containers to give tabs, nested, shown and hidden
            } else {
                action = g.action(heard)
            }
            let context = "seed \(seed), step \(step): \(action)"
            switch action {
            case .command(let name, let command):
                // The leaf before, and its content, for the count of selects that reach the path.
                let leaf = heard[name]?.statusBarChild
                let eligible: Bool
                if case .select = command, let n = heard.node(name), n.holdsContent, n.isRoot, n.window, heard[name]?.arranged == false {
                    eligible = true
                    selects += 1
                } else {
                    eligible = false
                }
                let a = Result { () throws(TabError) in try heard.apply(command, to: name, policy: DefaultPolicy()) }
                let b = Result { () throws(TabError) in try unheard.apply(command, to: name, policy: Unheard(), notifying: false) }
                switch (a, b) {
                case (.success(let x), .success(let y)):
                    if x.journal(of: command) != y.journal(of: command) || x.notificationCount != y.notificationCount || x.isRefused != y.isRefused {
                        Issue.record("\(context): the outcomes differ: journal \(String(describing: x.journal(of: command))) / \(String(describing: y.journal(of: command))), notifications \(x.notificationCount) / \(y.notificationCount)")
                        return false
                    }
                    if heard.hasTreeEvents != unheard.hasTreeEvents {
                        Issue.record("\(context): tree events announced \(heard.hasTreeEvents), unheard \(unheard.hasTreeEvents)")
                        return false
                    }
                    if eligible, let c = heard[name], c.statusBarChild != leaf, leaf.flatMap(c.content(of:)) != nil || c.statusBarChild.flatMap(c.content(of:)) != nil {
                        reached += 1
                    }
                    _ = heard.takeTreeEvents()
                    _ = unheard.takeTreeEvents()
                case (.failure(let x), .failure(let y)):
                    if x != y { Issue.record("\(context): refused as \(x) / \(y)"); return false }
                default:
                    Issue.record("\(context): heard \(a), unheard \(b)")
                    return false
                }
            case .create(let name, let idiom, let maxVisible, let tapPops, let mode):
                _ = try? heard.create(name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode)
                _ = try? unheard.create(name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode)
            case .delete(let name):
                _ = try? heard.delete(name)
                _ = try? unheard.delete(name)
            case .store(let plugin, let key, let value):
                heard.setPluginValue(plugin: plugin, key: key, value)
                unheard.setPluginValue(plugin: plugin, key: key, value)
            case .node(let name, let command):
                _ = try? heard.apply(command, to: name, policy: ChoosyProposals())
                _ = try? unheard.apply(command, to: name, policy: ChoosyProposals())
            case .createComposite(let name, let spec):
                _ = try? heard.create(name, spec, policy: ChoosyProposals())
                _ = try? unheard.create(name, spec, policy: ChoosyProposals())
            }
            if heard != unheard {
                for name in heard.allNames where heard.node(name) != unheard.node(name) || heard.composites[name] != unheard.composites[name] {
                    Issue.record("\(context): '\(name)' differs:\n  heard   \(String(describing: heard.node(name) ?? nil)) \(String(describing: heard.composites[name]))\n  unheard \(String(describing: unheard.node(name) ?? nil)) \(String(describing: unheard.composites[name]))")
                    return false
                }
                Issue.record("\(context): the containers differ (their undo logs)")
                return false
            }
            // The turn ends: kept, or now and then undone (the undo log put back).
            if g.chance(1, in: 8) {
                _ = heard.undoChanges()
                _ = unheard.undoChanges()
                if heard != unheard { Issue.record("\(context): undoing the turn gives different containers"); return false }
            } else if g.chance(1, in: 3) {
                heard.keepChanges()
                unheard.keepChanges()
            }
        }
        return true
    }
}
