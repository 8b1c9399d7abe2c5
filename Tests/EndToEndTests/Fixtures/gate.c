/*
 * A configurable test plugin for the end-to-end tests, built by them with
 * cc -shared -fPIC -I Sources/CTabPolicy/include gate.c -D… -o <name>.so
 *
 *   -DNAME='"x"'          the plugin's name (default "gate")
 *   -DRESULT=TABD_DENY     what should_select answers (default TABD_ABSTAIN)
 *   -DREASON='"closed"'    the reason given with a deny
 *   -DABI_MAJOR=n          the ABI major it claims (default the header's)
 *   -DSTRUCT_SIZE=n        the descriptor size it claims (default sizeof)
 *   -DINIT_FAILS           init refuses with a message
 *   -DNO_ENTRY             no tabd_policy_entry symbol at all
 */
#include <stddef.h>
#include <tabd/policy.h>

#ifndef NAME
#define NAME "gate"
#endif
#ifndef RESULT
#define RESULT TABD_ABSTAIN
#endif
#ifndef REASON
#define REASON "closed"
#endif
#ifndef ABI_MAJOR
#define ABI_MAJOR TABD_POLICY_ABI_MAJOR
#endif
#ifndef STRUCT_SIZE
#define STRUCT_SIZE sizeof(tabd_policy_descriptor)
#endif

#ifndef NO_ENTRY
static tabd_result gate_init(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply) {
    (void)host; (void)config_json; (void)state;
#ifdef INIT_FAILS
    reply->message = "the test plugin was told to fail";
    return TABD_ERROR;
#else
    (void)reply;
    return TABD_OK;
#endif
}

static tabd_result gate_should_select(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
    (void)state; (void)c; (void)cand;
    reply->reason = REASON;
    reply->message = NAME " says " REASON;
    return RESULT;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = ABI_MAJOR, .abi_minor = TABD_POLICY_ABI_MINOR, .struct_size = STRUCT_SIZE,
    .name = NAME, .version = "1.0", .description = "end-to-end test gate",
    .init = gate_init, .should_select = gate_should_select,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
#else
TABD_POLICY_EXPORT int not_the_entry_symbol = 1;
#endif
