"""make run's console (scripts/run-console): it goes when tabd goes, even after a kill -9;
a console an earlier make run left behind is stopped, not fought over the port; a port
another program holds is named and another taken. Each test waits on what it can see (a
line the script prints, a process ending), with bounds a loaded machine stays far inside."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from test_browser import ROOT, WEB

SCRIPT = ROOT / "scripts" / "run-console"
BOUND = 120  # seconds: only a broken script takes this long


def wait_for(what: str, check, bound: float = BOUND):
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("waited %d s for %s" % (bound, what))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by its parent) is gone for this purpose.
    try:
        return Path("/proc/%d/stat" % pid).read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Run:
    """A run directory with a stand-in for tabd: a process (its pid is what make run passes)
    and a listening socket at run/tabd.sock, as the script waits for."""

    def __init__(self, run_dir: Path, port: int = 0) -> None:
        self.dir = run_dir
        self.dir.mkdir(exist_ok=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.dir / "tabd.sock"))
        self.listener.listen()
        self.tabd = subprocess.Popen(["sleep", "3600"])
        self.script = subprocess.Popen([str(SCRIPT), str(self.tabd.pid), str(self.dir), str(WEB), str(port)],
                                       stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []

    def read_until(self, pattern: str) -> re.Match:
        def line():
            text = self.script.stderr.readline()
            assert text, "run-console ended; it said: %r" % self.lines
            self.lines.append(text)
            return re.search(pattern, text)
        return wait_for(pattern, line)

    def console_pid(self) -> int:
        return int((self.dir / "tabd-web.pid").read_text())

    def stop(self) -> None:
        """Ends the stand-in tabd; the script then stops its console and ends by itself (a
        kill of the script would leave the console running: what an earlier run leaves)."""
        console = self.console_pid() if (self.dir / "tabd-web.pid").exists() else None
        if self.tabd.poll() is None:
            self.tabd.kill()
            self.tabd.wait()
        try:
            self.script.wait(BOUND)
        except subprocess.TimeoutExpired:
            self.script.kill()
            self.script.wait()
        if console is not None and alive(console):
            os.kill(console, signal.SIGKILL)
        self.listener.close()


def test_the_console_ends_with_tabd_even_after_kill_9(tmp_path: Path) -> None:
    run = Run(tmp_path / "run")
    try:
        found = run.read_until(r"http://127\.0\.0\.1:(\d+)/\?token=")
        console = run.console_pid()
        assert alive(console) and found
        run.tabd.send_signal(signal.SIGKILL)
        run.tabd.wait()
        wait_for("the console to end after tabd's kill -9", lambda: not alive(console))
        wait_for("run-console to end", lambda: run.script.poll() is not None)
        assert not (run.dir / "tabd-web.pid").exists(), "the pid file of a console that ended stays"
    finally:
        run.stop()


def test_a_console_an_earlier_run_left_is_stopped_not_fought(tmp_path: Path) -> None:
    # What a kill -9 of the script itself leaves: a console on this run's socket, and its pid.
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    orphan = subprocess.Popen([str(WEB), "--socket", str(run_dir / "tabd.sock"), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert "token=" in orphan.stdout.readline()
        (run_dir / "tabd-web.pid").write_text("%d\n" % orphan.pid)
        run = Run(run_dir)
        try:
            said = run.read_until(r"stopping the console \(pid (\d+)\) that an earlier make run left running")
            assert int(said.group(1)) == orphan.pid
            wait_for("the orphan to end", lambda: orphan.poll() is not None)
            run.read_until(r"token=")
            assert run.console_pid() != orphan.pid
        finally:
            run.stop()
    finally:
        if orphan.poll() is None:
            orphan.kill()
        orphan.wait()


def test_a_port_another_program_holds_is_named_and_another_taken(tmp_path: Path) -> None:
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    taken = holder.getsockname()[1]
    run = Run(tmp_path / "run", port=taken)
    try:
        said = run.read_until(r"port (\d+) is taken \(by ([^)]*)\); the console takes a free port instead")
        assert int(said.group(1)) == taken
        assert "python" in said.group(2) and ("pid %d" % os.getpid()) in said.group(2), said.group(0)
        found = run.read_until(r"http://127\.0\.0\.1:(\d+)/\?token=")
        assert int(found.group(1)) != taken
    finally:
        run.stop()
        holder.close()
