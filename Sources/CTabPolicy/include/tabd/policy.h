/*
 * tabd/policy.h — the tabd policy plugin ABI.
 *
 * This header is the whole contract between tabd and a policy plugin. A plugin is a
 * shared object that tabd dlopens (RTLD_NOW | RTLD_LOCAL) and never dlcloses. It
 * exports one symbol, tabd_policy_entry(), returning a descriptor: who the plugin is
 * and which hooks it implements. tabd calls the hooks where a tab bar controller's
 * delegate would be asked (should-select, supported and preferred orientations, since
 * 1.10 may-open-drawer, since 1.11 a split's top column and display mode) or told
 * (did-select, customization, since 1.11 every event of a container beyond tabs), and
 * calls `call` for plugin-defined methods (the `plugin.call` wire command).
 *
 * Building a plugin in C needs nothing but this header, which `make install` (or the
 * distribution's development package) puts beside the pkg-config file tabd-policy.pc:
 *
 *     cc -shared -fPIC $(pkg-config --cflags tabd-policy) myplugin.c -o myplugin.so
 *     tabd --check-plugin ./myplugin.so --settings '{"key": "value"}'
 *
 * (In a source checkout that was not installed, -I Sources/CTabPolicy/include stands in
 * for the pkg-config flags.)
 *
 * Threading: tabd runs one event loop on one thread. Every hook and every host
 * function is called on that thread; a plugin needs no locks, and must not call the
 * host from other threads. Hooks must not block: they run inside a client's command.
 * A plugin runs inside tabd's process: a crash in a plugin is a crash of tabd (the next
 * start names the plugin and hook; a non-required plugin that keeps crashing tabd is
 * quarantined). Configured with `isolation: process`, it runs in a sandboxed helper
 * process instead, with a deadline per hook: the same hooks and host table, and a crash
 * or a timeout fails the plugin (a gate fails closed) while tabd goes on.
 *
 * Strings: every string crossing the boundary is NUL-terminated UTF-8.
 *  - Strings tabd passes to a hook (ids, JSON, methods) and strings a host function
 *    returns are owned by tabd and valid until the hook returns. Copy what you keep.
 *  - Strings a plugin hands to tabd (the descriptor's name/version/description, a
 *    reply's reason/message/json) are owned by the plugin. Descriptor strings must
 *    live forever (string literals); reply strings must stay valid until the hook
 *    returns — tabd copies them right after. Literals and static buffers are fine;
 *    a buffer on the hook's own stack is NOT (it is gone when the hook returns).
 *
 * Versioning (semantic, like sqlite3ext.h and redismodule.h):
 *  - TABD_POLICY_ABI_MAJOR changes only when something existing changes meaning or
 *    layout. tabd refuses a plugin whose major differs from its own.
 *  - TABD_POLICY_ABI_MINOR grows when something is appended: a field at the end of a
 *    struct, a function at the end of the host table, a new enum value. Nothing is
 *    ever removed, reordered or retyped within a major version.
 *  - Every struct that crosses the boundary starts with (or carries) its size, so
 *    each side reads only what the other side has: tabd treats descriptor hooks past
 *    the plugin's struct_size as absent; a plugin must check tabd_host.struct_size
 *    (or TABD_HOST_HAS(host, field)) before using a host function newer than 1.0.
 *  - A plugin built against an older minor loads in a newer tabd. A plugin built
 *    against a newer minor loads in an older tabd too; its init should check
 *    host->abi_minor and fail with a message if it needs something missing.
 *  - Each member added after 1.0 is marked "since 1.N" below.
 *
 * The guide is plugins.md, and hello.c is a commented plugin using most hooks and host
 * functions: both are installed in tabd's documentation directory (`make install`:
 * <prefix>/share/doc/tabd/docs/plugins.md and hello.c; in the source, docs/plugins.md and
 * Plugins/examples/hello.c).
 */
#ifndef TABD_POLICY_H
#define TABD_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------
 * Versions and the entry symbol
 * ------------------------------------------------------------------------------ */

/** The ABI major version this header describes. Must equal tabd's own. */
#define TABD_POLICY_ABI_MAJOR 1
/** The ABI minor version this header describes. tabd accepts any minor. */
#define TABD_POLICY_ABI_MINOR 12

/** The name of the one symbol a plugin exports (see tabd_policy_entry below). */
#define TABD_POLICY_ENTRY_SYMBOL "tabd_policy_entry"

/** Marks the entry point as exported even when building with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define TABD_POLICY_EXPORT __attribute__((visibility("default")))
#else
#define TABD_POLICY_EXPORT
#endif

/* ---------------------------------------------------------------------------------
 * Small types
 * ------------------------------------------------------------------------------ */

/**
 * What a hook answers. Which values a hook may return is said at each hook; any other
 * value (or a value out of this enum) counts as TABD_ERROR.
 */
typedef enum tabd_result {
    /** Done: init succeeded, a call produced its result, an orientation answer is set, a
     *  split proposal's answer is set (since 1.11). */
    TABD_OK = 0,
    /** No opinion. Never an allow by itself: when every plugin abstains, tabd's
     *  default applies (a tap is allowed; orientations are what the tabs support). */
    TABD_ABSTAIN = 1,
    /** should_select, may_open_drawer: this plugin lets it happen (any deny still wins). */
    TABD_ALLOW = 2,
    /** should_select, may_open_drawer: refuse it; set reply->reason (and reply->message).
     *  call: the request is refused (e.g. wrong password); the client gets `denied`. */
    TABD_DENY = 3,
    /** The hook failed; set reply->message. init: the plugin is not loaded. call: the
     *  client gets `invalid_request`. should_select, may_open_drawer: counts as a deny (fail
     *  closed). Orientation hooks and split proposals: counts as an abstention, recorded as a
     *  failure. */
    TABD_ERROR = 4,
    /** call: no such method; the client gets `not_found` with tabd's sentence "plugin 'p'
     *  has no method 'x'" (reply->message is not used). */
    TABD_UNKNOWN_METHOD = 5
} tabd_result;

/**
 * Orientation bits. A tabd_orientation_mask is an OR of these; a single orientation
 * is one bit. The same bits as the wire names: portrait, landscape_left,
 * landscape_right, portrait_upside_down.
 */
typedef uint32_t tabd_orientation_mask;
enum {
    TABD_ORIENTATION_PORTRAIT = 1u << 0,             /**< "portrait" */
    TABD_ORIENTATION_LANDSCAPE_LEFT = 1u << 1,       /**< "landscape_left" */
    TABD_ORIENTATION_LANDSCAPE_RIGHT = 1u << 2,      /**< "landscape_right" */
    TABD_ORIENTATION_PORTRAIT_UPSIDE_DOWN = 1u << 3, /**< "portrait_upside_down" */
    TABD_ORIENTATION_ALL = 0xFu                      /**< every orientation */
};

