#!/usr/bin/env python3
"""The hostile harness of issue 32, re-run against a real tabd: each attack, what it did.

    Benchmarks/harness/hostile.py [--tabd PATH] [--tabctl PATH] [--seconds N] [--only NAMES]
    make bench-hostile          # the release build of this tree

Attacks (each bounded in time: an old tabd that hangs is reported, not waited for):
  states     ten clients pull a maximum-size `state` (1,000 tabs, every text and id at its
             limit, 64 screens on each stack: ~89 MB) over and over while an eleventh pings:
             ping p50/p99/max, states per second, pullers closed for the memory budget (ten
             90 MB replies in flight pass the default 256 MiB budget: it closes most of them,
             as it should); `states-2g` the same with memory_budget_bytes at 2 GiB, where all
             ten keep pulling
  halfclose  one client asks for that state, half-closes and reads at ~4 MB/s: bytes received
  (the harness raises max_line_bytes to 128 MiB for these two: the 84 MB restore that fills
  the stacks is one line)
  slots      uid 65534 opens connections until refused (max_connections 64): can root still
             connect and be answered?
  fifo       the configuration replaced by a FIFO, then `reload`: how long another client's
             ping waited (capped at 5 s)
  bomb       a 300-byte YAML alias bomb (10^6 nodes) under a plugin's settings, then `reload`:
             the reply, its time, tabd's RSS growth
  lock       the lock file hard-linked to another file: does tabd start, is the file kept?
  squat      a socket of uid 65534 where tabctl expects tabd: does `tabctl login` send the
             password?
  disk       a 2 MiB tmpfs as the state directory filled up, then emptied: seconds until a
             change is accepted again (capped at 30 s; needs root to mount)
  timers     a plugin (Tests/EndToEndTests/Fixtures/timerflood.c, built here with cc) arms 64
             timers every 1 ms, each writing a 64 KiB store value, while another client pings:
             ping p50/p99/max, what the plugin wrote (journal bytes/s) and what tabd refused,
             the state directory's largest size (compact_bytes 64 MiB), then SIGTERM: seconds
             until tabd exited (capped at 30 s); `timers-isolated` the same with
             `isolation: process`

Prints a Markdown table with the command that produced it. Needs root for slots, squat and
disk (setpriv, mount); they are reported as not run otherwise.
"""
import argparse, json, os, select, shutil, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(*a):
    print("[hostile]", *a, file=sys.stderr, flush=True)


class Tabd:
    def __init__(self, binary, config="", directory=None, start=True):
        self.binary = binary
        self.dir = directory or tempfile.mkdtemp(prefix="tabd-hostile-")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "tabd.sock")
        self.state = os.path.join(self.dir, "state")
        self.config = os.path.join(self.dir, "tabd.yaml")
        with open(self.config, "w") as f:
            f.write("log_level: warning\n" + config)
        self.proc = None
        if start:
            self.start()

    def start(self, wait=10.0):
        self.log = open(os.path.join(self.dir, "tabd.log"), "ab")
        self.proc = subprocess.Popen([self.binary, "--config", self.config, "--socket", self.sock,
                                      "--state-dir", self.state], stderr=self.log, stdout=self.log)
        deadline = time.time() + wait
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                c = Client(self.sock)
                c.request({"cmd": "ping"})
                c.close()
                return True
            except OSError:
                time.sleep(0.02)
        return False

    def rss_kib(self):
        try:
            for line in open("/proc/%d/status" % self.proc.pid):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Client:
    def __init__(self, path, timeout=30.0):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""

    def send(self, obj):
        self.s.sendall((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def line(self):
        # Chunks joined once (a reply of 90 MB, appended to one bytes object, would be copied
        # over and over: a slow reader).
        chunks = [self.buf]
        while b"\n" not in chunks[-1]:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError("closed")
            chunks.append(chunk)
        line, _, self.buf = b"".join(chunks).partition(b"\n")
        return line

    def request(self, obj):
        self.send(obj)
        return json.loads(self.line())

    def close(self):
        self.s.close()


BIG_LINES = "limits:\n  max_line_bytes: 134217728\n"


def max_size_controller(sock):
    """1,000 tabs at the default limits, each text and id at its limit, 64 screens a stack."""
    c = Client(sock, timeout=120)
    text = "x" * 1024
    for i in range(1000):
        ident = ("t%04d" % i).ljust(256, "i")
        tab = {"id": ident, "title": text, "item": {"title": text, "image": text, "badge": text},
               "restoration_id": ("r%04d" % i).ljust(256, "r"), "navigation": True}
        c.request({"cmd": "add_tab", "tab": tab})  # each reply lists every tab: read it
    # One restore with every stack (a restore resets the stacks its archive leaves out): an
    # 84 MB line, hence the harness's max_line_bytes.
    stacks = {("r%04d" % i).ljust(256, "r"): [{"id": ("s%04d-%02d" % (i, k)).ljust(256, "s"), "title": text} for k in range(64)]
              for i in range(1000)}
    c.request({"cmd": "restore", "archive": {"selected": None, "stacks": stacks}})
    c.send({"cmd": "state"})
    size = len(c.line())
    c.close()
    return size


def loadgen(*args):
    build = os.path.join(ROOT, "Benchmarks/.build/harness/loadgen")
    subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "Benchmarks/harness"), "../.build/harness/loadgen"], check=True)
    return [build] + list(args)


