// The decision algebra (any deny refuses, abstain is not an allow, failures deny, masks
// intersect), notifications, explain, stats, plugin events and reload.

import Foundation
import TabCore
import TabPlugins
import Testing

/// hello.c built out of tree into a fresh directory, plus that directory.
func buildHello() throws -> String {
    let dir = try temporaryDirectory()
    try run(["cc", "-shared", "-fPIC", "-I", includeDirectory, packageRoot + "/Plugins/examples/hello.c", "-o", dir + "/hello.so"])
    return dir
}

extension PluginTests {
    @Suite struct Composition {
        /// hello.c denies "secret…" tabs until its unlock method is called with the right code.
        @Test func helloLocksSecretTabsUntilUnlocked() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so", configJSON: #"{"code":"xyzzy"}"#)])
            var c = try controller(["home", "secret-notes"])
            let error = try #require(tapDenial(&c, "secret-notes", policy: host))
            #expect(error.plugin == "hello")
            #expect(error.reason == "locked")
            #expect(error.message == "'secret-notes' is locked; call hello's unlock method first", "the plugin's sentence is the refusal's message")

            let wrong = try #require(host.call(plugin: "hello", method: "unlock", argsJSON: #"{"code":"open"}"#, controller: c).failure)
            #expect(wrong.code == .denied)
            #expect(wrong.reason == "wrong code")
            #expect(host.call(plugin: "hello", method: "unlock", argsJSON: "{}", controller: c).failure?.code == .invalid)
            #expect(host.call(plugin: "hello", method: "fly", argsJSON: "{}", controller: c).failure?.code == .notFound)
            #expect(try host.call(plugin: "hello", method: "unlock", argsJSON: #"{"code":"xyzzy"}"#, controller: c).get() == #"{"unlocked":true}"#)
            #expect(tapDenial(&c, "secret-notes", policy: host) == nil)
            #expect(c.selection == .tab("secret-notes"))
        }

