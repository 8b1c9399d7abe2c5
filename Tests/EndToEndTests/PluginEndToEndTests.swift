// Policy plugins through the socket: the real LoginGate and OrientationRules, C plugins built
// as an author would build them, and every way a plugin can be refused.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

/// Builds plugins for the tests and writes configurations that load them.
enum Plugins {
    static let include = Build.packageRoot.appendingPathComponent("Sources/CTabPolicy/include").path
    static func fixture(_ name: String) -> String {
        Build.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/\(name)").path
    }

    /// `cc -shared -fPIC` of Fixtures/gate.c with `defines` into `dir/file`.
    @discardableResult
    static func gate(_ file: String, in dir: String, _ defines: [String] = []) throws -> String {
        try build(fixture("gate.c"), file, in: dir, defines)
    }

    /// `cc -shared -fPIC` of `source` with `defines` into `dir/file`.
    @discardableResult
    static func build(_ source: String, _ file: String, in dir: String, _ defines: [String] = []) throws -> String {
        let out = dir + "/" + file
        let flags = defines.map { "'-D\($0)'" }.joined(separator: " ")
        let r = try shell("cc -shared -fPIC -Wall -Werror -I \(include) \(flags) \(source) -o \(out)")
        guard r.status == 0 else { throw TestFailure("cc failed: \(r.output)") }
        return out
    }

    /// The login gate's credentials file: user demo, password demo (crypt(3) SHA-512).
    static func credentials(in dir: String) throws -> String {
        let path = dir + "/credentials"
        let r = try shell("printf 'demo:%s\\n' \"$(openssl passwd -6 demo)\" > \(path) && chmod 600 \(path)")
        guard r.status == 0 else { throw TestFailure("openssl passwd failed: \(r.output)") }
        return path
    }

    /// A config loading `load` (YAML list items, already indented by four spaces) from the
    /// build directory and `extraDirectory`.
    static func config(_ load: String, extraDirectory: String? = nil) -> String {
        let dirs = [Build.binDirectory.path] + (extraDirectory.map { [$0] } ?? [])
        return "plugins:\n  directories: [\(dirs.joined(separator: ", "))]\n  load:\n" + load
    }

    static func loginGate(credentials: String, extra: String = "") -> String {
        """
            - path: libLoginGate.so
              required: true
              settings: {login_tab: login, credentials_file: \(credentials)\(extra)}

        """
    }
}

/// The error object of a reply that must be an error.
private func errorOf(_ reply: JSONObject, _ context: String = "") -> JSONObject? {
    #expect(reply.bool("ok") == false, "expected an error \(context): \(JSONValue.object(reply).jsonString)")
    return reply.object("error")
}

private func result(_ reply: JSONObject, _ context: String = "") -> JSONObject? {
    #expect(reply.bool("ok") == true, "expected success \(context): \(JSONValue.object(reply).jsonString)")
    return reply.object("result")
}

@Suite struct PluginEndToEndTests {
    static let tabs = #"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"},{"id":"settings"}]}"#

