// The split view controller's commands and its answers to the environment (R15.15–R15.23).
// A split's columns change as any container's children do (a set change, R15.6); what it
// shows follows from its display mode, or, collapsed, from its top column; the root's size
// class collapses and expands it, its orientation and preferences derive its mode (R15.17).
// Where the source leaves the choice to the app, plugins answer (R15.33) and the command's
// outcome keeps their answers for the journal.

extension TabContainers {
    /// The environment a container lives in (R15.10): its root's.
    func environment(of name: String) -> (idiom: Idiom, sizeClass: SizeClass, orientation: Orientation) {
        let top = root(of: name)
        // R15.10: a tab root's (a split in one of its tabs).
        if composites[top] == nil, let t = nodes[top] { return (t.tabBar.idiom, t.tabBar.sizeClass, t.tabBar.orientation) }
        let r = composites[top] ?? composites[name]!
        return (r.idiom, r.sizeClass, r.orientation)
    }

    /// R15.20: a split collapses when its environment is compact (a phone always; a pad
    /// with size_class compact).
    static func isCompact(_ idiom: Idiom, _ sizeClass: SizeClass) -> Bool { idiom == .phone || sizeClass == .compact }

    /// R15.20: the column on top of a split collapsing: its compact child's, else the plugins'
    /// answer (proposed `secondary`; an answer the style cannot take is ignored).
    func collapsingTop(_ name: String, _ s: SplitState, policy: Policy, _ outcome: inout NodeOutcome) -> SplitColumn {
        if s.compact != nil { return .compact }
        var top = policy.topColumnForCollapsing(proposed: .secondary, style: s.style, controller: name)
        if top == .compact || s.child(in: top) == nil { top = .secondary }
        outcome.answers.append(ProposalAnswer(controller: name, .topColumn(top)))
        return top
    }

    /// R15.21: the display mode of a split expanding: R15.17's, or the plugins' answer if
    /// the style and behavior allow it.
    func expandingMode(_ name: String, _ s: SplitState, behavior: SplitBehavior, proposed: SplitDisplayMode, policy: Policy,
                       _ outcome: inout NodeOutcome) -> SplitDisplayMode {
        var mode = policy.displayModeForExpanding(proposed: proposed, behavior: behavior, style: s.style, controller: name)
        if !mode.isAllowed(under: behavior, style: s.style) { mode = proposed }
        outcome.answers.append(ProposalAnswer(controller: name, .displayMode(mode)))
        return mode
    }

    /// A split as its environment makes it (R15.17, R15.20, R15.21, R15.40): collapsed when
    /// compact (display mode kept), expanded with the derived or answered mode when regular.
    func settled(_ name: String, _ s: SplitState, idiom: Idiom, sizeClass: SizeClass, orientation: Orientation, policy: Policy,
                 _ outcome: inout NodeOutcome) -> SplitState {
        var n = s
        let (behavior, mode) = s.derived(orientation: orientation)
        n.splitBehavior = behavior
        if Self.isCompact(idiom, sizeClass) {
            if n.topColumn == nil { n.topColumn = collapsingTop(name, n, policy: policy, &outcome) }
        } else if n.topColumn != nil {
            n.topColumn = nil
            n.displayMode = expandingMode(name, n, behavior: behavior, proposed: mode, policy: policy, &outcome)
        } else {
            n.displayMode = mode
        }
        return n
    }

    /// R15.10: the environment of the root `root` reaches every container below it, in
    /// pre-order (each keeps it, so that a detached one still has it, R15.41); each split
    /// settles into it, each tab controller takes its size class and orientation. `events`: a
    /// change sends its events (an environment command; a tab controller's are its own,
    /// R15.8 c); without, the adoption is silent (a container attached under the root).
    mutating func spreadEnvironment(below root: String, from start: String? = nil, events: Bool, policy: Policy, _ outcome: inout NodeOutcome) {
        let (idiom, sizeClass, orientation) = environment(of: root)
        var order: [String] = []
        collectControllers(start ?? root, into: &order)
        for x in order {
            guard let c = composites[x] else {
                if x != root { adoptEnvironment(x, sizeClass: sizeClass, orientation: orientation, events: events, &outcome) }
                continue
            }
            if c.sizeClass != sizeClass || c.orientation != orientation {
                saveComposite(x)
                composites[x]!.sizeClass = sizeClass
                composites[x]!.orientation = orientation
            }
            guard case .split(let s) = c.body else { continue }
            let n = settled(x, s, idiom: idiom, sizeClass: sizeClass, orientation: orientation, policy: policy, &outcome)
            guard n != s else { continue }
            if events {
                changeSplit(x, to: n, order: .visibility, cause: .environment, policy: policy, &outcome)
            } else {
                saveComposite(x)
                composites[x]!.body = .split(n)
            }
        }
    }

