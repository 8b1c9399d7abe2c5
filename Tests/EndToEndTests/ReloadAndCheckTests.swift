// Operations that tell the truth (issue 15): `--check-config` refuses each configuration a
// start would refuse, naming the file and line; a reload is a transaction (a broken
// required plugin changes nothing: taps and logins keep working), keeps plugins whose file
// and settings did not change, and says what it did (started, stopped, refused, stale,
// restart_required); the login gate tells clients whom a reload logs out; logs carry
// journald prefixes only on the journal stream; a fresh install starts and serves.

import Foundation
import TabJSON
import Testing
import TabProtocol

@Suite struct ReloadAndCheckTests {
    // MARK: --check-config

    /// Each configuration the issue names — a missing required plugin, a group-writable one,
    /// one without the entry symbol, a missing credentials file, unknown plugin settings —
    /// is refused by --check-config (exit 78) with a line naming the file, line and column,
    /// and tabd refuses to start on it with the same sentence (exit 78).
    @Test func checkConfigRefusesWhatAStartRefuses() throws {
        let dir = temporaryDirectory("chk")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plugins = dir + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try Plugins.gate("nosym.so", in: plugins, ["NAME=\"nosym\"", "tabd_policy_entry=not_the_entry"])
        chmod(try Plugins.gate("group.so", in: plugins, ["NAME=\"group\""]), 0o775)
        let credentials = try Plugins.credentials(in: dir)
        let dirs = "[\(Build.binDirectory.path), \(plugins)]"
        let cases: [(String, String)] = [
            ("    - path: libAbsent.so\n      required: true\n", "required plugin 'libAbsent.so' (libAbsent.so) cannot run: no file named 'libAbsent.so' in the plugin directories"),
            ("    - path: group.so\n      required: true\n", "required plugin 'group.so' (group.so) cannot run: \(plugins)/group.so is group- or world-writable (mode 775); run chmod go-w on it"),
            ("    - path: nosym.so\n      required: true\n", "cannot run: it does not export tabd_policy_entry"),
            ("    - path: libLoginGate.so\n      required: true\n      settings: {credentials_file: \(dir)/missing}\n", "required plugin 'login-gate' (\(Build.binDirectory.path)/libLoginGate.so) cannot run: init failed: cannot read credentials_file \(dir)/missing"),
            ("    - path: libLoginGate.so\n      required: true\n      settings: {credentials_file: \(credentials), colour: blue}\n", "init failed: unknown setting 'colour'"),
            // A login of this session would end past the clock's range (it crashed tabd).
            ("    - path: libLoginGate.so\n      required: true\n      settings: {credentials_file: \(credentials), session_seconds: 9223372036000000000}\n", "init failed: session_seconds must be a whole number from 0 to 315360000"),
        ]
        for (load, sentence) in cases {
            let path = dir + "/tabd.yaml"
            try "state_dir: \(dir)/state\nplugins:\n  directories: \(dirs)\n  load:\n\(load)".write(toFile: path, atomically: true, encoding: .utf8)
            let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path, "--socket", dir + "/s"])
            #expect(check.status == 78, "\(load): \(check.stderr)")
            #expect(check.stderr.hasPrefix("\(path):5:7: error: "), "\(check.stderr)")
            #expect(check.stderr.contains(sentence), "\(check.stderr)")
            #expect(check.stderr.hasSuffix("tabd: \(path) cannot start: 1 error\n"), "\(check.stderr)")
            #expect(!check.stderr.contains("configuration OK"))
            #expect(!check.stderr.contains("Usage"), "no usage text: \(check.stderr)")
            let start = try ConfigAndLockTests.runTabd(["--config", path, "--socket", dir + "/s"])
            #expect(start.status == 78, "\(start.stderr)")
            #expect(start.stderr.contains("tabd cannot start: \(path):5:7: ") && start.stderr.contains(sentence), "\(start.stderr)")
        }
    }

    /// Every problem of a file at once, in file order, each at its line and column.
    @Test func checkConfigListsEveryProblem() throws {
        let dir = temporaryDirectory("chk")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tabd.yaml"
        try "fsync: sometimes\nlimits:\n  max_tabs: 0\n  max_tabz: 5\naccess:\n  admin_uids: [1, x]\nsocket_group: no-such-group-here\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
        #expect(check.status == 78)
        #expect(check.stderr == """
            \(path):1:8: error: fsync must be always, everysec or no (got sometimes)
            \(path):3:13: error: limits.max_tabs must be an integer from 1 to 1000000 (got 0)
            \(path):4:3: error: unknown setting 'limits.max_tabz'; did you mean 'max_tabs'?
            \(path):6:19: error: access.admin_uids[1] must be a uid from 0 to 4294967294 (got x)
            tabd: the configuration is not valid: 4 errors

            """, "\(check.stderr)")
        // Fixed values; what remains is what only the start environment shows: the group.
        // Each at its line too.
        try "socket_group: no-such-group-here\nstate_dir: \(path)/state\nsocket: \(dir)/none/tabd.sock\n".write(toFile: path, atomically: true, encoding: .utf8)
        let again = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
        #expect(again.status == 78)
        #expect(again.stderr.contains("\(path):1:15: error: socket_group 'no-such-group-here' does not exist"), "\(again.stderr)")
        #expect(again.stderr.contains("\(path):2:12: error: state_dir \(path)/state does not exist"), "\(again.stderr)")
        #expect(again.stderr.contains("\(path):3:9: error: the directory of socket \(dir)/none/tabd.sock, \(dir)/none, does not exist"), "\(again.stderr)")
    }

    /// --check-config finds what a start finds: a socket directory that is not there (the
    /// start would fail to bind) is an error, an empty credentials file (the start warns
    /// that nobody can log in) a warning; and a refused start leaves nothing it created.
    @Test func checkConfigFindsTheSocketDirectoryAndEmptyCredentialsAndARefusedStartLeavesNothing() throws {
        let dir = temporaryDirectory("chk2")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tabd.yaml"
        let empty = dir + "/credentials"
        FileManager.default.createFile(atPath: empty, contents: Data())
        chmod(empty, 0o600)
        try "socket: \(dir)/run/tabd.sock\nstate_dir: \(dir)/state\n".write(toFile: path, atomically: true, encoding: .utf8)
        var check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
        #expect(check.status == 78 && check.stderr.contains("\(path):1:9: error: the directory of socket \(dir)/run/tabd.sock, \(dir)/run, does not exist"), "\(check.stderr)")
        let start = try ConfigAndLockTests.runTabd(["--config", path])
        #expect(start.status != 0, "the start fails as the check said: \(start.stderr)")
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: false)
        try ("socket: \(dir)/run/tabd.sock\nstate_dir: \(dir)/state\n" + Plugins.config(Plugins.loginGate(credentials: empty)))
            .write(toFile: path, atomically: true, encoding: .utf8)
        check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stderr.contains("warning: plugin 'login-gate' warns: \(empty) lists no user: nobody can log in"), "\(check.stderr)")
        #expect(check.stderr.contains("configuration OK with 1 warning"), "\(check.stderr)")
        // A connection limit the open file limit cannot serve: the start's warning, here too.
        try ("socket: \(dir)/run/tabd.sock\nstate_dir: \(dir)/state\nlimits:\n  max_connections: 1048576\n").write(toFile: path, atomically: true, encoding: .utf8)
        check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
        #expect(check.status == 0 && check.stderr.contains("\(path):4:20: warning: limits.max_connections (1048576) is more than the open file limit allows"), "\(check.stderr)")

        // A required plugin refused: exit 78, and no state directory, lock or plugin page left.
        try? FileManager.default.removeItem(atPath: dir + "/state")
        try ("socket: \(dir)/run/tabd.sock\nstate_dir: \(dir)/state/deeper\nplugins:\n  load:\n    - path: libAbsent.so\n      required: true\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try ConfigAndLockTests.runTabd(["--config", path])
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/state"), "the refused start left \(dir)/state")
        #expect(!FileManager.default.fileExists(atPath: dir + "/run/tabd.sock"))
        // Into a state directory that exists: its lock and plugin page go, the directory stays.
        try FileManager.default.createDirectory(atPath: dir + "/state/deeper", withIntermediateDirectories: true)
        #expect(try ConfigAndLockTests.runTabd(["--config", path]).status == 78)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/state/deeper")) == [], "left behind")
    }

    /// A plugin that arms timers in its init (Fixtures/timerflood.c: 64, the most a plugin may
    /// hold) passes --check-plugin and --check-config, in process and isolated, without the
    /// "set_timer refused" warning each check gave before (nothing runs during a check): the
    /// check counts and checks them as a start would, arms none, and says so. A 65th is still
    /// the warning a start would log.
    @Test func checksCheckTimersArmedInInitAndArmNone() throws {
        let dir = temporaryDirectory("chktm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Plugins.build(Plugins.fixture("timerflood.c"), "timerflood.so", in: dir)
        try Plugins.build(Plugins.fixture("timerflood.c"), "toomany.so", in: dir, ["TIMERS=65"])
        let said = "init armed 64 timers, checked (name, delay, at most TABD_TIMER_MAX) and not run"
        let plugin = try shell("\(Build.tabd) --check-plugin \(dir)/timerflood.so 2>&1")
        #expect(plugin.status == 0 && plugin.output.contains("  timers       \(said)\n"), "\(plugin.output)")
        #expect(!plugin.output.contains("set_timer refused"), "\(plugin.output)")
        for isolated in [false, true] {
            let path = dir + "/tabd.yaml"
            let load = "    - path: timerflood.so\n" + (isolated ? "      isolation: process\n" : "")
            try ("socket: \(dir)/s\nstate_dir: \(dir)/st\n" + Plugins.config(load, extraDirectory: dir)).write(toFile: path, atomically: true, encoding: .utf8)
            let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", path])
            #expect(check.status == 0 && check.stderr.contains("configuration OK: \(path)\n"), "isolated \(isolated): \(check.stderr)")
            #expect(check.stderr.contains("  plugin timerflood 1.0.0 (\(dir)/timerflood.so): loaded, init and fini ran; \(said)\n"), "isolated \(isolated): \(check.stderr)")
        }
        let tooMany = try shell("\(Build.tabd) --check-plugin \(dir)/toomany.so 2>&1")
        #expect(tooMany.status == 0 && tooMany.output.contains("plugin's set_timer refused: a bad name or delay, or 64 timers armed already"), "\(tooMany.output)")
        #expect(tooMany.output.contains("  timers       \(said)\n"), "\(tooMany.output)")
    }

    // MARK: reload

    static func gateConfig(_ credentials: String, extra: String = "", more: String = "") -> String {
        Plugins.config(Plugins.loginGate(credentials: credentials, extra: extra) + more)
    }

    /// A reload whose required plugin cannot start (its credentials file is gone from the
    /// new settings) is refused as a whole: the reply lists the problem with its line, and
    /// the running login gate goes on deciding — a logged-in controller still taps, logins
    /// still work, nothing was logged out.
    @Test func aBrokenRequiredPluginLeavesTapsAndLoginsWorking() throws {
        let dir = temporaryDirectory("rtx")
        let credentials = try Plugins.credentials(in: dir)
        let tabd = try TabdProcess(config: Self.gateConfig(credentials), dir: dir)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"news"},{"id":"mail"}]}"#)
        try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        try c.ok(#"{"cmd":"tap","tab":"news"}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"second","idiom":"phone"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"second","tabs":[{"id":"login"},{"id":"news"}]}"#)

        try Self.gateConfig(dir + "/gone").write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let error = try c.error(#"{"cmd":"reload"}"#)
        #expect(error.string("code") == "config_invalid")
        #expect(error.string("message") == "reload refused: \(tabd.configPath) has 1 problem; nothing changed and the running configuration stays until it is fixed and reloaded", "\(JSONValue.object(error).jsonString)")
        #expect(error.strings("problems")?.first?.hasPrefix("\(tabd.configPath):4:7: required plugin 'login-gate'") == true, "\(JSONValue.object(error).jsonString)")
        #expect(error.strings("problems")?.first?.contains("init failed: cannot read credentials_file \(dir)/gone") == true, "\(JSONValue.object(error).jsonString)")

        try c.ok(#"{"cmd":"tap","tab":"mail"}"#)
        let status = try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"status"}"#)
        #expect(status.object("value")?.string("user") == "demo", "still logged in")
        #expect(try c.error(#"{"cmd":"tap","controller":"second","tab":"news"}"#).string("plugin") == "login-gate")
        try c.ok(#"{"cmd":"plugin.call","controller":"second","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        try c.ok(#"{"cmd":"tap","controller":"second","tab":"news"}"#)
        let plugins = try c.ok(#"{"cmd":"plugins"}"#)["plugins"]?.jsonString ?? ""
        #expect(plugins.contains(#""loaded":true,"error":null,"required":true"#), "\(plugins)")
        #expect(tabd.log.contains("reload failed; nothing changed"), "\(tabd.log)")
        #expect(tabd.stop() == 0)
    }

    /// A reload with the same plugin file and settings keeps the running instance: the login
    /// survives, and the reply says nothing started or stopped. Changed settings replace the
    /// gate: a subscriber gets a `logout` event naming the user and why, and the controller
    /// returns to its login tab.
    @Test func loginsSurviveAReloadUnlessTheGateSettingsChange() throws {
        let dir = temporaryDirectory("rlg")
        let credentials = try Plugins.credentials(in: dir)
        let tabd = try TabdProcess(config: Self.gateConfig(credentials), dir: dir)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"news"}]}"#)
        try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        try c.ok(#"{"cmd":"tap","tab":"news"}"#)

        let same = try c.ok(#"{"cmd":"reload"}"#)
        #expect(same.strings("plugins_started") == [] && same.strings("plugins_stopped") == [], "\(JSONValue.object(same).jsonString)")
        #expect(same.strings("changed") == [])
        try c.ok(#"{"cmd":"tap","tab":"login"}"#)
        try c.ok(#"{"cmd":"tap","tab":"news"}"#)

        let watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try Self.gateConfig(credentials, extra: ", max_failures: 9").write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let changed = try c.ok(#"{"cmd":"reload"}"#)
        #expect(changed.strings("plugins_started") == ["login-gate"] && changed.strings("plugins_stopped") == ["login-gate"])
        #expect(changed.strings("changed") == ["plugins.load"])
        let event = try object(try #require(try watcher.readLine()))
        #expect(event.string("event") == "plugin")
        let data = event.object("data")?.object("data")
        #expect(data?.string("event") == "logout" && data?.string("user") == "demo", "\(JSONValue.object(event).jsonString)")
        #expect(data?.string("reason")?.contains("reload") == true)
        #expect(try c.error(#"{"cmd":"tap","tab":"news"}"#).string("reason") == "not logged in")
        #expect(try c.ok(#"{"cmd":"state"}"#).string("selected") == "login", "back on the login tab")
        #expect(tabd.stop() == 0)
    }

    /// A plugin file replaced on disk is reported as stale by reload and `plugins` (its old
    /// code keeps running); settings only a restart applies are named in restart_required;
    /// a refused optional plugin is listed with its reason.
    @Test func reloadReportsStaleFilesRestartSettingsAndRefusals() throws {
        let dir = temporaryDirectory("rst")
        try Plugins.gate("g.so", in: dir, ["NAME=\"g\"", "RESULT=TABD_ALLOW"])
        let config = Plugins.config("    - path: g.so\n", extraDirectory: dir)
        let tabd = try TabdProcess(config: "fsync: everysec\n" + config, dir: dir)
        let c = try tabd.client()
        // A rebuilt plugin, installed the usual way (a new file renamed over the old).
        try Plugins.gate("g2.so", in: dir, ["NAME=\"g\"", "RESULT=TABD_DENY"])
        #expect(rename(dir + "/g2.so", dir + "/g.so") == 0)
        try ("fsync: always\nlimits:\n  max_tabs: 10\n" + config + "    - path: libMissing.so\n")
            .write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let r = try c.ok(#"{"cmd":"reload"}"#)
        let text = JSONValue.object(r).jsonString
        #expect(r.strings("restart_required") == ["fsync"], "\(text)")
        #expect(r.strings("changed") == ["limits.max_tabs", "plugins.load"], "\(text)")
        #expect(text.contains(#""stale":[{"plugin":"g","path":"\#(dir)/g.so","message":"its file changed on disk since tabd loaded it; the code loaded then keeps running: restart tabd to run the new code"}]"#), "\(text)")
        #expect(text.contains(#""refused":[{"plugin":"libMissing.so","path":"libMissing.so","message":"no file named 'libMissing.so' in the plugin directories"#), "\(text)")
        let plugins = try c.ok(#"{"cmd":"plugins"}"#)["plugins"]?.jsonString ?? ""
        #expect(plugins.contains(#""abi":"\#(Build.headerABI)","stale":true"#), "\(plugins)")
        // The old code runs: it allows.
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"tap","tab":"b"}"#)
        #expect(tabd.log.contains(#"restart_required=["fsync"]"#), "\(tabd.log)")
        #expect(tabd.stop() == 0)
    }

    // MARK: logs

    /// `<N>` priority prefixes only when stderr is the stream JOURNAL_STREAM names; level
    /// names otherwise. A message with a newline stays on one line.
    @Test func journalPrefixesOnlyOnTheJournalStream() throws {
        let dir = temporaryDirectory("jrn")
        let log = dir + "/stderr"
        FileManager.default.createFile(atPath: log, contents: nil)
        var st = stat()
        stat(log, &st)
        let journal = "JOURNAL_STREAM=\(st.st_dev):\(st.st_ino)"
        for (env, prefix) in [(journal, "<5>tabd ready"), ("JOURNAL_STREAM=1:2", "notice: tabd ready"), ("", "notice: tabd ready")] {
            let r = try shell("\(env) timeout -s TERM 1 \(Build.tabd) --socket \(dir)/s --state-dir \(dir)/st 2>>\(log); tail -n 4 \(log); : > \(log)")
            let output = withoutTimestamps(r.output)
            #expect(output.contains("\n" + prefix) || output.hasPrefix(prefix), "\(env): \(r.output)")
            // On the journal journald adds the time; elsewhere each line starts with it (RFC 3339, UTC).
            let stamped = r.output.split(separator: "\n").allSatisfy { $0.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [a-z]+: .*/#) != nil }
            #expect(stamped == !env.hasPrefix("JOURNAL_STREAM=\(st.st_dev)"), "\(env): \(r.output)")
        }
        // A plugin's log line with a newline in it (the login gate logs the user name of a
        // failed login).
        let credentials = try Plugins.credentials(in: dir)
        let tabd = try TabdProcess(config: Self.gateConfig(credentials), dir: dir)
        _ = try tabd.client().request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"eve\nforged line","password":"x"}}"#)
        #expect(tabd.stop() == 0)
        let lines = tabd.log.split(separator: "\n")
        #expect(lines.contains { $0.contains(#"eve\nforged line"#) }, "\(tabd.log)")
        #expect(!lines.contains { $0.hasPrefix("forged line") }, "\(tabd.log)")
    }

    /// A list value is a JSON array in the log: `plugins=["login-gate"]`.
    @Test func listValuesAreJSONArraysInTheLog() throws {
        let dir = temporaryDirectory("jla")
        let credentials = try Plugins.credentials(in: dir)
        let tabd = try TabdProcess(config: Self.gateConfig(credentials), dir: dir)
        try tabd.client().ok(#"{"cmd":"reload"}"#)
        #expect(tabd.stop() == 0)
        #expect(tabd.log.contains(#"configuration reloaded changed=[] plugins=["login-gate"]"#), "\(tabd.log)")
        #expect(tabd.log.contains("journal.seq=") && !tabd.log.contains("state.seq="), "\(tabd.log)")
    }

    // MARK: first start

    /// `make install` into a prefix, then tabd with the installed configuration: it starts
    /// and serves (the login gate with the empty credentials file install made refuses every
    /// tab but the login tab); adding a user as the docs say lets that user log in.
    @Test func aFreshInstallStartsAndServes() throws {
        let root = temporaryDirectory("fresh")
        let r = try shell("make -s -C \(Build.packageRoot.path) install-files PREFIX=\(root)/usr CONFDIR=\(root)/etc/tabd BIN_DIR=\(Build.binDirectory.path)")
        #expect(r.status == 0, "\(r.output)")
        let config = try String(contentsOfFile: root + "/etc/tabd/tabd.yaml", encoding: .utf8)
        #expect(config.contains("credentials_file: \(root)/etc/tabd/credentials"))
        var st = stat()
        #expect(stat(root + "/etc/tabd/credentials", &st) == 0 && st.st_mode & 0o777 == 0o640 && st.st_size == 0)
        let check = try shell("\(root)/usr/bin/tabd --check-config --config \(root)/etc/tabd/tabd.yaml --socket \(root)/s --state-dir \(root)/state")
        #expect(check.status == 0, "\(check.output)")
        let tabd = try TabdProcess(config: config, dir: root)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"news"}]}"#)
        #expect(try c.error(#"{"cmd":"tap","tab":"news"}"#).string("plugin") == "login-gate")
        #expect(tabd.log.contains("lists no user: nobody can log in"), "\(tabd.log)")
        // The docs' step: add a user (openssl passwd -6), then log in.
        #expect(try shell("printf 'alice:%s\\n' \"$(openssl passwd -6 secret)\" >> \(root)/etc/tabd/credentials").status == 0)
        try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"alice","password":"secret"}}"#)
        try c.ok(#"{"cmd":"tap","tab":"news"}"#)
        #expect(tabd.stop() == 0)
    }
}
