/*
 * A notify plugin for the end-to-end tests (plugin ABI 1.11, SEMANTICS R15.33): it keeps the
 * JSON of every event tabd tells it, in order, and answers them to its `seen` method as
 * {"events":[…],"bad":n} (`bad`: notifications whose struct did not hold what the header
 * promises: the size, a JSON of json_length bytes naming the event and its controller).
 *
 *   -DCRASH_ON='"drawer_changed"'   notify dereferences NULL when told that event
 */
#include <stdio.h>
#include <string.h>

#include <tabd/policy.h>

static char events[1 << 16];
static size_t used;
static int bad;

static tabd_result notes_notify(void *state, const tabd_notification *n) {
    (void)state;
#ifdef CRASH_ON
    if (strcmp(n->name, CRASH_ON) == 0) { volatile int *p = NULL; *p = 1; }
#endif
    if (n->struct_size < sizeof(tabd_notification) || n->name == NULL || n->controller == NULL || n->json == NULL
        || strlen(n->json) != n->json_length || strstr(n->json, n->name) == NULL || strstr(n->json, n->controller) == NULL) {
        bad++;
        return TABD_OK;
    }
    if (used + n->json_length + 2 >= sizeof events) { bad++; return TABD_OK; }
    if (used > 0) events[used++] = ',';
    memcpy(events + used, n->json, n->json_length);
    used += n->json_length;
    events[used] = 0;
    return TABD_OK;
}

static char result[sizeof events + 64];

static tabd_result notes_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
    (void)state; (void)c; (void)args;
    if (strcmp(method, "seen") != 0) return TABD_UNKNOWN_METHOD;
    snprintf(result, sizeof result, "{\"events\":[%s],\"bad\":%d}", events, bad);
    reply->json = result;
    return TABD_OK;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "notes",
    .version = "1.0.0",
    .description = "Keeps every container event it is told.",
    .call = notes_call,
    .notify = notes_notify,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
