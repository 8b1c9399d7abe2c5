/*
 * storeabuse.c — a plugin that pushes the store and the timers (plugin ABI 1.6) past their
 * limits through `call`, and says what tabd answered: HostilePluginTests' storeAndTimers.
 *
 *   put {key_bytes, value_bytes}  → {"status": n}             one write of that size
 *   fill                          → {"ok": n, "status": s}    new keys until one is refused
 *   flood                         → {"ok": n, "status": s}    64 KiB to one key until refused
 *   timers                        → {"ok": n}                 arms timers until one is refused
 *   get {key}                     → {"status": n, "bytes": n}
 *   pingpong                      → {}  from then on, every selection change asks for 16
 *                                       more, between tabs "a" and "b"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabd/policy.h>

static const tabd_host *H;
static int pingpong;
static long changes;

static void abuse_selection_changed(void *state, const tabd_controller *controller, const tabd_selection_change *change) {
    (void)state; (void)change;
    changes++;
    if (!pingpong) return;
    for (int i = 0; i < 16; i++) H->request_select(H, controller, i % 2 ? "a" : "b");
}

static tabd_result abuse_init(const tabd_host *host, const char *config, void **state, tabd_reply *reply) {
    (void)config; (void)state;
    if (!TABD_HOST_HAS(host, cancel_timer)) { reply->message = "needs plugin ABI 1.6"; return TABD_ERROR; }
    H = host;
    return TABD_OK;
}

static char *filled(size_t n, char c) {
    char *p = malloc(n + 1);
    memset(p, c, n);
    p[n] = 0;
    return p;
}

static tabd_result abuse_call(void *state, const tabd_controller *controller, const char *method,
                              const char *args, tabd_reply *reply) {
    static char out[128];
    (void)state; (void)controller;
    if (strcmp(method, "put") == 0) {
        int64_t k = 1, v = 1;
        H->json_get_int(H, args, "key_bytes", &k);
        H->json_get_int(H, args, "value_bytes", &v);
        char *key = filled((size_t)k, 'k'), *value = filled((size_t)v, 'v');
        snprintf(out, sizeof out, "{\"status\":%d}", (int)H->store_put(H, key, value));
        free(key); free(value);
    } else if (strcmp(method, "fill") == 0) {
        int ok = 0;
        tabd_store_status s = TABD_STORE_OK;
        char key[32];
        for (ok = 0; ok < 5000; ok++) {
            snprintf(key, sizeof key, "fill-%d", ok);
            if ((s = H->store_put(H, key, "x")) != TABD_STORE_OK) break;
        }
        snprintf(out, sizeof out, "{\"ok\":%d,\"status\":%d}", ok, (int)s);
    } else if (strcmp(method, "flood") == 0) {
        char *value = filled(60000, 'f');
        int ok = 0;
        tabd_store_status s = TABD_STORE_OK;
        for (ok = 0; ok < 100000; ok++)
            if ((s = H->store_put(H, "flood", value)) != TABD_STORE_OK) break;
        free(value);
        snprintf(out, sizeof out, "{\"ok\":%d,\"status\":%d}", ok, (int)s);
    } else if (strcmp(method, "pingpong") == 0) {
        pingpong = 1;
        snprintf(out, sizeof out, "{\"changes\":%ld}", changes);
    } else if (strcmp(method, "tiny") == 0) {
        /* The smallest writes there are, over and over: one journal record each. */
        int ok = 0;
        tabd_store_status s = TABD_STORE_OK;
        for (ok = 0; ok < 2000000; ok++)
            if ((s = H->store_put(H, "t", "")) != TABD_STORE_OK) break;
        snprintf(out, sizeof out, "{\"ok\":%d,\"status\":%d}", ok, (int)s);
    } else if (strcmp(method, "timers") == 0) {
        int ok = 0;
        char name[32];
        for (int i = 0; i < 1000; i++) {
            snprintf(name, sizeof name, "t%d", i);
            if (H->set_timer(H, NULL, name, 3600000) == TABD_OK) ok++;
        }
        snprintf(out, sizeof out, "{\"ok\":%d}", ok);
    } else if (strcmp(method, "get") == 0) {
        const char *key = "", *value = NULL;
        H->json_get_string(H, args, "key", &key);
        tabd_store_status s = H->store_get(H, key, &value);
        snprintf(out, sizeof out, "{\"status\":%d,\"bytes\":%zu}", (int)s, value ? strlen(value) : 0);
    } else {
        return TABD_UNKNOWN_METHOD;
    }
    reply->json = out;
    return TABD_OK;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "storeabuse",
    .version = "1.0.0",
    .description = "Pushes the store and the timers past their limits.",
    .init = abuse_init,
    .call = abuse_call,
    .selection_changed = abuse_selection_changed,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
