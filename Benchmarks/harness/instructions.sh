#!/usr/bin/env bash
# User-space instructions tabd spends per request, counted by callgrind: a measure that does
# not move with the machine's load, for comparing two builds where ops/s is too noisy.
#
#   Benchmarks/harness/instructions.sh [SECONDS] [nested|tap|flat-tap|group-tap|store|state|state-encoded|state-encoded-groups|set-tabs|fanout|scale-*|r15-*]
#   (default 8 seconds)
#
# Runs tabd (.build/release/tabd, or TABD=path) under valgrind, once: the setup (and a login,
# for `tap`), a warm-up load of WARM_SECONDS (default 1) under loadgen (10 connections x 16 in
# flight, `select` a / b in turn, like the harness's select case), then callgrind's counters
# zeroed (`callgrind_control --zero`), a load of SECONDS, and the counters dumped. Prints the
# dump's instructions / the requests answered between the two (counted by tabd's own `stats`,
# read before the zero and after the dump, so those two requests are not in the count), and
# the functions with the most instructions in the dump. Only the measured loop is counted:
# the process's start, the setup, a login's password hash, plugin loading and the runtime's
# first-use costs (the dynamic linker's lazy binding, first conformance lookups) are paid
# before the zero. (Until 2026-11-29 the figure was the difference of two runs' totals, a
# 1-second and a SECONDS one: costs paid once a run but not the same in both, such as the
# first-use lookups spread over a different number of requests, leaked into the figure; the
# per-function table held the whole run, the login's hash included.) The periodic timers
# (fsync everysec's tick, the 10-second status) stay in, as they do in a real load.
# Kernel time (syscalls) is not counted. valgrind 3.19 cannot read Swift 6's DWARF 5, so the
# binary is run with its debug sections stripped (symbols stay).
#
# `nested`: the same selects of a and b, each inside a group (R13). `tap`: `tap` a / b in turn
# through the login gate instead (LoginGate, the plugin next to the tabd binary, stripped the
# same way), after a set_tabs and one login on the controller: instructions per tap.
# `fanout`: the selects with 10 more connections subscribed to every event (SUBSCRIBERS), so
# that the figure is a select's and its events' delivery to each (the mark on each one's last
# event included, issue 45).
# `state`: `{"cmd":"state"}` of the 6-tab controller (read only, its reply from the memo).
# `store`: `tap` a / b through Plugins/examples/hello.c (built here), which writes its tap
# count to its store on every tap (plugin ABI 1.6: a journal record per tap). Against a tabd
# before 1.6, hello.c has no store and only counts in memory: the difference of the two runs
# is the store's cost on the tap path.
# CALLGRIND_OUT=file keeps the loaded run's callgrind output there (for callgrind_annotate);
# CALLGRIND_FLAGS adds valgrind options (e.g. `--dump-instr=yes`: costs and calls by address).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECONDS_LOADED=${1:-8}
TABD=${TABD:-$ROOT/.build/release/tabd}
BUILD=$ROOT/Benchmarks/.build/harness

missing=""
command -v valgrind >/dev/null || missing+=" valgrind"
command -v objcopy >/dev/null || missing+=" binutils"
command -v socat >/dev/null || missing+=" socat"
if [ -n "$missing" ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x "$TABD" ] || { echo "no tabd at $TABD: run 'swift build -c release' first" >&2; exit 1; }
make -s -C "$HERE" >/dev/null

DIR=$(mktemp -d)
VG=""
trap '[ -z "$VG" ] || kill "$VG" 2>/dev/null || true; rm -rf "$DIR"' EXIT
objcopy --strip-debug "$TABD" "$DIR/tabd"
SETUP='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
# `instructions.sh SECONDS nested`: the same selects of a and b, each inside a group (R13).
if [ "${2:-}" = nested ]; then
    SETUP='{"cmd":"set_tabs","tabs":[{"id":"g1","children":[{"id":"a"},{"id":"x"}]},{"id":"g2","children":[{"id":"b"},{"id":"y"}]},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
