/*
 * CTabPolicy is the plugin ABI; everything a plugin needs is in include/tabd/policy.h.
 * This file exists so SwiftPM builds the target, and checks the layout promises the
 * header makes: changing them is an ABI break (a new major version).
 */
#include "tabd/policy.h"

_Static_assert(TABD_POLICY_DESCRIPTOR_SIZE_1_0 == offsetof(tabd_policy_descriptor, will_stop),
               "the 1.0 descriptor ends with `call`; hooks of later minors come after it");
_Static_assert(offsetof(tabd_policy_descriptor, visibility_changed) > offsetof(tabd_policy_descriptor, will_stop),
               "the 1.4 hooks come after the 1.2 will_stop: the descriptor only grows at its end");
_Static_assert(offsetof(tabd_policy_descriptor, selection_changed) > offsetof(tabd_policy_descriptor, display_order_changed),
               "the 1.6 hooks come after the 1.4 ones");
_Static_assert(offsetof(tabd_policy_descriptor, controller_created) == offsetof(tabd_policy_descriptor, timer) + sizeof(void *),
               "the 1.7 hooks come right after the 1.6 `timer`");
_Static_assert(offsetof(tabd_policy_descriptor, may_open_drawer) == offsetof(tabd_policy_descriptor, controller_deleted) + sizeof(void *),
               "the 1.10 may_open_drawer comes right after the 1.7 `controller_deleted`");
_Static_assert(offsetof(tabd_policy_descriptor, top_column_for_collapsing) == offsetof(tabd_policy_descriptor, may_open_drawer) + sizeof(void *),
               "the 1.11 hooks come right after the 1.10 `may_open_drawer`");
_Static_assert(offsetof(tabd_policy_descriptor, notify) + sizeof(void *) == sizeof(tabd_policy_descriptor),
               "the 1.11 descriptor ends with `notify`; append new hooks after it and bump the minor");
_Static_assert(offsetof(tabd_drawer_open, struct_size) == 0, "tabd_drawer_open starts with its size");
_Static_assert(offsetof(tabd_split_collapse, struct_size) == 0, "tabd_split_collapse starts with its size");
_Static_assert(offsetof(tabd_split_expand, struct_size) == 0, "tabd_split_expand starts with its size");
_Static_assert(offsetof(tabd_notification, struct_size) == 0, "tabd_notification starts with its size");
_Static_assert(offsetof(tabd_candidate, path) > offsetof(tabd_candidate, is_more),
               "the 1.4 path comes after the 1.0 fields of tabd_candidate");
_Static_assert(offsetof(tabd_policy_descriptor, abi_major) == 0,
               "abi_major must stay the first field: tabd reads it before anything else");
_Static_assert(offsetof(tabd_host, struct_size) == 0, "the host table starts with its size");
_Static_assert(offsetof(tabd_candidate, struct_size) == 0, "tabd_candidate starts with its size");
_Static_assert(offsetof(tabd_reply, struct_size) == 0, "tabd_reply starts with its size");
_Static_assert(offsetof(tabd_host, json_get_string) > offsetof(tabd_host, caller),
               "the 1.3 JSON helpers come after the 1.1 caller function: the host table only grows at its end");
_Static_assert(offsetof(tabd_host, selected_path) > offsetof(tabd_host, json_finish),
               "the 1.4 selected_path comes after the 1.3 JSON helpers");
_Static_assert(offsetof(tabd_caller, is_admin) > offsetof(tabd_caller, pid),
               "the 1.5 fields of tabd_caller come after the 1.1 ones");
_Static_assert(offsetof(tabd_host, json_get_array) > offsetof(tabd_host, selected_path),
               "the 1.5 list readers come after the 1.4 selected_path");
_Static_assert(offsetof(tabd_host, store_get) > offsetof(tabd_host, json_object_key),
               "the 1.6 store and timer functions come after the 1.5 list readers");
_Static_assert(offsetof(tabd_host, controller_at) == offsetof(tabd_host, cancel_timer) + sizeof(void *),
               "the 1.7 controller_at comes right after the 1.6 cancel_timer");
_Static_assert(offsetof(tabd_host, wall_clock_ms) == offsetof(tabd_host, controller_at) + sizeof(void *),
               "the 1.9 clock functions come right after the 1.7 controller_at");
_Static_assert(offsetof(tabd_host, store_generation) == offsetof(tabd_host, local_time) + sizeof(void *),
               "the 1.12 store_generation comes right after the 1.9 local_time");
_Static_assert(offsetof(tabd_host, store_generation) + sizeof(void *) == sizeof(tabd_host),
               "the 1.12 host table ends with store_generation; append new functions after it and bump the minor");
_Static_assert(offsetof(tabd_local_time, struct_size) == 0, "tabd_local_time starts with its size");
_Static_assert(offsetof(tabd_selection_change, struct_size) == 0, "tabd_selection_change starts with its size");
