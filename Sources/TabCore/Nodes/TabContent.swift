// A tab whose content is a controller (R15.2, R15.14): the tab's `controller`, attached to
// its tab controller as `{controller, child: <tab id>}`. A tab controller holding one takes
// the tree's path (`ContainerNode.isInTree()`); one holding none takes today's. Its own
// commands stay its own (`Controller.apply`): around them, the registry checks what they
// attach (R15.3), attaches and detaches (R15.4), expands its appearance into the content's
// (R15.8 a), pops a content navigation controller on a tap (R15.14), takes the root's
// environment down (R15.10) and announces the root's status bar path (R15.11).

extension Tab {
    /// Whether the tab, or a tab below it, has a controller as its content.
    var hasContentDeep: Bool {
        if controller != nil { return true }
        guard let children else { return false }
        return children.contains { $0.hasContentDeep }
    }

    /// The tab's content (and its children's), as child objects in slot order (pre-order).
    func appendContents(to out: inout [ChildObject]) {
        if let x = controller { out.append(ChildObject(id: id, restorationID: restorationID, controller: x)) }
        for c in children ?? [] { c.appendContents(to: &out) }
    }

    /// Every tab of the tree `tabs` that has a controller as its content, checked (R15.2).
    static func checkContents(_ tabs: [Tab]) throws(TabError) {
        for t in tabs {
            if t.controller != nil { try Controller.validate(t) }
            if let c = t.children { try checkContents(c) }
        }
    }

    static func contents(_ tabs: [Tab]) -> [ChildObject] {
        var out: [ChildObject] = []
        for t in tabs { t.appendContents(to: &out) }
        return out
    }
}

extension Controller {
    /// Whether a tab of the tree has a controller as its content (R15.2).
    public var hasContent: Bool { tabs.contains { $0.hasContentDeep } }

    /// The tabs whose content is a controller, as child objects (`id`: the tab), in slot order.
    public var contents: [ChildObject] { Tab.contents(tabs) }

    /// `TabContainers.decidingChild` of a flat controller holding contents: its status bar
    /// child (`selection.wireValue`) and that tab's content. Read in place (mutating only for
    /// that): through the node's `lend` it cost a select ~370 instructions, twice.
    mutating func flatLeafContent() -> (id: String?, controller: String?) {
        switch selection {
        case .none: return (nil, nil)
        case .tab(let id): return (id, flatContent(of: id))
        case .more: return (Controller.moreID, flatContent(of: Controller.moreID))
        }
    }

    /// `content(of:)` of a flat controller: while it has a few tabs, only those with a content
    /// are compared (ids are unique), by `==` (equal short ids compare by their bits).
    private func flatContent(of id: String) -> String? {
        guard tabs.count <= Self.linearLookupLimit else { return index(of: id).flatMap { tabs[$0].controller } }
        for k in tabs.indices where tabs[k].controller != nil && tabs[k].id == id { return tabs[k].controller }
        return nil
    }

    /// The controller that is the tab `id`'s content, or nil.
    public func content(of id: String) -> String? {
        // Flat tabs read in place: `locate` makes an address array, `self[at:]` a copy of the tab.
        if !arranged { return index(of: id).flatMap { tabs[$0].controller } }
        guard let a = locate(id) else { return nil }
        return self[at: a].controller
    }
}

extension Command {
    /// Whether the command's tabs name a content controller (R15.2): it then takes the tree's
    /// path, to be checked. One comparison of the case for every other command.
    @inline(__always)
    var carriesContent: Bool {
        switch self {
        case .setTabs(let tabs, _, _): return tabs.contains { $0.hasContentDeep }
        case .addTab(let tab, _, _): return tab.hasContentDeep
        case .updateTab(_, let update): return update.values.hasContentDeep
        default: return false
        }
    }

    /// Whether the command leaves every tab's content controller as it is, whatever it does:
    /// a select or a tap only moves the selection (and pops an R6 stack), so a tab controller
    /// holding contents need not list them before and after it (R15.2).
    @inline(__always)
    var keepsContents: Bool {
        switch self {
        case .select, .tap: return true
        default: return false
        }
    }
}

