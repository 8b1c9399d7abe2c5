#!/usr/bin/env python3
"""Keeps a mirror of one tabd controller from events alone, with tabd_client.

An example of the Python client package (clients/python; `pip install
clients/python`, or run this from a checkout: it finds the package beside it).
`tabd_client.Follower` does the recipe of docs/protocol.md, "Staying in sync"
(hello, subscribe, state; apply only later events; read state again when in
doubt; reconnect with backoff after tabd restarts); this script only prints
what it reports.

Lines on stdin drive it (for tests; see examples/README.md):
    check  compare the mirror with `state`; prints
           {"check":"ok","seq":N} or {"check":"mismatch","diff":[paths]}
    quit   exit 0
It prints one JSON line per sync: {"sync":"initial"|"resync", "instance", "seq",
"instance_changed", "previous_seq", "nothing_missed"}; and {"sync":"resync",
"reason", "seq"} when it was in doubt and read the state again.
`--once` prints the mirror as JSON and exits.
"""

import argparse
import json
import os
import select
import sys

try:
    import tabd_client
except ImportError:  # a checkout: the package is in clients/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
    import tabd_client


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description="Mirror a tabd controller from its events.")
    # As tabctl: --socket, else $TABD_SOCKET, else the installed service's socket; never one
    # found in the current directory (`make run` prints the export TABD_SOCKET=... line).
    p.add_argument("--socket", default=os.environ.get("TABD_SOCKET") or "/run/tabd/tabd.sock",
                   help="tabd's socket (default: $TABD_SOCKET, else /run/tabd/tabd.sock)")
    p.add_argument("--controller", default="main")
    p.add_argument("--reconnect-seconds", type=float, default=30.0)
    p.add_argument("--once", action="store_true", help="print the mirror as JSON and exit")
    args = p.parse_args()
    name = args.controller

    try:
        follower = tabd_client.Follower(args.socket, [name], reconnect_seconds=args.reconnect_seconds,
                                        retry_first_connect=True)
    except tabd_client.Unreachable as e:
        say({"error": str(e)})
        sys.exit(1)
    if args.once:
        for update in follower:
            if isinstance(update, tabd_client.Synced):
                print(json.dumps(update.controllers.get(name), indent=2))
                return

    checks, quitting, inputs, stdin_buf = 0, False, [sys.stdin], b""
    while not (quitting and not checks):
        readable, _, _ = select.select([follower] + inputs, [], [])
        if follower in readable:
            try:
                updates = follower.poll()
            except tabd_client.Unreachable as e:
                say({"error": str(e)})
                sys.exit(1)
            for u in updates:
                if isinstance(u, tabd_client.Synced):
                    state = u.controllers.get(name)
                    report = {"sync": "initial" if u.initial else "resync", "instance": u.instance,
                              "seq": state and state["seq"]}
                    if not u.initial:
                        report["instance_changed"] = u.instance_changed
                        report["previous_seq"] = u.previous_seqs.get(name)
                        report["nothing_missed"] = report["seq"] == report["previous_seq"]
                    say(report)
                elif isinstance(u, tabd_client.Resynced):
                    # In doubt (or created again after a delete): it read the state again.
                    say({"sync": "resync", "reason": u.reason, "instance": follower.core.instance, "seq": u.state["seq"]})
                elif isinstance(u, tabd_client.Checked):
                    checks -= 1
                    if u.differences:
                        say({"check": "mismatch", "diff": u.differences})
                    else:
                        say({"check": "ok", "seq": u.seq})
                elif isinstance(u, tabd_client.Disconnected):
                    for _ in range(checks):  # asked on the old connection: ask again
                        follower.check(name)
        if sys.stdin in readable:
            chunk = os.read(sys.stdin.fileno(), 1 << 16)
            if not chunk:  # end of input: as `quit`
                inputs, chunk = [], b"quit\n"
            stdin_buf += chunk
            while b"\n" in stdin_buf:
                line, stdin_buf = stdin_buf.split(b"\n", 1)
                command = line.decode().strip()
                if command == "check":
                    checks += 1
                    follower.check(name)
                elif command == "quit":
                    quitting = True
                elif command:
                    say({"error": "unknown input %r (check or quit)" % command})


if __name__ == "__main__":
    main()
