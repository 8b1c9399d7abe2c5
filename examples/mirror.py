#!/usr/bin/env python3
"""A tabd client that keeps a mirror of one controller from events alone.

Documentation by example (standard library only). It follows the recipe of
docs/protocol.md, "Staying in sync": on one connection send `hello` (note its
`instance`), `subscribe` (all events of one controller), then `state`; queue the
events that arrive before the `state` reply, and afterwards apply only events
whose seq is greater than `state.seq`. When the connection ends (tabd
restarted), it reconnects with backoff and does the recipe again.

Lines on stdin drive it (for tests; see examples/README.md):
    check  send `state` and compare it with the mirror; prints
           {"check":"ok","seq":N} or {"check":"mismatch","diff":[paths]}
    quit   exit 0
It prints one JSON line per sync: {"sync":"initial"|"resync", "instance", "seq",
"instance_changed", "previous_seq", "nothing_missed"}.
`--once` prints the mirror as JSON and exits.
"""

import argparse
import copy
import json
import os
import select
import socket
import sys
import time

# What a mirror kept from events cannot know: plugins decide these when asked
# (orientation), and moves are announced only at customize.end.
IGNORED = {"orientation.supported", "orientation.preferred", "customizing_order"}


class OutOfSync(Exception):
    """The mirror cannot follow: a seq was skipped or an event is unreadable."""


class Mirror:
    """One controller as `state` reports it, kept up to date from events.

    Start it from a `state` result, then `apply` every later event in order.
    Each `on_<event>` method is the rule for one event; events without a
    method (did_select, appearance, containment, will_end_customizing,
    plugin) change nothing `state` reports and only advance `seq`.
    """

    def __init__(self, state):
        self.state = copy.deepcopy(state)
        self.deleted = False

    @property
    def seq(self):
        return self.state["seq"]

    def apply(self, event):
        """Applies one event; raises OutOfSync when the mirror cannot follow."""
        if event["seq"] != self.seq + 1:
            # seq grows by one per event, plugin events included: a gap means
            # something was missed, so the mirror is in doubt.
            raise OutOfSync("expected seq %d, got %d" % (self.seq + 1, event["seq"]))
        self.state["seq"] = event["seq"]
        rule = getattr(self, "on_" + event["event"], None)
        if rule:
            rule(event.get("data") or {})

    def _tab(self, tab_id):
        for tab in self.state["tabs"]:
            if tab["id"] == tab_id:
                return tab
        raise OutOfSync("an event names tab %r, which the mirror does not have" % tab_id)

    def on_tabs_changed(self, data):
        """`tabs` is the new order of ids; `objects` are the tabs the change
        added or changed, exactly as `state` reports them. Every other tab is
        the one we already have (a tab that stays is the same child, R2.5)."""
        if "objects" not in data:
            raise OutOfSync("tabs_changed without objects (a tabd older than the recipe)")
        known = {t["id"]: t for t in self.state["tabs"]}
        known.update({t["id"]: copy.deepcopy(t) for t in data["objects"]})
        missing = [i for i in data["tabs"] if i not in known]
        if missing:
            raise OutOfSync("tabs_changed names tabs the mirror does not know: %s" % missing)
        self.state["tabs"] = [known[i] for i in data["tabs"]]

    def on_tab_updated(self, data):
        """`object` replaces the tab with that id, in place."""
        if "object" not in data:
            raise OutOfSync("tab_updated without object (a tabd older than the recipe)")
        tabs = self.state["tabs"]
        tabs[tabs.index(self._tab(data["tab"]))] = copy.deepcopy(data["object"])

    def on_badge_changed(self, data):
        """The value is both the tab's `badge` and its item's `badge`."""
        tab = self._tab(data["tab"])
        tab["badge"] = tab["item"]["badge"] = data["value"]

    def on_navigation_changed(self, data):
        """`stack` is the tab's whole stack of pushed screens."""
        self._tab(data["tab"])["stack"] = copy.deepcopy(data["stack"])

    def on_content_loaded(self, data):
        """A tab's content loads once, on its first selection, and stays."""
        self._tab(data["tab"])["content_loaded"] = True

    def on_selection_changed(self, data):
        """`tab` is an id, "more" or null; `index` is null for More or nothing.
        Sent whenever either changes, also when a tab added or moved before
        the selected one shifts its index. The selected child decides the
        status bar (`status_bar_child`)."""
        self.state["selected"] = self.state["status_bar_child"] = data["tab"]
        self.state["selected_index"] = data["index"]

    def on_bar_changed(self, data):
        """What the bar shows (`visible`, `more`, `selected`, ...), whatever
        the cause: a client never re-implements the More rule."""
        self.state["bar"] = copy.deepcopy(data)

    def on_customizable_changed(self, data):
        self.state["customizable"] = copy.deepcopy(data["tabs"])

    def on_will_begin_customizing(self, data):
        self.state["customizing"] = True

    def on_did_end_customizing(self, data):
        """`tabs` is the new order of all tabs. (When the customizable set's
        order moved with it, a customizable_changed comes next; when the
        selected tab's index moved, a selection_changed.) Moves during the
        session were not announced: `customizing_order` ends with it."""
        by_id = {t["id"]: t for t in self.state["tabs"]}
        self.state["tabs"] = [by_id[i] for i in data["tabs"]]
        self.state["customizing"] = False
        self.state.pop("customizing_order", None)

    def on_orientation_changed(self, data):
        self.state["orientation"]["current"] = data["orientation"]

    def on_controller_deleted(self, data):
        """The controller's last event: the mirror is gone."""
        self.deleted = True