fi
printf '{"cmd":"select","tab":"a"}\n{"cmd":"select","tab":"b"}\n' > "$DIR/select.req"
COMMAND=select
CONFIG=()
LOGIN=""
# `flat-tap` / `group-tap` (no plugin): `tap` a / b on six flat tabs, or `tap` of the groups
# g1 / g2 (each lands on its child a or b, SEMANTICS R13.8) — what `make bench-nested` pairs.
if [ "${2:-}" = flat-tap ] || [ "${2:-}" = group-tap ]; then
    COMMAND=tap
    if [ "$2" = group-tap ]; then
        SETUP='{"cmd":"set_tabs","tabs":[{"id":"g1","children":[{"id":"a"},{"id":"x"}]},{"id":"g2","children":[{"id":"b"},{"id":"y"}]},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
        printf '{"cmd":"tap","tab":"g1"}\n{"cmd":"tap","tab":"g2"}\n' > "$DIR/select.req"
    else
        printf '{"cmd":"tap","tab":"a"}\n{"cmd":"tap","tab":"b"}\n' > "$DIR/select.req"
    fi
fi
FANOUT=${FANOUT:-}  # (FANOUT=1 in the environment: any mode runs heard, with SUBSCRIBERS subscribed)
[ "${2:-}" != fanout ] || FANOUT=1
if [ "${2:-}" = state ]; then
    COMMAND=state
    printf '{"cmd":"state"}\n' > "$DIR/select.req"
fi
# `state-encoded` / `state-encoded-groups`: a `state` after each `select` (of a, then b), so the
# memo never answers and every `state` encodes its tabs (the figure includes the select);
# `-groups` on the nested setup's two groups and four tabs (R13).
if [ "${2:-}" = state-encoded ] || [ "${2:-}" = state-encoded-groups ]; then
    COMMAND=state
    [ "$2" = state-encoded ] || SETUP='{"cmd":"set_tabs","tabs":[{"id":"g1","children":[{"id":"a"},{"id":"x"}]},{"id":"g2","children":[{"id":"b"},{"id":"y"}]},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
    printf '{"cmd":"select","tab":"a"}\n{"cmd":"state"}\n{"cmd":"select","tab":"b"}\n{"cmd":"state"}\n' > "$DIR/select.req"
fi
# `set-tabs`: two 6-tab lists in turn (a title changed, one tab replaced): R13.8's matching,
# the tabs decoded, journaled and announced.
if [ "${2:-}" = set-tabs ]; then
    COMMAND=set_tabs
    printf '%s\n' '{"cmd":"set_tabs","tabs":[{"id":"a","title":"A"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}' \
        '{"cmd":"set_tabs","tabs":[{"id":"a","title":"B"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"g"}]}' > "$DIR/select.req"
fi
if [ "${2:-}" = tap ]; then
    COMMAND=tap
    SETUP='{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]}'
    LOGIN='{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"bench","password":"bench"}}'
    printf '{"cmd":"tap","tab":"a"}\n{"cmd":"tap","tab":"b"}\n' > "$DIR/select.req"
    mkdir -m 0700 "$DIR/plugins"
    objcopy --strip-debug "$(dirname "$TABD")/libLoginGate.so" "$DIR/plugins/libLoginGate.so"
    printf 'bench:%s\n' "$(openssl passwd -6 bench)" > "$DIR/credentials"
    chmod 600 "$DIR/credentials"
    printf 'plugins:\n  directories: [%s]\n  load:\n    - path: libLoginGate.so\n      required: true\n      settings: { login_tab: login, credentials_file: %s }\n' \
        "$DIR/plugins" "$DIR/credentials" > "$DIR/gate.yaml"
    CONFIG=(--config "$DIR/gate.yaml")
fi

