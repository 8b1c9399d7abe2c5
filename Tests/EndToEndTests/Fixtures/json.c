/*
 * json.c — a test plugin for the JSON helpers of the host table (ABI 1.3). Built by the
 * tests as an author would build it (the end-to-end test: only with the flags
 * `pkg-config --cflags tabd-policy` gives for an installed tabd).
 *
 * Settings: {"greeting": "hi", "limits": {"max": 3, "ratio": 0.5, "loud": true}}, all
 * optional; a wrong type refuses the plugin with a sentence naming the setting.
 *
 * Methods:
 *   settings            → what init read, written back with a builder
 *   echo {text}         → {"text": text, "length": bytes}, and emits {"event":"echo","text":text}
 *   get {json,key,type} → {"status": n, "value": …}: one getter (type string, int, number,
 *                         bool, object or array) on `json`
 *   at {json,index,type} → {"status": n, "value": …}: one json_array_* reader (1.5)
 *   length {json}       → {"status": n, "value": count}: json_array_length (1.5)
 *   keys {json}         → {"keys": [...], "status": n}: json_object_key from 0 until it
 *                         answers something else, and what it answered then (1.5)
 *   misuse {case}       → a builder used wrongly in one way; TABD_ERROR when json_finish
 *                         returns NULL (as it must)
 *   keep                → makes a builder and keeps its handle past the hook (see "stale")
 *   array               → a top-level array of every kind of value
 * should_select: a tab whose id starts with "emit-" is refused after emitting
 * {"event":"asked","tab":id} (does a refused tap deliver the event? it does).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tabd/policy.h>

typedef struct json_state {
    const tabd_host *host;
    char greeting[128];
    int64_t max;
    double ratio;
    int loud;
} json_state;

static tabd_json_builder *kept; /* a handle kept past its hook: must be ignored later */
static char refusal[256];

static tabd_result refuse(tabd_reply *reply, json_state *s, const char *key, const char *what) {
    snprintf(refusal, sizeof refusal, "settings: %s must be %s", key, what);
    free(s);
    reply->message = refusal;
    return TABD_ERROR;
}

static tabd_result json_init(const tabd_host *host, const char *config, void **state, tabd_reply *reply) {
    if (!TABD_HOST_HAS(host, json_finish)) {
        reply->message = "this plugin needs plugin ABI 1.3 (the JSON helpers)";
        return TABD_ERROR;
    }
    json_state *s = calloc(1, sizeof *s);
    s->host = host;
    strcpy(s->greeting, "hello");
    s->max = 1;
    s->ratio = 1.0;
    const char *greeting, *limits;
    switch (host->json_get_string(host, config, "greeting", &greeting)) {
    case TABD_JSON_OK:
        if (strlen(greeting) >= sizeof s->greeting) return refuse(reply, s, "greeting", "shorter than 128 bytes");
        strcpy(s->greeting, greeting);
        break;
    case TABD_JSON_MISSING: break;
    default: return refuse(reply, s, "greeting", "a string");
    }
    switch (host->json_get_object(host, config, "limits", &limits)) {
    case TABD_JSON_OK:
        if (host->json_get_int(host, limits, "max", &s->max) == TABD_JSON_WRONG_TYPE)
            return refuse(reply, s, "limits.max", "a whole number");
        if (host->json_get_number(host, limits, "ratio", &s->ratio) == TABD_JSON_WRONG_TYPE)
            return refuse(reply, s, "limits.ratio", "a number");
        if (host->json_get_bool(host, limits, "loud", &s->loud) == TABD_JSON_WRONG_TYPE)
            return refuse(reply, s, "limits.loud", "true or false");
        break;
    case TABD_JSON_MISSING: break;
    default: return refuse(reply, s, "limits", "an object");
    }
    *state = s;
    return TABD_OK;
}

static void json_fini(void *state) { free(state); }

static tabd_result json_should_select(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
    json_state *s = state;
    const tabd_host *h = s->host;
    if (strncmp(cand->id, "emit-", 5) != 0) return TABD_ABSTAIN;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "asked");
    h->json_add_string(h, b, "tab", cand->id);
    h->json_end(h, b);
    h->emit(h, c, h->json_finish(h, b));
    reply->reason = "asked";
    reply->message = "tabs starting with emit- are refused after an event";
    return TABD_DENY;
}

