// SEMANTICS R15 against a real tabd, one test per rule that the other suites
// (ContainersEndToEndTests, SplitEndToEndTests, TabContentEndToEndTests) do not name: each
// sends the rule's commands over the socket and reads the events a subscriber gets, in
// order, and the state. Events are written "controller event child phase" (no seq: the
// orders are what these rules fix; ContainersEndToEndTests checks the seqs).

import Foundation
import TabJSON
import Testing

@Suite struct R15RulesEndToEndTests {
    /// A tabd, a client and a subscriber to every event of `controllers`, after `setup`.
    static func tabd(_ setup: [String], subscribe controllers: [String]) throws -> (TabdProcess, LineClient, LineClient) {
        let t = try TabdProcess()
        let c = try t.client()
        for line in setup { try c.ok(line) }
        let sub = try t.client()
        let names = controllers.map { "\"\($0)\"" }.joined(separator: ",")
        try sub.ok(#"{"cmd":"subscribe","controllers":[\#(names)],"events":["*"]}"#)
        return (t, c, sub)
    }

    /// What `sub` got for the commands sent since the last call: one line each, without seqs.
    static func got(_ sub: LineClient) throws -> [String] {
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        return ContainersEndToEndTests.describe(events).map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return String(parts[0].split(separator: "#")[0]) + (parts.count > 1 ? " " + parts[1] : "")
        }
    }

    static let drawer = [
        #"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"inbox"}]}"#,
        #"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"nav"},"left":{"id":"menu"},"right":{"id":"info"},"open_gestures":["pan_center"],"close_gestures":["tap_center"]}"#,
    ]

