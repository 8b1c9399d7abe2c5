"""The blocking API: `Client` (requests, pipelining, events) and `Follower`
(a mirror kept from events, reconnecting with backoff)."""

from __future__ import annotations

import collections
import json
import select
import socket
import time
from typing import Any, Deque, Dict, Iterator, List, Optional, Tuple, Union

from .commands import JSON, Commands
from .core import MirrorCore, Update, request_line
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
    `result` (a dict) or raises TabdError; events that arrive meanwhile are
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
            if "event" in msg:
                self._events.append(msg)
            else:
                return msg

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
            if "event" not in msg:
                raise ConnectionLost("a reply nobody waited for: %r" % msg)
            self._events.append(msg)
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
    Resynced, Deleted, Disconnected, Checked). When the connection ends it
    reconnects with backoff (`first_delay` doubling up to `max_delay`) for up
    to `reconnect_seconds` (None: for ever), then raises Unreachable."""

    def __init__(self, path: str, controllers: Optional[List[str]] = None, *,
                 reconnect_seconds: Optional[float] = None, first_delay: float = 0.05, max_delay: float = 1.0,
                 retry_first_connect: bool = False, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path, self.max_line_bytes = path, max_line_bytes
        self.core = MirrorCore(controllers)
        self.reconnect_seconds, self.first_delay, self.max_delay = reconnect_seconds, first_delay, max_delay
        self._pending: List[Update] = []
        self.sock: Optional[socket.socket] = None
        self._connect(first=True, retry=retry_first_connect)

    @property
    def mirrors(self) -> Dict[str, JSON]:
        """Each mirrored controller's state, by name."""
        return {n: m.state for n, m in self.core.mirrors.items()}

    def fileno(self) -> int:
        assert self.sock is not None
        return self.sock.fileno()

    def close(self) -> None:
        if self.sock:
            self.sock.close()
            self.sock = None

    def _connect(self, first: bool, retry: bool = True) -> None:
        deadline = None if self.reconnect_seconds is None else time.monotonic() + self.reconnect_seconds
        delay = self.first_delay
        while True:
            try:
                self.sock = _connect(self.path)
                break
            except Unreachable:
                if not retry or (deadline is not None and time.monotonic() + delay > deadline):
                    raise
                time.sleep(delay)
                delay = min(delay * 2, self.max_delay)
        self._lines = _Lines(self.sock, self.max_line_bytes)
        self._write(self.core.connected())

    def _write(self, lines: List[bytes]) -> None:
        if lines and self.sock:
            try:
                self.sock.sendall(b"".join(lines))
            except OSError:
                pass  # reading sees the end, and reconnects

    def check(self, controller: str = "main") -> None:
        """Compares the mirror with `state` (a `Checked` update answers)."""
        self._write(self.core.check(controller))

    def poll(self, timeout: Optional[float] = 0) -> List[Update]:
        """Reads what has come (waiting up to `timeout` s for something) and
        returns the updates it made; reconnects when the connection ended."""
        updates, self._pending = self._pending, []
        if updates:
            timeout = 0
        assert self.sock is not None
        if self._lines.ready() or select.select([self.sock], [], [], timeout)[0]:
            try:
                while True:
                    line = self._lines.read()
                    out, made = self.core.feed(line)
                    self._write(out)
                    updates += made
                    if not self._lines.ready():
                        if not select.select([self.sock], [], [], 0)[0]:
                            break
            except ConnectionLost as e:
                self.close()
                updates += self.core.disconnected(str(e))
                self._connect(first=False)
        return updates

    def __iter__(self) -> Iterator[Update]:
        while True:
            yield from self.poll(None)
