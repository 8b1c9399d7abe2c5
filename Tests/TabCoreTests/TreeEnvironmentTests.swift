// SEMANTICS R15.10, R15.41: the environment (idiom, size class, orientation) of a tab
// controller below a non-tab root is the root's: adopted silently when attached, changed with
// the root's rotate and set_size_class (its own events, after the root's: R15.8 c), kept when
// detached. A non-tab root's orientations are its idiom's, intersected by the plugins.
import TabJSON
import Testing
@testable import TabCore

/// The pad drawer `root` (in a window) with center `main` (a screen), and the hidden pad tab
/// controller `tabs` (tabs a, b: portrait only, as a tab supports by default).
func padDrawerAndTabs() throws -> TabContainers {
    var all = TabContainers()
    try all.create("tabs", .tab({ var o = TabBarOptions(idiom: .pad); o.window = false; return o }()))
    _ = try all.apply(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false, selected: nil), to: "tabs")
    try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("main"))), window: true, idiom: .pad))
    return all
}

/// A delegate that supports only `supported` (intersected with what is proposed), counting its calls.
final class OrientationGate: Policy {
    var supported: OrientationMask
    var asked: [String] = []
    init(_ supported: OrientationMask) { self.supported = supported }
    func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask {
        asked.append(controller.name)
        return proposed.intersection(supported)
    }
}

@Suite struct TreeEnvironmentTests {
    @Test("R15.10: a tab controller attached below a non-tab root adopts its size class and orientation silently")
    func r15_10_tabControllerAdoptsRootEnvironment() throws {
        var all = try padDrawerAndTabs()
        _ = try all.apply(NodeCommand.setSizeClass(.compact), to: "root")
        _ = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "root")
        let seq = all.node("tabs")!.seq
        let o = try all.apply(.setCenter(child("center", "tabs"), closeDrawer: false), to: "root")
        let t = all.node("tabs")!.tabBar
        #expect(t.sizeClass == .compact)
        #expect(t.orientation == .landscapeLeft)  // though its tabs support only portrait (R9.1 is a root's)
        // No event for the adoption: besides its leaf's appearance, its only event is its
        // parent_changed, and its seq counts no other.
        let own = o.events.filter { $0.controller == "tabs" }
        #expect(own.map(\.event.event).filter { $0 != .appearance && $0 != .contentLoaded } == [.parentChanged])
        #expect(all.node("tabs")!.seq == seq + UInt64(own.count))
        #expect(all.inconsistency == nil)
        // Its own commands keep the root's orientation (R9.4 does not move it back).
        _ = try all.apply(.addTab(Tab(id: "c"), index: nil), to: "tabs")
        #expect(all.node("tabs")!.tabBar.orientation == .landscapeLeft)
        do { _ = try all.apply(Command.rotate(.portrait), to: "tabs"); Issue.record("an attached tab controller rotated") } catch { #expect(error.code == .notAvailable) }
    }

    @Test("R15.10, R15.8 c: a non-tab root's set_size_class and rotate reach the tab controller below it, its events after the root's")
    func r15_10_rootEnvironmentReachesTabController() throws {
        var all = try padDrawerAndTabs()
        _ = try all.apply(.setCenter(child("center", "tabs"), closeDrawer: false), to: "root")
        let size = try all.apply(NodeCommand.setSizeClass(.compact), to: "root")
        // The root's event, then the tab controller's own, as R14.4's set_size_class sends
        // them (a flat pad controller's also re-announces its selection).
        let lines = order(size)
        #expect(Array(lines.prefix(2)) == ["root size_class_changed compact", "tabs size_class_changed"], "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("tabs ") })
        #expect(all.node("tabs")!.tabBar.sizeClass == .compact)
        let turn = try all.apply(NodeCommand.rotate(.landscapeRight), to: "root")
        #expect(order(turn) == ["root orientation_changed portrait landscape_right", "tabs orientation_changed"])
        #expect(all.node("tabs")!.tabBar.orientation == .landscapeRight)
        // Seqs follow each controller's own numbering.
        let seqs = turn.events.filter { $0.controller == "tabs" }.map(\.seq)
        #expect(seqs == [all.node("tabs")!.seq])
        #expect(all.inconsistency == nil)
    }

