/*
 * hello.c — a tabd policy plugin in plain C, to learn the ABI from.
 *
 * What it does: tabs whose id starts with a prefix ("secret" unless the settings say
 * otherwise) cannot be tapped until someone calls its "unlock" method with the right
 * code. Every tap it sees is counted and announced to subscribers as a `plugin` event; the
 * count is kept in the plugin's store, so it survives restarts (and kill -9). It can tell
 * of every selection change (settings events.selected) and remind a controller's
 * subscribers of something later (its "remind" method arms a timer, and keeps the text in
 * the store under "remind/<controller>"). It follows controllers coming and going (since
 * 1.7): it counts them, and forgets a deleted controller's reminder. A drawer controller
 * whose name starts with the prefix cannot be opened by a user until "unlock" either
 * (since 1.10: may_open_drawer). A split controller that collapses shows its primary
 * column (the list) rather than the secondary, and every event of a container beyond tabs
 * is counted (since 1.11: top_column_for_collapsing, notify).
 *
 * Build it anywhere, with nothing but the installed header (`make install` puts it and
 * tabd-policy.pc in place), and try it before configuring it:
 *
 *     cc -shared -fPIC $(pkg-config --cflags tabd-policy) hello.c -o hello.so
 *     tabd --check-plugin ./hello.so --settings '{"prefix": "secret"}'
 *
 * then copy hello.so into one of tabd's plugin directories and list it in the config:
 *
 *     plugins:
 *       directories: [/usr/local/lib/tabd/plugins]
 *       load:
 *         - path: hello.so
 *           settings: {prefix: secret, code: open-sesame, exempt: [secret-help], events: {tapped: true}}
 *
 * Try it:
 *
 *     {"cmd":"tap","tab":"secret-notes"}                 → denied by "hello"
 *     {"cmd":"plugin.call","plugin":"hello","method":"unlock","args":{"code":"open-sesame"}}
 *     {"cmd":"tap","tab":"secret-notes"}                 → ok
 *     {"cmd":"open_drawer","controller":"secret-menu","side":"left","gesture":"pan_center"}
 *                                                        → denied by "hello" until unlock
 *     {"cmd":"plugin.call","plugin":"hello","method":"whoami"}  → {"uid":1000,"gid":1000,"pid":4242,"admin":false,"groups":[27,1000]}
 *     {"cmd":"plugin.call","plugin":"hello","method":"status"}  → {"unlocked":true,"taps":1,"selections":2,"prefix":"secret","controllers":1,"container_events":4}
 *     {"cmd":"plugin.call","plugin":"hello","method":"remind","args":{"seconds":1,"text":"stand up"}}
 *                                                        → a `plugin` event {"event":"reminder",...} a second later
 *     {"cmd":"plugin.call","plugin":"hello","method":"clock"}  → {"unix_ms":…,"local":"2026-11-28T21:05:07+01:00","weekday":6,"zone":"CET","dst":false}
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
 * passes it back to every hook. (A reload that changes this plugin's settings or file
 * makes a new instance, then stops the old one with fini; a reload that changes neither
 * keeps this instance: docs/plugins.md, "Reloads and will_stop".)
 */
typedef struct hello_state {
    const tabd_host *host;  /* kept from init: log, emit, read controllers, JSON */
    char prefix[64];        /* tabs starting with this are locked */
    char code[64];          /* what "unlock" wants */
    char exempt[8][64];     /* settings exempt: tabs never locked, though they start with the prefix */
    size_t exempt_count;
    int announce_taps;      /* settings events.tapped: emit an event per tap */
    int announce_selected;  /* settings events.selected: emit an event per selection change */
    size_t controllers;     /* controllers tabd holds (since 1.7: listed in init, then told) */
    int unlocked;           /* one switch for all controllers, to keep the example short */
    unsigned long taps;     /* taps seen by did_select */
    unsigned long selections; /* selection changes seen by selection_changed, since init */
    unsigned long container_events; /* events of containers beyond tabs seen by notify, since init */
    char message[256];      /* reply strings must outlive the hook: keep them here */
} hello_state;

