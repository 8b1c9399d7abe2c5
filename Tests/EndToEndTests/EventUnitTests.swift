// A command's events as one unit (issue 45, item 2; docs/protocol.md, "subscribe and
// unsubscribe"): the last event each subscriber gets from one command is marked
// `"last":true` — the last of what that subscriber's filter lets through — and a subscriber
// that asked for `"grouped":true` gets them as one line, `{"events":[…]}`.

import Foundation
import TabJSON
import Testing

@Suite struct EventUnitTests {
    /// What `c` was sent until the reply to a ping: each line as an object.
    static func drain(_ c: LineClient) throws -> [JSONObject] {
        try c.write(#"{"cmd":"ping","id":"drain"}"# + "\n")
        var lines: [JSONObject] = []
        while let raw = try c.readLine() {
            let o = try object(raw)
            if o.string("id") == "drain" { return lines }
            lines.append(o)
        }
        throw TestFailure("the connection closed")
    }

    /// Each run of events up to one marked last: the events must end with a marked one,
    /// and only the last of each run is marked.
    static func units(_ events: [JSONObject], _ who: String) -> [[String]] {
        var units: [[String]] = [], current: [String] = []
        for e in events {
            current.append(e.string("event") ?? "?")
            if e.bool("last") == true { units.append(current); current = [] }
        }
        #expect(current.isEmpty, "\(who): events after the last marked one: \(current)")
        return units
    }

    @Test func theLastEventOfACommandIsMarkedForEachSubscriber() throws {
        let tabd = try TabdProcess()
        let driver = try tabd.client()
        let all = try tabd.client(), some = try tabd.client()
        try all.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["main"]}"#)
        try some.ok(#"{"cmd":"subscribe","events":["appearance","selection_changed"],"controllers":["main"]}"#)
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        try driver.ok(#"{"cmd":"select","tab":"b"}"#)
        try driver.ok(#"{"cmd":"badge","tab":"c","value":"3"}"#)

        let everything = try Self.drain(all)
        let allUnits = Self.units(everything, "a subscriber of every event")
        #expect(allUnits.count == 3, "\(allUnits)")
        // The select's events end with the bar; the filtered subscriber's with the selection.
        #expect(allUnits.dropFirst().first?.last == "bar_changed", "\(allUnits)")
        let filtered = Self.units(try Self.drain(some), "a subscriber of appearance and selection_changed")
        #expect(filtered.count == 2, "the badge sends it nothing: \(filtered)")
        #expect(filtered.last == ["appearance", "appearance", "appearance", "appearance", "selection_changed"], "\(filtered)")
    }

    @Test func aGroupedSubscriberGetsOneLinePerCommand() throws {
        let tabd = try TabdProcess()
        let driver = try tabd.client()
        let single = try tabd.client(), grouped = try tabd.client()
        try single.ok(#"{"cmd":"subscribe","controllers":["main"]}"#)
        let reply = try grouped.ok(#"{"cmd":"subscribe","controllers":["main"],"grouped":true}"#)
        #expect(reply.bool("grouped") == true, "\(reply)")
        try driver.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try driver.ok(#"{"cmd":"select","tab":"b"}"#)

        let lines = try Self.drain(single)
        let groups = try Self.drain(grouped)
        #expect(groups.count == 2, "one line per command: \(groups)")
        var fromGroups: [JSONObject] = []
        for g in groups {
            guard case .array(let list)? = g["events"] else { Issue.record("not a group: \(g)"); continue }
            for case .object(let e) in list { fromGroups.append(e) }
        }
        // The same events, in the same order, without the mark.
        #expect(fromGroups.map { $0.int("seq") } == lines.map { $0.int("seq") })
        #expect(fromGroups.allSatisfy { $0["last"] == nil })
        #expect(fromGroups.map { $0.string("event") } == lines.map { $0.string("event") })

        // `"grouped": false` goes back to one line per event.
        try grouped.ok(#"{"cmd":"subscribe","controllers":["main"],"grouped":false}"#)
        try driver.ok(#"{"cmd":"select","tab":"a"}"#)
        let back = try Self.drain(grouped)
        #expect(back.allSatisfy { $0["event"] != nil } && back.last?.bool("last") == true, "\(back)")
    }

    /// `controller_deleted` is a command's last event too, and a plugin's event is marked
    /// when it is the last of its step (the login gate's login, alone in its step).
    @Test func deletedAndPluginEventsAreMarked() throws {
        let dir = temporaryDirectory("unit")
        let tabd = try TabdProcess(config: ExampleClientTests.config(credentials: try Plugins.credentials(in: dir)), dir: dir)
        let driver = try tabd.client(), watcher = try tabd.client()
        try driver.ok(#"{"cmd":"controller.create","controller":"x"}"#)
        try watcher.ok(#"{"cmd":"subscribe","controllers":["x","main"]}"#)
        try driver.request(loginLine(controller: "main"))
        try driver.ok(#"{"cmd":"controller.delete","controller":"x"}"#)
        let events = try Self.drain(watcher)
        #expect(events.map { $0.string("event") } == ["plugin", "controller_deleted"], "\(events)")
        #expect(events.allSatisfy { $0.bool("last") == true }, "\(events)")
    }
}
