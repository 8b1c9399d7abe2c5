"""The seq recipe of docs/protocol.md, "Staying in sync", without I/O.

`MirrorCore` is fed the lines tabd sends on one connection and answers with the
requests to send next and the updates to tell its user; `Follower` (blocking)
and `follow_async` (asyncio) move the bytes and reconnect. On a connection:
`hello` (note `instance`), `subscribe` (every event of the controllers
watched), then `state` of each; events that arrive before a controller's
`state` reply are held back and only those later than its `seq` applied. A
skipped seq, or an event the mirror cannot follow, puts the controller in
doubt: its `state` is read again (a `Resynced` update says why).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from .errors import TabdError
from .model import JSON, ControllerMirror, OutOfSync, diff


@dataclass
class Synced:
    """Connected (or reconnected) and read every watched controller's state."""
    initial: bool
    instance: str
    previous_instance: Optional[str]
    controllers: Dict[str, JSON]
    previous_seqs: Dict[str, int]
    missing: List[str] = field(default_factory=list)

    @property
    def instance_changed(self) -> bool:
        return self.previous_instance is not None and self.previous_instance != self.instance

    @property
    def nothing_missed(self) -> bool:
        """Every controller's seq is the one it had: nothing happened in
        between (seq continues across restarts, R11.4)."""
        return (not self.initial and set(self.previous_seqs) == set(self.controllers)
                and all(self.previous_seqs[n] == s["seq"] for n, s in self.controllers.items()))


@dataclass
class Changed:
    """Events changed a controller: `state` as it was right after them (a copy)."""
    controller: str
    state: JSON
    events: List[JSON]


@dataclass
class Resynced:
    """The mirror was in doubt (`reason`) and read the controller's state again
    (also the first sight of a controller created after the sync)."""
    controller: str
    state: JSON
    reason: str


@dataclass
class Deleted:
    controller: str
    seq: Optional[int]


@dataclass
class Disconnected:
    reason: str


@dataclass
class Checked:
    """The answer to `check()`: where the mirror differs from `state` (empty: nowhere)."""
    controller: str
    differences: List[str]
    seq: Optional[int]


Update = Union[Synced, Changed, Resynced, Deleted, Disconnected, Checked]


def events_of(msg: JSON) -> Optional[List[JSON]]:
    """The events a line from tabd holds: an event line's one, a grouped line's
    (`{"events":[...]}`, `subscribe`'s `grouped`) all of them; None for a reply."""
    if "event" in msg:
        return [msg]
    if "ok" not in msg and isinstance(msg.get("events"), list):
        return list(msg["events"])
    return None


def request_line(cmd: str, **fields: Any) -> bytes:
    """One request line: the fields as given (None is null)."""
    return (json.dumps({"cmd": cmd, **fields}, separators=(",", ":")) + "\n").encode()