/*
 * Copies a string setting into `out` when the settings have it — demonstrates the JSON
 * getters (since 1.3): tabd parses, the plugin only asks. Returns NULL when the setting is
 * fine (present and copied, or absent: `out` keeps its default), else the sentence saying
 * what is wrong. The string tabd returns lives until init returns: copy it.
 */
static const char *setting_string(const tabd_host *host, const char *json, const char *key, char *out, size_t size) {
    const char *value;
    switch (host->json_get_string(host, json, key, &value)) {
    case TABD_JSON_OK:
        if (value[0] == '\0' || strlen(value) >= size) return "must be a non-empty string of fewer than 64 bytes";
        strcpy(out, value);
        return NULL;
    case TABD_JSON_MISSING:
        return NULL;
    default: /* TABD_JSON_WRONG_TYPE (a number, a list...) or TABD_JSON_INVALID */
        return "must be a string";
    }
}

/*
 * Reads the list setting `exempt` (["secret-help", ...]) — demonstrates the list readers
 * (since 1.5): json_get_array hands back the list's text, json_array_length and
 * json_array_string read it by index. Returns NULL or the sentence saying what is wrong.
 */
static const char *setting_list(const tabd_host *host, const char *json, hello_state *s) {
    const char *list;
    size_t n;
    switch (host->json_get_array(host, json, "exempt", &list)) {
    case TABD_JSON_OK: break;
    case TABD_JSON_MISSING: return NULL;
    default: return "must be a list of tab ids, such as [secret-help]";
    }
    if (host->json_array_length(host, list, &n) != TABD_JSON_OK || n > 8) return "must list at most 8 tab ids";
    for (size_t i = 0; i < n; i++) {
        const char *id;
        if (host->json_array_string(host, list, i, &id) != TABD_JSON_OK || id[0] == '\0' || strlen(id) >= 64)
            return "must list tab ids: non-empty strings of fewer than 64 bytes";
        strcpy(s->exempt[s->exempt_count++], id);
    }
    return NULL;
}

/*
 * The settings this plugin knows; any other key is refused — demonstrates iterating an
 * object's keys with json_object_key (since 1.5), so a typo ("prefx") is an error at start
 * rather than a setting silently ignored. Returns the unknown key, or NULL.
 */
static const char *unknown_setting(const tabd_host *host, const char *json) {
    static const char *known[] = {"prefix", "code", "exempt", "events"};
    const char *key;
    for (size_t i = 0; host->json_object_key(host, json, i, &key) == TABD_JSON_OK; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(key, known[k]) != 0) k++;
        if (k == sizeof known / sizeof known[0]) return key;
    }
    return NULL;
}

/*
 * init — demonstrates: checking the host's ABI version and that it has the functions we
 * use (the JSON helpers are since 1.3, the list readers since 1.5), reading settings with
 * them (a nested object and a list included: events.tapped, exempt), refusing settings it
 * does not know, keeping the host table, per-instance state through *state, and refusing
 * to load with a message (try settings {"prefix": ""}, {"events": 3} or {"prefx": "a"}:
 * tabd lists the plugin as refused, and `tabd --check-plugin` prints the message).
 */
