/*
 * hello.c — a tabd policy plugin in plain C, to learn the ABI from.
 *
 * What it does: tabs whose id starts with a prefix ("secret" unless the settings say
 * otherwise) cannot be tapped until someone calls its "unlock" method with the right
 * code. Every tap it sees is counted and announced to subscribers as a `plugin` event.
 *
 * Build it anywhere, with nothing but the header:
 *
 *     cc -shared -fPIC -I <tabd>/Sources/CTabPolicy/include hello.c -o hello.so
 *
 * then copy hello.so into one of tabd's plugin directories and list it in the config:
 *
 *     plugins:
 *       directories: [/usr/local/lib/tabd/plugins]
 *       load:
 *         - path: hello.so
 *           settings: {prefix: secret, code: open-sesame}
 *
 * Try it:
 *
 *     {"cmd":"tap","tab":"secret-notes"}                 → denied by "hello"
 *     {"cmd":"plugin.call","plugin":"hello","method":"unlock","args":{"code":"open-sesame"}}
 *     {"cmd":"tap","tab":"secret-notes"}                 → ok
 *     {"cmd":"plugin.call","plugin":"hello","method":"whoami"}  → {"uid":1000,"gid":1000,"pid":4242}
 *
 * Each hook below has a comment saying what it demonstrates. Hooks this plugin does
 * not need (the orientation ones) are simply NULL in the descriptor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabd/policy.h>

/*
 * Per-instance state. init allocates it and hands it to tabd through *state; tabd
 * passes it back to every hook. (tabd makes a new instance on every reload, after
 * calling fini on the old one.)
 */
typedef struct hello_state {
    const tabd_host *host;  /* kept from init: log, emit, read controllers */
    char prefix[64];        /* tabs starting with this are locked */
    char code[64];          /* what "unlock" wants */
    int unlocked;           /* one switch for all controllers, to keep the example short */
    unsigned long taps;     /* taps seen by did_select */
    char message[256];      /* reply strings must outlive the hook: keep them here */
    char json[256];
} hello_state;

/*
 * A deliberately tiny reader for `"key": "value"` in a flat JSON object. Enough for this
 * example's settings and arguments; a real plugin should use a real JSON parser.
 * Returns 1 and copies the value into out when found.
 */
static int json_string(const char *json, const char *key, char *out, size_t size) {
    char pattern[80];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *p = strstr(json, pattern);
    if (p == NULL) return 0;
    p = strchr(p + strlen(pattern), ':');
    if (p == NULL) return 0;
    p = strchr(p, '"');
    if (p == NULL) return 0;
    const char *end = strchr(p + 1, '"');
    if (end == NULL || (size_t)(end - p - 1) >= size) return 0;
    memcpy(out, p + 1, (size_t)(end - p - 1));
    out[end - p - 1] = '\0';
    return 1;
}

/* Copies s into out as a JSON string body, dropping characters that would need escapes. */
static void json_safe(const char *s, char *out, size_t size) {
    size_t n = 0;
    for (; *s != '\0' && n + 1 < size; s++) {
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) continue;
        out[n++] = *s;
    }
    out[n] = '\0';
}

/*
 * init — demonstrates: reading settings (JSON text), checking the host's ABI version,
 * keeping the host table, per-instance state through *state, and refusing to load
 * with a message (try settings {"prefix": ""}: tabd lists the plugin as refused).
 */
static tabd_result hello_init(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply) {
    if (host->abi_major != TABD_POLICY_ABI_MAJOR) {
        reply->message = "hello needs plugin ABI 1";
        return TABD_ERROR;
    }
    hello_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        reply->message = "out of memory";
        return TABD_ERROR;
    }
    s->host = host;
    strcpy(s->prefix, "secret");
    strcpy(s->code, "open-sesame");
    if (strstr(config_json, "\"prefix\"") != NULL && (!json_string(config_json, "prefix", s->prefix, sizeof s->prefix) || s->prefix[0] == '\0')) {
        free(s);
        reply->message = "settings: prefix must be a non-empty string of fewer than 64 bytes";
        return TABD_ERROR;
    }
    json_string(config_json, "code", s->code, sizeof s->code);

    char line[160];
    snprintf(line, sizeof line, "hello ready: tabs starting with '%s' are locked", s->prefix);
    host->log(host, TABD_LOG_INFO, line);
    *state = s;
    return TABD_OK;
}

/*
 * fini — demonstrates: cleaning up. Called before a re-init on reload, when the plugin
 * leaves the configuration, and at shutdown. The code stays loaded; only state goes.
 */
static void hello_fini(void *state) {
    free(state);
}

/*
 * should_select — demonstrates: the three answers. ALLOW is not needed here: ABSTAIN
 * says "no opinion" and lets the others (or tabd's default, allow) decide; DENY vetoes
 * with a short reason and a sentence for people. Note the message lives in the state,
 * not on this function's stack: tabd reads it after we return.
 */
static tabd_result hello_should_select(void *state, const tabd_controller *controller,
                                       const tabd_candidate *candidate, tabd_reply *reply) {
    hello_state *s = state;
    (void)controller;
    if (candidate->is_more || s->unlocked) return TABD_ABSTAIN;
    if (strncmp(candidate->id, s->prefix, strlen(s->prefix)) != 0) return TABD_ABSTAIN;
    snprintf(s->message, sizeof s->message, "'%s' is locked; call hello's unlock method first", candidate->id);
    reply->reason = "locked";
    reply->message = s->message;
    return TABD_DENY;
}

