// SEMANTICS R15.15–R15.23 against a real tabd: split view controllers created, changed,
// collapsed and expanded over the socket, nested in a drawer; each test named after its rule.
// Bad input is a clear error that changes nothing; the split survives SIGTERM and SIGKILL.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite struct SplitEndToEndTests {
    /// A tabd with the pad split `s` (double: `boxes` the navigation controller `nav` as
    /// primary, `msg` secondary), a window's root, turned to landscape; a client subscribed to both.
    static func padSplit() throws -> (TabdProcess, LineClient, LineClient) {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","idiom":"pad","stack":[{"id":"inbox"}]}"#)
        let created = try c.ok(#"{"cmd":"controller.create","controller":"s","kind":"split","style":"double","idiom":"pad","window":true,"primary":{"id":"boxes","controller":"nav"},"secondary":{"id":"msg"}}"#)
        #expect(created.string("display_mode") == "secondary_only")  // R15.17: automatic overlays in portrait
        try c.ok(#"{"cmd":"rotate","controller":"s","orientation":"landscape_left"}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["s","nav"],"events":["*"]}"#)
        return (t, c, sub)
    }

    static func describe(_ events: [JSONObject]) -> [String] {
        events.map { e in
            let d = e.object("data") ?? JSONObject()
            var what = e.string("event") ?? "?"
            if let child = d.string("child") { what += " \(child) \(d.string("phase") ?? "")" }
            if let mode = d.string("display_mode") { what += " \(mode)" }
            if let top = d.string("top_column") { what += " top \(top)" }
            if let cause = d.string("cause") { what += " \(cause)" }
            if let path = d.strings("path") { what += " \(path.joined(separator: "/"))" }
            return "\(e.string("controller") ?? "?") \(what)"
        }
    }

    @Test("R15.15 R15.17 a split's state: style, columns, derived modes; bad input is a clear error and changes nothing")
    func stateAndBadInput() throws {
        let (t, c, _) = try Self.padSplit()
        defer { withExtendedLifetime(t) {} }
        let s = try c.ok(#"{"cmd":"state","controller":"s"}"#)
        #expect(s.string("kind") == "split" && s.string("style") == "double")
        #expect(s.string("display_mode") == "one_beside" && s.string("split_behavior") == "tile" && s.bool("collapsed") == false)
        #expect(s.strings("visible_columns") == ["primary", "secondary"] && s.isNull("top_column") && s.isNull("collapsed_stack"))
        #expect(s.object("columns")?.object("primary")?.string("controller") == "nav")
        let before = try stateLines(c, ["s", "nav"])
        let cases: [(String, String, String?)] = [
            (#"{"cmd":"controller.create","controller":"x","kind":"split","primary":{"id":"a"},"secondary":{"id":"b"}}"#, "invalid_request", "style"),
            (#"{"cmd":"controller.create","controller":"x","kind":"split","style":"quad","primary":{"id":"a"},"secondary":{"id":"b"}}"#, "invalid_request", "style"),
            (#"{"cmd":"controller.create","controller":"x","kind":"split","style":"triple","primary":{"id":"a"},"secondary":{"id":"b"}}"#, "invalid_request", "supplementary"),
            (#"{"cmd":"controller.create","controller":"x","kind":"split","style":"double","primary":{"id":"a"},"supplementary":{"id":"m"},"secondary":{"id":"b"}}"#, "not_available", "supplementary"),
            (#"{"cmd":"set_column","controller":"s","column":"supplementary","child":{"id":"m"}}"#, "not_available", "column"),
            (#"{"cmd":"set_column","controller":"s","column":"middle","child":{"id":"m"}}"#, "invalid_request", "column"),
            (#"{"cmd":"set_column","controller":"s","column":"primary","child":null}"#, "invalid_request", "child"),
            (#"{"cmd":"set_column","controller":"s","column":"primary","child":{"id":"msg"}}"#, "conflict", nil),
            (#"{"cmd":"show_column","controller":"s","column":"compact"}"#, "invalid_request", "column"),
            (#"{"cmd":"configure","controller":"s","preferred_display_mode":"two_beside"}"#, "not_available", "preferred_display_mode"),
            (#"{"cmd":"configure","controller":"s","preferred_display_mode":"three"}"#, "invalid_request", "preferred_display_mode"),
            (#"{"cmd":"configure","controller":"s","open_gestures":[]}"#, "invalid_request", "open_gestures"),
            (#"{"cmd":"push","controller":"s","screen":{"id":"x"}}"#, "not_available", nil),
            (#"{"cmd":"show_detail","controller":"nav","child":{"id":"x"}}"#, "not_available", nil),
        ]
        try c.expectRefusals(cases)
        #expect(try stateLines(c, ["s", "nav"]) == before)
    }

    @Test("R15.19 hide_column primary: display_mode_will_change, the primary's subtree disappears in pre-order, split_changed")
    func hidePrimary() throws {
        let (t, c, sub) = try Self.padSplit()
        defer { withExtendedLifetime(t) {} }
        let reply = try c.ok(#"{"cmd":"hide_column","controller":"s","column":"primary"}"#)
        #expect(reply.bool("changed") == true && reply.string("display_mode") == "secondary_only")
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.describe(events) == [
            "s display_mode_will_change secondary_only",
            "s appearance boxes will_disappear", "nav appearance inbox will_disappear",
            "s appearance boxes did_disappear", "nav appearance inbox did_disappear",
            "s split_changed secondary_only app",
        ])
        #expect(try c.ok(#"{"cmd":"hide_column","controller":"s","column":"primary"}"#).bool("changed") == false)
        #expect(try c.ok(#"{"cmd":"state","controller":"nav"}"#).bool("visible") == false)
    }

    @Test("R15.20 R15.21 the root's size class collapses and expands the split; the state follows and survives restarts")
    func collapseExpand() throws {
        let (t, c, sub) = try Self.padSplit()
        try c.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"compact"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.describe(events) == [
            "s size_class_changed", "s appearance boxes will_disappear", "nav appearance inbox will_disappear",
            "s appearance boxes did_disappear", "nav appearance inbox did_disappear",
            "s split_collapsed top secondary", "s split_changed one_beside top secondary environment",
        ])
        let collapsed = try c.ok(#"{"cmd":"state","controller":"s"}"#)
        #expect(collapsed.bool("collapsed") == true && collapsed.strings("collapsed_stack") == ["primary", "secondary"])
        #expect(try c.ok(#"{"cmd":"hide_column","controller":"s","column":"secondary"}"#).string("top_column") == "primary")
        let before = try stateLines(c, ["s", "nav"])
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            #expect(try stateLines(try t.client(), ["s", "nav"]) == before, "after signal \(signal)")
        }
        let c2 = try t.client()
        let expanded = try c2.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"regular"}"#)
        #expect(expanded.bool("collapsed") == false && expanded.string("display_mode") == "one_beside")
    }

    @Test("R15.22 show_detail on a collapsed split pushes the new secondary; R15.3 a split is never pushed onto a stack")
    func showDetailAndLimits() throws {
        let (t, c, _) = try Self.padSplit()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"compact"}"#)
        try c.ok(#"{"cmd":"show_column","controller":"s","column":"primary"}"#)
        let shown = try c.ok(#"{"cmd":"show_detail","controller":"s","child":{"id":"msg2"}}"#)
        #expect(shown.string("top_column") == "secondary" && shown.object("columns")?.string("secondary") == "msg2")
        try c.ok(#"{"cmd":"controller.create","controller":"stack","kind":"navigation","idiom":"pad","stack":[{"id":"r"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"s2","kind":"split","style":"double","idiom":"pad","primary":{"id":"a"},"secondary":{"id":"b"}}"#)
        #expect(try c.error(#"{"cmd":"push","controller":"stack","screen":{"id":"x","controller":"s2"}}"#).string("code") == "conflict")
        #expect(try c.error(#"{"cmd":"set_column","controller":"s","column":"secondary","child":{"id":"x","controller":"s2"}}"#).string("code") == "conflict")
    }

    @Test("R15.10 a split attached under a compact root is collapsed as if it had always been; detached it keeps that environment")
    func adoption() throws {
        let t = try TabdProcess()
        defer { withExtendedLifetime(t) {} }
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"s","kind":"split","style":"double","idiom":"pad","primary":{"id":"list"},"secondary":{"id":"detail"}}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","idiom":"pad","window":true,"center":{"id":"home"}}"#)
        try c.ok(#"{"cmd":"set_size_class","controller":"root","size_class":"compact"}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["root","s"],"events":["*"]}"#)
        try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"mail","controller":"s"}}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(!Self.describe(events).contains { $0.contains("split_") })
        #expect(Self.describe(events).contains("s appearance detail will_appear"))
        let s = try c.ok(#"{"cmd":"state","controller":"s"}"#)
        #expect(s.bool("collapsed") == true && s.string("size_class") == "compact" && s.bool("visible") == true)
        try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"home"}}"#)
        let detached = try c.ok(#"{"cmd":"state","controller":"s"}"#)
        #expect(detached.bool("collapsed") == true && detached.string("size_class") == "compact" && detached.isNull("parent"))
    }
}

/// R15.20, R15.33, R15.8 d with a real plugin: hello.c puts the primary column on top when a
/// split collapses; the answer is in the journal, so tabd started again without the plugin
/// (SIGKILL, then SIGTERM) replays the same state, and `explain` shows the fold.
@Suite struct SplitPluginTests {
    @Test("R15.33 R15.8 d a plugin's top column is journaled and replayed without the plugin after SIGKILL and SIGTERM") func aPluginsTopColumnIsJournaledAndReplayedWithoutIt() throws {
        let dir = try PluginEndToEndTests.helloOutOfTree("splitp")
        let tabd = try TabdProcess(config: Plugins.config("    - path: hello.so\n", extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client()
        try c.ok(#"{"cmd":"controller.create","controller":"s","kind":"split","style":"triple","idiom":"pad","window":true,"primary":{"id":"a"},"supplementary":{"id":"b"},"secondary":{"id":"d"}}"#)
        let collapsed = try c.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"compact"}"#)
        #expect(collapsed.string("top_column") == "primary", "\(collapsed)")
        // A phone split collapses as it is created: the plugin is asked then too.
        #expect(try c.ok(#"{"cmd":"controller.create","controller":"p","kind":"split","style":"double","primary":{"id":"l"},"secondary":{"id":"r"}}"#).string("top_column") == "primary")
        let explain = JSONValue.object(try c.ok(#"{"cmd":"explain","controller":"s"}"#)).jsonString
        #expect(explain.contains("top_column_for_collapsing") && explain.contains("hello"), "\(explain)")
        let before = try stateLines(c, ["s", "p"])
        try Plugins.config("", extraDirectory: dir).write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        for signal in [SIGKILL, SIGTERM] {
            _ = tabd.stop(signal: signal)
            try tabd.start()
            #expect(try stateLines(try tabd.client(), ["s", "p"]) == before, "after signal \(signal), without the plugin")
        }
        // R15.8 d: the journaled answers matched what replay asked (no warning).
        #expect(!tabd.log.contains("replay:"), "\(tabd.log)")
        // Without the plugin, a new collapse keeps the proposal: secondary.
        let c2 = try tabd.client()
        try c2.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"regular"}"#)
        #expect(try c2.ok(#"{"cmd":"set_size_class","controller":"s","size_class":"compact"}"#).string("top_column") == "secondary")
    }
}