/** The kind of device a controller behaves like. */
typedef enum tabd_idiom {
    TABD_IDIOM_PHONE = 0, /**< "phone": More after max_visible - 1 tabs, customization. */
    TABD_IDIOM_PAD = 1,   /**< "pad": like phone with a wider bar. */
    TABD_IDIOM_TV = 2     /**< "tv": bar on top, no More, no customization. */
} tabd_idiom;

/** Severity of a log line (tabd maps them onto its logger and journald priorities). */
typedef enum tabd_log_level {
    TABD_LOG_DEBUG = 0,   /**< detail for developers; hidden by default */
    TABD_LOG_INFO = 1,    /**< normal events (a user logged in) */
    TABD_LOG_NOTICE = 2,  /**< normal but significant */
    TABD_LOG_WARNING = 3, /**< something is wrong but handled (a wrong password) */
    TABD_LOG_ERROR = 4    /**< something failed */
} tabd_log_level;

/**
 * A controller, opaque. Read it through the tabd_host functions. The pointer is valid
 * only during the hook that received it; never keep it.
 */
typedef struct tabd_controller tabd_controller;

/** What a user tapped (should_select) or what a tap selected (did_select). */
typedef struct tabd_candidate {
    /** sizeof(tabd_candidate) as tabd compiled it. Fields added later are present only
     *  when struct_size covers them. */
    size_t struct_size;
    /** The tab id, or "more" for the More item. */
    const char *id;
    /** The tab's index in the controller, or -1 for More. */
    long index;
    /** Non-zero when the candidate is the More item (then id is "more"). */
    int is_more;

    /* ---- since 1.4 -------------------------------------------------------------- */

    /** The candidate's place in the controller's tree of tabs (groups, SEMANTICS R13): the
     *  ids from its root tab down to the candidate itself, so path[0] is a root tab and
     *  path[path_count - 1] is `id`. A tab that is not in a group has a path of one id
     *  (itself), and so has More ("more"). `index` is the root tab's index. Read these only
     *  when TABD_CANDIDATE_HAS(candidate, path_count): a tabd before 1.4 does not set them. */
    const char *const *path;
    /** How many ids `path` holds (1 or more). */
    size_t path_count;

    /* ---- since 1.6 -------------------------------------------------------------- */

    /** Non-zero when the candidate is the controller's search tab (a root tab with role
     *  "search", SEMANTICS R14.1: UISearchTab). Read it only when
     *  TABD_CANDIDATE_HAS(candidate, is_search): a tabd before 1.6 does not set it. */
    int is_search;
} tabd_candidate;

/** Whether the candidate has `field` (a field added in a later minor). */
#define TABD_CANDIDATE_HAS(candidate, field) \
    ((candidate)->struct_size >= offsetof(tabd_candidate, field) + sizeof((candidate)->field))

/** TABD_CANDIDATE_HAS for languages that cannot expand it (Swift): whether the candidate
 *  holds the `size` bytes of the field at byte `offset` (offsetof, sizeof). */
static inline int tabd_candidate_has_field_at(const tabd_candidate *candidate, size_t offset, size_t size) {
    return candidate != NULL && candidate->struct_size >= offset + size;
}

/** One tab whose visibility changed (the visibility_changed hook, since 1.4). */
typedef struct tabd_visibility {
    /** The tab's id (any tab of the tree). */
    const char *id;
    /** Non-zero: the tab is now hidden; 0: it is shown again. */
    int hidden;
} tabd_visibility;

/**
 * Where a hook leaves its words for tabd. tabd sets every pointer to NULL before the
 * hook; the plugin sets the ones it needs. Strings: see "Strings" above.
 */
typedef struct tabd_reply {
    /** sizeof(tabd_reply) as tabd compiled it. */
    size_t struct_size;
    /** should_select → TABD_DENY: a short reason, e.g. "not logged in". It reaches the
     *  client as the error's `reason`. NULL: tabd says "denied". */
    const char *reason;
    /** TABD_DENY / TABD_ERROR: a sentence for people, e.g. "login required before
     *  'settings' can be selected". It reaches the client as the error's `message`. */
    const char *message;
    /** call → TABD_OK: the result as JSON text (any JSON value). NULL means {}. tabd
     *  checks it; text that is not JSON turns the call into an error. */
    const char *json;
} tabd_reply;

/**
 * Who sent the request a hook runs for (since 1.1): the peer credentials of the client's
 * connection, as the kernel reported them when it connected (SO_PEERCRED) — not anything
 * the client says about itself. Filled by tabd_host.caller.
 */
typedef struct tabd_caller {
    /** sizeof(tabd_caller) as the plugin compiled it. Set it before calling
     *  tabd_host.caller: tabd fills only the fields that fit, and never touches it. */
    size_t struct_size;
    /** The client's user id. Key per-client limits on it: a client can open as many
     *  connections (and so processes) as it likes, but cannot change its uid. */
    uint32_t uid;
    /** The client's primary group id. */
    uint32_t gid;
    /** The process id that connected. It may have exited (and the number been reused)
     *  since: good for log lines, not for signals. */
    int32_t pid;
    /* ---- since 1.5 (tabd fills them when struct_size covers them) ---- */
    /** 1 when tabd counts the caller as an administrator by the same rules as for its
     *  admin commands (root, tabd's own user, access.admin_uids, or a primary or
     *  supplementary group in access.admin_gids), else 0: a plugin needs no admin list
     *  of its own. */
    int32_t is_admin;
    /** How many supplementary groups the caller's process had when it connected, and
     *  the groups (SO_PEERGROUPS), valid until the hook returns; 0 and NULL when the
     *  kernel could not say. */
    size_t group_count;
    const uint32_t *groups;
    /* ---- since 1.8 ---- */
    /** What the client said it relays for, in its `hello` (`"via":"tabd-web"`: a bridge
     *  such as the web console, whose users tabd cannot see), valid until the hook
     *  returns; NULL for a client that said nothing (a socket client acting for itself)
     *  and in a tabd before 1.8. Such a connection is never an administrator (is_admin
     *  0), whatever its uid: a plugin can tell a web user from a socket client. */
    const char *via;
} tabd_caller;

/**
 * What a tabd_host json_get_* function answers (since 1.3).
 */
typedef enum tabd_json_status {
    /** Found, of the type asked for: the out parameter is set. */
    TABD_JSON_OK = 0,
    /** The object has no member with that key, or its value is null: use your default. */
    TABD_JSON_MISSING = 1,
    /** The member is there but holds another type (a string where a number was asked,
     *  2.5 for an integer, ...). The out parameter is left as it was. */
    TABD_JSON_WRONG_TYPE = 2,
    /** The text (or the key) is NULL, is not JSON tabd accepts (see docs/plugins.md,
     *  "What tabd accepts from a plugin"), or is not a JSON object. */
    TABD_JSON_INVALID = 3
} tabd_json_status;

/**
 * A JSON text being written, opaque (since 1.3). Made by tabd_host.json_builder, valid
 * until the hook that made it returns; see "writing JSON" in the host table.
 */
typedef struct tabd_json_builder tabd_json_builder;