    /// R15.10: the attached tab controller `x` takes its root's size class (a pad's; another
    /// idiom has one size class, and R15.3 keeps idioms apart) and orientation, whether or
    /// not its tabs support it (R9.1/R9.4 are a root's). With `events`, its own
    /// notifications, as R14.4's set_size_class and R9.3's rotation send them (appearance
    /// only if it is visible, R15.5; a tab it shows or hides so expanded into the tab's
    /// content, R15.8 a); without, silently: its seq does not move.
    mutating func adoptEnvironment(_ x: String, sizeClass: SizeClass, orientation: Orientation, events: Bool, _ outcome: inout NodeOutcome) {
        guard let t = nodes[x]?.tabBar else { return }
        let size = t.idiom == .pad ? sizeClass : t.sizeClass
        guard t.sizeClass != size || t.orientation != orientation else { return }
        saveWhole(x)
        recent = Recent()
        let seq = t.seq
        let visible = events && isVisible(x)
        // R15.8 a: a selection the new size class moves expands into the tabs' content.
        let expands = visible && nodes[x]!.holdsContent
        nodes[x]!.tabBar.followsTree = true
        var commands: [Command] = []
        if t.sizeClass != size { commands.append(.setSizeClass(size)) }
        if t.orientation != orientation { commands.append(.setOrientation(orientation)) }
        for command in commands {
            let before = expands ? visibleChildren(below: x) : []
            guard var o = try? nodes[x]!.tabBar.apply(command) else { continue }
            if !visible {
                let (removed, loaded) = o.dropAppearance()
                nodes[x]!.tabBar.seq &-= UInt64(removed)
                for id in loaded { nodes[x]!.tabBar.setLoaded(id, false) }
            }
            guard events else { continue }
            // Numbered by `send`, as the controller numbered them.
            nodes[x]!.tabBar.seq &-= UInt64(o.notifications.count)
            let after = expands ? visibleChildren(below: x) : []
            let beforeKeys = VisibleKeys(before), afterKeys = VisibleKeys(after)
            var expanded = Expanded()
            for n in o.notifications {
                send(.tab(n), from: x, &outcome)
                guard expands, case .appearance(let tab, let phase) = n else { continue }
                expand(x, tab: tab, phase: phase, before: before, after: after, beforeKeys: beforeKeys, afterKeys: afterKeys, expanded: &expanded, &outcome)
            }
        }
        nodes[x]!.tabBar.followsTree = false
        if !events { nodes[x]!.tabBar.seq = seq }
    }

    /// The controllers from `name` down (tab controllers and the content of their tabs
    /// included), in pre-order.
    private func collectControllers(_ name: String, into out: inout [String], depth: Int = 0) {
        guard depth <= Self.maxChain * 2 else { return }
        if let c = composites[name] {
            out.append(name)
            for child in c.body.children { if let x = child.controller { collectControllers(x, into: &out, depth: depth + 1) } }
        } else if let t = nodes[name] {
            out.append(name)
            // A tab controller's content controllers (R15.2), in its tabs' order.
            if t.holdsContent { for child in t.tabBar.contents { collectControllers(child.controller!, into: &out, depth: depth + 1) } }
        }
    }

