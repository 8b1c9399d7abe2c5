// Creating, changing and deleting R15's containers. Each command is checked first (a refused
// command changes nothing), then says what its container holds afterwards, in one or two
// steps; NodeTree.swift turns the steps into the events, for every kind alike.

extension TabContainers {
    /// Creates the container `name` as `spec` says: a root (R15.4) whose children enter as one
    /// set change (R15.6) and no state event (R15.8 b).
    @discardableResult
    /// `policy` answers a split created collapsed (R15.20); a replayed spec's `answers` do
    /// instead.
    public mutating func create(_ name: String, composite spec: CompositeSpec, limits: ControllerLimits = ControllerLimits(),
                                policy: Policy = DefaultPolicy()) throws(TabError) -> NodeOutcome {
        try Self.validate(name: name)
        guard nodes[name] == nil, composites[name] == nil else { throw TabError(.conflict, "a controller named '\(name)' already exists") }
        let children = spec.body.children
        try Self.checkChildren(children, limits: limits)
        switch spec.body {
        case .navigation(let n):
            guard !n.stack.isEmpty else { throw TabError(.invalid, "a navigation controller needs 'stack': at least its root screen") }
            var fresh = NavigationState(stack: [])
            try Self.navigate(.set(n.stack), &fresh, name: name, limits: limits)  // the depth rule
        case .drawer(let d):
            guard d.openSide == .none else { throw TabError(.invalid, "a drawer is created closed; open it with open_drawer") }
        case .custom(let c):
            let ids = Set(children.map(\.id))
            for s in c.shown where !ids.contains(s) {
                throw TabError(.notFound, "'shown' names '\(s)', which is not one of 'children'")
            }
        case .split(let s):
            if s.style == .triple, s.supplementary == nil { throw TabError(.invalid, "a triple split needs \"supplementary\": a child object", field: "supplementary") }
            if s.style == .double, s.supplementary != nil { throw TabError(.notAvailable, "a double split has no supplementary column; create a triple split for three columns", field: "supplementary") }
        }
        var body = try Self.configured(spec.body, spec.configuration, name: name)
        var outcome = NodeOutcome()
        // One policy for the whole creation: a replayed spec's answers are taken in the order
        // they were asked (the split itself, then the splits attached below it).
        let asked: Policy = spec.answers.isEmpty ? policy : RecordedProposals(spec.answers)
        if case .split(var s) = body {
            try Self.checkPreferences(s, name: name)
            try checkColumns(s, name: name, entering: children, idiom: spec.idiom, limits: limits)
            // R15.10, R15.40: settled in its own environment (a root's: the idiom's size
            // class, portrait), collapsed from its creation on a phone.
            (s.splitBehavior, s.displayMode) = s.derived(orientation: .portrait)
            body = .split(settled(name, s, idiom: spec.idiom, sizeClass: spec.idiom.defaultSizeClass, orientation: .portrait, policy: asked, &outcome))
        }
        try checkAttach(children, to: name, kind: spec.kind, idiom: spec.idiom, above: 1)
        saveComposite(name)
        var node = Composite(name: name, body: Self.normalized(body), window: spec.window, idiom: spec.idiom)
        node.seq = seqFloor
        composites[name] = node
        for c in children {
            guard let x = c.controller else { continue }
            place(x, Attachment(parent: name, slot: c.id))
            spreadEnvironment(below: name, from: x, events: false, policy: asked, &outcome)
        }
        recent = Recent()
        outcome.changed = true
        if let recorded = asked as? RecordedProposals { outcome.replayWarnings = recorded.mismatches }
        emit(name, leaving: [], entering: children, before: [], after: visibleChildren(under: name), .setChange, &outcome)
        for c in children { if let x = c.controller { send(.parentChanged(parent: parent(of: x), window: false), from: x, &outcome) } }
        return outcome
    }

    /// R15.10: the orientations a non-tab root supports: all but upside-down on a phone, all
    /// on pad and tv, intersected by the plugins (R12) as a tab root's tabs' are (R9.2). They
    /// see a stand-in tab controller of the root's name, idiom and environment, with no tabs.
    func supportedOrientations(of c: Composite, policy: Policy, _ effects: inout [PolicyEffect]) -> OrientationMask {
        let proposed = c.supportedOrientations
        var standIn = Controller(name: c.name, idiom: c.idiom, sizeClass: c.sizeClass)
        standIn.orientation = c.orientation
        return standIn.lend { policy.supportedOrientations(proposed: proposed, in: $0, effects: &effects) }.intersection(proposed)
    }