# The scale modes (`make bench-scale`, Benchmarks/harness/scale.sh): TABS flat tabs t0..t(TABS-1)
# (default 6), each a navigation stack, then `select`/`tap`/`badge`/`update_tab` of t1 (two
# values in turn), `push` + `pop` of t1, `add_tab` + `remove_tab` of x, or `customize.move` of
# t1 to 2 and back (in a session begun in the setup). One connection (CONNS, default 1 here):
# each pair must arrive in order. The figure is per request of COMMAND (for the pairs, per pair).
SCALE_MODES="scale-select scale-tap scale-badge scale-update-tab scale-push-pop scale-add-remove scale-customize-move scale-customize-move-brief"
case " $SCALE_MODES " in
    *" ${2:-none} "*)
        TABS=${TABS:-6}
        CONNS=${CONNS:-1}
        SETUP=$(awk -v n="$TABS" 'BEGIN { printf "{\"cmd\":\"set_tabs\",\"tabs\":["; for (i = 0; i < n; i++) printf "%s{\"id\":\"t%d\",\"navigation\":true}", (i ? "," : ""), i; printf "]}" }')
        SETUP_VIA_ASK=1
        printf 'limits:\n  max_tabs: %d\n  max_total_tabs: %d\n  max_line_bytes: %d\n' "$((TABS + 10))" "$((TABS + 10))" $((64 << 20)) > "$DIR/scale.yaml"
        CONFIG=(--config "$DIR/scale.yaml")
        case "$2" in
            scale-select) COMMAND=select; printf '{"cmd":"select","tab":"t0"}\n{"cmd":"select","tab":"t1"}\n' > "$DIR/select.req" ;;
            scale-tap) COMMAND=tap; printf '{"cmd":"tap","tab":"t0"}\n{"cmd":"tap","tab":"t1"}\n' > "$DIR/select.req" ;;
            scale-badge) COMMAND=badge; printf '{"cmd":"badge","tab":"t1","value":"1"}\n{"cmd":"badge","tab":"t1","value":"2"}\n' > "$DIR/select.req" ;;
            scale-update-tab) COMMAND=update_tab; printf '{"cmd":"update_tab","tab":"t1","title":"A"}\n{"cmd":"update_tab","tab":"t1","title":"B"}\n' > "$DIR/select.req" ;;
            scale-push-pop) COMMAND=push; printf '{"cmd":"push","tab":"t1","screen":{"id":"s"}}\n{"cmd":"pop","tab":"t1"}\n' > "$DIR/select.req" ;;
            scale-add-remove) COMMAND=add_tab; printf '{"cmd":"add_tab","tab":{"id":"x"}}\n{"cmd":"remove_tab","tab":"x"}\n' > "$DIR/select.req" ;;
            scale-customize-move)
                COMMAND=customize.move
                SETUP_AFTER='{"cmd":"customize.begin"}'
                printf '{"cmd":"customize.move","tab":"t1","to":2}\n{"cmd":"customize.move","tab":"t1","to":1}\n' > "$DIR/select.req" ;;
            scale-customize-move-brief)
                # The same moves with "brief": true (docs/protocol.md): the reply without the order.
                COMMAND=customize.move
                SETUP_AFTER='{"cmd":"customize.begin"}'
                printf '{"cmd":"customize.move","tab":"t1","to":2,"brief":true}\n{"cmd":"customize.move","tab":"t1","to":1,"brief":true}\n' > "$DIR/select.req" ;;
        esac
        ;;
esac

# The R15 modes (`make bench-instructions`, Benchmarks/harness/r15.sh): the default controller's
# six flat tabs a..f, beside them a drawer controller `d` (a window's root: center `screen`,
# left drawer `menu`) and a navigation controller `n` (a window's root, its stack `root`).
# `r15-open-close-drawer`: `open_drawer` left + `close_drawer` of d; `r15-push-pop`: `push` of
# a screen + `pop` on n (no "tab": R15.13's stack, not R6's); `r15-select`: a flat `select` a /
# b on the default controller in the same tabd and under the same load, the figure issue 42
# holds the drawer's commands to. One connection (CONNS, default 1 here): each pair must
# arrive in order. The figure is per request of COMMAND (for the pairs, per pair).
# `r15-hide-show-column`: `hide_column` + `show_column` of the primary of a pad split root `sp`
# (double, tiled: one_beside, its primary a screen) in place of the navigation controller.
# `r15-nested-select`: a select a / b where a's content (R15.2) is a split `sp` whose secondary
# is a navigation controller `nv` (issue 42: at most 1.5x a flat select).
# With FANOUT=1 (and SUBSCRIBERS, default 10) each R15 mode runs with that many connections
# subscribed to every event: the commands' events are then built, encoded and delivered
# (without, they are numbered only, as nobody hears them).
R15_MODES="r15-select r15-open-close-drawer r15-push-pop r15-hide-show-column r15-nested-select"
case " $R15_MODES " in
    *" ${2:-none} "*)
        CONNS=${CONNS:-1}
        SETUP_VIA_ASK=1
        SETUP_AFTER='{"cmd":"controller.create","controller":"d","kind":"drawer","window":true,"center":{"id":"screen"},"left":{"id":"menu"}}'
        SETUP_AFTER2='{"cmd":"controller.create","controller":"n","kind":"navigation","window":true,"stack":[{"id":"root"}]}'
        case "$2" in
            r15-select) COMMAND=select; printf '{"cmd":"select","tab":"a"}\n{"cmd":"select","tab":"b"}\n' > "$DIR/select.req" ;;
            r15-open-close-drawer)
                COMMAND=open_drawer
                printf '{"cmd":"open_drawer","controller":"d","side":"left"}\n{"cmd":"close_drawer","controller":"d"}\n' > "$DIR/select.req" ;;
            r15-push-pop)
                COMMAND=push
                printf '{"cmd":"push","controller":"n","screen":{"id":"s"}}\n{"cmd":"pop","controller":"n"}\n' > "$DIR/select.req" ;;
            r15-nested-select)
                COMMAND=select
                SETUP_AFTER=$(printf '%s\n' '{"cmd":"controller.create","controller":"nv","kind":"navigation","stack":[{"id":"inbox"}]}' \
                    '{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","primary":{"id":"boxes"},"secondary":{"id":"mail","controller":"nv"}}')
                SETUP_AFTER2='{"cmd":"update_tab","tab":"a","content_controller":"sp"}'
                printf '{"cmd":"select","tab":"a"}\n{"cmd":"select","tab":"b"}\n' > "$DIR/select.req" ;;
            r15-hide-show-column)
                COMMAND=hide_column
                SETUP_AFTER2='{"cmd":"controller.create","controller":"sp","kind":"split","style":"double","idiom":"pad","window":true,"preferred_split_behavior":"tile","primary":{"id":"list"},"secondary":{"id":"detail"}}'
                printf '{"cmd":"hide_column","controller":"sp","column":"primary"}\n{"cmd":"show_column","controller":"sp","column":"primary"}\n' > "$DIR/select.req" ;;
        esac
        ;;