    @Test func loginGateRefusesAdmitsAndLogsOut() throws {
        let dir = temporaryDirectory("lg")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        let c = try tabd.client()
        let watcher = try tabd.client()
        _ = result(try watcher.request(#"{"cmd":"subscribe","events":["plugin","selection_changed"]}"#))
        _ = result(try c.request(Self.tabs))

        // Refused until someone logs in, with who and why.
        let denied = errorOf(try c.request(#"{"cmd":"tap","tab":"settings","id":1}"#))
        #expect(denied?.string("code") == "denied")
        #expect(denied?.string("plugin") == "login-gate")
        #expect(denied?.string("reason") == "not logged in")
        #expect(denied?.string("message") == "login required before 'settings' can be selected")
        #expect(result(try c.request(#"{"cmd":"state"}"#))?.string("selected") == "login", "a refused tap changes nothing")
        // The login tab itself is always reachable.
        #expect(result(try c.request(#"{"cmd":"tap","tab":"login"}"#))?.string("selected") == "login")

        // A wrong password is refused, a right one admits.
        let wrong = errorOf(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"nope"}}"#))
        #expect(wrong?.string("message")?.contains("wrong user name or password") == true)
        let login = result(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#))
        #expect(login?.string("plugin") == "login-gate")
        #expect(login?.object("value")?.string("user") == "demo")
        #expect(result(try c.request(#"{"cmd":"tap","tab":"settings"}"#))?.string("selected") == "settings")
        let status = result(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"status"}"#))
        #expect(status?.object("value")?.bool("logged_in") == true)

        // Login is per controller.
        _ = result(try c.request(#"{"cmd":"controller.create","controller":"kiosk"}"#))
        _ = result(try c.request(Self.tabs.replacingOccurrences(of: "\"set_tabs\"", with: "\"set_tabs\",\"controller\":\"kiosk\"")))
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"home","controller":"kiosk"}"#))?.string("code") == "denied")

        // Logout returns the selection to the login tab, and the gate closes again.
        _ = result(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"logout"}"#))
        #expect(result(try c.request(#"{"cmd":"state"}"#))?.string("selected") == "login")
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"home"}"#))?.string("code") == "denied")

        // Subscribers saw the plugin's login and logout events, in order, among the selections.
        var pluginEvents: [String] = []
        while pluginEvents.count < 2, let line = try watcher.readLine() {
            let e = try object(line)
            if e.string("event") == "plugin" {
                #expect(e.object("data")?.string("plugin") == "login-gate")
                pluginEvents.append(e.object("data")?.object("data")?.string("event") ?? "?")
            }
        }
        #expect(pluginEvents == ["login", "logout"])
        #expect(tabd.log.contains("failed login for 'demo'"), "the failed login is logged: \(tabd.log)")
    }

    @Test func failedLoginsAreRateLimited() throws {
        let dir = temporaryDirectory("rl")
        // Three wrong passwords back to back: more checks than two in a row (max_hashes_per_second).
        let gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir), extra: ", max_failures: 3, lockout_seconds: 60, max_hashes_per_second: 1000")
        let tabd = try TabdProcess(config: Plugins.config(gate), dir: dir)
        let c = try tabd.client()
        for _ in 0..<3 {
            _ = errorOf(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"x"}}"#))
        }
        // Locked out: even the right password is refused for now.
        let locked = errorOf(try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#))
        #expect(locked?.string("reason") == "rate limited", "\(locked.map { JSONValue.object($0).jsonString } ?? "")")
        #expect(tabd.log.contains("locked out"))
    }

    @Test func orientationRulesDecideRotation() throws {
        let load = """
                - path: libOrientationRules.so
                  settings:
                    rules: [{tab: "video*", orientations: [portrait, landscape_left, landscape_right]}]
                    preferred: landscape_left

            """
        let tabd = try TabdProcess(config: Plugins.config(load))
        let c = try tabd.client()
        // The tabs themselves would turn every way (R9.1: a tab declaring nothing is portrait only).
        let all = #"["portrait","landscape_left","landscape_right","portrait_upside_down"]"#
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"video-1","orientations":\#(all)},{"id":"home","orientations":\#(all)}]}"#))
        // On a video tab, upside down is refused; landscape is allowed.
        let refused = result(try c.request(#"{"cmd":"rotate","orientation":"portrait_upside_down"}"#))
        #expect(refused?.bool("rotated") == false)
        #expect(refused?.string("orientation") == "portrait")
        #expect(refused?.strings("supported") == ["portrait", "landscape_left", "landscape_right"])
        let turned = result(try c.request(#"{"cmd":"rotate","orientation":"landscape_left"}"#))
        #expect(turned?.bool("rotated") == true)
        #expect(turned?.string("orientation") == "landscape_left")
        // The preferred orientation reaches the state.
        let state = result(try c.request(#"{"cmd":"state"}"#))
        #expect(state?.object("orientation")?.string("preferred") == "landscape_left")
        // On a tab without a rule the plugin abstains: everything is supported.
        _ = result(try c.request(#"{"cmd":"select","tab":"home"}"#))
        let free = result(try c.request(#"{"cmd":"rotate","orientation":"portrait_upside_down"}"#))
        #expect(free?.bool("rotated") == true)
        #expect(free?.strings("supported")?.count == 4)
    }

    /// A plugin's timer ticking every 5 ms (Fixtures/timerflood.c, one timer) does not push a
    /// denied tap out of `explain` (issue 45): once the ticks alone fill the last 20 records,
    /// `kind`, `plugin` and `controller` still find the tap, since each kind group keeps
    /// `plugins.explain_history` records of its own (64; 16 after a reload).
    @Test func aTickingTimerLeavesADeniedTapInExplain() throws {
        let dir = temporaryDirectory("explain")
        try Plugins.gate("no.so", in: dir, [#"NAME="no""#, "RESULT=TABD_DENY", #"REASON="closed""#])
        try Plugins.build(Plugins.fixture("timerflood.c"), "ticker.so", in: dir, ["TIMERS=1", "MS=5", "VALUE_BYTES=16"])
        let config = Plugins.config("    - path: no.so\n    - path: ticker.so\n", extraDirectory: dir)
        let tabd = try TabdProcess(config: config, dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        #expect(try c.error(#"{"cmd":"tap","tab":"b"}"#).string("plugin") == "no")
        func decisions(_ line: String) throws -> [JSONObject] {
            guard case .array(let all)? = try c.ok(line)["decisions"] else { throw TestFailure("no decisions for \(line)") }
            return all.compactMap { if case .object(let d) = $0 { d } else { nil } }
        }
        let deadline = Date().addingTimeInterval(60)
        var fired = 0
        while fired < 2 * 64, Date() < deadline {
            fired = try c.ok(#"{"cmd":"plugin.call","plugin":"timerflood","method":"status"}"#).object("value")?.int("fired") ?? 0
        }
        #expect(fired >= 2 * 64, "the ticker fired \(fired) times in 60 s")
        let last = try decisions(#"{"cmd":"explain"}"#)
        #expect(last.count == 20 && last.allSatisfy { $0.string("kind") == "timer" }, "the last 20 are ticks: \(last)")
        #expect(try decisions(#"{"cmd":"explain","kind":"timer","limit":1000}"#).count == 64)
        for filter in [#""kind":"should_select""#, #""plugin":"no""#, #""controller":"main""#] {
            let found = try decisions(#"{"cmd":"explain",\#(filter)}"#)
            #expect(found.count == 1 && found.first?.string("candidate") == "b" && found.first?.string("result") == "deny", "\(filter): \(found)")
        }
        #expect(try decisions(#"{"cmd":"explain","controller":"elsewhere"}"#).isEmpty)
        let ticks = try decisions(#"{"cmd":"explain","plugin":"timerflood","limit":2}"#)
        #expect(ticks.count == 2 && ticks.allSatisfy { $0["controller"] == .null && $0.string("candidate") == "t0" && $0.string("result") == "ran" }, "\(ticks)")
        let bad = try c.error(#"{"cmd":"explain","kind":"tap"}"#)
        #expect(bad.string("code") == "invalid_request" && bad.string("field") == "kind", "\(bad)")
        // A smaller history at a reload keeps each group's newest records.
        try config.replacingOccurrences(of: "plugins:\n", with: "plugins:\n  explain_history: 16\n").write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        #expect(try c.ok(#"{"cmd":"reload"}"#).strings("changed") == ["plugins.explain_history"])
        #expect(try decisions(#"{"cmd":"explain","kind":"timer","limit":1000}"#).count == 16)
        #expect(try decisions(#"{"cmd":"explain","kind":"should_select"}"#).map { $0.string("candidate") } == ["b"])
    }

    /// Each decision leaves one explain record: a change asks the orientation chains once
    /// each, `rotate` once each (not again for its reply), and `state` asks none — it reports
    /// what the last change decided, the same as the plugins say.
    @Test func orientationChainsRunOncePerChangeAndNeverForState() throws {
        let load = """
                - path: libOrientationRules.so
                  settings:
                    rules: [{tab: "video*", orientations: [portrait, landscape_left]}]
                    preferred: landscape_left

            """
        let tabd = try TabdProcess(config: Plugins.config(load))
        let c = try tabd.client()
        func kinds() throws -> [String] {
            guard case .array(let decisions)? = try c.ok(#"{"cmd":"explain","limit":64}"#)["decisions"] else { return [] }
            return decisions.compactMap { if case .object(let d) = $0 { return d.string("kind") } else { return nil } }
        }
        let all = #"["portrait","landscape_left","landscape_right","portrait_upside_down"]"#
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"video-1","orientations":\#(all)},{"id":"home","orientations":\#(all)}]}"#)
        let afterChange = try kinds()
        #expect(afterChange.suffix(2) == ["supported_orientations", "preferred_orientation"], "\(afterChange)")
        for _ in 0..<3 {
            let state = try c.ok(#"{"cmd":"state"}"#).object("orientation")
            #expect(state?.strings("supported") == ["portrait", "landscape_left"])
            #expect(state?.string("preferred") == "landscape_left")
        }
        #expect(try kinds() == afterChange, "state asked the plugins")
        let turned = try c.ok(#"{"cmd":"rotate","orientation":"landscape_left"}"#)
        #expect(turned.strings("supported") == ["portrait", "landscape_left"] && turned.string("preferred") == "landscape_left")
        #expect(try kinds() == afterChange + ["supported_orientations", "preferred_orientation"], "one record per chain run")
        // A select that changes nothing asks nothing; one that changes the selection asks again.
        try c.ok(#"{"cmd":"select","tab":"video-1"}"#)
        #expect(try kinds().count == afterChange.count + 2)
        try c.ok(#"{"cmd":"select","tab":"home"}"#)
        #expect(try kinds().count == afterChange.count + 4)
        #expect(try c.ok(#"{"cmd":"state"}"#).object("orientation")?.strings("supported")?.count == 4, "no rule for home: the tabs decide")
    }

    @Test func orientationLockLimitsEveryTab() throws {
        let load = """
                - path: libOrientationRules.so
                  settings: {lock: [portrait]}

            """
        let tabd = try TabdProcess(config: Plugins.config(load))
        let c = try tabd.client()
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a","orientations":["portrait","landscape_right"]}]}"#))
        let r = result(try c.request(#"{"cmd":"rotate","orientation":"landscape_right"}"#))
        #expect(r?.bool("rotated") == false)
        #expect(r?.strings("supported") == ["portrait"])
    }

    @Test func composedGatesDenyWinsAbstainFallsToDefaultFailureDenies() throws {
        let dir = temporaryDirectory("cmp")
        try Plugins.gate("yes.so", in: dir, [#"NAME="yes""#, "RESULT=TABD_ALLOW"])
        try Plugins.gate("no.so", in: dir, [#"NAME="no""#, "RESULT=TABD_DENY", #"REASON="closed""#])
        try Plugins.gate("shrug.so", in: dir, [#"NAME="shrug""#, "RESULT=TABD_ABSTAIN"])
        try Plugins.gate("broken.so", in: dir, [#"NAME="broken""#, "RESULT=TABD_ERROR", #"REASON="crashed""#])
        /// A tabd with `files` loaded and tabs a, b; returns it, a client, and the reply to tapping b.
        func tapB(with files: [String]) throws -> (TabdProcess, LineClient, JSONObject) {
            let load = files.map { "    - path: \($0)\n" }.joined()
            let t = try TabdProcess(config: Plugins.config(load, extraDirectory: dir))
            let c = try t.client()
            _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#))
            return (t, c, try c.request(#"{"cmd":"tap","tab":"b"}"#))
        }
        // allow + deny: deny wins, and names its plugin and reason.
        let (t1, c1, r1) = try tapB(with: ["yes.so", "no.so"])
        let e1 = errorOf(r1)
        #expect(e1?.string("code") == "denied")
        #expect(e1?.string("plugin") == "no")
        #expect(e1?.string("reason") == "closed")
        #expect(e1?.string("message") == "no says closed", "the plugin's own sentence reaches the client")
        // explain shows who said what; stats times each plugin.
        let decisions = result(try c1.request(#"{"cmd":"explain"}"#))?["decisions"]?.jsonString ?? ""
        #expect(decisions.contains("\"yes\"") && decisions.contains("\"no\""), "\(decisions)")
        let stats = result(try c1.request(#"{"cmd":"stats"}"#))?["plugins"]?.jsonString ?? ""
        #expect(stats.contains("\"no\""), "\(stats)")
        t1.stop()
        // Only abstentions: the default (allow) decides.
        let (t2, _, r2) = try tapB(with: ["shrug.so"])
        #expect(result(r2)?.string("selected") == "b")
        t2.stop()
        // A failing gate counts as deny.
        let (_, _, r3) = try tapB(with: ["yes.so", "broken.so"])
        #expect(errorOf(r3)?.string("code") == "denied")
        #expect(errorOf(r3)?.string("plugin") == "broken")
    }

    /// A new directory holding Plugins/examples/hello.c copied out of the tree and built
    /// there as hello.so with nothing but the header (warnings are errors).
    static func helloOutOfTree(_ tag: String) throws -> String {
        let dir = temporaryDirectory(tag)
        let src = Build.packageRoot.appendingPathComponent("Plugins/examples/hello.c").path
        let build = try shell("cp \(src) \(dir)/ && cd \(dir) && cc -shared -fPIC -Wall -Werror -I \(Plugins.include) hello.c -o hello.so")
        guard build.status == 0 else { throw TestFailure("hello.c does not build: \(build.output)") }
        return dir
    }

    /// Plugins/examples/hello.c, copied out of the tree and built with nothing but the header.
    @Test func helloExampleBuiltOutOfTreeWorks() throws {
        let dir = try Self.helloOutOfTree("hello")
        let load = "    - path: hello.so\n      settings: {prefix: secret, code: open-sesame}\n"
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir))
        let c = try tabd.client()
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"secret-notes"}]}"#))
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"secret-notes"}"#))?.string("plugin") == "hello")
        _ = result(try c.request(#"{"cmd":"plugin.call","plugin":"hello","method":"unlock","args":{"code":"open-sesame"}}"#))
        #expect(result(try c.request(#"{"cmd":"tap","tab":"secret-notes"}"#))?.string("selected") == "secret-notes")
        let plugins = result(try c.request(#"{"cmd":"plugins"}"#))?["plugins"]?.jsonString ?? ""
        #expect(plugins.contains("\"name\":\"hello\"") && plugins.contains("\"loaded\":true"), "\(plugins)")
    }

    /// hello.c reads a list setting with the 1.5 readers (`exempt`: tabs never locked) and
    /// refuses a key it does not know, or a list of the wrong shape, with a sentence naming it.
    @Test func helloExampleReadsAListAndRefusesUnknownSettings() throws {
        let dir = try Self.helloOutOfTree("hlist")
        let load = "    - path: hello.so\n      settings: {prefix: secret, exempt: [secret-help, secret-faq]}\n"
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir))
        let c = try tabd.client()
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"secret-notes"},{"id":"secret-faq"}]}"#))
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"secret-notes"}"#))?.string("plugin") == "hello")
        #expect(result(try c.request(#"{"cmd":"tap","tab":"secret-faq"}"#))?.string("selected") == "secret-faq", "an exempt tab is not locked")
        for (settings, sentence) in [(#"{"prefx": "a"}"#, "settings: unknown key 'prefx' (hello knows prefix, code, exempt and events)"),
                                     (#"{"exempt": "secret-faq"}"#, "settings: exempt must be a list of tab ids, such as [secret-help]"),
                                     (#"{"exempt": ["ok", 3]}"#, "settings: exempt must list tab ids: non-empty strings of fewer than 64 bytes")] {
            let bad = try shell("\(Build.tabd) --check-plugin \(dir)/hello.so --settings '\(settings)' 2>&1 >/dev/null")
            #expect(bad.status == 78)
            #expect(bad.output == "\(dir)/hello.so: error: tabd would not load this plugin: init failed: \(sentence)\n", "\(bad.output)")
        }
    }

    /// A plugin learns who calls it (the caller host function, ABI 1.1): hello.c's whoami
    /// answers the uid, gid and pid of the client's connection — root's (this test process)
    /// and, through setpriv, uid 65534's — and (ABI 1.5) whether tabd counts it as an admin,
    /// by the access rules of admin commands, and its supplementary groups: root is one,
    /// 65534 is not, until a supplementary group of its is in access.admin_gids. The same
    /// for the plugin isolated in a helper.
    @Test(arguments: [false, true]) func pluginSeesItsCaller(isolated: Bool) throws {
        let dir = try Self.helloOutOfTree("who")
        chmod(dir, 0o755)
        let load = "    - path: hello.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let config = "socket_mode: \"0666\"\naccess:\n  admin_gids: [4242]\n" + Plugins.config(load, extraDirectory: dir)
        let tabd = try TabdProcess(config: config, dir: dir)
        let whoami = #"{"cmd":"plugin.call","plugin":"hello","method":"whoami"}"#
        let mine = result(try tabd.client().request(whoami))?.object("value")
        #expect(mine?.int("uid") == 0)
        #expect(mine?.int("gid") == 0)
        #expect(mine?.int("pid") == Int(getpid()))
        #expect(mine?["admin"] == .bool(true), "root is an admin")
        let theirs = try AccessTests.asOtherUser(tabd.socket, [whoami]).first?.object("result")?.object("value")
        #expect(theirs?.int("uid") == 65534)
        #expect(theirs?.int("gid") == 65534)
        #expect((theirs?.int("pid") ?? 0) > 0 && theirs?.int("pid") != Int(getpid()))
        #expect(theirs?["admin"] == .bool(false), "\(String(describing: theirs))")
        #expect(theirs?["groups"] == .array([]))
        let grouped = try AccessTests.asOtherUser(tabd.socket, [whoami], groups: [4242, 77]).first?.object("result")?.object("value")
        #expect(grouped?["admin"] == .bool(true), "a supplementary group in admin_gids: \(String(describing: grouped))")
        #expect(grouped?["groups"] == .array([.int(77), .int(4242)]) || grouped?["groups"] == .array([.int(4242), .int(77)]))
    }

    /// Every refusal is explained in `plugins` and the log, and tabd keeps serving with the
    /// plugins that did load.
    @Test func refusedPluginsAreExplainedAndTabdKeepsServing() throws {
        let dir = temporaryDirectory("ref")
        try Plugins.gate("good.so", in: dir, [#"NAME="good""#, "RESULT=TABD_DENY", #"REASON="guarded""#])
        chmod(try Plugins.gate("world.so", in: dir, [#"NAME="world""#]), 0o757)
        chmod(try Plugins.gate("group.so", in: dir, [#"NAME="group""#]), 0o775)
        let theirs = try Plugins.gate("theirs.so", in: dir, [#"NAME="theirs""#])
        chown(theirs, 65534, 65534)
        try Plugins.gate("noentry.so", in: dir, [#"NAME="noentry""#, "NO_ENTRY"])
        try Plugins.gate("abi.so", in: dir, [#"NAME="abi""#, "ABI_MAJOR=99"])
        try Plugins.gate("short.so", in: dir, [#"NAME="short""#, "STRUCT_SIZE=8"])
        try Plugins.gate("initfail.so", in: dir, [#"NAME="initfail""#, "INIT_FAILS"])
        let files = ["world.so", "group.so", "theirs.so", "noentry.so", "abi.so", "short.so", "initfail.so", "missing.so", "good.so"]
        let tabd = try TabdProcess(config: Plugins.config(files.map { "    - path: \($0)\n" }.joined(), extraDirectory: dir))
        let c = try tabd.client()
        guard case .array(let list)? = result(try c.request(#"{"cmd":"plugins"}"#))?["plugins"] else {
            Issue.record("plugins has no list")
            return
        }
        let byPath: [String: JSONObject] = Dictionary(list.compactMap {
            guard case .object(let o) = $0, let p = o.string("path") else { return nil }
            return ((p as NSString).lastPathComponent, o)
        }, uniquingKeysWith: { a, _ in a })
        let expected: [(String, String)] = [
            ("world.so", "world-writable"), ("group.so", "group- or world-writable"), ("theirs.so", "owned by uid 65534"),
            ("noentry.so", "does not export tabd_policy_entry"), ("abi.so", "ABI 99."), ("short.so", "descriptor is 8 bytes"),
            ("initfail.so", "the test plugin was told to fail"), ("missing.so", "missing.so"),
        ]
        for (file, words) in expected {
            let p = byPath[file]
            #expect(p?.bool("loaded") == false, "\(file) must be refused")
            #expect(p?.string("error")?.contains(words) == true, "\(file): \(p?.string("error") ?? "no error") should say \(words)")
            #expect(tabd.log.contains(file), "the log names \(file)")
        }
        #expect(byPath["good.so"]?.bool("loaded") == true)
        // tabd serves, and the plugin that loaded is consulted.
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#))
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"b"}"#))?.string("plugin") == "good")
    }

    /// Plugin output goes through the parser client requests go through: a call result it
    /// refuses is an `internal` error naming the plugin and the method (and a log line), not
    /// a string of the raw text; a refused event is dropped with a warning; what it accepts
    /// arrives on one line; the connection stays usable throughout.
    @Test func pluginOutputTheClientParserRefusesIsAnError() throws {
        let dir = temporaryDirectory("out")
        try Plugins.build(Plugins.fixture("output.c"), "output.so", in: dir)
        let config = Plugins.config("    - path: output.so\n", extraDirectory: dir)
            .replacingOccurrences(of: "plugins:\n", with: "plugins:\n  warning_period_seconds: 5\n")
        let tabd = try TabdProcess(config: config, dir: dir)
        let c = try tabd.client()
        let watcher = try tabd.client()
        _ = result(try watcher.request(#"{"cmd":"subscribe","events":["plugin"]}"#))
        for method in ["duplicate", "surrogate", "huge", "garbage", "deep"] {
            let reply = try c.request(#"{"cmd":"plugin.call","plugin":"output","method":"\#(method)","id":"\#(method)"}"#)
            #expect(reply.string("id") == method)
            let error = errorOf(reply, method)
            #expect(error?.string("code") == "internal", "\(method)")
            #expect(error?.string("plugin") == "output", "\(method)")
            #expect(error?.string("method") == method)
            #expect(error?.string("message")?.hasPrefix("plugin 'output' answered '\(method)' with JSON tabd does not accept (invalid JSON at byte ") == true,
                    "\(error?.string("message") ?? "")")
            #expect(result(try c.request(#"{"cmd":"ping"}"#)) != nil, "the connection stays usable after \(method)")
        }
        // The first said at once; the others counted and said with their count at the end of
        // the period (plugins.warning_period_seconds, 5 s here: the five calls fit in it on a
        // loaded machine too): every one accounted for.
        func logged() -> (lines: [Substring], total: Int) {
            let lines = tabd.log.split(separator: "\n").filter { $0.contains("plugin answered a call with JSON tabd does not accept") }
            return (lines, lines.reduce(0) { sum, line in
                guard let r = line.range(of: #"warning\.repeated=(\d+)"#, options: .regularExpression) else { return sum + 1 }
                return sum + (Int(line[r].split(separator: "=")[1]) ?? 0)
            })
        }
        let deadline = Date().addingTimeInterval(60)
        while logged().total < 5, Date() < deadline { usleep(20_000) }
        #expect(logged().total == 5 && logged().lines.count < 5, "\(tabd.log)")
        #expect(logged().lines.first?.contains(#"duplicate key \"a\"" plugin.method=duplicate plugin.name=output"#) == true, "\(tabd.log)")

        // Accepted output is forwarded compactly, on one line.
        try c.write(#"{"cmd":"plugin.call","plugin":"output","method":"spaced"}"# + "\n")
        #expect(try c.readLine() == #"{"ok":true,"result":{"plugin":"output","value":{"a":[1,2],"b":"xA"}}}"#)

        // Of the four events, only the valid one reaches the subscriber, compact.
        _ = result(try c.request(#"{"cmd":"plugin.call","plugin":"output","method":"emit"}"#))
        try watcher.write(#"{"cmd":"ping","id":"after"}"# + "\n")
        let event = try #require(try watcher.readLine())
        #expect(event.hasPrefix(#"{"event":"plugin","controller":"main","seq":"#), "\(event)")
        #expect(event.hasSuffix(#","data":{"plugin":"output","data":{"a":[1,2]}},"last":true}"#), "\(event)")  // the last of its step
        #expect(try watcher.readLine() == #"{"id":"after","ok":true,"result":{}}"#)
        #expect(tabd.log.contains("plugin emitted an event tabd does not accept; dropped"), "\(tabd.log)")
    }

    @Test func requiredPluginThatFailsStopsTabdAtStart() throws {
        let dir = temporaryDirectory("req")
        try Plugins.gate("initfail.so", in: dir, [#"NAME="initfail""#, "INIT_FAILS"])
        let config = Plugins.config("    - path: initfail.so\n      required: true\n", extraDirectory: dir)
        do {
            _ = try TabdProcess(config: config, dir: dir)
            Issue.record("tabd started without its required plugin")
        } catch {
            let text = "\(error)"
            #expect(text.contains("exited with"), "\(text)")
            #expect(text.contains("initfail"), "the reason names the plugin: \(text)")
            #expect(text.contains("the test plugin was told to fail"), "\(text)")
        }
    }

    @Test func reloadReinitialisesAndDropsUnlistedPlugins() throws {
        let dir = temporaryDirectory("rel")
        try Plugins.gate("no.so", in: dir, [#"NAME="no""#, "RESULT=TABD_DENY"])
        let tabd = try TabdProcess(config: Plugins.config("    - path: no.so\n", extraDirectory: dir), dir: dir)
        let c = try tabd.client()
        _ = result(try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#))
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"b"}"#))?.string("plugin") == "no")
        // A configuration that does not parse: the reload fails and the running one stays.
        try "plugins: [unclosed\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let failed = errorOf(try c.request(#"{"cmd":"reload"}"#))
        #expect(failed?.string("message")?.contains("the running configuration stays") == true, "\(failed.map { JSONValue.object($0).jsonString } ?? "")")
        #expect(errorOf(try c.request(#"{"cmd":"tap","tab":"b"}"#))?.string("plugin") == "no")
        // The plugin leaves the configuration: after reload it is no longer consulted.
        try Plugins.config("", extraDirectory: dir).replacingOccurrences(of: "  load:\n", with: "  load: []\n")
            .write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        _ = result(try c.request(#"{"cmd":"reload"}"#))
        #expect(result(try c.request(#"{"cmd":"tap","tab":"b"}"#))?.string("selected") == "b")
        // And back again (SIGHUP this time): consulted again.
        try Plugins.config("    - path: no.so\n", extraDirectory: dir).write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        kill(tabd.pid, SIGHUP)
        let deadline = Date().addingTimeInterval(60)
        var denied = false
        while !denied && Date() < deadline {
            denied = (try c.request(#"{"cmd":"tap","tab":"a"}"#)).bool("ok") == false
            if !denied { _ = try c.request(#"{"cmd":"select","tab":"b"}"#); usleep(50_000) }
        }
        #expect(denied, "after SIGHUP the plugin is consulted again")
    }

    /// Numbers in a plugin's settings follow tabd.yaml(5)'s rule for tabd's own keys: `_` may
    /// group digits, so the login gate gets `max_failures: 1_0` as the number 10 (issue 45: it
    /// got the string "1_0" and refused to load); a quoted "1_0" stays a string it refuses.
    @Test func settingsNumbersGroupDigitsAsTabdsOwnDo() throws {
        let dir = temporaryDirectory("num")
        let credentials = try Plugins.credentials(in: dir)
        let grouped = Plugins.config(Plugins.loginGate(credentials: credentials, extra: ", max_failures: 1_0, session_seconds: 28_800"))
        try grouped.write(toFile: dir + "/grouped.yaml", atomically: true, encoding: .utf8)
        let ok = try ConfigAndLockTests.runTabd(["--check-config", "--config", dir + "/grouped.yaml", "--socket", dir + "/s", "--state-dir", dir + "/st"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let quoted = Plugins.config(Plugins.loginGate(credentials: credentials, extra: ", max_failures: \"1_0\""))
        try quoted.write(toFile: dir + "/quoted.yaml", atomically: true, encoding: .utf8)
        let refused = try ConfigAndLockTests.runTabd(["--check-config", "--config", dir + "/quoted.yaml", "--socket", dir + "/s", "--state-dir", dir + "/st"])
        #expect(refused.status == 78 && refused.stderr.contains("max_failures"), "\(refused.stderr)")
    }
}

