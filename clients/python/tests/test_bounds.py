"""The client bounds what it reads (issue 43, item 7): against a fake tabd (a
Unix socket this test binds) that answers with a line that never ends, a
request raises TimedOut within the client's timeout, or LineTooLong at its
line limit; and the limit's default is the Swift clients' one."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT
from tabd_client import MAX_LINE_BYTES, AsyncClient, Client, ConnectionLost, LineTooLong, TimedOut


class EndlessServer:
    """Accepts one connection, reads one request line, then sends the start of
    a reply and `x` for ever (until the client goes away)."""

    def __init__(self, directory: Path) -> None:
        self.path = str(directory / "fake.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.sent = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            got = b""
            while not got.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    return
                got += chunk
            block = b"x" * 65536
            try:
                conn.sendall(b'{"ok":true,"result":{"pong":"')
                while True:
                    conn.sendall(block)
                    self.sent += len(block)
            except OSError:
                return

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def endless(tmp_path: Path) -> Iterator[EndlessServer]:
    server = EndlessServer(tmp_path)
    yield server
    server.close()


def test_an_endless_reply_times_out(endless: EndlessServer) -> None:
    # The limit above what the server can send in the timeout: the timeout ends it.
    client = Client(endless.path, timeout=2.0, max_line_bytes=1 << 40)
    started = time.monotonic()
    with pytest.raises(TimedOut):
        client.ping()
    elapsed = time.monotonic() - started
    assert elapsed < 30, elapsed  # 2 s asked; generous for a loaded machine
    assert endless.sent > 0
    endless.thread.join(30)
    assert not endless.thread.is_alive(), "the client closed the connection"


def test_an_endless_reply_stops_at_the_line_limit(endless: EndlessServer) -> None:
    # No timeout at all: the limit alone ends it.
    client = Client(endless.path, timeout=None, max_line_bytes=1 << 20)
    with pytest.raises(LineTooLong):
        client.ping()
    endless.thread.join(30)
    assert not endless.thread.is_alive(), "the client closed the connection"
    assert endless.sent < 64 << 20, endless.sent


def test_the_asyncio_client_stops_at_the_line_limit(endless: EndlessServer) -> None:
    async def run() -> None:
        client = await AsyncClient.connect(endless.path, max_line_bytes=1 << 20)
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(client.ping(), 30)
        await client.close()

    asyncio.run(run())
    endless.thread.join(30)
    assert not endless.thread.is_alive(), "the client closed the connection"
    assert endless.sent < 64 << 20, endless.sent


def test_the_default_limit_is_the_swift_clients_one() -> None:
    swift = (ROOT / "Sources" / "TabProtocol" / "ExitStatus.swift").read_text()
    m = re.search(r"static let defaultMaxLineBytes = 1 << (\d+)", swift)
    assert m, "ClientLimits.defaultMaxLineBytes not found"
    assert MAX_LINE_BYTES == 1 << int(m.group(1))
    for doc in ("docs/clients.md", "docs/operations.md", "clients/python/README.md"):
        assert "%d MiB" % (MAX_LINE_BYTES >> 20) in (ROOT / doc).read_text(), doc
