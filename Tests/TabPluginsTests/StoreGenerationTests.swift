// store_generation (plugin ABI 1.12): the number moves with every change of the plugin's
// store — its own writes, tabd putting keys back (a commit that failed), the store adopted
// from disk — and with nothing else: reads, key listings and refused writes leave it, so a
// plugin that keeps what it read while the number stands is never wrong.

import Foundation
import TabCore
import TabPlugins
import Testing

extension PluginTests {
    @Suite struct StoreGeneration {
        /// A plugin whose `call` runs one store operation (the method) and answers the
        /// generation after it: "g" nothing, "get", "keys", "put", "big" (a value over the
        /// limit: refused), "delete".
        static let source = cPlugin(name: "gen", hooks: """
            #include <stdio.h>
            static const tabd_host *host;
            static char json[64];
            static char big[TABD_STORE_MAX_VALUE_BYTES + 2];
            static tabd_result gen_init(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                (void)config; (void)state; (void)reply;
                host = h;
                return TABD_HOST_HAS(h, store_generation) ? TABD_OK : TABD_ERROR;
            }
            static tabd_result gen_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
                (void)state; (void)c; (void)args;
                const char *value = NULL;
                int status = 0;
                if (strcmp(method, "get") == 0) status = host->store_get(host, "k", &value);
                else if (strcmp(method, "keys") == 0) status = host->store_key(host, 0, &value);
                else if (strcmp(method, "put") == 0) status = host->store_put(host, "k", "v");
                else if (strcmp(method, "big") == 0) { memset(big, 'x', sizeof big - 1); status = host->store_put(host, "k", big); }
                else if (strcmp(method, "delete") == 0) status = host->store_delete(host, "k");
                snprintf(json, sizeof json, "[%llu,%d]", (unsigned long long)host->store_generation(host), status);
                reply->json = json;
                return TABD_OK;
            }
            """, fields: ".init = gen_init, .call = gen_call,")

        @Test func movesWithEveryChangeAndWithNothingElse() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(Self.source, named: "gen.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "gen.so", required: true)])
            let c = try controller(["home"])
            /// The generation after `method`, and the store status it answered.
            func after(_ method: String) throws -> (UInt64, Int) {
                let answer = try host.call(plugin: "gen", method: method, argsJSON: "{}", controller: c).get()
                let parts = answer.dropFirst().dropLast().split(separator: ",")
                return (try #require(UInt64(parts[0]), "\(answer)"), try #require(Int(parts[1]), "\(answer)"))
            }
            let (g0, _) = try after("g")
            #expect(g0 != 0, "never 0")
            #expect(try after("get") == (g0, 1), "a read of a missing key leaves it")
            let (g1, put) = try after("put")
            #expect(put == 0 && g1 != g0, "its own put moves it")
            #expect(try after("get") == (g1, 0), "a read leaves it")
            #expect(try after("keys") == (g1, 0), "listing the keys leaves it")
            #expect(try after("big") == (g1, 2), "a refused write (too large) leaves it")
            // tabd putting the key back (the commit of the turn that wrote could not be made).
            host.restoreStore([("gen", "k", nil)])
            let (g2, missing) = try after("get")
            #expect(missing == 1 && g2 != g1, "an undo moves it (and the read sees the undo)")
            let (g3, _) = try after("put")
            let (g4, deleted) = try after("delete")
            #expect(deleted == 0 && g4 != g3 && g3 != g2, "put and delete each move it")
            // The store read from disk again (a restart's state, before init): a new number,
            // even where the values are the same as before.
            host.adoptStore(["gen": [:]])
            let (g5, _) = try after("g")
            #expect(![g0, g1, g2, g3, g4].contains(g5), "an adopted store answers a number never seen: \(g5)")
        }
    }
}