    /// Applies `command` to the container `name`. `replaying`: from the journal, where the
    /// plugins' answers are already in the record (no plugin is asked, R15.8 d).
    /// `cause`: the state event's, when not the command's own (`restore`'s steps).
    /// `keepingEvents` false: nobody reads the command's events (no subscriber, no plugin
    /// told them), so they are numbered (each container's seq moves as it would) but not kept in
    /// the outcome.
    public mutating func apply(_ command: NodeCommand, to name: String, policy: Policy = DefaultPolicy(), replaying: Bool = false,
                               limits: ControllerLimits = ControllerLimits(), cause: NodeCause? = nil,
                               keepingEvents: Bool) throws(TabError) -> NodeOutcome {
        let kept = keepsEvents
        keepsEvents = kept && keepingEvents
        defer { keepsEvents = kept }
        return try apply(command, to: name, policy: policy, replaying: replaying, limits: limits, cause: cause)
    }

    public mutating func apply(_ command: NodeCommand, to name: String, policy: Policy = DefaultPolicy(), replaying: Bool = false,
                               limits: ControllerLimits = ControllerLimits(), cause: NodeCause? = nil) throws(TabError) -> NodeOutcome {
        if case .restoreTree(let archive) = command { return try restoreTree(name, archive, limits: limits) }
        if case .setWindow(let window) = command, let t = nodes[name] {
            // R15.4: a tab controller's window too.
            if let p = t.parent { throw TabError(.conflict, "'\(name)' is a child of '\(p.parent)'; only a root can be a window's root") }
            guard window != t.window else { return NodeOutcome() }
            return setWindow(name, window)
        }
        // Found once: the command's own events are numbered at `ci` (no lookup each).
        guard let ci = composites.index(forKey: name) else {
            do { _ = try composite(name) } catch where error.code == .notAvailable {
                throw TabError(.notAvailable, "'\(name)' is a tab controller; \(command.name) is for \(command.kind.map { "\($0.rawValue) controllers" } ?? "navigation, drawer and custom controllers")")
            }
            throw TabError(.internal, "'\(name)' vanished")
        }
        let c = composites.values[ci]
        if let k = command.kind, k != c.kind {
            throw TabError(.notAvailable, "'\(name)' is a \(c.kind.rawValue) controller; \(command.name) is for \(k.rawValue) controllers")
        }
        if case .split(let s) = c.body, command.kind == .split || command.commandName == .configure {
            return try applySplit(command, to: name, s, c, policy: policy, replaying: replaying, limits: limits)
        }
        var steps: [(CompositeBody, StepOrder)] = []
        var first: [NodeEvent] = []
        var stateEvent: StateEvent?
        switch (command, c.body) {
        case (.setWindow(let window), _):
            if let p = c.parent { throw TabError(.conflict, "'\(name)' is a child of '\(p.parent)'; only a root can be a window's root") }
            guard window != c.window else { return NodeOutcome() }
            return setWindow(name, window)
        case (.rotate(let o), _):
            if let p = c.parent { throw TabError(.notAvailable, "'\(name)' is attached to '\(p.parent)'; rotate is for the root of its tree ('\(root(of: name))')") }
            // R15.10, R9.3: the idiom's orientations, intersected by the plugins; unsupported,
            // not turned.
            var outcome = NodeOutcome()
            let supported = supportedOrientations(of: c, policy: policy, &outcome.effects)
            guard supported.contains(o.mask), o != c.orientation else { return outcome }
            outcome.changed = true
            let path = shownStatusBarPath(name)
            saveComposite(name)
            composites[name]!.orientation = o
            send(.orientationChanged(from: c.orientation, to: o), from: name, &outcome)
            spreadEnvironment(below: name, events: true, policy: policy, &outcome)
            finish(name, detached: [], attached: [], pathBefore: path, &outcome)
            return outcome
        case (.setSizeClass(let s), _):
            if let p = c.parent { throw TabError(.notAvailable, "'\(name)' is attached to '\(p.parent)'; set_size_class is for the root of its tree ('\(root(of: name))')") }
            if s != c.idiom.defaultSizeClass, c.idiom != .pad {
                throw TabError(.notAvailable, "the \(c.idiom.rawValue) idiom is always \(c.idiom.defaultSizeClass.rawValue); only a pad has size_class \(s.rawValue)")
            }
            guard s != c.sizeClass else { return NodeOutcome() }
            var outcome = NodeOutcome()
            outcome.changed = true
            let path = shownStatusBarPath(name)
            saveComposite(name)
            composites[name]!.sizeClass = s
            send(.sizeClassChanged(s), from: name, &outcome)
            spreadEnvironment(below: name, events: true, policy: policy, &outcome)
            finish(name, detached: [], attached: [], pathBefore: path, &outcome)
            return outcome
        case (.configure(let config), _):
            guard !config.isEmpty else {
                let fields = Self.configurationFields(c.kind)
                throw TabError(.invalid, fields.isEmpty ? "a \(c.kind.rawValue) controller has no settings to configure" : "configure needs a setting of the \(c.kind.rawValue) kind: \(fields.joined(separator: ", "))", field: fields.first)
            }
            let body = try Self.configured(c.body, config, name: name)
            guard body != c.body else { return NodeOutcome() }
            first = [.configChanged(config)]
            steps = [(body, .visibility)]

        case (.push(let screen, _), .navigation(var n)):
            try Self.checkChildren([screen], limits: limits)
            try Self.navigate(.push(screen), &n, name: name, limits: limits)
            try checkAttach([screen], to: name, kind: .navigation, idiom: c.idiom, above: chainAbove(name))
            steps = [(.navigation(n), .transition)]
            stateEvent = .navigation(.push, .app)
        case (.pop(let user, _), .navigation(var n)):
            if n.stack.count > 1, user && !replaying { try checkReach(name, command: "pop", userPop: true) }
            try Self.navigate(.pop, &n, name: name, limits: limits)
            steps = [(.navigation(n), .transition)]
            stateEvent = .navigation(.pop, user ? .user : .app)
        case (.popTo(let id, _), .navigation(var n)):
            guard try Self.navigate(.popTo(id), &n, name: name, limits: limits) else { return NodeOutcome() }
            steps = [(.navigation(n), .transition)]
            stateEvent = .navigation(.popTo, .app)
        case (.popToRoot, .navigation(var n)):
            guard try Self.navigate(.popToRoot, &n, name: name, limits: limits) else { return NodeOutcome() }
            steps = [(.navigation(n), .transition)]
            stateEvent = .navigation(.popToRoot, .app)
        case (.setStack(let stack, _), .navigation(var n)):
            try Self.checkChildren(stack, limits: limits)
            let entering = ChildObject.children(stack, notIn: n.stack)
            guard try Self.navigate(.set(stack), &n, name: name, limits: limits) else { return NodeOutcome() }
            try checkAttach(entering, to: name, kind: .navigation, idiom: c.idiom, above: chainAbove(name))
            steps = [(.navigation(n), .transition)]
            stateEvent = .navigation(.setStack, cause ?? .app)

        case (.openDrawer(let side, let gesture, _), .drawer(var d)):
            guard let drawer = d.drawer(side) else { throw TabError(.notAvailable, "'\(name)' has no \(side.rawValue) drawer; set one with set_drawer") }
            try checkGesture(gesture, opening: true, side: side, d, name: name, policy: policy, replaying: replaying)
            guard d.openSide != OpenSide(side) else { return NodeOutcome() }
            _ = drawer
            let previous = d.openSide
            d.openSide = OpenSide(side)
            steps = [(.drawer(d), .visibility)]
            stateEvent = .drawer(previous: previous, cause ?? (gesture == nil ? .app : .user))
        case (.closeDrawer(let gesture, _), .drawer(var d)):
            try checkGesture(gesture, opening: false, side: nil, d, name: name, policy: policy, replaying: replaying)
            guard d.openSide != .none else { return NodeOutcome() }
            let previous = d.openSide
            d.openSide = .none
            steps = [(.drawer(d), .visibility)]
            stateEvent = .drawer(previous: previous, cause ?? (gesture == nil ? .app : .user))
        case (.toggleDrawer(let side, let gesture, let animated), .drawer(let d)):
            // R15.25: opens when none is open, closes when this side is, else nothing.
            if d.openSide == .none { return try apply(.openDrawer(side, gesture: gesture, animated: animated), to: name, policy: policy, replaying: replaying, limits: limits) }
            if d.openSide == OpenSide(side) { return try apply(.closeDrawer(gesture: gesture, animated: animated), to: name, policy: policy, replaying: replaying, limits: limits) }
            return NodeOutcome()
        case (.setCenter(let child, let close), .drawer(var d)):
            guard child.id != d.center.id else { return NodeOutcome() }
            let previous = d.openSide
            d.center = child
            try Self.checkChildren(CompositeBody.drawer(d).children, limits: limits)
            if child.controller != nil { try checkAttach([child], to: name, kind: .drawer, idiom: c.idiom, above: chainAbove(name)) }
            steps = [(.drawer(d), .setChange)]
            if close, d.openSide != .none {
                d.openSide = .none
                steps.append((.drawer(d), .visibility))
            }
            stateEvent = .drawer(previous: previous, .app)
        case (.setDrawer(let side, let child), .drawer(var d)):
            guard child?.id != d.drawer(side)?.id else { return NodeOutcome() }
            let previous = d.openSide
            var cause = NodeCause.app
            if side == .left { d.left = child } else { d.right = child }
            if child == nil, d.openSide == OpenSide(side) { d.openSide = .none; cause = .removed }
            try Self.checkChildren(CompositeBody.drawer(d).children, limits: limits)
            if let child, child.controller != nil { try checkAttach([child], to: name, kind: .drawer, idiom: c.idiom, above: chainAbove(name)) }
            steps = [(.drawer(d), .setChange)]
            stateEvent = .drawer(previous: previous, cause)

        case (.setChildren(let children, let shown), .custom(let old)):
            try Self.checkChildren(children, limits: limits)
            let ids = Set(children.map(\.id))
            let keep = shown ?? old.shown.filter(ids.contains)
            for s in keep where !ids.contains(s) { throw TabError(.notFound, "'shown' names '\(s)', which is not one of 'children'") }
            try checkAttach(ChildObject.children(children, notIn: old.children), to: name, kind: .custom, idiom: c.idiom, above: chainAbove(name))
            var new = CustomState(children: children, shown: keep, statusBarChild: old.statusBarChild.flatMap { ids.contains($0) ? $0 : nil })
            new = Self.normalized(new)
            guard new != old else { return NodeOutcome() }
            steps = [(.custom(new), .setChange)]
            stateEvent = .children
        case (.setShown(let shown), .custom(var state)):
            let ids = Set(state.children.map(\.id))
            for s in shown where !ids.contains(s) { throw TabError(.notFound, "'\(s)' is not a child of '\(name)'") }
            state.shown = shown
            state = Self.normalized(state)
            guard case .custom(let old) = c.body, state != old else { return NodeOutcome() }
            steps = [(.custom(state), .visibility)]
            stateEvent = .children
        case (.transition(let from, let to, _), .custom(var state)):
            guard state.shown.contains(from), let i = state.children.firstIndex(where: { $0.id == from }) else {
                throw TabError(.notAvailable, "'\(from)' is not a shown child of '\(name)'; transition goes from a shown child")
            }
            if state.children.contains(where: { $0.id == to.id }) { throw TabError(.conflict, "'\(to.id)' is already a child of '\(name)'; transition goes to a new child") }
            try Self.checkChildren([to], limits: limits)
            try checkAttach([to], to: name, kind: .custom, idiom: c.idiom, above: chainAbove(name))
            state.children[i] = to
            state.shown = state.shown.map { $0 == from ? to.id : $0 }
            if state.statusBarChild == from { state.statusBarChild = nil }
            steps = [(.custom(state), .transition)]
            stateEvent = .children
        default:
            throw TabError(.internal, "\(command.name) reached '\(name)' unchecked")
        }

        var outcome = NodeOutcome()
        outcome.changed = true
        if keepsEvents { outcome.events.reserveCapacity(8) }  // a step's few events: one allocation (appending grew it one by one)
        // A root's path read where it lies (no walk up to find it, no lookup of its name).
        let root: Position? = c.parent == nil ? .composite(ci) : nil
        // R15.11: steps that change only what a root shows leave what is below each child as
        // it was, so its path (its deciding child, then down that child) changes exactly when
        // its deciding child does: only that is read before.
        let decidingOnly = root != nil && steps.allSatisfy { $0.1 == .visibility }
        let decidingBefore = decidingOnly ? c.body.statusBarChild?.id : nil
        let path = decidingOnly ? nil : root != nil ? shownStatusBarPath(at: root!) : shownStatusBarPath(rootInPlace(of: name))
        for e in first { send(e, from: name, at: .composite(ci), &outcome) }
        var detached: [String] = [], attached: [String] = []
        for (body, order) in steps {
            let moved = step(name, to: body, order, policy: policy, &outcome)
            if !moved.detached.isEmpty { detached += moved.detached }
            if !moved.attached.isEmpty { attached += moved.attached }
        }
        if let stateEvent { send(stateEvent.event(composites.values[ci].body), from: name, at: .composite(ci), &outcome) }
        let reattached = attached.isEmpty ? [] : Set(attached)
        finish(name, detached: detached.filter { !reattached.contains($0) }, attached: attached, pathBefore: path, root: root,
               deciding: decidingOnly ? .some(decidingBefore) : nil, &outcome)
        return outcome
    }