/* ---------------------------------------------------------------------------------
 * Since 1.6: the plugin's store, timers, and selection changes
 * ------------------------------------------------------------------------------ */

/**
 * What a tabd_host store_* function answers (since 1.6). The store is a small key-value
 * map per plugin (by its configured name), written through tabd's own journal and snapshot:
 * what store_put accepted during a client's request is on disk when that request is
 * answered (under fsync: always; as durable as any change under the other policies), and
 * comes back after a restart or kill -9, before init runs again.
 */
typedef enum tabd_store_status {
    /** Done (get/key: the out parameter is set). */
    TABD_STORE_OK = 0,
    /** get/delete: no such key. key: `index` is past the last key. */
    TABD_STORE_MISSING = 1,
    /** put: the key, the value, or the plugin's store with it would pass a limit below;
     *  nothing changed. */
    TABD_STORE_TOO_LARGE = 2,
    /** The key is NULL or empty, the key or value is not UTF-8, or an argument is NULL. */
    TABD_STORE_INVALID = 3,
    /** put/delete: tabd cannot write its journal now (a full or failing disk: clients'
     *  changes are refused too); nothing changed. Try again later. */
    TABD_STORE_UNAVAILABLE = 4,
    /** put/delete (since 1.7): the plugin has written more than its budget over time allows
     *  (tabd.yaml's plugins.store_bytes_per_second, with a burst of plugins.store_burst_bytes;
     *  each write counts its key, its value and TABD_STORE_WRITE_COST_BYTES), or tabd's
     *  journal is waiting for a compaction to finish; nothing changed. Write less often, or
     *  try again later (a timer). */
    TABD_STORE_RATE_LIMITED = 5
} tabd_store_status;

/** The store's limits, per plugin (tabd enforces exactly these; docs/plugins.md, "Keeping
 *  state"). A key is 1 to TABD_STORE_MAX_KEY_BYTES bytes; a value 0 to
 *  TABD_STORE_MAX_VALUE_BYTES; a plugin holds at most TABD_STORE_MAX_KEYS keys and
 *  TABD_STORE_MAX_TOTAL_BYTES bytes of keys and values together. */
#define TABD_STORE_MAX_KEY_BYTES 256
#define TABD_STORE_MAX_VALUE_BYTES 65536
#define TABD_STORE_MAX_KEYS 1024
#define TABD_STORE_MAX_TOTAL_BYTES 1048576
/** One hook call writes at most TABD_STORE_MAX_TOTAL_BYTES, each write counting its key,
 *  its value and TABD_STORE_WRITE_COST_BYTES more (what its journal record costs): at most
 *  16,384 writes however small. */
#define TABD_STORE_WRITE_COST_BYTES 64

/** Timers (since 1.6): a plugin holds at most TABD_TIMER_MAX armed timers, each due
 *  1 ms to TABD_TIMER_MAX_MS (24 hours) after it was armed. */
#define TABD_TIMER_MAX 64
#define TABD_TIMER_MAX_MS 86400000u

/** Why the selection changed (the selection_changed hook, since 1.6; the wire's
 *  selection_changed event's `cause`). A later minor may add causes: treat a value you do
 *  not know as "something else changed it". */
typedef enum tabd_selection_cause {
    TABD_CAUSE_SELECT = 0,    /**< "select": a programmatic select (a client's, or a plugin's request_select) */
    TABD_CAUSE_TAP = 1,       /**< "tap": a user's tap (did_select was called too) */
    TABD_CAUSE_TABS = 2,      /**< "tabs": the tabs were replaced, added or removed */
    TABD_CAUSE_CUSTOMIZE = 3, /**< "customize": a customization session moved it */
    TABD_CAUSE_RESTORE = 4,   /**< "restore": state restoration */
    TABD_CAUSE_HIDDEN = 5,    /**< "hidden": the selected tab (or its group) was hidden */
    TABD_CAUSE_SEARCH_CANCELLED = 6 /**< "search_cancelled": search was cancelled, the selection went back */
} tabd_selection_cause;

/** One change of the selection (the selection_changed hook, since 1.6). */
typedef struct tabd_selection_change {
    /** sizeof(tabd_selection_change) as tabd compiled it. */
    size_t struct_size;
    /** What is selected now: a root tab's id, "more", or NULL (nothing). */
    const char *id;
    /** What was selected before (as `id`). */
    const char *previous;
    tabd_selection_cause cause;
    /** The selected path now, root tab first (one id without groups; none when `id` is
     *  NULL), `path_count` ids. */
    const char *const *path;
    size_t path_count;
} tabd_selection_change;

/** A local date and time (local_time, since 1.9): an instant as tabd's time zone shows it.
 *  Set struct_size to sizeof(tabd_local_time) before the call: tabd fills the fields that
 *  fit in it. */
typedef struct tabd_local_time {
    /** sizeof(tabd_local_time) as the plugin compiled it (set by the plugin). */
    size_t struct_size;
    /** The instant: milliseconds since 1970-01-01T00:00:00Z. */
    int64_t unix_ms;
    int32_t year;        /**< e.g. 2026 */
    int32_t month;       /**< 1 (January) to 12 */
    int32_t day;         /**< 1 to 31 */
    int32_t hour;        /**< 0 to 23 */
    int32_t minute;      /**< 0 to 59 */
    int32_t second;      /**< 0 to 60 (60: a leap second) */
    int32_t millisecond; /**< 0 to 999 */
    int32_t weekday;     /**< 0 (Sunday) to 6 (Saturday) */
    int32_t yearday;     /**< 0 (1 January) to 365 */
    /** Seconds east of UTC at that instant: 3600 for CET, -18000 for EST, 19800 for IST. */
    int32_t utc_offset_seconds;
    /** 1: daylight saving time is in effect; 0: it is not; -1: the zone does not say. */
    int32_t is_dst;
    /** The zone's abbreviation at that instant ("CET", "CEST", "UTC"), valid until the hook
     *  returns; NULL when the zone has none. */
    const char *zone;
} tabd_local_time;

/**
 * A user's open of a drawer (the may_open_drawer hook, since 1.10; SEMANTICS R15.26): a
 * drawer command (`open_drawer`, `toggle_drawer` that would open) with a `gesture`. The
 * strings are valid until the hook returns. Fields added in later minors are present only
 * when struct_size covers them.
 */
typedef struct tabd_drawer_open {
    /** sizeof(tabd_drawer_open) as tabd compiled it. */
    size_t struct_size;
    /** The drawer controller's name (a controller of kind "drawer", not a tab controller:
     *  the tabd_controller readers do not read it). */
    const char *controller;
    /** The side the user opens: "left" or "right". */
    const char *side;
    /** The gesture, as the wire names it: "pan_navigation_bar", "pan_center",
     *  "bezel_pan_center", "custom" or "button". A later minor may add gestures. */
    const char *gesture;
} tabd_drawer_open;

/**
 * A split view controller collapsing (the top_column_for_collapsing hook, since 1.11;
 * SEMANTICS R15.20): which column ends up on top of its stack. The strings are valid until
 * the hook returns. Fields added in later minors are present only when struct_size covers
 * them.
 */
