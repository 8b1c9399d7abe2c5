"""tabd_client against a real tabd (conftest.py): requests and typed errors,
pipelining, events, the mirror through random commands and a kill -9, the
asyncio API, and a script outside the repository using the pip-installed
package."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, List

import pytest

from conftest import ROOT, Tabd, phone_tabs
import tabd_client
from tabd_client import AsyncClient, Checked, Client, Follower, Resynced, Synced, TabdError


def test_requests_errors_and_pipelining(tabd: Tabd) -> None:
    with Client(tabd.socket) as c:
        c.set_tabs(phone_tabs(["login", "home", "music", "news", "video", "settings"]))
        with pytest.raises(TabdError) as refused:
            c.tap("music")
        assert refused.value.code == "denied" and refused.value.plugin == "login-gate"
        with pytest.raises(TabdError) as missing:
            c.select("nowhere")
        assert missing.value.code == "not_found" and "nowhere" in missing.value.message
        c.login("demo", "demo")
        assert c.tap("music")["selected"] == "music"
        # 100 requests written at once, answered in order.
        ids = ["home", "news", "video", "nowhere"]
        results = c.pipeline([("select", {"tab": ids[i % 4]}) for i in range(100)])
        for i, r in enumerate(results):
            if ids[i % 4] == "nowhere":
                assert isinstance(r, TabdError) and r.code == "not_found"
            else:
                assert r["selected"] == ids[i % 4]
        assert c.state()["selected"] == "video"
        assert c.hello()["instance"]


def test_brief_replies_leave_out_the_list(tabd: Tabd) -> None:
    """brief=True: the reply without the list as long as the controller; the same change."""
    with Client(tabd.socket) as c:
        full = c.set_tabs(phone_tabs(["login", "home", "music", "news", "video", "settings"]))
        assert full["tabs"] == ["login", "home", "music", "news", "video", "settings"]
        assert "tabs" not in c.add_tab({"id": "extra"}, brief=True)
        assert "tabs" not in c.remove_tab("extra", brief=True)
        assert "customizable" not in c.customizable(["music", "news", "video", "settings"], brief=True)
        assert "customizing_order" not in c.customize_begin(brief=True)
        moved = c.customize_move("settings", 1, brief=True)
        assert moved["changed"] is True and "customizing_order" not in moved
        assert "tabs" not in c.customize_end(brief=True)
        assert [t["id"] for t in c.state()["tabs"]] == ["login", "settings", "home", "music", "news", "video"]
        assert c.state()["customizable"] == ["settings", "music", "news", "video"]


def test_events_in_order(tabd: Tabd) -> None:
    with Client(tabd.socket) as watcher, Client(tabd.socket) as driver:
        start = watcher.subscribe(["selection_changed", "badge_changed"], ["main"])["seqs"]["main"]
        driver.set_tabs(phone_tabs(["a", "b"]))
        driver.badge("b", "7")
        driver.select("b")
        got = [watcher.next_event(10) for _ in range(3)]
        assert [e["event"] for e in got] == ["selection_changed", "badge_changed", "selection_changed"]
        assert all(e["seq"] > start for e in got)
        assert [e["seq"] for e in got] == sorted(e["seq"] for e in got)
        assert watcher.next_event(0.05) is None


POOL = ["login", "home", "music", "video", "news", "settings", "radio", "maps", "mail"]


def random_request(rng: random.Random, tabs: List[str]):
    tab = rng.choice(tabs or POOL)
    kind = rng.choice(["set_tabs", "select", "tap", "badge", "push", "pop", "update_tab", "add_tab",
                       "remove_tab", "rotate", "customize"] if tabs else ["set_tabs"])
    if kind == "set_tabs":
        ids = rng.sample(POOL, rng.randint(3, 8))
        return "set_tabs", {"tabs": [{"id": i, "navigation": rng.random() < 0.5, "title": i.capitalize()} for i in ids]}
    if kind in ("select", "tap"):
        return kind, {"more": True} if rng.random() < 0.15 else {"tab": tab}
    if kind == "badge":
        return "badge", {"tab": tab, "value": str(rng.randint(1, 99)) if rng.random() < 0.7 else None}
    if kind == "push":
        return "push", {"tab": tab, "screen": {"id": rng.choice(["detail", "list"])}}
    if kind == "pop":
        return "pop", {"tab": tab}
    if kind == "update_tab":
        return "update_tab", {"tab": tab, "title": "T%d" % rng.randint(0, 99)}
    if kind == "add_tab":
        return "add_tab", {"tab": {"id": rng.choice(POOL)}, "index": rng.randint(0, len(tabs))}
    if kind == "remove_tab":
        return "remove_tab", {"tab": tab}
    if kind == "rotate":
        return "rotate", {"orientation": rng.choice(["portrait", "landscape_left", "landscape_right"])}
    return rng.choice(["customize.begin", "customize.end"]), {}


def drain_until_checked(f: Follower, timeout: float = 60) -> Checked:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for u in f.poll(0.2):
            assert not isinstance(u, Resynced), "in doubt: %s" % u.reason
            if isinstance(u, Checked):
                return u
    raise AssertionError("no check answer within %s s" % timeout)


def drain_until_synced(f: Follower, timeout: float = 60) -> Synced:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for u in f.poll(0.2):
            if isinstance(u, Synced):
                return u
    raise AssertionError("no sync within %s s" % timeout)


@pytest.mark.parametrize("seed", [34, 0xBEEF])
def test_follower_keeps_the_mirror_across_kill_9(tabd: Tabd, seed: int) -> None:
    rng = random.Random(seed)
    driver = Client(tabd.socket)
    f = Follower(tabd.socket, ["main"])
    assert drain_until_synced(f).initial
    driver.login("demo", "demo")
    tabs: List[str] = []
    for step in range(1, 201):
        cmd, fields = random_request(rng, tabs)
        try:
            result = driver.request(cmd, **fields)
            tabs = result.get("tabs", tabs)
        except TabdError:
            pass
        if step % 20 == 0:
            f.check("main")
            answer = drain_until_checked(f)
            assert answer.differences == [], "seed %d, step %d: %s" % (seed, step, answer.differences)
        if step == 100:
            before = f.mirrors["main"]["seq"]
            driver.close()
            tabd.restart(signal.SIGKILL)
            driver = Client(tabd.socket)
            sync = drain_until_synced(f)
            assert not sync.initial and sync.instance_changed and sync.nothing_missed, sync
            assert sync.controllers["main"]["seq"] == before
            driver.login("demo", "demo")
    f.check("main")
    assert drain_until_checked(f).seq == driver.state()["seq"]
    f.close()
    driver.close()


def test_follower_poll_never_waits_longer_than_asked_and_an_outage_is_one_disconnect(tabd: Tabd) -> None:
    """While tabd is down, poll(0) returns at once (it blocked for the whole
    outage: 3.56 s for a 3.5 s one, for ever with tabd gone) and fileno() stays
    one descriptor that select wakes on when tabd is back; however many tries
    the reconnection takes, the outage is one Disconnected, then one Synced."""
    from tabd_client import Disconnected
    f = Follower(tabd.socket, ["main"], first_delay=0.01, max_delay=0.05)
    assert drain_until_synced(f).initial
    fd = f.fileno()
    tabd.stop(signal.SIGKILL)
    told: List[Any] = []
    # Wait for the loss itself (observable: its Disconnected), then poll while tabd is down.
    deadline = time.monotonic() + 60
    while not any(isinstance(u, Disconnected) for u in told) and time.monotonic() < deadline:
        told += f.poll(0.1)
    assert any(isinstance(u, Disconnected) for u in told), "no Disconnected within 60 s of tabd's kill -9"
    for _ in range(20):  # many reconnection tries fail meanwhile (every 10 to 50 ms)
        # In a thread, so that a poll that waits for tabd (the fault) fails here, not hangs:
        # 30 s is generous for a loaded machine, and tabd stays down until after.
        got: List[Any] = []
        t = threading.Thread(target=lambda: got.append(f.poll(0)), daemon=True)
        t.start()
        t.join(30)
        assert got, "poll(0) waited while tabd was down"
        told += got[0]
        time.sleep(0.05)
    tabd.start()
    synced = None
    deadline = time.monotonic() + 60
    while synced is None and time.monotonic() < deadline:
        select.select([fd], [], [], 1)
        for u in f.poll(0):
            told.append(u)
            if isinstance(u, Synced):
                synced = u
    assert synced is not None and not synced.initial and synced.instance_changed, told
    assert f.fileno() == fd
    assert sum(isinstance(u, Disconnected) for u in told) == 1, told
    f.close()


def test_follower_of_a_pad_with_groups(tabd: Tabd) -> None:
    """R13's events: the mirror equals state, reading it again where events
    leave what a group shows to state."""
    with Client(tabd.socket) as c:
        c.controller_create("pad", idiom="pad", max_visible=4)
        c.set_tabs([{"id": "home"}, {"id": "library", "children": [{"id": "albums"}, {"id": "songs"}], "allows_reordering": True},
                    {"id": "radio", "allows_hiding": True, "hidden_by_default": True}, {"id": "news", "allows_hiding": True}],
                   controller="pad")
        f = Follower(tabd.socket, ["pad"])
        drain_until_synced(f)
        c.login("demo", "demo", controller="pad")
        c.tap("songs", controller="pad")
        c.set_hidden("radio", False, controller="pad")
        c.reorder(["songs", "albums"], group="library", controller="pad")
        c.sidebar(False, controller="pad")
        c.select("news", controller="pad")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            f.poll(0.1)
            f.check("pad")
            answers = []
            end = time.monotonic() + 5
            while not answers and time.monotonic() < end:
                answers = [u for u in f.poll(0.1) if isinstance(u, Checked)]
            if answers and not answers[-1].differences:
                break
        assert answers and answers[-1].differences == [], answers
        f.close()


def test_asyncio_client_and_follower(tabd: Tabd) -> None:
    async def run() -> None:
        c = await AsyncClient.connect(tabd.socket)
        await c.set_tabs(phone_tabs(["a", "b", "c", "d"]))
        results = await asyncio.gather(*[c.select(["a", "b", "c"][i % 3]) for i in range(60)])
        assert [r["selected"] for r in results] == [["a", "b", "c"][i % 3] for i in range(60)]
        with pytest.raises(TabdError):
            await c.select("nowhere")
        core = tabd_client.MirrorCore(["main"])
        updates = tabd_client.follow_async(tabd.socket, ["main"], core=core)
        first = await asyncio.wait_for(updates.__anext__(), 60)
        assert isinstance(first, Synced) and first.initial
        await c.select("d")
        before = (await c.state())["seq"]
        while core.mirrors["main"].seq != before:
            await asyncio.wait_for(updates.__anext__(), 60)
        assert core.mirrors["main"].state["selected"] == "d"
        await c.close()
        tabd.restart(signal.SIGKILL)
        u = await asyncio.wait_for(updates.__anext__(), 60)
        while not isinstance(u, Synced):
            u = await asyncio.wait_for(updates.__anext__(), 60)
        assert u.instance_changed and u.nothing_missed and u.controllers["main"]["seq"] == before
        await updates.aclose()
    asyncio.run(run())


def test_a_script_outside_the_repository_with_the_installed_package(tabd: Tabd, tmp_path: Path) -> None:
    """pip installs the package from the checkout (no network: the build
    backend is the installed setuptools); a script in another directory,
    with only that on its path, keeps a mirror across kill -9."""
    site, source = tmp_path / "site", tmp_path / "source"
    # A copy, so that the build leaves nothing in the checkout.
    shutil.copytree(ROOT / "clients" / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                          "--target", str(site), str(source)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    script = tmp_path / "follow.py"
    script.write_text(textwrap.dedent("""
        import json, sys
        import tabd_client
        for u in tabd_client.Follower(sys.argv[1], ["main"], reconnect_seconds=120):
            if isinstance(u, tabd_client.Synced):
                print(json.dumps({"sync": "initial" if u.initial else "resync", "nothing_missed": u.nothing_missed,
                                  "changed": u.instance_changed, "seq": u.controllers["main"]["seq"]}), flush=True)
            elif isinstance(u, tabd_client.Changed):
                print(json.dumps({"seq": u.state["seq"], "selected": u.state["selected"]}), flush=True)
    """))
    # -S -s: no site-packages; the standard library and the installed package only.
    proc = subprocess.Popen([sys.executable, "-S", "-s", str(script), tabd.socket], cwd=str(tmp_path),
                            env={"PYTHONPATH": str(site)}, stdout=subprocess.PIPE, text=True)
    try:
        def line() -> dict:
            return json.loads(proc.stdout.readline())

        def select_and_follow(tab: str) -> int:
            """Selects `tab` from another client; the script's lines reach that seq with it."""
            with Client(tabd.socket) as c:
                c.select(tab)
                seq = c.state()["seq"]
            got = line()
            while got.get("seq") != seq:
                got = line()
            assert got["selected"] == tab
            return seq

        assert line()["sync"] == "initial"
        with Client(tabd.socket) as c:
            c.set_tabs(phone_tabs(["a", "b", "c"]))
        seq = select_and_follow("c")
        tabd.restart(signal.SIGKILL)
        got = line()
        assert got == {"sync": "resync", "nothing_missed": True, "changed": True, "seq": seq}
        select_and_follow("a")
    finally:
        proc.kill()
        proc.wait()


