// may_open_drawer (plugin ABI 1.10, SEMANTICS R15.26/R15.33): a user's open of a drawer is
// asked of the plugins like a tap — load order, the first deny refuses, a failing plugin
// denies, abstentions leave the default — and recorded for `explain`. LoginGate keeps drawers
// shut while nobody is logged in, per side.

import Foundation
import TabCore
import TabPlugins
import Testing

/// A drawer gate that answers `result` (a tabd_result name) and counts how often it was asked
/// (its `asked` method answers {"asked": n}); it checks what tabd passes.
func drawerGatePlugin(name: String, result: String, reason: String = "no") -> String {
    cPlugin(name: name, hooks: """
        #include <stdio.h>
        static int asked;
        static char last[128];
        static tabd_result drawer(void *state, const tabd_drawer_open *open, tabd_reply *reply) {
            (void)state;
            asked++;
            if (open->struct_size < sizeof(tabd_drawer_open) || open->controller == NULL || open->side == NULL || open->gesture == NULL)
                return TABD_ERROR;
            snprintf(last, sizeof last, "%s/%s/%s", open->controller, open->side, open->gesture);
            reply->reason = "\(reason)";
            reply->message = "\(name) says \(reason)";
            return \(result);
        }
        static char json[256];
        static tabd_result call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
            (void)state; (void)c; (void)method; (void)args;
            snprintf(json, sizeof json, "{\\"asked\\":%d,\\"last\\":\\"%s\\"}", asked, last);
            reply->json = json;
            return TABD_OK;
        }
        """, fields: ".may_open_drawer = drawer, .call = call,")
}

extension PluginTests {
    @Suite struct DrawerGate {
        /// How often `plugin` was asked, and what it was asked last ("controller/side/gesture").
        static func asked(_ host: PluginHost, _ plugin: String) throws -> (Int, String) {
            let c = try controller(["home"])
            let text = try host.call(plugin: plugin, method: "asked", argsJSON: "{}", controller: c).get()
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            return (object["asked"] as? Int ?? -1, object["last"] as? String ?? "")
        }

        /// Two gates: one allows, the next denies → denied by the second, naming it, with its
        /// reason and sentence; a third after it is not asked. `explain` has the record with the
        /// side and gesture, kept with the taps.
        @Test("R15.33 may-open-drawer is R12's veto: the first plugin to deny, in load order, refuses") func firstDenyInLoadOrderRefuses() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(drawerGatePlugin(name: "yes", result: "TABD_ALLOW"), named: "yes.so", in: dir)
            try compilePlugin(drawerGatePlugin(name: "no", result: "TABD_DENY", reason: "closed"), named: "no.so", in: dir)
            try compilePlugin(drawerGatePlugin(name: "later", result: "TABD_DENY", reason: "never"), named: "later.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "yes.so"), PluginSpec(path: "no.so"), PluginSpec(path: "later.so")])
            #expect(host.status("no")?.hooks == ["call", "may_open_drawer"])
            let decision = host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "root")
            #expect(decision == .deny(by: "no", reason: "closed", message: "no says closed"))
            #expect(try Self.asked(host, "yes") == (1, "root/left/pan_center"))
            #expect(try Self.asked(host, "later").0 == 0, "the first deny ends the question")

            let record = try #require(host.explain(ExplainQuery(kind: .mayOpenDrawer)).last)
            #expect(record.controller == "root")
            #expect(record.answers.map(\.plugin) == ["yes", "no"])
            #expect(record.answers.map(\.kind) == ["allow", "deny"])
            #expect(record.final == .deny(plugin: "no", reason: "closed", message: "no says closed"))
            #expect(record.json.contains(#""kind":"may_open_drawer","side":"left","gesture":"pan_center","answers":"#), "\(record.json)")
            #expect(host.explain(ExplainQuery(kind: .shouldSelect)).isEmpty, "its own kind")
            #expect(host.stats.first { $0.name == "no" }?.denials == 1)
        }

        /// Every plugin abstains (or none has the hook): the default, allow, recorded as such.
        @Test("R15.33 plugins that abstain leave a drawer free to open") func abstentionsLeaveTheDefault() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(drawerGatePlugin(name: "shrug", result: "TABD_ABSTAIN"), named: "shrug.so", in: dir)
            try compilePlugin(gatePlugin(name: "taps-only", result: "TABD_DENY"), named: "taps.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "taps.so"), PluginSpec(path: "shrug.so")])
            #expect(host.mayOpenDrawer(side: .right, gesture: .button, controller: "d") == .allow)
            let record = try #require(host.explain(limit: 1).first)
            #expect(record.kind == .mayOpenDrawer)
            #expect(record.answers.map(\.plugin) == ["shrug"], "a plugin without the hook is not asked")
            #expect(record.final == .allow(byDefault: true))
        }

