// Random command sequences against phone, pad and tv controllers, with invariants checked
// after every step and the journal replayed the way the daemon recovers.
//
// Reproduce a failure: TABCORE_SEED=<seed printed> swift test --filter TabCoreTests.Property
// Scale up: TABCORE_SEQUENCES=5000 TABCORE_STEPS=500.
import TestRandom
import Foundation
import Testing
@testable import TabCore

/// What the property tests draw with (TestRandom's generator).
extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }
}

/// A delegate that refuses some taps, restricts orientations and may prefer one; fixed per sequence.
struct RandomPolicy: Policy {
    var refused: Set<String>
    var mask: OrientationMask
    var preferred: Orientation?
    /// It restricts orientations: each change asks for them (and the controller keeps them).
    var decidesOrientations: Bool { true }
    func shouldSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) -> Decision {
        refused.contains(candidate.id) ? .deny(by: "random", reason: "\(candidate.id) is refused") : .allow
    }
    func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask {
        proposed.intersection(mask)
    }
    func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation? { preferred }
}

/// Builds random commands, valid and invalid, leaning on ids that exist.
struct CommandGenerator {
    var rng: SplitMix64
    /// Ids tabs are made of; "more", "" and unknown ids are mixed in to be refused.
    static let pool = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "x#y"]

    mutating func id(in c: Controller) -> String {
        if !c.tabs.isEmpty, rng.chance(0.8) { return rng.pick(c.tabs).id }
        return rng.chance(0.85) ? rng.pick(Self.pool) : rng.pick(["more", "", "zz"])
    }

    /// Mostly with portrait: tabs with no orientation in common are refused (R9.4), and
    /// sequences need tabs to reach More and customization.
    mutating func mask() -> OrientationMask? {
        rng.chance(0.3) ? nil : OrientationMask(rawValue: UInt32(rng.int(0...15))).union(rng.chance(0.85) ? .portrait : [])
    }

    mutating func item() -> TabItem? {
        guard rng.chance(0.4) else { return nil }
        return TabItem(title: rng.chance(0.5) ? "Item" : nil, image: rng.chance(0.5) ? "i.png" : nil,
                       tag: rng.chance(0.3) ? rng.int(-2...9) : nil, badge: rng.pick([nil, "1", "new", ""]))
    }

    mutating func tab(id: String) -> Tab {
        Tab(id: id, title: rng.chance(0.7) ? id.uppercased() : nil, item: item(),
            restorationID: rng.pick([nil, nil, "r1", "r2", "r1#", "#"]), orientations: mask(),
            fullScreenLayout: rng.chance(0.2), navigation: rng.chance(0.5),
            stack: rng.chance(0.2) ? [Screen(id: "given")] : [], contentLoaded: rng.chance(0.2))
    }

    mutating func tabList() -> [Tab] {
        let n = rng.pick([0, 1, 2, 3, 5, 6, 7, 8, 9, 12])
        var ids = Array(Self.pool.shuffled(using: &rng).prefix(n))
        if !ids.isEmpty, rng.chance(0.05) { ids.append(ids[0]) }              // duplicate: refused
        if rng.chance(0.03) { ids.insert(rng.pick(["more", ""]), at: 0) }    // reserved/empty: refused
        return ids.map { tab(id: $0) }
    }

    mutating func update() -> TabUpdate {
        var u = TabUpdate()
        if rng.chance(0.3) { u.title = .set(rng.chance(0.5) ? "T" : nil) }
        if rng.chance(0.3) { u.item = .set(item()) }
        if rng.chance(0.3) { u.restorationID = .set(rng.pick([nil, "r1", "r2"])) }
        if rng.chance(0.3) { u.orientations = .set(mask()) }
        if rng.chance(0.3) { u.fullScreenLayout = .set(rng.chance(0.5)) }
        if rng.chance(0.15) { u.navigation = .set(rng.chance(0.5)) }
        return u
    }

    mutating func command(for c: Controller, archives: [RestorationArchive]) -> Command {
        let n = c.tabs.count
        if c.customizingOrder != nil, rng.chance(0.5) {
            return rng.chance(0.85) ? .customizeMove(tab: id(in: c), to: rng.int(-1...n)) : .customizeEnd
        }
        switch rng.int(0...21) {
        case 0, 1:
            let list = tabList()
            var selected: SelectTarget?
            switch rng.int(0...5) {
            case 0: selected = .tab(list.isEmpty || rng.chance(0.2) ? id(in: c) : rng.pick(list).id)  // R2.6
            case 1: selected = .index(rng.int(-1...list.count))
            case 2 where rng.chance(0.2): selected = .more  // refused
            default: break
            }
            return .setTabs(list, animated: rng.chance(0.5), selected: selected)
        case 2: return .addTab(tab(id: rng.chance(0.7) ? rng.pick(Self.pool) : id(in: c)),
                               index: rng.chance(0.5) ? nil : rng.int(-1...n + 1))
        case 3: return .removeTab(id(in: c))
        case 4: return .updateTab(id(in: c), update())
        case 5: return .badge(tab: id(in: c), value: rng.pick([nil, "1", "99+", ""]))
        case 6, 7: return .select(.tab(id(in: c)))
        case 8: return .select(.index(rng.int(-1...n)))
        case 9: return .select(.more)
        case 10, 11: return .tap(.tab(id(in: c)))
        case 12: return .tap(.more)
        case 13: return .push(tab: id(in: c), screen: Screen(id: rng.pick(["s1", "s2", ""]), title: rng.chance(0.5) ? "S" : nil))
        case 14: return .pop(tab: id(in: c))
        case 15: return .popToRoot(tab: id(in: c))
        case 16:
            if rng.chance(0.2) { return .setCustomizable(nil) }
            return .setCustomizable((0..<rng.int(0...4)).map { _ in id(in: c) })
        case 17: return .customizeBegin
        case 18: return .customizeMove(tab: id(in: c), to: rng.int(-1...n))
        case 19: return .customizeEnd
        case 20: return rng.chance(0.85) ? .rotate(rng.pick(Orientation.allCases)) : .setOrientation(rng.pick(Orientation.allCases))
        default:
            if !archives.isEmpty, rng.chance(0.7) { return .restore(rng.pick(archives)) }
            return .restore(RestorationArchive(selected: rng.pick([nil, "r1#a", "r2#b", "r1", "zz"]),
                                               stacks: ["r1#a": [Screen(id: "s")]]))
        }
    }
}