    /// R15.4: a root shown in or taken out of its window: the visibility changes, then
    /// `window_changed`, then (showing) its status bar path.
    private mutating func setWindow(_ name: String, _ window: Bool) -> NodeOutcome {
        var outcome = NodeOutcome()
        outcome.changed = true
        let path = shownStatusBarPath(name)
        let before = visibleChildren(under: name)
        if nodes[name] != nil {
            saveWhole(name)
            nodes[name]!.window = window
        } else {
            saveComposite(name)
            composites[name]!.window = window
        }
        emit(name, leaving: [], entering: [], before: before, after: visibleChildren(under: name), .visibility, &outcome)
        send(.windowChanged(window), from: name, &outcome)
        finish(name, detached: [], attached: [], pathBefore: path, &outcome)
        return outcome
    }

    /// R15.26, R15.37: a drawer command's gesture, in the order the refusals are checked;
    /// then reach (R15.9) and, to open, the plugins (may-open-drawer).
    func checkGesture(_ gesture: DrawerGesture?, opening: Bool, side: DrawerSide?, _ d: DrawerState, name: String,
                              policy: Policy, replaying: Bool) throws(TabError) {
        guard let g = gesture, !replaying else { return }
        if opening {
            guard g.opens else { throw TabError(.invalid, "'\(g.rawValue)' only closes a drawer; open with pan_navigation_bar, pan_center, bezel_pan_center, custom or button", field: "gesture") }
            // The bar button (MMDrawerBarButtonItem) is ungated: it opens or swaps whatever is open.
            guard d.openSide == .none || g == .button else { throw TabError(.conflict, "the \(d.openSide.rawValue) drawer of '\(name)' is open; a gesture cannot open another (close it first)") }
            guard g == .button || d.openGestures.contains(g) else {
                throw TabError(.notAvailable, "'\(name)' does not open on \(g.rawValue); its open_gestures are [\(d.openGestures.map(\.rawValue).joined(separator: ", "))] (configure them)")
            }
        } else {
            guard g == .button || d.closeGestures.contains(g) else {
                throw TabError(.notAvailable, "'\(name)' does not close on \(g.rawValue); its close_gestures are [\(d.closeGestures.map(\.rawValue).joined(separator: ", "))] (configure them)")
            }
        }
        if g.onNavigationBar, d.center.controller.flatMap({ composites[$0]?.kind }) != .navigation {
            throw TabError(.notAvailable, "\(g.rawValue) needs a navigation controller as the center of '\(name)'; its center is '\(d.center.id)'")
        }
        try checkReach(name, command: opening ? "open a drawer" : "close a drawer", userPop: false)
        if opening, let side, case .deny(let by, let reason, let message) = policy.mayOpenDrawer(side: side, gesture: g, controller: name) {
            throw TabError(.denied, message ?? "plugin '\(by)' refused opening the \(side.rawValue) drawer of '\(name)': \(reason)", plugin: by, reason: reason)
        }
    }

