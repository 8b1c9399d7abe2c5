// One browser page's WebSocket: TabClient's Mirror of the tab controllers (its containers are
// left to Tree.swift's messages) goes to the page as JSON messages, and the page's requests go to tabd on a connection of their own.
//
// To the page: {"type":"sync", "initial", "instance", "instance_changed", "nothing_missed",
// "controllers": {name: view}}, {"type":"controller", "view", "events": [...]},
// {"type":"resynced", "view", "reason"}, {"type":"deleted", "controller"},
// {"type":"disconnected", "reason"}, {"type":"reply", "id", "reply": tabd's reply}; and
// from a connection of its own, {"type":"tree", …}: the controllers of every kind, where
// each hangs, and the containers' `state` (Tree.swift).
// From the page: {"id": n, "request": {"cmd": …}}.

import Foundation
import HummingbirdWebSocket
import Synchronization
import TabClient
import TabCore
import TabJSON
import TabProtocol

struct Session: Sendable {
    let settings: Settings

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let bridge = Bridge(settings: settings)
        defer { bridge.close() }
        // The page's first message is the mirror's first sync; the tree's come after it.
        let (firstSync, synced) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let mirror = Mirror(path: settings.tabdSocket, reconnect: .init(retryFirstConnect: true))
                for try await update in mirror.updates() {
                    guard let message = Self.message(update) else { continue }
                    try await outbound.writeTextMessage(message.jsonString)
                    if case .synced = update { synced.finish() }
                }
            }
            group.addTask {
                // The containers and where every controller hangs (Tree.swift).
                for await _ in firstSync {}
                try Task.checkCancellation()
                var tree = Tree(path: settings.tabdSocket) { try await outbound.writeTextMessage($0.jsonString) }
                try await tree.run()
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    try await outbound.writeTextMessage(await bridge.answer(text).jsonString)
                }
            }
            // The page went away (or the mirror ended): stop the rest.
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// The page's message for a mirror update; nil for a container's (the tree's messages
    /// draw the containers, Tree.swift).
    static func message(_ update: Mirror.Update) -> JSONValue? {
        switch update {
        case .synced(let s):
            return .object(JSONObject([
                ("type", .string("sync")), ("initial", .bool(s.initial)), ("instance", .string(s.instance)),
                ("instance_changed", .bool(s.instanceChanged)), ("nothing_missed", .bool(s.nothingMissed)),
                ("controllers", .object(JSONObject(s.controllers.sorted { $0.key < $1.key }.map { ($0.key, view($0.value)) }))),
            ]))
        case .changed(let v, let events):
            return .object(JSONObject([("type", .string("controller")), ("view", view(v)), ("events", .array(events.map(event)))]))
        case .resynced(let v, let reason):
            return .object(JSONObject([("type", .string("resynced")), ("view", view(v)), ("reason", .string(reason))]))
        case .compositeChanged, .compositeResynced:
            return nil
        case .deleted(let name, let seq):
            return .object(JSONObject([("type", .string("deleted")), ("controller", .string(name)), ("seq", seq.map { .int(Int64($0)) } ?? .null)]))
        case .disconnected(let reason):
            return .object(JSONObject([("type", .string("disconnected")), ("reason", .string(reason))]))
        }
    }

    static func event(_ e: TabEvent) -> JSONValue {
        .object(JSONObject([("event", .string(e.name)), ("controller", .string(e.controller)), ("seq", .int(Int64(e.seq))), ("data", .object(e.data))]))
    }

    private static func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    private static func texts(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }

    /// What the page draws of a controller: TabClient's picture, as JSON in `state`'s names
    /// (docs/protocol.md) where `state` has them: `bar` (with `position`, `hidden`), `sidebar`
    /// (`available`, `visible`, `items`), `size_class`, `compact_tabs`, `search`, `mode`, and
    /// each tab's `enabled`, `role` and, for a group, `expanded`.
    static func view(_ v: ControllerView) -> JSONValue {
        func tab(_ t: TabView) -> JSONValue {
            var o: [(String, JSONValue)] = [
                ("id", .string(t.id)), ("title", text(t.title)), ("item_title", text(t.itemTitle)), ("badge", text(t.badge)),
                ("navigation", .bool(t.navigation)), ("content_loaded", .bool(t.contentLoaded)), ("hidden", .bool(t.hidden)),
                ("placement", text(t.placement)), ("enabled", .bool(t.enabled)), ("role", t.isSearch ? .string("search") : .null),
                ("stack", .array(t.stack.map { .object(JSONObject([("id", .string($0.id)), ("title", text($0.title))])) })),
            ]
            if let kids = t.children {
                o.append(("children", .array(kids.map(tab))))
                o.append(("shown_child", text(t.shownChild)))
                o.append(("display_order", texts(t.displayOrder)))
                o.append(("expanded", .bool(t.expanded)))
            }
            return .object(JSONObject(o))
        }
        // `state`'s sidebar (R13.6, R13.12): the tree of visible tabs, a group's `expanded`.
        func items(_ list: [TabView]) -> JSONValue {
            .array(list.filter { !$0.hidden }.map { t -> JSONValue in
                var o: [(String, JSONValue)] = [("id", .string(t.id))]
                if t.children != nil { o += [("children", items(t.visibleChildren)), ("expanded", .bool(t.expanded))] }
                return .object(JSONObject(o))
            })
        }
        let available = v.sidebarAvailable
        let sidebar: JSONValue = .object(JSONObject([("available", .bool(available)), ("visible", .bool(v.sidebarWanted)),
                                                     ("items", available ? items(v.tabs) : .array([]))]))
        // The size class `state` reports, or the idiom's own where it reports none (R14.4).
        let sizeClass = v.sizeClass ?? Idiom(rawValue: v.idiom)?.defaultSizeClass.rawValue
        return .object(JSONObject([
            ("name", .string(v.name)), ("idiom", .string(v.idiom)), ("max_visible", .int(Int64(v.maxVisible))), ("seq", .int(Int64(v.seq))),
            ("orientation", .string(v.orientation)), ("supported", texts(v.supported)), ("mode", text(v.mode)),
            ("selected", text(v.selected)), ("selected_path", texts(v.selectedPath)),
            ("bar", .object(JSONObject([("visible", texts(v.bar.visible)), ("more", texts(v.bar.more)), ("selected", text(v.bar.selected)),
                                        ("unreachable", texts(v.bar.unreachable)), ("position", .string(v.bar.position)),
                                        ("hidden", .bool(v.bar.hidden))]))),
            ("tabs", .array(v.tabs.map(tab))), ("sidebar", sidebar),
            ("size_class", text(sizeClass)), ("compact_tabs", v.compactTabs.map(texts) ?? .null),
            ("search", v.searchActive.map { .object(JSONObject([("active", .bool($0))])) } ?? .null),
            ("editing", .bool(v.editing)),
            ("customizing", .bool(v.customizing)), ("customizable", v.customizable.map(texts) ?? .null),
        ]))
    }
}