/// What must hold for every controller a client can reach. Returns what is wrong, or nil.
func invariantViolation(_ c: Controller) -> String? {
    let ids = c.tabs.map(\.id)
    if Set(ids).count != ids.count { return "R1.4 duplicate tab ids \(ids)" }
    if ids.contains(where: { $0.isEmpty || $0 == Controller.moreID }) { return "R3.2 empty or reserved tab id in \(ids)" }
    for (i, id) in ids.enumerated() where c.index(of: id) != i { return "index of \(id) is \(String(describing: c.index(of: id))), expected \(i)" }

    switch c.selection {
    case .none:
        if !ids.isEmpty { return "R2.2 nothing selected but there are tabs \(ids)" }
        if c.selectedIndex != nil { return "selected_index without a selection" }
    case .tab(let id):
        guard let i = c.index(of: id) else { return "R4.5 the selected tab '\(id)' does not exist" }
        if c.selectedIndex != i { return "R3.3 selected_index \(String(describing: c.selectedIndex)) for '\(id)' at \(i)" }
        if c.tabs[i].contentLoaded == false { return "R5.2 the selected tab '\(id)' has no content loaded" }
    case .more:
        if c.idiom == .tv { return "R3.6 More selected on tv" }
        if c.selectedIndex != nil { return "R3.3 selected_index is not nil with More selected" }
    }

    let mv = c.maxVisible
    let more = c.idiom != .tv && ids.count > mv
    let onBar = more ? mv - 1 : min(ids.count, mv)
    if c.moreShown != more { return "R3.1 moreShown is \(c.moreShown) with \(ids.count) tabs, max_visible \(mv)" }
    if c.barVisible != Array(ids.prefix(onBar)) + (more ? ["more"] : []) { return "R3.1 bar \(c.barVisible) for \(ids)" }
    if c.moreList != (more ? Array(ids.dropFirst(onBar)) : []) { return "R3.1 More list \(c.moreList) for \(ids)" }
    if c.unreachable != (c.idiom == .tv ? Array(ids.dropFirst(onBar)) : []) { return "R3.6 unreachable \(c.unreachable)" }
    let barSelected: String? = switch c.selection {
    case .none: nil
    case .more: "more"
    // R3.6: a tv tab off the bar has no bar item to highlight.
    case .tab(let id): c.index(of: id)! < onBar ? id : (more ? "more" : nil)
    }
    if c.barSelected != barSelected { return "R3.5 bar selection \(String(describing: c.barSelected)), expected \(String(describing: barSelected))" }

    // R7.1: customizable ⊆ tabs, in tab order (a subsequence of the ids).
    var rest = ids[...]
    for id in c.customizable {
        guard let i = rest.firstIndex(of: id) else { return "R7.1 customizable \(c.customizable) is not a subsequence of \(ids)" }
        rest = rest[(i + 1)...]
    }
    if let order = c.customizingOrder {
        if order.sorted() != ids.sorted() { return "R7.2 session order \(order) is not a permutation of \(ids)" }
        if !more { return "R7.2 a customization session without More" }
    }
    for t in c.tabs where !t.navigation && !t.stack.isEmpty { return "R6.1 '\(t.id)' is not a navigation stack but has screens" }
    if c.tabsOrientations.isEmpty { return "R9.4 the tabs have no orientation in common" }
    return nil
}

