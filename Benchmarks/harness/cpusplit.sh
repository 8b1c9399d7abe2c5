#!/usr/bin/env bash
# A server's CPU time per request, user and kernel apart, under the harness's load generator:
#
#   Benchmarks/harness/cpusplit.sh PID -- LOADGEN_ARGS...
#
# Reads utime and stime of PID (/proc/PID/stat) before and after one loadgen run (no warmup)
# and divides by the requests answered. Example, a running tabd on ./t.sock:
#   Benchmarks/harness/cpusplit.sh "$(pgrep -n tabd)" -- -s t.sock -c 50 -P 1 -d 4 -R select.req
# At P=1 most of a request's time is the kernel's (the read and the write of a Unix socket);
# callgrind (instructions.sh) counts only the user part.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LOADGEN=$HERE/../.build/harness/loadgen
[ "$#" -ge 2 ] && [ "$2" = "--" ] || { echo "usage: $0 PID -- LOADGEN_ARGS..." >&2; exit 2; }
PID=$1; shift 2
make -s -C "$HERE" >/dev/null
read -r u0 s0 < <(awk '{ print $14, $15 }' "/proc/$PID/stat")
out=$("$LOADGEN" "$@" -w 0)
read -r u1 s1 < <(awk '{ print $14, $15 }' "/proc/$PID/stat")
ops=$(sed 's/.* ops=\([0-9]*\).*/\1/' <<<"$out"); rate=$(sed 's/.*ops_per_sec=\([0-9]*\).*/\1/' <<<"$out")
awk -v r="$rate" -v n="$ops" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v t="$(getconf CLK_TCK)" \
    'BEGIN { printf "ops_per_sec=%d user_us_per_op=%.3f sys_us_per_op=%.3f\n", r, u * 1e6 / t / n, s * 1e6 / t / n }'
