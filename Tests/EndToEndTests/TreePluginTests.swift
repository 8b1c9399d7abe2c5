// Plugins and groups (ABI 1.4, SEMANTICS R13.7): should-select and did-select see the tapped
// tab's path, `selected_path` walks down to the leaf, and hiding and reordering reach plugins
// as notifications — through a C plugin built as an author builds one (Fixtures/tree.c).

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct TreePluginTests {
    static let tabs = #"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"library","children":[{"id":"songs"},{"id":"albums","allows_hiding":true}],"allows_reordering":true},{"id":"vault","children":[{"id":"keys"}]},{"id":"news","allows_hiding":true}]}"#

    /// The `data` of the next `plugin` event on `sub`.
    static func pluginData(_ sub: LineClient) throws -> JSONObject {
        while let line = try sub.readLine() {
            let e = try object(line)
            guard e.string("event") == "plugin", let outer = e.object("data"), let data = outer.object("data") else { continue }
            return data
        }
        throw TestFailure("the subscription closed before a plugin event")
    }

    /// In tabd's process and in a helper process (`isolation: process`): the same answers.
    @Test(arguments: ["none", "process"])
    func pluginsSeePathsAndNotifications(isolation: String) throws {
        let dir = temporaryDirectory("tree")
        try Plugins.build(Plugins.fixture("tree.c"), "tree.so", in: dir)
        // Isolated, a deadline of a minute: the default 50 ms is not what is tested.
        let deadline = isolation == "process" ? "      deadline_ms: 60000\n" : ""
        let tabd = try TabdProcess(config: Plugins.config("    - path: tree.so\n      isolation: \(isolation)\n" + deadline, extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client()
        let sub = try tabd.client()
        _ = try sub.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        _ = try c.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"pad"}"#)
        _ = try c.ok(Self.tabs.replacingOccurrences(of: #""cmd":"set_tabs""#, with: #""cmd":"set_tabs","controller":"pad""#))

        // A tap on a nested tab: should_select gets the tapped tab and its path (index: the root's).
        _ = try c.ok(#"{"cmd":"tap","controller":"pad","tab":"albums"}"#)
        let asked = try Self.pluginData(sub)
        #expect(asked.string("event") == "should_select" && asked.string("tab") == "albums")
        #expect(asked.strings("path") == ["library", "albums"])
        #expect(asked.int("index") == 1)
        let selected = try Self.pluginData(sub)
        #expect(selected.string("event") == "did_select")
        #expect(selected.strings("path") == ["library", "albums"])
        #expect(selected.strings("selected_path") == ["library", "albums"])

        // A tap on a group: the path is the group's; selected_path descends to the leaf.
        _ = try c.ok(#"{"cmd":"tap","controller":"pad","tab":"home"}"#)
        _ = try Self.pluginData(sub); _ = try Self.pluginData(sub)
        _ = try c.ok(#"{"cmd":"tap","controller":"pad","tab":"library"}"#)
        #expect(try Self.pluginData(sub).strings("path") == ["library"])
        #expect(try Self.pluginData(sub).strings("selected_path") == ["library", "albums"])

        // A gate on a whole group: every tab in "vault" is refused, naming the plugin.
        let denied = try c.error(#"{"cmd":"tap","controller":"pad","tab":"keys"}"#)
        #expect(denied.string("code") == "denied" && denied.string("plugin") == "tree")
        #expect(denied.string("message") == "tabs in the vault group are locked")
        #expect(try Self.pluginData(sub).strings("path") == ["vault", "keys"])

        // Hiding the selected leaf: the notification comes after the selection moved.
        _ = try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"albums","hidden":true}"#)
        let hidden = try Self.pluginData(sub)
        #expect(hidden.string("event") == "visibility")
        #expect(JSONValue.object(hidden).jsonString.contains(#""tabs":[{"id":"albums","hidden":true}]"#))
        let state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(state.strings("selected_path") == ["library", "songs"])

        // Reordering a group, then the bar.
        _ = try c.ok(#"{"cmd":"reorder","controller":"pad","group":"library","order":["albums","songs"]}"#)
        let order = try Self.pluginData(sub)
        #expect(order.string("event") == "order" && order.string("group") == "library")
        #expect(order.strings("order") == ["albums", "songs"])
        _ = try c.ok(#"{"cmd":"reorder","controller":"pad","order":["news","home"]}"#)
        let bar = try Self.pluginData(sub)
        #expect(bar.isNull("group") && bar.strings("order") == ["news", "home"])

        // `plugins` lists the new hooks and the ABI.
        let plugins = JSONValue.object(try c.ok(#"{"cmd":"plugins"}"#)).jsonString
        #expect(plugins.contains(#""hooks":["init","should_select","did_select","visibility_changed","display_order_changed"]"#), "\(plugins)")
        #expect(plugins.contains(#""abi":"\#(Build.headerABI)""#), "\(plugins)")
    }
}