extension TabContainers {
    /// R15.2, R15.3: refuses, nothing changed, a command of the tab controller `name` that
    /// would attach a controller it cannot (or a stack command on a tab whose content is a
    /// controller, PROTOCOL.md: `not_available` naming it). Returns the content tabs the
    /// command may leave, for the caller's comparison.
    func checkContent(_ command: Command, of name: String, before: [ChildObject]) throws(TabError) {
        guard let n = nodes[name] else { return }
        let t = n.tabBar
        var after: [ChildObject]
        switch command {
        case .push(let tab, _), .pop(let tab), .popToRoot(let tab):
            guard n.holdsContent, let x = t.content(of: tab) else { return }
            throw TabError(.notAvailable, "tab '\(tab)' of '\(name)' shows controller '\(x)' as its content; send \(command.name) to '\(x)' (\"controller\": \"\(x)\") without \"tab\"", field: "tab")
        case .setTabs(let tabs, _, _):
            try Tab.checkContents(tabs)
            after = Tab.contents(tabs)
        case .addTab(let tab, _, _):
            try Tab.checkContents([tab])
            after = before + Tab.contents([tab])
        case .updateTab(let id, let update):
            guard let a = t.locate(id) else { return }  // the controller's own not_found
            let old = t[at: a]
            var tab = old
            update.apply(to: &tab, arranging: false)
            update.apply(to: &tab, arranging: true)
            if tab.controller != nil || update.values.hasContentDeep { try Tab.checkContents([tab]) }
            let leaving = Set(Tab.contents([old]).map(\.identity))
            after = before.filter { !leaving.contains($0.identity) } + Tab.contents([tab])
        default:
            return
        }
        let entering = ChildObject.children(after, notIn: before)
        guard !entering.isEmpty else { return }
        // R15.2, R15.4: a content the command takes from one tab may be another's (a move).
        var moving = Set<String>()
        if !before.isEmpty {
            let staying = Set(after.compactMap(\.controller))
            for c in ChildObject.children(before, notIn: after) { if let x = c.controller, staying.contains(x) { moving.insert(x) } }
        }
        try checkAttach(entering, to: name, kind: .tab, idiom: t.idiom, above: chainAbove(name), moving: moving)
    }

    /// R15.14: the navigation controller a tap pops to its root where R4.3 pops a tab's stack
    /// (the tapped tab's content, deeper than its root; with `tap_pops: reselect`, only on the
    /// selected tab), and whether it is visible before the tap.
    mutating func contentToPop(_ command: Command, of name: String, at i: Dictionary<String, ContainerNode>.Index) -> (controller: String, visible: Bool)? {
        guard case .tap(.tab(let id)) = command else { return nil }
        // Read in place (a copy of the tab controller retained each of its arrays).
        guard let (x, selected, pops) = nodes.values[i].lend({ n in
                  n.tabBar.content(of: id).map { ($0, n.tabBar.statusBarChild == id, n.tabBar.tapPops == .always) } }),
              let at = composites.index(forKey: x),
              composites.values[at].lend({ c in if case .navigation(let nav) = c.body { nav.stack.count > 1 } else { false } }) else { return nil }
        guard pops || selected else { return nil }
        return (x, selected && isVisible(.tab(i)))
    }

    /// R15.14: pops `x` to its root for a tap (`cause: tap`): a transition (R15.7) whose
    /// appearance only if `x` was visible, then `navigation_changed`, then `parent_changed` of
    /// what it detached. Returns the keys of what it showed and hid (sent here).
    mutating func popForTap(_ x: String, visible: Bool, policy: Policy, _ o: inout NodeOutcome) -> VisibleKeys {
        guard case .navigation(let old) = composites[x]!.body else { return VisibleKeys() }
        var n = old
        Navigation.popToRoot(&n.stack, .controller)
        var covered = VisibleKeys()
        let leaving = ChildObject.children(old.stack, notIn: n.stack)
        if visible {
            let pre = visibleChildren(below: x)
            _ = step(x, to: .navigation(n), .transition, policy: policy, &o)
            for v in pre { covered.insert(v.key) }
            for v in visibleChildren(below: x) { covered.insert(v.key) }
        } else {
            saveComposite(x)
            composites[x]!.body = .navigation(n)
            for c in leaving { if let y = c.controller { place(y, nil) } }
            emit(x, leaving: leaving, entering: [], before: [], after: [], .transition, &o)
        }
        send(.navigationChanged(stack: n.stack, operation: .popToRoot, cause: .tap), from: x, &o)
        for c in leaving { if let y = c.controller { send(.parentChanged(parent: nil, window: false), from: y, &o) } }
        return covered
    }

