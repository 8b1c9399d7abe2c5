// What a client is told about a plugin.call, whatever language the plugin is written in
// (issue 45, item 7): an unknown method is one sentence in tabd's words — from a Swift plugin
// (the SDK's PolicyError.unknownMethod), a C plugin (TABD_UNKNOWN_METHOD), a plugin with no
// `call` hook at all, and an isolated plugin alike — naming the plugin as the configuration
// names it. And a refused call is counted apart from refused taps in `stats` and `metrics`.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct PluginCallAnswersTests {
    /// The error a reply must be.
    static func error(_ reply: JSONObject, _ context: String) -> JSONObject? {
        #expect(reply.bool("ok") == false, "\(context): expected an error: \(JSONValue.object(reply).jsonString)")
        return reply.object("error")
    }

    @Test(arguments: [false, true]) func anUnknownMethodIsOneSentenceFromEveryPlugin(isolated: Bool) throws {
        let dir = try PluginEndToEndTests.helloOutOfTree("um")
        chmod(dir, 0o755)
        let isolation = isolated ? "      isolation: process\n      deadline_ms: 2000\n" : ""
        let load = Plugins.loginGate(credentials: try Plugins.credentials(in: dir))
            + "    - path: hello.so\n      name: greeter\n" + isolation
            + "    - path: libOrientationRules.so\n"
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir), dir: dir)
        let c = try tabd.client()
        // login-gate: Swift, throws PolicyError.unknownMethod; greeter: hello.c renamed by the
        // configuration, returns TABD_UNKNOWN_METHOD; orientation-rules: no call hook.
        for plugin in ["login-gate", "greeter", "orientation-rules"] {
            let reply = try c.request(#"{"cmd":"plugin.call","plugin":"\#(plugin)","method":"nope"}"#)
            let e = Self.error(reply, plugin)
            #expect(e?.string("code") == "not_found", "\(plugin): \(JSONValue.object(reply).jsonString)")
            #expect(e?.string("message") == "plugin '\(plugin)' has no method 'nope'", "\(plugin): \(JSONValue.object(reply).jsonString)")
            #expect(e?.string("plugin") == plugin, "\(plugin): \(JSONValue.object(reply).jsonString)")
        }
        // A method that exists still answers.
        #expect(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"status"}"#).bool("ok") == true)
    }

    /// A plugin that refuses a call (a wrong password: `denied`) has it counted in
    /// `call_refusals`, not in `denials`, which count refused taps; tabd's own `denials`
    /// (commands refused by plugins' decisions on taps) likewise.
    @Test func callRefusalsAreCountedApartFromTapDenials() throws {
        let dir = temporaryDirectory("cr")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        let c = try tabd.client()
        #expect(try c.request(PluginEndToEndTests.tabs).bool("ok") == true)
        #expect(Self.error(try c.request(#"{"cmd":"tap","tab":"settings"}"#), "tap")?.string("code") == "denied")
        for _ in 0..<2 {
            let wrong = try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"nope"}}"#)
            #expect(Self.error(wrong, "login")?.string("code") == "denied")
        }
        let stats = try #require(try c.request(#"{"cmd":"stats"}"#).object("result"))
        #expect(stats.int("denials") == 1, "one tap refused: \(JSONValue.object(stats).jsonString)")
        guard case .array(let plugins)? = stats["plugins"] else {
            Issue.record("stats has no plugins: \(JSONValue.object(stats).jsonString)")
            return
        }
        let gate = plugins.compactMap { p -> JSONObject? in
            guard case .object(let o) = p, o.string("name") == "login-gate" else { return nil }
            return o
        }.first
        #expect(gate?.int("denials") == 1, "\(plugins)")
        #expect(gate?.int("call_refusals") == 2, "\(plugins)")
        let text = try #require(try c.request(#"{"cmd":"metrics"}"#).object("result")?.string("text"))
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"tabd_plugin_denials_total{plugin="login-gate"} 1"#), "\(text)")
        #expect(lines.contains(#"tabd_plugin_call_refusals_total{plugin="login-gate"} 2"#), "\(text)")
        #expect(lines.contains("# TYPE tabd_plugin_call_refusals counter"), "\(text)")
    }
}
