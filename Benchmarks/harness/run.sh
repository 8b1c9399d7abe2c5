#!/usr/bin/env bash
# tabd vs Redis vs a bare libevent "floor", on one machine, in one run.
#
#   Benchmarks/harness/run.sh
#
# Environment (all optional):
#   BENCH_SECONDS  measured seconds per case (default 5)
#   BENCH_WARMUP   warmup seconds per case, not measured (default 1)
#   BENCH_IDLE     idle connections for the memory test (default 10000; 0 skips it)
#   BENCH_REPEAT   runs per case; the report shows the run with the median ops/s (default 1)
#   BENCH_PIN      1 = pin servers to CPU 0 and the load generator to CPU 1 (default 0)
#   TABD           the tabd binary (default .build/release/tabd); missing -> tabd is skipped
#   BENCH_DIR      scratch directory for sockets and data (default Benchmarks/results/tmp/run.PID;
#                  it must be a real disk, not tmpfs, or fsync costs nothing)
#   BENCH_OUT      the report (default Benchmarks/results/latest.md)
#   BENCH_RECORD   also put the report into this Markdown file (`make bench`: BENCHMARKS.md),
#                  between the lines <!-- harness:begin --> and <!-- harness:end -->
#                  (appended with them when they are missing)
#   BENCH_SUBSCRIBERS, BENCH_CONTROLLERS  sizes of the fan-out and controllers cases (1000)
#
# Builds loadgen and floor with gcc, installs redis-server (and the build tools) with apt
# only when missing, runs every case, writes a Markdown report, and stops every server it
# started, whatever happens (trap). Unix sockets only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"

SECS=${BENCH_SECONDS:-5}
WARM=${BENCH_WARMUP:-1}
IDLE=${BENCH_IDLE:-10000}
PIN=${BENCH_PIN:-0}
REPEAT=${BENCH_REPEAT:-1}
TABD_BIN=${TABD:-.build/release/tabd}
OUT=${BENCH_OUT:-Benchmarks/results/latest.md}
BUILD=$ROOT/Benchmarks/.build/harness

# The exact command, with the settings that were given.
CMD=""
for v in BENCH_SECONDS BENCH_WARMUP BENCH_REPEAT BENCH_IDLE BENCH_PIN TABD BENCH_DIR BENCH_OUT; do
    [ -n "${!v:-}" ] && CMD+="$v=${!v} "
done
CMD+="Benchmarks/harness/run.sh${*:+ $*}"

say() { printf '[bench] %s\n' "$*" >&2; }

# ---------------------------------------------------------------- dependencies
missing=""
command -v gcc >/dev/null || missing+=" gcc libc6-dev"
command -v pkg-config >/dev/null || missing+=" pkg-config"
pkg-config --exists libevent 2>/dev/null || missing+=" libevent-dev"
command -v redis-server >/dev/null || missing+=" redis-server"
if [ -n "$missing" ]; then
    say "installing:$missing"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# ---------------------------------------------------------------- build
mkdir -p "$BUILD"
LIBEVENT_FLAGS=$(pkg-config --cflags --libs libevent)
gcc -O2 -Wall -Wextra -o "$BUILD/loadgen" "$HERE/loadgen.c"
# shellcheck disable=SC2086
gcc -O2 -Wall -Wextra -o "$BUILD/floor" "$HERE/floor.c" $LIBEVENT_FLAGS
LOADGEN=$BUILD/loadgen
FLOOR=$BUILD/floor

