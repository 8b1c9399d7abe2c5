/*
 * A plugin whose output tabd must refuse, for the plugin and end-to-end tests, built by them
 * with  cc -shared -fPIC -I Sources/CTabPolicy/include output.c -o output.so
 *
 * plugin.call methods answer with what their names say: "duplicate" (a repeated key),
 * "surrogate" (a lone \ud800), "huge" (1e999), "garbage" (a value and more), "deep" (65
 * nested arrays), "deep64" (64), "spaced" (valid JSON over several lines). "emit" emits
 * four events, three of them refused (a repeated key, a lone surrogate, -1e400), and
 * answers which emit took, e.g. [0,0,0,1].
 */
#include <stdio.h>
#include <string.h>
#include <tabd/policy.h>

static const tabd_host *H;
static char deep65[131], deep64[129], emitted[32];

static void nest(char *buffer, int n) {
    memset(buffer, '[', (size_t)n);
    memset(buffer + n, ']', (size_t)n);
    buffer[2 * n] = '\0';
}

static tabd_result output_init(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply) {
    (void)config_json; (void)state; (void)reply;
    H = host;
    nest(deep65, 65);
    nest(deep64, 64);
    return TABD_OK;
}

static tabd_result output_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
    (void)state; (void)args;
    if (strcmp(method, "duplicate") == 0) reply->json = "{\"a\":1,\"a\":2}";
    else if (strcmp(method, "surrogate") == 0) reply->json = "[\"\\ud800\"]";
    else if (strcmp(method, "huge") == 0) reply->json = "{\"n\":1e999}";
    else if (strcmp(method, "garbage") == 0) reply->json = "{\"a\":1} x";
    else if (strcmp(method, "deep") == 0) reply->json = deep65;
    else if (strcmp(method, "deep64") == 0) reply->json = deep64;
    else if (strcmp(method, "spaced") == 0) reply->json = "{\n  \"a\" : [1,\n 2],\t\"b\": \"x\\u0041\"\n}\n";
    else if (strcmp(method, "emit") == 0) {
        int taken[4];
        taken[0] = H->emit(H, c, "{\"a\":1,\"a\":2}") == TABD_OK;
        taken[1] = H->emit(H, c, "{\"s\":\"\\udc00\"}") == TABD_OK;
        taken[2] = H->emit(H, c, "{\"n\":-1e400}") == TABD_OK;
        taken[3] = H->emit(H, c, "{\"a\":\n [1,\n 2]}") == TABD_OK;
        snprintf(emitted, sizeof emitted, "[%d,%d,%d,%d]", taken[0], taken[1], taken[2], taken[3]);
        reply->json = emitted;
    } else return TABD_UNKNOWN_METHOD;
    return TABD_OK;
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR, .abi_minor = TABD_POLICY_ABI_MINOR, .struct_size = sizeof(tabd_policy_descriptor),
    .name = "output", .version = "1.0", .description = "a test plugin with output tabd refuses",
    .init = output_init, .call = output_call,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