static tabd_result misuse(const tabd_host *h, const char *which, tabd_reply *reply) {
    tabd_json_builder *b = h->json_builder(h);
    if (strcmp(which, "no-key") == 0) {
        h->json_begin_object(h, b, NULL);
        h->json_add_int(h, b, NULL, 1);
        h->json_end(h, b);
    } else if (strcmp(which, "key-in-array") == 0) {
        h->json_begin_array(h, b, NULL);
        h->json_add_int(h, b, "k", 1);
        h->json_end(h, b);
    } else if (strcmp(which, "unclosed") == 0) {
        h->json_begin_object(h, b, NULL);
        h->json_begin_array(h, b, "list");
    } else if (strcmp(which, "end-nothing") == 0) {
        h->json_add_int(h, b, NULL, 1);
        h->json_end(h, b);
    } else if (strcmp(which, "two-values") == 0) {
        h->json_add_int(h, b, NULL, 1);
        h->json_add_int(h, b, NULL, 2);
    } else if (strcmp(which, "nan") == 0) {
        h->json_add_number(h, b, NULL, NAN);
    } else if (strcmp(which, "null-string") == 0) {
        h->json_add_string(h, b, NULL, NULL);
    } else if (strcmp(which, "bad-json") == 0) {
        h->json_add_json(h, b, NULL, "{\"a\":1,\"a\":2}");
    } else if (strcmp(which, "nothing") == 0) {
        /* nothing added */
    } else if (strcmp(which, "stale") == 0) {
        b = kept;
        h->json_add_int(h, b, NULL, 1);
    } else if (strcmp(which, "twice") == 0) {
        h->json_add_int(h, b, NULL, 1);
        h->json_finish(h, b);
    } else {
        return TABD_UNKNOWN_METHOD;
    }
    reply->json = h->json_finish(h, b);
    if (reply->json == NULL) {
        reply->message = "json_finish returned NULL";
        return TABD_ERROR;
    }
    return TABD_OK;
}

