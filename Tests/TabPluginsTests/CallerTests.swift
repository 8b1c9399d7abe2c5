// The caller host function (ABI 1.1): a call hook learns which client asked; no other hook
// does, and a plugin's smaller tabd_caller gets only the fields it has.

import Foundation
import TabCore
import TabPlugins
import Testing

extension PluginTests {
    @Suite struct Caller {
        static let client = PluginCaller(uid: 1000, gid: 100, pid: 4242)

        /// hello.c's whoami answers the caller's uid, gid and pid during a call that has one
        /// (and since ABI 1.5 whether tabd counts it as an admin, and its groups), and "no
        /// caller" for a call without (and after one with: nothing stays behind).
        @Test func callHookSeesItsCaller() throws {
            let (host, _) = makeHost([try buildHello()])
            try host.load([PluginSpec(path: "hello.so")])
            let c = try controller(["home"])
            let whoami = { (caller: PluginCaller?) in
                try host.call(plugin: "hello", method: "whoami", argsJSON: "{}", controller: c, caller: caller).get()
            }
            #expect(try whoami(Self.client) == #"{"uid":1000,"gid":100,"pid":4242,"admin":false,"groups":[]}"#)
            #expect(try whoami(PluginCaller(uid: 0, gid: 0, pid: 1, isAdmin: true, groups: [10, 27])) == #"{"uid":0,"gid":0,"pid":1,"admin":true,"groups":[10,27]}"#)
            #expect(try whoami(nil) == #"{"uid":null}"#)
        }

        /// Outside a call hook there is no caller: should_select asks during a tap (right
        /// after a call that had one) and gets 0. A tabd_caller compiled smaller than tabd's
        /// (here: up to uid) gets only the fields that fit.
        @Test func noCallerOutsideCallsAndOnlyTheFieldsThatFit() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "probe", hooks: """
                static const tabd_host *host;
                static char json[128];
                static tabd_result probe_init(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                    (void)config; (void)state; (void)reply;
                    host = h;
                    return TABD_HOST_HAS(h, caller) && h->abi_minor >= 1 ? TABD_OK : TABD_ERROR;
                }
                static tabd_result probe_select(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
                    (void)state; (void)c; (void)cand;
                    tabd_caller who = { .struct_size = sizeof who };
                    reply->reason = host->caller(host, &who) ? "caller" : "no caller";
                    return TABD_DENY;
                }
                static tabd_result probe_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
                    (void)state; (void)c; (void)method; (void)args;
                    tabd_caller who = { .struct_size = offsetof(tabd_caller, gid), .uid = 7, .gid = 7, .pid = 7 };
                    int found = host->caller(host, &who);
                    snprintf(json, sizeof json, "[%d,%u,%u,%d]", found, who.uid, who.gid, who.pid);
                    reply->json = json;
                    return TABD_OK;
                }
                """, fields: ".init = probe_init, .should_select = probe_select, .call = probe_call,")
                .replacingOccurrences(of: "#include <string.h>", with: "#include <string.h>\n#include <stdio.h>"),
                named: "probe.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "probe.so", required: true)])
            var c = try controller(["home", "news"])
            #expect(try host.call(plugin: "probe", method: "m", argsJSON: "{}", controller: c, caller: Self.client).get() == "[1,1000,7,7]")
            #expect(tapDenial(&c, "news", policy: host)?.reason == "no caller")
            #expect(try host.call(plugin: "probe", method: "m", argsJSON: "{}", controller: c).get() == "[0,7,7,7]")
        }
    }
}