/// What the notifications of an accepted command must say about the change from `before` to `after`.
func notificationViolation(_ command: Command, before: Controller, after: Controller, _ out: Outcome) -> String? {
    // R4.6: a selection change (tab or index) is announced exactly once, with the new values.
    let changed = before.selection != after.selection || before.selectedIndex != after.selectedIndex
    let announced = out.notifications.compactMap { n -> (String?, Int?, String?)? in
        if case .selectionChanged(let tab, let index, let previous, _, _, _) = n { return (tab, index, previous) }
        return nil
    }
    if changed != !announced.isEmpty || announced.count > 1 { return "R4.6 selection change \(changed) announced \(announced.count) time(s)" }
    if let (tab, index, previous) = announced.first,
       tab != after.selection.wireValue || index != after.selectedIndex || previous != before.selection.wireValue {
        return "R4.6 selection_changed(\(String(describing: tab)), \(String(describing: index)), previous \(String(describing: previous))) does not match the state"
    }
    // R4.2: did-select for taps only, once, last.
    let isTap = { if case .tap = command { true } else { false } }()
    let didSelects = out.notifications.filter { if case .didSelect = $0 { true } else { false } }
    let lastButBar = out.notifications.last(where: { $0 != .barChanged })
    if didSelects.count != (isTap ? 1 : 0) || (isTap && lastButBar != didSelects.first) {
        return "R4.2 did_select \(didSelects.count) time(s) for \(command)"
    }
    // R5.1: appearance calls move the screen from the old selection to the new one, each
    // will-x followed by its did-x, and never show a child that is not selected.
    var visible = before.selection.wireValue
    var appearing: String?, disappearing: String?
    for n in out.notifications {
        guard case .appearance(let tab, let phase) = n else { continue }
        switch phase {
        case .willDisappear:
            guard tab == visible, disappearing == nil else { return "R5.1 will_disappear(\(tab)) while \(String(describing: visible)) is visible" }
            disappearing = tab
        case .didDisappear:
            guard tab == disappearing else { return "R5.1 did_disappear(\(tab)) without will_disappear" }
            disappearing = nil
            visible = nil
        case .willAppear:
            guard appearing == nil, tab == after.selection.wireValue else { return "R5.1 will_appear(\(tab)) but \(String(describing: after.selection.wireValue)) ends selected" }
            appearing = tab
        case .didAppear:
            guard tab == appearing, disappearing == nil else { return "R5.1 did_appear(\(tab)) out of order" }
            appearing = nil
            visible = tab
        }
    }
    if appearing != nil || disappearing != nil || visible != after.selection.wireValue {
        return "R5.1 after the appearance calls \(String(describing: visible)) is on screen, but \(String(describing: after.selection.wireValue)) is selected"
    }
    // R5.2: content is loaded when a tab is first selected, and only then.
    for n in out.notifications {
        if case .contentLoaded(let id) = n, after.selection != .tab(id) { return "R5.2 content of '\(id)' loaded but it is not selected" }
    }
    switch command {
    case .setTabs(_, _, let selected):
        // R2.5: a tab in both lists stays: no containment calls, its stack (while still a
        // navigation stack), loaded content and badge (unless the new description names one).
        let moved = Set(out.notifications.compactMap { n -> String? in
            if case .containment(let tab, _, _) = n { return tab }
            return nil
        })
        for t in after.tabs {
            guard let old = before.tab(t.id) else {
                if !moved.contains(t.id) { return "R2.5 new tab '\(t.id)' got no containment calls" }
                continue
            }
            if moved.contains(t.id) { return "R2.5 '\(t.id)' stayed but got containment calls" }
            if old.contentLoaded && !t.contentLoaded { return "R2.5 '\(t.id)' stayed but lost its loaded content" }
            if t.stack != (t.navigation ? old.stack : []) { return "R2.5 '\(t.id)' stayed but its stack is \(t.stack), was \(old.stack)" }
            if old.badge != nil, t.badge == nil { return "R2.5 '\(t.id)' stayed but lost its badge" }
        }
        for t in before.tabs where after.tab(t.id) == nil && !moved.contains(t.id) { return "R2.1 removed tab '\(t.id)' got no containment calls" }
        // R2.6: the named tab is selected, and no other tab loads or appears.
        if let selected {
            let named: String? = switch selected {
            case .tab(let id): id
            case .index(let i): after.tabs[i].id
            case .more: nil
            }
            if after.selection.wireValue != named { return "R2.6 set_tabs named '\(String(describing: named))' but \(String(describing: after.selection.wireValue)) is selected" }
        }
    case .tap(.tab(let id)):
        // R4.3: the pop is announced before the tab loads or appears.
        if let pop = out.notifications.firstIndex(where: { if case .navigationChanged = $0 { true } else { false } }),
           let shown = out.notifications.firstIndex(where: {
               switch $0 { case .appearance, .contentLoaded: true; default: false }
           }), pop > shown {
            return "R4.3 the tap on '\(id)' announced its pop after the appearance calls"
        }
        if after.tapPops == .reselect, before.selection != .tab(id), before.tab(id)?.stack != after.tab(id)?.stack {
            return "R4.3 tap_pops reselect: switching to '\(id)' changed its stack"
        }
    default: break
    }
    switch command {
    case .setTabs, .addTab, .removeTab, .updateTab where before != after:
        // R9.4: a change of tabs leaves the controller in an orientation every tab supports.
        if !after.tabsOrientations.contains(after.orientation.mask) {
            return "R9.4 after \(command) the tabs support \(after.tabsOrientations.orientations) but the controller is \(after.orientation)"
        }
        if before.orientation != after.orientation, !out.notifications.contains(.orientationChanged(from: before.orientation, to: after.orientation)) {
            return "R9.4 the controller re-oriented without announcing it"
        }
    default: break
    }
    // R2.1: containment — every removal before any install.
    let parents = out.notifications.compactMap { n -> String?? in
        if case .containment(_, _, let parent) = n { return .some(parent) }
        return nil
    }
    if let firstInstall = parents.firstIndex(where: { $0 != nil }), parents[firstInstall...].contains(where: { $0 == nil }) {
        return "R2.1 a child was removed after another was installed"
    }
    return nil
}

