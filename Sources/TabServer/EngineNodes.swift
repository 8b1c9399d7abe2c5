// The engine's commands of R15's containers (navigation, drawer, custom): run in TabCore's
// registry, journaled as they succeeded (`node.*` records), their events published each by
// its own container with its own seq.

import TabCore
import TabJSON
import TabProtocol

extension ServiceEngine {
    mutating func runNode(_ r: Request, _ command: NodeCommand, _ out: inout Step) throws(ProtocolError) {
        // As the general decoder's path leaves the step (the fast path's requests did not pass
        // there): not plain, the request's id kept for a reply made at delivery.
        out.plain = false
        out.requestID = r.id
        try runNode(id: r.id, controller: r.controller, command, &out)
    }

    mutating func runNode(id: RequestID?, controller name: String, _ command: NodeCommand, _ out: inout Step) throws(ProtocolError) {
        try requireWritable()
        switch command {
        case .push, .pop, .popToRoot:
            // R6: a tab controller's stacks are its tabs'; as before R15, the tab is required.
            // (The command first: another pays no lookup.)
            if containers.kind(of: name) == .tab { throw .invalid("tab", "'\(command.name)' needs \"tab\"") }
        default: break
        }
        let outcome: NodeOutcome
        do {
            // Events only for those who hear them (numbered all the same).
            outcome = try containers.apply(command, to: name, policy: policy, limits: config.controllerLimits, keepingEvents: nodeEventsHeard)
        } catch {
            if error.code == .denied { stats.denials += 1 }
            // What plugins asked for while deciding (may_open_drawer's store writes), done
            // whether or not they refused, as after a refused tap.
            perform(plugins.takeEffects(), &out)
            throw ProtocolError(error)
        }
        if outcome.changed { journal.append(.node(controller: name, command, answers: outcome.answers)) }
        publish(outcome, &out)
        perform(outcome.effects.isEmpty ? plugins.takeEffects() : outcome.effects + plugins.takeEffects(), &out)
        let c = containers.composites[name]
        let window = c == nil ? containers.node(name)?.window : nil
        ReplyEncoder.success(id: id, into: &out.reply) { w in
            w.key(literal: "changed"); w.bool(outcome.changed)
            if let c {
                ReplyEncoder.nodeResult(command, c, &w)
            } else if let window {
                // A tab controller's set_window (R15.4), the only node command it takes.
                w.key(literal: "window"); w.bool(window)
            }
        }
    }

    /// Whether anyone hears a node command's events (a subscriber, a plugin with notify): if
    /// not, they are numbered and not kept.
    private var nodeEventsHeard: Bool { !subscriptions.isEmpty || plugins.hearsNotifications }

    /// `open_drawer` / `close_drawer`: of a root drawer whose drawers are screens, where the
    /// drawer lies (`TabContainers.moveDrawer`), with the same checks, events, journal record
    /// and reply as `runNode`, at the cost of a select (issue 42); of any other, `runNode`.
    mutating func runDrawer(id: RequestID?, controller name: String, _ d: DrawerRequest, _ out: inout Step) throws(ProtocolError) {
        try requireWritable()
        if try moveDrawer(id: id, name, d, &out) { return }
        try runNode(id: id, controller: name, d.command, &out)
    }

    /// `runDrawer`'s move where the drawer lies; false, nothing done, where it is not one.
    private mutating func moveDrawer(id: RequestID?, _ name: String, _ d: DrawerRequest, _ out: inout Step) throws(ProtocolError) -> Bool {
        var events: [SentNodeEvent] = []
        let move: DrawerMove
        do {
            guard let moved = try containers.moveDrawer(name, open: d.side, gesture: d.gesture, policy: policy,
                                                        keepingEvents: nodeEventsHeard, &events) else { return false }
            move = moved
        } catch {
            if error.code == .denied { stats.denials += 1 }
            perform(plugins.takeEffects(), &out)
            throw ProtocolError(error)
        }
        if move.changed { journal.append(node: d.command, controller: name) }
        publish(events, &out)
        perform(plugins.takeEffects(), &out)
        ReplyEncoder.success(id: id, into: &out.reply) { w in
            w.key(literal: "changed"); w.bool(move.changed)
            ReplyEncoder.drawerResult(openSide: move.openSide, center: move.center, &w)
        }
        return true
    }
}
