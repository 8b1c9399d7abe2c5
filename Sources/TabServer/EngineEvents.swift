// Subscriptions and events: what each client wants, and the events the engine puts in its
// step for each of them.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport

/// What a client subscribed to.
struct Subscription {
    /// Event names this client wants ("*" = all).
    var events: Set<String> = []
    /// Controllers whose events it wants; nil = all.
    var controllers: Set<String>?
    /// A command's events as one line, `{"events":[…]}` (else one line each, the last of
    /// them marked `"last":true`).
    var grouped = false
    var wantsAll: Bool { events.contains("*") }

    func wants(_ event: String, controller: String) -> Bool {
        (wantsAll || events.contains(event)) && (controllers?.contains(controller) ?? true)
    }
}

extension ServiceEngine {
    /// `subscribe`: the events (and controllers) this client wants from now on, and where
    /// each concerned controller's numbering stands.
    mutating func subscribe(_ r: Request, events: [String], controllers: [String]?, grouped: Bool?, _ client: Client, _ out: inout Step) {
        var s = subscriptions[client.id] ?? Subscription()
        s.events.formUnion(events)
        if let controllers { s.controllers = Set(controllers) }
        if let grouped, grouped != s.grouped {
            s.grouped = grouped
            groupedSubscribers += grouped ? 1 : -1
        }
        subscriptions[client.id] = s
        out.plain = false
        out.subscribed = true  // a subscriber waits for events: never idle
        reply(r, &out) { w in
            w.key(literal: "events"); ReplyEncoder.strings(s.events.sorted(), &w)
            if let c = s.controllers { w.key(literal: "controllers"); ReplyEncoder.strings(c.sorted(), &w) }
            if s.grouped { w.key(literal: "grouped"); w.bool(true) }
            // Where each concerned controller's numbering stands: events after these are
            // the ones this subscription will see (R11.4).
            w.key(literal: "seqs"); w.beginObject()
            // Every kind's (R15: navigation, drawer and custom controllers number their own).
            for name in s.controllers?.sorted() ?? containers.allNames {
                if let c = containers[name] {
                    w.key(name); w.int(Int(truncatingIfNeeded: c.seq))
                } else if let c = containers.composites[name] {
                    w.key(name); w.int(Int(truncatingIfNeeded: c.seq))
                }
            }
            w.endObject()
        }
    }

    mutating func unsubscribe(_ r: Request, events: [String], _ client: Client, _ out: inout Step) {
        var s = subscriptions[client.id] ?? Subscription()
        if events.contains("*") { s.events.removeAll() } else { s.events.subtract(events) }
        if s.events.isEmpty {
            if s.grouped { groupedSubscribers -= 1 }
            subscriptions[client.id] = nil
            out.plain = false
            out.subscribed = false
        } else {
            subscriptions[client.id] = s
        }
        reply(r, &out) { w in w.key(literal: "events"); ReplyEncoder.strings(s.events.sorted(), &w) }
    }

    /// The outcome's notifications as events, numbered up to the controller's `seq` (the
    /// state machine counted them, published or not).
    mutating func publish(_ outcome: Outcome, controller: String, _ out: inout Step) {
        guard outcome.notificationCount > 0, !subscriptions.isEmpty, outcome.recordsNotifications,
              let c = containers[controller] else { return }
        var s = c.seq &- UInt64(outcome.notifications.count)
        for n in outcome.notifications {
            s &+= 1
            let seq = s
            deliver(n.eventName, controller: controller, &out) { w in ReplyEncoder.event(n, controller: controller, seq: seq, in: c, into: &w) }
        }
    }

    /// A tab controller's command in a tree: its notifications with the other containers'
    /// events (`TabContainers.treeEvents`) each where TabCore placed it (R15.8 a: a tab's
    /// content right after the tab's appearance; R15.14: a tap's pop first). The tab
    /// controller's own tree events (a root's `status_bar_changed`) come after its
    /// notifications, so these are numbered back from its seq past them.
    mutating func publishInTree(_ outcome: Outcome, controller: String, _ out: inout Step) {
        let (events, places) = containers.takePlacedTreeEvents()
        guard !subscriptions.isEmpty, outcome.recordsNotifications, let c = containers[controller] else {
            if plugins.hearsNotifications { publish(events, &out) }
            return
        }
        let own = events.reduce(0) { $0 + ($1.controller == controller ? 1 : 0) }
        let contents = containers.node(controller)?.holdsContent ?? false
        var s = c.seq &- UInt64(outcome.notifications.count + own)
        var next = 0
        for (k, n) in outcome.notifications.enumerated() {
            while next < events.count, places[next] <= k { deliverNode(events[next], &out); next += 1 }
            s &+= 1
            let seq = s
            deliver(n.eventName, controller: controller, &out) { w in ReplyEncoder.event(n, controller: controller, seq: seq, in: c, contents: contents, into: &w) }
        }
        while next < events.count { deliverNode(events[next], &out); next += 1 }
        if plugins.hearsNotifications { notifyPlugins(events, &out) }
    }

    /// `controller_deleted`, numbered `seq`, to the deleted controller's subscribers: its
    /// last event.
    mutating func controllerDeleted(_ name: String, seq: UInt64, _ out: inout Step) {
        deliver(Notification.controllerDeleted, controller: name, &out) { w in ReplyEncoder.controllerDeleted(name, seq: seq, into: &w) }
    }

