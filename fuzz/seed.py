#!/usr/bin/env python3
"""Writes the generated part of the fuzz targets' seed corpora (fuzz/run.sh runs it first).

- request/corpus/doc-*: every request line of README.md and docs/*.md (the examples that
  DocExamplesTests runs), so every command is there.
- journal/corpus/v3-*: the state directory of a real tabd (the TABD binary given) after those
  requests, as fuzz/journal/fuzz.swift reads it: once killed with SIGKILL (journal records of
  every command that changes state), once stopped with SIGTERM (a snapshot in the current format).
- config/corpus/: the configurations the repository ships.
The corpora under fuzz/*/corpus/ that are not generated here are committed; these are written
to the directory given (the run's scratch corpus), so they follow the code without a commit.

usage: fuzz/seed.py TABD_BINARY PLUGIN_DIR OUT_DIR
"""
import glob, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def request_lines():
    """Every JSON object starting {"cmd" in the docs' examples, in order, without repeats."""
    seen, lines = set(), []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        text = open(path, encoding="utf-8").read()
        start = 0
        while (i := text.find('{"cmd"', start)) >= 0:
            depth, j, in_string, escaped = 0, i, False, False
            while j < len(text):
                c = text[j]
                if in_string:
                    if escaped: escaped = False
                    elif c == "\\": escaped = True
                    elif c == '"': in_string = False
                elif c == '"': in_string = True
                elif c == "{": depth += 1
                elif c == "}":
                    depth -= 1
                    if depth == 0: break
                elif c == "\n": break
                j += 1
            start = j + 1
            candidate = text[i:j + 1]
            try:
                json.loads(candidate)
            except ValueError:
                continue
            if candidate not in seen:
                seen.add(candidate)
                lines.append(candidate)
    return lines


def pack(state_dir):
    """A state directory's files in the journal harness's input format."""
    out = b""
    for name in sorted(os.listdir(state_dir)):
        if name == "snapshot" or (name.startswith("journal-") and name.endswith(".log")):
            # A journal is preallocated: its zeros after the last record are what a crash leaves.
            body = open(os.path.join(state_dir, name), "rb").read()
            body = body.rstrip(b"\0") + (b"\0" * 16 if body.endswith(b"\0") else b"")
            out += b"=== " + name.encode() + b"\n" + body
            if not out.endswith(b"\n"): out += b"\n"
    return out


def run_tabd(tabd, plugin_dir, work, lines, stop, every=15):
    """The state directory's files after each `every` requests (as a kill -9 there would
    leave them), and once tabd is stopped with `stop`."""
    state = os.path.join(work, "state")
    os.makedirs(state, exist_ok=True)
    sock = os.path.join(work, "tabd.sock")
    creds = os.path.join(work, "credentials")
    # demo / demo, as make run's (openssl passwd -6 -salt fuzzseed demo).
    pw = subprocess.run(["openssl", "passwd", "-6", "-salt", "fuzzseed", "demo"], capture_output=True, text=True, check=True).stdout.strip()
    with open(creds, "w") as f: f.write("demo:%s\n" % pw)
    os.chmod(creds, 0o600)
    config = os.path.join(work, "tabd.yaml")
    with open(config, "w") as f:
        f.write(f"""socket: {sock}
state_dir: {state}
fsync: always
limits:
  compact_bytes: 4096   # the smallest: snapshots often, so each seed stays a few KiB
controllers:
  - name: main
    idiom: phone
plugins:
  directories: [{plugin_dir}]
  load:
    - path: libLoginGate.so
      settings: {{login_tab: login, credentials_file: {creds}}}
    - path: libOrientationRules.so
      settings:
        rules: [{{tab: "video*", orientations: [portrait, landscape_left, landscape_right]}}]
""")
    proc = subprocess.Popen([tabd, "--config", config], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Until tabd accepts: its socket file exists from bind(), before listen() (a busy
        # machine can show that gap); a give-up bound far above a start's milliseconds.
        deadline = time.time() + 60
        while True:
            c = socket.socket(socket.AF_UNIX)
            try:
                c.connect(sock)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                c.close()
                if proc.poll() is not None or time.time() > deadline:
                    raise SystemExit("fuzz/seed.py: tabd did not start: " + proc.stderr.read().decode(errors="replace")[-2000:])
                time.sleep(0.05)
        f = c.makefile("rwb")
        taken = []
        for n, line in enumerate(lines):
            if n % every == every - 1: taken.append(pack(state))
            # reload and controller.delete are admin commands; we are root, so they run: keep
            # the controllers the rest need.
            if '"reload"' in line: continue
            f.write(line.encode() + b"\n"); f.flush()
            f.readline()
        c.close()
    finally:
        proc.send_signal(stop)
        try: proc.wait(10)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()
    return taken + [pack(state)]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    tabd, plugin_dir, out = sys.argv[1:]
    lines = request_lines()
    os.makedirs(os.path.join(out, "request"), exist_ok=True)
    for n, line in enumerate(lines):
        with open(os.path.join(out, "request", "doc-%03d" % n), "w") as f: f.write(line)
    os.makedirs(os.path.join(out, "journal"), exist_ok=True)
    states = 0
    for stop, name in [(signal.SIGKILL, "v3-killed"), (signal.SIGTERM, "v3-stopped")]:
        work = tempfile.mkdtemp(prefix="tabd-fuzzseed.")
        try:
            for n, files in enumerate(run_tabd(tabd, plugin_dir, work, lines, stop)):
                with open(os.path.join(out, "journal", "%s-%02d" % (name, n)), "wb") as f: f.write(files)
                states += 1
        finally:
            shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(out, "config"), exist_ok=True)
    for path in [os.path.join(ROOT, "tabd.example.yaml"), os.path.join(ROOT, "config", "run.yaml")]:
        shutil.copy(path, os.path.join(out, "config", os.path.basename(path)))
    commands = {json.loads(l)["cmd"] for l in lines}
    # Every command the decoder knows must have a seed (an example in the docs).
    # TabCore's CommandName, the one list of names: `case a, b = "b.c", …` (a raw value, else the case's name).
    source = open(os.path.join(ROOT, "Sources", "TabCore", "Model", "Command.swift"), encoding="utf-8").read()
    body = source[source.index("public enum CommandName"):]
    body = body[:body.index("public var index")]
    known = set()
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("case "):
            for part in line[5:].split(","):
                m = re.match(r'\s*(\w+)(?:\s*=\s*"([a-z_.]+)")?', part)
                if m: known.add(m.group(2) or m.group(1))
    if known - commands:
        raise SystemExit("fuzz/seed.py: no request line in README.md or docs/*.md for " + ", ".join(sorted(known - commands))
                         + ": add an example to docs/protocol.md")
    print(f"fuzz/seed.py: {len(lines)} request lines ({len(commands)} commands), {states} state directories, 2 configurations")


if __name__ == "__main__":
    main()
