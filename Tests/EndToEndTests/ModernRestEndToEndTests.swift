// R13.9–R13.12 and R14 over the socket: a real tabd with a search tab, disabled tabs, a hidden
// bar, size class and compact tabs, the mode at run time, the editing session, select_child
// and collapsed groups — each command with its events and refusals — and restarts (SIGTERM
// and kill -9) in the middle of an editing session, with a compact pad, that answer `state`
// with the same bytes.

import Foundation
import Testing
import TabProtocol

@Suite("R13.9–R14 over the socket") struct ModernRestEndToEndTests {
    typealias M = ModernModelEndToEndTests

    static let tabs = #"[{"id":"home","title":"Home"},{"id":"lib","children":[{"id":"songs"},{"id":"albums"}],"allows_reordering":true},{"id":"radio","allows_hiding":true},{"id":"find","role":"search","activates_search":true}]"#

    static func pad(_ c: LineClient, name: String = "pad", extra: String = "") throws {
        try c.ok(#"{"cmd":"controller.create","controller":"\#(name)","idiom":"pad"\#(extra)}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"\#(name)","tabs":\#(tabs)}"#)
    }

    @Test func r14_1_searchTabOverTheSocket() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.pad(c)
        var s = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(s.object("search")?.bool("active") == false)
        #expect(s.object("bar")?.strings("visible")?.last == "find")
        #expect(try c.error(#"{"cmd":"search","controller":"pad","active":true}"#).string("code") == "not_available")
        let sub = try M.subscriber(t, to: "pad")
        var (events, _) = try M.eventsAndReply(sub, #"{"cmd":"tap","controller":"pad","tab":"find"}"#)
        let names = events.compactMap { $0.string("event") }
        #expect(try #require(names.firstIndex(of: "selection_changed")) < (try #require(names.firstIndex(of: "search_changed"))))
        #expect(try M.data(events, "search_changed").bool("active") == true)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"search","controller":"pad","active":false}"#)
        #expect(try M.data(events, "selection_changed").string("cause") == "search_cancelled")
        s = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(s.strings("selected_path") == ["home"] && s.object("search")?.bool("active") == false)
        // A second search tab, or one in a group, is refused.
        #expect(try c.error(#"{"cmd":"add_tab","controller":"pad","tab":{"id":"s2","role":"search"}}"#).string("code") == "conflict")
        #expect(try c.error(#"{"cmd":"add_tab","controller":"pad","group":"lib","tab":{"id":"s3","role":"search"}}"#).string("code") == "invalid_request")
    }

    @Test func r14_2_and_r14_3_enabledAndTheHiddenBar() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.pad(c)
        let sub = try M.subscriber(t, to: "pad")
        var (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_enabled","controller":"pad","tab":"radio","enabled":false}"#)
        #expect(try M.data(events, "tab_updated").object("object")?.bool("enabled") == false)
        #expect(try c.error(#"{"cmd":"tap","controller":"pad","tab":"radio"}"#).string("code") == "not_available")
        _ = try M.eventsAndReply(sub, #"{"cmd":"select","controller":"pad","tab":"radio"}"#)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_bar_hidden","controller":"pad","hidden":true,"animated":true}"#)
        #expect(try M.data(events, "bar_changed").bool("hidden") == true)
        let layout = try c.ok(#"{"cmd":"layout","controller":"pad","width":1024,"height":768}"#)
        #expect(layout.object("bar")?.double("height") == 0 && layout.string("bar_position") == "top")
    }

    @Test func r14_4_and_r14_5_sizeClassCompactTabsAndMode() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.pad(c, extra: #","compact_tabs":["home","lib"]"#)
        #expect(try c.error(#"{"cmd":"controller.create","controller":"ph","idiom":"phone","size_class":"regular"}"#).string("code") == "not_available")
        try c.ok(#"{"cmd":"controller.create","controller":"ph","idiom":"phone"}"#)
        #expect(try c.error(#"{"cmd":"set_size_class","controller":"ph","size_class":"regular"}"#).string("code") == "not_available")
        let sub = try M.subscriber(t, to: "pad")
        var (events, reply) = try M.eventsAndReply(sub, #"{"cmd":"set_size_class","controller":"pad","size_class":"compact"}"#)
        #expect(try M.data(events, "size_class_changed").string("size_class") == "compact")
        #expect(try M.data(events, "sidebar_changed").bool("available") == false)
        #expect(try M.data(events, "bar_changed").strings("visible") == ["home", "lib"])
        #expect(reply.object("result")?.string("size_class") == "compact")
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_compact_tabs","controller":"pad","tabs":null}"#)
        #expect(try M.data(events, "bar_changed").strings("visible") == ["home", "lib", "radio", "find"])
        _ = try M.eventsAndReply(sub, #"{"cmd":"set_size_class","controller":"pad","size_class":"regular"}"#)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_mode","controller":"pad","mode":"tab_bar"}"#)
        let names = events.compactMap { $0.string("event") }
        #expect(Array(names.prefix(2)) == ["mode_changed", "sidebar_changed"])
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#).string("mode") == "tab_bar")
    }

    @Test func r14_6_r14_7_r13_12_editingSelectChildAndCollapsedGroups() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.pad(c)
        #expect(try c.error(#"{"cmd":"customize.begin","controller":"pad"}"#).string("code") == "not_available")
        let sub = try M.subscriber(t, to: "pad")
        var (events, _) = try M.eventsAndReply(sub, #"{"cmd":"edit.begin","controller":"pad"}"#)
        #expect(M.named(events, "will_begin_editing").count == 1)
        #expect(try c.error(#"{"cmd":"edit.begin","controller":"pad"}"#).string("code") == "conflict")
        try c.ok(#"{"cmd":"reorder","controller":"pad","group":"lib","order":["albums","songs"]}"#)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"edit.end","controller":"pad"}"#)
        #expect(try M.data(events, "did_end_editing").bool("changed") == true)
        // select_child: quiet off the selected path, a selection change on it.
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"select_child","controller":"pad","group":"lib","child":"songs"}"#)
        #expect(events.isEmpty)
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"lib"}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#).strings("selected_path") == ["lib", "songs"])
        // Collapsed groups: the whole sidebar in sidebar_changed; taps inside are refused.
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"home"}"#)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_expanded","controller":"pad","group":"lib","expanded":false}"#)
        let sidebar = try M.data(events, "sidebar_changed")
        #expect(sidebar.bool("available") == true && sidebar.bool("visible") == true && sidebar["items"] != nil)
        #expect(try c.error(#"{"cmd":"tap","controller":"pad","tab":"albums"}"#).string("code") == "not_available")
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"albums"}"#)
    }

    @Test func r13_10_and_r13_9_fitAndTheHiddenChoiceOverTheSocket() throws {
        let t = try TabdProcess()
        let c = try t.client()
        let six = (0..<6).map { #"{"id":"f\#($0)","placement":"fixed"}"# }.joined(separator: ",")
        let e = try c.error(#"{"cmd":"set_tabs","tabs":[\#(six)]}"#)
        #expect(e.string("code") == "conflict" && (e.string("message") ?? "").contains("6 tabs would be fixed or pinned"))
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b","allows_hiding":true,"hidden_by_default":true}]}"#)
        try c.ok(#"{"cmd":"set_hidden","tab":"b","hidden":false}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b","allows_hiding":true,"hidden_by_default":true}]}"#)
        #expect(M.tabObjects(try c.ok(#"{"cmd":"state"}"#))["b"]?.bool("hidden") == false)
        #expect(try c.error(#"{"cmd":"set_hidden","tab":"a","hidden":true}"#).string("code") == "conflict")
    }

    /// R14.4: `set_compact_tabs` is announced by `bar_changed` with `compact_tabs` also where
    /// the bar does not change (a regular pad), and its seq survives kill -9.
    @Test func r14_4_setCompactTabsIsAnnouncedAndSurvivesKill9() throws {
        let t = try TabdProcess()
        var c = try t.client()
        try Self.pad(c)
        let sub = try M.subscriber(t, to: "pad")
        var (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_compact_tabs","controller":"pad","tabs":["home"]}"#)
        #expect(events.compactMap { $0.string("event") } == ["bar_changed"])
        let data = try M.data(events, "bar_changed")
        #expect(data.strings("compact_tabs") == ["home"] && data.strings("visible") == ["home", "lib", "radio", "find"])
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_compact_tabs","controller":"pad","tabs":null}"#)
        #expect(try M.data(events, "bar_changed").strings("compact_tabs") == nil)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_compact_tabs","controller":"pad","tabs":["lib"]}"#)
        let seq = try #require(events.last?.int("seq"))
        let before = try stateLines(c, ["pad"])
        _ = t.stop(signal: SIGKILL)
        try t.start()
        c = try t.client()
        #expect(try stateLines(c, ["pad"]) == before)
        let state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(state.strings("compact_tabs") == ["lib"] && state.int("seq") == seq)
    }

    /// R14.6: a set_tabs that takes the sidebar away sends did_end_editing before its other
    /// events, on the wire too.
    @Test func r14_6_didEndEditingComesFirstOverTheSocket() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.pad(c)
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"albums"}"#)
        try c.ok(#"{"cmd":"edit.begin","controller":"pad"}"#)
        let sub = try M.subscriber(t, to: "pad")
        let (events, _) = try M.eventsAndReply(sub, #"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"home"},{"id":"songs"},{"id":"albums"}]}"#)
        #expect(events.first?.string("event") == "did_end_editing", "\(events)")
        // R13.6: the sidebar went with the last group (automatic mode), and says so.
        #expect(try M.data(events, "sidebar_changed").bool("available") == false, "\(events)")
        // It comes back with a group, announced the same way.
        let (back, _) = try M.eventsAndReply(sub, #"{"cmd":"add_tab","controller":"pad","tab":{"id":"lib","children":[{"id":"x"}]}}"#)
        #expect(try M.data(back, "sidebar_changed").bool("available") == true, "\(back)")
        #expect(back.filter { $0.string("event") == "sidebar_changed" }.count == 1, "\(back)")
        try c.ok(#"{"cmd":"remove_tab","controller":"pad","tab":"lib"}"#)
        // No group left: `state` is R1–R12's again, without `editing` (nor a session).
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#).bool("editing") == nil)
        #expect(try c.error(#"{"cmd":"edit.end","controller":"pad"}"#).string("code") == "conflict")
    }

    /// Restarts in the middle of an editing session, with a compact pad, a hidden bar, an
    /// active search and a collapsed group: `state` is the same bytes after SIGTERM and kill -9.
    @Test func r14_8_restartInTheMiddleOfAnEditingSessionAndACompactPad() throws {
        let t = try TabdProcess()
        var c = try t.client()
        try Self.pad(c, name: "pad")
        try Self.pad(c, name: "small", extra: #","size_class":"compact","compact_tabs":["home","find"]"#)
        try c.ok(#"{"cmd":"edit.begin","controller":"pad"}"#)
        try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"radio","hidden":true}"#)
        try c.ok(#"{"cmd":"set_expanded","controller":"pad","group":"lib","expanded":false}"#)
        try c.ok(#"{"cmd":"set_enabled","controller":"pad","tab":"home","enabled":false}"#)
        try c.ok(#"{"cmd":"select","controller":"small","tab":"find"}"#)
        try c.ok(#"{"cmd":"set_bar_hidden","controller":"small","hidden":true}"#)
        try c.ok(#"{"cmd":"select_child","controller":"small","group":"lib","child":"albums"}"#)
        let names = ["pad", "small"]
        func states(_ c: LineClient) throws -> [String] { try stateLines(c, names) }
        let before = try states(c)
        let small = try object(before[1]).object("result")
        #expect(small?.string("size_class") == "compact" && small?.object("search")?.bool("active") == true)
        #expect(try object(before[0]).object("result")?.bool("editing") == true)
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            c = try t.client()
            let after = try states(c)
            for (name, (a, b)) in zip(names, zip(before, after)) {
                #expect(a == b, "controller \(name) after \(signal == SIGKILL ? "kill -9" : "SIGTERM"):\n\(a)\n\(b)")
            }
        }
        // The session goes on where it was: edit.end reports the change made inside it.
        #expect(try c.ok(#"{"cmd":"edit.end","controller":"pad"}"#).bool("editing") == false)
    }
}