class MirrorCore:
    """The recipe as a state machine over one connection at a time."""

    def __init__(self, controllers: Optional[List[str]] = None) -> None:
        self.names = list(controllers) if controllers is not None else None
        self.mirrors: Dict[str, ControllerMirror] = {}
        self.instance: Optional[str] = None
        self.synced_once = False
        self._waiting: List[Tuple[str, Optional[str]]] = []  # (kind, controller), in order
        self._held: Dict[str, List[JSON]] = {}  # controller -> events held until its state reply
        self._sync: Optional[Synced] = None
        self._out: List[bytes] = []
        self._reasons: Dict[str, str] = {}  # controller -> why its state is read again
        # A command's events until its last (`"last": true`) has come, and whether this
        # tabd marks the last (an older one does not: see `idle`).
        self._incoming: List[JSON] = []
        self._marked = False

    # -- what the I/O side calls -------------------------------------------------

    def connected(self) -> List[bytes]:
        """A new connection: the recipe's first requests (to send in this order)."""
        self._waiting, self._held, self._reasons = [], {}, {}
        # The mirrors stay until the sync ends (a connection that drops during
        # the sync leaves them as they were for the next one).
        previous = {n: m.seq for n, m in self.mirrors.items()}
        self._sync = Synced(not self.synced_once, "", self.instance if self.synced_once else None, {}, previous)
        self._send("hello", None, request_line("hello"))
        self._send("subscribe", None, request_line("subscribe", events=["*"], controllers=self.names))
        if self.names is not None:
            for name in self.names:
                self._read_state(name)
        return self._take()

    def checks_waiting(self) -> List[str]:
        """The controllers whose `check` is asked and not yet answered on this connection."""
        return [c for k, c in self._waiting if k == "check" and c is not None]

    def disconnected(self, reason: str) -> List[Update]:
        self._waiting, self._held, self._incoming = [], {}, []
        return [Disconnected(reason)]

    def check(self, controller: str) -> List[bytes]:
        """Asks for `state` on the mirror's connection: its reply comes after
        every event sent before it, and becomes a `Checked` update."""
        self._send("check", controller, request_line("state", controller=controller))
        return self._take()

    def feed(self, line: bytes) -> Tuple[List[bytes], List[Update]]:
        """One line from tabd: the requests to send and the updates to tell. A
        command's events are applied together, at its last one (or its grouped
        line), and make one `Changed` per controller."""
        msg = json.loads(line)
        updates: List[Update] = []
        events = events_of(msg)
        if events is None:
            self._take_events(updates)  # (only from a tabd that does not mark the last)
            self._on_reply(msg, updates)
        else:
            self._incoming += events
            if "event" not in msg or msg.get("last"):
                self._marked = True
                self._take_events(updates)
        return self._take(), updates

    def idle(self) -> List[Update]:
        """Nothing more has come for now. From a tabd that does not mark a
        command's last event, the events so far are taken as one unit."""
        updates: List[Update] = []
        if not self._marked:
            self._take_events(updates)
        return updates

    # -- the recipe ----------------------------------------------------------------

    def _send(self, kind: str, controller: Optional[str], line: bytes) -> None:
        self._waiting.append((kind, controller))
        self._out.append(line)

    def _take(self) -> List[bytes]:
        out, self._out = self._out, []
        return out

    def _watched(self, name: str) -> bool:
        return self.names is None or name in self.names

    def _read_state(self, name: str) -> None:
        self._held[name] = []
        self._send("state", name, request_line("state", controller=name))

    def _take_events(self, updates: List[Update]) -> None:
        """Applies the events held: one `Changed` per controller for all of them."""
        events, self._incoming = self._incoming, []
        made: List[Update] = []
        for event in events:
            self._on_event(event, made)
        for u in made:
            if isinstance(u, Changed):
                previous = next((m for m in reversed(updates) if getattr(m, "controller", None) == u.controller), None)
                if isinstance(previous, Changed):
                    previous.state = u.state
                    previous.events += u.events
                    continue
            updates.append(u)

    def _on_event(self, event: JSON, updates: List[Update]) -> None:
        name = event.get("controller")
        if not isinstance(name, str) or not self._watched(name):
            return
        if name in self._held:
            self._held[name].append(event)
            return
        mirror = self.mirrors.get(name)
        if mirror is None or self._sync is not None:
            # Created (again) after the subscription, which did not name it in `seqs`: its
            # state says all of it (during the sync, as part of the sync). A controller the
            # sync reads anyway is held above.
            self._doubt(name, "controller %r appeared" % name)
            return
        self._apply(mirror, [event], updates)

    def _apply(self, mirror: ControllerMirror, events: List[JSON], updates: List[Update]) -> None:
        applied: List[JSON] = []
        for event in events:
            if event["seq"] <= mirror.seq:
                continue  # already in the state it was read from
            try:
                mirror.apply(event)
            except OutOfSync as e:
                self._doubt(mirror.name, str(e))
                return
            applied.append(event)
            if mirror.deleted:
                del self.mirrors[mirror.name]
                updates.append(Deleted(mirror.name, event["seq"]))
                return
        if applied:
            updates.append(Changed(mirror.name, copy.deepcopy(mirror.state), applied))

    def _doubt(self, name: str, reason: str) -> None:
        self._read_state(name)
        self._reasons[name] = reason

    def _on_reply(self, msg: JSON, updates: List[Update]) -> None:
        if not self._waiting:
            raise ValueError("a reply nobody asked for: %r" % msg)
        kind, name = self._waiting.pop(0)
        result: Optional[JSON] = (msg.get("result") or {}) if msg.get("ok") else None
        error = None if msg.get("ok") else TabdError.from_reply(msg)
        if kind == "hello":
            if error or result is None:
                raise error or TabdError({})
            assert self._sync is not None
            self._sync.instance = str(result["instance"])
        elif kind == "subscribe":
            if error or result is None:
                raise error or TabdError({})
            if self.names is None:
                for controller in sorted(result.get("seqs", {})):
                    self._read_state(controller)
                if not result.get("seqs"):
                    self._finish_sync(updates)
        elif kind == "state":
            assert name is not None
            self._on_state(name, result, error, updates)
        elif kind == "check":
            assert name is not None
            if name in self._held:  # a resync is under way: its state reply comes first
                self._send("check", name, request_line("state", controller=name))
                return
            mine = self.mirrors.get(name)
            found = diff(mine.state if mine else None, result)
            updates.append(Checked(name, found, mine.seq if mine else None))

    def _on_state(self, name: str, result: Optional[JSON], error: Optional[TabdError], updates: List[Update]) -> None:
        held = self._held.pop(name, [])
        if error is not None and error.code != "not_found":
            raise error
        reason = self._reasons.pop(name, None)
        if result is None:
            existed = self.mirrors.pop(name, None) is not None
            if self._sync is not None:
                self._sync.controllers.pop(name, None)
                self._sync.missing.append(name)
            elif existed:
                updates.append(Deleted(name, None))
        else:
            mirror = self.mirrors[name] = ControllerMirror(result)
            if self._sync is not None:
                self._sync.controllers[name] = mirror.state
            else:
                updates.append(Resynced(name, copy.deepcopy(mirror.state), reason or "read again"))
            if held:
                self._apply(mirror, held, updates)
        if self._sync is not None and not any(k == "state" for k, _ in self._waiting):
            self._finish_sync(updates)

    def _finish_sync(self, updates: List[Update]) -> None:
        sync, self._sync = self._sync, None
        assert sync is not None
        self.instance, self.synced_once = sync.instance, True
        # The updates of the held events come after the sync that they follow.
        rest = [u for u in updates]
        updates.clear()
        # What tabd holds now is what its state replies said.
        self.mirrors = {n: m for n, m in self.mirrors.items() if n in sync.controllers}
        sync.controllers = {n: copy.deepcopy(m.state) for n, m in self.mirrors.items()}
        updates.append(sync)
        updates.extend(rest)