esac

if [ "${2:-}" = store ]; then
    COMMAND=tap
    printf '{"cmd":"tap","tab":"a"}\n{"cmd":"tap","tab":"b"}\n' > "$DIR/select.req"
    mkdir -m 0700 "$DIR/plugins"
    cc -O2 -shared -fPIC -I "$ROOT/Sources/CTabPolicy/include" "$ROOT/Plugins/examples/hello.c" -o "$DIR/plugins/hello.so"
    printf 'plugins:\n  directories: [%s]\n  load:\n    - path: hello.so\n      settings: { events: { tapped: false } }\n' "$DIR/plugins" > "$DIR/hello.yaml"
    CONFIG=(--config "$DIR/hello.yaml")
fi

# tabd answers and closes a connection its client half-closed: -t bounds only a stalled reply
# (a 10,000-tab set_tabs under valgrind on a loaded machine takes seconds).
ask() { echo "$1" | socat -t 120 - "UNIX-CONNECT:$DIR/tabd.sock"; }

count() { ask '{"cmd":"stats"}' | grep -o "\"$COMMAND\":{\"count\":[0-9]*" | grep -o '[0-9]*$' || echo 0; }

# load SECONDS: the requests of this mode for SECONDS (after the setup, once per run).
load() {
    if [ -n "$LOGIN" ]; then
        "$BUILD/loadgen" -s "$DIR/tabd.sock" -c 10 -P 16 -d "$1" -w 0 -R "$DIR/select.req" -e '"ok":false' >/dev/null
    elif [ -n "${SETUP_VIA_ASK:-}" ]; then
        local out
        out=$("$BUILD/loadgen" -s "$DIR/tabd.sock" -c "$CONNS" -P 16 -d "$1" -w 0 -R "$DIR/select.req" -e '"ok":false' \
            ${FANOUT:+--subscribe "${SUBSCRIBERS:-10}" --sub-line '{"cmd":"subscribe","events":["*"]}'})
        case "$out" in *" errors=0"*) ;; *) echo "refused requests in the load (the figure would mix in refusals): $out" >&2; exit 1 ;; esac
    else
        "$BUILD/loadgen" -s "$DIR/tabd.sock" -c 10 -P 16 -d "$1" -w 0 -R "$DIR/select.req" \
            ${FANOUT:+--subscribe "${SUBSCRIBERS:-10}" --sub-line '{"cmd":"subscribe","events":["*"]}'} >/dev/null
    fi
}

