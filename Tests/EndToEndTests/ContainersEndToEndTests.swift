// SEMANTICS R15 against a real tabd: navigation, drawer and custom controllers created,
// nested and changed over the socket, each rule's test named after it; bad input gets a clear
// error and changes nothing; the tree survives SIGTERM and SIGKILL byte for byte.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite struct ContainersEndToEndTests {
    /// A tabd with `nav` (stack inbox) as the center `main` of the drawer `root` (in a window,
    /// left drawer `menu`, opened by pan_center), and a client subscribed to both.
    static func drawerOverNavigation() throws -> (TabdProcess, LineClient, LineClient) {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"inbox","title":"Inbox"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"nav"},"left":{"id":"menu"},"open_gestures":["pan_center"],"close_gestures":["tap_center"]}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["root","nav"],"events":["*"]}"#)
        return (t, c, sub)
    }

    /// Each event as "controller#seq event detail" (child and phase, or the state event's gist).
    static func describe(_ events: [JSONObject]) -> [String] {
        events.map { e in
            let d = e.object("data") ?? JSONObject()
            var what = e.string("event") ?? "?"
            if let child = d.string("child") { what += " \(child) \(d.string("phase") ?? "")" }
            if let side = d.string("open_side") { what += " \(side)" }
            if let path = d.strings("path") { what += " \(path.joined(separator: "/"))" }
            return "\(e.string("controller") ?? "?")#\(e.int("seq") ?? -1) \(what)"
        }
    }

    @Test("R15.1 controller.create takes a kind; a command of another kind is not_available and changes nothing")
    func kinds() throws {
        let (t, c, _) = try Self.drawerOverNavigation()
        defer { withExtendedLifetime(t) {} }
        let before = try stateLines(c, ["root", "nav", "main"])
        #expect(try c.error(#"{"cmd":"push","controller":"root","screen":{"id":"x"}}"#).string("code") == "not_available")
        #expect(try c.error(#"{"cmd":"select","controller":"nav","tab":"x"}"#).string("code") == "not_available")
        #expect(try c.error(#"{"cmd":"open_drawer","controller":"main","side":"left"}"#).string("code") == "not_available")
        let withTab = try c.error(#"{"cmd":"push","controller":"nav","tab":"x","screen":{"id":"y"}}"#)
        #expect(withTab.string("code") == "invalid_request" && withTab.string("field") == "tab")
        #expect(try c.error(#"{"cmd":"controller.create","controller":"x","kind":"tree"}"#).string("field") == "kind")
        #expect(try c.error(#"{"cmd":"controller.create","controller":"x","kind":"drawer","max_visible":3,"center":{"id":"c"}}"#).string("field") == "max_visible")
        #expect(try stateLines(c, ["root", "nav", "main"]) == before)
    }

    @Test("R15.2 R15.3 bad child objects and refused attachments are clear errors and lose nothing")
    func badInput() throws {
        let (t, c, _) = try Self.drawerOverNavigation()
        defer { withExtendedLifetime(t) {} }
        let before = try stateLines(c, ["root", "nav"])
        let cases: [(String, String, String?)] = [
            (#"{"cmd":"push","controller":"nav","screen":{"title":"no id"}}"#, "invalid_request", "screen.id"),
            (#"{"cmd":"push","controller":"nav","screen":{"id":"x","colour":"red"}}"#, "invalid_request", "screen.colour"),
            (#"{"cmd":"push","controller":"nav","screen":"x"}"#, "invalid_request", "screen"),
            (#"{"cmd":"push","controller":"nav","screen":{"id":"inbox"}}"#, "conflict", nil),
            (#"{"cmd":"push","controller":"nav","screen":{"id":"x","controller":"ghost"}}"#, "not_found", nil),
            (#"{"cmd":"push","controller":"nav","screen":{"id":"x","controller":"root"}}"#, "conflict", nil),
            (#"{"cmd":"push","controller":"nav","screen":{"id":"x","controller":"main"}}"#, "conflict", nil),
            (#"{"cmd":"set_center","controller":"root","child":{"id":"menu"}}"#, "conflict", nil),
            (#"{"cmd":"open_drawer","controller":"root","side":"up"}"#, "invalid_request", "side"),
            (#"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"wave"}"#, "invalid_request", "gesture"),
        ]
        try c.expectRefusals(cases)
        #expect(try stateLines(c, ["root", "nav"]) == before)
    }

    @Test("R15.4 R15.8 events across controllers: each from its own container with its own seq, parent_changed after the parent's, status_bar_changed last")
    func eventsAcrossControllers() throws {
        let (t, c, sub) = try Self.drawerOverNavigation()
        defer { withExtendedLifetime(t) {} }
        let seqs = try sub.ok(#"{"cmd":"subscribe","controllers":["root","nav"]}"#).object("seqs")
        let root = seqs?.int("root") ?? -1, nav = seqs?.int("nav") ?? -1
        #expect(root > 0 && nav > 0)
        try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"home"}}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.describe(events) == [
            "root#\(root + 1) containment main will_move", "root#\(root + 2) appearance main will_disappear",
            "nav#\(nav + 1) appearance inbox will_disappear", "root#\(root + 3) appearance main did_disappear",
            "nav#\(nav + 2) appearance inbox did_disappear", "root#\(root + 4) containment main did_move",
            "root#\(root + 5) containment home will_move", "root#\(root + 6) containment home did_move",
            "root#\(root + 7) appearance home will_appear", "root#\(root + 8) appearance home did_appear",
            "root#\(root + 9) drawer_changed none", "nav#\(nav + 3) parent_changed", "root#\(root + 10) status_bar_changed home",
        ])
        let detached = try c.ok(#"{"cmd":"state","controller":"nav"}"#)
        #expect(detached.isNull("parent") && detached.bool("window") == false && detached.bool("visible") == false)
        #expect(try c.ok(#"{"cmd":"controller.delete","controller":"nav"}"#).string("deleted") == "nav")
    }

    @Test("R15.9 R15.24 R15.26 a user pop reaches below an open drawer under navigation_bar_only; a gesture outside the masks does not")
    func reachAndGestures() throws {
        let (t, c, _) = try Self.drawerOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"msg"}}"#)
        #expect(try c.error(#"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"bezel_pan_center"}"#).string("code") == "not_available")
        #expect(try c.error(#"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"tap_center"}"#).string("code") == "invalid_request")
        #expect(try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"pan_center"}"#).string("open_side") == "left")
        #expect(try c.ok(#"{"cmd":"state","controller":"nav"}"#).bool("visible") == true)  // R15.24: the center stays visible
        #expect(try c.error(#"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"pan_center"}"#).string("code") == "conflict")
        #expect(try c.ok(#"{"cmd":"pop","controller":"nav","user":true}"#).string("top") == "inbox")
        try c.ok(#"{"cmd":"configure","controller":"root","center_interaction":"none"}"#)
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"msg"}}"#)  // an app push: never refused for reach
        let refused = try c.error(#"{"cmd":"pop","controller":"nav","user":true}"#)
        #expect(refused.string("code") == "not_available" && (refused.string("message") ?? "").contains("left drawer is open"))
        #expect(try c.ok(#"{"cmd":"close_drawer","controller":"root","gesture":"tap_center"}"#).string("open_side") == "none")
        #expect(try c.ok(#"{"cmd":"pop","controller":"nav","user":true}"#).string("top") == "inbox")
    }

    @Test("R15.4 R15.35 set_window on a tab controller takes it out of its window and back; its state then says kind, parent, window, visible; attached it is conflict")
    func tabControllerWindow() throws {
        let (t, c, _) = try Self.drawerOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"controller.create","controller":"tabs"}"#)
        let out = try c.ok(#"{"cmd":"set_window","controller":"tabs","window":false}"#)
        #expect(out.bool("changed") == true && out.bool("window") == false)
        #expect(try c.ok(#"{"cmd":"set_window","controller":"tabs","window":false}"#).bool("changed") == false)
        // R15.35: out of a window, its state says where it is; a window's root says nothing new.
        let hidden = try c.ok(#"{"cmd":"state","controller":"tabs"}"#)
        #expect(hidden.string("kind") == "tab" && hidden.bool("window") == false && hidden.bool("visible") == false && hidden.isNull("parent"))
        #expect(try c.ok(#"{"cmd":"state"}"#)["kind"] == nil)
        try c.ok(#"{"cmd":"set_drawer","controller":"root","side":"right","child":{"id":"more","controller":"tabs"}}"#)
        let attached = try c.ok(#"{"cmd":"state","controller":"tabs"}"#)
        #expect(attached.object("parent")?.string("controller") == "root" && attached.object("parent")?.string("child") == "more")
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"right"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"tabs"}"#).bool("visible") == true)
        try c.ok(#"{"cmd":"close_drawer","controller":"root"}"#)
        #expect(try c.error(#"{"cmd":"set_window","controller":"tabs","window":true}"#).string("code") == "conflict")
        try c.ok(#"{"cmd":"set_drawer","controller":"root","side":"right","child":null}"#)
        #expect(try c.ok(#"{"cmd":"set_window","controller":"tabs","window":true}"#).bool("window") == true)
        try c.ok(#"{"cmd":"ping"}"#)
    }

    @Test("R15.12 a tree of every kind survives SIGTERM and SIGKILL byte for byte, and its seqs go on from where they were")
    func persistence() throws {
        let (t, c, _) = try Self.drawerOverNavigation()
        try c.ok(#"{"cmd":"controller.create","controller":"side","kind":"custom","children":[{"id":"a","title":"A"},{"id":"b","restoration_id":"rb"}],"shown":["b"],"status_bar_child":"b"}"#)
        try c.ok(#"{"cmd":"set_drawer","controller":"root","side":"right","child":{"id":"tools","controller":"side"}}"#)
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"msg","title":"Message"}}"#)
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"right"}"#)
        let names = ["root", "nav", "side"]
        let before = try stateLines(c, names)
        let list = try c.request(#"{"cmd":"controllers"}"#)
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            let again = try t.client()
            #expect(try stateLines(again, names) == before, "after signal \(signal)")
            #expect(JSONValue.object(try again.request(#"{"cmd":"controllers"}"#)) == JSONValue.object(list))
        }
        let c2 = try t.client()
        let seq = try c2.ok(#"{"cmd":"state","controller":"root"}"#).int("seq") ?? 0
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["root"],"events":["drawer_changed"]}"#)
        try c2.ok(#"{"cmd":"close_drawer","controller":"root"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(events.first?.int("seq") ?? 0 > seq)  // R11.4: never a number used before
    }

    @Test("R15.12 preserve of a root's tree, then restore, brings back its stacks and open side; an attached controller is not_available")
    func preserveRestore() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"inbox","restoration_id":"r-inbox"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"nav","restoration_id":"r-main"},"left":{"id":"menu"}}"#)
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"msg","restoration_id":"r-msg"}}"#)
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        let before = try stateLines(c, ["root", "nav"])
        let archive = try c.ok(#"{"cmd":"preserve","controller":"root"}"#)["archive"]!
        #expect(try c.error(#"{"cmd":"preserve","controller":"nav"}"#).string("code") == "not_available")
        try c.ok(#"{"cmd":"pop_to_root","controller":"nav"}"#)
        try c.ok(#"{"cmd":"close_drawer","controller":"root"}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["root","nav"],"events":["drawer_changed","navigation_changed"]}"#)
        try c.ok(JSONValue.object(JSONObject([("cmd", .string("restore")), ("controller", .string("root")), ("archive", archive)])).jsonString)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(events.map { $0.object("data")?.string("cause") } == ["restore", "restore"])
        let after = try stateLines(c, ["root", "nav"])
        // The same but for the seqs the restore moved on.
        func withoutSeq(_ lines: [String]) -> [String] { lines.map { $0.replacing(#/"seq":\d+/#, with: "") } }
        #expect(withoutSeq(after) == withoutSeq(before))
    }

    @Test("R15.8 c a nested tab controller's select is followed by its root's status_bar_changed, once: the next command elsewhere sends none")
    func nestedTabControllerStatusBar() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"tabs","window":false}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"tabs","tabs":[{"id":"mail"},{"id":"news"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"tabs"},"left":{"id":"menu"}}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","events":["status_bar_changed"]}"#)
        try c.ok(#"{"cmd":"select","controller":"tabs","tab":"news"}"#)
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(events.map { "\($0.string("controller") ?? "") \(($0.object("data")?.strings("path") ?? []).joined(separator: "/"))" } == ["root main/news"])
    }

    @Test("R15.30 R15.31 custom children: set_children, set_shown and transition, with children_changed last")
    func custom() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"box","kind":"custom","window":true,"children":[{"id":"a"},{"id":"b"}],"shown":["a"]}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["box"],"events":["*"]}"#)
        try c.ok(#"{"cmd":"transition","controller":"box","from":"a","to":{"id":"n"}}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.describe(events).map { String($0.split(separator: " ", maxSplits: 1)[1]) } == [
            "containment a will_move", "containment n will_move", "appearance a will_disappear", "appearance n will_appear",
            "appearance a did_disappear", "appearance n did_appear", "containment a did_move", "containment n did_move", "children_changed",
        ])
        #expect(try c.ok(#"{"cmd":"set_shown","controller":"box","shown":["b","n"]}"#).strings("shown") == ["n", "b"])
        #expect(try c.error(#"{"cmd":"transition","controller":"box","from":"zzz","to":{"id":"q"}}"#).string("code") == "not_available")
    }
}
