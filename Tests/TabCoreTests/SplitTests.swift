// SEMANTICS R15.15–R15.23: the split view controller. Each test is named after the rule it
// checks; events read one per line as ContainerKindsTests writes them.
import Testing
@testable import TabCore

/// A policy that answers the split proposals as told, and counts what it was asked.
final class Proposals: Policy {
    var top: SplitColumn?
    var mode: SplitDisplayMode?
    var asked: [String] = []
    init(top: SplitColumn? = nil, mode: SplitDisplayMode? = nil) { self.top = top; self.mode = mode }
    func topColumnForCollapsing(proposed: SplitColumn, style: SplitStyle, controller: String) -> SplitColumn {
        asked.append("top \(controller) \(proposed.rawValue)")
        return top ?? proposed
    }
    func displayModeForExpanding(proposed: SplitDisplayMode, behavior: SplitBehavior, style: SplitStyle, controller: String) -> SplitDisplayMode {
        asked.append("mode \(controller) \(proposed.rawValue)")
        return mode ?? proposed
    }
}

/// The split `s` on a pad, a window's root, turned to `orientation` (landscape tiles).
func padSplit(_ style: SplitStyle = .double, compact: ChildObject? = nil, orientation: Orientation = .landscapeLeft,
              preferred: SplitDisplayMode? = nil, behavior: SplitBehavior? = nil, window: Bool = true,
              primary: ChildObject = child("list"), secondary: ChildObject = child("detail")) throws -> TabContainers {
    var all = TabContainers.withDefault()
    let body = CompositeBody.split(SplitState(style: style, primary: primary, supplementary: style == .triple ? child("middle") : nil,
                                              secondary: secondary, compact: compact))
    try all.create("s", composite: CompositeSpec(body: body, window: window, idiom: .pad,
                                                 configuration: NodeConfiguration(preferredDisplayMode: preferred, preferredSplitBehavior: behavior)))
    if orientation != .portrait { _ = try all.apply(NodeCommand.rotate(orientation), to: "s") }
    return all
}

func split(_ all: TabContainers, _ name: String = "s") -> SplitState {
    guard case .split(let s)? = all.composites[name]?.body else { fatalError("no split '\(name)'") }
    return s
}

