"""tabd-web against a hostile browser or peer (issue 43, item 6), at the protocol level:
plain sockets and http.client, no browser. Each test repeats one attack and waits on what
can be seen (a reply, a closed connection), with bounds generous enough for two busy cores."""

from __future__ import annotations

import base64
import http.cookiejar
import json
import os
import re
import select
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import List, Optional, Tuple

from test_browser import ROOT, WEB, Tabd, Web, tabd  # noqa: F401  (the fixture)


def request(web: Web, target: str, host: Optional[str] = None, cookie: bool = False) -> Tuple[int, str]:
    """One GET over a fresh connection: status and body."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s\r\n"
                   % (target, host or "127.0.0.1:%d" % web.port, "Cookie: %s\r\n" % web.cookie if cookie else "")).encode())
        answer = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.decode(errors="replace").partition("\r\n\r\n")
    return int(head.split(" ")[1]), body


class WebSocket:
    """A minimal WebSocket client on a plain socket: the page's own handshake, frames
    masked as a browser's are (or not, when asked)."""

    def __init__(self, web: Web, host: Optional[str] = None) -> None:
        host = host or "127.0.0.1:%d" % web.port
        self.sock = socket.create_connection(("127.0.0.1", web.port), timeout=20)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: http://%s\r\nCookie: %s\r\n\r\n"
                           % (host, key, host, web.cookie)).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            assert chunk, "tabd-web closed the upgrade: %r" % self.buffer
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        self.status = head.split(b"\r\n")[0].decode()

    def send(self, text: str, masked: bool = True) -> None:
        payload = text.encode()
        header = bytes([0x81])
        length = len(payload)
        mask_bit = 0x80 if masked else 0
        if length < 126:
            header += bytes([mask_bit | length])
        else:
            header += bytes([mask_bit | 126]) + struct.pack("!H", length)
        if masked:
            key = os.urandom(4)
            payload = key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + payload)

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed after %d of %d bytes" % (len(self.buffer), n))
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def frame(self) -> Tuple[int, bytes]:
        """The next frame from tabd-web: its opcode and payload."""
        b0, b1 = self._read(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._read(8))[0]
        assert not b1 & 0x80, "a server's frame is never masked"
        return b0 & 0x0F, self._read(length)

    def message(self) -> dict:
        """The next text message, skipping pings."""
        while True:
            opcode, payload = self.frame()
            if opcode == 1:
                return json.loads(payload)
            assert opcode in (9, 10), "expected a message, got opcode %d %r" % (opcode, payload)

    def close_code(self) -> Tuple[int, str]:
        """Reads on to tabd-web's close frame: its code and reason."""
        while True:
            opcode, payload = self.frame()
            if opcode == 8:
                return struct.unpack("!H", payload[:2])[0], payload[2:].decode()

    def ask(self, request: dict, id: int = 1) -> dict:
        self.send(json.dumps({"id": id, "request": request}))
        while True:
            m = self.message()
            if m["type"] == "reply" and m["id"] == id:
                return m["reply"]

    def close(self) -> None:
        self.sock.close()