enum BridgeError: Error { case helloRefused(String) }

/// The page's requests, on a TabClient connection of the session's own (opened again when
/// tabd restarted).
final class Bridge: Sendable {
    let settings: Settings
    private let client = Mutex<TabClient?>(nil)

    init(settings: Settings) { self.settings = settings }

    func close() { client.withLock { $0?.close() } }

    /// The open connection, or a new one. Unless --allow-admin, a new one says first in
    /// `hello` that it relays for web users, so that tabd counts it as no administrator.
    private func connection() async throws -> TabClient {
        let (open, fresh) = try client.withLock { c throws -> (TabClient, Bool) in
            if let open = c, !open.isClosed { return (open, false) }
            let fresh = try TabClient(path: settings.tabdSocket)
            c = fresh
            return (fresh, true)
        }
        if fresh && !settings.allowAdmin {
            let hello = try await open.exchange(#"{"cmd":"hello","via":"tabd-web"}"#)
            guard case .bool(true)? = hello["ok"] else {
                open.close()
                throw BridgeError.helloRefused(JSONValue.object(hello).jsonString)
            }
        }
        return open
    }

    /// The reply message to one message of the page.
    func answer(_ text: String) async -> JSONValue {
        guard case .object(let message)? = try? JSONParser.parse(text), case .object(let request)? = message["request"] else {
            return reply(nil, error("invalid_request", "tabd-web takes {\"id\": n, \"request\": {\"cmd\": …}}"))
        }
        let id = message["id"]
        let line = JSONValue.object(request).jsonString
        if case .success(let decoded) = RequestDecoder.decode(line).result {
            if decoded.command.isAdminOnly && !settings.allowAdmin {
                return reply(id, error("forbidden", "tabd-web passes on '\(decoded.name)' only when started with --allow-admin"))
            }
            if decoded.name == "subscribe" || decoded.name == "unsubscribe" {
                return reply(id, error("invalid_request", "tabd-web sends the page every event itself; '\(decoded.name)' is not passed on"))
            }
        }
        do {
            return reply(id, .object(try await connection().exchange(line)))
        } catch BridgeError.helloRefused(let answer) {
            return reply(id, self.error("unavailable", "tabd at \(settings.tabdSocket) refused tabd-web's hello with \"via\" (\(answer)); run a tabd as new as tabd-web"))
        } catch {
            return reply(id, self.error("unavailable", "tabd at \(settings.tabdSocket) cannot be reached: \(error)"))
        }
    }

    private func reply(_ id: JSONValue?, _ body: JSONValue) -> JSONValue {
        .object(JSONObject([("type", .string("reply")), ("id", id ?? .null), ("reply", body)]))
    }

    private func error(_ code: String, _ message: String) -> JSONValue {
        .object(JSONObject([("ok", .bool(false)), ("error", .object(JSONObject([("code", .string(code)), ("message", .string(message))])))]))
    }
}
