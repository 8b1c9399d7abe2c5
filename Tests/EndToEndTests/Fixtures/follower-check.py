#!/usr/bin/env python3
"""The Python mirror under the mirrors' law (Tests/EndToEndTests/MirrorLawTests.swift).

A `tabd_client.Follower` of every controller; lines on stdin drive it:
    check NAME...   compare the mirror of each NAME (and of every controller it
                    mirrors) with `state`, read on the Follower's own connection
                    (so the reply comes after every event sent before it); prints
                    {"checked":{NAME:{"mirrored":bool,"differences":[paths]}},
                     "changed":N,"resyncs":[reasons]}
                    (`changed`: Changed updates so far, `resyncs`: since the last check)
    quit            exit 0
"""

import json
import os
import select
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
import tabd_client  # noqa: E402


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    follower = tabd_client.Follower(sys.argv[1], None, reconnect_seconds=120, retry_first_connect=True)
    asked, answers, changed, resyncs, buf = [], {}, 0, [], b""
    while True:
        readable, _, _ = select.select([follower, sys.stdin], [], [])
        if follower in readable:
            for u in follower.poll():
                if isinstance(u, tabd_client.Checked) and u.controller in asked:
                    answers[u.controller] = {"mirrored": u.seq is not None, "differences": u.differences}
                    if u.differences and u.controller in follower.mirrors:
                        answers[u.controller]["mirror"] = follower.mirrors[u.controller]
                elif isinstance(u, tabd_client.Changed):
                    changed += 1
                elif isinstance(u, tabd_client.Resynced):
                    resyncs.append(u.reason)
                elif isinstance(u, tabd_client.Disconnected):
                    for name in asked:  # asked on the connection that ended: ask again
                        if name not in answers:
                            follower.check(name)
            if asked and all(n in answers for n in asked):
                say({"checked": answers, "changed": changed, "resyncs": resyncs})
                asked, answers, resyncs = [], {}, []
        if sys.stdin in readable:
            chunk = os.read(sys.stdin.fileno(), 1 << 16)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                words = line.decode().split()
                if words and words[0] == "check":
                    asked = sorted(set(words[1:]) | set(follower.mirrors))
                    answers = {}
                    for name in asked:
                        follower.check(name)
                elif words == ["quit"]:
                    return


if __name__ == "__main__":
    main()