# ---------------------------------------------------------------- processes
DIR=${BENCH_DIR:-$ROOT/Benchmarks/results/tmp/run.$$}
OWN_DIR=yes; [ -z "${BENCH_DIR:-}" ] || OWN_DIR=no
if [ ${#DIR} -ge 90 ]; then DIR=$(mktemp -d /tmp/tabd-bench.XXXXXX); OWN_DIR=yes; fi  # sun_path is 108 bytes
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

SERVER_PID=""
cleanup() {
    local rc=$?
    [ -n "$SERVER_PID" ] && stop_server
    [ "$OWN_DIR" = no ] || { rm -rf "$DIR"; rmdir "$(dirname "$DIR")" 2>/dev/null || true; }
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Servers inherit the hard limit: 10,000 idle connections need the file descriptors.
ulimit -n "$(ulimit -Hn)"
NOFILE=$(ulimit -n)

SERVER_PIN=(); CLIENT_PIN=()
if [ "$PIN" = 1 ]; then SERVER_PIN=(taskset -c 0); CLIENT_PIN=(taskset -c 1); fi

# start_server NAME LOG CMD... : background, remember the pid (exec'd, so it is the server's)
start_server() {
    local name=$1 log=$2; shift 2
    "${SERVER_PIN[@]}" "$@" >"$log" 2>&1 &
    SERVER_PID=$!
    SERVER_NAME=$name
    SERVER_LOG=$log
}

# alive PID : running (an exited child stays a zombie until waited for, and kill -0 succeeds on it)
alive() {
    local st
    st=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

stop_server() {
    local pid=$SERVER_PID
    SERVER_PID=""
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# wait_ready SOCKET PROBE_LINE ERRSUB : the socket answers one request without error
wait_ready() {
    local sock=$1 probe=$2 errsub=$3 out
    for _ in $(seq 100); do
        if ! alive "$SERVER_PID"; then
            say "$SERVER_NAME exited during startup; last lines of $SERVER_LOG:"
            tail -n 20 "$SERVER_LOG" >&2 || true
            stop_server
            return 1
        fi
        if [ -S "$sock" ]; then
            out=$("$LOADGEN" -s "$sock" --idle 1 -d 0 -r "$probe" -e "$errsub" 2>/dev/null) || true
            case $out in *"alive=1 "*"errors=0 "*) return 0 ;; esac
        fi
        sleep 0.1
    done
    say "$SERVER_NAME did not answer on $sock within 10 s; last lines of $SERVER_LOG:"
    tail -n 20 "$SERVER_LOG" >&2 || true
    stop_server
    return 1
}

start_floor() {
    rm -f "$DIR/floor.sock"
    start_server floor "$DIR/floor.log" "$FLOOR" "$DIR/floor.sock"
    wait_ready "$DIR/floor.sock" '{"cmd":"ping"}' '"ok":false'
}

start_redis() {
    local policy=$1
    rm -rf "$DIR/redis-$policy"; mkdir -p "$DIR/redis-$policy"
    start_server redis "$DIR/redis-$policy.log" redis-server --port 0 \
        --unixsocket "$DIR/redis.sock" --appendonly yes --appendfsync "$policy" \
        --dir "$DIR/redis-$policy" --save '' --maxclients $((IDLE + 1000)) --daemonize no
    wait_ready "$DIR/redis.sock" PING -ERR
}

# start_tabd FSYNC [EXTRA ARGS...] : a fresh state directory each time
start_tabd() {
    local policy=$1; shift
    rm -rf "$DIR/state"; mkdir -p "$DIR/state"; rm -f "$DIR/tabd.sock"
    start_server tabd "$DIR/tabd-$policy.log" "$TABD_BIN" --socket "$DIR/tabd.sock" \
        --state-dir "$DIR/state" --fsync "$policy" --log-level warning "$@"
    wait_ready "$DIR/tabd.sock" '{"cmd":"ping"}' '"ok":false'
}

# The login gate for the tap case: the reference plugin next to the tabd binary, one user.
write_gate_config() {
    printf 'bench:%s\n' "$(openssl passwd -6 bench)" >"$DIR/credentials"
    chmod 600 "$DIR/credentials"
    cat >"$DIR/gate.yaml" <<YAML
plugins:
  directories: [$(cd "$(dirname "$TABD_BIN")" && pwd)]
  load:
    - path: libLoginGate.so
      required: true
      settings: { login_tab: login, credentials_file: $DIR/credentials }
YAML
}

# rss_kb PID
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# ---------------------------------------------------------------- requests
SELECT_FILE=$DIR/select.req
printf '%s\n' '{"cmd":"select","tab":"a"}' '{"cmd":"select","tab":"b"}' >"$SELECT_FILE"
SETUP='{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'
CASES=("1 1" "50 1" "50 16")
# R13: the same selects of a and b, each inside a group (the root changes, as in the flat case).
NESTED_SETUP='{"cmd":"set_tabs","tabs":[{"id":"g1","children":[{"id":"a"},{"id":"x"}]},{"id":"g2","children":[{"id":"b"},{"id":"y"}]},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}'

TAP_FILE=$DIR/tap.req
printf '%s\n' '{"cmd":"tap","tab":"a"}' '{"cmd":"tap","tab":"b"}' >"$TAP_FILE"
TAP_SETUP=('{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]}'
           '{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"bench","password":"bench"}}')
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000}
CONTROLLERS=${BENCH_CONTROLLERS:-1000}

# ---------------------------------------------------------------- results
ROWS=()       # server|fsync|case|ops|p50|p99|p999|max|errors|note
IDLE_ROWS=()  # server|conns|alive|rss_before_kb|rss_after_kb|bytes_per_conn|errors
NOTES=()
CTRL_ROWS=()  # controllers|rss_before_kb|rss_after_kb|bytes_per_controller
SUB_ROWS=()   # subscribers|ops|events_per_sec|lost

field() { # field KEY LINE
    local k=$1 l=" $2 "
    l=${l#* "$k"=}; [ "$l" != " $2 " ] || { echo ""; return; }
    echo "${l%% *}"
}

# run_cases SERVER[/REQUEST] FSYNC SOCKET ERRSUB LOADGEN_REQUEST_ARGS...
run_cases() {
    local server=$1 fsync=$2 sock=$3 errsub=$4; shift 4
    local c p out rc note
    for cp in "${CASES[@]}"; do
        read -r c p <<<"$cp"
        say "$server fsync=$fsync c=$c P=$p (${SECS}s x $REPEAT)"
        local runs=() one
        note=""
        for _ in $(seq "$REPEAT"); do
            rc=0
            one=$("${CLIENT_PIN[@]}" "$LOADGEN" -s "$sock" -c "$c" -P "$p" -d "$SECS" -w "$WARM" \
                  -e "$errsub" "$@") || rc=$?
            say "  $one"
            [ $rc = 0 ] || note="loadgen exit $rc (lost $(field lost "$one") connections)"
            runs+=("$(field ops_per_sec "$one") $one")
        done
        # the run with the median ops/s
        out=$(printf '%s\n' "${runs[@]}" | sort -n -k1,1 | sed -n "$(( (REPEAT + 1) / 2 ))p" | cut -d' ' -f2-)
        ROWS+=("$server|$fsync|c=$c P=$p|$(field ops_per_sec "$out")|$(field p50_us "$out")|$(field p99_us "$out")|$(field p999_us "$out")|$(field max_us "$out")|$(field errors "$out")|$note")
    done
}

# run_idle SERVER SOCKET PROBE ERRSUB
run_idle() {
    local server=$1 sock=$2 probe=$3 errsub=$4 out rc=0
    [ "$IDLE" -gt 0 ] || return 0
    say "$server: $IDLE idle connections"
    out=$("${CLIENT_PIN[@]}" "$LOADGEN" -s "$sock" --idle "$IDLE" --pid "$SERVER_PID" -d 1 \
          -r "$probe" -e "$errsub" 2>/dev/null) || rc=$?
    say "  $out"
    IDLE_ROWS+=("$server|$IDLE|$(field alive "$out")|$(field rss_before_kb "$out")|$(field rss_after_kb "$out")|$(field bytes_per_conn "$out")|$(field errors "$out")")
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- floor
start_floor || exit 1
run_cases floor - "$DIR/floor.sock" '"ok":false' -R "$SELECT_FILE" --setup "$SETUP"
stop_server
start_floor || exit 1
run_idle floor "$DIR/floor.sock" '{"cmd":"ping"}' '"ok":false'
stop_server

# ---------------------------------------------------------------- redis
for policy in everysec always; do
    start_redis "$policy" || exit 1
    run_cases redis "$policy" "$DIR/redis.sock" -ERR -r 'SET k v'
    stop_server
done
start_redis everysec || exit 1
run_idle redis "$DIR/redis.sock" PING -ERR
stop_server

# ---------------------------------------------------------------- tabd
TABD_STATUS=""
if [ ! -x "$TABD_BIN" ]; then
    TABD_STATUS="skipped: $TABD_BIN not found (build it with \`make build CONFIG=release\`, or set TABD=path)"
    say "tabd $TABD_STATUS"
else
    for policy in everysec always; do
        if start_tabd "$policy"; then
            run_cases tabd "$policy" "$DIR/tabd.sock" '"ok":false' -R "$SELECT_FILE" --setup "$SETUP"
            stop_server
        else
            TABD_STATUS+="fsync=$policy: did not start (see the log lines printed by the run). "
        fi
    done
    if start_tabd everysec; then
        run_cases "tabd select (nested)" everysec "$DIR/tabd.sock" '"ok":false' -R "$SELECT_FILE" --setup "$NESTED_SETUP"
        stop_server
    fi
    # The same comparison in alternating pairs (nested-pairs.sh): a flat and a nested run
    # back to back, three times per case, so that the machine's drift over the whole run
    # does not land on one side. The report's nested section shows these.
    say "tabd: nested select against flat, alternating pairs"
    NESTED_PAIRS=$(TABD="$TABD_BIN" "$HERE/nested-pairs.sh" 3 "$SECS" 2>&1 | sed -n '/^c=/p') || NESTED_PAIRS=""
    write_gate_config
    if start_tabd everysec --config "$DIR/gate.yaml"; then
        run_cases "tabd tap (login gate)" everysec "$DIR/tabd.sock" '"ok":false' -R "$TAP_FILE" \
            --setup "${TAP_SETUP[0]}" --setup "${TAP_SETUP[1]}"
        stop_server
    fi
    if start_tabd everysec; then
        run_cases "tabd state" everysec "$DIR/tabd.sock" '"ok":false' -r '{"cmd":"state"}' --setup "$SETUP"
        # The reply's size, for Redis GET of a value as long (its line without the newline).
        STATE_BYTES=$(printf '%s\n%s\n' "$SETUP" '{"cmd":"state"}' | socat -t 5 - "UNIX-CONNECT:$DIR/tabd.sock" | tail -n 1 | tr -d '\n' | wc -c)
        stop_server
    fi
    # Redis GET of a value as long as the 6-tab state (the state case's counterpart).
    if [ "${STATE_BYTES:-0}" -gt 0 ] && start_redis everysec; then
        VALUE=$(head -c "$STATE_BYTES" /dev/zero | tr '\0' x)
        run_cases "redis GET (state size)" everysec "$DIR/redis.sock" -ERR -r 'GET k' --reply-lines 2 --setup "SET k $VALUE"
        stop_server
    fi
    if start_tabd everysec; then
        run_idle tabd "$DIR/tabd.sock" '{"cmd":"ping"}' '"ok":false'
        stop_server
    fi
    # Controllers of 6 tabs each: VmRSS before and after creating them (one pipelined batch).
    if [ "$CONTROLLERS" -gt 0 ] && start_tabd everysec; then
        say "tabd: $CONTROLLERS controllers of 6 tabs"
        before=$(rss_kb "$SERVER_PID")
        for i in $(seq "$CONTROLLERS"); do
            printf '{"cmd":"controller.create","controller":"c%d","idiom":"phone"}\n' "$i"
            printf '{"cmd":"set_tabs","controller":"c%d","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}\n' "$i"
        done >"$DIR/controllers.req"
        replies=$(socat -t 30 - "UNIX-CONNECT:$DIR/tabd.sock" <"$DIR/controllers.req" | grep -c '"ok":true' || true)
        sleep 1.5  # let everysec write what it holds
        after=$(rss_kb "$SERVER_PID")
        per=$(awk -v a="$after" -v b="$before" -v n="$CONTROLLERS" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }')
        say "  ok replies=$replies of $((CONTROLLERS * 2)); rss ${before} -> ${after} kB; $per B per controller"
        CTRL_ROWS+=("$CONTROLLERS|$before|$after|$per|$((CONTROLLERS * 2 - replies))")
        stop_server
    fi
    # One client tapping (select between two tabs, default policy) while N subscribers read every event.
    if [ "$SUBSCRIBERS" -gt 0 ] && start_tabd everysec; then
        say "tabd: 1 client tapping, $SUBSCRIBERS subscribers of every event (${SECS}s)"
        rc=0
        out=$("${CLIENT_PIN[@]}" "$LOADGEN" -s "$DIR/tabd.sock" -c 1 -P 1 -d "$SECS" -w "$WARM" \
              -R "$TAP_FILE" --setup "$SETUP" -e '"ok":false' \
              --subscribe "$SUBSCRIBERS" --sub-line '{"cmd":"subscribe","events":["*"]}') || rc=$?
        say "  $out"
        SUB_ROWS+=("$SUBSCRIBERS|$(field ops_per_sec "$out")|$(field sub_lines_per_sec "$out")|$(field lost "$out")|$(field p50_us "$out")|$(field p99_us "$out")")
        stop_server
    fi
fi

# ---------------------------------------------------------------- report
lookup() { # lookup SERVER FSYNC CASE -> "ops p99"
    local r s f c ops p50 p99
    for r in "${ROWS[@]}"; do
        IFS='|' read -r s f c ops p50 p99 _ <<<"$r"
        if [ "$s" = "$1" ] && [ "$f" = "$2" ] && [ "$c" = "$3" ]; then echo "$ops $p99"; return; fi
    done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "—"; else printf "%.3g×", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "") print "—"; else printf "%.1f", k / 1024 }'; }

CPU_MODEL=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
REDIS_VERSION=$(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')
FS_TYPE=$(findmnt -no FSTYPE -T "$DIR" 2>/dev/null || stat -f -c %T "$DIR")
TABD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

mkdir -p "$(dirname "$OUT")"
{
    echo "# tabd vs Redis vs libevent floor"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "- Machine: $(nproc) CPUs, ${CPU_MODEL:-unknown CPU}, kernel $(uname -r), $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
    echo "- Load average at start: $LOAD_START (client and server share the CPUs$([ "$PIN" = 1 ] && echo "; servers pinned to CPU 0, load generator to CPU 1"))"
    echo "- Command: \`$CMD\` (per case: ${SECS} s measured after ${WARM} s warmup, $REPEAT run(s), median shown; open files limit $NOFILE)"
    echo "- Data directory filesystem: $FS_TYPE; Redis $REDIS_VERSION (appendonly yes); libevent $(pkg-config --modversion libevent); $(gcc --version | head -1); tabd at git $TABD_REV"
    echo "- Requests: floor and tabd \`{\"cmd\":\"select\",\"tab\":\"a\"}\` / \`…\"b\"}\` in turn per connection, after one \`set_tabs\` (6 tabs) per connection; Redis \`SET k v\` (inline). \`tabd tap (login gate)\`: \`tap\` a / b in turn through the LoginGate plugin after \`set_tabs\` and a login; \`tabd state\`: \`{\"cmd\":\"state\"}\` on a 6-tab controller (read only), against \`redis GET (state size)\`: \`GET k\` of a value as long as that state reply (${STATE_BYTES:-?} bytes); every other tabd row is against Redis \`SET k v\`. \`tabd select (nested)\`: the same selects of a and b, each the child of a group (R13)."
    echo "- Latency: per request, from write to its reply line, log-linear histogram (<0.8% error). c = connections, P = requests in flight per connection."
    echo
    echo "## Throughput and latency"
    echo
    echo "| server | fsync | case | ops/s | p50 µs | p99 µs | p99.9 µs | errors | ops/s ÷ floor | p99 ÷ floor | tabd ÷ Redis ops/s | tabd ÷ Redis p99 |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for r in "${ROWS[@]}"; do
        IFS='|' read -r s f c ops p50 p99 p999 max errs note <<<"$r"
        fl=""; rd=""; vs_floor_ops="—"; vs_floor_p99="—"; vs_redis_ops="—"; vs_redis_p99="—"
        if [ "$s" != floor ]; then
            read -r fo fp <<<"$(lookup floor - "$c")"
            vs_floor_ops=$(ratio "$ops" "${fo:-}"); vs_floor_p99=$(ratio "$p99" "${fp:-}")
        fi
        if [ "$s" = "tabd state" ]; then
            read -r ro rp <<<"$(lookup "redis GET (state size)" "$f" "$c")"
            vs_redis_ops=$(ratio "$ops" "${ro:-}"); vs_redis_p99=$(ratio "$p99" "${rp:-}")
        elif [ "${s%% *}" = tabd ]; then
            read -r ro rp <<<"$(lookup redis "$f" "$c")"
            vs_redis_ops=$(ratio "$ops" "${ro:-}"); vs_redis_p99=$(ratio "$p99" "${rp:-}")
        fi
        printf '| %s | %s | %s | %s | %s | %s | %s | %s%s | %s | %s | %s | %s |\n' \
            "$s" "${f/#-/—}" "$c" "${ops:-—}" "${p50:-—}" "${p99:-—}" "${p999:-—}" "${errs:-—}" \
            "${note:+ ($note)}" "$vs_floor_ops" "$vs_floor_p99" "$vs_redis_ops" "$vs_redis_p99"
    done
    echo
    [ -z "$TABD_STATUS" ] || { echo "**tabd: $TABD_STATUS**"; echo; }
    if [ -n "${NESTED_PAIRS:-}" ]; then
        echo "## Nested select (R13): a tab inside a group against the same select on flat tabs"
        echo
        echo "Alternating pairs (\`Benchmarks/harness/nested-pairs.sh 3 $SECS\`: a fresh tabd per run, flat then nested, three rounds per case; mean ops/s). The single runs in the table above were measured minutes apart."
        echo
        echo "| case | flat ops/s | nested ops/s | nested ÷ flat |"
        echo "|---|---:|---:|---:|"
        while read -r cs ps fo no r; do
            printf '| %s %s | %s | %s | %s |\n' "$cs" "$ps" "$fo" "$no" "$r"
        done <<<"$NESTED_PAIRS"
        echo
    fi
    if [ ${#IDLE_ROWS[@]} -gt 0 ]; then
        echo "## Idle connections (server VmRSS, each connection has sent one ping and had its reply)"
        echo
        echo "| server | connections | alive | RSS before MiB | RSS after MiB | bytes per connection | errors |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
        for r in "${IDLE_ROWS[@]}"; do
            IFS='|' read -r s n alive before after per errs <<<"$r"
            printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$s" "$n" "${alive:-—}" "$(mib "$before")" "$(mib "$after")" "${per:-—}" "${errs:-—}"
        done
        [ -z "$TABD_STATUS" ] || [ -x "$TABD_BIN" ] || echo "| tabd | — | — | — | — | — | skipped |"
        echo
    fi
    if [ ${#CTRL_ROWS[@]} -gt 0 ]; then
        echo "## Controllers (tabd VmRSS before and after creating them, 6 tabs each)"
        echo
        echo "| controllers | RSS before MiB | RSS after MiB | bytes per controller | failed requests |"
        echo "|---:|---:|---:|---:|---:|"
        for r in "${CTRL_ROWS[@]}"; do
            IFS='|' read -r n before after per failed <<<"$r"
            printf '| %s | %s | %s | %s | %s |\n' "$n" "$(mib "$before")" "$(mib "$after")" "$per" "$failed"
        done
        echo
    fi
    if [ ${#SUB_ROWS[@]} -gt 0 ]; then
        echo "## Fan-out (one client taps between two tabs; every subscriber receives every event)"
        echo
        echo "| subscribers | taps/s | p50 µs | p99 µs | events/s delivered (all subscribers) | subscribers dropped |"
        echo "|---:|---:|---:|---:|---:|---:|"
        for r in "${SUB_ROWS[@]}"; do
            IFS='|' read -r n ops evs lost p50 p99 <<<"$r"
            printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "${ops:-—}" "${p50:-—}" "${p99:-—}" "${evs:-—}" "${lost:-—}"
        done
        echo
    fi
} >"$OUT"

cat "$OUT"
say "report written to $OUT"

if [ -n "${BENCH_RECORD:-}" ]; then
    python3 - "$BENCH_RECORD" "$OUT" <<'PY'
import sys
record, report = sys.argv[1], sys.argv[2]
begin, end = "<!-- harness:begin -->", "<!-- harness:end -->"
body = open(report).read().strip()
# The report's title becomes a section of the record.
out = []
for i, l in enumerate(body.splitlines()):
    if i == 0 and l.startswith("# "):
        out.append("## " + l[2:] + " (harness, `make bench`)")
    elif l.startswith("## "):
        out.append("#" + l)
    else:
        out.append(l)
body = "\n".join(out)
block = f"{begin}\n{body}\n{end}"
try:
    text = open(record).read()
except FileNotFoundError:
    text = "# Benchmarks\n"
if begin in text and end in text:
    a, b = text.index(begin), text.index(end) + len(end)
    text = text[:a] + block + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(record, "w").write(text)
PY
    say "report recorded in $BENCH_RECORD"
fi
