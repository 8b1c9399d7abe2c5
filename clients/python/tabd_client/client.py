"""The blocking API: `Client` (requests, pipelining, events) and `Follower`
(a mirror kept from events, reconnecting with backoff)."""

from __future__ import annotations

import collections
import json
import os
import select
import socket
import threading
import time
from typing import Any, Deque, Dict, Iterator, List, Optional, Tuple, Union

from .commands import JSON, Commands
from .core import MirrorCore, Synced, Update, events_of, request_line
from .errors import DEFAULT_TIMEOUT, MAX_LINE_BYTES, ConnectionLost, LineTooLong, TabdError, TimedOut, Unreachable


def _connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sock.close()
        raise Unreachable("cannot reach tabd at %s: %s" % (path, e.strerror or e)) from e
    return sock


class _Lines:
    """Whole lines from a socket, each at most `max_line_bytes` long. The
    search for a newline goes on where the last one stopped, so a long line is
    scanned once, not once per read."""

    def __init__(self, sock: socket.socket, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.sock, self.buf, self.scanned, self.max_line_bytes = sock, bytearray(), 0, max_line_bytes

    def _newline(self) -> int:
        nl = self.buf.find(b"\n", self.scanned)
        self.scanned = len(self.buf) if nl < 0 else self.scanned
        return nl

    def ready(self) -> bool:
        return self._newline() >= 0

    def _too_long(self) -> LineTooLong:
        self.sock.close()
        return LineTooLong("tabd sent a line longer than %d bytes, the most this client takes" % self.max_line_bytes)

    def read(self, deadline: Optional[float] = None) -> bytes:
        """The next line; ConnectionLost at the end of the stream, LineTooLong
        for a line above the limit, TimedOut when it has not ended by
        `deadline` (time.monotonic(); None: no limit)."""
        while True:
            nl = self._newline()
            if nl >= 0:
                if nl > self.max_line_bytes:
                    raise self._too_long()
                line = bytes(self.buf[:nl])
                del self.buf[:nl + 1]
                self.scanned = 0
                return line
            if len(self.buf) > self.max_line_bytes:
                raise self._too_long()
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                    self.sock.close()
                    raise TimedOut("tabd's reply did not arrive whole in time (%d bytes came)" % len(self.buf))
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError as e:
                raise ConnectionLost(str(e)) from e
            if not chunk:
                raise ConnectionLost("tabd closed the connection")
            self.buf += chunk


class Client(Commands[JSON]):
    """One connection to tabd. Each command method returns the reply's
    `result` (a dict, typed per command: tabd_client.results) or raises TabdError; events that arrive meanwhile are
    kept for `events()`/`next_event()`.

    A reply must arrive whole within `timeout` seconds (None: no limit), else
    TimedOut; a line longer than `max_line_bytes` raises LineTooLong. Both
    close the connection."""

    def __init__(self, path: str, *, timeout: Optional[float] = DEFAULT_TIMEOUT,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path, self.timeout = path, timeout
        self.sock = _connect(path)
        self._lines = _Lines(self.sock, max_line_bytes)
        self._events: Deque[JSON] = collections.deque()

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _write(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise ConnectionLost(str(e)) from e

    def _reply(self) -> JSON:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            msg: JSON = json.loads(self._lines.read(deadline))
            events = events_of(msg)
            if events is None:
                return msg
            self._events.extend(events)

    def _call(self, cmd: str, fields: JSON) -> JSON:
        self._write(request_line(cmd, **fields))
        reply = self._reply()
        if not reply.get("ok"):
            raise TabdError.from_reply(reply)
        return reply.get("result") or {}

    def pipeline(self, requests: List[Tuple[str, JSON]]) -> List[Union[JSON, TabdError]]:
        """Writes every request at once (its fields as given, None as null),
        then reads the replies (tabd answers in order): each result, or the
        TabdError of an error reply."""
        self._write(b"".join(request_line(cmd, **fields) for cmd, fields in requests))
        out: List[Union[JSON, TabdError]] = []
        for _ in requests:
            reply = self._reply()
            out.append((reply.get("result") or {}) if reply.get("ok") else TabdError.from_reply(reply))
        return out

    def next_event(self, timeout: Optional[float] = None) -> Optional[JSON]:
        """The next event (after `subscribe`), waiting up to `timeout` seconds
        (None: for ever); None when none came in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._events:
            if not self._lines.ready():
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not select.select([self.sock], [], [], left)[0]:
                    return None
            # An event that has begun must end within the timeouts too.
            limits = [d for d in (deadline, None if self.timeout is None else time.monotonic() + self.timeout) if d is not None]
            msg = json.loads(self._lines.read(min(limits) if limits else None))
            events = events_of(msg)
            if events is None:
                raise ConnectionLost("a reply nobody waited for: %r" % msg)
            self._events.extend(events)
        return self._events.popleft()

    def events(self) -> Iterator[JSON]:
        """Every event as it comes, until the connection ends."""
        while True:
            try:
                event = self.next_event()
            except ConnectionLost:
                return
            if event is not None:
                yield event


class Follower:
    """A mirror of controllers (`controllers=None`: all of them) kept from
    events on its own connection. Iterate it, or call `poll()` when its
    `fileno()` is readable, for the updates (core.py's Synced, Changed,
    Resynced, Deleted, Disconnected, Checked).

    A thread of its own reads tabd's lines and, when the connection ends,
    reconnects with backoff (`first_delay` doubling up to `max_delay`) for up
    to `reconnect_seconds` (None: for ever; after that `poll` raises
    Unreachable). So `poll(timeout)` never waits longer than `timeout`, tabd
    up or down, and `fileno()` is one descriptor for the Follower's life (a
    pipe the thread writes to), fit for select and selectors. An outage is
    one `Disconnected` update, however many tries it takes to come back."""

    def __init__(self, path: str, controllers: Optional[List[str]] = None, *,
                 reconnect_seconds: Optional[float] = None, first_delay: float = 0.05, max_delay: float = 1.0,
                 retry_first_connect: bool = False, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path, self.max_line_bytes = path, max_line_bytes
        self.core = MirrorCore(controllers)
        self.reconnect_seconds, self.first_delay, self.max_delay = reconnect_seconds, first_delay, max_delay
        self._pending: List[Update] = []
        self._inbox: Deque[Tuple[str, Any]] = collections.deque()  # ("connected", sock) / ("line", bytes) / ("lost", why) / ("unreachable", error)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._lock = threading.Lock()
        # The connection the requests go to: set by the caller's side when it takes the
        # thread's "connected" (so no request goes ahead of the recipe's first ones), None
        # while down. The thread's own is `_reading`.
        self.sock: Optional[socket.socket] = None
        self._reading: Optional[socket.socket] = None
        self._closed = False
        self._outage = False  # a Disconnected was told, and no sync has ended since
        self._deferred: List[str] = []  # controllers to check once connected again
        # The first connection is made here (retry_first_connect: with the backoff, for up
        # to reconnect_seconds), so that the constructor says at once when tabd is not there.
        first = self._reconnect() if retry_first_connect else _connect(path)
        if first is None:
            raise self._inbox.pop()[1]
        self.sock = first
        self._write(self.core.connected())
        self._thread = threading.Thread(target=self._run, args=(first,), name="tabd-follower", daemon=True)
        self._thread.start()

    @property
    def mirrors(self) -> Dict[str, JSON]:
        """Each mirrored controller's state, by name."""
        return {n: m.state for n, m in self.core.mirrors.items()}

    def fileno(self) -> int:
        """Readable when `poll()` has something to do (a line came, the connection ended or came back)."""
        return self._wake_r

    def close(self) -> None:
        self._closed = True
        self.sock = None
        with self._lock:
            sock = self._reading
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the thread's recv
            except OSError:
                pass
        self._thread.join()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> "Follower":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the reading thread ------------------------------------------------------------

    def _tell(self, kind: str, value: Any) -> None:
        self._inbox.append((kind, value))
        try:
            os.write(self._wake_w, b".")
        except (BlockingIOError, OSError):
            pass  # the pipe is full of wake-ups already, or closed

    def _run(self, sock: Optional[socket.socket]) -> None:
        told = sock is not None  # the first connection's recipe went out in __init__
        while not self._closed:
            if sock is None:
                sock = self._reconnect()
                if sock is None:
                    return
            with self._lock:
                if self._closed:
                    sock.close()
                    return
                self._reading = sock
            if not told:
                self._tell("connected", sock)
            told = False
            lines = _Lines(sock, self.max_line_bytes)
            try:
                while True:
                    self._tell("line", lines.read())
            except ConnectionLost as e:
                why = str(e)
            with self._lock:
                self._reading = None
            sock.close()
            sock = None
            if not self._closed:
                self._tell("lost", why)

    def _reconnect(self) -> Optional[socket.socket]:
        deadline = None if self.reconnect_seconds is None else time.monotonic() + self.reconnect_seconds
        delay = self.first_delay
        while not self._closed:
            try:
                return _connect(self.path)
            except Unreachable as e:
                if deadline is not None and time.monotonic() + delay > deadline:
                    self._tell("unreachable", e)
                    return None
            time.sleep(delay)
            delay = min(delay * 2, self.max_delay)
        return None

    # -- the caller's side -------------------------------------------------------------

    def _write(self, lines: List[bytes]) -> None:
        sock = self.sock
        if lines and sock is not None:
            try:
                sock.sendall(b"".join(lines))
            except OSError:
                pass  # the thread sees the end, and reconnects

    def check(self, controller: str = "main") -> None:
        """Compares the mirror with `state` (a `Checked` update answers; asked while tabd
        is down, once the Follower is connected again)."""
        if self.sock is None:
            self._deferred.append(controller)
        else:
            self._write(self.core.check(controller))

    def poll(self, timeout: Optional[float] = 0) -> List[Update]:
        """The updates made by what has come, waiting up to `timeout` seconds
        (None: until there is one) and never longer, tabd up or down."""
        updates, self._pending = self._pending, []
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while self._inbox:
                kind, value = self._inbox.popleft()
                if kind == "line":
                    out, made = self.core.feed(value)
                    self._write(out)
                    if any(isinstance(u, Synced) for u in made):
                        self._outage = False
                    updates += made
                elif kind == "connected":
                    self.sock = value
                    self._write(self.core.connected())
                    deferred, self._deferred = self._deferred, []
                    for controller in deferred:
                        self.check(controller)
                elif kind == "lost":
                    self.sock = None
                    # Checks asked on the connection that ended: the caller asks again when told
                    # Disconnected; within an outage already told, this Follower asks them again.
                    asked = self.core.checks_waiting()
                    told = self.core.disconnected(value)
                    if not self._outage:
                        updates += told
                    else:
                        self._deferred += asked
                    self._outage = True
                else:
                    raise value
            try:
                while os.read(self._wake_r, 4096):
                    pass
            except BlockingIOError:
                pass
            if self._inbox:
                continue  # came while the wake-ups were drained
            updates += self.core.idle()
            left = None if deadline is None else deadline - time.monotonic()
            if updates or (left is not None and left <= 0):
                return updates
            select.select([self._wake_r], [], [], left)

    def __iter__(self) -> Iterator[Update]:
        while True:
            yield from self.poll(None)
