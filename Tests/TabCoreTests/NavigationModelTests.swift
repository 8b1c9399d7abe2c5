// Issue 41, item 3 (docs/architecture.md, "One navigation model"): a tab's R6 stack and a
// navigation controller (R15.13) are one model, `Navigation.apply`, with two owners. Generated
// streams of push, pop and pop_to_root go to both; their stacks above the root, and what each
// refuses, must stay the same. R6's stacks stay data (R15.14): the tab's changes send
// `navigation_changed` only, the navigation controller's are transitions.
import TestRandom
import Testing
@testable import TabCore

@Suite("One navigation model (R6, R15.13)")
struct NavigationModelTests {
    enum Op: CustomStringConvertible {
        case push(String), pop, popToRoot
        var description: String {
            switch self { case .push(let id): "push \(id)"; case .pop: "pop"; case .popToRoot: "pop_to_root" }
        }
    }

    /// What an owner did with an operation: its stack above the root afterwards, or the
    /// refusal's code.
    enum Result: Equatable { case stack([String]), refused(TabError.Code) }

    @Test("R6.2 and R15.13 agree: the same stream gives the same stack above the root and the same refusals, whatever the seed")
    func tabStacksAndNavigationControllersAreOneModel() throws {
        var limits = ControllerLimits()
        limits.maxStackDepth = 5
        for seed in UInt64(1)...40 {
            var rng = SplitMix64(seed: seed)
            var all = TabContainers.withDefault()
            _ = try all.apply(.setTabs([Tab(id: "t", navigation: true), Tab(id: "u")], animated: false, selected: nil), to: TabContainers.defaultName)
            try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("t")]))), limits: limits)
            var next = 0
            for step in 0..<60 {
                let op: Op
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5: next += 1; op = .push("s\(next)")
                case 5..<9: op = .pop
                default: op = .popToRoot
                }
                let tab = tabResult(op, &all, limits)
                let nav = navResult(op, &all, limits)
                #expect(tab == nav, "seed \(seed), step \(step), \(op): tab \(tab), navigation controller \(nav)")
                guard tab == nav else { return }
            }
        }
    }

    @Test("R15.14 an R6 stack stays data: a push sends navigation_changed and no appearance; the navigation controller's is a transition")
    func r6StacksStayData() throws {
        var all = TabContainers.withDefault()
        _ = try all.apply(.setTabs([Tab(id: "t", navigation: true)], animated: false, selected: nil), to: TabContainers.defaultName)
        let out = try all.apply(.push(tab: "t", screen: Screen(id: "s")), to: TabContainers.defaultName)
        #expect(out.notifications == [.navigationChanged(tab: "t", stack: [Screen(id: "s")])])
        try all.create("nav", composite: CompositeSpec(body: .navigation(NavigationState(stack: [child("t")]))))
        let pushed = try all.apply(.push(child("s"), animated: false), to: "nav")
        #expect(order(pushed) == ["nav s will_move", "nav s did_move", "nav navigation_changed t,s push app"])
    }

    @Test("the model alone: the root is the owner's (base 0) or the first entry (base 1); pop_to_root and pop_to the top are no-ops")
    func modelRules() throws {
        var tab: [Screen] = []
        #expect(throws: Navigation.Refusal.atRoot) { try Navigation.apply(.pop, to: &tab, .tab) }
        #expect(try Navigation.apply(.popToRoot, to: &tab, .tab) == false)
        try Navigation.apply(.push(Screen(id: "a")), to: &tab, .tab)
        try Navigation.apply(.push(Screen(id: "a")), to: &tab, .tab)  // R6: ids need not be unique
        #expect(tab.map(\.id) == ["a", "a"])
        #expect(throws: Navigation.Refusal.tooDeep(above: 3)) { try Navigation.apply(.push(Screen(id: "b")), to: &tab, .tab, maxAbove: 2) }
        var nav = [child("root")]
        #expect(throws: Navigation.Refusal.atRoot) { try Navigation.apply(.pop, to: &nav, .controller) }
        #expect(throws: Navigation.Refusal.alreadyInStack("root")) { try Navigation.apply(.push(child("root")), to: &nav, .controller) }
        try Navigation.apply(.push(child("a")), to: &nav, .controller)
        #expect(try Navigation.apply(.popTo("a"), to: &nav, .controller) == false)
        #expect(throws: Navigation.Refusal.notInStack("x")) { try Navigation.apply(.popTo("x"), to: &nav, .controller) }
        #expect(throws: Navigation.Refusal.noRoot) { try Navigation.apply(.set([]), to: &nav, .controller) }
        #expect(try Navigation.apply(.popToRoot, to: &nav, .controller) && nav == [child("root")])
    }

    private func tabResult(_ op: Op, _ all: inout TabContainers, _ limits: ControllerLimits) -> Result {
        let command: Command
        switch op {
        case .push(let id): command = .push(tab: "t", screen: Screen(id: id))
        case .pop: command = .pop(tab: "t")
        case .popToRoot: command = .popToRoot(tab: "t")
        }
        do {
            let name = TabContainers.defaultName
            try limits.check(command) { () throws(TabError) -> Controller in try all.controller(name) }
            _ = try all.apply(command, to: name)
        } catch { return .refused(error.code) }
        return .stack((try? all.controller(TabContainers.defaultName))?.tab("t")?.stack.map(\.id) ?? ["?"])
    }

    private func navResult(_ op: Op, _ all: inout TabContainers, _ limits: ControllerLimits) -> Result {
        let command: NodeCommand
        switch op {
        case .push(let id): command = .push(child(id), animated: false)
        case .pop: command = .pop(user: false, animated: false)
        case .popToRoot: command = .popToRoot(animated: false)
        }
        do { _ = try all.apply(command, to: "nav", limits: limits) } catch { return .refused(error.code) }
        guard case .navigation(let n)? = (try? all.composite("nav"))?.body else { return .refused(.notFound) }
        return .stack(n.stack.dropFirst().map(\.id))
    }
}