def test_core_reads_state_again_after_a_gap() -> None:
    """The recipe without I/O: a skipped seq puts the controller in doubt, its
    state is read again, and the update says why."""
    core = tabd_client.MirrorCore(["main"])
    sent = core.connected()
    assert [json.loads(l)["cmd"] for l in sent] == ["hello", "subscribe", "state"]
    state = {"controller": "main", "seq": 5, "tabs": [], "selected": None, "bar": {}}
    core.feed(b'{"ok":true,"result":{"instance":"a"}}')
    core.feed(b'{"ok":true,"result":{"seqs":{"main":5}}}')
    _, updates = core.feed(json.dumps({"ok": True, "result": state}).encode())
    assert isinstance(updates[0], Synced) and updates[0].initial
    out, updates = core.feed(b'{"event":"did_select","controller":"main","seq":7,"data":{},"last":true}')
    assert [json.loads(l)["cmd"] for l in out] == ["state"] and updates == []
    _, updates = core.feed(json.dumps({"ok": True, "result": dict(state, seq=9)}).encode())
    assert isinstance(updates[0], Resynced) and updates[0].reason == "seq 5 was followed by 7"
    assert core.mirrors["main"].seq == 9


def test_the_follower_tells_one_change_per_command(tabd: Tabd) -> None:
    """A command's events (set_tabs: containment, tabs_changed, the selection,
    appearance, the bar, ...) are applied together, at the one tabd marks
    `"last": true`: one Changed per command, however many events it sent."""
    driver = Client(tabd.socket)
    f = Follower(tabd.socket, ["main"])
    drain_until_synced(f)
    driver.login("demo", "demo")
    for i in range(8):
        driver.request("set_tabs", tabs=phone_tabs(["login"] + ["t%d" % (i * 10 + k) for k in range(3 + i % 4)]))
        target = driver.state()["seq"]
        changed: List[Any] = []
        deadline = time.monotonic() + 60
        while f.mirrors["main"]["seq"] < target and time.monotonic() < deadline:
            changed += [u for u in f.poll(0.2) if isinstance(u, tabd_client.Changed)]
        assert f.mirrors["main"]["seq"] == target
        # The login's own event is the first command's change (one more).
        commands = 1 if i else 2
        assert len(changed) == commands and len(changed[-1].events) > 1, [[e["event"] for e in c.events] for c in changed]
    f.close()
    driver.close()


