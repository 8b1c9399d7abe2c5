// Plugin ABI 1.11 against a real tabd (SEMANTICS R15.33): every event of an R15 container's
// command reaches the plugins with `notify`, in order, as the JSON a subscriber gets
// (Fixtures/notify.c keeps them) — in process and isolated; a tab controller's own commands
// never go through it; a helper that crashes in notify changes nothing for the command.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite(.serialized) struct PluginNotifyTests {
    static let drawer = #"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"c"},"left":{"id":"menu"}}"#
    static let open = #"{"cmd":"open_drawer","controller":"root","side":"left"}"#

    /// The events `plugin` was told so far, and how many notifications did not hold what the
    /// header promises.
    static func told(_ c: LineClient, _ plugin: String = "notes") throws -> (events: [JSONValue], bad: Int?) {
        let value = try c.ok(#"{"cmd":"plugin.call","plugin":"\#(plugin)","method":"seen"}"#).object("value")
        guard case .array(let events)? = value?["events"] else { throw TestFailure("no events in \(String(describing: value))") }
        return (events, value?.int("bad"))
    }

    /// The events `sub` reads up to the end of the command that sent the first `drawer_changed`
    /// (its last event carries `"last":true` on the wire), each without that mark.
    static func eventsThroughDrawerChanged(_ sub: LineClient) throws -> [JSONValue] {
        var events: [JSONValue] = []
        var opened = false
        while let line = try sub.readLine() {
            let e = try object(line)
            events.append(.object(JSONObject(e.filter { $0.key != "last" }.map { ($0.key, $0.value) })))
            opened = opened || e.string("event") == "drawer_changed"
            if opened && e.bool("last") == true { return events }
        }
        throw TestFailure("the subscription closed before drawer_changed's command ended")
    }

    static func names(_ events: [JSONValue]) -> [String] {
        events.compactMap { if case .object(let o) = $0 { o.string("event") } else { nil } }
    }

    /// A drawer's creation and an app's open_drawer: the plugin is told each event, in the order
    /// and with the members a subscriber of the drawer gets them (the open: the drawer's
    /// appearance, drawer_changed, the root's status bar). A select of the tab controller
    /// `main` tells it nothing.
    @Test("R15.33 notify tells a plugin a container's events as subscribers get them", arguments: [false, true]) func notifyTellsAContainersEventsAsSubscribersGetThem(isolated: Bool) throws {
        let dir = temporaryDirectory(isolated ? "ntfi" : "ntf")
        try Plugins.build(Plugins.fixture("notify.c"), "notify.so", in: dir)
        let load = "    - path: notify.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client(), sub = try tabd.client()
        _ = try sub.ok(#"{"cmd":"subscribe","events":["*"],"controllers":["root"]}"#)
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"news"}]}"#)
        _ = try c.ok(#"{"cmd":"select","tab":"news"}"#)
        #expect(try Self.told(c).events.isEmpty, "a tab controller's commands are not told through notify")

        _ = try c.ok(Self.drawer)
        #expect(try c.ok(Self.open).bool("changed") == true)
        let subscribed = try Self.eventsThroughDrawerChanged(sub)
        let (told, bad) = try Self.told(c)
        #expect(bad == 0)
        #expect(told == subscribed, "told \(told.map(\.jsonString)) where a subscriber got \(subscribed.map(\.jsonString))")
        let names = Self.names(told)
        #expect(names.first == "containment" && names.suffix(4) == ["appearance", "appearance", "drawer_changed", "status_bar_changed"], "\(names)")
        guard case .object(let changed)? = told.dropLast().last else { Issue.record("nothing told"); return }
        #expect(changed.string("controller") == "root" && changed.object("data")?.string("open_side") == "left")

        // A command that changes nothing sends nothing, and tells nothing.
        #expect(try c.ok(Self.open).bool("changed") == false)
        _ = try c.ok(#"{"cmd":"select","tab":"home"}"#)
        #expect(try Self.told(c).events.count == told.count)
        guard case .array(let plugins)? = try c.ok(#"{"cmd":"plugins"}"#)["plugins"], case .object(let p)? = plugins.first else {
            Issue.record("no plugins"); return
        }
        #expect(p.strings("hooks") == ["call", "notify"])
    }

    /// An isolated plugin that crashes in notify (on drawer_changed): the command succeeds and
    /// changes what it changes, the crash is counted, and the plugin after it is told every event.
    @Test("R15.33 a plugin crashing in notify changes nothing") func aCrashInNotifyChangesNothing() throws {
        let dir = temporaryDirectory("ntfc")
        try Plugins.build(Plugins.fixture("notify.c"), "crashy.so", in: dir, [#"CRASH_ON="drawer_changed""#])
        try Plugins.build(Plugins.fixture("notify.c"), "notify.so", in: dir)
        let load = "    - path: crashy.so\n      name: crashy\n      isolation: process\n      deadline_ms: 60000\n    - path: notify.so\n"
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client()
        _ = try c.ok(Self.drawer)
        #expect(try c.ok(Self.open).bool("changed") == true)
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).string("open_side") == "left")
        let names = Self.names(try Self.told(c).events)
        #expect(names.suffix(2) == ["drawer_changed", "status_bar_changed"], "\(names)")
        guard case .array(let stats)? = try c.ok(#"{"cmd":"stats"}"#)["plugins"],
              case .object(let crashy)? = stats.first(where: { if case .object(let o) = $0 { o.string("name") == "crashy" } else { false } }) else {
            Issue.record("no stats of crashy"); return
        }
        #expect(crashy.int("crashes") == 1)
        #expect(tabd.log.contains("isolated plugin crashy crashed in notify"), "\(tabd.log)")
    }
}