def diff(mine, theirs, path=""):
    """The paths where two JSON values differ, leaving out IGNORED."""
    if path in IGNORED:
        return []
    if isinstance(mine, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(mine) | set(theirs)):
            sub = path + "." + key if path else key
            if sub in IGNORED:
                continue
            if key not in mine or key not in theirs:
                out.append(sub)
            else:
                out += diff(mine[key], theirs[key], sub)
        return out
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        out = []
        for i, (a, b) in enumerate(zip(mine, theirs)):
            out += diff(a, b, "%s[%d]" % (path, i))
        return out
    return [] if mine == theirs else [path or "."]


def say(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class Client:
    """One connection at a time to tabd, the recipe, and the stdin protocol."""

    def __init__(self, path, controller, reconnect_seconds, once=False):
        self.path, self.controller, self.once = path, controller, once
        self.reconnect_seconds = reconnect_seconds
        self.sock, self.inbuf = None, b""
        self.waiting = []     # what each outstanding request was, in order
        self.queued = None    # events held back until the state reply (a list while syncing)
        self.mirror = None
        self.instance = None  # of the tabd the mirror was last synced with
        self.new_instance = None  # of the tabd on this connection (from hello)
        self.last_seq = None
        self.checks = 0       # `check` lines not answered yet
        self.quitting = False # `quit` came: exit once the checks are answered
        self.synced_once = False

    def send(self, kind, request):
        self.waiting.append(kind)
        try:
            self.sock.sendall((json.dumps(request) + "\n").encode())
        except OSError:
            pass  # the connection is gone: reading sees it, and reconnects

    def connect(self):
        """Connects, retrying with backoff until --reconnect-seconds have passed;
        then does the recipe (pipelined: replies come back in this order)."""
        deadline, delay = time.monotonic() + self.reconnect_seconds, 0.05
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(self.path)
                break
            except OSError as e:
                self.sock.close()
                if time.monotonic() + delay > deadline:
                    say({"error": "cannot reach tabd at %s: %s" % (self.path, e)})
                    sys.exit(1)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
        self.inbuf, self.waiting = b"", []
        self.send("hello", {"cmd": "hello"})
        self.send("subscribe", {"cmd": "subscribe", "events": ["*"], "controllers": [self.controller]})
        self.resync()
        for _ in range(self.checks):  # checks the old connection never answered
            self.send("check", {"cmd": "state", "controller": self.controller})

    def resync(self):
        """The last step of the recipe (alone, it resyncs a live connection):
        ask for `state`, holding back events until its reply."""
        self.queued = []
        self.send("state", {"cmd": "state", "controller": self.controller})

    def on_line(self, line):
        msg = json.loads(line)
        if "event" in msg:
            if msg.get("controller") != self.controller:
                return
            if self.queued is not None:
                self.queued.append(msg)
            elif self.mirror is None:
                self.resync()  # re-created after a delete: start over from state
            else:
                self.apply(msg)
            return
        kind = self.waiting.pop(0)
        result = msg.get("result") if msg.get("ok") else None
        if kind == "hello":
            self.new_instance = result["instance"]
        elif kind == "state":
            self.on_state(result)
        elif kind == "check" and self.queued is not None:
            # A resync is under way (its state reply comes next): ask again.
            self.send("check", {"cmd": "state", "controller": self.controller})
        elif kind == "check":
            self.checks -= 1
            mine = self.mirror.state if self.mirror else None
            found = diff(mine, result)
            if found:
                say({"check": "mismatch", "diff": found})
            else:
                say({"check": "ok", "seq": self.mirror.seq if self.mirror else None})

    def on_state(self, state):
        """The state reply: the mirror restarts from it, then the queued events
        later than state.seq apply (earlier ones are already in it)."""
        queued, self.queued = self.queued, None
        if state and "seq" not in state:
            say({"error": "this tabd's state has no seq: it is too old for the recipe"})
            sys.exit(1)
        self.mirror = Mirror(state) if state else None  # None: no such controller
        report = {"sync": "resync" if self.synced_once else "initial",
                  "instance": self.new_instance, "seq": self.mirror and self.mirror.seq}
        if self.synced_once:
            report["instance_changed"] = self.new_instance != self.instance
            report["previous_seq"] = self.last_seq
            # seq continues across restarts: the same seq means nothing was missed.
            report["nothing_missed"] = report["seq"] == self.last_seq
        self.synced_once, self.instance = True, self.new_instance
        if not self.once:
            say(report)
        self.last_seq = self.mirror and self.mirror.seq
        for event in queued:
            if self.queued is not None:
                break  # an event could not be applied: resyncing again
            if self.mirror and event["seq"] > self.mirror.seq:
                self.apply(event)

    def apply(self, event):
        try:
            self.mirror.apply(event)
            if self.mirror.deleted:
                self.mirror = None
        except OutOfSync as e:
            say({"out_of_sync": str(e)})
            self.resync()
            return
        self.last_seq = self.mirror.seq if self.mirror else event["seq"]

    def on_disconnect(self):
        self.sock.close()
        self.connect()

    def on_command(self, command):
        """One stdin line. A check is a `state` request: its reply comes after
        every event tabd sent before it, so the mirror has applied them."""
        if command == "check":
            self.checks += 1
            self.send("check", {"cmd": "state", "controller": self.controller})
        elif command == "quit":
            self.quitting = True
        elif command:
            say({"error": "unknown input %r (check or quit)" % command})

    def run(self):
        once = self.once
        self.connect()
        inputs = [] if once else [sys.stdin]
        stdin_buf = b""
        while not (self.quitting and not self.checks):
            readable, _, _ = select.select([self.sock] + inputs, [], [])
            if self.sock in readable:
                try:
                    chunk = self.sock.recv(1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.on_disconnect()
                    continue
                self.inbuf += chunk
                while b"\n" in self.inbuf:
                    line, self.inbuf = self.inbuf.split(b"\n", 1)
                    self.on_line(line)
                    if once and not self.waiting:
                        print(json.dumps(self.mirror and self.mirror.state, indent=2))
                        return
            if sys.stdin in readable:
                chunk = os.read(sys.stdin.fileno(), 1 << 16)
                if not chunk:  # end of input: as `quit`
                    inputs, chunk = [], b"quit\n"
                stdin_buf += chunk
                while b"\n" in stdin_buf:
                    line, stdin_buf = stdin_buf.split(b"\n", 1)
                    self.on_command(line.decode().strip())


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
    Client(args.socket, args.controller, args.reconnect_seconds, args.once).run()


if __name__ == "__main__":
    main()
