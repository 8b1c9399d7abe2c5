// R13.8 over the socket (PROTOCOL.md "The tree everywhere"): a real tabd with groups —
// set_tabs naming a nested selection, identity across the tree, no-op replacements, update_tab
// of a tab object copied from `state`, add_tab into a group, taps on groups, preserve and
// restore of nested tabs — and restarts (SIGTERM and kill -9) in the middle of groups and
// hidden tabs that answer `state` with the same bytes.

import Foundation
import TabJSON
import Testing
import TabProtocol

@Suite("R13.8 over the socket") struct TreeEndToEndTests {
    typealias M = ModernModelEndToEndTests

    static let tree = #"[{"id":"home","navigation":true,"restoration_id":"home"},{"id":"lib","restoration_id":"lib","children":[{"id":"songs","navigation":true,"restoration_id":"songs"},{"id":"albums","allows_hiding":true,"navigation":true}]},{"id":"news","allows_hiding":true}]"#

    /// The ids of a tab object's stack.
    static func screens(_ tab: JSONObject?) -> [String] {
        guard case .array(let a)? = tab?["stack"] else { return [] }
        return a.compactMap { if case .object(let o) = $0 { o.string("id") } else { nil } }
    }

    static func phone(_ c: LineClient) throws {
        try c.ok(#"{"cmd":"controller.create","controller":"ph","idiom":"phone"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"ph","tabs":\#(tree),"selected":"albums"}"#)
    }

    @Test func r13_8_setTabsSelectsANestedTabAndRefusesAHiddenOne() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.phone(c)
        let s = try c.ok(#"{"cmd":"state","controller":"ph"}"#)
        #expect(s.strings("selected_path") == ["lib", "albums"])
        let hidden = #"[{"id":"home"},{"id":"lib","children":[{"id":"songs"},{"id":"albums","allows_hiding":true,"hidden":true}]}]"#
        let e = try c.error(#"{"cmd":"set_tabs","controller":"ph","tabs":\#(hidden),"selected":"albums"}"#)
        #expect(e.string("code") == "not_available")
        #expect(try c.ok(#"{"cmd":"state","controller":"ph"}"#).strings("selected_path") == ["lib", "albums"])  // nothing changed
    }

    @Test func r13_8_identityAcrossTheTreeAndNoOpReplacements() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.phone(c)
        try c.ok(#"{"cmd":"push","controller":"ph","tab":"albums","screen":{"id":"deep"}}"#)
        let sub = try M.subscriber(t, to: "ph")
        // The same tabs again: changed false, and no event reaches the subscriber before the reply.
        var (events, reply) = try M.eventsAndReply(sub, #"{"cmd":"set_tabs","controller":"ph","tabs":\#(Self.tree)}"#)
        #expect(events.isEmpty && reply.object("result")?.bool("changed") == false)
        // albums moves from the group to the root: same child, same stack, still selected.
        let moved = #"[{"id":"home","navigation":true,"restoration_id":"home"},{"id":"albums","allows_hiding":true,"navigation":true},{"id":"lib","restoration_id":"lib","children":[{"id":"songs","navigation":true,"restoration_id":"songs"}]},{"id":"news","allows_hiding":true}]"#
        (events, reply) = try M.eventsAndReply(sub, #"{"cmd":"set_tabs","controller":"ph","tabs":\#(moved)}"#)
        #expect(M.named(events, "containment").isEmpty && M.named(events, "appearance").isEmpty)
        let change = try M.data(events, "selection_changed")
        #expect(change.strings("path") == ["albums"] && change.strings("previous_path") == ["lib", "albums"])
        let s = try c.ok(#"{"cmd":"state","controller":"ph"}"#)
        #expect(s.strings("selected_path") == ["albums"])
        #expect(Self.screens(M.tabObjects(s)["albums"]) == ["deep"])
    }

    @Test func r13_8_updateTabTakesATabObjectCopiedFromState() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.phone(c)
        let s = try c.ok(#"{"cmd":"state","controller":"ph"}"#)
        var lib = try #require(M.tabObjects(s)["lib"])
        lib["id"] = nil
        lib["subtitle"] = .string("All music")
        lib["default_child"] = .string("songs")
        var members = JSONValue.object(lib).jsonString
        members.removeFirst()  // "{" — the members follow "tab"
        let reply = try c.ok(#"{"cmd":"update_tab","controller":"ph","tab":"lib","#+members)
        #expect(reply.bool("changed") == true)
        let after = M.tabObjects(try c.ok(#"{"cmd":"state","controller":"ph"}"#))["lib"]
        #expect(after?.string("subtitle") == "All music" && after?.string("default_child") == "songs")
        // A leaf copied back as it is changes nothing.
        var news = try #require(M.tabObjects(s)["news"])
        news["id"] = nil
        members = JSONValue.object(news).jsonString
        members.removeFirst()
        #expect(try c.ok(#"{"cmd":"update_tab","controller":"ph","tab":"news","#+members).bool("changed") == false)
        // The app hides a tab: visibility_changed with cause app.
        let sub = try M.subscriber(t, to: "ph")
        let (events, _) = try M.eventsAndReply(sub, #"{"cmd":"update_tab","controller":"ph","tab":"news","hidden":true}"#)
        let vis = try M.data(events, "visibility_changed")
        #expect(vis.string("cause") == "app")
    }

    @Test func r13_8_addRemoveAndTapInGroups() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.phone(c)
        let sub = try M.subscriber(t, to: "ph")
        var (events, _) = try M.eventsAndReply(sub, #"{"cmd":"add_tab","controller":"ph","group":"lib","index":0,"tab":{"id":"artists"}}"#)
        #expect(M.named(events, "containment").compactMap { $0.object("data")?.string("tab") } == ["artists", "artists"])
        #expect(M.tabObjects(try c.ok(#"{"cmd":"state","controller":"ph"}"#))["lib"]?.strings("display_order") == ["artists", "songs", "albums"])
        #expect(try c.error(#"{"cmd":"add_tab","controller":"ph","group":"news","tab":{"id":"x"}}"#).string("code") == "conflict")
        // A tap on the group pops the leaf it shows before it appears.
        try c.ok(#"{"cmd":"push","controller":"ph","tab":"albums","screen":{"id":"deep"}}"#)
        try c.ok(#"{"cmd":"select","controller":"ph","tab":"home"}"#)
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"tap","controller":"ph","tab":"lib"}"#)
        let names = events.compactMap { $0.string("event") }
        let pop = try #require(names.firstIndex(of: "navigation_changed")), shown = try #require(names.firstIndex(of: "appearance"))
        #expect(pop < shown)
        #expect(try M.data(events, "did_select").strings("path") == ["lib", "albums"])
        // A nested tab of another root is not something the user can touch on a phone.
        try c.ok(#"{"cmd":"select","controller":"ph","tab":"home"}"#)
        #expect(try c.error(#"{"cmd":"tap","controller":"ph","tab":"songs"}"#).string("code") == "not_available")
        #expect(try c.error(#"{"cmd":"push","controller":"ph","tab":"lib","screen":{"id":"s"}}"#).string("code") == "not_available")
        (events, _) = try M.eventsAndReply(sub, #"{"cmd":"remove_tab","controller":"ph","tab":"lib"}"#)
        #expect(Set(M.named(events, "containment").compactMap { $0.object("data")?.string("tab") }) == ["lib", "artists", "songs", "albums"])
    }

    @Test func r13_8_preserveAndRestoreNestedTabs() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.phone(c)
        try c.ok(#"{"cmd":"select","controller":"ph","tab":"songs"}"#)
        try c.ok(#"{"cmd":"push","controller":"ph","tab":"songs","screen":{"id":"track"}}"#)
        let archive = try #require(try c.ok(#"{"cmd":"preserve","controller":"ph"}"#).object("archive"))
        #expect(archive.string("selected") == "songs")
        #expect(archive.object("stacks")?["songs"] != nil)
        try c.ok(#"{"cmd":"select","controller":"ph","tab":"home"}"#)
        try c.ok(#"{"cmd":"pop","controller":"ph","tab":"songs"}"#)
        try c.ok(#"{"cmd":"restore","controller":"ph","archive":\#(JSONValue.object(archive).jsonString)}"#)
        let s = try c.ok(#"{"cmd":"state","controller":"ph"}"#)
        #expect(s.strings("selected_path") == ["lib", "songs"])
        #expect(Self.screens(M.tabObjects(s)["songs"]) == ["track"])
    }

    /// A restart in the middle of groups and hidden tabs: `state` is the same bytes after
    /// SIGTERM and after kill -9.
    @Test func r13_8_restartInTheMiddleOfGroupsAndHiddenTabs() throws {
        let t = try TabdProcess()
        var c = try t.client()
        try Self.phone(c)
        try c.ok(#"{"cmd":"add_tab","controller":"ph","group":"lib","tab":{"id":"artists","navigation":true}}"#)
        try c.ok(#"{"cmd":"select","controller":"ph","tab":"artists"}"#)
        try c.ok(#"{"cmd":"push","controller":"ph","tab":"artists","screen":{"id":"a1"}}"#)
        try c.ok(#"{"cmd":"set_hidden","controller":"ph","tab":"albums","hidden":true}"#)
        try c.ok(#"{"cmd":"update_tab","controller":"ph","tab":"news","hidden":true,"subtitle":"later"}"#)
        // The user's choice survives the app re-sending its tabs without `hidden`.
        try c.ok(#"{"cmd":"set_tabs","controller":"ph","tabs":\#(Self.tree)}"#)
        let before = try c.request(#"{"cmd":"state","controller":"ph"}"#)
        #expect(M.tabObjects(before.object("result")!)["albums"]?.bool("hidden") == true)
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            c = try t.client()
            let after = try c.request(#"{"cmd":"state","controller":"ph"}"#)
            #expect(JSONValue.object(after).jsonString == JSONValue.object(before).jsonString, "after \(signal)")
        }
    }
}
