// The seq recipe of docs/protocol.md, "Staying in sync", once: a mirror of controllers of
// every kind kept from events alone, resynced when it is in doubt, reconnected with backoff
// after tabd went away. Its user iterates `updates()` and is told every time something
// changed, every time the mirror had to read `state` again and why, and every (re)connection.
// A tab controller is a `ControllerView`; a navigation, split, drawer or custom controller
// (its `state` has a `kind` other than `tab`) a `CompositeView`, kept by CompositeView's own
// `apply(event:seq:data:)`: one subscription mirrors a whole tree of containers.
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
        /// Every tab controller mirrored, by name.
        public var controllers: [String: ControllerView]
        /// Every navigation, split, drawer and custom controller mirrored, by name.
        public var composites: [String: CompositeView]
        /// Each controller's seq before the connection ended (of every kind).
        public var previousSeqs: [String: Int]
        /// Named controllers that do not exist (their `state` answered this).
        public var missing: [String: TabdError]

        /// tabd was restarted between the two syncs.
        public var instanceChanged: Bool { previousInstance != nil && previousInstance != instance }
        /// Every controller's seq is the one it had: no event was missed (seq continues
        /// across restarts, R11.4).
        public var nothingMissed: Bool {
            !initial && previousSeqs.count == controllers.count + composites.count
                && controllers.allSatisfy { previousSeqs[$0.key] == $0.value.seq }
                && composites.allSatisfy { previousSeqs[$0.key] == $0.value.seq }
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
        /// Events changed a navigation, split, drawer or custom controller (as `changed`).
        case compositeChanged(CompositeView, events: [TabEvent])
        /// The mirror was in doubt about a controller (`reason`) and read its `state` again;
        /// also the first sight of a controller created after the sync (reason says so).
        case resynced(ControllerView, reason: String)
        /// The same for a navigation, split, drawer or custom controller.
        case compositeResynced(CompositeView, reason: String)
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
    var composites: [String: CompositeView] = [:]
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
        let previous = views.mapValues(\.seq).merging(composites.mapValues(\.seq)) { a, _ in a }
        var report = Mirror.Sync(initial: !synced, instance: hello.instance, previousInstance: synced ? instance : nil,
                                 controllers: [:], composites: [:], previousSeqs: previous, missing: [:])
        for name in mirror.names ?? seqs.keys.sorted() {
            do {
                switch try await Self.read(c, name) {
                case .tab(let v): report.controllers[name] = v
                case .composite(let v): report.composites[name] = v
                }
            } catch let e as TabdError where e.code == .notFound {
                report.missing[name] = e
            }
        }
        views = report.controllers
        composites = report.composites
        instance = hello.instance
        synced = true
        out.yield(.synced(report))
    }

    /// A controller's picture, by its kind.
    enum Picture { case tab(ControllerView), composite(CompositeView) }

    /// `name`'s `state`: a tab controller's, or a navigation, split, drawer or custom
    /// controller's (its `kind` says).
    static func read(_ c: TabClient, _ name: String) async throws -> Picture {
        let o = try await c.stateObject(name)
        if let kind = o.text("kind"), kind != "tab" { return .composite(CompositeView(state: o, name: name)) }
        return .tab(ControllerView(state: o, name: name))
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
                guard let seq = views[name]?.seq ?? composites[name]?.seq else {
                    // Created (again) after the sync: its state says all of it.
                    if doubt[name] == nil { doubt[name] = "controller '\(name)' appeared"; order.append(name) }
                    continue
                }
                guard event.seq > seq else { continue }  // already in the state read
                if doubt[name] != nil { continue }  // its state is read again anyway
                if event.seq != seq + 1 {
                    doubt[name] = "seq \(seq) was followed by \(event.seq)"
                    order.append(name)
                    continue
                }
                let outcome: ControllerView.Outcome
                if var view = views[name] {
                    outcome = view.apply(event: event.name, seq: event.seq, data: event.data)
                    views[name] = view
                } else {
                    var view = composites[name]!
                    outcome = view.apply(event: event.name, seq: event.seq, data: event.data)
                    composites[name] = view
                }
                switch outcome {
                case .deleted:
                    views[name] = nil
                    composites[name] = nil
                    changed[name] = nil
                    unannounced.remove(name)
                    out.yield(.deleted(name, seq: event.seq))
                    continue
                case .unsure:
                    doubt[name] = "\(event.name) at seq \(event.seq) did not say enough"
                case .applied:
                    if views[name] != nil && ControllerView.rereadAfter.contains(event.name) { unannounced.insert(name) }
                }
                if changed[name] == nil { order.append(name) }
                changed[name, default: []].append(event)
            }
            for name in order.uniqued() {
                if let reason = doubt[name] {
                    do {
                        switch try await Self.read(c, name) {
                        case .tab(let v):
                            views[name] = v
                            composites[name] = nil
                            out.yield(.resynced(v, reason: reason))
                        case .composite(let v):
                            composites[name] = v
                            views[name] = nil
                            out.yield(.compositeResynced(v, reason: reason))
                        }
                    } catch let e as TabdError where e.code == .notFound {
                        let had = views.removeValue(forKey: name) != nil || composites.removeValue(forKey: name) != nil
                        if had { out.yield(.deleted(name, seq: nil)) }
                    }
                    continue
                }
                guard let events = changed[name] else { continue }
                if let composite = composites[name] {
                    out.yield(.compositeChanged(composite, events: events))
                    continue
                }
                guard var view = views[name] else { continue }
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