    /// A split's change and its events (R15.8 b): `display_mode_will_change` when an expanded,
    /// visible split's mode changes (R15.17, R15.21, R15.36); the step's containment and
    /// appearance; `split_collapsed` or `split_expanded`; then `split_changed`. Returns the
    /// controllers the step detached and attached.
    @discardableResult
    mutating func changeSplit(_ name: String, to new: SplitState, order: StepOrder, cause: NodeCause, policy: Policy,
                              _ outcome: inout NodeOutcome) -> (detached: [String], attached: [String]) {
        guard case .split(let old) = composites[name]!.body else { return ([], []) }
        let visible = isVisibleInPlace(name)
        let willChange = visible && !new.collapsed && new.displayMode != old.displayMode
        var between: [NodeEvent] = []
        if willChange {
            // R15.38: in show_detail after the children's containment; else first.
            if order == .setChange { between = [.displayModeWillChange(new.displayMode)] } else { send(.displayModeWillChange(new.displayMode), from: name, &outcome) }
        }
        let moved = step(name, to: .split(new), order, policy: policy, between: between, &outcome)
        if visible && old.collapsed != new.collapsed {
            send(new.collapsed ? .splitCollapsed(topColumn: new.topColumn!) : .splitExpanded(displayMode: new.displayMode), from: name, &outcome)
        }
        send(.splitChanged(SplitChange(new), cause: cause), from: name, &outcome)
        return moved
    }

    /// A split command (R15.16, R15.19, R15.20, R15.22) or a split's `configure` (R15.17):
    /// the split's new state, or nil for a no-op. Checks first; changes nothing.
    func splitTarget(_ command: NodeCommand, _ name: String, _ s: SplitState, _ c: Composite, policy: Policy, replaying: Bool,
                     limits: ControllerLimits, _ outcome: inout NodeOutcome) throws(TabError) -> (SplitState, StepOrder)? {
        func column(_ col: SplitColumn) throws(TabError) {
            if col == .supplementary && s.style == .double {
                throw TabError(.notAvailable, "'\(name)' is a double split; only a triple split has a supplementary column", field: "column")
            }
        }
        switch command {
        case .setColumn(let col, let child):
            try column(col)
            guard child != nil || col == .compact else {
                throw TabError(.invalid, "the \(col.rawValue) column of '\(name)' cannot be empty; only compact may be null", field: "child")
            }
            guard child?.id != s.child(in: col)?.id || child?.controller != s.child(in: col)?.controller else { return nil }
            var n = s
            n.set(col, child)
            try checkColumns(n, name: name, entering: ChildObject.children(CompositeBody.split(n).children, notIn: CompositeBody.split(s).children),
                             idiom: c.idiom, limits: limits)
            if n.collapsed {
                // R15.20: a compact child alone is shown; without one, the plugins choose again.
                if n.compact != nil { n.topColumn = .compact } else if s.compact != nil { n.topColumn = collapsingTop(name, n, policy: policy, &outcome) }
            }
            return (n, .setChange)
        case .showColumn(let col, let user, _), .hideColumn(let col, let user, _):
            let show: Bool
            if case .showColumn = command { show = true } else { show = false }
            guard col != .compact else { throw TabError(.invalid, "the compact column is shown only when '\(name)' is collapsed; \(command.name) takes primary, supplementary or secondary", field: "column") }
            try column(col)
            if user && !replaying {
                guard s.presentsWithGesture else { throw TabError(.notAvailable, "'\(name)' has presents_with_gesture false, so a user cannot \(show ? "show" : "hide") a column; configure it, or send the command without \"user\"") }
                try checkReach(name, command: "\(show ? "show" : "hide") a column", userPop: false)
            }
            var n = s
            if let top = s.topColumn {
                // R15.20: collapsed, the columns are a stack; a compact child ignores both.
                guard top != .compact else { return nil }
                let stack = s.stackColumns
                if show {
                    guard col != top else { return nil }
                    n.topColumn = col
                } else {
                    guard col == top, col != .primary, let i = stack.firstIndex(of: col) else { return nil }
                    n.topColumn = stack[i - 1]
                }
                return (n, .visibility)
            }
            guard let mode = show ? Self.shown(col, s) : Self.hidden(col, s) else { return nil }
            n.displayMode = mode
            return (n, .visibility)
        case .showDetail(let child, _):
            guard child.id != s.secondary.id || child.controller != s.secondary.controller else { return nil }
            var n = s
            n.secondary = child
            try checkColumns(n, name: name, entering: ChildObject.children([child], notIn: CompositeBody.split(s).children), idiom: c.idiom, limits: limits)
            if let top = n.topColumn {
                if top != .compact { n.topColumn = .secondary }
            } else if let mode = Self.shown(.secondary, n) {
                n.displayMode = mode
            }
            return (n, .setChange)
        default:
            throw TabError(.internal, "\(command.name) reached split '\(name)' unchecked")
        }
    }

