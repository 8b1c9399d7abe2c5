// A tab bar controller inside a tree of R15's containers (a drawer's center, a custom
// child): what the tree reads of it (its selected leaf, R15.5 and R15.11) and what an
// ancestor's change does to it (its leaf's content loaded at first appearance, R15.8 a).
// Its commands in the tree: `applyInTree` (TabContent.swift).

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
    /// R15.10: `rotate` and `set_size_class` are the root's; on an attached tab controller
    /// they are `not_available`.
    func checkEnvironment(_ command: Command, of name: String) throws(TabError) {
        // The command first: any other is not looked up (a copy of the controller).
        switch command {
        case .rotate, .setSizeClass, .setOrientation:
            guard let p = nodes[name]?.parent else { return }
            throw TabError(.notAvailable, "'\(name)' is attached to '\(p.parent)'; \(command.name) is for the root of its tree ('\(root(of: name))')")
        default: return
        }
    }
}