static tabd_result hello_init(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply) {
    if (host->abi_major != TABD_POLICY_ABI_MAJOR) {
        reply->message = "hello needs plugin ABI 1";
        return TABD_ERROR;
    }
    if (!TABD_HOST_HAS(host, json_object_key)) {
        reply->message = "hello needs tabd with plugin ABI 1.5 or later (the JSON helpers with lists)";
        return TABD_ERROR;
    }
    const char *unknown = unknown_setting(host, config_json);
    if (unknown != NULL) {
        static char refusal[160];
        snprintf(refusal, sizeof refusal, "settings: unknown key '%.64s' (hello knows prefix, code, exempt and events)", unknown);
        reply->message = refusal;
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
    s->announce_taps = 1;

    const char *problem = NULL, *key = NULL;
    if ((problem = setting_string(host, config_json, key = "prefix", s->prefix, sizeof s->prefix)) == NULL)
        problem = setting_string(host, config_json, key = "code", s->code, sizeof s->code);
    if (problem == NULL && (problem = setting_list(host, config_json, s)) != NULL) key = "exempt";
    /* A nested object: {"events": {"tapped": false}}. json_get_object hands back its text;
     * the getters read that text as they read the settings themselves. */
    const char *events;
    tabd_json_status found = host->json_get_object(host, config_json, "events", &events);
    if (problem == NULL && found == TABD_JSON_OK &&
        host->json_get_bool(host, events, "tapped", &s->announce_taps) == TABD_JSON_WRONG_TYPE)
        problem = "must be true or false", key = "events.tapped";
    else if (problem == NULL && found == TABD_JSON_OK &&
             host->json_get_bool(host, events, "selected", &s->announce_selected) == TABD_JSON_WRONG_TYPE)
        problem = "must be true or false", key = "events.selected";
    else if (problem == NULL && found == TABD_JSON_WRONG_TYPE)
        problem = "must be an object such as {tapped: false}", key = "events";
    if (problem != NULL) {
        /* reply->message must outlive init, and the state is about to go: a static buffer
         * (tabd runs hooks on one thread, so one buffer is enough). */
        static char refusal[128];
        snprintf(refusal, sizeof refusal, "settings: %s %s", key, problem);
        free(s);
        reply->message = refusal;
        return TABD_ERROR;
    }

    /* The store (since 1.6): what the last run kept — restarts, kill -9 and reloads included.
     * A tabd before 1.6 has no store: the count then starts at 0 each time. */
    const char *kept;
    if (TABD_HOST_HAS(host, store_get) && host->store_get(host, "taps", &kept) == TABD_STORE_OK)
        s->taps = strtoul(kept, NULL, 10);

    /* The controllers (since 1.7): those that exist now are listed by controller_at; later
     * ones are told by controller_created and controller_deleted. A reminder kept for a
     * controller that went while this plugin was not running is dropped now: one created
     * again under that name is a new controller. */
    if (TABD_HOST_HAS(host, controller_at)) {
        const char *name, *key;
        while (host->controller_at(host, s->controllers) != NULL) s->controllers++;
        for (size_t i = 0; host->store_key(host, i, &key) == TABD_STORE_OK; i++) {
            if (strncmp(key, "remind/", 7) != 0) continue;
            int exists = 0;
            for (size_t c = 0; !exists && (name = host->controller_at(host, c)) != NULL; c++) exists = strcmp(name, key + 7) == 0;
            if (!exists && host->store_delete(host, key) == TABD_STORE_OK) i--;  /* the next key moved to i */
        }
    }

    char line[160];
    snprintf(line, sizeof line, "hello ready: tabs starting with '%s' are locked; %zu controller(s)", s->prefix, s->controllers);
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
    for (size_t i = 0; i < s->exempt_count; i++)
        if (strcmp(candidate->id, s->exempt[i]) == 0) return TABD_ABSTAIN;
    snprintf(s->message, sizeof s->message, "'%s' is locked; call hello's unlock method first", candidate->id);
    reply->reason = "locked";
    reply->message = s->message;
    return TABD_DENY;
}

/*
 * may_open_drawer (since 1.10) — demonstrates: a veto that is not about a tab controller.
 * A user opens a drawer (`open`: the drawer controller's name, the side, the gesture); an
 * app's open (no gesture) is never asked. The answers are should_select's; there is no
 * tabd_controller here, so nothing to read, emit in or select in — the state, the store
 * and the log are what a drawer gate uses. A tabd before 1.10 never calls it.
 */
static tabd_result hello_may_open_drawer(void *state, const tabd_drawer_open *open, tabd_reply *reply) {
    hello_state *s = state;
    if (s->unlocked || strncmp(open->controller, s->prefix, strlen(s->prefix)) != 0) return TABD_ABSTAIN;
    snprintf(s->message, sizeof s->message, "the %s drawer of '%s' is locked (%s); call hello's unlock method first",
             open->side, open->controller, open->gesture);
    reply->reason = "locked";
    reply->message = s->message;
    return TABD_DENY;
}

/*
 * top_column_for_collapsing (since 1.11) — demonstrates: a proposal hook. A split controller
 * (no tab controller: nothing to read, emit in or select in) collapses into one stack; tabd
 * proposes "secondary" on top, a plugin before this one may have proposed something else
 * (`collapse->proposed`), and the answer replaces it. hello wants the list: "primary", a
 * string literal (it must stay valid until the hook returns). An answer the split cannot
 * take is ignored; TABD_ABSTAIN leaves the proposal as it is.
 */
static tabd_result hello_top_column_for_collapsing(void *state, const tabd_split_collapse *collapse, const char **column) {
    (void)state;
    if (strcmp(collapse->proposed, "primary") == 0) return TABD_ABSTAIN;
    *column = "primary";
    return TABD_OK;
}

/*
 * notify (since 1.11) — demonstrates: one generic hook for every event of a container beyond
 * tabs (navigation, split, drawer, custom): its name, its controller and the JSON a
 * subscriber gets. hello only counts them (the status method shows the count); a real plugin
 * would look at n->name and parse n->json with json_get_* if it needs the data. The value
 * returned is ignored.
 */
static tabd_result hello_notify(void *state, const tabd_notification *n) {
    hello_state *s = state;
    (void)n;
    s->container_events++;
    return TABD_OK;
}

/*
 * did_select — demonstrates: reading the controller through the host table, and emitting
 * a `plugin` event built with a JSON builder (since 1.3): tabd escapes the tab id, so an id
 * with quotes or newlines cannot break the event. The controller already shows the new
 * selection here.
 */
static void hello_did_select(void *state, const tabd_controller *controller, const tabd_candidate *candidate) {
    hello_state *s = state;
    const tabd_host *h = s->host;
    s->taps++;
    /* Kept at once: when this tap is acknowledged, the count is on disk too. */
    if (TABD_HOST_HAS(h, store_put)) {
        char text[24];
        snprintf(text, sizeof text, "%lu", s->taps);
        if (h->store_put(h, "taps", text) != TABD_STORE_OK) h->log(h, TABD_LOG_WARNING, "the tap count could not be kept");
    }
    if (!s->announce_taps) return;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "tapped");
    h->json_add_string(h, b, "tab", candidate->id);
    h->json_add_int(h, b, "index", candidate->index);
    h->json_add_int(h, b, "taps", (int64_t)s->taps);
    h->json_add_int(h, b, "tabs", (int64_t)h->tab_count(controller));
    h->json_end(h, b);
    const char *event = h->json_finish(h, b); /* NULL only if the calls above were wrong */
    if (event != NULL) h->emit(h, controller, event);
}