    /// A plugin's event, numbered in its controller's sequence, to the subscribers that want it.
    mutating func publishPluginEvent(plugin: String, controller: String, dataJSON: String, _ out: inout Step) {
        guard let n = containers.nextSeq(controller) else {
            plugins.warnings.warn("event of a deleted controller", subject: plugin, "a plugin emitted an event for a controller that no longer exists; dropped", metadata: ["plugin": "\(plugin)", "controller": "\(controller)"])
            return
        }
        journal.append(.eventSeq(controller: controller, seq: n))
        deliver("plugin", controller: controller, fromPlugin: true, &out) { w in
            ReplyEncoder.pluginEvent(plugin: plugin, controller: controller, seq: n, dataJSON: dataJSON, into: &w)
        }
    }

    /// One event of an R15 container.
    mutating func deliverNode(_ e: SentNodeEvent, _ out: inout Step) {
        guard let nested = nestedTab(of: e) else { return }
        let tab = fromTabController(e)
        deliver(e.event.event.rawValue, controller: e.controller, &out) { w in Self.encodeNode(e, nested: nested, tab: tab, &w) }
    }

    /// Whether `e` is a tab controller's appearance or containment of a tab whose content
    /// changed (R15.2): it names the child as `tab` too.
    private func fromTabController(_ e: SentNodeEvent) -> Bool {
        switch e.event {
        // A composite's (the common case) by one lookup of its index: no copy of it.
        case .appearance, .containment: return containers.composites.index(forKey: e.controller) == nil && containers.nodes.index(forKey: e.controller) != nil
        default: return false
        }
    }

    /// What an R15 event is encoded with: for a nested tab controller's own event (a tree's
    /// restore) that controller (nil when it is gone: the event is not sent), else `.some(nil)`.
    private func nestedTab(of e: SentNodeEvent) -> Controller?? {
        guard case .tab = e.event else { return .some(nil) }
        return containers[e.controller].map { .some($0) } ?? nil
    }

    /// An R15 event as a subscriber gets it, the line's newline included: a nested tab
    /// controller's own event as every tab event is (with `nested`, its controller).
    private static func encodeNode(_ e: SentNodeEvent, nested: Controller?, tab: Bool, _ w: inout JSONWriter) {
        if case .tab(let n) = e.event, let c = nested {
            ReplyEncoder.event(n, controller: e.controller, seq: e.seq, in: c, into: &w)
        } else {
            ReplyEncoder.event(e, tab: tab, into: &w)
        }
    }

    /// Plugin ABI 1.11 (R15.33): each of an R15 command's events, in order, to the plugins that
    /// have `notify`, as the bytes a subscriber gets (without the newline); what they ask for
    /// meanwhile is done. Called once the command is applied and journaled.
    mutating func notifyPlugins(_ events: [SentNodeEvent], _ out: inout Step) {
        var effects: [PolicyEffect] = []
        var w = JSONWriter(capacity: 512)
        for e in events {
            guard let nested = nestedTab(of: e) else { continue }
            w.reset()
            Self.encodeNode(e, nested: nested, tab: fromTabController(e), &w)
            let length = w.withBytes { $0.last == UInt8(ascii: "\n") ? $0.count - 1 : $0.count }
            w.truncate(to: length)
            let plugins = self.plugins
            w.withCString { json in plugins.notifyEvent(e.event.event.rawValue, controller: e.controller, json: json, length: length, effects: &effects) }
        }
        perform(effects, &out)
    }

    /// One event, encoded once (`encode`) if anyone wants it, for every subscriber that does.
    /// A big one (the tab objects of a full controller's `tabs_changed`) is kept once for all
    /// its subscribers, not copied into each one's buffer.
    private mutating func deliver(_ event: String, controller: String, fromPlugin: Bool = false, _ out: inout Step,
                                  _ encode: (inout JSONWriter) -> Void) {
        recipientScratch.removeAll(keepingCapacity: true)
        for (client, s) in subscriptions where s.wants(event, controller: controller) { recipientScratch.append(client) }
        guard !recipientScratch.isEmpty else { return }
        let start = out.events.count
        encode(&out.events)
        let count = out.events.count - start
        var shared: SharedOutput?
        if count >= Connection.bigOutput {
            shared = out.events.withBytes { SharedOutput(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            out.events.truncate(to: start)  // kept once, in `shared`
        }
        if out.recipients.last != recipientScratch { out.recipients.append(recipientScratch) }
        out.plain = false
        out.deliveries.append(Step.Delivery(start: start, count: count, shared: shared, recipients: out.recipients.count - 1, fromPlugin: fromPlugin))
        stats.eventsSent += UInt64(recipientScratch.count)
    }
}

extension ServiceEngine {
    /// An R15 command's events, each from its own container with the seq the registry gave it.
    mutating func publish(_ outcome: NodeOutcome, _ out: inout Step) { publish(outcome.events, &out) }

    /// Also what `notify` tells the plugins (nothing is encoded for them when none has it).
    mutating func publish(_ events: [SentNodeEvent], _ out: inout Step) {
        guard !events.isEmpty else { return }
        if !subscriptions.isEmpty { for e in events { deliverNode(e, &out) } }
        if plugins.hearsNotifications { notifyPlugins(events, &out) }
    }
}