    /// R15.2: the kept tabs of `name` whose content controller changed (set, cleared or
    /// replaced), in slot order: `existing` names the tabs that got one and were there before.
    func replacedContents(of name: String, before: [ChildObject], after: [ChildObject], existing: Set<String>) -> [(tab: String, old: String?, new: String?)] {
        guard !before.isEmpty || !existing.isEmpty else { return [] }
        var old: [String: String] = [:]
        for c in before { old[c.id] = c.controller }
        var out: [(tab: String, old: String?, new: String?)] = []
        var seen = Set<String>()
        for c in after {
            seen.insert(c.id)
            let was = old[c.id]
            if was != c.controller, was != nil || existing.contains(c.id) { out.append((c.id, was, c.controller)) }
        }
        for c in before where !seen.contains(c.id) && nodes[name]!.tabBar.locate(c.id) != nil { out.append((c.id, c.controller, nil)) }
        guard out.count > 1 else { return out }
        // R15.6: in slot order (the tabs' pre-order).
        var order: [String: Int] = [:]
        func number(_ tabs: [Tab]) { for t in tabs { order[t.id] = order.count; number(t.children ?? []) } }
        number(nodes[name]!.tabBar.tabs)
        return out.sorted { (order[$0.tab] ?? 0) < (order[$1.tab] ?? 0) }
    }

    /// R15.2, R15.6, R15.8 a: the kept tabs of `name` whose content changed, as one set change
    /// of `name`: (a) each old one's will_move(nil), its disappearance (and what it showed, in
    /// pre-order) if it was visible, did_move(nil); (b) each new one's will_move, did_move;
    /// (c) the new ones' appearance, expanded below them. The tab itself is the child (`child`
    /// the tab's id, `child_controller` the content, none for a plain tab). What the command
    /// announced already is not sent again: a tab's appearance among its own notifications
    /// (`announced`, a selection that moved with it), and what was expanded below it (`sent`).
    mutating func replaceContents(_ name: String, _ replaced: [(tab: String, old: String?, new: String?)], before: [VisibleChild], after: [VisibleChild],
                                  announced: Set<String>, sent: inout VisibleKeys, _ o: inout NodeOutcome) {
        func run(_ list: [VisibleChild], _ tab: String, _ x: String?) -> [VisibleChild] {
            guard let j = list.firstIndex(where: { $0.container == name && $0.child.id == tab && $0.child.controller == x }) else { return [] }
            var k = j + 1
            while k < list.count, list[k].depth > list[j].depth { k += 1 }
            return Array(list[j..<k])
        }
        func appear(_ entries: [VisibleChild], _ phase: AppearancePhase) {
            for k in entries.indices {
                let v = entries[k]
                if v.container == name ? announced.contains(v.child.id) : sent.contains(v.key) { continue }
                if v.container == name {
                    send(.appearance(child: v.child.id, controller: v.child.controller, phase: phase), from: name, &o)
                } else {
                    sendAppearance(entries, k, phase, &o)
                }
            }
        }
        var done: [VisibleChild] = []
        for r in replaced {
            send(.containment(child: r.tab, controller: r.old, phase: .willMove, parent: nil), from: name, &o)
            let gone = run(before, r.tab, r.old)
            appear(gone, .willDisappear)
            appear(gone, .didDisappear)
            done += gone
            send(.containment(child: r.tab, controller: r.old, phase: .didMove, parent: nil), from: name, &o)
        }
        for r in replaced {
            send(.containment(child: r.tab, controller: r.new, phase: .willMove, parent: name), from: name, &o)
            send(.containment(child: r.tab, controller: r.new, phase: .didMove, parent: name), from: name, &o)
        }
        let came = replaced.flatMap { run(after, $0.tab, $0.new) }
        appear(came, .willAppear)
        appear(came, .didAppear)
        for v in done + came { sent.insert(v.key) }
    }