def figures(out):
    return dict(kv.split("=", 1) for kv in out.split() if "=" in kv)


def attack_states(binary, seconds, budget=None):
    t = Tabd(binary, BIG_LINES + ("  memory_budget_bytes: %d\n" % budget if budget else ""))
    try:
        size = max_size_controller(t.sock)
        log("state of the maximum-size controller: %d bytes" % size)
        # Ten clients pull the state back to back (loadgen, one in flight each); an eleventh
        # pings back to back, in its own process (loadgen: no interpreter lock in the way).
        pullers = subprocess.Popen(loadgen("-s", t.sock, "-c", "10", "-P", "1", "-d", str(seconds + 2), "-w", "0",
                                           "-r", '{"cmd":"state"}', "-e", '"ok":false'), stdout=subprocess.PIPE, text=True)
        time.sleep(1)
        ping = subprocess.run(loadgen("-s", t.sock, "-c", "1", "-P", "1", "-d", str(seconds), "-w", "0",
                                      "-r", '{"cmd":"ping"}'), capture_output=True, text=True)
        pulled = pullers.communicate()[0]
        p, s = figures(ping.stdout), figures(pulled)
        return {"ping p50 ms": "%.2f" % (float(p.get("p50_us", "nan")) / 1000), "ping p99 ms": "%.2f" % (float(p.get("p99_us", "nan")) / 1000),
                "ping max ms": "%.1f" % (float(p.get("max_us", "nan")) / 1000), "states/s": s.get("ops_per_sec", "?"),
                "pullers lost": "no" if pullers.returncode == 0 else "yes (exit %d)" % pullers.returncode,
                "closed for the memory budget": open(os.path.join(t.dir, "tabd.log"), errors="replace").read().count("over the memory budget"),
                "state bytes": size, "rss MiB": t.rss_kib() // 1024}
    finally:
        t.cleanup()


def attack_halfclose(binary):
    t = Tabd(binary, BIG_LINES)
    try:
        size = max_size_controller(t.sock)
        c = Client(t.sock)
        c.s.sendall(b'{"cmd":"state"}\n')
        c.s.shutdown(socket.SHUT_WR)
        got, start = 0, time.time()
        while time.time() - start < 60:
            b = c.s.recv(256 << 10)
            if not b:
                break
            got += len(b)
            time.sleep(0.0625)  # ~4 MB/s
        return {"reply bytes": size + 1, "received": got, "whole": "yes" if got == size + 1 else "no",
                "seconds": "%.1f" % (time.time() - start)}
    finally:
        t.cleanup()


def as_uid(uid, code, *args, timeout=60):
    return subprocess.run(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups",
                           "/usr/bin/python3", "-c", code] + list(args), capture_output=True, text=True, timeout=timeout)


HOARD = r"""
import socket, sys, json, time
held, ok, refused = [], 0, 0
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(2)
    try:
        s.connect(sys.argv[1]); s.sendall(b'{"cmd":"ping"}\n')
        r = json.loads(s.makefile("rb").readline() or b'{"ok":false}')
        if r.get("ok"): ok += 1
        else: refused += 1
    except Exception: refused += 1
    held.append(s)
print(ok, refused, flush=True)
sys.stdin.read()
"""


def attack_slots(binary):
    if os.geteuid() != 0:
        return {"result": "not run (needs root for setpriv)"}
    t = Tabd(binary, 'socket_mode: "0666"\nlimits:\n  max_connections: 64\n')
    try:
        p = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                              "-c", HOARD, t.sock, "80"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready, _, _ = select.select([p.stdout], [], [], 60)
        held = p.stdout.readline().split() if ready else ["?", "?"]
        try:
            a = time.perf_counter()
            c = Client(t.sock, timeout=5)
            c.request({"cmd": "ping"})
            root = "answered in %.1f ms" % ((time.perf_counter() - a) * 1000)
        except Exception as e:
            root = "not answered (%s)" % type(e).__name__
        p.stdin.close()
        p.kill()
        return {"uid 65534 held": held[0], "uid 65534 refused": held[1], "root": root}
    finally:
        t.cleanup()


