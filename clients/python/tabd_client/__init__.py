"""tabd_client: a client for tabd (docs/clients.md).

- `Client` (blocking) and `AsyncClient` (asyncio): one method per command,
  pipelining, events; error replies raise `TabdError` with the protocol's code,
  as the subclass of that code (`NotFound`, `Denied`, ...: `ERRORS`). Each
  result is a dict typed per command (`tabd_client.results`: `State`,
  `Selection`, ...), TypedDicts that mypy checks the keys of.
- `Follower` (blocking) and `follow_async` (asyncio): a mirror of controllers
  kept from events alone with the seq recipe of docs/protocol.md, "Staying in
  sync", resyncing when in doubt and reconnecting with backoff after tabd
  restarts; its updates say when it had to read `state` again and why.

Standard library only.
"""

from .aio import AsyncClient, follow_async
from .client import Client, Follower
from .core import Changed, Checked, Deleted, Disconnected, MirrorCore, Resynced, Synced, Update, events_of
from .errors import (ERRORS, MAX_LINE_BYTES, ConfigInvalid, Conflict, ConnectionLost, Denied, Forbidden, Internal,
                     InvalidRequest, LineTooLong, NotAvailable, NotFound, OutOfRange, Overloaded, ParseError, TabdError,
                     TimedOut, TooLarge, Unavailable, UnknownCommand, Unreachable)
from .model import IGNORED, ControllerMirror, Event, OutOfSync, diff

__all__ = [
    "AsyncClient", "Changed", "Checked", "Client", "ConfigInvalid", "Conflict", "ConnectionLost", "ControllerMirror",
    "Deleted", "Denied", "Disconnected", "ERRORS", "Event", "Follower", "Forbidden", "IGNORED", "Internal",
    "InvalidRequest", "LineTooLong", "MAX_LINE_BYTES", "MirrorCore", "NotAvailable", "NotFound", "OutOfRange",
    "OutOfSync", "Overloaded", "ParseError", "Resynced", "Synced", "TabdError", "TimedOut", "TooLarge",
    "Unavailable", "UnknownCommand", "Unreachable", "Update", "diff", "events_of", "follow_async",
]