    /// R15.19: the mode after showing `col` expanded, or nil when it is shown in full already.
    static func shown(_ col: SplitColumn, _ s: SplitState) -> SplitDisplayMode? {
        guard !s.isFullyVisible(col) else { return nil }
        switch col {
        case .primary: return SplitDisplayMode.variant(besides: s.style == .triple ? 2 : 1, under: s.splitBehavior)
        case .supplementary: return SplitDisplayMode.variant(besides: 1, under: s.splitBehavior)
        case .secondary: return s.displayMode == .twoDisplace ? .oneBeside : .secondaryOnly
        case .compact: return nil
        }
    }

    /// R15.19: the mode after hiding `col` expanded, or nil when the hide is ignored.
    static func hidden(_ col: SplitColumn, _ s: SplitState) -> SplitDisplayMode? {
        guard col != .secondary, s.visibleColumns.contains(col) else { return nil }
        if col == .primary && s.displayMode.besides == 2 { return SplitDisplayMode.variant(besides: 1, under: s.splitBehavior) }
        return .secondaryOnly
    }

    /// R15.3 and R15.15 for a split's columns: ids unique and bounded; a tab controller only
    /// in the secondary or compact column; another split never; the rest as any container's.
    func checkColumns(_ s: SplitState, name: String, entering: [ChildObject], idiom: Idiom, limits: ControllerLimits) throws(TabError) {
        try Self.checkChildren(CompositeBody.split(s).children, limits: limits)
        for (col, child) in s.columns {
            guard let x = child.controller, entering.contains(where: { $0.identity == child.identity }) else { continue }
            if nodes[x] != nil, col != .secondary, col != .compact {
                throw TabError(.conflict, "tab controller '\(x)' cannot be the \(col.rawValue) column of '\(name)'; a tab controller goes only in a split's secondary or compact column")
            }
        }
        try checkAttach(entering, to: name, kind: .split, idiom: idiom, above: chainAbove(name))
    }

    /// A command of the split `name` (or its `configure`): checked, then its change and events.
    mutating func applySplit(_ command: NodeCommand, to name: String, _ s: SplitState, _ c: Composite, policy: Policy, replaying: Bool,
                             limits: ControllerLimits) throws(TabError) -> NodeOutcome {
        var outcome = NodeOutcome()
        var first: [NodeEvent] = []
        let target: (SplitState, StepOrder)?
        if case .configure(let config) = command {
            guard case .split(var n) = try Self.configured(c.body, config, name: name) else { throw TabError(.internal, "configure changed the kind of '\(name)'") }
            try Self.checkPreferences(n, name: name)
            if n.preferredDisplayMode != s.preferredDisplayMode || n.preferredSplitBehavior != s.preferredSplitBehavior {
                // R15.17: re-derived; collapsed, the mode is kept (R15.40).
                let (behavior, mode) = n.derived(orientation: environment(of: name).orientation)
                n.splitBehavior = behavior
                if !n.collapsed { n.displayMode = mode }
            }
            guard n != s else { return NodeOutcome() }
            first = [.configChanged(config)]
            target = (n, .visibility)
        } else {
            target = try splitTarget(command, name, s, c, policy: policy, replaying: replaying, limits: limits, &outcome)
        }
        guard let (n, order) = target else { return NodeOutcome() }
        outcome.changed = true
        let path = shownStatusBarPath(rootInPlace(of: name))
        for e in first { send(e, from: name, &outcome) }
        let moved = changeSplit(name, to: n, order: order, cause: command.isUserAction ? .user : .app, policy: policy, &outcome)
        let reattached = Set(moved.attached)
        finish(name, detached: moved.detached.filter { !reattached.contains($0) }, attached: moved.attached, pathBefore: path, &outcome)
        return outcome
    }

    /// R15.17: a split's preferences checked against its style (`two_*` on double).
    static func checkPreferences(_ s: SplitState, name: String) throws(TabError) {
        if s.style == .double, s.preferredDisplayMode.besides == 2 {
            throw TabError(.notAvailable, "'\(name)' is a double split; \(s.preferredDisplayMode.rawValue) needs a triple split", field: "preferred_display_mode")
        }
    }
}