/*
 * did_select — demonstrates: reading the controller through the host table and
 * emitting a `plugin` event. The controller already shows the new selection here.
 */
static void hello_did_select(void *state, const tabd_controller *controller, const tabd_candidate *candidate) {
    hello_state *s = state;
    char tab[96];
    s->taps++;
    json_safe(candidate->id, tab, sizeof tab);
    snprintf(s->json, sizeof s->json, "{\"event\":\"tapped\",\"tab\":\"%s\",\"index\":%ld,\"taps\":%lu,\"tabs\":%zu}",
             tab, candidate->index, s->taps, s->host->tab_count(controller));
    s->host->emit(s->host, controller, s->json);
}

/*
 * will_begin_customizing / did_end_customizing — demonstrates: notifications with the
 * tab order, and logging. They return nothing: they cannot refuse anything.
 */
static void hello_will_begin_customizing(void *state, const tabd_controller *controller,
                                         const char *const *tabs, size_t count) {
    hello_state *s = state;
    char line[160];
    snprintf(line, sizeof line, "customizing %s: %zu tabs, first '%s'",
             s->host->controller_name(controller), count, count > 0 ? tabs[0] : "");
    s->host->log(s->host, TABD_LOG_DEBUG, line);
}

static void hello_did_end_customizing(void *state, const tabd_controller *controller,
                                      const char *const *tabs, size_t count, int changed) {
    hello_state *s = state;
    char line[160];
    (void)tabs;
    snprintf(line, sizeof line, "customized %s: %zu tabs, %s", s->host->controller_name(controller),
             count, changed ? "order changed" : "order unchanged");
    s->host->log(s->host, TABD_LOG_DEBUG, line);
}

/*
 * call — demonstrates: plugin-defined methods (`plugin.call`), their four outcomes
 * (OK with a JSON result, DENY, ERROR, UNKNOWN_METHOD), asking tabd to change the
 * selection after the command (request_select), and who is calling (caller, since 1.1).
 */
static tabd_result hello_call(void *state, const tabd_controller *controller, const char *method,
                              const char *args_json, tabd_reply *reply) {
    hello_state *s = state;
    if (strcmp(method, "unlock") == 0) {
        char code[64];
        if (!json_string(args_json, "code", code, sizeof code)) {
            reply->message = "unlock needs {\"code\": \"...\"}";
            return TABD_ERROR;
        }
        if (strcmp(code, s->code) != 0) {
            s->host->log(s->host, TABD_LOG_WARNING, "unlock with a wrong code");
            reply->reason = "wrong code";
            reply->message = "that is not the code";
            return TABD_DENY;
        }
        s->unlocked = 1;
        reply->json = "{\"unlocked\":true}";
        return TABD_OK;
    }
    if (strcmp(method, "lock") == 0) {
        s->unlocked = 0;
        /* Leave a locked tab if it is showing: back to the first tab. */
        const char *selected = s->host->selected_tab(controller);
        if (selected != NULL && strncmp(selected, s->prefix, strlen(s->prefix)) == 0 && s->host->tab_count(controller) > 0)
            s->host->request_select(s->host, controller, s->host->tab_id(controller, 0));
        reply->json = "{\"unlocked\":false}";
        return TABD_OK;
    }
    if (strcmp(method, "status") == 0) {
        snprintf(s->json, sizeof s->json, "{\"unlocked\":%s,\"taps\":%lu}", s->unlocked ? "true" : "false", s->taps);
        reply->json = s->json;
        return TABD_OK;
    }
    if (strcmp(method, "whoami") == 0) {
        /* A host function added after 1.0 (since 1.1): check that this tabd has it. The
         * caller is the client's connection as the kernel saw it (uid, gid, pid) — what
         * to key per-client limits or permissions on. */
        tabd_caller who = { .struct_size = sizeof who };
        if (TABD_HOST_HAS(s->host, caller) && s->host->caller(s->host, &who))
            snprintf(s->json, sizeof s->json, "{\"uid\":%u,\"gid\":%u,\"pid\":%d}", who.uid, who.gid, who.pid);
        else
            snprintf(s->json, sizeof s->json, "{\"uid\":null}");
        reply->json = s->json;
        return TABD_OK;
    }
    return TABD_UNKNOWN_METHOD;
}

/*
 * The descriptor: who we are and which hooks we have. struct_size lets a newer tabd
 * know which fields we know about; NULL hooks are skipped (for the orientation hooks,
 * NULL means "abstain").
 */
static const tabd_policy_descriptor hello_descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "hello",
    .version = "1.0.0",
    .description = "Locks tabs whose id starts with a prefix until its unlock method is called.",
    .init = hello_init,
    .fini = hello_fini,
    .should_select = hello_should_select,
    .supported_orientations = NULL,
    .preferred_orientation = NULL,
    .did_select = hello_did_select,
    .will_begin_customizing = hello_will_begin_customizing,
    .will_end_customizing = NULL,
    .did_end_customizing = hello_did_end_customizing,
    .call = hello_call,
};

/*
 * The entry point — demonstrates: the one exported symbol. tabd calls it once after
 * dlopen and checks abi_major and struct_size before anything else.
 */
TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) {
    return &hello_descriptor;
}