    /// R15.8 a: after the tab controller `name`'s appearance notification of a tab whose
    /// content is a controller, the same phase for everything visible below it (`before` for
    /// the disappearing phases, `after` for the appearing ones), each from its own container.
    /// What it sent is marked in `expanded`, by its place in `before` or `after`.
    mutating func expand(_ name: String, tab: String, phase: AppearancePhase, before: [VisibleChild], after: [VisibleChild],
                         beforeKeys: VisibleKeys, afterKeys: VisibleKeys, expanded: inout Expanded, _ o: inout NodeOutcome) {
        let disappearing = phase == .willDisappear || phase == .didDisappear
        let list = disappearing ? before : after
        let other = disappearing ? afterKeys : beforeKeys
        guard let j = list.firstIndex(where: { $0.container == name && $0.child.id == tab && $0.child.controller != nil }) else { return }
        // Read where they lie (`list[k]` passed on was a copy of each entry, its strings
        // retained and released, twice an entry sent).
        var k = j + 1
        while k < list.count, list[k].depth > list[j].depth {
            if !other.contains(list, k) {
                sendAppearance(list, k, phase, &o)
                expanded.mark(k, in: list.count, before: disappearing)
            }
            k += 1
        }
    }

    /// Which entries of a command's visible sets before and after `expand` sent (R15.8 a's
    /// bookkeeping), by their places there: no key made and kept of each (a copy of three
    /// strings, and a search, per entry sent).
    struct Expanded {
        /// One bit an entry while a set is at most 64 long (a content shows a few: no
        /// allocation), else a flag an entry.
        private var beforeBits: UInt64 = 0, afterBits: UInt64 = 0
        private var before: [Bool] = [], after: [Bool] = []

        mutating func mark(_ k: Int, in count: Int, before inBefore: Bool) {
            if count <= 64 {
                if inBefore { beforeBits |= 1 << UInt64(k) } else { afterBits |= 1 << UInt64(k) }
            } else if inBefore {
                if before.isEmpty { before = Array(repeating: false, count: count) }
                before[k] = true
            } else {
                if after.isEmpty { after = Array(repeating: false, count: count) }
                after[k] = true
            }
        }

        func contains(_ k: Int, before inBefore: Bool) -> Bool {
            if k < 64, (inBefore ? beforeBits : afterBits) & (1 << UInt64(k)) != 0 { return true }
            let marks = inBefore ? before : after
            return k < marks.count && marks[k]
        }

        /// The keys of what it marked, for a set change that reads them (`replaceContents`).
        func keys(before list: [VisibleChild], after other: [VisibleChild], into sent: inout VisibleKeys) {
            for (k, v) in list.enumerated() where contains(k, before: true) { sent.insert(v.key) }
            for (k, v) in other.enumerated() where contains(k, before: false) { sent.insert(v.key) }
        }
    }