def test_the_cookie_is_this_instances(tabd: Tabd) -> None:
    """Two tabd-web on 127.0.0.1: a browser keeps both logins (cookies are not isolated by
    port, RFC 6265 §8.5: with one name for both, the second replaced the first)."""
    first, second = Web(tabd.socket), Web(tabd.socket)
    try:
        jar = http.cookiejar.CookieJar()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        for web in (first, second):
            with browser.open(web.url, timeout=10) as r:
                assert r.status == 200 and r.url == web.base + "/"
        with browser.open(first.base + "/", timeout=10) as r:
            assert r.status == 200, "the second tabd-web's cookie replaced the first's"
        for web in (first, second):
            with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
                s.sendall(("GET /?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (web.token, web.port)).encode())
                head = s.recv(4096).decode()
            set_cookie = re.search(r"(?im)^set-cookie: (.*)$", head).group(1).strip()
            attributes = [a.strip() for a in set_cookie.split(";")]
            assert attributes[0] == "%s=%s" % (web.cookie_name, web.token), set_cookie
            assert str(web.port) in web.cookie_name
            assert {"Path=/", "HttpOnly", "SameSite=Strict"} <= set(attributes[1:]), set_cookie
    finally:
        first.stop()
        second.stop()


def test_only_its_own_host_names(tabd: Tabd) -> None:
    """DNS rebinding: a page of another name that resolves to 127.0.0.1 is not served, with
    or without the token; the loopback names with tabd-web's port are."""
    web = Web(tabd.socket)
    try:
        for host in ["evil.example:%d" % web.port, "evil.example", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:%d" % web.port]:
            status, body = request(web, "/", host=host, cookie=True)
            assert status == 421 and body.count("\n") == 1 and "open the address" in body, (host, status, body)
            assert request(web, "/?token=" + web.token, host=host)[0] == 421, host
        for host in ["127.0.0.1:%d" % web.port, "localhost:%d" % web.port, "LOCALHOST:%d" % web.port, "[::1]:%d" % web.port]:
            assert request(web, "/", host=host, cookie=True)[0] == 200, host
        ws = WebSocket(web, host="evil.example:%d" % web.port)
        assert " 101 " not in ws.status, ws.status
        ws.close()
    finally:
        web.stop()


def test_a_reverse_proxys_name(tabd: Tabd, tmp_path: Path) -> None:
    """On a Unix socket the loopback names are answered, and --allow-host's."""
    path = str(tmp_path / "web.sock")
    for extra, answered in [([], False), (["--allow-host", "console"], True)]:
        process = subprocess.Popen([str(WEB), "--socket", tabd.socket, "--unix-socket", path, *extra], stdout=subprocess.PIPE, text=True)
        try:
            process.stdout.readline()
            for host, want in [("console", 303 if answered else 421), ("localhost", 303), ("evil.example", 421)]:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(path)
                    s.sendall(("GET /?token=0 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host).encode())
                    status = int(s.recv(4096).decode().split(" ")[1])
                # A wrong token is 403 where the name is answered.
                assert status == (403 if want == 303 else 421), (extra, host, status)
        finally:
            process.terminate()
            process.wait(10)


def open_connections(port: int, count: int) -> List[socket.socket]:
    """`count` connections that each send an unfinished request head."""
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port).encode())
        sockets.append(s)
    return sockets


def wait_closed(sockets: List[socket.socket], bound: float) -> Tuple[List[bytes], float]:
    """Reads each until tabd-web closes it (within `bound` seconds): what each got, and when
    the last closed."""
    got = {s: b"" for s in sockets}
    open_ = set(sockets)
    started = time.monotonic()
    while open_ and time.monotonic() - started < bound:
        ready, _, _ = select.select(list(open_), [], [], 0.5)
        for s in ready:
            try:
                chunk = s.recv(4096)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                got[s] += chunk
            else:
                open_.discard(s)
    assert not open_, "%d of %d connections with unfinished heads still open after %.0f s" % (len(open_), len(sockets), bound)
    return [got[s] for s in sockets], time.monotonic() - started


def test_connections_before_login_are_bounded(tabd: Tabd) -> None:
    """300 connections that never finish their request head, with the default bounds: beyond
    --max-pending refused at once with a sentence, the rest closed after --login-timeout; then
    it serves again. (Before, all were still open after 32 s.)"""
    web = Web(tabd.socket)
    max_pending = coded_default("--max-pending")
    try:
        sockets = open_connections(web.port, 300)
        try:
            answers, took = wait_closed(sockets, bound=60)
        finally:
            for s in sockets:
                s.close()
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(refused) >= 300 - max_pending, "%d refused" % len(refused)
        assert all(b"--max-pending" in a for a in refused)
        print("figure: 300 unfinished heads all closed %.1f s after the first" % took)
        # Its slots free again: the token logs in.
        status, _ = request(web, "/?token=" + web.token)
        assert status == 303
    finally:
        web.stop()


def test_a_login_leaves_the_pending_count(tabd: Tabd) -> None:
    """A connection that presented the token is not closed by the login timeout, and does
    not hold a slot of --max-pending."""
    web = Web(tabd.socket, "--max-pending", "2", "--login-timeout", "1")
    try:
        sessions = [WebSocket(web) for _ in range(3)]  # more than --max-pending, each logged in
        for ws in sessions:
            assert " 101 " in ws.status and ws.message()["type"] == "sync"
        time.sleep(2.5)  # past the login timeout: they must be still open
        for i, ws in enumerate(sessions):
            reply = ws.ask({"cmd": "ping"}, id=i + 1)
            assert reply["ok"] is True, reply
            ws.close()
    finally:
        web.stop()


def test_websocket_sessions_are_bounded(tabd: Tabd) -> None:
    """Beyond --max-sessions a page's WebSocket is closed at once with 1013 and a sentence;
    when one closes, a new one is served."""
    web = Web(tabd.socket, "--max-sessions", "3")
    try:
        sessions = [WebSocket(web) for _ in range(3)]
        for ws in sessions:
            assert ws.message()["type"] == "sync"
        extra = WebSocket(web)
        code, reason = extra.close_code()
        assert code == 1013 and "--max-sessions" in reason, (code, reason)
        extra.close()
        sessions.pop().close()
        deadline = time.monotonic() + 30
        while True:
            again = WebSocket(web)
            opcode, payload = again.frame()
            if opcode == 1:
                assert json.loads(payload)["type"] == "sync"
                break
            again.close()
            assert time.monotonic() < deadline, "a closed session's slot was not given back within 30 s"
            time.sleep(0.2)
        again.close()
        for ws in sessions:
            ws.close()
    finally:
        web.stop()


def test_an_unmasked_frame_closes_with_1002(tabd: Tabd) -> None:
    web = Web(tabd.socket)
    try:
        ws = WebSocket(web)
        assert ws.message()["type"] == "sync"
        assert ws.ask({"cmd": "ping"})["ok"] is True  # masked, as a browser sends: answered
        ws.send(json.dumps({"id": 2, "request": {"cmd": "ping"}}), masked=False)
        while True:
            opcode, payload = ws.frame()
            assert not (opcode == 1 and json.loads(payload).get("id") == 2), "the unmasked frame was answered"
            if opcode == 8:
                assert struct.unpack("!H", payload[:2])[0] == 1002
                break
        ws.sock.settimeout(20)
        assert ws.sock.recv(100) == b"", "the connection stays open after the close"
        ws.close()
    finally:
        web.stop()


def with_hello_plugin(tabd: Tabd) -> None:
    """tabd again with hello.c (whose `whoami` says what the caller is to plugins) loaded."""
    plugins = tabd.dir / "plugins"
    plugins.mkdir(mode=0o755)
    subprocess.run(["cc", "-shared", "-fPIC", "-I", str(ROOT / "Sources" / "CTabPolicy" / "include"),
                    str(ROOT / "Plugins" / "examples" / "hello.c"), "-o", str(plugins / "hello.so")], check=True)
    text = tabd.config.read_text()
    text = text.replace("directories: [", "directories: [%s, " % plugins, 1)
    text = text.replace("  load:\n", "  load:\n    - path: hello.so\n      required: true\n", 1)
    tabd.config.write_text(text)
    tabd.restart()


def test_web_users_are_no_admins(tabd: Tabd) -> None:
    """tabd-web runs as tabd's own user here, an admin: its web users are not, to tabd nor to
    its plugins, unless it was started with --allow-admin."""
    import tabd_client
    with_hello_plugin(tabd)
    with tabd_client.Client(tabd.socket) as c:
        me = c.request("plugin.call", plugin="hello", method="whoami")["value"]
        assert me["admin"] is True and "via" not in me, me  # the socket client, for itself
    for extra, admin in [((), False), (("--allow-admin",), True)]:
        web = Web(tabd.socket, *extra)
        try:
            ws = WebSocket(web)
            assert ws.message()["type"] == "sync"
            reply = ws.ask({"cmd": "plugin.call", "plugin": "hello", "method": "whoami"})
            assert reply["ok"] is True and reply["result"]["value"]["admin"] is admin, (extra, reply)
            # ABI 1.8: the plugin can tell a web user from a socket client (unless the
            # console was told to pass admins through, it says it relays).
            assert reply["result"]["value"].get("via") == (None if admin else "tabd-web"), (extra, reply)
            reply = ws.ask({"cmd": "controller.delete", "controller": "nope"}, id=2)
            assert reply["error"]["code"] == ("forbidden" if not admin else "not_found"), (extra, reply)
            ws.close()
        finally:
            web.stop()
    # tabd itself: a connection that says it relays is no admin, whatever its uid.
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(tabd.socket)
        f = s.makefile("rw")
        for line in ['{"cmd":"hello","via":"tabd-web"}', '{"cmd":"reload"}',
                     '{"cmd":"plugin.call","plugin":"hello","method":"whoami"}']:
            f.write(line + "\n")
            f.flush()
        hello, reload_, whoami = (json.loads(f.readline()) for _ in range(3))
        assert hello["ok"] is True
        assert reload_["error"]["code"] == "forbidden", reload_
        assert whoami["result"]["value"]["admin"] is False and whoami["result"]["value"]["via"] == "tabd-web", whoami


def coded_default(option: str) -> int:
    """An option's default as tabd-web's --help states it (from the code)."""
    help_text = subprocess.run([str(WEB), "--help"], capture_output=True, text=True, check=True).stdout
    coded = re.search(r"%s <[^>]+>.*?\(default: (\d+)\)" % option, help_text.split("OPTIONS:")[1], re.S)
    assert coded, "--help shows no default for %s" % option
    return int(coded.group(1))


def test_the_bounds_documented_are_the_code() -> None:
    """docs/operations.md states tabd-web's defaults; --help states them from the code."""
    docs = (ROOT / "docs" / "operations.md").read_text()
    for option in ["--port", "--login-timeout", "--max-pending", "--max-sessions"]:
        documented = re.search(r"`%s` \(default (\d+)" % option, docs)
        assert documented, "docs/operations.md does not state %s's default as `%s` (default N" % (option, option)
        assert int(documented.group(1)) == coded_default(option), option