typedef struct tabd_split_collapse {
    /** sizeof(tabd_split_collapse) as tabd compiled it. */
    size_t struct_size;
    /** The split controller's name (a controller of kind "split", not a tab controller). */
    const char *controller;
    /** Its style: "double" or "triple". */
    const char *style;
    /** The column proposed so far: "secondary" (tabd's proposal), or what a plugin before
     *  this one answered. */
    const char *proposed;
} tabd_split_collapse;

/**
 * A split view controller expanding (the display_mode_for_expanding hook, since 1.11;
 * SEMANTICS R15.21): the display mode it takes. The strings are valid until the hook
 * returns. Fields added in later minors are present only when struct_size covers them.
 */
typedef struct tabd_split_expand {
    /** sizeof(tabd_split_expand) as tabd compiled it. */
    size_t struct_size;
    /** The split controller's name (a controller of kind "split", not a tab controller). */
    const char *controller;
    /** Its style: "double" or "triple". */
    const char *style;
    /** Its split behavior (derived, never "automatic"): "tile", "overlay" or "displace". */
    const char *behavior;
    /** The display mode proposed so far: what the split's preferences derive (R15.17), or
     *  what a plugin before this one answered. Never "automatic". */
    const char *proposed;
} tabd_split_expand;

/**
 * One event of a container beyond tabs (the notify hook, since 1.11; SEMANTICS R15.33): a
 * navigation, split, drawer or custom controller's event, or an event a command of such a
 * tree made another controller send. The strings are valid until the hook returns. Fields
 * added in later minors are present only when struct_size covers them.
 */
typedef struct tabd_notification {
    /** sizeof(tabd_notification) as tabd compiled it. */
    size_t struct_size;
    /** The event's name, as the wire names it ("drawer_changed", "appearance", ...). A later
     *  tabd may send events this plugin does not know: skip them. */
    const char *name;
    /** The name of the controller that sends it (the event's "controller"). */
    const char *controller;
    /** The event as a subscriber gets it: one JSON object, {"event":…,"controller":…,
     *  "seq":…,"data":{…}}, without the line's newline; NUL-terminated. */
    const char *json;
    /** strlen(json). */
    size_t json_length;
} tabd_notification;

/* ---------------------------------------------------------------------------------
 * The host table: what tabd offers a plugin
 * ------------------------------------------------------------------------------ */

/**
 * Functions tabd offers, passed to init. Keep the pointer: it stays valid until fini.
 * The table only grows at its end; check struct_size (TABD_HOST_HAS) before calling a
 * function added after the minor your plugin requires.
 *
 * Controller readers take the tabd_controller a hook received and return NULL / -1 /
 * 0 when the pointer is stale or an index is out of range. Returned strings are valid
 * until the hook returns.
 *
 * Functions that act on behalf of the plugin (log, emit, request_select) or answer
 * about its current hook (caller) take the host table itself as their first argument:
 * that is how tabd knows who is speaking.
 */
typedef struct tabd_host tabd_host;
struct tabd_host {
    /** sizeof(tabd_host) as tabd compiled it. */
    size_t struct_size;
    /** tabd's ABI major (equal to the plugin's, or the plugin would not be loaded). */
    uint32_t abi_major;
    /** tabd's ABI minor: which functions below exist. */
    uint32_t abi_minor;

    /* ---- since 1.0 -------------------------------------------------------------- */

    /** Writes one line to tabd's log, attributed to this plugin. */
    void (*log)(const tabd_host *host, tabd_log_level level, const char *message);

    /** The controller's name ("main", "living-room", ...). Login-like state is usually
     *  kept per controller name. */
    const char *(*controller_name)(const tabd_controller *controller);
    /** The controller's idiom. */
    tabd_idiom (*controller_idiom)(const tabd_controller *controller);
    /** The most items the controller's bar shows; with more tabs, More appears. */
    size_t (*max_visible)(const tabd_controller *controller);
    /** Whether the More item is on the bar (non-zero) or not (0). */
    int (*more_shown)(const tabd_controller *controller);
    /** The current interface orientation: one TABD_ORIENTATION_* bit. */
    tabd_orientation_mask (*orientation)(const tabd_controller *controller);

    /** How many tabs the controller has (More is never a tab). */
    size_t (*tab_count)(const tabd_controller *controller);
    /** The id of the tab at `index` (0 is the leading tab), or NULL. */
    const char *(*tab_id)(const tabd_controller *controller, size_t index);
    /** The title the bar shows for the tab at `index` (its item's title, else the
     *  tab's title, else its id), or NULL when out of range. */
    const char *(*tab_title)(const tabd_controller *controller, size_t index);
    /** The badge of the tab at `index`, or NULL when it has none. */
    const char *(*tab_badge)(const tabd_controller *controller, size_t index);
    /** The restoration id of the tab at `index`, or NULL when it has none. */
    const char *(*tab_restoration_id)(const tabd_controller *controller, size_t index);
    /** The index of the tab with this id, or -1 when there is none. */
    long (*tab_index)(const tabd_controller *controller, const char *id);
    /** What is selected: a tab id, "more", or NULL when nothing is. During did_select
     *  this is already the tapped candidate. */
    const char *(*selected_tab)(const tabd_controller *controller);
    /** The selected tab's index, or -1 when More or nothing is selected. */
    long (*selected_index)(const tabd_controller *controller);

    /**
     * Publishes a `plugin` event, naming this plugin and carrying `json` (a JSON
     * object) as its data, to the clients subscribed to this controller's `plugin`
     * events. Sent after the current command. Returns TABD_OK, or TABD_ERROR when
     * json is not a JSON object or the controller pointer is stale.
     */
    tabd_result (*emit)(const tabd_host *host, const tabd_controller *controller, const char *json);

    /**
     * Asks tabd to select `tab` (a tab id, or "more") in this controller after the
     * current command, as a programmatic select (no should_select, no did_select).
     * Returns TABD_OK when queued, TABD_ERROR when the arguments are unusable. A tab
     * that no longer exists when the selection is applied is logged and skipped.
     */
    tabd_result (*request_select)(const tabd_host *host, const tabd_controller *controller, const char *tab);

    /* ---- since 1.1 -------------------------------------------------------------- */

    /**
     * Who is calling. During a `call` hook that runs for a client's `plugin.call` request,
     * fills *caller with that client's credentials (see tabd_caller) and returns 1. Returns
     * 0 and leaves *caller as it was when there is no caller: in init, fini and every other
     * hook, and for a call that no client made. Check TABD_HOST_HAS(host, caller) first (a
     * tabd before 1.1 does not have it), and set caller->struct_size:
     *
     *     tabd_caller who = { .struct_size = sizeof who };
     *     if (TABD_HOST_HAS(host, caller) && host->caller(host, &who))
     *         ... who.uid, who.gid, who.pid ...
     */
    int (*caller)(const tabd_host *host, tabd_caller *caller);

