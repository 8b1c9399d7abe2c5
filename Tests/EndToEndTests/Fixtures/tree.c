/*
 * A test plugin for groups (ABI 1.4): it tells, as `plugin` events, what tabd gives it —
 * the candidate's path in should_select and did_select, the selected path, and the
 * visibility and display-order notifications — and refuses every tab inside the group
 * "vault" (any element of the path), so that a gate on a whole group is tested.
 *
 *   cc -shared -fPIC $(pkg-config --cflags tabd-policy) tree.c -o tree.so
 */
#include <string.h>
#include <tabd/policy.h>

static const tabd_host *h;

static tabd_result tree_init(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply) {
    (void)config_json; (void)state;
    if (!TABD_HOST_HAS(host, selected_path)) {
        reply->message = "tree needs tabd 1.4 (selected_path)";
        return TABD_ERROR;
    }
    h = host;
    return TABD_OK;
}

/* Adds the candidate's path as "path": [...]. */
static void add_path(tabd_json_builder *b, const tabd_candidate *cand) {
    h->json_begin_array(h, b, "path");
    if (TABD_CANDIDATE_HAS(cand, path_count))
        for (size_t i = 0; i < cand->path_count; i++) h->json_add_string(h, b, NULL, cand->path[i]);
    h->json_end(h, b);
}

static tabd_result tree_should_select(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
    (void)state;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "should_select");
    h->json_add_string(h, b, "tab", cand->id);
    h->json_add_int(h, b, "index", cand->index);
    add_path(b, cand);
    h->json_end(h, b);
    h->emit(h, c, h->json_finish(h, b));
    for (size_t i = 0; TABD_CANDIDATE_HAS(cand, path_count) && i < cand->path_count; i++) {
        if (strcmp(cand->path[i], "vault") == 0) {
            reply->reason = "vault is locked";
            reply->message = "tabs in the vault group are locked";
            return TABD_DENY;
        }
    }
    return TABD_ABSTAIN;
}

static void tree_did_select(void *state, const tabd_controller *c, const tabd_candidate *cand) {
    (void)state;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "did_select");
    h->json_add_string(h, b, "tab", cand->id);
    add_path(b, cand);
    h->json_begin_array(h, b, "selected_path");
    const char *id;
    for (size_t d = 0; (id = h->selected_path(c, d)) != NULL; d++) h->json_add_string(h, b, NULL, id);
    h->json_end(h, b);
    h->json_end(h, b);
    h->emit(h, c, h->json_finish(h, b));
}

static void tree_visibility_changed(void *state, const tabd_controller *c, const tabd_visibility *tabs, size_t count) {
    (void)state;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "visibility");
    h->json_begin_array(h, b, "tabs");
    for (size_t i = 0; i < count; i++) {
        h->json_begin_object(h, b, NULL);
        h->json_add_string(h, b, "id", tabs[i].id);
        h->json_add_bool(h, b, "hidden", tabs[i].hidden);
        h->json_end(h, b);
    }
    h->json_end(h, b);
    h->json_add_string(h, b, "selected", h->selected_tab(c));
    h->json_end(h, b);
    h->emit(h, c, h->json_finish(h, b));
}

static void tree_display_order_changed(void *state, const tabd_controller *c, const char *group,
                                       const char *const *order, size_t count) {
    (void)state;
    tabd_json_builder *b = h->json_builder(h);
    h->json_begin_object(h, b, NULL);
    h->json_add_string(h, b, "event", "order");
    if (group) h->json_add_string(h, b, "group", group); else h->json_add_null(h, b, "group");
    h->json_begin_array(h, b, "order");
    for (size_t i = 0; i < count; i++) h->json_add_string(h, b, NULL, order[i]);
    h->json_end(h, b);
    h->json_end(h, b);
    h->emit(h, c, h->json_finish(h, b));
}

static const tabd_policy_descriptor descriptor = {
    .abi_major = TABD_POLICY_ABI_MAJOR,
    .abi_minor = TABD_POLICY_ABI_MINOR,
    .struct_size = sizeof(tabd_policy_descriptor),
    .name = "tree",
    .version = "1.0.0",
    .description = "Tells what it sees of groups, and locks the vault group.",
    .init = tree_init,
    .should_select = tree_should_select,
    .did_select = tree_did_select,
    .visibility_changed = tree_visibility_changed,
    .display_order_changed = tree_display_order_changed,
};

TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
