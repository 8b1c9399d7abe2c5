"""A real tabd for the tests: the checkout's build (TABD_BIN_DIR, default
.build/debug), a temporary socket and state directory, both reference plugins
(the login gate with user demo / password demo, the orientation rules)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "clients" / "python"))
BIN = Path(os.environ.get("TABD_BIN_DIR", ROOT / ".build" / "debug")).resolve()


class Tabd:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.socket = str(directory / "tabd.sock")
        credentials = directory / "credentials"
        hashed = subprocess.run(["openssl", "passwd", "-6", "demo"], check=True, capture_output=True, text=True).stdout.strip()
        credentials.write_text("demo:%s\n" % hashed)
        credentials.chmod(0o600)
        self.config = directory / "tabd.yaml"
        self.config.write_text(
            "plugins:\n  directories: [%s]\n  load:\n"
            "    - path: libLoginGate.so\n      required: true\n"
            "      settings: {login_tab: login, credentials_file: %s}\n"
            "    - path: libOrientationRules.so\n      settings:\n"
            "        rules: [{tab: \"video*\", orientations: [portrait, landscape_left, landscape_right]}]\n"
            % (BIN, credentials))
        self.process: Optional[subprocess.Popen] = None
        self.start()

    def start(self) -> None:
        log = open(self.dir / "tabd.log", "ab")
        self.process = subprocess.Popen(
            [str(BIN / "tabd"), "--config", str(self.config), "--socket", self.socket,
             "--state-dir", str(self.dir / "state")], stdout=log, stderr=log)
        # A give-up bound a start never nears, even on a loaded machine (tests wait on
        # what they can observe: here, a ping answered).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                    s.sendall(b'{"cmd":"ping"}\n')
                    if s.recv(100):
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError("tabd exited: %s" % (self.dir / "tabd.log").read_text())
            time.sleep(0.02)
        raise RuntimeError("tabd did not answer within 60 s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(60)
        self.process = None

    def restart(self, sig: int = signal.SIGTERM) -> None:
        self.stop(sig)
        self.start()


@pytest.fixture
def tabd() -> Iterator[Tabd]:
    with tempfile.TemporaryDirectory(prefix="tabd-py-") as d:
        t = Tabd(Path(d))
        try:
            yield t
        finally:
            t.stop(signal.SIGKILL)


def phone_tabs(ids: List[str]) -> List[dict]:
    return [{"id": i, "title": i.capitalize()} for i in ids]