    /// Deletes the composite `name` (`delete(_:)` for these kinds, once `checkDelete` let it:
    /// not attached, holding no controller, R15.4).
    mutating func deleteComposite(_ name: String) -> UInt64 {
        let c = composites[name]!
        saveComposite(name)
        composites[name] = nil
        if before.seqFloor == nil { before.seqFloor = seqFloor }
        let last = c.seq &+ 1
        seqFloor = max(seqFloor, last)
        recent = Recent()
        return last
    }

    // MARK: Helpers

    /// R15.13 through the one navigation model (`Navigation.apply`, the same operations as a
    /// tab's R6 stack): applies `op` to `n`'s stack, in R15.13's words when it is refused.
    /// Returns whether the stack changed.
    @discardableResult
    private static func navigate(_ op: Navigation.Operation<ChildObject>, _ n: inout NavigationState, name: String,
                                 limits: ControllerLimits) throws(TabError) -> Bool {
        do {
            return try Navigation.apply(op, to: &n.stack, .controller, maxAbove: limits.maxStackDepth)
        } catch {
            switch error {
            case .atRoot: throw TabError(.conflict, "'\(name)' shows its root screen '\(n.stack[0].id)'; the root cannot be popped")
            case .alreadyInStack(let id): throw TabError(.conflict, "'\(id)' is already in the stack of '\(name)'; ids are unique in a stack")
            case .tooDeep(let above): throw TabError(.outOfRange, "the stack of '\(name)' would hold \(above) screens above its root; at most \(limits.maxStackDepth) (limits.max_stack_depth)")
            case .notInStack(let id): throw TabError(.notFound, "no screen '\(id)' in the stack of '\(name)'")
            case .noRoot: throw TabError(.invalid, "set_stack needs at least one screen: the root", field: "stack")
            }
        }
    }

