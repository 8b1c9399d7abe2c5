"""A stand-in for tabd that skips a seq: answers hello, subscribe and state
(seq 5), then sends an event numbered 7, and answers the next state with seq 9.
Usage: gap_server.py SOCKET (prints "ready" once it listens)."""
import json
import os
import socket
import sys

path = sys.argv[1]
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(1)
print("ready", flush=True)
conn, _ = server.accept()
stream = conn.makefile("rwb")
states = iter([5, 9])


def send(obj):
    stream.write((json.dumps(obj) + "\n").encode())
    stream.flush()


for line in stream:
    cmd = json.loads(line)["cmd"]
    if cmd == "hello":
        send({"ok": True, "result": {"name": "tabd", "version": "0", "protocol": 1, "instance": "gap"}})
    elif cmd == "subscribe":
        send({"ok": True, "result": {"events": ["*"], "controllers": ["main"], "seqs": {"main": 5}}})
    elif cmd == "state":
        seq = next(states)
        send({"ok": True, "result": {"controller": "main", "idiom": "phone", "max_visible": 5, "tabs": [{"id": "a"}],
                                     "selected": "a", "selected_index": 0,
                                     "bar": {"visible": ["a"], "more": [], "selected": "a", "position": "bottom"}, "seq": seq}})
        if seq == 5:
            send({"event": "did_select", "controller": "main", "seq": 7, "data": {"tab": "a", "index": 0}})
os.unlink(path)
