// tabctl as operators use it (issue 33): usage errors, permission errors, watch when tabd
// goes away, people's ranges, pretty JSON on a terminal, completions that ask tabd, the
// effective configuration, and the interactive mode — the terminal ones through a
// pseudo-terminal (Python's pty), as a person would type.

import Foundation
import Glibc
import TabProtocol
import Testing

@Suite struct TabctlOperatorTests {
    /// Runs `tabctl ARGS` on a pseudo-terminal, typing `keys` (each entry after a pause, or
    /// once `after` text has appeared); returns what the terminal showed and the exit status.
    static func onTerminal(_ arguments: [String], keys: [(after: String?, text: String)] = [], environment: [String: String] = [:],
                           program: String = Build.tabctl, in dir: String) throws -> (status: Int32, screen: String) {
        let script = #"""
            import json, os, pty, select, sys, termios, time
            args, keys, env = json.loads(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
            pid, fd = pty.fork()
            if pid == 0:
                os.environ.pop("NO_COLOR", None)
                os.environ.update(env)
                os.execv(args[0], args)
            out = b""
            def seen(until, since, entered):
                # `until` in what came after the last keys: after the line they ended (Enter),
                # when they did: a line editor draws the prompt again with each key typed.
                region = out[since:]
                if entered:
                    nl = region.find(b"\n")
                    if nl < 0:
                        return False
                    region = region[nl + 1:]
                return until.encode() in region
            def read(until=None, seconds=60, since=0, entered=False):
                global out
                end = time.time() + seconds
                while time.time() < end and (until is None or not seen(until, since, entered)):
                    if select.select([fd], [], [], 0.05)[0]:
                        try:
                            chunk = os.read(fd, 4096)
                        except OSError:
                            return
                        if not chunk:
                            return
                        out += chunk
                    elif until is None and time.time() > end - seconds + 0.3:
                        return
            def editing(seconds=60):
                # A prompt comes just before the terminal's mode changes: wait for the change
                # (the line editor's raw mode, or a password prompt's echo off), however long
                # a loaded machine takes, rather than a fixed pause.
                end = time.time() + seconds
                while time.time() < end:
                    lflag = termios.tcgetattr(fd)[3]
                    if not lflag & termios.ICANON or not lflag & termios.ECHO:
                        return
                    time.sleep(0.01)
            since, entered = 0, False
            for after, text in keys:
                read(after, since=since, entered=entered)  # what the last keys made, not an earlier prompt
                if after is not None and text != "\x03":  # Ctrl-C goes to a command in cooked mode
                    editing()
                since, entered = len(out), text.endswith(("\r", "\n"))
                os.write(fd, text.encode())
            read("\x00", 60)
            # The program's end, waited for a minute at most (then killed: the screen says why).
            end = time.time() + 60
            done, status = os.waitpid(pid, os.WNOHANG)
            while done == 0 and time.time() < end:
                time.sleep(0.02)
                done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                os.kill(pid, 9)
                status = os.waitpid(pid, 0)[1]
            sys.stdout.write(json.dumps({"screen": out.decode(errors="replace"), "status": os.waitstatus_to_exitcode(status)}))
            """#
        let path = dir + "/terminal.py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        func json(_ v: Any) throws -> String {
            let data = try JSONSerialization.data(withJSONObject: v)
            return "'" + String(decoding: data, as: UTF8.self).replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let keyList = keys.map { [$0.after as Any? ?? NSNull(), $0.text] }
        let r = try shell("python3 \(path) \(try json([program] + arguments)) \(try json(keyList)) \(try json(environment))")
        let o = try object(r.output)
        return (Int32(o.int("status") ?? -1), o.string("screen") ?? "")
    }

    static func tabd() throws -> TabdProcess {
        let tabd = try TabdProcess()
        try tabd.client().ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"music"},{"id":"settings"}]}"#)
        return tabd
    }

    @Test func usageErrorsExit64WithOneTabctlPrefix() throws {
        for arguments in ["", "--json", "select", "no-such-command", "metrics --format json", "ping --no-such-option"] {
            let r = try shell("\(Build.tabctl) \(arguments) </dev/null")
            #expect(r.status == TabctlExit.usage.code, "tabctl \(arguments): \(r.output)")
            #expect(r.output.hasPrefix("tabctl: ") && r.output.components(separatedBy: "tabctl: ").count == 2, "tabctl \(arguments): \(r.output)")
            #expect(!r.output.contains("Error:"), "tabctl \(arguments): \(r.output)")
        }
        let help = try shell("\(Build.tabctl) --help")
        #expect(help.status == 0 && help.output.contains("USAGE: tabctl"), "\(help.output)")
    }

    /// A user outside the socket's group is told which group to join.
    @Test func aPermissionErrorNamesTheGroupToJoin() throws {
        let tabd = try Self.tabd()
        chmod(tabd.dir, 0o755)
        chmod(tabd.socket, 0o660)
        let r = try shell("setpriv --reuid=65534 --regid=65534 --clear-groups \(Build.tabctl) ping --socket \(tabd.socket)")
        #expect(r.status == TabctlExit.unreachable.code, "\(r.output)")
        #expect(r.output.contains("the socket is for the members of group root; join it (sudo usermod -aG root $USER, then log in again)"), "\(r.output)")
        #expect(!r.output.contains("is tabd running"), "\(r.output)")
    }

    @Test func watchExitsThreeWhenTabdGoesAway() throws {
        let tabd = try Self.tabd()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.tabctl)
        p.arguments = ["watch", "--socket", tabd.socket]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        // Once it has subscribed (stats counts it; a loaded machine may start tabctl late).
        let c = try tabd.client()
        let deadline = Date().addingTimeInterval(60)
        while try c.ok(#"{"cmd":"stats"}"#).int("subscribers") != 1, Date() < deadline { usleep(20_000) }
        try c.ok(#"{"cmd":"select","tab":"music"}"#)
        usleep(200_000)
        #expect(tabd.stop() == 0)
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == TabctlExit.unreachable.code, "\(text)")
        #expect(text.contains("tabctl: tabd closed the connection (it stopped or restarted) after"), "\(text)")
        let help = try shell("\(Build.tabctl) help watch")
        #expect(help.output.contains("Without --controller, the events of every controller"), "\(help.output)")
    }

    @Test func rangesAreWrittenAsPeopleWriteThem() throws {
        let tabd = try Self.tabd()
        let r = try shell("\(Build.tabctl) call select index:=99 --socket \(tabd.socket)")
        #expect(r.status == 1 && r.output == "tabctl: out_of_range: index 99 is out of range: it must be from 0 to 2 (3 tabs)\n", "\(r.output)")
    }

    /// On a terminal, a result is indented and coloured; NO_COLOR keeps the indentation;
    /// --json (and anything not a terminal) one line.
    @Test func prettyColouredJSONOnATerminalOneLineWithJSON() throws {
        let tabd = try Self.tabd()
        let coloured = try Self.onTerminal(["select", "music", "--socket", tabd.socket], in: tabd.dir)
        #expect(coloured.status == 0, "\(coloured.screen)")
        #expect(coloured.screen.contains("{\r\n  \u{1B}[1;34m\"selected\"\u{1B}[0m: \u{1B}[32m\"music\"\u{1B}[0m,\r\n"), "\(coloured.screen.debugDescription)")
        #expect(coloured.screen.contains("\u{1B}[1;34m\"changed\"\u{1B}[0m: \u{1B}[33mtrue\u{1B}[0m"), "\(coloured.screen.debugDescription)")
        let plain = try Self.onTerminal(["state", "--socket", tabd.socket], environment: ["NO_COLOR": "1"], in: tabd.dir)
        #expect(plain.screen.hasPrefix("{\r\n  \"") && !plain.screen.contains("\u{1B}["), "\(plain.screen.debugDescription)")
        let json = try Self.onTerminal(["select", "home", "--json", "--socket", tabd.socket], in: tabd.dir)
        #expect(json.screen == #"{"selected":"home","selected_index":0,"changed":true}"# + "\r\n", "\(json.screen.debugDescription)")
        let piped = try shell("\(Build.tabctl) select music --socket \(tabd.socket) | cat")
        #expect(piped.output == #"{"selected":"music","selected_index":1,"changed":true}"# + "\n", "\(piped.output)")
    }

    /// bash's completion (tabctl's own script) asks tabd: tab ids of the controller on the
    /// line, controllers, event names, commands; and completes file names for --socket.
    @Test func completionsAskTabd() throws {
        let tabd = try Self.tabd()
        try tabd.client().ok(#"{"cmd":"controller.create","controller":"side"}"#)
        try tabd.client().ok(#"{"cmd":"set_tabs","controller":"side","tabs":[{"id":"alpha"},{"id":"beta"}]}"#)
        let script = tabd.dir + "/tabctl.bash"
        #expect(try shell("\(Build.tabctl) --generate-completion-script bash > \(script)").status == 0)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let r = try shell("""
                export PATH=\(Build.binDirectory.path):$PATH; source \(script); \
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE="\(words.joined(separator: " "))"; COMP_POINT=${#COMP_LINE}; \
                _tabctl tabctl '\(words.last!)' '\(words[words.count - 2])'; printf '%s\\n' "${COMPREPLY[@]}"
                """)
            return r.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        #expect(Set(try complete(["tabctl", "--socket", tabd.socket, "select", ""])) == ["home", "music", "settings", "more"])
        #expect(try complete(["tabctl", "--socket", tabd.socket, "tap", "mu"]) == ["music"])
        #expect(Set(try complete(["tabctl", "-s", tabd.socket, "-c", "side", "badge", ""])) == ["alpha", "beta"])
        #expect(Set(try complete(["tabctl", "--socket", tabd.socket, "state", "--controller", ""])) == ["main", "side"])
        #expect(Set(try complete(["tabctl", "--socket", tabd.socket, "show", ""])) == ["main", "side"], "show's controller argument")
        #expect(try complete(["tabctl", "--socket", tabd.socket, "watch", "selection_ch"]) == ["selection_changed"])
        #expect(try complete(["tabctl", "--socket", tabd.socket, "call", "controller.d"]) == ["controller.delete"])
        // No tabd there: nothing, quickly.
        #expect(try complete(["tabctl", "--socket", tabd.dir + "/none.sock", "select", ""]).isEmpty)
        // --socket completes file names.
        let files = try complete(["tabctl", "ping", "--socket", tabd.dir + "/tabd.s"])
        #expect(files == [tabd.socket], "\(files)")
    }

    /// The same in an interactive bash on a terminal, as a person types: Tab after `tap mu`
    /// completes the tab id tabd has, and the completed command runs.
    @Test func bashCompletesATabIdOnATerminal() throws {
        let tabd = try Self.tabd()
        let script = tabd.dir + "/tabctl.bash"
        #expect(try shell("\(Build.tabctl) --generate-completion-script bash > \(script)").status == 0)
        let r = try Self.onTerminal(["--norc", "--noprofile", "-i"], keys: [
            ("$ ", "source \(script); export PATH=\(Build.binDirectory.path):$PATH NO_COLOR=1\r"),
            ("$ ", "tabctl --socket \(tabd.socket) tap mu\t"),
            ("music ", "\r"),
            ("$ ", "exit\r"),
        ], environment: ["PS1": "$ ", "TERM": "dumb"], program: "/bin/bash", in: tabd.dir)
        #expect(r.screen.contains("tap music "), "\(r.screen)")
        #expect(r.screen.contains("\"selected\": \"music\""), "\(r.screen)")
        #expect(try tabd.client().ok(#"{"cmd":"state"}"#).string("selected") == "music")
    }

    /// `tabctl config` prints the configuration in use as a file tabd reads back.
    @Test func configPrintsTheEffectiveConfigurationAsAFileTabdReads() throws {
        let dir = temporaryDirectory("ctlcfg")
        let credentials = try Plugins.credentials(in: dir)
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: credentials)) + "limits:\n  max_tabs: 77\nsocket_mode: \"0666\"\n", dir: dir)
        chmod(dir, 0o755)
        let r = try shell("\(Build.tabctl) config --socket \(tabd.socket)")
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.hasPrefix("# tabd's configuration in use, from \(tabd.configPath), overridden by --socket --state-dir\n"), "\(r.output)")
        for line in ["socket: \(tabd.socket)\n", "  max_tabs: 77\n", "  max_json_depth: 64\n", "fsync: everysec\n",
                     "    - path: libLoginGate.so\n      required: true\n", "        credentials_file: \(credentials)\n"] {
            #expect(r.output.contains(line), "\(line): \(r.output)")
        }
        try r.output.write(toFile: dir + "/printed.yaml", atomically: true, encoding: .utf8)
        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", dir + "/printed.yaml"])
        #expect(check.status == 0 && check.stderr.contains("configuration OK"), "\(check.stderr)")
        let json = try shell("\(Build.tabctl) config --json --socket \(tabd.socket)")
        #expect(try object(json.output).object("config")?.object("limits")?.int("max_tabs") == 77, "\(json.output)")
        // For administrators only.
        let other = try ConfigAndLockTests.asOtherUser(tabd.socket, groups: [], [#"{"cmd":"config"}"#])
        #expect(other.first?.object("error")?.string("code") == "forbidden", "\(other)")
    }

    @Test func repliesOfTabChangingCommandsSayWhichTab() throws {
        let tabd = try Self.tabd()
        let c = try tabd.client()
        #expect(try c.ok(#"{"cmd":"badge","tab":"music","value":"3"}"#).string("tab_changed") == "music")
        #expect(try c.ok(#"{"cmd":"badge","tab":"music","value":"3"}"#).isNull("tab_changed"))
        #expect(try c.ok(#"{"cmd":"update_tab","tab":"settings","title":"Settings"}"#).string("tab_changed") == "settings")
        #expect(try c.ok(#"{"cmd":"select","tab":"music"}"#)["tab_changed"] == nil)
    }

    /// `tabctl` with no command on a terminal (or `tabctl -i`): commands with Tab completion
    /// (asked of tabd), JSON requests, history kept across sessions and recalled with the
    /// up arrow.
    @Test func interactiveModeWithHistoryAndCompletion() throws {
        let tabd = try Self.tabd()
        let env = ["HOME": tabd.dir, "NO_COLOR": "1"]
        let prompt = "\(tabd.socket)> "
        let first = try Self.onTerminal(["--socket", tabd.socket], keys: [
            (prompt, "sel\t"), ("select ", "mu\t"), ("music ", "\r"),
            (prompt, #"{"cmd":"state"}"# + "\r"),
            (prompt, "bogus\r"),
            (prompt, "quit\r"),
        ], environment: env, in: tabd.dir)
        #expect(first.status == 0, "\(first.screen)")
        #expect(first.screen.contains("tabd \(TabdVersion.string) on \(tabd.socket)"), "\(first.screen)")
        #expect(first.screen.contains("\"selected\": \"music\""), "completed to select music: \(first.screen)")
        #expect(first.screen.contains("\"selected_index\": 1"), "\(first.screen)")
        #expect(first.screen.contains("\"tabs\": ["), "the JSON request's result: \(first.screen)")
        #expect(first.screen.contains("tabctl: "), "an error is printed, the session goes on: \(first.screen)")
        #expect(try client(tabd).ok(#"{"cmd":"state"}"#).string("selected") == "music")
        let history = try String(contentsOfFile: tabd.dir + "/.tabctl_history", encoding: .utf8)
        #expect(history == "select music\n{\"cmd\":\"state\"}\nbogus\nquit\n", "\(history)")

        // A new session recalls the old lines: up four times is `select music`; edit it to home.
        let second = try Self.onTerminal(["-i", "--socket", tabd.socket], keys: [
            (prompt, "\u{1B}[A\u{1B}[A\u{1B}[A\u{1B}[A"), ("select music", "\u{7F}\u{7F}\u{7F}\u{7F}\u{7F}ho\t"), ("select home ", "\r"),
            (prompt, "\u{04}"),
        ], environment: env, in: tabd.dir)
        #expect(second.status == 0, "\(second.screen)")
        #expect(second.screen.contains("\"selected\": \"home\""), "\(second.screen)")
        #expect(try client(tabd).ok(#"{"cmd":"state"}"#).string("selected") == "home")
        // Not on a terminal, -i reads commands from stdin.
        let piped = try shell("printf 'select settings\\nping\\n' | \(Build.tabctl) -i --socket \(tabd.socket)")
        #expect(piped.status == 0 && piped.output.contains(#""selected":"settings""#) && piped.output.contains("pong"), "\(piped.output)")
    }

    /// In the interactive mode, Ctrl-C during `watch` stops the watch and the prompt comes back
    /// (tabctl goes on: `ping` answers); `help` and the error for unquoted JSON say to quote
    /// JSON in single quotes, as in a shell, and a quoted value is sent as JSON.
    @Test func interactiveModeCtrlCStopsAWatchAndJSONIsQuotedAsInAShell() throws {
        let tabd = try Self.tabd()
        let prompt = "\(tabd.socket)> "
        let r = try Self.onTerminal(["--socket", tabd.socket], keys: [
            (prompt, "watch\r"),
            ("Ctrl-C stops this and comes back to the prompt", "\u{03}"),
            (prompt, "ping\r"),
            ("pong", "help\r"),
            ("comes back here", #"call update_tab tab=settings item:={"badge":"1"}"# + "\r"),
            ("put JSON in single quotes", #"call update_tab tab=settings item:='{"badge":"2"}'"# + "\r"),
            ("tab_changed", "quit\r"),
        ], environment: ["HOME": tabd.dir, "NO_COLOR": "1"], in: tabd.dir)
        #expect(r.status == 0, "\(r.screen)")
        let afterWatch = r.screen.components(separatedBy: "Ctrl-C stops this").last ?? ""
        #expect(afterWatch.contains("pong"), "the REPL went on after Ctrl-C: \(r.screen)")
        #expect(r.screen.contains("in a shell and in tabctl -i alike"), "help says how to quote JSON: \(r.screen)")
        #expect(!r.screen.contains("tabd closed the connection"), "\(r.screen)")
        #expect(r.screen.contains(#""tab_changed": "settings""#), "\(r.screen)")
        let state = String(describing: try tabd.client().ok(#"{"cmd":"state"}"#))  // its JSON text
        #expect(state.contains(#""badge":"2""#) && !state.contains(#""badge":"1""#), "\(state)")
    }

    private func client(_ tabd: TabdProcess) throws -> LineClient { try tabd.client() }
}
