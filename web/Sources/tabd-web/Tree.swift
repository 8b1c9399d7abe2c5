// The containers beyond tabs (docs/protocol.md, "Containers beyond tabs"): which controllers
// there are, what kind each is and where it hangs (`controllers`), and the `state` of every
// navigation, drawer, custom and split controller, kept on a connection of their own.
// Session sends the page TabClient's Mirror of the tab controllers; this follows the rest,
// plainly, with where every controller hangs (which the Mirror's pictures of tab controllers
// do not say): it subscribes to every controller's events and, after each command's events,
// reads `state` again of every container in the trees those events touched (correctness over
// cleverness: a container's visibility changes with its ancestors', which send the events).
//
// To the page: {"type":"tree", "full", "controllers": [`controllers`' entries], "states":
// {name: state}, "events": [the containers' events since the last message]}. `full`: `states` holds every container (after a (re)connection); else only
// those read again, and a name no longer in `controllers` is gone. Tab controllers are the
// Mirror's: their `state` has no `parent` or `visible`, so the page reads where one hangs
// from `controllers` and whether it shows from its container's `state`.

import Foundation
import TabClient
import TabJSON

struct Tree {
    let path: String
    /// What goes to the page.
    let send: @Sendable (JSONValue) async throws -> Void

    /// `controllers`' entries, by name, in tabd's order.
    private var summaries: [(name: String, entry: JSONObject)] = []

    init(path: String, send: @escaping @Sendable (JSONValue) async throws -> Void) {
        self.path = path; self.send = send
    }

    /// Follows tabd until cancelled, reconnecting as the Mirror does (50 ms doubling to 1 s).
    mutating func run() async throws {
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled {
            guard let c = try? TabClient(path: path) else {
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(1))
                continue
            }
            do {
                _ = try await c.hello()
                _ = try await c.subscribe(events: ["*"], controllers: nil)
                try await list(c)
                try await send(message(full: true, states: try await read(c, summaries.filter { kind($0.entry) != "tab" }.map(\.name))))
                delay = .milliseconds(50)
                try await follow(c)
            } catch is CancellationError {
                c.close()
                return
            } catch {
                // The connection ended (tabd stopped or restarted), or tabd refused a request:
                // connect again, after a pause that grows while it does not get as far as a sync.
            }
            c.close()
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(1))
        }
    }

    /// After each command's events: the list again when a controller came, went or moved,
    /// then `state` of every container in the trees they touched.
    private mutating func follow(_ c: TabClient) async throws {
        while true {
            let batch = await c.nextEvents()
            if batch.isEmpty { throw TabClientError.disconnected }
            try Task.checkCancellation()
            let known = Set(summaries.map(\.name))
            let moved: Set<String> = ["parent_changed", "window_changed", "controller_deleted"]
            let relist = batch.contains { moved.contains($0.name) || !known.contains($0.controller) }
            if relist { try await list(c) }
            let names = trees(of: Set(batch.map(\.controller)))
            if names.isEmpty && !relist { continue }
            // The containers' events for the page's log (the Mirror's are the tab controllers').
            let kinds = Dictionary(summaries.map { ($0.name, kind($0.entry)) }, uniquingKeysWith: { a, _ in a })
            let events = batch.filter { (kinds[$0.controller] ?? "tab") != "tab" }
            try await send(message(full: false, states: try await read(c, names), events: events))
        }
    }

    private mutating func list(_ c: TabClient) async throws {
        let result = try await c.request("controllers")
        guard case .array(let entries)? = result["controllers"] else { summaries = []; return }
        summaries = entries.compactMap { e -> (name: String, entry: JSONObject)? in
            guard case .object(let o) = e, case .string(let name)? = o["name"] else { return nil }
            return (name: name, entry: o)
        }
    }

    private func kind(_ entry: JSONObject) -> String {
        if case .string(let k)? = entry["kind"] { return k }
        return "tab"
    }

    private func parent(_ entry: JSONObject) -> String? {
        if case .object(let p)? = entry["parent"], case .string(let name)? = p["controller"] { return name }
        return nil
    }

    /// Every container in the trees of `names` (their roots and everything below).
    private func trees(of names: Set<String>) -> [String] {
        let byName = Dictionary(summaries.map { ($0.name, $0.entry) }, uniquingKeysWith: { a, _ in a })
        var roots: Set<String> = []
        for name in names {
            var at = name, steps = 0
            while let entry = byName[at], let up = parent(entry), steps < 64 { at = up; steps += 1 }
            if byName[at] != nil { roots.insert(at) }
        }
        var below: [String: [String]] = [:]
        for s in summaries { if let p = parent(s.entry) { below[p, default: []].append(s.name) } }
        var out: [String] = [], stack = Array(roots)
        var seen: Set<String> = []
        while let name = stack.popLast() {
            guard seen.insert(name).inserted, let entry = byName[name] else { continue }
            if kind(entry) != "tab" { out.append(name) }
            stack += below[name] ?? []
        }
        return out.sorted()
    }

    /// `state` of each container (one deleted meanwhile is left out: the next list drops it).
    private func read(_ c: TabClient, _ names: [String]) async throws -> [(String, JSONValue)] {
        var states: [(String, JSONValue)] = []
        for name in names {
            do {
                states.append((name, .object(try await c.stateObject(name))))
            } catch let e as TabdError where e.code == .notFound {
                continue
            }
        }
        return states
    }

    private func message(full: Bool, states: [(String, JSONValue)], events: [TabEvent] = []) -> JSONValue {
        .object(JSONObject([
            ("type", .string("tree")), ("full", .bool(full)),
            ("controllers", .array(summaries.map { .object($0.entry) })),
            ("states", .object(JSONObject(states))), ("events", .array(events.map(Session.event))),
        ]))
    }
}
