// Plugin ABI 1.11 (SEMANTICS R15.20, R15.21, R15.33): a split's proposals — the top column as
// it collapses, the display mode as it expands — folded through the plugins in load order
// (an answer replaces the proposal; abstaining, an invalid answer or a failure keeps it) and
// recorded for `explain`; and `notify`, the generic hook that tells every R15 event. Against
// PluginHost with real compiled plugins, in process and in a real helper process.

import Foundation
import TabCore
@testable import TabPlugins
import Testing

/// A split plugin: top_column_for_collapsing answers `column` and display_mode_for_expanding
/// answers `mode` (C expressions: a string literal, or NULL to abstain), returning `result`
/// (nil: TABD_OK for an answer, TABD_ABSTAIN for NULL); `crash` dereferences NULL in all
/// three hooks. notify keeps each event's "name@controller"; the `seen` method answers
/// {"asked":n,"collapse":"controller/style/proposed","expand":"controller/style/behavior/proposed","notes":"…"}.
func splitPlugin(name: String, column: String = "NULL", mode: String = "NULL", result: String? = nil, crash: Bool = false) -> String {
    let answer = result.map { "return \($0);" } ?? "return value == NULL ? TABD_ABSTAIN : TABD_OK;"
    return cPlugin(name: name, hooks: """
        #include <stdio.h>
        static int asked;
        static char collapse_seen[256], expand_seen[256], notes[4096];
        static tabd_result answer(const char *value, const char **out) {
            \(crash ? "{ volatile int *p = NULL; *p = 1; }" : "")
            *out = value;
            \(answer)
        }
        static tabd_result collapse(void *state, const tabd_split_collapse *c, const char **column) {
            (void)state;
            asked++;
            if (c->struct_size < sizeof(tabd_split_collapse) || c->controller == NULL || c->style == NULL || c->proposed == NULL)
                return TABD_ERROR;
            snprintf(collapse_seen, sizeof collapse_seen, "%s/%s/%s", c->controller, c->style, c->proposed);
            return answer(\(column), column);
        }
        static tabd_result expand(void *state, const tabd_split_expand *e, const char **mode) {
            (void)state;
            asked++;
            if (e->struct_size < sizeof(tabd_split_expand) || e->controller == NULL || e->style == NULL || e->behavior == NULL || e->proposed == NULL)
                return TABD_ERROR;
            snprintf(expand_seen, sizeof expand_seen, "%s/%s/%s/%s", e->controller, e->style, e->behavior, e->proposed);
            return answer(\(mode), mode);
        }
        static tabd_result note(void *state, const tabd_notification *n) {
            (void)state;
            \(crash ? "{ volatile int *p = NULL; *p = 1; }" : "")
            size_t used = strlen(notes);
            int whole = n->struct_size >= sizeof(tabd_notification) && n->json != NULL && strlen(n->json) == n->json_length;
            snprintf(notes + used, sizeof notes - used, "%s%s@%s", used > 0 ? ";" : "", whole ? n->name : "BAD", n->controller);
            return TABD_OK;
        }
        static char json[8192];
        static tabd_result call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
            (void)state; (void)c; (void)method; (void)args;
            snprintf(json, sizeof json, "{\\"asked\\":%d,\\"collapse\\":\\"%s\\",\\"expand\\":\\"%s\\",\\"notes\\":\\"%s\\"}",
                     asked, collapse_seen, expand_seen, notes);
            reply->json = json;
            return TABD_OK;
        }
        """, fields: ".top_column_for_collapsing = collapse, .display_mode_for_expanding = expand, .notify = note, .call = call,")
}

extension PluginTests {
    @Suite struct SplitProposals {
        /// What `plugin` saw: how often a proposal hook asked it, the last collapse and expand
        /// it was asked about, and the events it was told.
        static func seen(_ host: PluginHost, _ plugin: String) throws -> (asked: Int, collapse: String, expand: String, notes: String) {
            let text = try host.call(plugin: plugin, method: "seen", argsJSON: "{}", controller: try controller(["home"])).get()
            let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            return (o["asked"] as? Int ?? -1, o["collapse"] as? String ?? "", o["expand"] as? String ?? "", o["notes"] as? String ?? "")
        }

        /// Plugins `specs` (name, C source) compiled and loaded in that order.
        static func host(_ plugins: [(String, String)], isolated: Bool = false) throws -> PluginHost {
            let dir = try temporaryDirectory()
            for (name, source) in plugins { try compilePlugin(source, named: name + ".so", in: dir) }
            if isolated { RemotePlugin.executable = try referencePlugin("tabd") }
            let (host, _) = makeHost([dir])
            try host.load(plugins.map { PluginSpec(path: $0.0 + ".so", isolation: isolated ? .process : .none, deadlineMilliseconds: 60_000) })
            return host
        }