    /* ---- since 1.3: reading JSON ------------------------------------------------ */
    /*
     * Read one member of a JSON object text — a hook's config_json or args_json, or the
     * text json_get_object returned — with tabd's own strict parser (the one client
     * requests go through). Each takes the object's text and a key and answers a
     * tabd_json_status; *out is set only on TABD_JSON_OK. A nested member is read by
     * chaining: json_get_object, then a getter on the text it returned.
     *
     * Strings these return are owned by tabd and valid until the current hook returns
     * (for init: until init returns, so copy what the instance keeps). Check
     * TABD_HOST_HAS(host, json_get_string) (or host->abi_minor >= 3) before using any of
     * them: a tabd before 1.3 does not have them.
     *
     *     const char *prefix;
     *     switch (host->json_get_string(host, config_json, "prefix", &prefix)) {
     *     case TABD_JSON_OK:      ... copy prefix ...; break;
     *     case TABD_JSON_MISSING: ... use the default ...; break;
     *     default:                reply->message = "settings: prefix must be a string"; return TABD_ERROR;
     *     }
     */

    /** The string member `key`. *value: its UTF-8 text (escapes decoded). A string holding
     *  U+0000 cannot be a C string: it answers TABD_JSON_WRONG_TYPE. */
    tabd_json_status (*json_get_string)(const tabd_host *host, const char *json, const char *key, const char **value);
    /** The integer member `key`: a number without a fraction that fits int64_t (2, -7,
     *  1e3). 2.5 or 1e30 answers TABD_JSON_WRONG_TYPE. */
    tabd_json_status (*json_get_int)(const tabd_host *host, const char *json, const char *key, int64_t *value);
    /** The number member `key`, integer or not, as a double. */
    tabd_json_status (*json_get_number)(const tabd_host *host, const char *json, const char *key, double *value);
    /** The boolean member `key`: *value is 1 for true, 0 for false. */
    tabd_json_status (*json_get_bool)(const tabd_host *host, const char *json, const char *key, int *value);
    /** The object member `key`, as compact JSON text (*object_json), to read with the
     *  getters above: nested settings such as {"limits": {"max": 3}}. */
    tabd_json_status (*json_get_object)(const tabd_host *host, const char *json, const char *key, const char **object_json);

    /* ---- since 1.3: writing JSON ------------------------------------------------ */
    /*
     * A builder writes JSON text for emit and for reply->json without hand-escaping:
     * strings are escaped by tabd (quotes, backslashes, control characters), numbers
     * written as tabd writes them. Make one with json_builder, add values, call
     * json_finish, and hand the text on:
     *
     *     tabd_json_builder *b = host->json_builder(host);
     *     host->json_begin_object(host, b, NULL);
     *     host->json_add_string(host, b, "event", "tapped");
     *     host->json_add_string(host, b, "tab", candidate->id);   // any bytes: escaped
     *     host->json_add_int(host, b, "taps", taps);
     *     host->json_end(host, b);
     *     const char *text = host->json_finish(host, b);         // NULL if misused
     *     if (text != NULL) host->emit(host, controller, text);
     *
     * Keys: inside an object every add and begin takes the member's key; inside an array,
     * and for the one top-level value, the key must be NULL. A builder used wrongly (a
     * missing or extra key, json_end with nothing open, a second top-level value, an add
     * after json_finish, a NaN or infinite number, a NULL string, JSON text tabd does not
     * accept for json_add_json, more than 1 MiB of text) stops writing: json_finish
     * returns NULL and tabd logs one warning naming the plugin and the first mistake.
     *
     * Lifetime: a builder and the text json_finish returns are owned by tabd and valid
     * until the current hook returns (for init: until init returns); a builder used after
     * that, or from another plugin, is ignored. At most 64 builders per hook call.
     */

    /** A new, empty builder; NULL when this hook call already made 64. */
    tabd_json_builder *(*json_builder)(const tabd_host *host);
    /** Opens an object: the top-level value (key NULL), an array element (key NULL), or
     *  the member `key` of the enclosing object. */
    void (*json_begin_object)(const tabd_host *host, tabd_json_builder *builder, const char *key);
    /** Opens an array, placed like json_begin_object. */
    void (*json_begin_array)(const tabd_host *host, tabd_json_builder *builder, const char *key);
    /** Closes the innermost open object or array. */
    void (*json_end)(const tabd_host *host, tabd_json_builder *builder);
    /** Adds a string (NUL-terminated UTF-8; escaped as JSON needs). */
    void (*json_add_string)(const tabd_host *host, tabd_json_builder *builder, const char *key, const char *value);
    /** Adds an integer. */
    void (*json_add_int)(const tabd_host *host, tabd_json_builder *builder, const char *key, int64_t value);
    /** Adds a number (finite: NaN and infinities are a mistake, JSON cannot hold them). */
    void (*json_add_number)(const tabd_host *host, tabd_json_builder *builder, const char *key, double value);
    /** Adds true (value non-zero) or false. */
    void (*json_add_bool)(const tabd_host *host, tabd_json_builder *builder, const char *key, int value);
    /** Adds null. */
    void (*json_add_null)(const tabd_host *host, tabd_json_builder *builder, const char *key);
    /** Adds a value given as JSON text (e.g. what json_get_object returned), checked by
     *  tabd's parser and written compactly. */
    void (*json_add_json)(const tabd_host *host, tabd_json_builder *builder, const char *key, const char *json);
    /** Ends the builder and returns its text: one complete JSON value with every object
     *  and array closed. NULL when it is not (nothing added, something still open) or the
     *  builder was misused (see above). The builder takes no more values after this. */
    const char *(*json_finish)(const tabd_host *host, tabd_json_builder *builder);

    /* ---- since 1.4 -------------------------------------------------------------- */

    /**
     * The selected path (SEMANTICS R13.2): the id at `depth` of the ids from the selected
     * root tab down to the selected leaf, or NULL past its end. depth 0 is what
     * selected_tab answers (a root tab, or "more"); a controller without groups has a path
     * of one id. The other readers above see the root tabs only: a group's children reach a
     * plugin through this path and through tabd_candidate.path.
     *
     *     for (size_t d = 0; (id = host->selected_path(c, d)) != NULL; d++) leaf = id;
     */
    const char *(*selected_path)(const tabd_controller *controller, size_t depth);

