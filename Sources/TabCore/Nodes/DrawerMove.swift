// `open_drawer` and `close_drawer` of a drawer that is a root, taken where the drawer lies
// (issue 42: "no more than a select"). The general path (`apply(_:to:…)` with a NodeCommand)
// builds a step, walks what the drawer starts and stops showing, and gathers the events in a
// `NodeOutcome`: ~10,000 instructions for the one field a drawer's move changes. Here the
// same rules are read off the drawer itself, for the case where nothing below it moves: the
// drawer it opens or closes is a screen (a controller there has a subtree to walk: the general
// path). The events are R15.6 c's and R15.8's, in the order and with the seqs the general path
// gives (DrawerMoveTests runs both on generated trees and compares them, event for event).

/// What `moveDrawer` did, for the reply (PROTOCOL.md: `changed`, `open_side`, `center`).
public struct DrawerMove: Sendable, Equatable {
    public let changed: Bool
    public let openSide: OpenSide
    /// The center's id.
    public let center: String
}

extension TabContainers {
    /// What `moveDrawer` reads of the drawer before it changes anything (no strings: a move
    /// nobody hears reads no id).
    private struct DrawerFacts {
        var previous: OpenSide
        /// The drawer that stops being shown, and the one that starts (screens only).
        var gone: DrawerSide?, came: DrawerSide?
        var window: Bool
    }

    /// `open_drawer` (`side`), or `close_drawer` (`side` nil), of the drawer `name`, with
    /// `gesture` (a user's, checked as R15.26 and R15.9 say, then asked of `policy` to open)
    /// or none (the app's): nil, having checked and changed nothing, unless `name` is a drawer
    /// that is a root whose drawers on both sides of the move are screens — the general path
    /// (`apply(.openDrawer…)`) takes the rest, refusals of a missing drawer included. The
    /// events go to `events` when `keepingEvents`; either way each is numbered (the drawer's
    /// seq moves as the general path moves it).
    public mutating func moveDrawer(_ name: String, open side: DrawerSide?, gesture: DrawerGesture?, policy: Policy,
                                    keepingEvents: Bool, _ events: inout [SentNodeEvent]) throws(TabError) -> DrawerMove? {
        guard let i = lookUpComposite(name) else { return nil }
        let target = side.map(OpenSide.init) ?? .none
        let facts = composites.values[i].lend { c -> DrawerFacts? in
            guard c.parent == nil, case .drawer(let d) = c.body else { return nil }
            // A missing drawer is the general path's refusal.
            if let side, d.isScreen(side) == nil { return nil }
            var facts = DrawerFacts(previous: d.openSide, gone: nil, came: nil, window: c.window)
            guard target != d.openSide else { return facts }
            // A controller shown or hidden has a subtree: the general path walks it.
            if let open = d.openSide.side {
                guard d.isScreen(open) == true else { return nil }
                facts.gone = open
            }
            if let side {
                guard d.isScreen(side) == true else { return nil }
                facts.came = side
            }
            return facts
        }
        guard let facts else { return nil }
        if let gesture {
            let d = composites.values[i].lend { c -> DrawerState? in if case .drawer(let d) = c.body { d } else { nil } }!
            try checkGesture(gesture, opening: side != nil, side: side, d, name: name, policy: policy, replaying: false)
        }
        func center() -> String { composites.values[i].lend { c in if case .drawer(let d) = c.body { d.center.id } else { "" } } }
        guard facts.previous != target else { return DrawerMove(changed: false, openSide: target, center: center()) }
        saveComposite(name, at: i)
        // R15.5: a root shows its children only in its window. Its appearance events (R15.6 c),
        // the state event, then the status bar's (R15.11, R15.8 c: it follows the open drawer,
        // else the center; opening or closing always changes it, and a swap moves it from one
        // drawer to the other).
        if !keepingEvents {
            // Numbered, not kept: the seq moves by as many, in one access.
            let appearing = facts.window ? 2 * ((facts.gone == nil ? 0 : 1) + (facts.came == nil ? 0 : 1)) + 1 : 0
            return composites.values[i].move(to: target, numbering: UInt64(appearing + 1))
        }
        composites.values[i].setOpenSide(target)
        let at = Position.composite(i)
        func send(_ event: NodeEvent) { events.append(SentNodeEvent(controller: name, seq: composites.values[i].nextSeq(), event: event)) }
        func id(_ side: DrawerSide) -> String { composites.values[i].lend { c in if case .drawer(let d) = c.body { d.drawer(side)!.id } else { "" } } }
        if facts.window {
            if let gone = facts.gone { send(.appearance(child: id(gone), controller: nil, phase: .willDisappear)) }
            if let came = facts.came { send(.appearance(child: id(came), controller: nil, phase: .willAppear)) }
            if let gone = facts.gone { send(.appearance(child: id(gone), controller: nil, phase: .didDisappear)) }
            if let came = facts.came { send(.appearance(child: id(came), controller: nil, phase: .didAppear)) }
        }
        let cause: NodeCause = gesture == nil ? .app : .user
        send(composites.values[i].lend { c in
            guard case .drawer(let d) = c.body else { return .windowChanged(false) }
            return .drawerChanged(center: d.center.id, left: d.left?.id, right: d.right?.id, openSide: d.openSide, previous: facts.previous, cause: cause)
        })
        if facts.window {
            send(.statusBarChanged(path: statusBarPath(from: at)))
        }
        return DrawerMove(changed: true, openSide: target, center: center())
    }
}

extension Composite {
    /// A drawer's open side, set where the composite lies.
    mutating func setOpenSide(_ side: OpenSide) {
        guard case .drawer(var d) = body else { return }
        d.openSide = side
        body = .drawer(d)
    }

    /// `setOpenSide`, with `events` events numbered (not kept): the move's reply.
    mutating func move(to side: OpenSide, numbering events: UInt64) -> DrawerMove {
        setOpenSide(side)
        seq &+= events
        guard case .drawer(let d) = body else { return DrawerMove(changed: false, openSide: side, center: "") }
        return DrawerMove(changed: true, openSide: side, center: d.center.id)
    }
}