@Suite("R15 split view controller")
struct SplitTests {
    @Test("R15.15 the style is fixed: triple needs a supplementary column, double has none, compact is never shown or hidden")
    func style() throws {
        var all = TabContainers.withDefault()
        let triple = CompositeBody.split(SplitState(style: .triple, primary: child("a"), secondary: child("b")))
        do { try all.create("t", composite: CompositeSpec(body: triple)); Issue.record("a triple split without supplementary") } catch {
            #expect(error.code == .invalid)
        }
        let double = CompositeBody.split(SplitState(style: .double, primary: child("a"), supplementary: child("m"), secondary: child("b")))
        do { try all.create("d", composite: CompositeSpec(body: double)); Issue.record("a double split with supplementary") } catch {
            #expect(error.code == .notAvailable)
        }
        all = try padSplit()
        let before = all
        #expect(throws: TabError.self) { try all.apply(.setColumn(.supplementary, child("m")), to: "s") }
        do { _ = try all.apply(.showColumn(.compact, user: false, animated: false), to: "s"); Issue.record("compact shown") } catch {
            #expect(error.code == .invalid)
        }
        do { _ = try all.apply(.setColumn(.primary, nil), to: "s"); Issue.record("primary emptied") } catch { #expect(error.code == .invalid) }
        #expect(all == before)
    }

    @Test("R15.16 set_column is a set change: the old child leaves with its disappearance, the new one enters, then appears")
    func setColumn() throws {
        var all = try padSplit()
        #expect(split(all).displayMode == .oneBeside)
        let o = try all.apply(.setColumn(.primary, child("folders")), to: "s")
        #expect(order(o) == [
            "s list will_move nil", "s list will_disappear", "s list did_disappear", "s list did_move nil",
            "s folders will_move", "s folders did_move",
            "s folders will_appear", "s folders did_appear",
            "s split_changed one_beside primary,secondary top - app",
        ])
        #expect(try all.apply(.setColumn(.primary, child("folders")), to: "s").changed == false)
    }

    @Test("R15.17 behavior and mode derive from the preferences and the orientation; two_* on double is not_available")
    func derivation() throws {
        #expect(SplitState.behavior(preferred: .automatic, orientation: .landscapeRight) == .tile)
        #expect(SplitState.behavior(preferred: .automatic, orientation: .portrait) == .overlay)
        #expect(SplitState.behavior(preferred: .displace, orientation: .portrait) == .displace)
        let table: [(SplitDisplayMode, SplitBehavior, SplitDisplayMode)] = [
            (.automatic, .tile, .oneBeside), (.automatic, .displace, .oneBeside), (.automatic, .overlay, .secondaryOnly),
            (.secondaryOnly, .tile, .secondaryOnly), (.oneOver, .tile, .oneBeside), (.oneBeside, .overlay, .oneOver),
            (.twoBeside, .overlay, .twoOver), (.twoOver, .displace, .twoDisplace), (.twoDisplace, .tile, .twoBeside),
        ]
        for (preferred, behavior, mode) in table { #expect(SplitState.displayMode(preferred: preferred, behavior: behavior) == mode) }

        var all = try padSplit(.triple)
        var o = try all.apply(.configure(NodeConfiguration(preferredDisplayMode: .twoBeside)), to: "s")
        #expect(order(o) == [
            "s config_changed preferred_display_mode", "s display_mode_will_change two_beside",
            "s list will_appear", "s list did_appear",
            "s split_changed two_beside primary,supplementary,secondary top - app",
        ])
        // Turned to portrait, the behavior overlays: two_over, the same columns on screen.
        o = try all.apply(NodeCommand.rotate(.portrait), to: "s")
        #expect(order(o) == ["s orientation_changed landscape_left portrait", "s display_mode_will_change two_over",
                             "s split_changed two_over primary,supplementary,secondary top - environment"])
        var double = try padSplit()
        let before = double
        do { _ = try double.apply(.configure(NodeConfiguration(preferredDisplayMode: .twoOver)), to: "s"); Issue.record("two_over on double") } catch {
            #expect(error.code == .notAvailable)
        }
        #expect(double == before)
    }

    @Test("R15.18 the visible columns follow the display mode; an overlaid secondary is still visible")
    func visibleColumns() throws {
        var s = SplitState(style: .triple, primary: child("p"), supplementary: child("m"), secondary: child("d"))
        s.displayMode = .secondaryOnly; #expect(s.visibleColumns == [.secondary])
        s.displayMode = .oneOver; #expect(s.visibleColumns == [.supplementary, .secondary])
        s.displayMode = .twoDisplace; #expect(s.visibleColumns == [.primary, .supplementary, .secondary])
        var d = try padSplit(orientation: .portrait, preferred: .oneOver)
        #expect(split(d).displayMode == .oneOver && split(d).visibleColumns == [.primary, .secondary])
        let shown = d.visibleChildren(under: "s").map(\.child.id)  // read in place (mutating)
        #expect(shown == ["list", "detail"])
    }

    @Test("R15.19 R15.23 hide_column primary on double one_beside: will change, primary's subtree disappears, split_changed; the secondary nothing; a user's show or hide needs presents_with_gesture")
    func showHideExpanded() throws {
        var all = TabContainers.withDefault()
        try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("inbox")])), idiom: .pad))
        let body = CompositeBody.split(SplitState(style: .double, primary: child("boxes", "nav"), secondary: child("msg")))
        try all.create("s", composite: CompositeSpec(body: body, window: true, idiom: .pad))
        _ = try all.apply(NodeCommand.rotate(.landscapeLeft), to: "s")
        var o = try all.apply(.hideColumn(.primary, user: false, animated: true), to: "s")
        #expect(order(o) == [
            "s display_mode_will_change secondary_only",
            "s boxes will_disappear", "nav inbox will_disappear", "s boxes did_disappear", "nav inbox did_disappear",
            "s split_changed secondary_only secondary top - app",
        ])
        #expect(try all.apply(.hideColumn(.secondary, user: false, animated: false), to: "s").changed == false)
        #expect(try all.apply(.showColumn(.secondary, user: false, animated: false), to: "s").changed == false)  // shown in full
        o = try all.apply(.showColumn(.primary, user: true, animated: false), to: "s")
        #expect(order(o).last == "s split_changed one_beside primary,secondary top - user")
        // The secondary under two_displace or *_over is not in full view: show moves the mode.
        var t = try padSplit(.triple, preferred: .twoDisplace, behavior: .displace)
        #expect(split(t).displayMode == .twoDisplace)
        _ = try t.apply(.showColumn(.secondary, user: false, animated: false), to: "s")
        #expect(split(t).displayMode == .oneBeside)
        var over = try padSplit(orientation: .portrait, preferred: .oneOver)
        _ = try over.apply(.showColumn(.secondary, user: false, animated: false), to: "s")
        #expect(split(over).displayMode == .secondaryOnly)
        // A user's show or hide needs presents_with_gesture.
        _ = try over.apply(.configure(NodeConfiguration(presentsWithGesture: false)), to: "s")
        do { _ = try over.apply(.showColumn(.primary, user: true, animated: false), to: "s"); Issue.record("a gesture without presents_with_gesture") } catch {
            #expect(error.code == .notAvailable && error.message.contains("presents_with_gesture"))
        }
        #expect(try over.apply(.showColumn(.primary, user: false, animated: false), to: "s").changed)
    }

    @Test("R15.20 collapse: the plugins choose the top column (proposed secondary); a compact child alone is shown, unasked")
    func collapse() throws {
        var all = try padSplit(.triple)
        let plugins = Proposals(top: .supplementary)
        let o = try all.apply(NodeCommand.setSizeClass(.compact), to: "s", policy: plugins)
        #expect(plugins.asked == ["top s secondary"])
        #expect(order(o) == [
            "s size_class_changed compact",
            "s detail will_disappear", "s detail did_disappear",
            "s split_collapsed supplementary",
            "s split_changed one_beside supplementary top supplementary environment", "s status_bar_changed middle",
        ])
        #expect(o.answers == [ProposalAnswer(controller: "s", .topColumn(.supplementary))])
        #expect(split(all).collapsedStack == [.primary, .supplementary])
        // Collapsed, the columns are a stack: show pushes, hide pops the top, primary stays.
        _ = try all.apply(.showColumn(.secondary, user: false, animated: false), to: "s")
        #expect(split(all).collapsedStack == [.primary, .supplementary, .secondary])
        _ = try all.apply(.showColumn(.primary, user: false, animated: false), to: "s")
        #expect(split(all).topColumn == .primary)
        #expect(try all.apply(.hideColumn(.primary, user: false, animated: false), to: "s").changed == false)
        // An invalid answer keeps the proposal.
        var bad = try padSplit()
        _ = try bad.apply(NodeCommand.setSizeClass(.compact), to: "s", policy: Proposals(top: .compact))
        #expect(split(bad).topColumn == .secondary)
        // With a compact child, no plugin is asked; show and hide are ignored.
        var withCompact = try padSplit(compact: child("phone"))
        let asked = Proposals(top: .primary)
        let c = try withCompact.apply(NodeCommand.setSizeClass(.compact), to: "s", policy: asked)
        #expect(asked.asked.isEmpty && split(withCompact).topColumn == .compact)
        #expect(order(c).contains("s phone will_appear"))
        #expect(try withCompact.apply(.showColumn(.primary, user: false, animated: false), to: "s").changed == false)
    }

    @Test("R15.21 expand: the plugins answer the display mode (one the style or behavior forbids is ignored); will change only if it differs")
    func expand() throws {
        var all = try padSplit(.triple)
        _ = try all.apply(NodeCommand.setSizeClass(.compact), to: "s")
        let plugins = Proposals(mode: .twoBeside)
        let o = try all.apply(NodeCommand.setSizeClass(.regular), to: "s", policy: plugins)
        #expect(plugins.asked == ["mode s one_beside"])
        #expect(order(o) == [
            "s size_class_changed regular", "s display_mode_will_change two_beside",
            "s list will_appear", "s middle will_appear", "s list did_appear", "s middle did_appear",
            "s split_expanded two_beside", "s split_changed two_beside primary,supplementary,secondary top - environment",
        ])
        var d = try padSplit()
        _ = try d.apply(NodeCommand.setSizeClass(.compact), to: "s")
        let o2 = try d.apply(NodeCommand.setSizeClass(.regular), to: "s", policy: Proposals(mode: .twoOver))  // forbidden on double under tile
        #expect(split(d).displayMode == .oneBeside)
        #expect(!order(o2).contains { $0.contains("display_mode_will_change") })
    }

    @Test("R15.22 R15.38 show_detail replaces the secondary and shows it, will change after the containment; collapsed it is pushed")
    func showDetail() throws {
        var all = try padSplit(orientation: .portrait, preferred: .oneOver)
        let o = try all.apply(.showDetail(child("msg2"), animated: true), to: "s")
        #expect(order(o) == [
            "s detail will_move nil", "s detail will_disappear", "s detail did_disappear", "s detail did_move nil",
            "s msg2 will_move", "s msg2 did_move",
            "s display_mode_will_change secondary_only",
            "s list will_disappear", "s msg2 will_appear", "s list did_disappear", "s msg2 did_appear",
            "s split_changed secondary_only secondary top - app", "s status_bar_changed msg2",
        ])
        #expect(try all.apply(.showDetail(child("msg2"), animated: false), to: "s").changed == false)
        var collapsed = try padSplit()
        _ = try collapsed.apply(NodeCommand.setSizeClass(.compact), to: "s", policy: Proposals(top: .primary))
        _ = try collapsed.apply(.showDetail(child("msg3"), animated: false), to: "s")
        #expect(split(collapsed).topColumn == .secondary && split(collapsed).secondary.id == "msg3")
    }

    @Test("R15.3 a split is never in a stack or a split; a tab controller only in its secondary or compact column")
    func attachLimits() throws {
        var all = try padSplit()
        _ = try all.apply(.setWindow(false), to: "s")
        try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("root")])), idiom: .pad))
        do { _ = try all.apply(.push(child("x", "s"), animated: false), to: "nav"); Issue.record("a split pushed") } catch { #expect(error.code == .conflict) }
        let inner = CompositeBody.split(SplitState(style: .double, primary: child("a"), secondary: child("b")))
        try all.create("inner", composite: CompositeSpec(body: inner, idiom: .pad))
        do { _ = try all.apply(.setColumn(.secondary, child("x", "inner")), to: "s"); Issue.record("a split in a split") } catch { #expect(error.code == .conflict) }
        var options = TabBarOptions(idiom: .pad)
        options.window = false
        try all.create("tabs", .tab(options))
        do { _ = try all.apply(.setColumn(.primary, child("t", "tabs")), to: "s"); Issue.record("a tab controller as primary") } catch {
            #expect(error.code == .conflict && error.message.contains("secondary or compact"))
        }
        #expect(try all.apply(.setColumn(.secondary, child("t", "tabs")), to: "s").changed)
        #expect(all.parent(of: "tabs") == Attachment(parent: "s", slot: "t"))
    }

    @Test("R15.9 a user action below a dimmed secondary is not_available; the app's is not")
    func dimmedSecondary() throws {
        var all = TabContainers.withDefault()
        try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("a"), child("b")])), idiom: .pad))
        let body = CompositeBody.split(SplitState(style: .double, primary: child("list"), secondary: child("d", "nav")))
        try all.create("s", composite: CompositeSpec(body: body, window: true, idiom: .pad,
                                                     configuration: NodeConfiguration(preferredDisplayMode: .oneOver)))
        #expect(split(all).displayMode == .oneOver)
        do { _ = try all.apply(.pop(user: true, animated: false), to: "nav"); Issue.record("a pop under a dimmed secondary") } catch {
            #expect(error.code == .notAvailable && error.message.contains("dimmed"))
        }
        #expect(try all.apply(.pop(user: false, animated: false), to: "nav").changed)
    }

    @Test("R15.10 R15.41 a split attached under a compact root adopts its environment silently, collapsed as if it always had been; detached it keeps it")
    func adoption() throws {
        var all = TabContainers.withDefault()
        let body = CompositeBody.split(SplitState(style: .double, primary: child("list"), secondary: child("detail")))
        try all.create("s", composite: CompositeSpec(body: body, idiom: .pad))
        #expect(!split(all).collapsed)
        try all.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c"))), window: true, idiom: .pad))
        _ = try all.apply(NodeCommand.setSizeClass(.compact), to: "root")
        let plugins = Proposals(top: .primary)
        let o = try all.apply(.setCenter(child("main", "s"), closeDrawer: false), to: "root", policy: plugins)
        #expect(split(all).topColumn == .primary && all.composites["s"]!.sizeClass == .compact)
        #expect(!order(o).contains { $0.contains("split_") })
        #expect(order(o).contains("s list will_appear"))
        #expect(o.answers == [ProposalAnswer(controller: "s", .topColumn(.primary))])
        // Replayed with the answers it got, the same; a detached split keeps the environment (R15.41).
        var replayed = TabContainers.withDefault()
        try replayed.create("s", composite: CompositeSpec(body: body, idiom: .pad))
        try replayed.create("root", composite: CompositeSpec(body: .drawer(DrawerState(center: child("c"))), window: true, idiom: .pad))
        _ = try replayed.apply(NodeCommand.setSizeClass(.compact), to: "root")
        _ = try replayed.apply(.setCenter(child("main", "s"), closeDrawer: false), to: "root", policy: RecordedProposals(o.answers), replaying: true)
        #expect(split(replayed) == split(all))
        _ = try all.apply(.setCenter(child("c"), closeDrawer: false), to: "root")
        #expect(all.parent(of: "s") == nil && split(all).collapsed && all.composites["s"]!.sizeClass == .compact)
    }

    @Test("R15.40 collapsed, configure and rotate store their values and change no display_mode; the expand proposes R15.17's mode from the current values")
    func collapsedKeepsItsMode() throws {
        var all = try padSplit(preferred: .oneBeside, behavior: .tile)
        _ = try all.apply(NodeCommand.setSizeClass(.compact), to: "s")
        #expect(split(all).collapsed && split(all).displayMode == .oneBeside)
        let configured = try all.apply(.configure(NodeConfiguration(preferredDisplayMode: .secondaryOnly)), to: "s")
        #expect(split(all).displayMode == .oneBeside && split(all).preferredDisplayMode == .secondaryOnly)
        #expect(!order(configured).contains { $0.contains("display_mode_will_change") })
        let turned = try all.apply(NodeCommand.rotate(.portrait), to: "s")
        #expect(split(all).displayMode == .oneBeside && !order(turned).contains { $0.contains("display_mode_will_change") })
        let expanded = try all.apply(NodeCommand.setSizeClass(.regular), to: "s")
        #expect(!split(all).collapsed && split(all).displayMode == .secondaryOnly)
        let lines = order(expanded)
        let will = lines.firstIndex { $0.contains("display_mode_will_change secondary_only") }
        let done = lines.firstIndex { $0.contains("split_expanded secondary_only") }
        #expect(will != nil && done != nil && will! < done!)
    }

    @Test("R15.36 an invisible split changes with its state event only")
    func invisible() throws {
        var all = try padSplit(window: false)
        let o = try all.apply(.hideColumn(.primary, user: false, animated: false), to: "s")
        #expect(order(o) == ["s split_changed secondary_only secondary top - app"])
        let c = try all.apply(NodeCommand.setSizeClass(.compact), to: "s")
        #expect(order(c) == ["s size_class_changed compact", "s split_changed secondary_only secondary top secondary environment"])
    }

    @Test("R15.11 a split's status bar child: the top column's collapsed, else the secondary's")
    func statusBar() throws {
        var all = try padSplit()
        #expect(all.statusBarPath(of: "s") == ["detail"])
        let o = try all.apply(NodeCommand.setSizeClass(.compact), to: "s", policy: Proposals(top: .primary))
        #expect(all.statusBarPath(of: "s") == ["list"])
        #expect(order(o).last == "s status_bar_changed list")
    }

    @Test("R15.20 a phone split is collapsed from its creation, asking the plugins once")
    func phoneCreation() throws {
        var all = TabContainers.withDefault()
        let body = CompositeBody.split(SplitState(style: .double, primary: child("list"), secondary: child("detail")))
        let plugins = Proposals(top: .primary)
        let o = try all.create("s", composite: CompositeSpec(body: body, window: true), policy: plugins)
        #expect(plugins.asked == ["top s secondary"] && split(all).topColumn == .primary)
        #expect(order(o) == ["s list will_move", "s list did_move", "s detail will_move", "s detail did_move", "s list will_appear", "s list did_appear"])
        var replayed = TabContainers.withDefault()
        try replayed.create("s", composite: CompositeSpec(body: body, window: true, answers: o.answers))
        #expect(replayed == all)
    }
}