    /* ---- since 1.5: reading lists, and the keys of an object -------------------- */
    /*
     * Lists in settings and arguments ({"limited": ["games", "video"]}) and objects whose
     * keys the plugin must check ("refuses what it does not know", tabd.yaml(5)). They
     * answer a tabd_json_status as the 1.3 getters do, and read an array's text the way
     * those read an object's: json_get_array (or json_array_array) gives the text, the
     * json_array_* functions read its elements by index (0 first). Each call parses the
     * text again: read a list once, in init, not per hook call. Check
     * TABD_HOST_HAS(host, json_object_key) (or host->abi_minor >= 5) first.
     *
     *     const char *list; size_t n;
     *     if (host->json_get_array(host, config_json, "limited", &list) == TABD_JSON_OK
     *         && host->json_array_length(host, list, &n) == TABD_JSON_OK)
     *         for (size_t i = 0; i < n; i++) {
     *             const char *tab;
     *             if (host->json_array_string(host, list, i, &tab) != TABD_JSON_OK) ... refuse ...;
     *         }
     *     const char *key;
     *     for (size_t i = 0; host->json_object_key(host, config_json, i, &key) == TABD_JSON_OK; i++)
     *         if (strcmp(key, "limited") != 0) ... refuse: "settings: unknown key <key>" ...;
     *
     * For every function below: TABD_JSON_INVALID when the text is NULL, is not JSON tabd
     * accepts, or is not an array (an object for json_object_key); TABD_JSON_MISSING when
     * `index` is past the end (or the element is null); TABD_JSON_WRONG_TYPE when the
     * element is of another type (as the 1.3 getter of that type would say).
     */

    /** The array member `key` of the object text `json`, as compact JSON text (*array_json). */
    tabd_json_status (*json_get_array)(const tabd_host *host, const char *json, const char *key, const char **array_json);
    /** How many elements the array text `array_json` holds (nulls included). */
    tabd_json_status (*json_array_length)(const tabd_host *host, const char *array_json, size_t *count);
    /** Element `index` of the array text, as json_get_string reads a member. */
    tabd_json_status (*json_array_string)(const tabd_host *host, const char *array_json, size_t index, const char **value);
    /** Element `index`, as json_get_int reads a member (a whole number within int64_t). */
    tabd_json_status (*json_array_int)(const tabd_host *host, const char *array_json, size_t index, int64_t *value);
    /** Element `index`, as json_get_number reads a member. */
    tabd_json_status (*json_array_number)(const tabd_host *host, const char *array_json, size_t index, double *value);
    /** Element `index`, as json_get_bool reads a member (1 or 0). */
    tabd_json_status (*json_array_bool)(const tabd_host *host, const char *array_json, size_t index, int *value);
    /** Element `index`, an object, as compact JSON text (for the 1.3 getters). */
    tabd_json_status (*json_array_object)(const tabd_host *host, const char *array_json, size_t index, const char **object_json);
    /** Element `index`, an array, as compact JSON text (for the functions above). */
    tabd_json_status (*json_array_array)(const tabd_host *host, const char *array_json, size_t index, const char **array_json_out);
    /** The key at `index` of the object text `json`, in the text's order: iterate from 0
     *  until TABD_JSON_MISSING. A key holding U+0000 answers TABD_JSON_WRONG_TYPE. */
    tabd_json_status (*json_object_key)(const tabd_host *host, const char *json, size_t index, const char **key);

    /* ---- since 1.6: keeping state, and acting on time --------------------------- */
    /*
     * The plugin's store (see tabd_store_status): strings under string keys, kept by tabd
     * across reloads, helper restarts, restarts and kill -9. Any hook may read and write it,
     * init included (it sees what the last run stored). Keys are kept in byte order.
     *
     *     const char *n;
     *     long count = host->store_get(host, "count", &n) == TABD_STORE_OK ? atol(n) : 0;
     *     char text[24]; snprintf(text, sizeof text, "%ld", count + 1);
     *     if (host->store_put(host, "count", text) != TABD_STORE_OK) ... not kept ...;
     */

    /** The value under `key` (*value, valid until the hook returns). */
    tabd_store_status (*store_get)(const tabd_host *host, const char *key, const char **value);
    /** Sets `key` to `value` (UTF-8 text; JSON is a good format for structure). */
    tabd_store_status (*store_put)(const tabd_host *host, const char *key, const char *value);
    /** Removes `key`. */
    tabd_store_status (*store_delete)(const tabd_host *host, const char *key);
    /** The key at `index` in byte order (*key, valid until the hook returns): iterate from 0
     *  until TABD_STORE_MISSING. */
    tabd_store_status (*store_key)(const tabd_host *host, size_t index, const char **key);

    /**
     * Arms the plugin's timer `name` (1 to 64 bytes) for the controller named `controller`
     * (NULL: a timer of no controller): the `timer` hook runs once, `milliseconds` from now
     * (1 to TABD_TIMER_MAX_MS), on tabd's loop like any hook (the same deadline, isolation and
     * `explain` record). Arming a name that is armed moves it. A repeating timer arms itself
     * again from its hook. Timers are not kept across restarts or reloads that replace the
     * instance: arm them again in init (from the store). Once tabd is stopping (SIGTERM) no
     * timer fires any more and set_timer answers TABD_ERROR; fini still runs. TABD_ERROR: a
     * NULL or bad name, a delay out of range, TABD_TIMER_MAX timers armed already, or tabd
     * stopping.
     */
    tabd_result (*set_timer)(const tabd_host *host, const char *controller, const char *name, uint64_t milliseconds);
    /** Disarms the timer (TABD_OK also when it was not armed). */
    tabd_result (*cancel_timer)(const tabd_host *host, const char *controller, const char *name);

    /* ---- since 1.7: controllers coming and going -------------------------------- */

    /**
     * The name of controller `index` of the controllers tabd holds now, in byte order of
     * their names, or NULL past the end: iterate from 0 until NULL. Any hook may ask, init
     * included: that is how a plugin learns the controllers that exist as it starts (later
     * ones are told by controller_created and controller_deleted). During controller_deleted
     * the controller being deleted is no longer listed. Valid until the hook returns.
     *
     *     const char *name;
     *     for (size_t i = 0; (name = host->controller_at(host, i)) != NULL; i++) ... name ...;
     */
    const char *(*controller_at)(const tabd_host *host, size_t index);

    /* ---- since 1.9: the wall clock and the local time --------------------------- */
    /*
     * Timers are relative; a policy that says "no games after 21:00" needs the date and the
     * local time. Both come from the machine's clock (CLOCK_REALTIME), which can be set or
     * jump (NTP, an operator): measure intervals with timers, and ask again rather than
     * adding up. The time zone is tabd's: its TZ environment variable, else /etc/localtime,
     * read again when either changes — the same in process and in an isolated helper (which
     * inherits tabd's environment and sees the same /etc/localtime). Any hook may ask, init
     * included.
     *
     *     tabd_local_time now = { .struct_size = sizeof now };
     *     if (TABD_HOST_HAS(host, local_time)
     *         && host->local_time(host, host->wall_clock_ms(host), &now) == TABD_OK
     *         && now.hour >= 21) ... bedtime ...;
     *     // The next 21:00: arm a timer for it (set_timer), and check again when it runs.
     */

    /** The wall-clock time now: milliseconds since 1970-01-01T00:00:00Z. */
    int64_t (*wall_clock_ms)(const tabd_host *host);
    /** The instant `unix_ms` (as wall_clock_ms answers) in tabd's time zone: fills the
     *  fields of *out that its struct_size holds. TABD_ERROR (nothing filled) when `out` is
     *  NULL or its struct_size 0, or the instant is out of the calendar's range. */
    tabd_result (*local_time)(const tabd_host *host, int64_t unix_ms, tabd_local_time *out);