/// `command` applied to `before` without notifications but with the selection changes (a
/// plugin's selection_changed, no subscriber): the same state, and of the notifications exactly
/// the `selectionChanged` ones of `full`, in order.
func selectionOnlyViolation(_ command: Command, before: Controller, policy: Policy, full: Outcome, live: Controller) -> String? {
    var watched = before
    guard let out = try? watched.apply(command, policy: policy, notifying: false, selectionChanges: true) else {
        return "refused with selectionChanges, accepted when notifying"
    }
    let expected = full.notifications.filter { if case .selectionChanged = $0 { true } else { false } }
    if watched != live || out.notificationCount != full.notifications.count || out.notifications != expected {
        return "apply(notifying: false, selectionChanges: true) built \(out.notifications), not the selection changes \(expected)"
    }
    return nil
}

@Suite("Property: random command sequences")
struct PropertyTests {
    static let sequences = ProcessInfo.processInfo.environment["TABCORE_SEQUENCES"].flatMap(Int.init) ?? 200
    static let steps = ProcessInfo.processInfo.environment["TABCORE_STEPS"].flatMap(Int.init) ?? 200

    /// The generator is SplitMix64 exactly, so a printed seed reproduces a failure anywhere.
    @Test("SplitMix64 gives the reference sequence")
    func splitMix() {
        var g = SplitMix64(seed: 0)
        #expect(g.next() == 0xE220_A839_7B1D_CDAF)
        #expect(g.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    /// After every random command: invariants hold (R1.4, R2.2, R3, R4.5, R5.2, R7.1), a refused
    /// command changed nothing, encode → decode is identity (R11.3), and replaying the journal on
    /// a fresh controller with the default policy gives the very same controller.
    @Test("R1–R11 invariants, refusals, encoding and journal replay hold for random sequences")
    func randomSequences() throws {
        let seeds: [UInt64]
        if let s = ProcessInfo.processInfo.environment["TABCORE_SEED"], let seed = UInt64(s.replacingOccurrences(of: "0x", with: ""), radix: 16) {
            seeds = [seed]
        } else {
            var root = SplitMix64(seed: 0x7AB_D5EED)
            seeds = (0..<Self.sequences).map { _ in root.next() }
        }
        var failures = 0
        var stats = (steps: 0, refused: 0, journaled: 0, more: 0, sessions: 0)
        for seed in seeds {
            if let failure = Self.run(seed: seed, steps: Self.steps, stats: &stats) {
                Issue.record("seed \(String(seed, radix: 16)) (TABCORE_SEED=\(String(seed, radix: 16))): \(failure)")
                failures += 1
                if failures >= 5 { break }
            }
        }
        // The generator must reach the interesting states, or the test proves little.
        guard failures == 0 else { return }
        #expect(stats.refused > stats.steps / 10)
        #expect(stats.journaled > stats.steps / 5)
        #expect(stats.more > stats.steps / 10)
        #expect(seeds.count == 1 || stats.sessions > seeds.count)
    }

    static func run(seed: UInt64, steps: Int,
                    stats: inout (steps: Int, refused: Int, journaled: Int, more: Int, sessions: Int)) -> String? {
        var gen = CommandGenerator(rng: SplitMix64(seed: seed))
        let idiom = gen.rng.pick(Idiom.allCases)
        let maxVisible: Int? = gen.rng.chance(0.4) ? nil : gen.rng.int((idiom == .tv ? 1 : 2)...7)
        let policy = RandomPolicy(refused: Set((0..<gen.rng.int(0...3)).map { _ in gen.rng.pick(CommandGenerator.pool + ["more"]) }),
                                  mask: OrientationMask(rawValue: UInt32(gen.rng.int(0...15))) .union(gen.rng.chance(0.5) ? .all : []),
                                  preferred: gen.rng.chance(0.3) ? gen.rng.pick(Orientation.allCases) : nil)
        let tapPops = gen.rng.pick(TapPops.allCases)
        // Asked for its orientations from the start, as tabd's controllers are (at start, and
        // at each change): the delegate's answers are compared with the rest.
        var c = Controller(name: "p\(seed % 1000)", idiom: idiom, maxVisible: maxVisible, tapPops: tapPops).asked(policy)
        var replay = Controller(name: c.name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops)
        var journal: [Command] = []
        var archives: [RestorationArchive] = []
        var history: [String] = []

        for step in 0..<steps {
            let command = gen.command(for: c, archives: archives)
            history.append("\(command)")
            func fail(_ why: String) -> String {
                "\(idiom) max_visible \(c.maxVisible), step \(step): \(why)\n  last commands:\n    " + history.suffix(8).joined(separator: "\n    ")
            }
            let before = c
            stats.steps += 1
            do {
                let out = try c.apply(command, policy: policy)
                if out.refusal != nil {
                    // The delegate refused (a value, not a throw): nothing changed or was said.
                    stats.refused += 1
                    if c != before || out.changed || out.notificationCount > 0 { return fail("a refused command changed the controller or notified") }
                }
                // Unobserved (no subscribers): the same state, journal and notification count,
                // with nothing built.
                var quiet = before
                guard let quietOut = try? quiet.apply(command, policy: policy, notifying: false) else {
                    return fail("refused when not notifying, accepted when notifying")
                }
                if quiet != c || quietOut.journal(of: command) != out.journal(of: command) || quietOut.notificationCount != out.notifications.count
                    || !quietOut.notifications.isEmpty || out.notificationCount != out.notifications.count {
                    return fail("apply(notifying: false) differs: \(quietOut) vs \(out)")
                }
                // Unobserved but a plugin watches the selection: exactly the selection changes.
                if let why = selectionOnlyViolation(command, before: before, policy: policy, full: out, live: c) { return fail(why) }
                if let entry = out.journal(of: command) {
                    stats.journaled += 1
                    journal.append(entry)
                    do { _ = try replay.apply(entry) } catch { return fail("the journal entry \(entry) was refused on replay: \(error)") }
                } else if c != before {
                    return fail("the state changed but nothing was journaled")
                }
                if (out.rotated != nil) != { if case .rotate = command { true } else { false } }() {
                    return fail("rotated is reported exactly for rotate")
                }
                if out.refusal == nil, let why = notificationViolation(command, before: before, after: c, out) { return fail(why) }
            } catch {
                stats.refused += 1
                if c != before { return fail("a refused command (\(error)) changed the controller") }
            }
            // Replayed without the delegate, then asked for its orientations, as a start does.
            if replay.asked(policy) != c { return fail("replaying the journal gives another controller:\n  live:   \(c)\n  replay: \(replay)") }
            if let why = invariantViolation(c) { return fail(why) }
            do {
                // The delegate's answers are not saved: a start asks for them again.
                let back = try roundTrip(c)
                if back.asked(policy) != c { return fail("R11.3 encode → decode changed the controller") }
            } catch { return fail("R11.3 encode → decode failed: \(error)") }
            if c.moreShown { stats.more += 1 }
            if c.customizingOrder != nil, before.customizingOrder == nil { stats.sessions += 1 }
            if step % 17 == 0 { archives.append(c.preserve()) }
        }
        // The daemon's recovery: the whole journal, from scratch.
        var recovered = Controller(name: c.name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops)
        for (i, entry) in journal.enumerated() {
            do { _ = try recovered.apply(entry) } catch { return "recovery: journal entry \(i) \(entry) refused: \(error)" }
        }
        if recovered.asked(policy) != c { return "recovery from the whole journal gives another controller" }
        return nil
    }
}

extension Controller {
    /// `self` with the orientations `policy` decides now (`decideOrientations`): what a
    /// start makes of a controller replayed or loaded without plugins.
    func asked(_ policy: Policy) -> Controller {
        var c = self
        var effects: [PolicyEffect] = []
        c.decideOrientations(policy: policy, effects: &effects)
        return c
    }
}