    /// The configuration fields of a kind (R15.1, PROTOCOL.md), for messages.
    public static func configurationFields(_ kind: ContainerKind) -> [String] {
        switch kind {
        case .drawer: ["open_gestures", "close_gestures", "center_interaction"]
        case .custom: ["status_bar_child"]
        case .split: ["preferred_display_mode", "preferred_split_behavior", "presents_with_gesture"]
        default: []
        }
    }

    /// `body` with `config` applied; a field of another kind is `invalid_request`.
    static func configured(_ body: CompositeBody, _ config: NodeConfiguration, name: String) throws(TabError) -> CompositeBody {
        let allowed = configurationFields(body.kind)
        for field in config.fieldNames where !allowed.contains(field) {
            throw TabError(.invalid, "'\(field)' is not a setting of a \(body.kind.rawValue) controller\(allowed.isEmpty ? "" : "; its settings are \(allowed.joined(separator: ", "))")", field: field)
        }
        switch body {
        case .drawer(var d):
            if let g = config.openGestures {
                if let bad = g.first(where: { !$0.opens }) { throw TabError(.invalid, "'\(bad.rawValue)' only closes a drawer and cannot be in open_gestures") }
                d.openGestures = DrawerGesture.allCases.filter(g.contains)
            }
            if let g = config.closeGestures { d.closeGestures = DrawerGesture.allCases.filter(g.contains) }
            if let i = config.centerInteraction { d.centerInteraction = i }
            return .drawer(d)
        case .custom(var c):
            if let s = config.statusBarChild {
                if let s, !c.children.contains(where: { $0.id == s }) { throw TabError(.notFound, "status_bar_child '\(s)' is not a child of '\(name)'") }
                c.statusBarChild = s
            }
            return .custom(c)
        case .split(var s):
            if let m = config.preferredDisplayMode { s.preferredDisplayMode = m }
            if let b = config.preferredSplitBehavior { s.preferredSplitBehavior = b }
            if let g = config.presentsWithGesture { s.presentsWithGesture = g }
            return .split(s)
        case .navigation:
            return body
        }
    }

