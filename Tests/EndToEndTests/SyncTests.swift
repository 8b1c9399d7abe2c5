// Staying in sync (PROTOCOL additions, SEMANTICS R11.4): a client subscribes, reads `state`,
// and applies only later events; the events carry what it draws (tab objects, the bar) and
// say when a controller is gone; numbering continues across restarts and re-creation.

import Foundation
import TabJSON
import Testing
import TabProtocol

@Suite struct SyncTests {
    /// Reads events until one named `name` (and returns it), or fails after `limit` lines.
    static func event(_ c: LineClient, _ name: String, limit: Int = 100) throws -> JSONObject {
        for _ in 0..<limit {
            guard let line = try c.readLine() else { throw TestFailure("closed before a \(name) event") }
            let o = try object(line)
            if o.string("event") == name { return o }
        }
        throw TestFailure("no \(name) event in \(limit) lines")
    }

    /// R11.4: the recipe. `subscribe` says where numbering stands, `state` reports the seq of
    /// the last event, and the next event is one more.
    @Test func r11_4_subscribeThenStateGivesTheSeqEventsContinueFrom() throws {
        let t = try TabdProcess(config: "")
        let writer = try t.client(), sub = try t.client()
        try writer.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let subscribed = try sub.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["main","nope"]}"#)
        let seqs = try #require(subscribed.object("seqs"))
        #expect(seqs.keys == ["main"])  // named controllers that exist
        let state = try sub.ok(#"{"cmd":"state"}"#)
        let seq = try #require(state.int("seq"))
        #expect(seqs.int("main") == seq)
        #expect(seq > 0)
        try writer.ok(#"{"cmd":"select","tab":"b"}"#)
        let first = try #require(try sub.readLine())
        #expect(try object(first).int("seq") == seq + 1)
        // All controllers when none are named.
        let all = try t.client().ok(#"{"cmd":"subscribe","events":["bar_changed"]}"#)
        #expect(all.object("seqs")?.keys == ["main"])
    }

    /// R11.4: seq continues across a restart (SIGTERM and SIGKILL) and across deleting and
    /// creating a controller of the same name again; `controller_deleted` is the last event.
    @Test func r11_4_seqContinuesAcrossRestartsAndRecreation() throws {
        let t = try TabdProcess(config: "")
        var c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"pad"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"tap","controller":"pad","tab":"a"}"#)  // changes nothing but did_select
        var seq = try #require(try c.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq"))
        for (signal, tab) in [(SIGTERM, "b"), (SIGKILL, "a")] {
            _ = t.stop(signal: signal)
            try t.start()
            c = try t.client()
            #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq") == seq)
            let sub = try t.client()
            try sub.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["pad"]}"#)
            try c.ok(#"{"cmd":"select","controller":"pad","tab":"\#(tab)"}"#)
            let e = try #require(try sub.readLine())
            #expect(try object(e).int("seq") == seq + 1)
            seq = try #require(try c.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq"))
        }
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["pad"]}"#)
        try c.ok(#"{"cmd":"controller.delete","controller":"pad"}"#)
        let deleted = try Self.event(sub, "controller_deleted")
        #expect(deleted.int("seq") == seq + 1)
        #expect(deleted.object("data") == JSONObject([]))
        _ = t.stop(signal: SIGKILL)
        try t.start()
        c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"phone"}"#)
        // It starts where the deleted one ended: its first event is numbered above that.
        let recreated = try #require(try c.ok(#"{"cmd":"state","controller":"pad"}"#).int("seq"))
        #expect(recreated == seq + 1)
        let sub2 = try t.client()
        try sub2.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["pad"]}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"x"}]}"#)
        #expect(try object(try #require(try sub2.readLine())).int("seq") == seq + 2)
    }

    /// `main` always exists.
    @Test func mainCannotBeDeleted() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client()
        let error = try c.error(#"{"cmd":"controller.delete","controller":"main"}"#)
        #expect(error.string("code") == "conflict")
        #expect(try c.ok(#"{"cmd":"state"}"#).string("controller") == "main")
    }

    /// `tabs_changed` carries the tab objects and `tab_updated` the tab's, exactly as `state`
    /// reports them; `bar_changed` is the bar as `state` reports it, sent last.
    @Test func eventsCarryWhatStateReports() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client(), sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","events":["tabs_changed","tab_updated","bar_changed"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a","title":"A","navigation":true},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f","item":{"badge":"2"}}]}"#)
        var state = try c.ok(#"{"cmd":"state"}"#)
        let changed = try Self.event(sub, "tabs_changed")
        #expect(changed.object("data")?["objects"] == state["tabs"])  // all six are new
        let bar = try Self.event(sub, "bar_changed")
        #expect(bar.object("data").map(JSONValue.object) == state["bar"])
        #expect(bar.int("seq") == state.int("seq"))  // the last event of the command
        try c.ok(#"{"cmd":"update_tab","tab":"b","title":"Bee"}"#)
        state = try c.ok(#"{"cmd":"state"}"#)
        let updated = try Self.event(sub, "tab_updated")
        guard case .array(let tabs)? = state["tabs"] else { throw TestFailure("no tabs") }
        #expect(updated.object("data")?["object"] == tabs[1])
        // A selection under More moves the bar's selected item to More: bar_changed.
        try c.ok(#"{"cmd":"select","tab":"f"}"#)
        let moved = try Self.event(sub, "bar_changed")
        #expect(moved.object("data")?.string("selected") == "more")
        // Selecting another tab under More changes nothing the bar shows: no bar_changed; the
        // next one comes from the next change of the bar.
        try c.ok(#"{"cmd":"select","tab":"e"}"#)
        try c.ok(#"{"cmd":"select","tab":"a"}"#)
        let back = try Self.event(sub, "bar_changed")
        #expect(back.object("data")?.string("selected") == "a")
        #expect(back.int("seq")! > moved.int("seq")!)
        state = try c.ok(#"{"cmd":"state"}"#)
        #expect(back.int("seq") == state.int("seq"))
        // Adding a tab carries its object only: the event's size follows the request's.
        try c.ok(#"{"cmd":"add_tab","tab":{"id":"g","title":"G"}}"#)
        state = try c.ok(#"{"cmd":"state"}"#)
        let added = try Self.event(sub, "tabs_changed")
        guard case .array(let all)? = state["tabs"], case .array(let objects)? = added.object("data")?["objects"] else { throw TestFailure("no tabs") }
        #expect(objects == [all[6]])
        #expect(added.object("data")?.strings("tabs") == ["a", "b", "c", "d", "e", "f", "g"])
    }
}