static tabd_result json_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
    json_state *s = state;
    const tabd_host *h = s->host;
    tabd_json_builder *b = h->json_builder(h);
    if (strcmp(method, "settings") == 0) {
        h->json_begin_object(h, b, NULL);
        h->json_add_string(h, b, "greeting", s->greeting);
        h->json_begin_object(h, b, "limits");
        h->json_add_int(h, b, "max", s->max);
        h->json_add_number(h, b, "ratio", s->ratio);
        h->json_add_bool(h, b, "loud", s->loud);
        h->json_end(h, b);
        h->json_end(h, b);
    } else if (strcmp(method, "echo") == 0) {
        const char *text;
        if (h->json_get_string(h, args, "text", &text) != TABD_JSON_OK) {
            reply->message = "echo needs {\"text\": \"...\"}";
            return TABD_ERROR;
        }
        tabd_json_builder *e = h->json_builder(h);
        h->json_begin_object(h, e, NULL);
        h->json_add_string(h, e, "event", "echo");
        h->json_add_string(h, e, "text", text);
        h->json_end(h, e);
        if (h->emit(h, c, h->json_finish(h, e)) != TABD_OK) {
            reply->message = "emit refused the event";
            return TABD_ERROR;
        }
        h->json_begin_object(h, b, NULL);
        h->json_add_string(h, b, "text", text);
        h->json_add_int(h, b, "length", (int64_t)strlen(text));
        h->json_end(h, b);
    } else if (strcmp(method, "get") == 0) {
        const char *json = NULL, *key = NULL, *type = NULL;
        if (h->json_get_string(h, args, "json", &json) != TABD_JSON_OK) json = NULL;
        h->json_get_string(h, args, "key", &key);
        h->json_get_string(h, args, "type", &type);
        if (type == NULL) return TABD_ERROR;
        h->json_begin_object(h, b, NULL);
        tabd_json_status status;
        if (strcmp(type, "string") == 0) {
            const char *v = NULL;
            status = h->json_get_string(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_string(h, b, "value", v);
        } else if (strcmp(type, "int") == 0) {
            int64_t v = 0;
            status = h->json_get_int(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_int(h, b, "value", v);
        } else if (strcmp(type, "number") == 0) {
            double v = 0;
            status = h->json_get_number(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_number(h, b, "value", v);
        } else if (strcmp(type, "bool") == 0) {
            int v = 0;
            status = h->json_get_bool(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_bool(h, b, "value", v);
        } else if (strcmp(type, "array") == 0) {
            const char *v = NULL;
            status = h->json_get_array(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_json(h, b, "value", v);
        } else {
            const char *v = NULL;
            status = h->json_get_object(h, json, key, &v);
            if (status == TABD_JSON_OK) h->json_add_json(h, b, "value", v);
        }
        h->json_add_int(h, b, "status", status);
        h->json_end(h, b);
    } else if (strcmp(method, "at") == 0) {
        const char *json = NULL, *type = NULL;
        int64_t index = 0;
        if (h->json_get_string(h, args, "json", &json) != TABD_JSON_OK) json = NULL;
        h->json_get_int(h, args, "index", &index);
        h->json_get_string(h, args, "type", &type);
        if (type == NULL || index < 0) return TABD_ERROR;
        size_t i = (size_t)index;
        h->json_begin_object(h, b, NULL);
        tabd_json_status status;
        if (strcmp(type, "string") == 0) {
            const char *v = NULL;
            if ((status = h->json_array_string(h, json, i, &v)) == TABD_JSON_OK) h->json_add_string(h, b, "value", v);
        } else if (strcmp(type, "int") == 0) {
            int64_t v = 0;
            if ((status = h->json_array_int(h, json, i, &v)) == TABD_JSON_OK) h->json_add_int(h, b, "value", v);
        } else if (strcmp(type, "number") == 0) {
            double v = 0;
            if ((status = h->json_array_number(h, json, i, &v)) == TABD_JSON_OK) h->json_add_number(h, b, "value", v);
        } else if (strcmp(type, "bool") == 0) {
            int v = 0;
            if ((status = h->json_array_bool(h, json, i, &v)) == TABD_JSON_OK) h->json_add_bool(h, b, "value", v);
        } else if (strcmp(type, "array") == 0) {
            const char *v = NULL;
            if ((status = h->json_array_array(h, json, i, &v)) == TABD_JSON_OK) h->json_add_json(h, b, "value", v);
        } else {
            const char *v = NULL;
            if ((status = h->json_array_object(h, json, i, &v)) == TABD_JSON_OK) h->json_add_json(h, b, "value", v);
        }
        h->json_add_int(h, b, "status", status);
        h->json_end(h, b);
    } else if (strcmp(method, "length") == 0) {
        const char *json = NULL;
        if (h->json_get_string(h, args, "json", &json) != TABD_JSON_OK) json = NULL;
        size_t n = 0;
        tabd_json_status status = h->json_array_length(h, json, &n);
        h->json_begin_object(h, b, NULL);
        if (status == TABD_JSON_OK) h->json_add_int(h, b, "value", (int64_t)n);
        h->json_add_int(h, b, "status", status);
        h->json_end(h, b);
    } else if (strcmp(method, "keys") == 0) {
        const char *json = NULL, *key = NULL;
        if (h->json_get_string(h, args, "json", &json) != TABD_JSON_OK) json = NULL;
        tabd_json_status status;
        h->json_begin_object(h, b, NULL);
        h->json_begin_array(h, b, "keys");
        for (size_t i = 0; (status = h->json_object_key(h, json, i, &key)) == TABD_JSON_OK; i++) h->json_add_string(h, b, NULL, key);
        h->json_end(h, b);
        h->json_add_int(h, b, "status", status);
        h->json_end(h, b);
    } else if (strcmp(method, "misuse") == 0) {
        const char *which;
        if (h->json_get_string(h, args, "case", &which) != TABD_JSON_OK) return TABD_ERROR;
        return misuse(h, which, reply);
    } else if (strcmp(method, "keep") == 0) {
        kept = h->json_builder(h);
        h->json_begin_object(h, b, NULL);
        h->json_end(h, b);
    } else if (strcmp(method, "array") == 0) {
        h->json_begin_array(h, b, NULL);
        h->json_add_int(h, b, NULL, -7);
        h->json_add_string(h, b, NULL, "x");
        h->json_add_null(h, b, NULL);
        h->json_add_bool(h, b, NULL, 1);
        h->json_add_number(h, b, NULL, 2.5);
        h->json_begin_object(h, b, NULL);
        h->json_begin_array(h, b, "k");
        h->json_end(h, b);
        h->json_add_json(h, b, "j", "{ \"n\" : [1, 2] }");
        h->json_end(h, b);
        h->json_end(h, b);
    } else {
        return TABD_UNKNOWN_METHOD;
    }
    reply->json = h->json_finish(h, b);
    return reply->json != NULL ? TABD_OK : TABD_ERROR;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "json",
    .version = "1.3.0",
    .description = "Exercises the JSON helpers of the host table.",
    .init = json_init,
    .fini = json_fini,
    .should_select = json_should_select,
    .call = json_call,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