    /// R15.5, R15.8, R15.10, R15.11 for a tab controller in a tree (out of its window, or
    /// holding a content controller), once checked: its command, then what the tree makes of
    /// it. The other containers' events go to `treeEvents`, each with its place among the
    /// command's notifications (`treeEventPlaces`).
    @inline(never)
    /// `treeNotifying`: subscribers read the events; without them, nor a policy that hears
    /// events, the tree's are numbered and not kept (still announced by `hasTreeEvents`, which
    /// the journal's tree answers follow).
    mutating func applyInTree(_ command: Command, to name: String, at i: Dictionary<String, ContainerNode>.Index, policy: Policy,
                              selectionChanges: Bool, semantics: Semantics, reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome {
        // Nobody hears the command nor the tree's events (`keepsEvents` below false): a select
        // only numbers them (and has no environment to check).
        if case .select = command, !treeNotifying, !keepsEvents || !policy.hearsEvents,
           let outcome = try applyUnheardSelect(command, to: name, at: i, policy: policy, selectionChanges: selectionChanges,
                                                semantics: semantics, reading: read) {
            return outcome
        }
        return try applyInTreeFully(command, to: name, at: i, policy: policy, selectionChanges: selectionChanges, semantics: semantics, reading: read)
    }

    /// `applyInTree` of every command but a select nobody hears: its own out-of-line body (its
    /// frame, set up on each call, cost the unheard select ~100 instructions).
    @inline(never)
    private mutating func applyInTreeFully(_ command: Command, to name: String, at i: Dictionary<String, ContainerNode>.Index, policy: Policy,
                                           selectionChanges: Bool, semantics: Semantics,
                                           reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome {
        try checkEnvironment(command, of: name)
        let keeps = keepsEvents
        keepsEvents = keeps && (treeNotifying || policy.hearsEvents)
        unkeptEvents = 0
        defer { keepsEvents = keeps }
        if !treeEvents.isEmpty { treeEvents = [] }
        if !treeEventPlaces.isEmpty { treeEventPlaces = [] }
        if !treeAnswers.isEmpty { treeAnswers = [] }
        hasTreeEvents = false
        // Read in place (`nodes[name]` copied the whole controller), and each content listed
        // only where the command may change one (a select or a tap never does).
        let holds = nodes.values[i].lend { $0.holdsContent }
        let carries = command.carriesContent
        let listsContents = carries || (holds && !command.keepsContents)
        let contentsBefore = listsContents && holds ? nodes.values[i].lend { $0.tabBar.contents } : []
        // (A select or a tap attaches nothing, and names no tab's stack: nothing to check.)
        if holds && !command.keepsContents || carries { try checkContent(command, of: name, before: contentsBefore) }
        let tree = nodes.values[i].lend({ $0.parent }) == nil ? name : rootInPlace(of: name)
        let pop = holds ? contentToPop(command, of: name, at: i) : nil
        // R15.11: a select or a tap that pops nothing leaves every content and what is below
        // it as it was, so a root's path (its selected leaf, then down the leaf's content)
        // changes exactly when its leaf does (the path's first id): the path before is not
        // read (a walk down the content), only the leaf.
        let leafOnly = tree == name && command.keepsContents && pop == nil
        let leafBefore = leafOnly ? nodes.values[i].lend { $0.tabBar.statusBarChild } : nil
        let pathBefore = leafOnly ? nil : tree == name ? shownStatusBarPath(at: .tab(i)) : shownStatusBarPath(tree)
        let visibleBefore = holds || carries ? visibleChildren(below: .tab(i), name: name) : []
        // R15.2: a kept tab whose content controller changes is removed, then added: the ids
        // of the command's tabs that exist before it (a tab given a controller).
        var existing: Set<String> = []
        if carries {
            switch command {
            case .setTabs(let tabs, _, _):
                for c in Tab.contents(tabs) where nodes.values[i].tabBar.locate(c.id) != nil { existing.insert(c.id) }
            case .updateTab(let id, _): existing.insert(id)
            default: break
            }
        }
        // R15.10: an attached tab controller's orientation is its root's.
        let follows = tree != name
        if follows { nodes.values[i].tabBar.followsTree = true }
        defer { if follows { nodes[name]?.tabBar.followsTree = false } }
        // The reply is read once the tree has settled too (a tap that only popped the tab's
        // content changed the state all the same).
        var outcome = try apply(command, to: name, at: i, policy: policy, notifying: true, selectionChanges: selectionChanges,
                                semantics: semantics) { _, _ in }
        if outcome.isRefused {
            nodes.values[i].tabBar.lend { read($0, outcome) }
            return outcome
        }
        let visible = isVisible(.tab(i))
        if !visible {
            // R15.5: a tab controller that is not visible sends no appearance.
            let (removed, loaded) = outcome.dropAppearance()
            if removed > 0 {
                nodes[name]!.tabBar.seq &-= UInt64(removed)
                for id in loaded { nodes[name]!.tabBar.setLoaded(id, false) }
            }
        }
        var o = NodeOutcome()
        var places: [Int] = []
        if holds && keepsEvents {
            // A few events, each with its place: one allocation each (appending grew them one by one).
            o.events.reserveCapacity(8)
            places.reserveCapacity(8)
        }
        // The splits below settle as the plugins answer R15.20's and R15.21's proposals; the
        // answers (`treeAnswers`) are journaled before the command, and given back on replay.
        let proposals = policy
        func mark(_ place: Int) { while places.count < o.events.count { places.append(place) } }
        // R15.2, R15.4: what the command detached and attached.
        var detached: [String] = [], attached: [String] = []
        var replaced: [(tab: String, old: String?, new: String?)] = []
        if listsContents {
            let contentsAfter = nodes[name]!.tabBar.contents
            replaced = replacedContents(of: name, before: contentsBefore, after: contentsAfter, existing: existing)
            for c in ChildObject.children(contentsBefore, notIn: contentsAfter) { place(c.controller!, nil); detached.append(c.controller!) }
            for c in ChildObject.children(contentsAfter, notIn: contentsBefore) {
                let x = c.controller!
                place(x, Attachment(parent: name, slot: c.id))
                attached.append(x)
                spreadEnvironment(below: tree, from: x, events: false, policy: proposals, &o)  // R15.10: silently
            }
            let now = !contentsAfter.isEmpty
            if now != holds { nodes[name]!.holdsContent = now }
            if !attached.isEmpty { outcome.changeState() }
        }
        // R15.14: the tapped tab's content popped where R4.3 pops a tab's stack (first).
        var covered = VisibleKeys()
        if let (x, wasVisible) = pop {
            covered = popForTap(x, visible: wasVisible, policy: proposals, &o)
            outcome.changeState()
        }
        mark(0)
        // R15.8 a: each appearance of a tab whose content is a controller, expanded.
        let visibleAfter = (holds || carries) && visible ? visibleChildren(below: .tab(i), name: name) : []
        if !visibleBefore.isEmpty || !visibleAfter.isEmpty || !replaced.isEmpty {
            let beforeKeys = VisibleKeys(visibleBefore), afterKeys = VisibleKeys(visibleAfter)
            var sent = covered
            var expanded = Expanded()
            var announced = Set<String>()  // tabs whose appearance the command announced itself
            for (k, n) in outcome.notifications.enumerated() {
                guard case .appearance(let tab, let phase) = n else { continue }
                if !replaced.isEmpty { announced.insert(tab) }  // read only where a content was replaced
                expand(name, tab: tab, phase: phase, before: visibleBefore, after: visibleAfter, beforeKeys: beforeKeys, afterKeys: afterKeys,
                       expanded: &expanded, &o)
                mark(k + 1)
            }
            // R15.2, R15.6: each kept tab whose content changed, removed and added as one set change.
            if !replaced.isEmpty {
                expanded.keys(before: visibleBefore, after: visibleAfter, into: &sent)
                replaceContents(name, replaced, before: visibleBefore, after: visibleAfter, announced: announced, sent: &sent, &o)
            }
            // What changed with no appearance of its tab: R15.6 (c), after the command's own.
            // (Each entry read where it lies: a copy of one retained and released its strings.)
            func unsent(_ list: [VisibleChild], before inBefore: Bool, notIn other: VisibleKeys) -> [VisibleChild] {
                var out: [VisibleChild] = []
                for k in list.indices where list[k].container != name && !expanded.contains(k, before: inBefore)
                    && !other.contains(list, k) && !sent.contains(list, k) { out.append(list[k]) }
                return out
            }
            let gone = unsent(visibleBefore, before: true, notIn: afterKeys)
            let came = unsent(visibleAfter, before: false, notIn: beforeKeys)
            sendVisibilityChanges(gone: gone, came: came, &o)
        }
        // R15.10: a tab root's environment reaches the composites below it, after its own events.
        switch command {
        case .rotate, .setSizeClass, .setOrientation:
            if holds, tree == name { spreadEnvironment(below: name, events: true, policy: proposals, &o) }
        default: break
        }
        for x in detached where attachment(of: x) == nil { send(.parentChanged(parent: nil, window: false), from: x, &o) }
        for x in attached { if let p = attachment(of: x) { send(.parentChanged(parent: p, window: false), from: x, &o) } }
        // R15.11: the root's status bar path (a tab root's only while it holds a content
        // controller, or held one before the command).
        if leafOnly {
            if nodes.values[i].lend({ $0.tabBar.statusBarChild }) != leafBefore, let now = shownStatusBarPath(at: .tab(i), known: visibleAfter) {
                send(.statusBarChanged(path: now), from: tree, at: .tab(i), &o)
            }
        } else {
            let pathAfter = tree == name ? shownStatusBarPath(at: .tab(i)) : shownStatusBarPath(tree)
            if let now = pathAfter ?? (pathBefore != nil && tree == name ? statusBarPath(from: .tab(i)) : nil), now != pathBefore {
                send(.statusBarChanged(path: now), from: tree, &o)
            }
        }
        mark(outcome.notifications.count)
        if !o.answers.isEmpty { treeAnswers = o.answers }
        nodes.values[i].tabBar.lend { read($0, outcome) }
        if !o.events.isEmpty || unkeptEvents > 0 {
            treeEvents = o.events
            treeEventPlaces = places
            hasTreeEvents = true
        }
        return outcome
    }
}

extension TabContainers {
    /// `applyInTree` of a `select` that nobody hears (no subscriber, no policy told the tree's
    /// events): its events are numbered, not kept, so only what they leave counts: each
    /// container's seq, the contents they load, the undo log's first saves (in the same
    /// order). A select changes no content and nothing below the tabs, so R15.8 a's expansion
    /// is the old leaf's content's visible subtree (disappearing) and the new one's
    /// (appearing), which are disjoint (a controller has one parent), and R15.11's path
    /// changes exactly when the leaf does. Counted per container, with no visible sets, keys,
    /// events or paths built (`applyInTree` with its notifications built cost a select in a
    /// tab holding a split holding a navigation controller ~19,400 instructions, issue 42).
    /// Nil, nothing done, where this does not hold: a tab controller attached, out of its
    /// window, holding no content, or arranged (R13: its appearances are leaves', its
    /// deciding child its root's), or with search or extras following the selection (R14).
    /// `UnheardSelectLawTests` hold it to `applyInTree`'s full path over generated streams.
    @inline(never)
    mutating func applyUnheardSelect(_ command: Command, to name: String, at i: Dictionary<String, ContainerNode>.Index, policy: Policy,
                                     selectionChanges: Bool, semantics: Semantics,
                                     reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome? {
        guard nodes.values[i].lend({ n in
                  n.holdsContent && n.parent == nil && n.window && !n.tabBar.arranged && n.tabBar.extras == nil && !n.tabBar.searchActive })
        else { return nil }
        // `applyInTree`'s start: the last command's tree events and answers gone.
        unkeptEvents = 0
        if !treeEvents.isEmpty { treeEvents = [] }
        if !treeEventPlaces.isEmpty { treeEventPlaces = [] }
        if !treeAnswers.isEmpty { treeAnswers = [] }
        hasTreeEvents = false
        let (leafBefore, contentBefore) = nodes.values[i].tabBar.flatLeafContent()
        let outcome = try apply(command, to: name, at: i, policy: policy, notifying: false, selectionChanges: selectionChanges,
                                semantics: semantics) { _, _ in }
        if !outcome.isRefused, case let (leaf, content) = nodes.values[i].tabBar.flatLeafContent(), leaf != leafBefore {
            // R15.8 a, as the tab's own appearance notifications order it (R5.1): the old
            // content's will_disappear, the new one's will_appear, then their did_ phases.
            // Each container's events counted at once: its first save comes where its first
            // event did (the old subtree's in pre-order, then the new one's; they are disjoint).
            if let x = contentBefore, let at = contentPosition(of: x) { numberUnheard(below: at, name: x, depth: 1, appearing: false) }
            if let x = content, let at = contentPosition(of: x) { numberUnheard(below: at, name: x, depth: 1, appearing: true) }
            // R15.11: the root's status_bar_changed (`number(name, at: .tab(i))` without its
            // save: `apply` saved the controller for undo, `prepareUndo` always does).
            nodes.values[i].tabBar.seq &+= 1
            unkeptEvents &+= 1
        }
        nodes.values[i].tabBar.lend { read($0, outcome) }
        if unkeptEvents > 0 { hasTreeEvents = true }
        return outcome
    }

    /// `position(of:)` of a container below a tab, a composite's remembered (`recent`: the
    /// same few are looked up by every select of their tabs, and comparing a short name costs
    /// less than hashing it in two tables). `recent` is forgotten wherever a controller is
    /// added or removed, the only changes that move a dictionary's positions.
    mutating func contentPosition(of name: String) -> Position? {
        if let i = lookUpComposite(name) { return .composite(i) }
        return nodes.index(forKey: name).map { .tab($0) }
    }

    /// `sendAppearance` of each child `appendVisible(below:name:depth:to:)` lists, in both
    /// phases of appearing (`appearing`) or of disappearing, numbered and not kept: two events
    /// a visible child, from its container, and a tab controller's leaf loaded first if it
    /// never was.
    mutating func numberUnheard(below at: Position, name: String, depth: Int, appearing: Bool) {
        switch at {
        case .tab(let t):
            guard let (leaf, x) = decidingChild(at) else { return }
            if appearing, nodes.values[t].lend({ $0.tabBar.isLoaded(leaf) }) == false {
                saveWhole(name)
                nodes.values[t].tabBar.setLoaded(leaf, true)
                number(name, at: at)
            }
            number(name, at: at)
            number(name, at: at)
            if let x, depth <= Self.maxChain * 2, let below = contentPosition(of: x) { numberUnheard(below: below, name: x, depth: depth + 1, appearing: appearing) }
        case .composite(let i):
            guard depth <= Self.maxChain * 2 else { return }
            guard let shown = composites.values[i].lend({ $0.body.shownControllers() }) else {
                for child in composites.values[i].lend({ $0.body.shownChildren }) { numberUnheard(child.controller, of: name, at: i, depth: depth, appearing: appearing) }
                return
            }
            if shown.count > 0 { numberUnheard(shown.first, of: name, at: i, depth: depth, appearing: appearing) }
            if shown.count > 1 { numberUnheard(shown.second, of: name, at: i, depth: depth, appearing: appearing) }
        }
    }

    /// One visible child of the composite `name` at `i` (`x`: its controller): its two events,
    /// then what is below it. The composite's first save before anything below it (`send` of
    /// its child's event did so).
    @inline(__always)
    private mutating func numberUnheard(_ x: String?, of name: String, at i: Dictionary<String, Composite>.Index, depth: Int, appearing: Bool) {
        saveComposite(name, at: i)
        composites.values[i].seq &+= 2
        unkeptEvents &+= 2
        if let x, let below = contentPosition(of: x) { numberUnheard(below: below, name: x, depth: depth + 1, appearing: appearing) }
    }
}

extension Outcome {
    /// The tree changed with the command (a content attached, a content popped by a tap): it is
    /// journaled as given (a command journaled in another form keeps it).
    mutating func changeState() {
        if case .none = rewrittenJournal { journalsCommand = true }
    }
}

extension TabContainers {
    /// Keys of visible children (R15.8 a's bookkeeping): a list compared in place while it is
    /// short (a tab's content shows a few children: hashing three strings per key cost more
    /// than the scan), a set once it is long.
    struct VisibleKeys {
        /// The visible children these keys were made from, compared where they are (no key
        /// made of each: a copy of three strings).
        private var children: [VisibleChild] = []
        private var list: [VisibleChild.Key] = []
        private var set: Set<VisibleChild.Key>?
        /// Past this many keys, a set.
        static let scanned = 16

        init() {}

        init(_ children: [VisibleChild]) {
            guard children.count > Self.scanned else { self.children = children; return }
            set = Set(children.map(\.key))
        }

        func contains(_ key: VisibleChild.Key) -> Bool {
            if let set { return set.contains(key) }
            return children.contains { $0.container == key.container && $0.child.id == key.id && $0.child.controller == key.controller }
                || list.contains(key)
        }

        /// `contains(entries[k].key)` without the key made, nor the entry copied (while a
        /// list, compared where they are).
        func contains(_ entries: [VisibleChild], _ k: Int) -> Bool {
            if set != nil { return contains(entries[k].key) }
            return children.contains { $0.container == entries[k].container && $0.child.id == entries[k].child.id && $0.child.controller == entries[k].child.controller }
                || list.contains { $0.container == entries[k].container && $0.id == entries[k].child.id && $0.controller == entries[k].child.controller }
        }

        mutating func insert(_ key: VisibleChild.Key) {
            if set != nil { set!.insert(key); return }
            guard !contains(key) else { return }
            list.append(key)
            if children.count + list.count > Self.scanned {
                set = Set(children.map(\.key) + list)
                children = []
                list = []
            }
        }
    }
}
