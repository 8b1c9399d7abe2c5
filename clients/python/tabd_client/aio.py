"""The asyncio API: `AsyncClient` (requests pipelined from any number of
tasks, events on a queue) and `follow_async` (the mirror, reconnecting)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Deque, List, Optional

import collections

from .commands import JSON, Commands
from .core import MirrorCore, Update, events_of, request_line
from .errors import MAX_LINE_BYTES, ConnectionLost, TabdError, Unreachable


class AsyncClient(Commands[Awaitable[JSON]]):
    """One connection. Each command method returns an awaitable of the
    result (a dict, typed per command: tabd_client.results); calls from many tasks are written at once and answered in order
    (pipelining). Events go to `events()`. Create it with `await
    AsyncClient.connect(path)`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer
        self._waiting: "Deque[asyncio.Future[JSON]]" = collections.deque()
        self._events: "asyncio.Queue[Optional[JSON]]" = asyncio.Queue()
        self._task = asyncio.ensure_future(self._read())
        self.closed = False

    @classmethod
    async def connect(cls, path: str, *, max_line_bytes: int = MAX_LINE_BYTES) -> "AsyncClient":
        """A line from tabd longer than `max_line_bytes` ends the connection
        (calls waiting for replies raise ConnectionLost). For a time limit,
        wrap a call in `asyncio.wait_for`."""
        try:
            reader, writer = await asyncio.open_unix_connection(path, limit=max_line_bytes)
        except OSError as e:
            raise Unreachable("cannot reach tabd at %s: %s" % (path, e.strerror or e)) from e
        return cls(reader, writer)

    async def close(self) -> None:
        self._writer.close()
        try:
            await self._task
        except Exception:
            pass

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def _read(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line.endswith(b"\n"):
                    break
                msg = json.loads(line)
                events = events_of(msg)
                if events is not None:
                    for event in events:
                        self._events.put_nowait(event)
                elif self._waiting:
                    future = self._waiting.popleft()
                    if not future.done():
                        future.set_result(msg)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self.closed = True
            self._writer.close()  # after a line too long, tabd would go on sending
            while self._waiting:
                future = self._waiting.popleft()
                if not future.done():
                    future.set_exception(ConnectionLost("the connection to tabd ended"))
            self._events.put_nowait(None)

    def exchange(self, line: bytes) -> "asyncio.Future[JSON]":
        """Writes one request line; the future is its whole reply."""
        future: "asyncio.Future[JSON]" = asyncio.get_running_loop().create_future()
        if self.closed:
            future.set_exception(ConnectionLost("the connection to tabd ended"))
            return future
        self._waiting.append(future)
        self._writer.write(line)
        return future

    def _call(self, cmd: str, fields: JSON) -> Awaitable[JSON]:
        future = self.exchange(request_line(cmd, **fields))

        async def result() -> JSON:
            reply = await future
            if not reply.get("ok"):
                raise TabdError.from_reply(reply)
            return reply.get("result") or {}
        return result()

    async def next_event(self) -> Optional[JSON]:
        """The next event; None once the connection has ended."""
        if self.closed and self._events.empty():
            return None
        event: Optional[JSON] = await self._events.get()
        return event

    async def events(self) -> AsyncIterator[JSON]:
        while True:
            event = await self.next_event()
            if event is None:
                return
            yield event


async def follow_async(path: str, controllers: Optional[List[str]] = None, *,
                       reconnect_seconds: Optional[float] = None, first_delay: float = 0.05,
                       max_delay: float = 1.0, retry_first_connect: bool = False,
                       core: Optional[MirrorCore] = None) -> AsyncIterator[Update]:
    """The mirror as an async iterator of updates (as `Follower` yields them):
    it reconnects with backoff after the connection ends, for up to
    `reconnect_seconds` (None: for ever), then raises Unreachable. Pass a
    `core` to read its `mirrors` (or `check()`) while iterating."""
    core = core or MirrorCore(controllers)
    first = True
    while True:
        loop = asyncio.get_running_loop()
        deadline = None if reconnect_seconds is None else loop.time() + reconnect_seconds
        delay = first_delay
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(path, limit=MAX_LINE_BYTES)
                break
            except OSError as e:
                if (first and not retry_first_connect) or (deadline is not None and loop.time() + delay > deadline):
                    raise Unreachable("cannot reach tabd at %s: %s" % (path, e.strerror or e)) from e
                await asyncio.sleep(delay)
                delay = min(delay * 2, max_delay)
        first = False
        try:
            writer.write(b"".join(core.connected()))
            while True:
                line = await reader.readline()
                if not line.endswith(b"\n"):
                    raise ConnectionLost("tabd closed the connection")
                out, updates = core.feed(line)
                if out:
                    writer.write(b"".join(out))
                if not getattr(reader, "_buffer", b""):  # nothing more has come for now
                    updates += core.idle()
                for update in updates:
                    yield update
        except (ConnectionLost, OSError) as e:
            writer.close()
            for update in core.disconnected(str(e)):
                yield update