    @Test("R15.5 an invisible controller changes its stack with containment and its state event only; shown, what it shows appears")
    func r15_5_visibility() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"n","kind":"navigation","stack":[{"id":"a"}]}"#], subscribe: ["n"])
        defer { withExtendedLifetime(t) {} }
        #expect(try c.ok(#"{"cmd":"push","controller":"n","screen":{"id":"b"}}"#).string("top") == "b")
        #expect(try Self.got(sub) == ["n containment b will_move", "n containment b did_move", "n navigation_changed"])
        let hidden = try c.ok(#"{"cmd":"state","controller":"n"}"#)
        #expect(hidden.bool("visible") == false && hidden.string("top") == "b")
        try c.ok(#"{"cmd":"set_window","controller":"n","window":true}"#)
        #expect(try Self.got(sub) == ["n appearance b will_appear", "n appearance b did_appear", "n window_changed", "n status_bar_changed b"])
        #expect(try c.ok(#"{"cmd":"state","controller":"n"}"#).bool("visible") == true)
    }

    @Test("R15.6 a set change: each leaving child around its disappearance, then each entering child, then the other visibility changes in R5.1's order")
    func r15_6_setChange() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"box","kind":"custom","window":true,"children":[{"id":"a"},{"id":"b"}],"shown":["a"]}"#], subscribe: ["box"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"set_children","controller":"box","children":[{"id":"b"},{"id":"c"}],"shown":["b","c"]}"#)
        #expect(try Self.got(sub) == [
            "box containment a will_move", "box appearance a will_disappear", "box appearance a did_disappear", "box containment a did_move",
            "box containment c will_move", "box containment c did_move",
            "box appearance b will_appear", "box appearance c will_appear", "box appearance b did_appear", "box appearance c did_appear",
            "box children_changed",
        ])
    }

    @Test("R15.7 a transition is listing 5-3: will_move of what leaves and enters, the appearance, then did_move; the root's status bar last")
    func r15_7_transition() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"n","kind":"navigation","window":true,"stack":[{"id":"root"}]}"#], subscribe: ["n"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"push","controller":"n","screen":{"id":"s"}}"#)
        #expect(try Self.got(sub) == [
            "n containment s will_move", "n appearance root will_disappear", "n appearance s will_appear",
            "n appearance root did_disappear", "n appearance s did_appear", "n containment s did_move",
            "n navigation_changed", "n status_bar_changed s",
        ])
        try c.ok(#"{"cmd":"pop","controller":"n"}"#)
        #expect(try Self.got(sub) == [
            "n containment s will_move", "n appearance s will_disappear", "n appearance root will_appear",
            "n appearance s did_disappear", "n appearance root did_appear", "n containment s did_move",
            "n navigation_changed", "n status_bar_changed root",
        ])
    }

    @Test("R15.11 status_bar_child is each controller's deciding child and a root's status_bar_path follows them down; a change sends status_bar_changed")
    func r15_11_statusBar() throws {
        let (t, c, sub) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        let root = try c.ok(#"{"cmd":"state","controller":"root"}"#)
        #expect(root.string("status_bar_child") == "main" && root.strings("status_bar_path") == ["main", "inbox"])
        #expect(try c.ok(#"{"cmd":"state","controller":"nav"}"#).string("status_bar_child") == "inbox")
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).strings("status_bar_path") == ["menu"])
        #expect(try Self.got(sub).last == "root status_bar_changed menu")
        let (t2, c2, _) = try Self.tabd([#"{"cmd":"controller.create","controller":"box","kind":"custom","window":true,"children":[{"id":"a"},{"id":"b"}],"shown":["a","b"]}"#], subscribe: ["box"])
        defer { withExtendedLifetime(t2) {} }
        #expect(try c2.ok(#"{"cmd":"state","controller":"box"}"#).isNull("status_bar_child"))
        try c2.ok(#"{"cmd":"configure","controller":"box","status_bar_child":"b"}"#)
        #expect(try c2.ok(#"{"cmd":"state","controller":"box"}"#).strings("status_bar_path") == ["b"])
    }

    @Test("R15.13 the root cannot be popped; pop_to the top and pop_to_root at the root change nothing; an id twice is a conflict; the depth is limits.max_stack_depth; set_stack keeps kept ids without containment")
    func r15_13_navigation() throws {
        let t = try TabdProcess(config: "limits:\n  max_stack_depth: 2\n")
        defer { withExtendedLifetime(t) {} }
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"n","kind":"navigation","window":true,"stack":[{"id":"root"}]}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["n"],"events":["*"]}"#)
        let before = try stateLines(c, ["n"])
        try c.expectRefusals([
            (#"{"cmd":"pop","controller":"n"}"#, "conflict"),
            (#"{"cmd":"push","controller":"n","screen":{"id":"root"}}"#, "conflict"),
            (#"{"cmd":"pop_to","controller":"n","screen":"ghost"}"#, "not_found"),
        ])
        #expect(try c.ok(#"{"cmd":"pop_to_root","controller":"n"}"#).bool("changed") == false)
        #expect(try c.ok(#"{"cmd":"pop_to","controller":"n","screen":"root"}"#).bool("changed") == false)
        #expect(try stateLines(c, ["n"]) == before)
        #expect(try Self.got(sub).isEmpty)
        try c.ok(#"{"cmd":"push","controller":"n","screen":{"id":"a"}}"#)
        try c.ok(#"{"cmd":"push","controller":"n","screen":{"id":"b"}}"#)
        let deep = try c.error(#"{"cmd":"push","controller":"n","screen":{"id":"c"}}"#)
        #expect(deep.string("code") == "out_of_range" && (deep.string("message") ?? "").contains("limits.max_stack_depth"))
        _ = try Self.got(sub)
        try c.ok(#"{"cmd":"set_stack","controller":"n","stack":[{"id":"b"},{"id":"root"}]}"#)
        #expect(try Self.got(sub) == [
            "n containment a will_move", "n appearance b will_disappear", "n appearance root will_appear",
            "n appearance b did_disappear", "n appearance root did_appear", "n containment a did_move",
            "n navigation_changed", "n status_bar_changed root",
        ])
    }

    @Test("R15.16 a column holds its child object as given, and set_column is a set change")
    func r15_16_setColumn() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","window":true,"preferred_display_mode":"one_beside","primary":{"id":"list"},"secondary":{"id":"detail","title":"Detail"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        let s = try c.ok(#"{"cmd":"state","controller":"sp"}"#)
        #expect(s.object("columns")?.object("secondary")?.string("title") == "Detail")
        #expect(s.object("columns")?.object("secondary")?.isNull("controller") == true)  // not wrapped in a navigation controller
        try c.ok(#"{"cmd":"set_column","controller":"sp","column":"secondary","child":{"id":"other"}}"#)
        #expect(try Self.got(sub) == [
            "sp containment detail will_move", "sp appearance detail will_disappear", "sp appearance detail did_disappear", "sp containment detail did_move",
            "sp containment other will_move", "sp containment other did_move",
            "sp appearance other will_appear", "sp appearance other did_appear",
            "sp split_changed", "sp status_bar_changed other",
        ])
    }

    @Test("R15.18 the visible columns follow the display mode: secondary_only the secondary, one_* primary and secondary, two_* all three")
    func r15_18_visibleColumns() throws {
        let (t, c, _) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"triple","idiom":"pad","window":true,"preferred_display_mode":"secondary_only","primary":{"id":"p"},"supplementary":{"id":"s"},"secondary":{"id":"d"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).strings("visible_columns") == ["secondary"])
        try c.ok(#"{"cmd":"configure","controller":"sp","preferred_display_mode":"one_beside","preferred_split_behavior":"tile"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).strings("visible_columns") == ["supplementary", "secondary"])
        try c.ok(#"{"cmd":"configure","controller":"sp","preferred_display_mode":"two_beside"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).strings("visible_columns") == ["primary", "supplementary", "secondary"])
    }

    @Test("R15.23 a split's only other setting is presents_with_gesture: false makes a user show_column not_available; widths are unknown fields")
    func r15_23_presentsWithGesture() throws {
        let (t, c, _) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","window":true,"preferred_display_mode":"secondary_only","primary":{"id":"p"},"secondary":{"id":"d"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"configure","controller":"sp","presents_with_gesture":false}"#)
        let before = try stateLines(c, ["sp"])
        try c.expectRefusals([
            (#"{"cmd":"show_column","controller":"sp","column":"primary","user":true}"#, "not_available", nil),
            (#"{"cmd":"configure","controller":"sp","preferred_primary_column_width":300}"#, "invalid_request", "preferred_primary_column_width"),
        ])
        #expect(try stateLines(c, ["sp"]) == before)
        #expect(try c.ok(#"{"cmd":"show_column","controller":"sp","column":"primary"}"#).strings("visible_columns") == ["primary", "secondary"])
    }

    @Test("R15.25 open_drawer: none there is not_available, open there a no-op, the other side a swap in R5.1's order; toggle does nothing while the other is open; close with none open changes nothing")
    func r15_25_openAndClose() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"d","kind":"drawer","window":true,"center":{"id":"main"},"left":{"id":"menu"}}"#], subscribe: ["d"])
        defer { withExtendedLifetime(t) {} }
        #expect(try c.error(#"{"cmd":"open_drawer","controller":"d","side":"right"}"#).string("code") == "not_available")
        #expect(try c.ok(#"{"cmd":"close_drawer","controller":"d"}"#).bool("changed") == false)
        try c.ok(#"{"cmd":"set_drawer","controller":"d","side":"right","child":{"id":"info"}}"#)
        try c.ok(#"{"cmd":"open_drawer","controller":"d","side":"left"}"#)
        _ = try Self.got(sub)
        #expect(try c.ok(#"{"cmd":"open_drawer","controller":"d","side":"left"}"#).bool("changed") == false)
        try c.ok(#"{"cmd":"open_drawer","controller":"d","side":"right"}"#)
        #expect(try Self.got(sub) == [
            "d appearance menu will_disappear", "d appearance info will_appear", "d appearance menu did_disappear", "d appearance info did_appear",
            "d drawer_changed right", "d status_bar_changed info",
        ])
        #expect(try c.ok(#"{"cmd":"toggle_drawer","controller":"d","side":"left"}"#).bool("changed") == false)
        #expect(try c.ok(#"{"cmd":"toggle_drawer","controller":"d","side":"right"}"#).string("open_side") == "none")
    }

    @Test("R15.27 set_center with the center's own id is a no-op; a new center is a set change and the open drawer stays open")
    func r15_27_setCenter() throws {
        let (t, c, sub) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        #expect(try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"main","controller":"nav"}}"#).bool("changed") == false)
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        _ = try Self.got(sub)
        let r = try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"home"}}"#)
        #expect(r.string("open_side") == "left")
        #expect(try Self.got(sub) == [
            "root containment main will_move", "root appearance main will_disappear", "root appearance main did_disappear", "root containment main did_move",
            "root containment home will_move", "root containment home did_move",
            "root appearance home will_appear", "root appearance home did_appear", "root drawer_changed left",
        ])
    }

    @Test("R15.28 set_drawer: the slot's own id is a no-op; a new drawer on the open side appears; null on the open side closes it with cause removed")
    func r15_28_setDrawer() throws {
        let (t, c, sub) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        #expect(try c.ok(#"{"cmd":"set_drawer","controller":"root","side":"left","child":{"id":"menu"}}"#).bool("changed") == false)
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        _ = try Self.got(sub)
        try c.ok(#"{"cmd":"set_drawer","controller":"root","side":"left","child":{"id":"menu2"}}"#)
        #expect(try Self.got(sub) == [
            "root containment menu will_move", "root appearance menu will_disappear", "root appearance menu did_disappear", "root containment menu did_move",
            "root containment menu2 will_move", "root containment menu2 did_move",
            "root appearance menu2 will_appear", "root appearance menu2 did_appear", "root drawer_changed left", "root status_bar_changed menu2",
        ])
        let (events, reply) = try ModernModelEndToEndTests.eventsAndReply(c, #"{"cmd":"set_drawer","controller":"root","side":"left","child":null}"#)
        #expect(events.isEmpty && reply.object("result")?.string("open_side") == "none")
        let changed = try ModernModelEndToEndTests.data(try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#).events, "drawer_changed")
        #expect(changed.string("cause") == "removed" && changed.string("open_side") == "none")
    }

    @Test("R15.29 center_interaction: navigation_bar_only lets a user pop through an open drawer, none refuses it, full lets every user action through; other values are refused")
    func r15_29_centerInteraction() throws {
        let (t, c, _) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"a"}}"#)
        try c.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"b"}}"#)
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        #expect(try c.ok(#"{"cmd":"pop","controller":"nav","user":true}"#).string("top") == "a")
        try c.ok(#"{"cmd":"configure","controller":"root","center_interaction":"none"}"#)
        #expect(try c.error(#"{"cmd":"pop","controller":"nav","user":true}"#).string("code") == "not_available")
        try c.ok(#"{"cmd":"configure","controller":"root","center_interaction":"full"}"#)
        #expect(try c.ok(#"{"cmd":"pop","controller":"nav","user":true}"#).string("top") == "inbox")
        try c.expectRefusals([(#"{"cmd":"configure","controller":"root","center_interaction":"some"}"#, "invalid_request", "center_interaction")])
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).string("center_interaction") == "full")
    }

    @Test("R15.36 an invisible split changes its mode with config_changed and split_changed only: no appearance, no display_mode_will_change")
    func r15_36_invisibleSplit() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","primary":{"id":"p"},"secondary":{"id":"d"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"configure","controller":"sp","preferred_display_mode":"one_beside"}"#)
        #expect(try Self.got(sub) == ["sp config_changed", "sp split_changed"])
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).strings("visible_columns") == ["primary", "secondary"])
    }

    @Test("R15.37 a drawer gesture's refusals in order: a close-only gesture that would open, then an open gesture while open, then the mask, then reach")
    func r15_37_refusalOrder() throws {
        let (t, c, _) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        let before = try stateLines(c, ["root", "nav"])
        try c.expectRefusals([
            // tap_center cannot open: invalid_request, before the open drawer's conflict and the mask.
            (#"{"cmd":"open_drawer","controller":"root","side":"right","gesture":"tap_center"}"#, "invalid_request"),
            // bezel_pan_center is outside the mask, but a drawer is open: conflict first.
            (#"{"cmd":"open_drawer","controller":"root","side":"right","gesture":"bezel_pan_center"}"#, "conflict"),
            // pan_drawer closes, and is outside the close mask: not_available.
            (#"{"cmd":"close_drawer","controller":"root","gesture":"pan_drawer"}"#, "not_available"),
        ])
        #expect(try stateLines(c, ["root", "nav"]) == before)
        try c.ok(#"{"cmd":"set_window","controller":"root","window":false}"#)
        // Within the mask but out of reach (not visible): not_available, nothing changed.
        #expect(try c.error(#"{"cmd":"close_drawer","controller":"root","gesture":"tap_center"}"#).string("code") == "not_available")
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).string("open_side") == "left")
    }

    @Test("R15.38 show_detail: display_mode_will_change comes after the children's containment, then the appearance, then split_changed")
    func r15_38_showDetailOrder() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","window":true,"preferred_display_mode":"secondary_only","preferred_split_behavior":"overlay","primary":{"id":"p"},"secondary":{"id":"d"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"hide_column","controller":"sp","column":"primary"}"#)
        try c.ok(#"{"cmd":"show_column","controller":"sp","column":"primary"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).string("display_mode") == "one_over")
        _ = try Self.got(sub)
        try c.ok(#"{"cmd":"show_detail","controller":"sp","child":{"id":"d2"}}"#)
        #expect(try Self.got(sub) == [
            "sp containment d will_move", "sp appearance d will_disappear", "sp appearance d did_disappear", "sp containment d did_move",
            "sp containment d2 will_move", "sp containment d2 did_move", "sp display_mode_will_change",
            "sp appearance p will_disappear", "sp appearance d2 will_appear", "sp appearance p did_disappear", "sp appearance d2 did_appear",
            "sp split_changed", "sp status_bar_changed d2",
        ])
    }

    @Test("R15.39 set_center with close_drawer: the new center's set change completes, then the drawer disappears, then one drawer_changed")
    func r15_39_setCenterClosing() throws {
        let (t, c, sub) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
        _ = try Self.got(sub)
        #expect(try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"home"},"close_drawer":true}"#).string("open_side") == "none")
        #expect(try Self.got(sub) == [
            "root containment main will_move", "root appearance main will_disappear", "root appearance main did_disappear", "root containment main did_move",
            "root containment home will_move", "root containment home did_move",
            "root appearance home will_appear", "root appearance home did_appear",
            "root appearance menu will_disappear", "root appearance menu did_disappear",
            "root drawer_changed none", "root status_bar_changed home",
        ])
    }

    @Test("R15.40 collapsed, configure stores its values and changes no display_mode; the expand proposes the mode derived from them")
    func r15_40_collapsedConfigure() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","window":true,"preferred_display_mode":"one_beside","preferred_split_behavior":"tile","primary":{"id":"p"},"secondary":{"id":"d"}}"#], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"set_size_class","controller":"sp","size_class":"compact"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).bool("collapsed") == true)
        _ = try Self.got(sub)
        try c.ok(#"{"cmd":"configure","controller":"sp","preferred_display_mode":"secondary_only"}"#)
        let r = try c.ok(#"{"cmd":"state","controller":"sp"}"#)
        #expect(r.string("display_mode") == "one_beside" && r.string("preferred_display_mode") == "secondary_only")
        #expect(try Self.got(sub) == ["sp config_changed", "sp split_changed"])
        try c.ok(#"{"cmd":"set_size_class","controller":"sp","size_class":"regular"}"#)
        let expanded = try c.ok(#"{"cmd":"state","controller":"sp"}"#)
        #expect(expanded.bool("collapsed") == false && expanded.string("display_mode") == "secondary_only")
        let events = try Self.got(sub)
        #expect(events.first == "sp size_class_changed" && events.contains("sp display_mode_will_change"))
        #expect(events.firstIndex(of: "sp display_mode_will_change")! < events.firstIndex(of: "sp split_expanded")!)
    }

    @Test("R15.41 a detached controller keeps the environment it had, as a root of its own, silently")
    func r15_41_detachedKeepsEnvironment() throws {
        let (t, c, sub) = try Self.tabd([
            #"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","primary":{"id":"p"},"secondary":{"id":"d"}}"#,
            #"{"cmd":"controller.create","controller":"box","kind":"custom","idiom":"pad","window":true,"children":[{"id":"a"}],"shown":["a"]}"#,
            #"{"cmd":"set_size_class","controller":"box","size_class":"compact"}"#,
            #"{"cmd":"set_children","controller":"box","children":[{"id":"a"},{"id":"s","controller":"sp"}],"shown":["a","s"]}"#,
        ], subscribe: ["sp"])
        defer { withExtendedLifetime(t) {} }
        let attached = try c.ok(#"{"cmd":"state","controller":"sp"}"#)
        #expect(attached.string("size_class") == "compact" && attached.bool("collapsed") == true)
        try c.ok(#"{"cmd":"set_children","controller":"box","children":[{"id":"a"}],"shown":["a"]}"#)
        let events = try Self.got(sub)
        #expect(!events.contains { $0.contains("split_expanded") || $0.contains("size_class_changed") })
        let detached = try c.ok(#"{"cmd":"state","controller":"sp"}"#)
        #expect(detached.isNull("parent") && detached.string("size_class") == "compact" && detached.bool("collapsed") == true)
        // Its own now: a root's set_size_class reaches it.
        try c.ok(#"{"cmd":"set_size_class","controller":"sp","size_class":"regular"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"sp"}"#).bool("collapsed") == false)
    }

    @Test("R15.42 controller.create never sends status_bar_changed; set_window true on a root holding a controller sends it after window_changed, hiding sends none")
    func r15_42_statusBarChanged() throws {
        let (t, c, sub) = try Self.tabd([#"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"inbox"}]}"#], subscribe: ["root", "nav"])
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"nav"}}"#)
        #expect(try !Self.got(sub).contains { $0.contains("status_bar_changed") })
        try c.ok(#"{"cmd":"set_window","controller":"root","window":false}"#)
        let hiding = try Self.got(sub)
        #expect(hiding.contains("root window_changed") && !hiding.contains { $0.contains("status_bar_changed") })
        try c.ok(#"{"cmd":"set_window","controller":"root","window":true}"#)
        let showing = try Self.got(sub)
        #expect(Array(showing.suffix(2)) == ["root window_changed", "root status_bar_changed main/inbox"])
    }

    @Test("R15.34 what is not modelled is refused plainly: layout is for tab controllers, the classic split style, column widths")
    func r15_34_notModelled() throws {
        let (t, c, _) = try Self.tabd(Self.drawer, subscribe: ["root"])
        defer { withExtendedLifetime(t) {} }
        let before = try stateLines(c, ["root", "nav"])
        try c.expectRefusals([
            (#"{"cmd":"layout","controller":"root","width":390,"height":844}"#, "not_available", nil),
            (#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"classic","primary":{"id":"p"},"secondary":{"id":"d"}}"#, "invalid_request", "style"),
            (#"{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","primary":{"id":"p"},"secondary":{"id":"d"},"preferred_primary_column_width":320}"#, "invalid_request", "preferred_primary_column_width"),
        ])
        #expect(try stateLines(c, ["root", "nav"]) == before)
    }
}

/// Issue 42's "every R15 rule has a test named after it, in TabCore and against a real tabd":
/// read from the test sources, so that a rule losing its last named test fails here.
@Suite struct R15RuleCoverageTests {
    /// SEMANTICS R15's rules: 1–31 and the clarifications 35–42, and 33 (plugins). 32 is cut
    /// ("manual appearance forwarding") and 34 lists what is not modelled (tested against a
    /// real tabd only: it is the wire's refusals).
    static let unitRules = Array(1...31) + [33] + Array(35...42)
    static let endToEndRules = Array(1...31) + [33, 34] + Array(35...42)

    /// The rule numbers named in `@Test("…")` titles of the Swift files under `directories`.
    static func named(in directories: [String]) throws -> Set<Int> {
        var found = Set<Int>()
        let rule = /R15\.(\d+)/
        for directory in directories {
            let root = Build.packageRoot.appendingPathComponent(directory).path
            let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("@Test(\"") {
                    let title = line.split(separator: "\"", maxSplits: 2).dropFirst().first ?? ""
                    for m in title.matches(of: rule) { if let n = Int(m.1) { found.insert(n) } }
                }
            }
        }
        return found
    }

    @Test("every R15 rule has a test named after it in the unit suites and against a real tabd")
    func everyRuleHasANamedTest() throws {
        let unit = try Self.named(in: ["Tests/TabCoreTests", "Tests/TabPluginsTests", "Tests/TabServerTests", "Tests/TabStateTests", "Tests/TabProtocolTests"])
        let endToEnd = try Self.named(in: ["Tests/EndToEndTests"])
        #expect(Self.unitRules.filter { !unit.contains($0) } == [], "R15 rules with no unit test named after them")
        #expect(Self.endToEndRules.filter { !endToEnd.contains($0) } == [], "R15 rules with no end-to-end test named after them")
    }
}
