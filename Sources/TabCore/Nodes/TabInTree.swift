// A tab bar controller inside a tree of R15's containers (a drawer's center, a custom
// child): what the tree reads of it (its selected leaf, R15.5 and R15.11) and what an
// ancestor's change does to it (its leaf's content loaded at first appearance, R15.8 a).

extension Controller {
    /// Whether the tab `id` (anywhere in the tree) has loaded its content; nil when there is none.
    func isLoaded(_ id: String) -> Bool? { locate(id).map { contentLoaded(at: $0) } }

    /// Marks the tab `id`'s content loaded or not.
    mutating func setLoaded(_ id: String, _ loaded: Bool) {
        guard let a = locate(id) else { return }
        modify(at: a) { $0.contentLoaded = loaded }
    }
}

extension TabContainers {
    /// R15.5, R15.10, R15.11 for a tab controller that is not a window's root (attached, or a
    /// root out of its window), once its own command ran: while it is not visible its
    /// appearance goes (its seq with it) and a tab it selected loads at first appearance;
    /// environment commands are the root's; a visible root above it whose status bar path
    /// moved says so (`treeEvents`, which the daemon publishes after the command's own).
    mutating func settleInTree(_ name: String, _ outcome: inout Outcome, pathBefore: [String]?) {
        if !isVisible(name) {
            let (removed, loaded) = outcome.dropAppearance()
            if removed > 0 {
                nodes[name]!.tabBar.seq &-= UInt64(removed)
                for id in loaded { nodes[name]!.tabBar.setLoaded(id, false) }
            }
        }
        let tree = root(of: name)
        if let now = shownStatusBarPath(tree), now != pathBefore {
            var o = NodeOutcome()
            send(.statusBarChanged(path: now), from: tree, &o)
            treeEvents = o.events
            hasTreeEvents = true
        }
    }

    /// R15.10: `rotate` and `set_size_class` are the root's; on an attached tab controller
    /// they are `not_available`.
    func checkEnvironment(_ command: Command, of name: String) throws(TabError) {
        guard let p = nodes[name]?.parent else { return }
        switch command {
        case .rotate, .setSizeClass, .setOrientation:
            throw TabError(.notAvailable, "'\(name)' is attached to '\(p.parent)'; \(command.name) is for the root of its tree ('\(root(of: name))')")
        default: return
        }
    }
}