def attack_fifo(binary):
    t = Tabd(binary)
    try:
        os.unlink(t.config)
        os.mkfifo(t.config)
        reloader = Client(t.sock, timeout=6)
        reloader.send({"cmd": "reload"})
        time.sleep(0.05)
        c = Client(t.sock, timeout=5)
        a = time.perf_counter()
        try:
            c.request({"cmd": "ping"})
            waited = "%.1f ms" % ((time.perf_counter() - a) * 1000)
        except socket.timeout:
            waited = "> 5 s (stalled)"
        try:
            reply = json.loads(reloader.line())
            answer = reply.get("error", {}).get("message", "ok")[:90]
        except Exception:
            answer = "no reply"
        # Unblock an old tabd's open(2) so that it can stop.
        try:
            fd = os.open(t.config, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        return {"other client's ping waited": waited, "reload answered": answer}
    finally:
        t.cleanup()


def attack_bomb(binary):
    t = Tabd(binary)
    try:
        before = t.rss_kib()
        yaml = "plugins:\n  load:\n    - path: libOrientationRules.so\n      settings:\n        l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in range(1, 7):
            yaml += "        l%d: &l%d [%s]\n" % (i, i, ", ".join(["*l%d" % (i - 1)] * 10))
        open(t.config, "w").write(yaml)
        c = Client(t.sock, timeout=120)
        a = time.perf_counter()
        reply = c.request({"cmd": "reload"})
        took = (time.perf_counter() - a) * 1000
        answer = "refused: " + reply["error"]["message"][:80] if not reply.get("ok") else "accepted"
        return {"yaml bytes": len(yaml), "reload": answer, "reload ms": "%.0f" % took,
                "rss growth MiB": (t.rss_kib() - before) // 1024}
    finally:
        t.cleanup()


def attack_lock(binary):
    t = Tabd(binary)
    t.stop()
    victim = os.path.join(t.dir, "victim")
    try:
        open(victim, "w").write("precious\n")
        os.unlink(os.path.join(t.state, "lock"))
        os.link(victim, os.path.join(t.state, "lock"))
        started = t.start(wait=5)
        t.stop()
        kept = open(victim).read() == "precious\n"
        return {"tabd started": "yes" if started else "no (refused)", "other file kept": "yes" if kept else "no"}
    finally:
        t.cleanup()


SQUAT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(sys.argv[1]); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); c.settimeout(3)
got = b""
try:
    while b"\n" not in got:
        b = c.recv(4096)
        if not b: break
        got += b
except Exception: pass
print("received" if b"hunter2" in got else "nothing", flush=True)
c.sendall(b'{"ok":true,"result":{}}\n')
"""


def attack_squat(tabctl):
    if os.geteuid() != 0:
        return {"result": "not run (needs root for setpriv)"}
    d = tempfile.mkdtemp(prefix="tabd-squat-")
    os.chmod(d, 0o1777)
    sock = os.path.join(d, "tabd.sock")
    p = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", SQUAT, sock],
                         stdout=subprocess.PIPE, text=True)
    try:
        p.stdout.readline()
        r = subprocess.run([tabctl, "login", "demo", "--socket", sock], input="hunter2\n", capture_output=True, text=True, timeout=20)
        try:
            p.wait(5)
            got = p.stdout.readline().strip()
        except subprocess.TimeoutExpired:
            got = "nothing"
        return {"tabctl exit": r.returncode, "squatter got the password": "yes" if got == "received" else "no",
                "tabctl said": (r.stderr.strip() or r.stdout.strip())[:90]}
    finally:
        p.kill()
        shutil.rmtree(d, ignore_errors=True)


def attack_disk(binary):
    if os.geteuid() != 0:
        return {"result": "not run (needs root to mount a tmpfs)"}
    t = Tabd(binary, "fsync: always\n", start=False)
    os.makedirs(t.state)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0750", "tabd-hostile", t.state]).returncode != 0:
        return {"result": "not run (mount failed)"}
    try:
        t.start()
        c = Client(t.sock)
        c.request({"cmd": "set_tabs", "tabs": [{"id": "a"}, {"id": "b"}]})
        subprocess.run("dd if=/dev/zero of=%s/filler bs=4k 2>/dev/null" % t.state, shell=True)
        for i in range(20000):
            if not c.request({"cmd": "badge", "tab": "a", "value": str(i)}).get("ok"):
                break
        os.unlink(os.path.join(t.state, "filler"))
        a = time.time()
        while time.time() - a < 30:
            if c.request({"cmd": "badge", "tab": "b", "value": "back"}).get("ok"):
                return {"changes accepted again after": "%.1f s" % (time.time() - a)}
            time.sleep(0.1)
        return {"changes accepted again after": "> 30 s (never, within the run)"}
    finally:
        t.stop()
        subprocess.run(["umount", "-l", t.state])
        t.cleanup()


def attack_timers(binary, seconds, isolated=False):
    d = tempfile.mkdtemp(prefix="tabd-timers-")
    os.chmod(d, 0o755)
    so = os.path.join(d, "timerflood.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-I", os.path.join(ROOT, "Sources/CTabPolicy/include"),
                    os.path.join(ROOT, "Tests/EndToEndTests/Fixtures/timerflood.c"), "-o", so], check=True)
    load = "    - path: timerflood.so\n" + ("      isolation: process\n      deadline_ms: 2000\n" if isolated else "")
    t = Tabd(binary, "plugins:\n  directories: [%s]\n  load:\n%s" % (d, load))
    try:
        def plugin_stats():
            for p in Client(t.sock).request({"cmd": "stats"})["result"].get("plugins", []):
                if p["name"] == "timerflood":
                    return p.get("store_bytes"), p.get("store_refusals")
            return None, None

        def state_bytes():
            total = 0
            for name in os.listdir(t.state):
                try:
                    total += os.stat(os.path.join(t.state, name)).st_size
                except OSError:
                    pass
            return total

        time.sleep(1)
        wrote0, _ = plugin_stats()
        dir0, a = state_bytes(), time.time()
        ping = subprocess.Popen(loadgen("-s", t.sock, "-c", "1", "-P", "1", "-d", str(seconds), "-w", "0",
                                        "-r", '{"cmd":"ping"}'), stdout=subprocess.PIPE, text=True)
        largest = dir0
        while ping.poll() is None:
            largest = max(largest, state_bytes())
            time.sleep(0.05)
        p = figures(ping.communicate()[0])
        wrote1, refused = plugin_stats()
        took = time.time() - a
        rate = "%.1f MB/s" % ((wrote1 - wrote0) / took / 1e6) if wrote0 is not None and wrote1 is not None else "? (no store_bytes in stats: an older tabd)"
        t.proc.send_signal(15)
        b = time.time()
        try:
            t.proc.wait(30)
            stopped = "%.2f s" % (time.time() - b)
        except subprocess.TimeoutExpired:
            stopped = "> 30 s (still running: killed)"
            t.proc.kill()
            t.proc.wait()
        return {"ping p50 ms": "%.2f" % (float(p.get("p50_us", "nan")) / 1000), "ping p99 ms": "%.2f" % (float(p.get("p99_us", "nan")) / 1000),
                "ping max ms": "%.1f" % (float(p.get("max_us", "nan")) / 1000), "plugin wrote (journal)": rate,
                "writes refused": refused if refused is not None else "?", "state dir at most": "%.1f MB" % (largest / 1e6),
                "SIGTERM to exit": stopped, "exit status": t.proc.returncode}
    finally:
        t.cleanup()
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tabd", default=os.path.join(ROOT, ".build/release/tabd"))
    ap.add_argument("--tabctl", default=None)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--only", default="states,states-2g,halfclose,slots,fifo,bomb,lock,squat,disk,timers,timers-isolated")
    a = ap.parse_args()
    tabctl = a.tabctl or os.path.join(os.path.dirname(a.tabd), "tabctl")
    rev = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(a.tabd)), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "?"
    attacks = {"states": lambda: attack_states(a.tabd, a.seconds),
               "states-2g": lambda: attack_states(a.tabd, a.seconds, budget=2 << 30), "halfclose": lambda: attack_halfclose(a.tabd),
               "slots": lambda: attack_slots(a.tabd), "fifo": lambda: attack_fifo(a.tabd),
               "bomb": lambda: attack_bomb(a.tabd), "lock": lambda: attack_lock(a.tabd),
               "squat": lambda: attack_squat(tabctl), "disk": lambda: attack_disk(a.tabd),
               "timers": lambda: attack_timers(a.tabd, a.seconds),
               "timers-isolated": lambda: attack_timers(a.tabd, a.seconds, isolated=True)}
    print("`%s` (tabd at git %s)\n" % (" ".join(["Benchmarks/harness/hostile.py"] + sys.argv[1:]), rev))
    print("| attack | what happened |\n|---|---|")
    for name in a.only.split(","):
        log("attack:", name)
        try:
            result = attacks[name]()
        except Exception as e:
            result = {"error": "%s: %s" % (type(e).__name__, e)}
        print("| %s | %s |" % (name, "; ".join("%s: %s" % kv for kv in result.items()).replace("|", "/")), flush=True)


if __name__ == "__main__":
    main()
