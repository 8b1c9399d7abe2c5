// R15's containers against a real tabd, from an attacker's side: requests at and over every
// bound (ids, children, JSON depth, the chain), attachments that would make a cycle, deletes
// that must be refused — each a clear error that changes nothing, tells no plugin, and leaves
// tabd serving the others; a request that repeats one id to the line limit costs one pass.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite(.serialized) struct HostileContainersTests {
    /// Every controller's `state`, as lines (what must not change).
    static func states(_ c: LineClient, _ names: [String]) throws -> [String] {
        try names.map { JSONValue.object(try c.ok(#"{"cmd":"state","controller":"\#($0)"}"#)).jsonString }
    }

    @Test func boundsAndCyclesAreClearErrorsThatChangeNothing() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"leaf","kind":"navigation","stack":[{"id":"s"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"mid","kind":"custom","children":[{"id":"l","controller":"leaf"}],"shown":["l"]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"top","kind":"drawer","window":true,"center":{"id":"m","controller":"mid"}}"#)
        let names = ["leaf", "mid", "top", "main"]
        let before = try Self.states(c, names)
        let atLimit = String(repeating: "i", count: 256), overLimit = String(repeating: "i", count: 257)
        let many = (0...1000).map { #"{"id":"c\#($0)"}"# }.joined(separator: ",")
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let cases: [(String, String)] = [
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"\#(overLimit)"}}"#, "out_of_range"),
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"x","restoration_id":"\#(overLimit)"}}"#, "out_of_range"),
            (#"{"cmd":"set_children","controller":"mid","children":[\#(many)]}"#, "out_of_range"),
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"x","title":\#(deep)}}"#, "parse_error"),
            // Itself, its parent, its root: a controller cannot contain itself.
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"x","controller":"leaf"}}"#, "conflict"),
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"x","controller":"mid"}}"#, "conflict"),
            (#"{"cmd":"push","controller":"leaf","screen":{"id":"x","controller":"top"}}"#, "conflict"),
            (#"{"cmd":"set_center","controller":"top","child":{"id":"n","controller":"top"}}"#, "conflict"),
            // A controller named twice in one list; one already attached elsewhere.
            (#"{"cmd":"set_children","controller":"mid","children":[{"id":"a","controller":"x1"},{"id":"b","controller":"x1"}]}"#, "not_found"),
            (#"{"cmd":"set_drawer","controller":"top","side":"left","child":{"id":"d","controller":"leaf"}}"#, "conflict"),
            // Another kind's commands, another kind's names.
            (#"{"cmd":"set_shown","controller":"leaf","shown":[]}"#, "not_available"),
            (#"{"cmd":"select","controller":"top","tab":"m"}"#, "not_available"),
            (#"{"cmd":"controller.create","controller":"leaf","kind":"custom"}"#, "conflict"),
            // Deletes R15.4 refuses: attached, holding a controller.
            (#"{"cmd":"controller.delete","controller":"leaf"}"#, "conflict"),
            (#"{"cmd":"controller.delete","controller":"top"}"#, "conflict"),
        ]
        try c.expectRefusals(cases)
        #expect(try Self.states(c, names) == before)
        // At the limit is fine.
        try c.ok(#"{"cmd":"push","controller":"leaf","screen":{"id":"\#(atLimit)"}}"#)
    }

    /// Named twice in one list, with the controller existing: conflict, nothing attached.
    @Test func aControllerGivenTwiceInOneListIsAConflict() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"x","kind":"custom"}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"box","kind":"custom"}"#)
        let e = try c.error(#"{"cmd":"set_children","controller":"box","children":[{"id":"a","controller":"x"},{"id":"b","controller":"x"}]}"#)
        #expect(e.string("code") == "conflict")
        #expect(try c.ok(#"{"cmd":"state","controller":"x"}"#)["parent"] == .null)
    }

    /// A `shown` list of one id repeated to the line limit (~1 MiB, 140 000 times) under a
    /// container of a thousand children: each repeat was a scan of the children, twice (about
    /// 10^8 string comparisons a request, seconds of the loop). Now one pass: answered, and
    /// another client is served at once.
    @Test func aShownListRepeatedToTheLineLimitCostsOnePass() throws {
        let t = try TabdProcess()
        let c = try t.client(), other = try t.client()
        let kids = (0..<1000).map { #"{"id":"c\#($0)"}"# }.joined(separator: ",")
        try c.ok(#"{"cmd":"controller.create","controller":"box","kind":"custom","window":true,"children":[\#(kids)]}"#)
        let repeats = Array(repeating: #""c999""#, count: 140_000).joined(separator: ",")
        let reply = try c.ok(#"{"cmd":"set_shown","controller":"box","shown":[\#(repeats)]}"#)
        #expect(reply.strings("shown") == ["c999"])
        let e = try c.error(#"{"cmd":"set_shown","controller":"box","shown":[\#(repeats),"ghost"]}"#)
        #expect(e.string("code") == "not_found")
        try other.ok(#"{"cmd":"ping"}"#)
    }

    /// A refused delete (the default controller, R15.4's attached tab controller) told the
    /// plugins the controller was going first: hello.c forgot it (its count fell though the
    /// controller stayed), the login gate would have ended its session. Now checked first.
    @Test func aRefusedDeleteTellsNoPlugin() throws {
        let dir = try PluginEndToEndTests.helloOutOfTree("hdel")
        let tabd = try TabdProcess(config: Plugins.config("    - path: hello.so\n", extraDirectory: dir))
        let c = try tabd.client()
        func controllers() throws -> Int? {
            try c.ok(#"{"cmd":"plugin.call","plugin":"hello","method":"status"}"#).object("value")?.int("controllers")
        }
        try c.ok(#"{"cmd":"controller.create","controller":"kiosk","window":false}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"box","kind":"custom","window":true,"children":[{"id":"k","controller":"kiosk"}],"shown":["k"]}"#)
        #expect(try controllers() == 2, "main and kiosk")
        #expect(try c.error(#"{"cmd":"controller.delete","controller":"kiosk"}"#).string("code") == "conflict")
        #expect(try c.error(#"{"cmd":"controller.delete","controller":"main"}"#).string("code") == "conflict")
        #expect(try controllers() == 2, "a refused delete is no delete for the plugins")
        // Detached, it goes, and the plugins hear of it.
        try c.ok(#"{"cmd":"set_children","controller":"box","children":[]}"#)
        try c.ok(#"{"cmd":"controller.delete","controller":"kiosk"}"#)
        #expect(try controllers() == 1)
    }

    /// controller.delete is admin-only for every kind (creating is for everyone, as for tab
    /// controllers): another user's delete of a container is forbidden and changes nothing.
    @Test func otherUsersCannotDeleteContainers() throws {
        let tabd = try AccessTests.openTabd()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"s"}]}"#)
        let replies = try AccessTests.asOtherUser(tabd.socket, [
            #"{"cmd":"controller.create","controller":"box","kind":"custom","id":1}"#,
            #"{"cmd":"controller.delete","controller":"nav","id":2}"#,
            #"{"cmd":"controller.delete","controller":"box","id":3}"#,
        ])
        #expect(replies.count == 3)
        guard replies.count == 3 else { return }
        #expect(replies[0].bool("ok") == true, "\(JSONValue.object(replies[0]).jsonString)")
        for r in replies[1...] { #expect(r.object("error")?.string("code") == "forbidden", "\(JSONValue.object(r).jsonString)") }
        for name in ["nav", "box"] { try c.ok(#"{"cmd":"state","controller":"\#(name)"}"#) }
    }
}
