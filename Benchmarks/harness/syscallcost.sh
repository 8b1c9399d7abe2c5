#!/usr/bin/env bash
# The kernel's part of a request at c=50, P=1, and whether io_uring's batched submission
# lowers it (BENCHMARKS.md, "Issue 14's speed targets, fourth pass"):
#
#   Benchmarks/harness/syscallcost.sh [ROUNDS]          (default 2)
#
# Runs uringprobe (a minimal epoll line server in C) in its three modes — a recv and a send
# per request; the sends of a turn as one io_uring submission; the receives and the sends
# each as one — under loadgen (50 connections, one request in flight each, 4 s) and prints
# its user and kernel time per request (cpusplit.sh). Installs liburing-dev with apt when
# missing. Also prints the cost of one trivial system call on this machine.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:-2}
BUILD=$HERE/../.build/harness
if [ ! -e /usr/include/liburing.h ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq liburing-dev >/dev/null
fi
make -s -C "$HERE" >/dev/null
mkdir -p "$BUILD"
gcc -O2 -Wall -Wextra -o "$BUILD/uringprobe" "$HERE/uringprobe.c" -luring
cat > "$BUILD/syscall1.c" <<'C'
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(void) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 2000000; i++) syscall(SYS_getppid);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("one getppid() system call: %.0f ns\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 2e6);
    return 0;
}
C
gcc -O2 -o "$BUILD/syscall1" "$BUILD/syscall1.c"
"$BUILD/syscall1"
SOCK=$(mktemp -u /tmp/uringprobe.XXXXXX.sock)
for _ in $(seq "$ROUNDS"); do
    for mode in plain send both; do
        "$BUILD/uringprobe" "$mode" "$SOCK" & pid=$!
        for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
        printf '%-6s ' "$mode"
        "$HERE/cpusplit.sh" "$pid" -- -s "$SOCK" -c 50 -P 1 -d 4 -r '{"cmd":"select","tab":"a"}'
        kill "$pid"; wait "$pid" 2>/dev/null || true
    done
done
