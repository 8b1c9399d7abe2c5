/*
 * timerflood.c — a plugin that keeps tabd's loop busy with its timers and its store (issue
 * 43): TIMERS timers (default 64) every MS milliseconds (default 1), each writing one value
 * of VALUE_BYTES (default 64 KiB) to its store whenever it fires, and arming itself again.
 * The keys cycle over KEYS (default 15: 15 values of 64 KiB fit the store's 1 MiB), so the
 * store stays within its limits while the journal takes every write. ShutdownTests stops
 * tabd under it; `make bench-hostile` measures what it costs other clients.
 *
 *   status → {"fired": n, "refused": n}   timer runs so far, and writes tabd refused
 *
 * Its fini logs "timerflood fini ran" (at notice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabd/policy.h>

#ifndef TIMERS
#define TIMERS 64
#endif
#ifndef MS
#define MS 1
#endif
#ifndef VALUE_BYTES
#define VALUE_BYTES 65536
#endif
#ifndef KEYS
#define KEYS 15
#endif

static const tabd_host *H;
static char *value;
static unsigned long fired, refused;

static tabd_result flood_init(const tabd_host *host, const char *config, void **state, tabd_reply *reply) {
    (void)config; (void)state;
    if (!TABD_HOST_HAS(host, cancel_timer)) { reply->message = "needs plugin ABI 1.6"; return TABD_ERROR; }
    H = host;
    if (value == NULL) {
        value = malloc(VALUE_BYTES + 1);
        memset(value, 'v', VALUE_BYTES);
        value[VALUE_BYTES] = 0;
    }
    char name[16];
    for (int i = 0; i < TIMERS; i++) {
        snprintf(name, sizeof name, "t%d", i);
        H->set_timer(H, NULL, name, MS);
    }
    return TABD_OK;
}

static void flood_fini(void *state) {
    (void)state;
    H->log(H, TABD_LOG_NOTICE, "timerflood fini ran");
}

static void flood_timer(void *state, const tabd_controller *controller, const char *name) {
    (void)state; (void)controller;
    char key[16];
    snprintf(key, sizeof key, "v%lu", fired % KEYS);
    fired++;
    if (H->store_put(H, key, value) != TABD_STORE_OK) refused++;
    H->set_timer(H, NULL, name, MS);
}

static tabd_result flood_call(void *state, const tabd_controller *controller, const char *method,
                              const char *args, tabd_reply *reply) {
    static char out[96];
    (void)state; (void)controller; (void)args;
    if (strcmp(method, "status") != 0) return TABD_UNKNOWN_METHOD;
    snprintf(out, sizeof out, "{\"fired\":%lu,\"refused\":%lu}", fired, refused);
    reply->json = out;
    return TABD_OK;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "timerflood",
    .version = "1.0.0",
    .description = "Keeps the loop busy: many fast timers, each writing a big store value.",
    .init = flood_init,
    .fini = flood_fini,
    .call = flood_call,
    .timer = flood_timer,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
