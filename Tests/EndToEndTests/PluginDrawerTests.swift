// Plugin ABI 1.10 against a real tabd with the real login gate: a user's open of a drawer
// (a drawer command with a gesture) asks may_open_drawer (SEMANTICS R15.26, R15.33), in
// process and isolated; an app's open (no gesture) is never asked.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite(.serialized) struct PluginDrawerTests {
    static let drawer = #"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"c"},"left":{"id":"menu"},"open_gestures":["pan_center"]}"#
    static let userOpen = #"{"cmd":"open_drawer","controller":"root","side":"left","gesture":"pan_center"}"#

    /// Logged out, a user's open is `denied` naming the gate (the drawer stays shut, and
    /// `explain` has the decision); an app's open is not asked; after a login on "main" the
    /// user's open goes ahead.
    @Test("R15.33 the login gate refuses a user opening a drawer while logged out, in process and isolated", arguments: [false, true]) func loginGateGatesAUsersOpen(isolated: Bool) throws {
        let dir = temporaryDirectory(isolated ? "drwi" : "drw")
        var gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir))
        if isolated { gate = gate.replacingOccurrences(of: "}\n", with: "}\n      isolation: process\n      deadline_ms: 60000\n") }
        let tabd = try TabdProcess(config: Plugins.config(gate), dir: dir)
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"}]}"#)
        _ = try c.ok(Self.drawer)

        let denied = try c.error(Self.userOpen)
        #expect(denied.string("code") == "denied")
        #expect(denied.string("plugin") == "login-gate")
        #expect(denied.string("reason") == "not logged in")
        #expect(denied.string("message") == "login required on 'main' before the left drawer of 'root' can be opened")
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).string("open_side") == "none", "nothing changed")
        let decisions = try Self.decisions(c)
        guard let r = decisions.last else { Issue.record("no may_open_drawer record"); return }
        #expect(r.string("controller") == "root" && r.string("side") == "left" && r.string("gesture") == "pan_center" && r.string("result") == "deny",
                "\(JSONValue.object(r).jsonString)")

        // An app's open (no gesture) is never asked: it opens, and no record is added.
        let asked = decisions.count
        #expect(try c.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#).bool("changed") == true)
        _ = try c.ok(#"{"cmd":"close_drawer","controller":"root"}"#)
        #expect(try Self.decisions(c).count == asked)

        _ = try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        #expect(try c.ok(Self.userOpen).bool("changed") == true)
        #expect(try c.ok(#"{"cmd":"state","controller":"root"}"#).string("open_side") == "left")
        #expect(try Self.decisions(c).last?.string("result") == "allow")
        guard case .array(let plugins)? = try c.ok(#"{"cmd":"plugins"}"#)["plugins"], case .object(let p)? = plugins.first else {
            Issue.record("no plugins"); return
        }
        #expect(p.strings("hooks")?.last == "may_open_drawer")
    }

    /// The may_open_drawer records `explain` keeps, oldest first.
    static func decisions(_ c: LineClient) throws -> [JSONObject] {
        guard case .array(let a)? = try c.ok(#"{"cmd":"explain","kind":"may_open_drawer"}"#)["decisions"] else { return [] }
        return a.compactMap { if case .object(let o) = $0 { return o } else { return nil } }
    }
}
