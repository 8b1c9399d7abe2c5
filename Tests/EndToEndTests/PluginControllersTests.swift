// Plugin ABI 1.7 against a real tabd: plugins learn of controllers coming and going
// (controller_at at init, controller_created, controller_deleted), in process and isolated.
// The attack it closes (issue 43): a login on controller `kiosk` outlived the controller, so
// another client that created `kiosk` again was logged in as the old user.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite(.serialized) struct PluginControllersTests {
    /// The next line the subscriber gets that is an event named `event` (a `plugin` event's
    /// data `event` when `plugin` is true); the lines skipped before it, in order.
    private static func next(_ watcher: LineClient, _ event: String, plugin: Bool = false) throws -> (JSONObject?, [String]) {
        var seen: [String] = []
        for _ in 0..<50 {
            guard let line = try watcher.readLine() else { break }
            let o = try object(line)
            let name = plugin ? o.object("data")?.object("data")?.string("event") : o.string("event")
            if (!plugin || o.string("event") == "plugin"), name == event { return (plugin ? o.object("data")?.object("data") : o, seen) }
            seen.append(o.string("event") ?? line)
        }
        return (nil, seen)
    }

    private static let kioskTabs = #"{"cmd":"set_tabs","controller":"kiosk","tabs":[{"id":"login"},{"id":"home"},{"id":"admin-panel"}]}"#

    /// Log in on `kiosk`; an admin deletes `kiosk` (the gate ends the session, with its logout
    /// event before the controller_deleted one); uid 65534 creates `kiosk` again with its own
    /// tabs: it starts logged out, and its tap on `admin-panel` is denied.
    @Test(arguments: [false, true]) func aDeletedControllersLoginDoesNotReachItsSuccessor(isolated: Bool) throws {
        let dir = temporaryDirectory(isolated ? "kioski" : "kiosk")
        chmod(dir, 0o755)
        var gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir))
        if isolated { gate = gate.replacingOccurrences(of: "}\n", with: "}\n      isolation: process\n      deadline_ms: 60000\n") }
        let tabd = try TabdProcess(config: "socket_mode: \"0666\"\n" + Plugins.config(gate), dir: dir)
        let root = try tabd.client(), watcher = try tabd.client()
        _ = try root.ok(#"{"cmd":"controller.create","controller":"kiosk"}"#)
        _ = try watcher.ok(#"{"cmd":"subscribe","controllers":["kiosk"],"events":["plugin","controller_deleted"]}"#)
        _ = try root.ok(Self.kioskTabs)
        _ = try root.ok(#"{"cmd":"plugin.call","controller":"kiosk","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        #expect(try root.ok(#"{"cmd":"tap","controller":"kiosk","tab":"admin-panel"}"#).string("selected") == "admin-panel")
        #expect(try Self.next(watcher, "login", plugin: true).0?.string("user") == "demo")

        _ = try root.ok(#"{"cmd":"controller.delete","controller":"kiosk"}"#)
        let logout = try Self.next(watcher, "logout", plugin: true).0
        #expect(logout?.string("user") == "demo" && logout?.string("reason") == "controller deleted", "\(String(describing: logout))")
        let (deleted, before) = try Self.next(watcher, "controller_deleted")
        #expect(deleted?.string("controller") == "kiosk" && before.isEmpty, "the logout comes right before controller_deleted: \(before)")
        #expect(tabd.log.contains("'demo' logged out of controller 'kiosk' (controller deleted)"), "\(tabd.log.suffix(1500))")
        let journal = try shell("cat \(tabd.stateDir)/journal-*.log").output
        #expect(journal.contains(#""op":"plugin.store","plugin":"login-gate","key":"session/kiosk","value":null"#), "the session key is deleted")

        let replies = try AccessTests.asOtherUser(tabd.socket, [
            #"{"cmd":"controller.create","controller":"kiosk","id":1}"#,
            Self.kioskTabs.replacingOccurrences(of: #"{"cmd""#, with: #"{"id":2,"cmd""#),
            #"{"cmd":"plugin.call","controller":"kiosk","plugin":"login-gate","method":"status","id":3}"#,
            #"{"cmd":"tap","controller":"kiosk","tab":"admin-panel","id":4}"#,
        ])
        #expect(replies.count == 4)
        guard replies.count == 4 else { return }
        #expect(replies[0].bool("ok") == true && replies[1].bool("ok") == true, "\(replies.map { JSONValue.object($0).jsonString })")
        #expect(replies[2].object("result")?.object("value")?.bool("logged_in") == false, "\(JSONValue.object(replies[2]).jsonString)")
        let tap = replies[3].object("error")
        #expect(tap?.string("code") == "denied" && tap?.string("plugin") == "login-gate", "\(JSONValue.object(replies[3]).jsonString)")
        // And after a restart (the gate's init reads the store): still logged out.
        try tabd.restart()
        let status = try tabd.client().ok(#"{"cmd":"plugin.call","controller":"kiosk","plugin":"login-gate","method":"status"}"#)
        #expect(status.object("value")?.bool("logged_in") == false)
    }

    /// A session kept for a controller that no longer exists (deleted while a gate without
    /// controller_deleted ran: here, the key written back by hand into the journal's state)
    /// is dropped by the gate's init, which lists the controllers (controller_at).
    @Test func theGatesInitDropsSessionsOfControllersThatAreGone() throws {
        let dir = temporaryDirectory("kinit")
        let gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir))
        let tabd = try TabdProcess(config: Plugins.config(gate), dir: dir)
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"controller.create","controller":"gone"}"#)
        _ = try c.ok(#"{"cmd":"set_tabs","controller":"gone","tabs":[{"id":"login"},{"id":"home"}]}"#)
        _ = try c.ok(#"{"cmd":"plugin.call","controller":"gone","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        // Without the gate, the controller is deleted: nobody ends the session.
        tabd.stop()
        try "".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        try tabd.start()
        _ = try tabd.client().ok(#"{"cmd":"controller.delete","controller":"gone"}"#)
        tabd.stop()
        try Plugins.config(gate).write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        try tabd.start()
        #expect(tabd.log.contains("the session on controller 'gone' ended: the controller no longer exists"), "\(tabd.log.suffix(1500))")
        _ = try tabd.client().ok(#"{"cmd":"controller.create","controller":"gone"}"#)
        let status = try tabd.client().ok(#"{"cmd":"plugin.call","controller":"gone","plugin":"login-gate","method":"status"}"#)
        #expect(status.object("value")?.bool("logged_in") == false)
    }

    /// hello.c counts the controllers (controller_at in init, then created and deleted), and
    /// forgets a deleted controller's reminder, telling its subscribers before it goes.
    @Test(arguments: [false, true]) func helloFollowsControllers(isolated: Bool) throws {
        let dir = try PluginEndToEndTests.helloOutOfTree(isolated ? "hctli" : "hctl")
        let load = "    - path: hello.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir))
        let c = try tabd.client(), watcher = try tabd.client()
        func controllers() throws -> Int? {
            try c.ok(#"{"cmd":"plugin.call","plugin":"hello","method":"status"}"#).object("value")?.int("controllers")
        }
        #expect(try controllers() == 1, "main, listed at init")
        _ = try c.ok(#"{"cmd":"controller.create","controller":"x"}"#)
        _ = try c.ok(#"{"cmd":"controller.create","controller":"y"}"#)
        #expect(try controllers() == 3)
        _ = try watcher.ok(#"{"cmd":"subscribe","controllers":["x"],"events":["plugin","controller_deleted"]}"#)
        _ = try c.ok(#"{"cmd":"plugin.call","controller":"x","plugin":"hello","method":"remind","args":{"seconds":3600,"text":"later"}}"#)
        _ = try c.ok(#"{"cmd":"controller.delete","controller":"x"}"#)
        let (dropped, _) = try Self.next(watcher, "reminder-dropped", plugin: true)
        #expect(dropped != nil)
        #expect(try Self.next(watcher, "controller_deleted").0 != nil)
        #expect(try controllers() == 2)
        // A restart: init lists the two that are left.
        try tabd.restart()
        let again = try tabd.client()
        #expect(try again.ok(#"{"cmd":"plugin.call","plugin":"hello","method":"status"}"#).object("value")?.int("controllers") == 2)
        #expect(tabd.log.contains("2 controller(s)"), "\(tabd.log.suffix(1000))")
    }
}
