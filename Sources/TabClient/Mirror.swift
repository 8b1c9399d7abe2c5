// The seq recipe of docs/protocol.md, "Staying in sync", once: a mirror of controllers kept
// from events alone, resynced when it is in doubt, reconnected with backoff after tabd
// went away. Its user iterates `updates()` and is told every time something changed, every
// time the mirror had to read `state` again and why, and every (re)connection.
//
// On one connection: `hello` (the instance), `subscribe` (every event, the controllers
// watched), `state` of each; then events apply in seq order, those not later than what a
// `state` reply already includes are dropped. A seq that skips one, or an event that does
// not say enough (ControllerView.apply's `.unsure`), puts the controller in doubt: its
// `state` is read again. The fields events do not announce (orientation.supported and
// preferred) are read from `state` again after the events that may change them.

import Foundation
import TabProtocol

public struct Mirror: Sendable {
    /// How long to keep trying after the connection ended, and how fast.
    public struct Reconnect: Sendable, Equatable {
        /// nil: for ever.
        public var giveUpAfter: Duration?
        public var firstDelay: Duration
        public var maxDelay: Duration
        /// Whether the first connection is retried too (else its failure ends `updates()`).
        public var retryFirstConnect: Bool

        public init(giveUpAfter: Duration? = nil, firstDelay: Duration = .milliseconds(50), maxDelay: Duration = .seconds(1),
                    retryFirstConnect: Bool = false) {
            self.giveUpAfter = giveUpAfter; self.firstDelay = firstDelay; self.maxDelay = maxDelay
            self.retryFirstConnect = retryFirstConnect
        }
    }

    /// A (re)connection's outcome: what the mirror now holds and how it compares.
    public struct Sync: Sendable {
        /// The first sync of this mirror.
        public var initial: Bool
        public var instance: String
        /// The instance of the tabd of the previous sync (nil at the first).
        public var previousInstance: String?
        /// Every controller mirrored, by name.
        public var controllers: [String: ControllerView]
        /// Each controller's seq before the connection ended.
        public var previousSeqs: [String: Int]
        /// Named controllers that do not exist (their `state` answered this).
        public var missing: [String: TabdError]

        /// tabd was restarted between the two syncs.
        public var instanceChanged: Bool { previousInstance != nil && previousInstance != instance }
        /// Every controller's seq is the one it had: no event was missed (seq continues
        /// across restarts, R11.4).
        public var nothingMissed: Bool {
            !initial && previousSeqs.count == controllers.count && controllers.allSatisfy { previousSeqs[$0.key] == $0.value.seq }
        }
    }

    public enum Update: Sendable {
        /// Connected (or reconnected) and read every controller's `state`.
        case synced(Sync)
        /// Events changed a controller: one update per controller for a command's events,
        /// applied together (the batch `TabClient.nextEvents` hands out ends at the event
        /// tabd marks `"last": true`, or is a grouped line), so `tabctl show --watch` and
        /// tabd-web draw once per command.
        case changed(ControllerView, events: [TabEvent])
        /// The mirror was in doubt about a controller (`reason`) and read its `state` again;
        /// also the first sight of a controller created after the sync (reason says so).
        case resynced(ControllerView, reason: String)
        /// `controller_deleted` (its seq), or a `state` that no longer finds it (nil).
        case deleted(String, seq: Int?)
        /// The connection ended; reconnecting (`reason`: what ended it, with the connection's
        /// `DisconnectReason`).
        case disconnected(reason: String)
    }

    public var path: String
    /// nil: every controller, the ones created later too.
    public var names: [String]?
    public var reconnect: Reconnect

    public init(path: String, controllers names: [String]? = nil, reconnect: Reconnect = Reconnect()) {
        self.path = path; self.names = names; self.reconnect = reconnect
    }