        /// A gate that fails (TABD_ERROR, a value outside the enum) denies, naming the plugin
        /// and why; the failure is counted and logged.
        @Test("R15.33 a failing may-open-drawer plugin denies") func failingGateDenies() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(drawerGatePlugin(name: "broken", result: "(tabd_result)42"), named: "broken.so", in: dir)
            try compilePlugin(drawerGatePlugin(name: "erring", result: "TABD_ERROR", reason: "x"), named: "erring.so", in: dir)
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "broken.so")])
            guard case .deny(let by, let reason, let message) = host.mayOpenDrawer(side: .left, gesture: .custom, controller: "root") else {
                Issue.record("a failing gate allowed the open"); return
            }
            #expect(by == "broken")
            #expect(reason == "plugin failed: it returned 42, not TABD_ALLOW, TABD_DENY or TABD_ABSTAIN")
            #expect(message == "'broken' failed deciding whether the left drawer of 'root' can be opened, so it is not: it returned 42, not TABD_ALLOW, TABD_DENY or TABD_ABSTAIN")
            #expect(host.stats.first?.failures == 1)
            #expect(log.contains("plugin failed deciding a drawer's open; counted as a refusal"))

            let (second, _) = makeHost([dir])
            try second.load([PluginSpec(path: "erring.so")])
            guard case .deny(_, let why, _) = second.mayOpenDrawer(side: .left, gesture: .custom, controller: "root") else {
                Issue.record("TABD_ERROR allowed the open"); return
            }
            #expect(why == "plugin failed: erring says x")
        }

        /// A plugin built against 1.9 (a descriptor that ends before may_open_drawer) loads and is
        /// never asked, whatever lies past its struct_size.
        @Test("R15.33 a plugin built against an older ABI minor is not asked may-open-drawer") func olderPluginIsNotAsked() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(drawerGatePlugin(name: "old", result: "TABD_DENY")
                .replacingOccurrences(of: ".struct_size = sizeof(tabd_policy_descriptor)",
                                      with: ".struct_size = offsetof(tabd_policy_descriptor, may_open_drawer)"), named: "old.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "old.so")])
            #expect(host.status("old")?.hooks == ["call"])
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "root") == .allow)
            #expect(try Self.asked(host, "old").0 == 0)
        }

        /// hello.c keeps a drawer whose name starts with its prefix shut until `unlock`.
        @Test("R15.33 hello.c keeps a drawer named secret shut") func helloLocksSecretDrawers() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so", configJSON: #"{"code":"xyzzy"}"#)])
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "secret-menu")
                    == .deny(by: "hello", reason: "locked", message: "the left drawer of 'secret-menu' is locked (pan_center); call hello's unlock method first"))
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "menu") == .allow)
            _ = try host.call(plugin: "hello", method: "unlock", argsJSON: #"{"code":"xyzzy"}"#, controller: try controller(["home"])).get()
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "secret-menu") == .allow)
        }

        // MARK: LoginGate

        /// Logged out, a user's open of either side is denied (the default: a login on "main"),
        /// naming the gate; after a login on "main" both open; a login elsewhere does not count.
        @Test("R15.33 the login gate refuses a user opening a drawer while logged out") func loginGateRefusesDrawersWhileLoggedOut() throws {
            let (host, _, _) = try loginGateHost()
            #expect(host.status("login-gate")?.hooks.last == "may_open_drawer")
            let other = try controller(["login", "home"], name: "kiosk")
            _ = try login(host, other).get()
            for side in DrawerSide.allCases {
                #expect(host.mayOpenDrawer(side: side, gesture: .panCenter, controller: "root")
                        == .deny(by: "login-gate", reason: "not logged in",
                                 message: "login required on 'main' before the \(side.rawValue) drawer of 'root' can be opened"))
            }
            let main = try controller(["login", "home"])
            _ = try login(host, main).get()
            for side in DrawerSide.allCases {
                #expect(host.mayOpenDrawer(side: side, gesture: .button, controller: "root") == .allow)
            }
            _ = try host.call(plugin: "login-gate", method: "logout", argsJSON: "{}", controller: main).get()
            #expect(host.mayOpenDrawer(side: .left, gesture: .button, controller: "root") != .allow)
        }

        /// `drawers` per side: a side names the controller whose login opens it, `false` or a
        /// side left out opens freely.
        @Test("R15.33 the login gate's drawers setting is per side") func loginGateIsConfiguredPerSide() throws {
            let (host, _, _) = try loginGateHost(settings: #""drawers":{"left":"kiosk","right":false}"#)
            #expect(host.mayOpenDrawer(side: .right, gesture: .panCenter, controller: "root") == .allow)
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "root")
                    == .deny(by: "login-gate", reason: "not logged in", message: "login required on 'kiosk' before the left drawer of 'root' can be opened"))
            _ = try login(host, try controller(["login"], name: "kiosk")).get()
            #expect(host.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "root") == .allow)

            let (leftOnly, _, _) = try loginGateHost(settings: #""drawers":{"left":"main"}"#)
            #expect(leftOnly.mayOpenDrawer(side: .right, gesture: .panCenter, controller: "root") == .allow)
            #expect(leftOnly.mayOpenDrawer(side: .left, gesture: .panCenter, controller: "root") != .allow)
        }

        /// A `drawers` setting tabd cannot use refuses the gate, saying what is wrong.
        @Test("R15.33 a bad drawers setting of the login gate is refused in one sentence") func loginGateRefusesBadDrawersSettings() throws {
            for (settings, words) in [
                (#""drawers":["left"]"#, "drawers must be an object of sides"),
                (#""drawers":{"top":"main"}"#, "drawers: unknown side 'top' (known: left, right)"),
                (#""drawers":{"left":true}"#, "drawers.left must be the name of the controller a user logs in on, or false"),
                (#""drawers":{"left":""}"#, "drawers.left must be the name of the controller a user logs in on, or false"),
            ] {
                do {
                    _ = try loginGateHost(settings: settings)
                    Issue.record("\(settings) was accepted")
                } catch {
                    #expect("\(error)".contains(words), "\(settings): \(error)")
                }
            }
        }
    }
}