/*
 * selection_changed (since 1.6) — demonstrates: being told of every selection change, what
 * ever made it (a client's select, a plugin's request_select, a tap, new tabs, a restore, a
 * hide), with the cause. did_select is for taps only.
 */
static void hello_selection_changed(void *state, const tabd_controller *controller, const tabd_selection_change *change) {
    static const char *causes[] = {"select", "tap", "tabs", "customize", "restore", "hidden", "search_cancelled"};
    hello_state *s = state;
    const tabd_host *h = s->host;
    s->selections++;
    if (!s->announce_selected) return;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "selected");
    if (change->id != NULL) h->json_add_string(h, b, "tab", change->id); else h->json_add_null(h, b, "tab");
    /* A cause a later tabd adds is not in this table: say so rather than guess. */
    h->json_add_string(h, b, "cause", (unsigned)change->cause < sizeof causes / sizeof *causes ? causes[change->cause] : "other");
    h->json_end(h, b);
    const char *event = h->json_finish(h, b);
    if (event != NULL) h->emit(h, controller, event);
}

/*
 * timer (since 1.6) — demonstrates: acting on time. "remind" armed it; it runs on tabd's
 * loop with no client request, and its event reaches the controller's subscribers.
 */
static void hello_timer(void *state, const tabd_controller *controller, const char *name) {
    hello_state *s = state;
    const tabd_host *h = s->host;
    if (controller == NULL || strcmp(name, "remind") != 0) return;
    char key[96];
    const char *text = "reminder";
    snprintf(key, sizeof key, "remind/%s", h->controller_name(controller));
    h->store_get(h, key, &text);   /* what remind kept; the default if it could not */
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "reminder");
    h->json_add_string(h, b, "text", text);
    h->json_end(h, b);
    const char *event = h->json_finish(h, b);
    if (event != NULL) h->emit(h, controller, event);
}

