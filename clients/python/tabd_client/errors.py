"""Errors: tabd's error replies, and the connection's own failures."""

from __future__ import annotations

from typing import Any, Dict, Optional


class TabdError(Exception):
    """An error reply. `code` is the protocol's code (docs/protocol.md,
    "Errors": not_found, out_of_range, conflict, not_available, denied,
    invalid_request, parse_error, unknown_command, forbidden, too_large,
    overloaded, unavailable, internal); `error` is the whole error object
    (`plugin` and `reason` for a refusal, `field` for a bad request)."""

    def __init__(self, error: Dict[str, Any]) -> None:
        self.error = error
        self.code: str = str(error.get("code", "internal"))
        self.message: str = str(error.get("message", "tabd sent an error without a message"))
        super().__init__("%s: %s" % (self.code, self.message))

    @property
    def plugin(self) -> Optional[str]:
        return self.error.get("plugin")

    @property
    def reason(self) -> Optional[str]:
        return self.error.get("reason")

    @property
    def field(self) -> Optional[str]:
        return self.error.get("field")

    @classmethod
    def from_reply(cls, reply: Dict[str, Any]) -> "TabdError":
        return cls(reply.get("error") or {})


# The longest line (a reply or an event) the clients take from tabd: 256 MiB, the
# default of the Swift TabClient and tabctl (ClientLimits.defaultMaxLineBytes in
# Sources/TabProtocol/ExitStatus.swift; tests/test_bounds.py compares), many times
# the largest `state` tabd sends at its limits. A longer line ends the connection.
MAX_LINE_BYTES = 256 << 20

# Seconds a blocking Client waits for a whole reply (tabctl's --timeout default).
DEFAULT_TIMEOUT = 30.0


class ConnectionLost(Exception):
    """The connection to tabd ended (it stopped or restarted) before a reply."""


class LineTooLong(ConnectionLost):
    """tabd sent a line longer than the client takes (`max_line_bytes`); the
    client closed the connection."""


class TimedOut(ConnectionLost):
    """A reply did not arrive whole within the client's `timeout`; the client
    closed the connection (a late reply would answer the wrong request)."""


class Unreachable(Exception):
    """tabd could not be reached at the socket (within the time allowed)."""