        /// did_select reaches the plugin after the selection changed; its emitted event comes
        /// back in the tap's outcome with the plugin and controller names.
        @Test func didSelectAndEmit() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "news", "secret"])
            let events = try tap(&c, "news", policy: host).effects.events + tap(&c, "news", policy: host).effects.events
            #expect(events.map(\.plugin) == ["hello", "hello"])
            #expect(events.map(\.controller) == ["main", "main"])
            #expect(events.last?.dataJSON == #"{"event":"tapped","tab":"news","index":1,"taps":2,"tabs":3}"#)
            #expect(try c.apply(.select(.tab("home")), policy: host).effects.isEmpty, "a select tells the plugin nothing")
        }

        /// lock, asked while a locked tab is showing, requests a selection of the first tab.
        @Test func requestSelectFromC() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret"])
            _ = try c.apply(.select(.tab("secret")))
            let locked = host.call(plugin: "hello", method: "lock", argsJSON: "{}", controller: c)
            _ = try locked.get()
            let requested = locked.selections
            #expect(requested.map(\.controller) == ["main"])
            #expect(requested.map(\.target) == [.tab("home")])
        }

        /// Two gates: one allows, one denies → denied, by the one that denied.
        @Test func denyWins() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "yes", result: "TABD_ALLOW"), named: "yes.so", in: dir)
            try compilePlugin(gatePlugin(name: "no", result: "TABD_DENY", reason: "closed"), named: "no.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "yes.so"), PluginSpec(path: "no.so")])
            var c = try controller(["home", "news"])
            let error = try #require(tapDenial(&c, "news", policy: host))
            #expect(error.plugin == "no")
            #expect(error.reason == "closed")
            let record = try #require(host.explain(limit: 1).first)
            #expect(record.answers.map(\.plugin) == ["yes", "no"])
            #expect(record.answers.map(\.kind) == ["allow", "deny"])
            #expect(record.final == .deny(plugin: "no", reason: "closed", message: "no says closed"))
        }

        /// LoginGate (logged in: allow) and hello (secret: deny): deny wins; the first deny
        /// ends the question, so later plugins are not asked.
        @Test func loginGateAndHelloCompose() throws {
            let helloDir = try buildHello()
            _ = try referencePlugin("libLoginGate.so")
            let credentials = try temporaryDirectory() + "/credentials"
            try "demo:\(demoHash)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
            let (host, _) = makeHost([buildDirectory, helloDir])
            try host.load([
                PluginSpec(path: "hello.so"),
                PluginSpec(path: "libLoginGate.so", configJSON: #"{"credentials_file":"\#(credentials)"}"#),
            ])
            var c = try controller(["login", "home", "secret"])
            #expect(tapDenial(&c, "secret", policy: host)?.plugin == "hello")
            #expect(host.explain(limit: 1).first?.answers.map(\.plugin) == ["hello"])
            #expect(tapDenial(&c, "home", policy: host)?.plugin == "login-gate")
            _ = try login(host, c).get()
            #expect(tapDenial(&c, "home", policy: host) == nil)
            #expect(tapDenial(&c, "secret", policy: host)?.plugin == "hello")
        }

        /// R14.1 (ABI 1.6): should-select says the candidate is the search tab; R14.2: a tap on
        /// a disabled tab is refused before any plugin is asked. In process and isolated.
        @Test func shouldSelectSeesTheSearchTab() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "no-search", hooks: """
                static int asked;
                static tabd_result gate(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
                    (void)state; (void)c;
                    asked++;
                    if (TABD_CANDIDATE_HAS(cand, is_search) && cand->is_search) { reply->reason = "no search"; return TABD_DENY; }
                    return TABD_ALLOW;
                }
                """, fields: ".should_select = gate,"), named: "nosearch.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "nosearch.so")])
            var c = Controller(name: "main", idiom: .phone)
            var find = Tab(id: "find")
            find.role = .search
            var off = Tab(id: "off")
            off.enabled = false
            _ = try c.apply(.setTabs([Tab(id: "home"), find, off], animated: false))
            #expect(tapDenial(&c, "find", policy: host)?.reason == "no search")
            #expect(tapDenial(&c, "home", policy: host) == nil)
            let asked = host.explain(limit: 10).count
            #expect(tapDenial(&c, "off", policy: host)?.code == .notAvailable)
            #expect(host.explain(limit: 10).count == asked)  // not asked
        }

        /// When every plugin abstains, the default applies: allow, recorded as by default.
        /// A deny default makes abstain-only taps refused.
        @Test func abstainOnlyFallsToDefault() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "shrug", result: "TABD_ABSTAIN"), named: "shrug.so", in: dir)
            try compilePlugin(gatePlugin(name: "meh", result: "TABD_ABSTAIN"), named: "meh.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "shrug.so"), PluginSpec(path: "meh.so")])
            var c = try controller(["home", "news"])
            #expect(host.shouldSelect(tab("news", of: c), in: c) == .allow)
            let record = try #require(host.explain(limit: 1).first)
            #expect(record.answers.map(\.answer) == [.abstain, .abstain])
            #expect(record.final == .allow(byDefault: true))

            host.defaultDecision = .deny(by: "default", reason: "no plugin allowed it")
            #expect(tapDenial(&c, "news", policy: host)?.reason == "no plugin allowed it")
        }

        /// A gate that returns a value outside the enum, or TABD_ERROR, counts as a deny
        /// whose reason says the plugin failed; the failure is counted and logged.
        @Test func failingGateCountsAsDeny() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "broken", result: "(tabd_result)42"), named: "broken.so", in: dir)
            try compilePlugin(gatePlugin(name: "erring", result: "TABD_ERROR", reason: "x"), named: "erring.so", in: dir)
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "broken.so")])
            var c = try controller(["home", "news"])
            let error = try #require(tapDenial(&c, "news", policy: host))
            #expect(error.plugin == "broken")
            #expect(error.reason == "plugin failed: it returned 42, not TABD_ALLOW, TABD_DENY or TABD_ABSTAIN")
            #expect(host.stats.first?.failures == 1)
            #expect(log.contains("plugin failed deciding a tap; counted as a refusal"))

            let (second, _) = makeHost([dir])
            try second.load([PluginSpec(path: "erring.so")])
            #expect(tapDenial(&c, "news", policy: second)?.reason == "plugin failed: erring says x")
        }

        /// Orientation answers intersect across plugins; a plugin that fails there is ignored
        /// (and counted) rather than emptying the set.
        @Test func orientationMasksIntersect() throws {
            let dir = try temporaryDirectory()
            func orientationPlugin(_ name: String, _ body: String) -> String {
                cPlugin(name: name, hooks: """
                    static tabd_result so(void *s, const tabd_controller *c, tabd_orientation_mask proposed, tabd_orientation_mask *mask) {
                        (void)s; (void)c; (void)proposed; \(body)
                    }
                    """, fields: ".supported_orientations = so,")
            }
            try compilePlugin(orientationPlugin("no-upside-down", "*mask = TABD_ORIENTATION_ALL & ~TABD_ORIENTATION_PORTRAIT_UPSIDE_DOWN; return TABD_OK;"), named: "a.so", in: dir)
            try compilePlugin(orientationPlugin("no-right", "*mask = TABD_ORIENTATION_ALL & ~TABD_ORIENTATION_LANDSCAPE_RIGHT; return TABD_OK;"), named: "b.so", in: dir)
            try compilePlugin(orientationPlugin("garbage", "*mask = 0; return (tabd_result)99;"), named: "c.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "a.so"), PluginSpec(path: "c.so"), PluginSpec(path: "b.so")])
            let c = try controller(["home"], orientations: .all)
            #expect(c.supportedOrientations(policy: host) == [.portrait, .landscapeLeft])
            #expect(host.stats.first { $0.name == "garbage" }?.failures == 1)
            let record = try #require(host.explain(limit: 1).first)
            #expect(record.proposed == .all)
            #expect(record.answers.map(\.kind) == ["orientations", "failed", "orientations"])
        }

        /// explain lists the last decisions, oldest first, with the candidate, each plugin's
        /// answer and time, and the result; its JSON carries the same.
        @Test func explainShowsWhoSaidWhat() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret"])
            _ = tapDenial(&c, "secret", policy: host)
            _ = tapDenial(&c, "home", policy: host)
            let records = host.explain(limit: 10)
            #expect(records.count == 2)
            #expect(records.map(\.candidate) == ["secret", "home"])
            #expect(records.map(\.controller) == ["main", "main"])
            #expect(records.map(\.kind) == [.shouldSelect, .shouldSelect])
            #expect(records[0].final == .deny(plugin: "hello", reason: "locked", message: "'secret' is locked; call hello's unlock method first"))
            #expect(records[1].final == .allow(byDefault: true))
            #expect(records[0].sequence < records[1].sequence)
            #expect(host.explain(limit: 1).map(\.candidate) == ["home"])
            let json = records[0].json
            #expect(json.hasPrefix(#"{"seq":"#))
            #expect(json.contains(#""kind":"should_select","candidate":"secret","answers":[{"plugin":"hello","answer":"deny","reason":"locked","message":"'secret' is locked; call hello's unlock method first","ns":"#))
            #expect(json.hasSuffix(#""result":"deny","plugin":"hello","reason":"locked","message":"'secret' is locked; call hello's unlock method first"}"#))
        }

        /// Every tap reaches the plugins with its id (short or long, ASCII or not) and its
        /// controller's name, and explain keeps exactly the decisions made, in order, also
        /// once its history is full and records are overwritten (with other controllers and
        /// candidates than they held).
        @Test func decisionsReachPluginsAndExplainAsMade() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "yes", result: "TABD_ALLOW"), named: "yes.so", in: dir)
            // Denies every tab but "allow-me", with the id as its reason and the controller's
            // name as its message.
            try compilePlugin(cPlugin(name: "echo", hooks: """
                static const tabd_host *host;
                static tabd_result start(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                    (void)config; (void)reply; host = h; *state = NULL; return TABD_OK;
                }
                static tabd_result gate(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
                    (void)state;
                    if (strcmp(cand->id, "allow-me") == 0) return TABD_ALLOW;
                    if (cand->path_count != 1 || strcmp(cand->path[0], cand->id) != 0) return TABD_ERROR;
                    reply->reason = cand->id;
                    reply->message = host->controller_name(c);
                    return TABD_DENY;
                }
                """, fields: ".init = start, .should_select = gate,"), named: "echo.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "yes.so"), PluginSpec(path: "echo.so")])
            let ids = ["a", "abcdefghijklmno", "abcdefghijklmnop", "a-much-longer-tab-identifier", "onglet-é", "設定", "allow-me"]
            let controllers = [try controller(ids), try controller(ids, name: "a-controller-with-a-long-name"), try controller(ids, name: "b")]
            var made: [(controller: String, id: String)] = []
            for round in 0..<(2 * PluginHost.explainCapacity + 5) {
                let c = controllers[round % 5 == 0 ? 0 : (round / 3) % 3]
                let id = ids[round % ids.count]
                let decision = host.shouldSelect(tab(id, of: c), in: c)
                #expect(decision == (id == "allow-me" ? .allow : .deny(by: "echo", reason: id, message: c.name)))
                made.append((c.name, id))
            }
            let records = host.explain(limit: 1000)
            #expect(records.count == PluginHost.explainCapacity)
            for (r, m) in zip(records, made.suffix(PluginHost.explainCapacity)) {
                #expect(r.kind == .shouldSelect)
                #expect(r.controller == m.controller)
                #expect(r.candidate == m.id)
                #expect(r.proposed == nil)
                #expect(r.answers.map(\.plugin) == ["yes", "echo"])
                #expect(r.answers.map(\.kind) == (m.id == "allow-me" ? ["allow", "allow"] : ["allow", "deny"]))
                #expect(r.final == (m.id == "allow-me" ? .allow(byDefault: false) : .deny(plugin: "echo", reason: m.id, message: m.controller)))
            }
            #expect(zip(records, records.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
            let echo = try #require(host.stats.first { $0.name == "echo" })
            #expect(echo.denials == UInt64(made.filter { $0.id != "allow-me" }.count))
            #expect(echo.failures == 0)
            #expect(echo.hooks.first { $0.hook == .shouldSelect }?.calls == UInt64(made.count))
        }

        /// explain keeps a bounded history.
        @Test func explainIsBounded() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            let c = try controller(["home"])
            for _ in 0..<(PluginHost.explainCapacity + 10) { _ = host.shouldSelect(tab("home", of: c), in: c) }
            #expect(host.explain(limit: 1000).count == PluginHost.explainCapacity)
        }

        /// A plugin's timer ticking (issue 45) keeps a history of its own: a tap denied before
        /// twice `explainHistory` ticks is still there, found by kind, plugin and controller
        /// (filters apply before the limit); a smaller history keeps each group's newest.
        @Test func timersDoNotPushTapsOutOfExplainAndFiltersFindThem() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "no", result: "TABD_DENY", reason: "closed"), named: "no.so", in: dir)
            // Arms "tick" in init and again in each run: a repeating timer.
            try compilePlugin(cPlugin(name: "ticker", hooks: """
                static const tabd_host *host;
                static tabd_result start(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                    (void)config; (void)reply; host = h; *state = NULL;
                    return h->set_timer(h, NULL, "tick", 1000);
                }
                static void tick(void *state, const tabd_controller *c, const char *name) {
                    (void)state; (void)c; host->set_timer(host, NULL, name, 1000);
                }
                """, fields: ".init = start, .timer = tick,"), named: "ticker.so", in: dir)
            let (host, _) = makeHost([dir])
            var due: [() -> Void] = []
            host.scheduleTimer = { _, body in due.append(body); return {} }
            try host.load([PluginSpec(path: "no.so"), PluginSpec(path: "ticker.so")])
            host.explainHistory = 8
            let c = try controller(["home", "news"], name: "kiosk")
            #expect(host.shouldSelect(tab("news", of: c), in: c) == .deny(by: "no", reason: "closed", message: "no says closed"))
            // Until the timer hook ran twice the history (a run past the plugin's share of the
            // loop is put off, as the same timer).
            func ticks() -> UInt64 { host.stats.first { $0.name == "ticker" }?.hooks.first { $0.hook == .timer }?.calls ?? 0 }
            while ticks() < UInt64(2 * host.explainHistory) {
                let next = due.popLast()
                try #require(next != nil, "the ticker armed its next tick")
                next?()
            }
            #expect(host.explain(limit: 20).filter { $0.kind == .timer }.count == host.explainHistory)
            let taps = host.explain(ExplainQuery(kind: .shouldSelect))
            #expect(taps.map(\.candidate) == ["news"] && taps.first?.controller == "kiosk")
            #expect(host.explain(ExplainQuery(controller: "kiosk", plugin: "no")).map(\.candidate) == ["news"])
            #expect(host.explain(ExplainQuery(controller: "main")).isEmpty)
            let ticks = host.explain(ExplainQuery(limit: 3, plugin: "ticker"))
            #expect(ticks.count == 3 && ticks.allSatisfy { $0.kind == .timer && $0.candidate == "tick" && $0.final == .ran(ok: true) })
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "oldest first")
            host.explainHistory = 2
            #expect(host.explain(ExplainQuery(limit: 1000, kind: .timer)).map(\.sequence) == ticks.suffix(2).map(\.sequence))
            #expect(host.explain(ExplainQuery(kind: .shouldSelect)).map(\.candidate) == ["news"])
        }

        /// stats count calls per hook with their times, denials and failures.
        @Test func statsCountAndTime() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret", "a", "b", "c", "d"])
            _ = tapDenial(&c, "secret", policy: host)
            _ = tapDenial(&c, "home", policy: host)
            _ = tapDenial(&c, "a", policy: host)
            _ = try host.call(plugin: "hello", method: "status", argsJSON: "{}", controller: c).get()
            let s = try #require(host.stats.first)
            #expect(s.name == "hello")
            #expect(s.denials == 1)
            #expect(s.failures == 0)
            let hooks = Dictionary(uniqueKeysWithValues: s.hooks.map { ($0.hook, $0) })
            #expect(hooks[.initialize]?.calls == 1)
            #expect(hooks[.shouldSelect]?.calls == 3)
            #expect(hooks[.didSelect]?.calls == 2)
            #expect(hooks[.call]?.calls == 1)
            #expect(hooks[.supportedOrientations] == nil)
            let select = try #require(hooks[.shouldSelect])
            #expect(select.totalNanoseconds > 0)
            #expect(select.maxNanoseconds >= select.averageNanoseconds)
            #expect(s.json.contains(#""should_select":{"calls":3,"total_ns":"#))
        }

        /// Customization notifications reach every plugin with the tab order and `changed`.
        @Test func customizingNotifications() throws {
            let (host, log) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["a", "b", "c", "d", "e", "f"])
            _ = try c.apply(.customizeBegin, policy: host)
            _ = try c.apply(.customizeMove(tab: "f", to: 0), policy: host)
            _ = try c.apply(.customizeEnd, policy: host)
            #expect(log.contains("customizing main: 6 tabs, first 'a'"))
            #expect(log.contains("customized main: 6 tabs, order changed"))
            let hooks = Set(host.stats.first?.hooks.map(\.hook) ?? [])
            #expect(hooks.isSuperset(of: [.willBeginCustomizing, .didEndCustomizing]))
        }

        /// Events that are not JSON objects, and call results that are not JSON, are refused.
        @Test func pluginJSONIsChecked() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "sloppy", hooks: """
                static const tabd_host *H;
                static tabd_result sloppy_init(const tabd_host *h, const char *cfg, void **st, tabd_reply *r) {
                    (void)cfg; (void)st; (void)r; H = h; return TABD_OK;
                }
                static tabd_result sloppy_call(void *s, const tabd_controller *c, const char *m, const char *a, tabd_reply *r) {
                    (void)s; (void)a;
                    if (strcmp(m, "emit") == 0) {
                        int bad = H->emit(H, c, "{\\"a\\":\\n1}\\n{") != TABD_OK;
                        int list = H->emit(H, c, "[1]") != TABD_OK;
                        int good = H->emit(H, c, "{ \\"a\\" : [1, 2] }") == TABD_OK;
                        r->json = bad && list && good ? "true" : "false";
                        return TABD_OK;
                    }
                    r->json = "{not json";
                    return TABD_OK;
                }
                """, fields: ".init = sloppy_init, .call = sloppy_call,"), named: "sloppy.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "sloppy.so")])
            let c = try controller(["home"])
            let emitted = host.call(plugin: "sloppy", method: "emit", argsJSON: "{}", controller: c)
            #expect(try emitted.get() == "true")
            #expect(emitted.events.map(\.dataJSON) == [#"{"a":[1,2]}"#])
            let error = try #require(host.call(plugin: "sloppy", method: "other", argsJSON: "{}", controller: c).failure)
            #expect(error.message.contains("with JSON tabd does not accept"))
        }

        /// reload re-initialises a listed plugin with its new settings (same code, stats kept).
        @Test func reloadReinitialisesWithNewSettings() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret", "private"])
            #expect(tapDenial(&c, "secret", policy: host) != nil)
            try host.reload([PluginSpec(path: "hello.so", configJSON: #"{"prefix":"private"}"#)])
            #expect(tapDenial(&c, "secret", policy: host) == nil)
            #expect(tapDenial(&c, "private", policy: host)?.plugin == "hello")
            let s = try #require(host.stats.first)
            #expect(s.hooks.first { $0.hook == .initialize }?.calls == 2)
            #expect(s.hooks.first { $0.hook == .fini }?.calls == 1)
            #expect(s.denials == 2)
        }

        /// reload stops consulting plugins no longer listed, and loads new ones.
        @Test func reloadDropsUnlistedAndAddsNew() throws {
            let dir = try buildHello()
            try compilePlugin(gatePlugin(name: "no", result: "TABD_DENY", reason: "closed"), named: "no.so", in: dir)
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret"])
            try host.reload([PluginSpec(path: "no.so")])
            #expect(host.plugins.map(\.name) == ["no"])
            #expect(log.contains("plugin stopped: it is no longer configured"))
            #expect(tapDenial(&c, "secret", policy: host)?.plugin == "no")
            try host.reload([])
            #expect(host.plugins.isEmpty)
            #expect(tapDenial(&c, "secret", policy: host) == nil)
            #expect(host.call(plugin: "hello", method: "status", argsJSON: "{}", controller: c).failure?.code == .notFound)
        }

        /// reload can change the plugin directories (a directory created after start counts).
        @Test func reloadWithNewDirectories() throws {
            let helloDir = try buildHello()
            let (host, _) = makeHost([helloDir + "/not-yet"])
            try host.load([PluginSpec(path: "hello.so")])
            #expect(host.status("hello.so")?.loaded == false)
            try FileManager.default.createDirectory(atPath: helloDir + "/not-yet", withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: helloDir + "/hello.so", toPath: helloDir + "/not-yet/hello.so")
            try host.reload([PluginSpec(path: "hello.so")])
            #expect(host.status("hello")?.loaded == true)
            #expect(host.status("hello")?.path == helloDir + "/not-yet/hello.so")
            try host.reload([PluginSpec(path: "hello.so")], directories: [])
            #expect(host.status("hello.so")?.error?.contains("no plugin directory is configured") == true)
        }

        /// A required plugin that cannot start on reload makes reload throw and changes
        /// nothing: the running instance goes on deciding, and a later good reload is taken.
        @Test func requiredPluginFailingOnReloadChangesNothing() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so", required: true)])
            var c = try controller(["home", "news", "secret"])
            #expect(tapDenial(&c, "secret", policy: host)?.plugin == "hello")
            #expect(throws: PluginError.self) {
                try host.reload([PluginSpec(path: "hello.so", required: true, configJSON: #"{"prefix":""}"#)])
            }
            #expect(tapDenial(&c, "news", policy: host) == nil)
            #expect(tapDenial(&c, "secret", policy: host)?.plugin == "hello")
            #expect(host.status("hello")?.loaded == true)
            #expect(host.status("hello")?.error == nil)
            let s = try #require(host.stats.first)
            #expect(s.hooks.first { $0.hook == .initialize }?.calls == 1, "the running instance was not initialised again")
            #expect(s.hooks.first { $0.hook == .fini }?.calls == nil, "the running instance was not stopped")
            try host.reload([PluginSpec(path: "hello.so", required: true, configJSON: #"{"prefix":"news"}"#)])
            #expect(tapDenial(&c, "news", policy: host)?.plugin == "hello")
            #expect(tapDenial(&c, "secret", policy: host) == nil)
        }

        /// A reload that keeps a plugin's file and settings keeps its running instance: no
        /// fini, no init, and what it holds survives.
        @Test func reloadWithTheSameSettingsKeepsTheInstance() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            var c = try controller(["home", "secret"])
            #expect(try host.call(plugin: "hello", method: "unlock", argsJSON: #"{"code":"open-sesame"}"#, controller: c).get() == #"{"unlocked":true}"#)
            #expect(tapDenial(&c, "secret", policy: host) == nil)
            try host.reload([PluginSpec(path: "hello.so")])
            #expect(tapDenial(&c, "secret", policy: host) == nil, "still unlocked: the instance was kept")
            let s = try #require(host.stats.first)
            #expect(s.hooks.first { $0.hook == .initialize }?.calls == 1)
            #expect(s.hooks.first { $0.hook == .fini }?.calls == nil)
        }

        /// Status, decision and stats records render as JSON objects the server can embed.
        @Test func recordsRenderAsJSON() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so"), PluginSpec(path: "absent.so")])
            let json = host.plugins.map(\.json)
            #expect(json[0].hasPrefix(#"{"name":"hello","version":"1.0.0","description":"Locks tabs whose id starts with a prefix until its unlock method is called.","path":""#))
            #expect(json[0].hasSuffix(#""loaded":true,"error":null,"required":false,"abi":"\#(headerABI)","stale":false,"status":"loaded","isolation":"none","crashes":0,"timeouts":0,"restarts":0}"#))
            #expect(json[1].contains(#""loaded":false,"error":"no file named 'absent.so' in the plugin directories"#))
        }
    }
}