# run SECONDS: prints "<instructions in the measured loop> <requests answered in it>"
run() {
    rm -rf "$DIR/state" "$DIR/tabd.sock" "$DIR/cg.out" "$DIR/cg.out".*
    valgrind --tool=callgrind ${CALLGRIND_FLAGS:-} --callgrind-out-file="$DIR/cg.out" "$DIR/tabd" --socket "$DIR/tabd.sock" \
        --state-dir "$DIR/state" --fsync everysec --log-level warning "${CONFIG[@]}" 2>/dev/null &
    VG=$!
    for _ in $(seq 300); do
        [ -S "$DIR/tabd.sock" ] && ask '{"cmd":"ping"}' >/dev/null 2>&1 && break
        sleep 0.1
    done
    ask "$SETUP" | grep -q '"ok":true' || { echo "the setup failed" >&2; exit 1; }
    [ -z "${SETUP_AFTER:-}" ] || ask "$SETUP_AFTER" | grep -q '"ok":true' || { echo "the setup failed: $SETUP_AFTER" >&2; exit 1; }
    [ -z "${SETUP_AFTER2:-}" ] || ask "$SETUP_AFTER2" | grep -q '"ok":true' || { echo "the setup failed: $SETUP_AFTER2" >&2; exit 1; }
    if [ -n "$LOGIN" ]; then
        ask "$LOGIN" | grep -q '"ok":true' || { echo "the login failed" >&2; exit 1; }
    fi
    load "${WARM_SECONDS:-1}"
    local before after
    before=$(count)
    # callgrind_control names the process: without a pid it would zero every callgrind run.
    callgrind_control --zero "$VG" >/dev/null 2>&1
    load "$1"
    callgrind_control --dump "$VG" >/dev/null 2>&1
    after=$(count)
    kill "$VG"; wait "$VG" 2>/dev/null || true
    VG=""
    local dump
    dump=$(ls "$DIR"/cg.out.* 2>/dev/null | head -1)
    [ -n "$dump" ] || { echo "callgrind wrote no dump" >&2; exit 1; }
    mv "$dump" "$DIR/cg.loop"
    echo "$(callgrind_annotate "$DIR/cg.loop" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }') $((after - before))"
}

read -r loaded selects < <(run "$SECONDS_LOADED")
[ "$selects" -gt 0 ] || { echo "the measured loop answered no ${COMMAND}" >&2; exit 1; }
[ -z "${CALLGRIND_OUT:-}" ] || cp "$DIR/cg.loop" "$CALLGRIND_OUT"
case "${2:-}" in
    tap) what="tap (login gate, logged in)" ;;
    store) what="tap (hello.c, its count to its store per tap)" ;;
    flat-tap|group-tap) what="tap ($2, no plugin)" ;;
    state) what="state (6 tabs)" ;;
    fanout) what="select (${SUBSCRIBERS:-10} subscribers of every event)" ;;
    state-encoded) what="state encoded (6 tabs, with the select before it)" ;;
    state-encoded-groups) what="state encoded (2 groups, 4 tabs, with the select before it)" ;;
    set-tabs) what="set_tabs (6 tabs)" ;;
    r15-select) what="select (6 flat tabs, beside a drawer and a navigation controller, $CONNS connection)" ;;
    r15-open-close-drawer) what="open_drawer + close_drawer (a drawer root, $CONNS connection)" ;;
    r15-push-pop) what="push + pop (a navigation controller root, $CONNS connection)" ;;
    r15-hide-show-column) what="hide_column + show_column (a split root, $CONNS connection)" ;;
    r15-nested-select) what="select (a tab whose content is a split holding a navigation controller, $CONNS connection)" ;;
    scale-push-pop) what="push + pop ($TABS tabs)" ;;
    scale-add-remove) what="add_tab + remove_tab ($TABS tabs)" ;;
    scale-*) what="$COMMAND ($TABS tabs)" ;;
    "") what=select ;;
    *) what="select ($2)" ;;
esac
echo "tabd at git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'): $(( loaded / selects )) instructions per $what ($selects ${COMMAND}s, user space, callgrind)"
echo "most instructions (self, per $COMMAND):"
# A dump taken mid-run charges the frames on the stack (main, the loop) with everything under
# them: skipped, as no function's own cost comes near half the loop's.
callgrind_annotate --threshold=100 "$DIR/cg.loop" 2>/dev/null | awk -v n="$selects" -v total="$loaded" '
    /^-+$/ { dashes++; next }
    dashes >= 5 && shown < 15 && $1 ~ /^[0-9,]+$/ {
        ir = $1; gsub(",", "", ir)
        ir += 0  # a number: gsub left a string, which compares as text
        if (ir > total / 2) next
        name = $0; sub(/^.*%\) +/, "", name); sub(/^[^:]*:/, "", name); sub(/ \[.*$/, "", name)
        printf "  %6d  %s\n", ir / n, name
        shown++  # read on to the end: stopping early breaks the pipe (SIGPIPE)
    }' | { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; } | cut -c1-120
