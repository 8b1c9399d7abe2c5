"""Errors: tabd's error replies, and the connection's own failures."""

from __future__ import annotations

from typing import Any, Dict, Optional, Type


class TabdError(Exception):
    """An error reply. `code` is the protocol's code (docs/protocol.md,
    "Errors"); `error` is the whole error object (`plugin` and `reason` for a
    refusal, `field` for a bad request). Each code has a subclass to catch it
    by (`except NotFound:`, `except Denied as e:`; `ERRORS` maps code to
    class); a code this client does not know yet is a plain TabdError."""

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
        """The error of an error reply, as the subclass of its code."""
        error = reply.get("error") or {}
        return ERRORS.get(str(error.get("code")), TabdError)(error)


class ParseError(TabdError):
    """parse_error: the line is not JSON, or not a JSON object."""


class InvalidRequest(TabdError):
    """invalid_request: a field is missing, unknown or of the wrong type (`field` names it)."""


class UnknownCommand(TabdError):
    """unknown_command: a command tabd does not know."""


class NotFound(TabdError):
    """not_found: no such controller, tab or plugin."""


class OutOfRange(TabdError):
    """out_of_range: an index, size or count beyond what is allowed."""


class Conflict(TabdError):
    """conflict: a duplicate id or name, customizing already, ..."""


class NotAvailable(TabdError):
    """not_available: the operation does not apply now."""


class Denied(TabdError):
    """denied: a policy plugin refused (`plugin` and `reason` say who and why)."""


class Forbidden(TabdError):
    """forbidden: this peer may not run the command."""


class TooLarge(TabdError):
    """too_large: the line was longer than tabd takes; the connection closes."""


class Overloaded(TabdError):
    """overloaded: clients hold all tabd allows them; the connection closes."""


class Unavailable(TabdError):
    """unavailable: the change could not be made durable; nothing changed."""


class ConfigInvalid(TabdError):
    """config_invalid: a reload whose configuration tabd refuses (`problems`)."""


class Internal(TabdError):
    """internal: not the client's fault (a bug, or a plugin's bad answer)."""


# code -> class, for every code of docs/protocol.md's "Errors" (tests/test_coverage.py compares).
ERRORS: Dict[str, Type[TabdError]] = {
    "parse_error": ParseError, "invalid_request": InvalidRequest, "unknown_command": UnknownCommand,
    "not_found": NotFound, "out_of_range": OutOfRange, "conflict": Conflict, "not_available": NotAvailable,
    "denied": Denied, "forbidden": Forbidden, "too_large": TooLarge, "overloaded": Overloaded,
    "unavailable": Unavailable, "config_invalid": ConfigInvalid, "internal": Internal,
}


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