        static func lastRecord(_ host: PluginHost, _ kind: DecisionKind) throws -> DecisionRecord {
            try #require(host.explain(ExplainQuery(kind: kind)).last)
        }

        /// Each plugin sees the proposal the ones before it left, and an answer replaces it: the
        /// last answer wins, so load order decides. `explain` shows every answer, the split, and
        /// the proposal before and after.
        @Test("R15.33 top-column-for-collapsing is asked in load order, each seeing the current proposal") func collapseFoldsInLoadOrder() throws {
            let sources = [("list", splitPlugin(name: "list", column: #""primary""#)),
                           ("quiet", splitPlugin(name: "quiet")),
                           ("detail", splitPlugin(name: "detail", column: #""secondary""#))]
            let host = try Self.host(sources)
            #expect(host.status("list")?.hooks == ["call", "top_column_for_collapsing", "display_mode_for_expanding", "notify"])
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "mail") == .secondary)
            #expect(try Self.seen(host, "list").collapse == "mail/double/secondary")
            #expect(try Self.seen(host, "quiet").collapse == "mail/double/primary", "the second plugin sees the first one's answer")
            #expect(try Self.seen(host, "detail").collapse == "mail/double/primary", "abstaining kept it")
            let record = try Self.lastRecord(host, .topColumnForCollapsing)
            #expect(record.controller == "mail")
            #expect(record.answers.map(\.plugin) == ["list", "quiet", "detail"])
            #expect(record.answers.map(\.answer) == [.proposal("primary"), .abstain, .proposal("secondary")])
            #expect(record.final == .proposal("secondary"))
            #expect(record.json.contains(#""kind":"top_column_for_collapsing","style":"double","proposed":"secondary","answers":[{"plugin":"list","answer":"proposal","proposal":"primary","ns":"#),
                    "\(record.json)")
            #expect(record.json.hasSuffix(#""result":"secondary"}"#), "\(record.json)")
            #expect(host.explain(ExplainQuery(kind: .mayOpenDrawer)).isEmpty && host.explain(ExplainQuery(kind: .displayModeForExpanding)).isEmpty,
                    "its own kind")

            let reversed = try Self.host(sources.reversed())
            #expect(reversed.topColumnForCollapsing(proposed: .secondary, style: .triple, controller: "mail") == .primary)
            #expect(try Self.seen(reversed, "list").collapse == "mail/triple/secondary")
        }

        /// An answer the split cannot take is ignored, the proposal kept (not a failure):
        /// `compact`, `supplementary` on a double split. On a triple split `supplementary` is one.
        @Test("R15.33 an invalid column keeps the proposal") func invalidColumnsKeepTheProposal() throws {
            let host = try Self.host([("compact", splitPlugin(name: "compact", column: #""compact""#)),
                                      ("middle", splitPlugin(name: "middle", column: #""supplementary""#)),
                                      ("watch", splitPlugin(name: "watch"))])
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
            #expect(try Self.seen(host, "watch").collapse == "s/double/secondary")
            let record = try Self.lastRecord(host, .topColumnForCollapsing)
            #expect(record.answers.map(\.kind) == ["invalid", "invalid", "abstain"])
            #expect(record.answers.first?.answer == .invalid("compact", why: "only a compact child is on top as compact, and tabd puts it there unasked"))
            #expect(record.answers[1].answer == .invalid("supplementary", why: "a double split has no supplementary column"))
            #expect(record.json.contains(#""answer":"invalid","proposal":"supplementary","reason":"a double split has no supplementary column""#))
            #expect(record.final == .proposal("secondary"))
            #expect(host.stats.allSatisfy { $0.failures == 0 }, "an invalid answer is not a failure")

            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .triple, controller: "s") == .supplementary)
            #expect(try Self.seen(host, "watch").collapse == "s/triple/supplementary")
        }

        /// A failing plugin — TABD_ERROR, a value outside the enum, TABD_OK with no answer or
        /// with a name that is no column — keeps the proposal; the failure is counted and shown;
        /// the plugins after it are asked as usual.
        @Test("R15.33 a failing plugin keeps the proposal") func failuresKeepTheProposal() throws {
            let host = try Self.host([("erring", splitPlugin(name: "erring", column: #""primary""#, result: "TABD_ERROR")),
                                      ("odd", splitPlugin(name: "odd", column: #""primary""#, result: "(tabd_result)42")),
                                      ("empty", splitPlugin(name: "empty", result: "TABD_OK")),
                                      ("sideways", splitPlugin(name: "sideways", column: #""sideways""#)),
                                      ("watch", splitPlugin(name: "watch"))])
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
            #expect(try Self.seen(host, "watch").collapse == "s/double/secondary")
            let record = try Self.lastRecord(host, .topColumnForCollapsing)
            #expect(record.answers.map(\.answer) == [
                .failed("it returned TABD_ERROR"), .failed("it returned 42, not TABD_OK or TABD_ABSTAIN"),
                .failed("it returned TABD_OK without an answer"), .failed("it answered 'sideways', which is not a column"), .abstain,
            ])
            #expect(record.final == .proposal("secondary"))
            #expect(host.stats.map(\.failures) == [1, 1, 1, 1, 0])
        }

        /// display_mode_for_expanding: `automatic`, a mode the behavior does not allow and a
        /// two-beside mode on a double split are ignored; an allowed one replaces the proposal.
        @Test("R15.33 display-mode-for-expanding folds too, and a mode the split cannot take is ignored") func expandFoldsAndIgnoresWhatTheSplitCannotTake() throws {
            let host = try Self.host([("auto", splitPlugin(name: "auto", mode: #""automatic""#)),
                                      ("over", splitPlugin(name: "over", mode: #""one_over""#)),
                                      ("two", splitPlugin(name: "two", mode: #""two_beside""#)),
                                      ("alone", splitPlugin(name: "alone", mode: #""secondary_only""#)),
                                      ("watch", splitPlugin(name: "watch"))])
            #expect(host.displayModeForExpanding(proposed: .oneBeside, behavior: .tile, style: .double, controller: "s") == .secondaryOnly)
            #expect(try Self.seen(host, "auto").expand == "s/double/tile/one_beside")
            #expect(try Self.seen(host, "watch").expand == "s/double/tile/secondary_only")
            let record = try Self.lastRecord(host, .displayModeForExpanding)
            #expect(record.answers.map(\.answer) == [
                .invalid("automatic", why: "automatic is a preference, never a split's display mode"),
                .invalid("one_over", why: "the split's behavior, tile, does not allow it"),
                .invalid("two_beside", why: "a double split shows at most one column beside the secondary"),
                .proposal("secondary_only"), .abstain,
            ])
            #expect(record.json.contains(#""kind":"display_mode_for_expanding","style":"double","behavior":"tile","proposed":"one_beside""#), "\(record.json)")
            #expect(record.final == .proposal("secondary_only"))

            let triple = try Self.host([("two", splitPlugin(name: "two", mode: #""two_over""#)), ("tile", splitPlugin(name: "tile", mode: #""two_beside""#))])
            #expect(triple.displayModeForExpanding(proposed: .oneOver, behavior: .overlay, style: .triple, controller: "s") == .twoOver)
            #expect(try Self.lastRecord(triple, .displayModeForExpanding).answers.map(\.kind) == ["proposal", "invalid"])
        }

        /// No plugin with the hooks: the proposal as it is, nobody asked, nothing recorded. A
        /// plugin built against 1.10 (its descriptor ends before the 1.11 hooks) is not asked,
        /// whatever lies past its struct_size.
        @Test("R15.33 without the hooks the proposal stands") func withoutTheHooksTheProposalStands() throws {
            let host = try Self.host([("taps", gatePlugin(name: "taps", result: "TABD_DENY"))])
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
            #expect(host.displayModeForExpanding(proposed: .oneOver, behavior: .overlay, style: .double, controller: "s") == .oneOver)
            #expect(host.explain(limit: 10).isEmpty)
            #expect(!host.hearsNotifications)

            let old = try Self.host([("old", splitPlugin(name: "old", column: #""primary""#, mode: #""secondary_only""#)
                .replacingOccurrences(of: ".struct_size = sizeof(tabd_policy_descriptor)",
                                      with: ".struct_size = offsetof(tabd_policy_descriptor, top_column_for_collapsing)"))])
            #expect(old.status("old")?.hooks == ["call"])
            #expect(old.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "s") == .secondary)
            #expect(old.displayModeForExpanding(proposed: .oneBeside, behavior: .tile, style: .double, controller: "s") == .oneBeside)
            #expect(!old.hearsNotifications)
            #expect(try Self.seen(old, "old").asked == 0)
        }

        /// hello.c puts the primary column on top (and abstains when it is proposed already);
        /// it leaves the display mode alone.
        @Test("R15.33 hello.c answers primary on collapse") func helloPrefersThePrimaryColumn() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .triple, controller: "mail") == .primary)
            #expect(try Self.lastRecord(host, .topColumnForCollapsing).answers.map(\.answer) == [.proposal("primary")])
            #expect(host.topColumnForCollapsing(proposed: .primary, style: .double, controller: "mail") == .primary)
            #expect(try Self.lastRecord(host, .topColumnForCollapsing).answers.map(\.answer) == [.abstain])
            #expect(host.displayModeForExpanding(proposed: .twoDisplace, behavior: .displace, style: .triple, controller: "mail") == .twoDisplace)
        }

        /// notify: every plugin with the hook is told each event, in load order, with the name,
        /// the controller and the JSON (json_length its length); one without it is not.
        @Test("R15.33 the generic notify hook tells every plugin that has it") func notifyTellsEveryPluginThatHasIt() throws {
            let host = try Self.host([("one", splitPlugin(name: "one")), ("taps", gatePlugin(name: "taps", result: "TABD_ALLOW")),
                                      ("two", splitPlugin(name: "two"))])
            #expect(host.hearsNotifications)
            for (name, controller) in [("appearance", "root"), ("drawer_changed", "root")] {
                let json = #"{"event":"\#(name)","controller":"\#(controller)","seq":1,"data":{}}"#
                let length = json.utf8.count
                var effects: [PolicyEffect] = []
                json.withCString { host.notifyEvent(name, controller: controller, json: $0, length: length, effects: &effects) }
                #expect(effects.isEmpty)
            }
            #expect(try Self.seen(host, "one").notes == "appearance@root;drawer_changed@root")
            #expect(try Self.seen(host, "two").notes == "appearance@root;drawer_changed@root")
            #expect(host.stats.first { $0.name == "two" }?.hooks.first { $0.hook == .notify }?.calls == 2)
        }

        // MARK: Isolated (a real helper process: the built tabd's --plugin-host)

        /// An isolated plugin's answers cross the helper: the proposal it is shown, its answer
        /// (taken or invalid), the events it is told.
        @Test("R15.33 isolated plugins answer the proposals through their helper") func isolatedPluginsAnswerThroughTheirHelper() throws {
            let host = try Self.host([("list", splitPlugin(name: "list", column: #""primary""#, mode: #""one_over""#)),
                                      ("watch", splitPlugin(name: "watch"))], isolated: true)
            defer { host.shutdown() }
            #expect(host.status("list")?.isolation == .process)
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "mail") == .primary)
            #expect(try Self.seen(host, "list").collapse == "mail/double/secondary")
            #expect(try Self.seen(host, "watch").collapse == "mail/double/primary")
            #expect(host.displayModeForExpanding(proposed: .oneBeside, behavior: .tile, style: .double, controller: "mail") == .oneBeside)
            #expect(try Self.lastRecord(host, .displayModeForExpanding).answers.first?.answer == .invalid("one_over", why: "the split's behavior, tile, does not allow it"))
            #expect(host.displayModeForExpanding(proposed: .oneBeside, behavior: .overlay, style: .double, controller: "mail") == .oneOver)
            #expect(try Self.seen(host, "watch").expand == "mail/double/overlay/one_over")

            let json = #"{"event":"drawer_changed","controller":"root","seq":3,"data":{"open_side":"left"}}"#
            var effects: [PolicyEffect] = []
            json.withCString { host.notifyEvent("drawer_changed", controller: "root", json: $0, length: json.utf8.count, effects: &effects) }
            #expect(try Self.seen(host, "list").notes == "drawer_changed@root")
            #expect(host.stats.allSatisfy { $0.crashes == 0 && $0.failures == 0 })
        }

        /// An isolated plugin whose helper crashes in a proposal hook keeps the proposal (a
        /// failure, counted, shown as such); in notify it changes nothing. The plugins after it
        /// are asked and told as usual.
        @Test("R15.33 an isolated plugin that crashes keeps the proposal") func isolatedCrashKeepsTheProposal() throws {
            let host = try Self.host([("crashy", splitPlugin(name: "crashy", column: #""primary""#, crash: true)),
                                      ("watch", splitPlugin(name: "watch"))], isolated: true)
            defer { host.shutdown() }
            #expect(host.topColumnForCollapsing(proposed: .secondary, style: .double, controller: "mail") == .secondary)
            #expect(try Self.seen(host, "watch").collapse == "mail/double/secondary")
            let record = try Self.lastRecord(host, .topColumnForCollapsing)
            #expect(record.answers.map(\.answer) == [.failed("its helper crashed or timed out"), .abstain])
            let crashy = try #require(host.stats.first { $0.name == "crashy" })
            #expect(crashy.crashes == 1 && crashy.failures == 1)

            let json = #"{"event":"appearance","controller":"root","seq":4,"data":{}}"#
            var effects: [PolicyEffect] = []
            json.withCString { host.notifyEvent("appearance", controller: "root", json: $0, length: json.utf8.count, effects: &effects) }
            #expect(try Self.seen(host, "watch").notes == "appearance@root")
            #expect(host.stats.first { $0.name == "watch" }?.crashes == 0)
        }
    }
}
