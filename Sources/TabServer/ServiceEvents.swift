// Subscriptions and events: what each connection wants, and the events sent to it.

import Foundation
import Logging
import TabCore
import TabPlugins
import TabProtocol
import TabTransport

/// What the service keeps per connection.
final class ClientState {
    /// Event names this client wants ("*" = all).
    var events: Set<String> = []
    /// Controllers whose events it wants; nil = all.
    var controllers: Set<String>?
    var wantsAll: Bool { events.contains("*") }

    func wants(_ event: String, controller: String) -> Bool {
        (wantsAll || events.contains(event)) && (controllers?.contains(controller) ?? true)
    }
}

extension TabService {
    /// `subscribe`: the events (and controllers) this connection wants from now on, and where
    /// each concerned controller's numbering stands.
    func subscribe(_ r: Request, events: [String], controllers: [String]?, _ connection: Connection) {
        let state = clientState(connection)
        state.events.formUnion(events)
        if let controllers { state.controllers = Set(controllers) }
        subscribers[connection.id] = connection
        connection.keepsAlive = true  // a subscriber waits for events: never idle
        reply(r) { w in
            w.key(literal: "events"); ReplyEncoder.strings(state.events.sorted(), &w)
            if let c = state.controllers { w.key(literal: "controllers"); ReplyEncoder.strings(c.sorted(), &w) }
            // Where each concerned controller's numbering stands: events after these are
            // the ones this subscription will see (R11.4).
            w.key(literal: "seqs"); w.beginObject()
            for name in state.controllers?.sorted() ?? containers.names {
                if let c = containers[name] { w.key(name); w.int(Int(truncatingIfNeeded: c.seq)) }
            }
            w.endObject()
        }
    }

    func unsubscribe(_ r: Request, events: [String], _ connection: Connection) {
        let state = clientState(connection)
        if events.contains("*") { state.events.removeAll() } else { state.events.subtract(events) }
        if state.events.isEmpty {
            subscribers[connection.id] = nil
            connection.keepsAlive = false
        }
        reply(r) { w in w.key(literal: "events"); ReplyEncoder.strings(state.events.sorted(), &w) }
    }

    /// Sends the outcome's notifications as events, numbered up to the controller's `seq`
    /// (the state machine counted them, published or not).
    func publish(_ outcome: Outcome, controller: String) {
        guard outcome.notificationCount > 0, !subscribers.isEmpty, outcome.recordsNotifications,
              let c = containers[controller] else { return }
        var s = c.seq &- UInt64(outcome.notifications.count)
        for n in outcome.notifications {
            s &+= 1
            let name = n.eventName
            var encoded = false
            var shared: SharedOutput?
            for conn in subscribers.values where clientState(conn).wants(name, controller: controller) {
                if !encoded {
                    ew.reset()
                    ReplyEncoder.event(n, controller: controller, seq: s, in: c, into: &ew)
                    encoded = true
                    // A big event (the tab objects of a full controller's `tabs_changed`) is
                    // kept once for all its subscribers, not copied into each one's buffer.
                    if ew.count >= Connection.bigOutput { shared = ew.withBytes { SharedOutput($0) } }
                }
                if let shared { conn.send(shared) } else { ew.withBytes { conn.send($0) } }
                stats.eventsSent += 1
            }
        }
    }

    /// `controller_deleted`, numbered `seq`, to the deleted controller's subscribers: its
    /// last event.
    func controllerDeleted(_ name: String, seq: UInt64) {
        var encoded = false
        for conn in subscribers.values where clientState(conn).wants(Notification.controllerDeleted, controller: name) {
            if !encoded {
                ew.reset()
                ReplyEncoder.controllerDeleted(name, seq: seq, into: &ew)
                encoded = true
            }
            ew.withBytes { conn.send($0) }
            stats.eventsSent += 1
        }
    }

    /// A plugin's event, numbered in its controller's sequence, to the subscribers that want it.
    func publishPluginEvent(plugin: String, controller: String, dataJSON: String) {
        guard let n = containers.nextSeq(controller) else {
            logger.warning("a plugin emitted an event for a controller that no longer exists; dropped", metadata: ["plugin": "\(plugin)", "controller": "\(controller)"])
            return
        }
        store.append(.eventSeq(controller: controller, seq: n))
        guard subscribers.values.contains(where: { clientState($0).wants("plugin", controller: controller) }) else { return }
        ew.reset()
        ReplyEncoder.pluginEvent(plugin: plugin, controller: controller, seq: n, dataJSON: dataJSON, into: &ew)
        for s in subscribers.values where clientState(s).wants("plugin", controller: controller) {
            ew.withBytes { s.send($0) }
            if capture != nil { capture!.append((s, ew.bytes)) }
        }
    }

    private func clientState(_ c: Connection) -> ClientState {
        if let s = c.context as? ClientState { return s }
        let s = ClientState()
        c.context = s
        return s
    }
}