    /* ---- since 1.12: whether the store changed ----------------------------------- */
    /*
     * A number that changes whenever the plugin's store may hold something else: the
     * plugin's own store_put and store_delete, and tabd putting the store back (the writes
     * of a request whose journal record could not be written are undone; an isolated
     * helper's copy is brought up to date; a restart or reload reads it from disk). While
     * it answers the same number, store_get answers what it answered: a hook called on
     * every tap can keep what it read from the store (and what it made of it) and read again
     * only when the number moved, instead of reading and parsing the same value each time.
     * Only equality means anything: the number is not a count, and does not say which key
     * changed. Any hook may ask, init included.
     *
     *     static uint64_t seen; static int logged_in;   // what the store said, and when
     *     uint64_t now = TABD_HOST_HAS(host, store_generation) ? host->store_generation(host) : 0;
     *     if (now == 0 || now != seen) { logged_in = ... store_get ...; seen = now; }
     */

    /** The store's generation now (never 0). */
    uint64_t (*store_generation)(const tabd_host *host);

    /* Functions added in later minors go here, each marked "since 1.N". */
};

/** Whether the host table has `field` (a function added in a later minor). */
#define TABD_HOST_HAS(host, field) \
    ((host)->struct_size >= offsetof(tabd_host, field) + sizeof((host)->field) && (host)->field != NULL)

/**
 * TABD_HOST_HAS for languages that cannot expand a macro with arguments (Swift): whether
 * the table has the function at byte `offset` — offsetof(tabd_host, field); in Swift,
 * MemoryLayout<tabd_host>.offset(of: \.field)! — and it is set. It reads only the table,
 * so it works with a tabd of any minor. (The Swift SDK's PolicyHost.has(\.field) calls it.)
 */
static inline int tabd_host_has_function_at(const tabd_host *host, size_t offset) {
    return host != NULL && host->struct_size >= offset + sizeof(void (*)(void))
        && *(const uintptr_t *)(const void *)((const char *)host + offset) != 0;
}

/* ---------------------------------------------------------------------------------
 * The descriptor: what a plugin offers tabd
 * ------------------------------------------------------------------------------ */

/**
 * A plugin's identity and hooks. Return a pointer to a static instance from
 * tabd_policy_entry(). Every hook may be NULL: tabd then skips the plugin for it
 * (for should_select and the orientation hooks, NULL means "abstain"). `state` is
 * whatever init stored in *state (NULL if it stored nothing).
 */
