/*
 * A plugin that misbehaves on one tab, for the isolation and crash-watch tests; built by
 * them with cc -shared -fPIC -I Sources/CTabPolicy/include hostile.c -D… -o <name>.so
 *
 *   -DNAME='"x"'        the plugin's name (default "hostile")
 *   -DCRASH='"boom"'    should_select dereferences NULL when the tapped tab is "boom"
 *   -DSLEEP='"slow"'    should_select sleeps SLEEP_MS (default 5000) on the tab "slow"
 *   -DLOOP='"spin"'     should_select loops forever on the tab "spin"
 *   -DFLOOD='"flood"'   should_select on "flood" calls request_select, emit and log 100,000
 *                       times each, then denies with a 10 MiB reason and message
 *   -DFORK='"fork"'     should_select on "fork" double-forks a grandchild in a session of its
 *                       own, named "tabd-orphan", that sleeps 300 s (if fork is allowed), and
 *                       emits {"fork":<errno or 0>}
 *   -DCALL_CRASH        the call hook dereferences NULL
 *
 * On every other tab it allows the tap, logs it, emits {"tapped":<id>,"tabs":<count>}
 * and, on the tab "jump", asks tabd to select the first tab: what a well-behaved plugin
 * does, so that isolated and in-process runs can be compared.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <tabd/policy.h>

#ifndef NAME
#define NAME "hostile"
#endif
#ifndef SLEEP_MS
#define SLEEP_MS 5000
#endif

static const tabd_host *host;

static tabd_result hostile_init(const tabd_host *h, const char *config_json, void **state, tabd_reply *reply) {
    (void)config_json; (void)state; (void)reply;
    host = h;
    host->log(host, TABD_LOG_INFO, NAME " started");
    return TABD_OK;
}

static tabd_result hostile_should_select(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
    (void)state; (void)reply;
#ifdef CRASH
    if (strcmp(cand->id, CRASH) == 0) { volatile int *p = NULL; *p = 1; }
#endif
#ifdef SLEEP
    if (strcmp(cand->id, SLEEP) == 0) usleep(SLEEP_MS * 1000);
#endif
#ifdef LOOP
    if (strcmp(cand->id, LOOP) == 0) { for (volatile unsigned long i = 0;; i++) {} }
#endif
#ifdef FLOOD
    if (strcmp(cand->id, FLOOD) == 0) {
        for (int i = 0; i < 100000; i++) {
            host->request_select(host, c, "a");
            host->emit(host, c, "{\"flood\":true}");
            host->log(host, TABD_LOG_WARNING, "flooding");
        }
        static char *huge;
        if (huge == NULL) {
            huge = malloc(10u << 20);
            memset(huge, 'x', (10u << 20) - 1);
            huge[(10u << 20) - 1] = 0;
        }
        reply->reason = huge;
        reply->message = huge;
        return TABD_DENY;
    }
#endif
#ifdef FORK
    if (strcmp(cand->id, FORK) == 0) {
        int err = 0;
        pid_t child = fork();
        if (child == 0) {
            setsid();
            if (fork() == 0) {
                prctl(PR_SET_NAME, "tabd-orphan", 0, 0, 0);
                sleep(300);
            }
            _exit(0);
        }
        if (child < 0) err = errno;
        char json[64];
        snprintf(json, sizeof json, "{\"fork\":%d}", err);
        host->emit(host, c, json);
        return TABD_ALLOW;
    }
#endif
    char line[256];
    snprintf(line, sizeof line, NAME " saw a tap on %s in %s (%zu tabs, selected %s)", cand->id,
             host->controller_name(c), host->tab_count(c), host->selected_tab(c) ? host->selected_tab(c) : "nothing");
    host->log(host, TABD_LOG_NOTICE, line);
    char json[256];
    snprintf(json, sizeof json, "{\"tapped\":\"%s\",\"tabs\":%zu,\"first\":\"%s\"}", cand->id, host->tab_count(c), host->tab_id(c, 0));
    host->emit(host, c, json);
    if (strcmp(cand->id, "jump") == 0) host->request_select(host, c, host->tab_id(c, 0));
    return TABD_ALLOW;
}

static tabd_result hostile_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
    (void)state; (void)c; (void)method; (void)args; (void)reply;
#ifdef CALL_CRASH
    { volatile int *p = NULL; *p = 1; }
#endif
    return TABD_OK;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR, .abi_minor = TABD_POLICY_ABI_MINOR, .struct_size = sizeof(tabd_policy_descriptor),
    .name = NAME, .version = "1.0", .description = "end-to-end test plugin that crashes, sleeps or loops on one tab",
    .init = hostile_init, .should_select = hostile_should_select, .call = hostile_call,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