    /// Runs the mirror while the stream is iterated (ending the iteration stops it). It
    /// finishes by throwing TabClientError.unreachable when tabd could not be reached again
    /// within `reconnect.giveUpAfter` (or at first, unless `retryFirstConnect`).
    public func updates() -> AsyncThrowingStream<Update, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var runner = Runner(mirror: self, out: continuation)
                do {
                    try await runner.run()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// One mirror's loop (one task).
private struct Runner {
    let mirror: Mirror
    let out: AsyncThrowingStream<Mirror.Update, any Error>.Continuation
    var views: [String: ControllerView] = [:]
    var instance: String?
    var synced = false
    var client: TabClient?

    init(mirror: Mirror, out: AsyncThrowingStream<Mirror.Update, any Error>.Continuation) {
        self.mirror = mirror; self.out = out
    }

    mutating func run() async throws {
        defer { client?.close() }
        while !Task.isCancelled {
            let c = try await connect()
            client = c
            do {
                try await sync(c)
                try await follow(c)
            } catch is TabClientError {
                // The connection ended: reconnect below.
            } catch is CancellationError {
                return
            }
            let why = c.disconnectReason.map { ": \($0)" } ?? ""
            c.close()
            client = nil
            if Task.isCancelled { return }
            out.yield(.disconnected(reason: "the connection to tabd at \(mirror.path) ended\(why)"))
        }
    }

    /// Connects, retrying with backoff (the first time only when asked to).
    func connect() async throws -> TabClient {
        let clock = ContinuousClock()
        let deadline = mirror.reconnect.giveUpAfter.map { clock.now + $0 }
        var delay = mirror.reconnect.firstDelay
        while true {
            do {
                return try TabClient(path: mirror.path)
            } catch {
                if !synced && !mirror.reconnect.retryFirstConnect { throw error }
                if let deadline, clock.now + delay > deadline { throw error }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, mirror.reconnect.maxDelay)
            }
        }
    }

    /// hello, subscribe, state of each: the recipe's first three steps.
    mutating func sync(_ c: TabClient) async throws {
        let hello = try await c.hello()
        let seqs = try await c.subscribe(events: ["*"], controllers: mirror.names)
        var report = Mirror.Sync(initial: !synced, instance: hello.instance, previousInstance: synced ? instance : nil,
                                 controllers: [:], previousSeqs: views.mapValues(\.seq), missing: [:])
        var fresh: [String: ControllerView] = [:]
        for name in mirror.names ?? seqs.keys.sorted() {
            do {
                fresh[name] = try await c.state(name)
            } catch let e as TabdError where e.code == .notFound {
                report.missing[name] = e
            }
        }
        views = fresh
        report.controllers = fresh
        instance = hello.instance
        synced = true
        out.yield(.synced(report))
    }

    /// Applies events batch by batch until the connection ends.
    mutating func follow(_ c: TabClient) async throws {
        while true {
            let batch = await c.nextEvents()
            if batch.isEmpty { throw TabClientError.disconnected }
            try Task.checkCancellation()
            var changed: [String: [TabEvent]] = [:]
            var order: [String] = []
            var doubt: [String: String] = [:]
            var unannounced: Set<String> = []
            for event in batch {
                let name = event.controller
                if let names = mirror.names, !names.contains(name) { continue }
                guard var view = views[name] else {
                    // Created (again) after the sync: its state says all of it.
                    if doubt[name] == nil { doubt[name] = "controller '\(name)' appeared"; order.append(name) }
                    continue
                }
                guard event.seq > view.seq else { continue }  // already in the state read
                if doubt[name] != nil { continue }  // its state is read again anyway
                if event.seq != view.seq + 1 {
                    doubt[name] = "seq \(view.seq) was followed by \(event.seq)"
                    order.append(name)
                    continue
                }
                switch view.apply(event: event.name, seq: event.seq, data: event.data) {
                case .deleted:
                    views[name] = nil
                    changed[name] = nil
                    unannounced.remove(name)
                    out.yield(.deleted(name, seq: event.seq))
                    continue
                case .unsure:
                    doubt[name] = "\(event.name) at seq \(event.seq) did not say enough"
                case .applied:
                    if ControllerView.rereadAfter.contains(event.name) { unannounced.insert(name) }
                }
                views[name] = view
                if changed[name] == nil { order.append(name) }
                changed[name, default: []].append(event)
            }
            for name in order.uniqued() {
                if let reason = doubt[name] {
                    do {
                        let view = try await c.state(name)
                        views[name] = view
                        out.yield(.resynced(view, reason: reason))
                    } catch let e as TabdError where e.code == .notFound {
                        if views.removeValue(forKey: name) != nil { out.yield(.deleted(name, seq: nil)) }
                    }
                    continue
                }
                guard var view = views[name], let events = changed[name] else { continue }
                if unannounced.contains(name) {
                    do {
                        view.readUnannounced(from: try await c.stateObject(name))
                        views[name] = view
                    } catch let e as TabdError where e.code == .notFound {}
                }
                out.yield(.changed(view, events: events))
            }
        }
    }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
