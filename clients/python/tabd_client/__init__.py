"""tabd_client: a client for tabd (docs/clients.md).

- `Client` (blocking) and `AsyncClient` (asyncio): one method per command,
  pipelining, events; error replies raise `TabdError` with the protocol's code.
- `Follower` (blocking) and `follow_async` (asyncio): a mirror of controllers
  kept from events alone with the seq recipe of docs/protocol.md, "Staying in
  sync", resyncing when in doubt and reconnecting with backoff after tabd
  restarts; its updates say when it had to read `state` again and why.

Standard library only.
"""

from .aio import AsyncClient, follow_async
from .client import Client, Follower
from .core import Changed, Checked, Deleted, Disconnected, MirrorCore, Resynced, Synced, Update
from .errors import MAX_LINE_BYTES, ConnectionLost, LineTooLong, TabdError, TimedOut, Unreachable
from .model import IGNORED, ControllerMirror, Event, OutOfSync, diff

__all__ = [
    "AsyncClient", "Changed", "Checked", "Client", "ConnectionLost", "ControllerMirror", "Deleted",
    "Disconnected", "Event", "Follower", "IGNORED", "LineTooLong", "MAX_LINE_BYTES", "MirrorCore", "OutOfSync", "Resynced", "Synced", "TabdError",
    "TimedOut", "Unreachable", "Update", "diff", "follow_async",
]