/*
 * controller_created / controller_deleted (since 1.7) — demonstrates: following controllers
 * coming and going. A plugin that keeps something per controller (a reminder here, a login
 * in the login gate) forgets it when the controller is deleted — its store keys included —
 * because a controller created again under that name is a new one, maybe another client's.
 * controller_deleted runs while the controller is still readable, and what it emits reaches
 * the controller's subscribers before the controller_deleted event.
 */
static void hello_controller_created(void *state, const tabd_controller *controller) {
    hello_state *s = state;
    (void)controller;
    s->controllers++;
}

static void hello_controller_deleted(void *state, const tabd_controller *controller) {
    hello_state *s = state;
    const tabd_host *h = s->host;
    char key[96];
    if (s->controllers > 0) s->controllers--;
    snprintf(key, sizeof key, "remind/%s", h->controller_name(controller));
    if (h->store_delete(h, key) == TABD_STORE_OK)    /* TABD_STORE_MISSING: it had none */
        h->emit(h, controller, "{\"event\":\"reminder-dropped\"}");
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
        const char *code;
        if (s->host->json_get_string(s->host, args_json, "code", &code) != TABD_JSON_OK) {
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
        /* A call result built with a builder: its text is tabd's and lives until the hook
         * returns, which is exactly as long as reply->json must. */
        const tabd_host *h = s->host;
        tabd_json_builder *b = h->json_builder(h);
        h->json_begin_object(h, b, NULL);
        h->json_add_bool(h, b, "unlocked", s->unlocked);
        h->json_add_int(h, b, "taps", (int64_t)s->taps);
        h->json_add_int(h, b, "selections", (int64_t)s->selections);
        h->json_add_string(h, b, "prefix", s->prefix);
        h->json_add_int(h, b, "controllers", (int64_t)s->controllers);
        h->json_add_int(h, b, "container_events", (int64_t)s->container_events);
        h->json_end(h, b);
        reply->json = h->json_finish(h, b);
        if (reply->json == NULL) {
            reply->message = "hello could not write its status";
            return TABD_ERROR;
        }
        return TABD_OK;
    }
    if (strcmp(method, "remind") == 0) {
        /* Arms (or moves) the timer "remind" for this controller: the timer hook runs later. */
        const tabd_host *h = s->host;
        double seconds;
        const char *text = "reminder";
        if (!TABD_HOST_HAS(h, set_timer)) {
            reply->message = "remind needs tabd with plugin ABI 1.6 (timers)";
            return TABD_ERROR;
        }
        if (h->json_get_number(h, args_json, "seconds", &seconds) != TABD_JSON_OK || seconds < 0.001 || seconds > 86400) {
            reply->message = "remind needs {\"seconds\": 0.001 to 86400, \"text\": \"...\"}";
            return TABD_ERROR;
        }
        if (h->json_get_string(h, args_json, "text", &text) == TABD_JSON_WRONG_TYPE) {
            reply->message = "remind's text must be a string";
            return TABD_ERROR;
        }
        /* The text waits in the store (it survives a restart, though the timer does not). */
        char key[96];
        snprintf(key, sizeof key, "remind/%s", h->controller_name(controller));
        if (h->store_put(h, key, text) != TABD_STORE_OK) {
            reply->message = "remind's text could not be kept (too long, or tabd cannot write its journal now)";
            return TABD_ERROR;
        }
        if (h->set_timer(h, h->controller_name(controller), "remind", (uint64_t)(seconds * 1000 + 0.5)) != TABD_OK) {
            reply->message = "tabd refused the timer";
            return TABD_ERROR;
        }
        reply->json = "{\"armed\":true}";
        return TABD_OK;
    }
    if (strcmp(method, "clock") == 0) {
        /* Since 1.9: the wall clock, and the local date and time in tabd's time zone (TZ,
         * else /etc/localtime) — what "no games after 21:00" needs; timers are relative. */
        const tabd_host *h = s->host;
        tabd_local_time now = { .struct_size = sizeof now };
        if (!TABD_HOST_HAS(h, local_time) || h->local_time(h, h->wall_clock_ms(h), &now) != TABD_OK) {
            reply->message = "clock needs tabd with plugin ABI 1.9 (the local time)";
            return TABD_ERROR;
        }
        char local[48];
        int offset = now.utc_offset_seconds < 0 ? -now.utc_offset_seconds : now.utc_offset_seconds;
        snprintf(local, sizeof local, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", now.year, now.month, now.day,
                 now.hour, now.minute, now.second, now.utc_offset_seconds < 0 ? '-' : '+', offset / 3600, offset / 60 % 60);
        tabd_json_builder *b = h->json_builder(h);
        h->json_begin_object(h, b, NULL);
        h->json_add_int(h, b, "unix_ms", now.unix_ms);
        h->json_add_string(h, b, "local", local);
        h->json_add_int(h, b, "weekday", now.weekday);
        if (now.zone != NULL) h->json_add_string(h, b, "zone", now.zone); else h->json_add_null(h, b, "zone");
        if (now.is_dst < 0) h->json_add_null(h, b, "dst"); else h->json_add_bool(h, b, "dst", now.is_dst);
        h->json_end(h, b);
        reply->json = h->json_finish(h, b);
        return TABD_OK;
    }
    if (strcmp(method, "whoami") == 0) {
        /* A host function added after 1.0 (since 1.1): check that this tabd has it. The
         * caller is the client's connection as the kernel saw it (uid, gid, pid) — what
         * to key per-client limits or permissions on — and, since 1.5, whether tabd's
         * access rules make it an admin, and its supplementary groups (a tabd before 1.5
         * leaves them 0 and NULL: is_admin then says "not an admin"). */
        const tabd_host *h = s->host;
        tabd_caller who = { .struct_size = sizeof who };
        tabd_json_builder *b = h->json_builder(h);
        h->json_begin_object(h, b, NULL);
        if (TABD_HOST_HAS(h, caller) && h->caller(h, &who)) {
            h->json_add_int(h, b, "uid", who.uid);
            h->json_add_int(h, b, "gid", who.gid);
            h->json_add_int(h, b, "pid", who.pid);
            h->json_add_bool(h, b, "admin", who.is_admin);
            h->json_begin_array(h, b, "groups");
            for (size_t i = 0; i < who.group_count && who.groups != NULL; i++) h->json_add_int(h, b, NULL, who.groups[i]);
            h->json_end(h, b);
            /* Since 1.8: a client that relays for others (the web console) says so. */
            if (who.via != NULL) h->json_add_string(h, b, "via", who.via);
        } else {
            h->json_add_null(h, b, "uid");
        }
        h->json_end(h, b);
        reply->json = h->json_finish(h, b);
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
    .will_stop = NULL,
    .visibility_changed = NULL,
    .display_order_changed = NULL,
    .selection_changed = hello_selection_changed,
    .timer = hello_timer,
    .controller_created = hello_controller_created,
    .controller_deleted = hello_controller_deleted,
    .may_open_drawer = hello_may_open_drawer,
    .top_column_for_collapsing = hello_top_column_for_collapsing,
    .display_mode_for_expanding = NULL,
    .notify = hello_notify,
};

/*
 * The entry point — demonstrates: the one exported symbol. tabd calls it once after
 * dlopen and checks abi_major and struct_size before anything else.
 */
TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) {
    return &hello_descriptor;
}