    @Test("R15.10, R15.8 a: a tab controller holding a content controller takes the root's size class; what stays visible below its tab is not announced again")
    func r15_10_contentBelowAdoptingTabController() throws {
        var all = try padDrawerAndTabs()
        try all.create("boxes", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("inbox")])), idiom: .pad))
        var a = Tab(id: "a")
        a.controller = "boxes"
        _ = try all.apply(.setTabs([a, Tab(id: "b")], animated: false, selected: nil), to: "tabs")
        _ = try all.apply(.setCenter(child("center", "tabs"), closeDrawer: false), to: "root")
        #expect(all.isVisible("boxes"))
        let size = try all.apply(NodeCommand.setSizeClass(.compact), to: "root")
        let lines = order(size)
        #expect(lines.contains("tabs size_class_changed"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("boxes ") }, "\(lines)")
        #expect(all.node("tabs")!.tabBar.sizeClass == .compact)
        #expect(all.isVisible("boxes"))
        #expect(all.inconsistency == nil)
    }

    @Test("R15.10: below a tab root too, a tab controller in a split's secondary column takes the root's size class")
    func r15_10_tabRootReachesNestedTabController() throws {
        var all = TabContainers()
        try all.create("pad", idiom: .pad)
        try all.create("inner", .tab({ var o = TabBarOptions(idiom: .pad); o.window = false; return o }()))
        _ = try all.apply(.setTabs([Tab(id: "x")], animated: false, selected: nil), to: "inner")
        try all.create("s", composite: CompositeSpec(body: .split(SplitState(style: .double, primary: child("p"), secondary: child("q", "inner"))), idiom: .pad))
        var t = Tab(id: "t")
        t.controller = "s"
        _ = try all.apply(.setTabs([t], animated: false, selected: nil), to: "pad")
        _ = all.takeTreeEvents()
        _ = try all.apply(Command.setSizeClass(.compact), to: "pad")
        let events = all.takeTreeEvents()
        #expect(all.node("inner")!.tabBar.sizeClass == .compact)
        #expect(events.contains { $0.controller == "inner" && $0.event.event == .sizeClassChanged })
        #expect(all.inconsistency == nil)
    }

    @Test("R15.41: a detached tab controller keeps the environment it had, silently, and is a root again")
    func r15_41_detachedTabControllerKeepsEnvironment() throws {
        var all = try padDrawerAndTabs()
        _ = try all.apply(.setCenter(child("center", "tabs"), closeDrawer: false), to: "root")
        _ = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "root")
        let o = try all.apply(.setCenter(child("main"), closeDrawer: false), to: "root")
        // Its leaf disappears with it (it was the center), then it is a root again.
        #expect(o.events.filter { $0.controller == "tabs" }.map(\.event.event) == [.appearance, .appearance, .parentChanged])
        #expect(all.node("tabs")!.tabBar.orientation == .landscapeLeft)
        #expect(all.parent(of: "tabs") == nil)
        // A root again: R9.3 applies (its tabs support portrait only).
        let turn = try all.apply(Command.rotate(.portrait), to: "tabs")
        #expect(turn.rotated == true)
        #expect(all.node("tabs")!.tabBar.orientation == .portrait)
    }

    @Test("R15.10, R12: a non-tab root's rotate asks the plugins, who narrow its idiom's orientations")
    func r15_10_nonTabRootRotateAsksPlugins() throws {
        var all = try padDrawerAndTabs()
        let gate = OrientationGate([.portrait, .landscapeLeft])
        let refused = try all.apply(NodeCommand.rotate(.landscapeRight), to: "root", policy: gate)
        #expect(!refused.changed)
        #expect(refused.events.isEmpty)
        #expect(gate.asked == ["root"])
        #expect(all.composites["root"]!.orientation == .portrait)
        let turned = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "root", policy: gate)
        #expect(turned.changed)
        #expect(all.composites["root"]!.orientation == .landscapeLeft)
        // A phone never turns upside down, whatever the plugins say.
        var phone = TabContainers()
        try phone.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a")])), window: true))
        #expect(!(try phone.apply(NodeCommand.rotate(.portraitUpsideDown), to: "nav", policy: OrientationGate(.all))).changed)
    }

    @Test("R15.10, R15.12: an adopted environment survives a snapshot")
    func r15_10_adoptedEnvironmentSurvivesSnapshot() throws {
        var all = try padDrawerAndTabs()
        _ = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "root")
        _ = try all.apply(.setCenter(child("center", "tabs"), closeDrawer: false), to: "root")
        var w = JSONWriter()
        all.writeSnapshot(to: &w)
        var loaded = try TabContainers(snapshot: try w.withBytes { try JSONParser.parse($0, maxDepth: 64) })
        loaded.keepChanges(); all.keepChanges()
        #expect(loaded == all)
        #expect(loaded.node("tabs")!.tabBar.orientation == .landscapeLeft)
    }
}