    /// A custom state with `shown` in `children`'s order, each once.
    static func normalized(_ c: CustomState) -> CustomState {
        var c = c
        let shown = Set(c.shown)  // `shown` is as long as the request made it: no scan of it per child
        c.shown = c.children.map(\.id).filter(shown.contains)
        return c
    }

    static func normalized(_ body: CompositeBody) -> CompositeBody {
        if case .custom(let c) = body { return .custom(normalized(c)) }
        return body
    }

    /// A command's state event, made from the body once its steps are done (an enum, not a
    /// closure: a closure's context was an allocation a command).
    private enum StateEvent {
        case navigation(NavigationOperation, NodeCause)
        case drawer(previous: OpenSide, NodeCause)
        case children

        func event(_ body: CompositeBody) -> NodeEvent {
            switch (self, body) {
            case (.navigation(let op, let cause), .navigation(let n)):
                return .navigationChanged(stack: n.stack, operation: op, cause: cause)
            case (.navigation(let op, let cause), _):
                return .navigationChanged(stack: [], operation: op, cause: cause)
            case (.drawer(let previous, let cause), .drawer(let d)):
                return .drawerChanged(center: d.center.id, left: d.left?.id, right: d.right?.id, openSide: d.openSide, previous: previous, cause: cause)
            case (.drawer, _):
                return .windowChanged(false)
            case (.children, .custom(let c)):
                return .childrenChanged(children: c.children.map(\.id), shown: c.shown)
            case (.children, _):
                return .childrenChanged(children: [], shown: [])
            }
        }
    }
}
