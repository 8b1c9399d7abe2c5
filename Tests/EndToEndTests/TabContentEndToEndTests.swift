// SEMANTICS R15.2 and R15.14 against a real tabd: a tab whose content is a controller, over
// the socket; each test named after its rule. Bad input is a clear error that changes
// nothing; the tab and its content survive SIGTERM and SIGKILL.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite struct TabContentEndToEndTests {
    /// A tabd whose `main` shows `news` and has `mail`, whose content is the navigation
    /// controller `boxes` (stack inbox, thread); a client subscribed to both.
    static func tabsOverNavigation() throws -> (TabdProcess, LineClient, LineClient) {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"boxes","kind":"navigation","stack":[{"id":"inbox"},{"id":"thread"}]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"news"},{"id":"mail","controller":"boxes"}]}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["main","boxes"],"events":["*"]}"#)
        return (t, c, sub)
    }

    static func describe(_ events: [JSONObject]) -> [String] {
        events.map { e in
            let d = e.object("data") ?? JSONObject()
            var what = e.string("event") ?? "?"
            if let child = d.string("child") ?? d.string("tab") { what += " \(child)" }
            if let phase = d.string("phase") { what += " \(phase)" }
            if let op = d.string("operation") { what += " \(op)" }
            if let cause = d.string("cause") { what += " \(cause)" }
            if let path = d.strings("path") { what += " \(path.joined(separator: "/"))" }
            return "\(e.string("controller") ?? "?")#\(e.int("seq") ?? -1) \(what)"
        }
    }

    @Test("R15.2 the tab's content is attached: state shows the tab's controller and the content's parent")
    func attached() throws {
        let (t, c, _) = try Self.tabsOverNavigation()
        defer { withExtendedLifetime(t) {} }
        let boxes = try c.ok(#"{"cmd":"state","controller":"boxes"}"#)
        #expect(boxes.object("parent")?.string("controller") == "main" && boxes.object("parent")?.string("child") == "mail")
        #expect(boxes.bool("visible") == false)
        let main = try c.ok(#"{"cmd":"state"}"#)
        guard case .array(let tabs)? = main["tabs"], case .object(let news)? = tabs.first, case .object(let mail)? = tabs.last else {
            Issue.record("no tabs: \(main)"); return
        }
        #expect(mail.string("controller") == "boxes")
        #expect(news["controller"] == nil)  // only a tab with content shows it
    }

    @Test("R15.8 a selecting a tab whose content is a navigation controller: its top's appearance follows the tab's, each phase, then selection_changed and status_bar_changed")
    func selectExpands() throws {
        let (t, c, sub) = try Self.tabsOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"select","tab":"mail"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        let lines = Self.describe(events).filter { !$0.contains("bar_changed") || $0.contains("status_bar") }
        #expect(lines.map { $0.replacingOccurrences(of: #"#\d+"#, with: "", options: .regularExpression) } == [
            "main content_loaded mail",
            "main appearance news will_disappear", "main appearance mail will_appear", "boxes appearance thread will_appear",
            "main appearance news did_disappear", "main appearance mail did_appear", "boxes appearance thread did_appear",
            "main selection_changed mail select", "main status_bar_changed mail/thread",
        ])
        // The tab's own appearance names its content controller.
        #expect(events.contains { $0.string("event") == "appearance" && $0.object("data")?.string("tab") == "mail" && $0.object("data")?.string("child_controller") == "boxes" })
        #expect(!events.contains { $0.object("data")?.string("tab") == "news" && $0.object("data")?["child_controller"] != nil })
        // Each container numbers its own events, with no gap.
        for name in ["main", "boxes"] {
            let seqs = events.filter { $0.string("controller") == name }.compactMap { $0.int("seq") }
            #expect(seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + seqs.count)), "\(name): \(seqs)")
        }
    }

    @Test("R15.14 a tap on the selected tab pops its content navigation controller to its root (cause tap); push with tab is not_available")
    func tapPops() throws {
        let (t, c, sub) = try Self.tabsOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"select","tab":"mail"}"#)
        _ = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(try c.ok(#"{"cmd":"tap","tab":"mail"}"#).bool("changed") == true)  // the content changed
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        let lines = Self.describe(events).map { $0.replacingOccurrences(of: #"#\d+"#, with: "", options: .regularExpression) }
        #expect(Array(lines.prefix(7)) == [
            "boxes containment thread will_move", "boxes appearance thread will_disappear", "boxes appearance inbox will_appear",
            "boxes appearance thread did_disappear", "boxes appearance inbox did_appear", "boxes containment thread did_move",
            "boxes navigation_changed pop_to_root tap",
        ])
        #expect(try c.ok(#"{"cmd":"state","controller":"boxes"}"#).string("top") == "inbox")
        let e = try c.error(#"{"cmd":"push","tab":"mail","screen":{"id":"x"}}"#)
        #expect(e.string("code") == "not_available" && (e.string("message") ?? "").contains("boxes"))
    }

    @Test("R15.2 R15.3 bad input is a clear error and changes nothing; removing the tab detaches the content")
    func badInputAndRemoval() throws {
        let (t, c, sub) = try Self.tabsOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"controller.create","controller":"other","kind":"navigation","stack":[{"id":"a"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"tabs2","window":false}"#)
        let before = try stateLines(c, ["main", "boxes", "other", "tabs2"])
        let cases: [(String, String)] = [
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"nothing"}}"#, "not_found"),
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"boxes"}}"#, "conflict"),
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"tabs2"}}"#, "conflict"),
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"main"}}"#, "conflict"),
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"other","navigation":true}}"#, "invalid_request"),
            (#"{"cmd":"add_tab","tab":{"id":"x","controller":"other","children":[{"id":"y"}]}}"#, "invalid_request"),
            (#"{"cmd":"update_tab","tab":"news","content_controller":"boxes"}"#, "conflict"),
            (#"{"cmd":"push","tab":"mail","screen":{"id":"x"}}"#, "not_available"),
            (#"{"cmd":"controller.delete","controller":"main"}"#, "conflict"),
            (#"{"cmd":"controller.delete","controller":"boxes"}"#, "conflict"),
        ]
        try c.expectRefusals(cases)
        #expect(try stateLines(c, ["main", "boxes", "other", "tabs2"]) == before)
        _ = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        try c.ok(#"{"cmd":"remove_tab","tab":"mail"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.describe(events).last?.hasSuffix("parent_changed") == true)
        let boxes = try c.ok(#"{"cmd":"state","controller":"boxes"}"#)
        #expect(boxes.isNull("parent") && boxes.bool("window") == false)
        try c.ok(#"{"cmd":"controller.delete","controller":"boxes"}"#)
    }

    @Test("R15.12 a tab's content survives SIGTERM and SIGKILL byte for byte")
    func survivesRestarts() throws {
        let (t, c, _) = try Self.tabsOverNavigation()
        try c.ok(#"{"cmd":"select","tab":"mail"}"#)
        try c.ok(#"{"cmd":"push","controller":"boxes","screen":{"id":"msg"}}"#)
        try c.ok(#"{"cmd":"tap","tab":"mail"}"#)
        let before = try stateLines(c, ["main", "boxes"])
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            #expect(try stateLines(try t.client(), ["main", "boxes"]) == before, "after signal \(signal)")
        }
    }
}

/// R15.10, R15.33, R15.8 d with a real plugin: hello.c puts the primary column on top when a
/// split collapses, here a split in a tab of a compact pad tab root (attached, then collapsed
/// again by the root's set_size_class); the answers are journaled before the tab
/// controller's command, so tabd started again without the plugin replays the same state.
@Suite struct TabContentPluginTests {
    @Test("R15.33 R15.8 d a split in a tab takes the plugin's top column, journaled, and replays it without the plugin") func aSplitInATabTakesThePluginsTopColumnAndReplaysItWithoutThePlugin() throws {
        let dir = try PluginEndToEndTests.helloOutOfTree("tabcp")
        let tabd = try TabdProcess(config: Plugins.config("    - path: hello.so\n", extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client()
        try c.ok(#"{"cmd":"controller.create","controller":"pt","idiom":"pad"}"#)
        try c.ok(#"{"cmd":"set_size_class","controller":"pt","size_class":"compact"}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"s","kind":"split","style":"double","idiom":"pad","primary":{"id":"a"},"secondary":{"id":"d"}}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"pt","tabs":[{"id":"t","controller":"s"}]}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"s"}"#).string("top_column") == "primary")
        try c.ok(#"{"cmd":"set_size_class","controller":"pt","size_class":"regular"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"s"}"#).bool("collapsed") == false)
        try c.ok(#"{"cmd":"set_size_class","controller":"pt","size_class":"compact"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"s"}"#).string("top_column") == "primary")
        let before = try stateLines(c, ["pt", "s"])
        try Plugins.config("", extraDirectory: dir).write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        for signal in [SIGKILL, SIGTERM] {
            _ = tabd.stop(signal: signal)
            try tabd.start()
            #expect(try stateLines(try tabd.client(), ["pt", "s"]) == before, "after signal \(signal), without the plugin")
        }
        // R15.8 d: the journaled answers matched what replay asked (no warning).
        #expect(!tabd.log.contains("replay:"), "\(tabd.log)")
    }
}
