// R6: navigation stacks inside tabs — push, pop and pop_to_root on a tab created with
// `navigation` (a group's stack is its leaf's, R13.8).

extension Controller {
    // MARK: R6 — navigation stacks

    private mutating func navigationTab(_ id: String) throws(TabError) -> [Int] {
        guard let at = locate(id) else { throw .noTab(id) }
        if let kids = self[at: at].children, !kids.isEmpty {
            // R13.8: a group that has children shows its leaf; the stack is the leaf's.
            throw TabError(.notAvailable, "tab '\(id)' is a group: its stack is its leaf's; push or pop '\(shownChildID(of: id) ?? kids[0].id)', the tab it shows")
        }
        guard self[at: at].navigation else {
            throw TabError(.notAvailable, "tab '\(id)' is not a navigation stack (create it with \"navigation\": true)")
        }
        return at
    }

    mutating func push(_ id: String, _ screen: Screen, _ out: inout Outcome) throws(TabError) {
        let at = try navigationTab(id)
        guard !screen.id.isEmpty else { throw TabError(.invalid, "a screen needs a non-empty id") }
        // The depth limit is checked before the command (`ControllerLimits.check`, with
        // `Navigation.fits`), in R6's words.
        try navigate(.push(screen), at: at, id)
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }

    mutating func pop(_ id: String, toRoot: Bool, _ out: inout Outcome) throws(TabError) {
        let at = try navigationTab(id)
        guard try navigate(toRoot ? .popToRoot : .pop, at: at, id) else { return }
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }

    /// R6 through the one navigation model (`Navigation.apply`, the operations of a navigation
    /// controller, R15.13): the tab is its stack's root. Returns whether the stack changed.
    @discardableResult
    mutating func navigate(_ op: Navigation.Operation<Screen>, at: [Int], _ id: String) throws(TabError) -> Bool {
        do {
            if at.count == 1 { return try Navigation.apply(op, to: &tabs[at[0]].stack, .tab) }
            var stack = self[at: at].stack
            guard try Navigation.apply(op, to: &stack, .tab) else { return false }
            modify(at: at) { $0.stack = stack }
            return true
        } catch {
            switch error {
            case .atRoot: throw TabError(.conflict, "tab '\(id)' shows its root screen; the root cannot be popped")  // R6.2
            // R6 has push, pop and pop_to_root on the wire, ids need not be unique and the
            // limit is checked before: the rest are here for the model's other owner's sake.
            case .tooDeep(let above): throw TabError(.outOfRange, "tab '\(id)' would hold \(above) screens on its stack (limits.max_stack_depth)")
            case .alreadyInStack(let s): throw TabError(.conflict, "'\(s)' is already on the stack of tab '\(id)'")
            case .notInStack(let s): throw TabError(.notFound, "no screen '\(s)' on the stack of tab '\(id)'")
            case .noRoot: throw TabError(.invalid, "tab '\(id)' is its stack's root; its stack holds the screens above it")
            }
        }
    }
}