def test_a_grouped_subscription_hands_its_events_out_one_by_one(tabd: Tabd) -> None:
    """`subscribe(grouped=True)`: a command's events come as one line; `next_event`
    still gives them one at a time, in order, without the mark."""
    with Client(tabd.socket) as sub, Client(tabd.socket) as driver:
        assert sub.subscribe(controllers=["main"], grouped=True)["grouped"] is True
        driver.set_tabs(phone_tabs(["login", "a", "b"]))
        seq = driver.state()["seq"]
        got: List[Any] = []
        while not got or got[-1]["seq"] < seq:
            event = sub.next_event(60)
            assert event is not None, got
            got.append(event)
        assert len(got) > 1 and all("last" not in e for e in got), got
        assert [e["seq"] for e in got] == sorted(e["seq"] for e in got)


def test_core_takes_a_grouped_line_as_one_change() -> None:
    """`{"events":[...]}` (subscribe's `grouped`) is one command's events: one Changed."""
    core = tabd_client.MirrorCore(["main"])
    core.connected()
    state = {"controller": "main", "seq": 5, "tabs": [{"id": "a", "badge": None, "item": {"badge": None}}], "selected": None, "bar": {}}
    core.feed(b'{"ok":true,"result":{"instance":"a"}}')
    core.feed(b'{"ok":true,"result":{"seqs":{"main":5}}}')
    core.feed(json.dumps({"ok": True, "result": state}).encode())
    events = [{"event": "badge_changed", "controller": "main", "seq": 6 + i, "data": {"tab": "a", "value": str(i)}} for i in range(3)]
    _, updates = core.feed(json.dumps({"events": events}).encode())
    assert len(updates) == 1 and isinstance(updates[0], tabd_client.Changed) and len(updates[0].events) == 3
    assert core.mirrors["main"].state["tabs"][0]["badge"] == "2"
    # Marked lines: nothing until the last.
    _, updates = core.feed(json.dumps(dict(events[0], seq=9)).encode())
    assert updates == []
    _, updates = core.feed(json.dumps(dict(events[1], seq=10, last=True)).encode())
    assert len(updates) == 1 and len(updates[0].events) == 2


def test_the_package_type_checks(tmp_path: Path) -> None:
    """Typed: mypy --strict finds nothing (py.typed ships the hints)."""
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path),
                        str(ROOT / "clients" / "python" / "tabd_client")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
