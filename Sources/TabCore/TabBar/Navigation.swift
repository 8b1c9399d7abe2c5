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
        if at.count == 1 {
            tabs[at[0]].stack.append(screen)
        } else {
            modify(at: at) { $0.stack.append(screen) }
        }
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }

    mutating func pop(_ id: String, toRoot: Bool, _ out: inout Outcome) throws(TabError) {
        let at = try navigationTab(id)
        if self[at: at].stack.isEmpty {
            if toRoot { return }
            throw TabError(.conflict, "tab '\(id)' shows its root screen; the root cannot be popped")
        }
        modify(at: at) { t in if toRoot { t.stack.removeAll() } else { t.stack.removeLast() } }
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }
}