typedef struct tabd_policy_descriptor {
    /** TABD_POLICY_ABI_MAJOR as the plugin was compiled. Must equal tabd's. */
    uint32_t abi_major;
    /** TABD_POLICY_ABI_MINOR as the plugin was compiled. */
    uint32_t abi_minor;
    /** sizeof(tabd_policy_descriptor) as the plugin was compiled. tabd refuses a
     *  plugin whose struct_size is smaller than the 1.0 descriptor. */
    size_t struct_size;

    /** The plugin's name: short, lower-case, e.g. "login-gate". It names the plugin in
     *  `plugins`, `plugin.call`, `explain`, `stats` and in `denied` errors. */
    const char *name;
    /** The plugin's own version, e.g. "1.2.0". */
    const char *version;
    /** One sentence saying what the plugin does. */
    const char *description;

    /**
     * Called once per instance, with the plugin's settings from tabd's configuration as
     * JSON text (an object; "{}" when there are none): at start, and at a reload that
     * changed the plugin's settings (the new instance is initialised while the old one
     * still runs; the old one is stopped only if every required plugin started). Keep `host` for later. Store per-instance state in *state.
     * Return TABD_OK, or TABD_ERROR with reply->message saying what is wrong with the
     * settings: the plugin is then refused (and tabd does not start if it is
     * required).
     */
    tabd_result (*init)(const tabd_host *host, const char *config_json, void **state, tabd_reply *reply);

    /** Called when the instance stops: a reload replaced it (its settings changed) or
     *  dropped it (no longer configured), or tabd shuts down. Free what init made. The
     *  code itself is never unloaded. A reload that keeps a plugin's file and settings
     *  calls neither fini nor init: the instance runs on as it was. */
    void (*fini)(void *state);

    /**
     * A user tapped `candidate` (a tab, or More): may it be selected? Not asked for
     * programmatic selection. Return TABD_ALLOW, TABD_ABSTAIN, or TABD_DENY with
     * reply->reason (and reply->message). Any deny refuses the tap. TABD_ERROR (or
     * any other value) counts as a deny.
     */
    tabd_result (*should_select)(void *state, const tabd_controller *controller,
                                 const tabd_candidate *candidate, tabd_reply *reply);

    /**
     * Which orientations may the controller support? `proposed` is what its tabs
     * support (and what plugins earlier in the chain left). Return TABD_OK with *mask
     * set — tabd intersects it with `proposed` — or TABD_ABSTAIN. Asked once per
     * rotation, once after each command that changed the controller, and for every
     * controller when plugins are loaded; `state` reports the last answer.
     */
    tabd_result (*supported_orientations)(void *state, const tabd_controller *controller,
                                          tabd_orientation_mask proposed, tabd_orientation_mask *mask);

    /**
     * Which orientation is preferred for presentation? Return TABD_OK with
     * *orientation set to one TABD_ORIENTATION_* bit, or TABD_ABSTAIN. The first
     * plugin (in load order) that answers wins.
     */
    tabd_result (*preferred_orientation)(void *state, const tabd_controller *controller,
                                         tabd_orientation_mask *orientation);

    /** A tap selected `candidate` (also when it was selected already). The controller
     *  already shows the new selection. */
    void (*did_select)(void *state, const tabd_controller *controller, const tabd_candidate *candidate);

    /** A customization session (More → Edit) begins with the tabs in this order
     *  (`count` ids; More is never among them). */
    void (*will_begin_customizing)(void *state, const tabd_controller *controller,
                                   const char *const *tabs, size_t count);
    /** The session is about to end with this new order; `changed` is non-zero when it
     *  differs from the order at the start. */
    void (*will_end_customizing)(void *state, const tabd_controller *controller,
                                 const char *const *tabs, size_t count, int changed);
    /** The session ended; `tabs` is now the controller's order. */
    void (*did_end_customizing)(void *state, const tabd_controller *controller,
                                const char *const *tabs, size_t count, int changed);

    /**
     * A plugin-defined method, from the `plugin.call` wire command:
     * {"cmd":"plugin.call","plugin":<name>,"method":<method>,"args":{...}}. `args_json`
     * is a JSON object ("{}" when the client sent none). Return TABD_OK with
     * reply->json (the result), TABD_DENY or TABD_ERROR with reply->message, or
     * TABD_UNKNOWN_METHOD.
     */
    tabd_result (*call)(void *state, const tabd_controller *controller, const char *method,
                        const char *args_json, tabd_reply *reply);

    /* ---- since 1.2 -------------------------------------------------------------- */

    /**
     * A reload is about to stop this instance: its settings (or its file) changed, so a
     * new instance takes over, or it is no longer configured. Called once per
     * controller, before fini, so the plugin can tell clients what it drops with
     * host->emit (the login gate emits who it logs out). Not called when a reload keeps
     * the instance (same file, same settings: it keeps running, nothing is re-initialised),
     * nor at shutdown. The new instance, if any, is already running.
     */
    void (*will_stop)(void *state, const tabd_controller *controller);

    /* ---- since 1.4 -------------------------------------------------------------- */

    /** Tabs were hidden or shown (`set_hidden`, SEMANTICS R13.3): `count` entries. When
     *  hiding moved the selection, the controller already shows the new one. */
    void (*visibility_changed)(void *state, const tabd_controller *controller,
                               const tabd_visibility *tabs, size_t count);

    /** The user reordered a group's children (`group` is its id) or the bar's tabs between
     *  the fixed and the pinned ones (`group` is NULL): `order` is the new order, `count`
     *  ids (SEMANTICS R13.5). */
    void (*display_order_changed)(void *state, const tabd_controller *controller, const char *group,
                                  const char *const *order, size_t count);

    /* ---- since 1.6 -------------------------------------------------------------- */

    /** The selection changed, whatever the cause (a client's or a plugin's select, a tap, a
     *  replacement of the tabs, a customization, a restoration, a hide): `change` says what
     *  and why. Called after the command that changed it, once per change; the controller
     *  shows the new selection. Not called while tabd replays its journal at start. */
    void (*selection_changed)(void *state, const tabd_controller *controller,
                              const tabd_selection_change *change);

    /** A timer the plugin armed (host->set_timer) is due: `name` as armed, `controller` the
     *  controller it was armed for, or NULL for a timer of no controller (then the controller
     *  readers answer nothing, and emit and request_select refuse). A timer whose controller
     *  was deleted is dropped. */
    void (*timer)(void *state, const tabd_controller *controller, const char *name);

    /* ---- since 1.7 -------------------------------------------------------------- */

    /** A controller was created (a client's controller.create, or one tabd's configuration
     *  names): the controller as it starts. Not called for the controllers that exist when
     *  the plugin starts (host->controller_at lists them in init), nor while tabd replays its
     *  journal. emit and request_select work as in any hook. */
    void (*controller_created)(void *state, const tabd_controller *controller);

    /** A controller is being deleted (controller.delete): called just before it goes, with
     *  it still readable. Forget what the plugin keeps for it (store keys, sessions): a
     *  controller created again under its name is a new one, maybe another client's. Events
     *  it emits reach the controller's subscribers before its controller_deleted event;
     *  selections it asks for in this controller are dropped, and so are its timers. */
    void (*controller_deleted)(void *state, const tabd_controller *controller);

    /* ---- since 1.10 ------------------------------------------------------------- */

    /**
     * A user opens a drawer (`open`: which controller, side and gesture): may it open? Asked
     * only for a user's open — a drawer command with a `gesture` that passed the drawer's own
     * checks (its open_gestures, reach) — never for an app's open (no gesture), a close, or
     * the journal's replay. Plugins are asked in load order; the first TABD_DENY refuses (later
     * plugins are not asked) and the client gets `denied` naming the plugin, with
     * reply->reason (and reply->message); nothing changes. Return TABD_ALLOW, TABD_ABSTAIN, or
     * TABD_DENY. TABD_ERROR (or any other value, or an isolated plugin's crash or timeout)
     * counts as a deny. There is no tab controller here: emit and request_select refuse; the
     * store, timers, log and the other host functions work as in any hook.
     */
    tabd_result (*may_open_drawer)(void *state, const tabd_drawer_open *open, tabd_reply *reply);

    /* ---- since 1.11 ------------------------------------------------------------- */

    /**
     * A split controller without a compact child collapses: which column is on top of its
     * stack? `collapse->proposed` is the proposal so far. Return TABD_OK with *column set to
     * "primary", "supplementary" (triple only) or "secondary" (a string that stays valid until
     * the hook returns), or TABD_ABSTAIN. Plugins are asked in load order, each seeing the
     * proposal the ones before it left; an answer replaces it. An answer the split cannot take
     * ("compact", "supplementary" on a double split) is ignored, the proposal kept; so is a
     * failure (TABD_ERROR, any other value, *column NULL or not a column name, an isolated
     * plugin's crash or timeout), which is also counted. `explain` shows each answer. Never
     * asked with a compact child (it is on top) or during the journal's replay. No tab
     * controller here: emit and request_select refuse; the store, timers and log work.
     */
    tabd_result (*top_column_for_collapsing)(void *state, const tabd_split_collapse *collapse, const char **column);

    /**
     * A split controller expands: which display mode does it take? As top_column_for_collapsing:
     * TABD_OK with *mode set to a display mode's wire name ("secondary_only", "one_beside",
     * "one_over", "two_beside", "two_over", "two_displace"), or TABD_ABSTAIN; load order, each
     * answer replacing the proposal. "automatic", a mode `expand->behavior` does not allow
     * (R15.17: "one_over" only under overlay, ...) and a "two_*" mode on a double split are
     * ignored, the proposal kept; a failure keeps it too, and is counted.
     */
    tabd_result (*display_mode_for_expanding)(void *state, const tabd_split_expand *expand, const char **mode);

    /**
     * An event of a container beyond tabs (`n`: its name, its controller and its JSON as a
     * subscriber gets it), once the command that made it is applied and journaled, in the
     * order subscribers get them, whether or not anyone subscribed. Every event of an R15
     * command (navigation, split, drawer, custom controllers, their children's appearance and
     * containment), of creating such a controller, and the status bar events a nested tab
     * controller's command sends its tree's root; never a tab controller's own command's
     * events (did_select, selection_changed and the other hooks tell those). tabd ignores the
     * value returned (return TABD_OK); a failure, an isolated plugin's crash or timeout,
     * changes nothing. No tab controller here: emit and request_select refuse; the store,
     * timers and log work.
     */
    tabd_result (*notify)(void *state, const tabd_notification *n);

    /* Hooks added in later minors go here, each marked "since 1.N". tabd reads only the
     * plugin's struct_size bytes of this descriptor: a hook past them is NULL. */
} tabd_policy_descriptor;

/** The size of the 1.0 descriptor: the least struct_size tabd accepts. */
#define TABD_POLICY_DESCRIPTOR_SIZE_1_0 \
    (offsetof(tabd_policy_descriptor, call) + sizeof(void *))

/**
 * The one symbol a plugin exports. tabd calls it once, right after dlopen, and reads
 * the descriptor it returns (NULL refuses the plugin). Define it as:
 *
 *     TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) {
 *         return &my_descriptor;
 *     }
 */
#ifndef __swift__ /* Swift plugins define it with @_cdecl (see the TabPolicy SDK). */
TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void);
#endif

/** The type of tabd_policy_entry, for dlsym. */
typedef const tabd_policy_descriptor *(*tabd_policy_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TABD_POLICY_H */
