// tabd as a systemd service: the units, socket activation, sd_notify (READY, RELOADING,
// STOPPING, STATUS, WATCHDOG), hardening, and `make install` into a DESTDIR.

import Foundation
import Glibc
import TabProtocol
import TabSystem
import Testing

/// A datagram socket standing in for systemd's notify socket.
final class NotifySocket {
    let fd: Int32
    /// The value for NOTIFY_SOCKET: a path, or "@name" for an abstract socket.
    let address: String
    private var path: String?

    init(abstract: Bool, dir: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        let name = abstract ? "tabd-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" : dir + "/notify.sock"
        let r = UnixAddress(abstract ? "@" + name : name)!.withSockaddr { bind(fd, $0, $1) }
        guard r == 0 else { throw TestFailure("bind notify socket: \(String(cString: strerror(errno)))") }
        address = abstract ? "@" + name : name
        path = abstract ? nil : name
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }

    /// The next datagram, or nil after 200 ms without one.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
    }

    /// Datagrams until one has the line `text` (returned with all before it), or the deadline.
    func wait(for text: String, timeout: Double = 60) -> [String] {
        wait(forLine: { $0 == text }, timeout: timeout)
    }

    /// Datagrams until one has a line `matches` accepts (returned with all before it), or the
    /// deadline.
    func wait(forLine matches: (Substring) -> Bool, timeout: Double = 60) -> [String] {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let m = receive() {
                seen.append(m)
                if m.split(separator: "\n").contains(where: matches) { return seen }
            }
        }
        return seen
    }
}

@Suite struct OperationsTests {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// `make install-files` of the debug build into a fresh DESTDIR with PREFIX=/usr. The
    /// prebuilt SDK is compiled once per test process, by the first install (as `make install`
    /// does; under `make test`, copied from its build-sdk stage), and copied from there by the
    /// others (the Makefile's SDK_PREBUILT).
    static func install() throws -> String {
        let first = try firstInstall.get()
        return try install("SDK_PREBUILT=\(first)/usr/\(SwiftSDKPackageTests.prebuiltDirectory)")
    }

    static let firstInstall = Result<String, any Error> {
        try awaitPrebuiltSDK()
        return try install("")
    }

    /// Under `make test` the prebuilt SDK comes from a background stage (build-sdk), which the
    /// installs copy (SDK_PREBUILT in the environment, read by the Makefile): the first one
    /// waits for the stage's end (SDK_PREBUILT_STAGE: its `.rc` file), up to 15 minutes.
    static func awaitPrebuiltSDK() throws {
        guard let stage = environment["SDK_PREBUILT_STAGE"] else { return }
        let deadline = Date().addingTimeInterval(900)
        while true {
            if let rc = try? String(contentsOfFile: stage + ".rc", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !rc.isEmpty {
                guard rc == "0" else { throw TestFailure("make test's build-sdk stage failed (exit \(rc)): see \(stage).log") }
                return
            }
            guard Date() < deadline else { throw TestFailure("make test's build-sdk stage did not end within 15 minutes (\(stage).log)") }
            usleep(200_000)
        }
    }

    static func install(_ arguments: String) throws -> String {
        let destdir = temporaryDirectory("inst")
        let r = try shell("make -s -C \(Build.packageRoot.path) install-files DESTDIR=\(destdir) PREFIX=/usr BIN_DIR=\(Build.binDirectory.path) \(arguments)")
        guard r.status == 0 else { throw TestFailure("make install-files failed: \(r.output)") }
        return destdir
    }

    @Test func notifyReadyReloadStopAndStatus() throws {
        for abstract in [false, true] {
            let dir = temporaryDirectory("ntf")
            let notify = try NotifySocket(abstract: abstract, dir: dir)
            var env = Self.environment
            env["NOTIFY_SOCKET"] = notify.address
            let tabd = try TabdProcess(dir: dir, environment: env)
            // READY=1 comes once the socket answers (TabdProcess waited for a ping; READY was
            // sent before the loop ran, and the socket accepted before that).
            let ready = notify.wait(for: "READY=1")
            #expect(ready.last?.contains("READY=1") == true, "\(notify.address): \(ready)")
            #expect(ready.last?.contains("STATUS=") == true, "READY comes with a STATUS line: \(ready)")
            let c = try tabd.client()
            // Reload over the socket (what ExecReload does): RELOADING=1, then READY=1.
            let reload = try shell("\(Build.tabctl) reload --socket \(tabd.socket)")
            #expect(reload.status == 0, "\(reload.output)")
            let reloading = notify.wait(for: "READY=1")
            let joined = reloading.joined(separator: "|")
            #expect(joined.contains("RELOADING=1") && joined.contains("MONOTONIC_USEC="), "\(reloading)")
            #expect(reloading.last?.contains("READY=1") == true)
            // SIGHUP: the same.
            kill(tabd.pid, SIGHUP)
            let hup = notify.wait(for: "READY=1").joined(separator: "|")
            #expect(hup.contains("RELOADING=1"), "\(hup)")
            _ = try c.request(#"{"cmd":"ping"}"#)
            // SIGTERM: STOPPING=1, exit 0.
            kill(tabd.pid, SIGTERM)
            let stopping = notify.wait(for: "STOPPING=1")
            #expect(stopping.last?.contains("STOPPING=1") == true, "\(stopping)")
            #expect(tabd.stop() == 0)
        }
    }

    /// A refused reload stays visible until a reload succeeds: in the STATUS= line after the
    /// reload and in the periodic one 10 s later (the file on disk is still the refused one),
    /// in `stats` and in the metrics; the reply is `config_invalid` and tabctl prints each
    /// problem once. A good reload clears it.
    @Test func aRefusedReloadStaysInTheStatusUntilAReloadSucceeds() throws {
        let dir = temporaryDirectory("rst")
        let notify = try NotifySocket(abstract: false, dir: dir)
        var env = Self.environment
        env["NOTIFY_SOCKET"] = notify.address
        let tabd = try TabdProcess(dir: dir, environment: env)
        _ = notify.wait(for: "READY=1")
        try "limits:\n  max_tabz: 5\n  max_tabs: 0\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let reload = try shell("\(Build.tabctl) reload --socket \(tabd.socket)")
        #expect(reload.status == TabctlExit.errorReply.code, "\(reload.output)")
        #expect(reload.output.hasPrefix("tabctl: config_invalid: reload refused: \(tabd.configPath) has 2 problems; "), "\(reload.output)")
        for problem in ["\(tabd.configPath):2:3: unknown setting 'limits.max_tabz'", "\(tabd.configPath):3:13: limits.max_tabs must be"] {
            #expect(reload.output.components(separatedBy: problem).count == 2, "each problem once: \(reload.output)")
        }
        let after = notify.wait(for: "READY=1").last ?? ""
        #expect(after.contains("was refused (2 problems"), "\(after)")
        // The periodic STATUS= line (every 10 s, without READY=1) still says so. (Waiting for
        // the line "STATUS=serving" alone waited out the whole timeout: the line goes on.)
        let periodic = notify.wait(forLine: { $0.hasPrefix("STATUS=serving") }).last ?? ""
        #expect(!periodic.contains("READY=1"), "the periodic status is a datagram of its own: \(periodic)")
        #expect(periodic.contains("STATUS=serving with the previous configuration: the reload at ") && periodic.contains("was refused (2 problems"), "\(periodic)")
        let c = try tabd.client()
        let stats = try #require(try c.ok(#"{"cmd":"stats"}"#).object("reload"))
        #expect(stats.string("last") == "failed" && stats.int("failures") == 1 && stats.int("successes") == 0, "\(stats)")
        #expect(stats.strings("problems")?.count == 2 && stats.string("failed_at")?.hasSuffix("Z") == true, "\(stats)")
        let metrics = try #require(try c.ok(#"{"cmd":"metrics"}"#).string("text"))
        #expect(metrics.contains("tabd_last_reload_successful 0\n") && metrics.contains("tabd_reload_total{result=\"failure\"} 1\n"), "\(metrics)")
        // Fixed: the next reload clears it.
        try "".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd":"reload"}"#)
        let fixed = notify.wait(for: "READY=1").last ?? ""
        #expect(fixed.contains("STATUS=serving ") && !fixed.contains("refused"), "\(fixed)")
        let cleared = try #require(try c.ok(#"{"cmd":"stats"}"#).object("reload"))
        #expect(cleared.string("last") == "ok" && cleared.int("successes") == 1 && cleared.isNull("failed_at"), "\(cleared)")
        #expect(tabd.stop() == 0)
    }

    @Test func watchdogPingsAtHalfTheInterval() throws {
        let dir = temporaryDirectory("wd")
        let notify = try NotifySocket(abstract: false, dir: dir)
        var env = Self.environment
        env["NOTIFY_SOCKET"] = notify.address
        env["WATCHDOG_USEC"] = "400000"  // 0.4 s: a ping about every 0.2 s
        let tabd = try TabdProcess(dir: dir, environment: env)
        _ = notify.wait(for: "READY=1")
        var pings = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 2.0 {
            if let m = notify.receive(), m.contains("WATCHDOG=1") { pings += 1 }
        }
        // 2 s / 0.2 s = 10; generous bounds for a loaded machine.
        #expect(pings >= 4 && pings <= 14, "\(pings) WATCHDOG=1 in 2 s")
        // A watchdog meant for another process is not ours to feed.
        tabd.stop()
        env["WATCHDOG_PID"] = "1"
        let other = try TabdProcess(dir: temporaryDirectory("wd2"), environment: env)
        _ = notify.wait(for: "READY=1")
        var foreign = 0
        let t = Date()
        while Date().timeIntervalSince(t) < 1.0 { if notify.receive()?.contains("WATCHDOG=1") == true { foreign += 1 } }
        #expect(foreign == 0)
        other.stop()
    }

    /// systemd-socket-activate hands tabd a listening socket as fd 3 (LISTEN_FDS=1): tabd
    /// serves it, does not bind its own, and leaves the socket file to its owner.
    @Test func socketActivation() throws {
        let dir = temporaryDirectory("act")
        let socket = dir + "/activated.sock"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        // --socket names a path tabd must NOT bind: the activated socket wins.
        p.arguments = ["-l", socket, Build.tabd, "--socket", dir + "/unused.sock", "--state-dir", dir + "/state"]
        let log = dir + "/stderr.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: log)
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) }; p.waitUntilExit() }
        // systemd-socket-activate listens first and starts tabd on the first connection.
        var client: LineClient?
        let deadline = Date().addingTimeInterval(60)
        while client == nil && Date() < deadline {
            client = try? LineClient(path: socket)
            if client == nil { usleep(20_000) }
        }
        let c = try #require(client, "no socket at \(socket)")
        _ = try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        #expect(try c.request(#"{"cmd":"select","tab":"b"}"#).bool("ok") == true)
        let second = try LineClient(path: socket)
        #expect(try second.request(#"{"cmd":"state"}"#).object("result")?.string("selected") == "b")
        #expect(!FileManager.default.fileExists(atPath: dir + "/unused.sock"), "tabd bound its own socket")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("using the socket passed by systemd"), "\(text)")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
    }

    /// What systemd does for a socket unit: a listening socket that outlives each tabd. A
    /// client that connects while tabd is down (an upgrade, a restart) waits in the backlog
    /// and is answered by the next tabd, from the state the previous one left.
    @Test func restartBehindAHeldSocketLosesNeitherStateNorQueuedClients() throws {
        let dir = temporaryDirectory("upg")
        let path = dir + "/tabd.sock"
        let listener = try Self.listeningSocket(path)
        defer { close(listener) }
        let args = [Build.tabd, "--socket", dir + "/unused.sock", "--state-dir", dir + "/state"]
        let first = try Self.spawnActivated(listener, args, log: dir + "/first.log")
        let c = try LineClient(path: path)
        _ = try c.request(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        #expect(try c.request(#"{"cmd":"select","tab":"b"}"#).bool("ok") == true)
        kill(first, SIGTERM)
        #expect(Self.wait(first) == 0)
        #expect(FileManager.default.fileExists(atPath: path), "tabd must leave an inherited socket file alone")
        // tabd is down: this client is queued by the kernel.
        let queued = try LineClient(path: path)
        try queued.write(#"{"cmd":"state","id":"queued"}"# + "\n")
        let second = try Self.spawnActivated(listener, args, log: dir + "/second.log")
        defer { kill(second, SIGTERM); _ = Self.wait(second) }
        let reply = try object(try #require(try queued.readLine(), "the queued client got no answer"))
        #expect(reply.string("id") == "queued")
        #expect(reply.object("result")?.string("selected") == "b", "state survived the restart")
    }

    static func listeningSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = UnixAddress(path)!.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, 64) == 0 else { throw TestFailure("listen on \(path): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Starts `args` the way systemd starts a socket-activated service: the socket as fd 3,
    /// LISTEN_FDS=1 and LISTEN_PID set to the service's own pid (sh's $$, kept by exec).
    static func spawnActivated(_ listener: Int32, _ args: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, listener, 3)  // dup2 clears close-on-exec
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let command = "LISTEN_PID=$$ LISTEN_FDS=1 exec " + args.map { "'\($0)'" }.joined(separator: " ")
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { (w: String) in strdup(w) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        guard rc == 0 else { throw TestFailure("posix_spawn: \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid` (at most 60 s, then SIGKILL); its exit status, or -1.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(60)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(10_000)
        }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    @Test func unitsVerifyAndAreHardened() throws {
        let destdir = try Self.install()
        // verify checks that ExecStart/ExecReload exist: point them into the DESTDIR.
        let units = temporaryDirectory("units")
        for unit in ["tabd.service", "tabd.socket"] {
            let text = try String(contentsOfFile: destdir + "/usr/lib/systemd/system/" + unit, encoding: .utf8)
            try text.replacingOccurrences(of: "/usr/bin/", with: destdir + "/usr/bin/")
                .write(toFile: units + "/" + unit, atomically: true, encoding: .utf8)
        }
        // verify also runs `man` on each Documentation=man:… page: the installed ones.
        let verify = try shell("MANPATH=\(destdir)/usr/share/man systemd-analyze verify \(units)/tabd.service \(units)/tabd.socket")
        #expect(verify.status == 0, "\(verify.output)")
        #expect(!verify.output.contains("Unknown key"), "\(verify.output)")
        // The exposure score systemd computes for the service.
        let security = try shell("systemd-analyze security --offline=true --no-pager \(units)/tabd.service")
        let line = security.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(score != nil && score! <= 2.0, "exposure: \(line)\n\(security.output)")
        // ExecReload waits for tabctl's answer with the right option order.
        let service = try String(contentsOfFile: destdir + "/usr/lib/systemd/system/tabd.service", encoding: .utf8)
        #expect(service.contains("ExecReload=/usr/bin/tabctl reload --socket /run/tabd/tabd.sock"))
        let help = try shell("\(Build.tabctl) reload --socket /nonexistent/tabd.sock")
        #expect(help.status == 3, "the ExecReload command line parses (exit 3: no tabd there): \(help.output)")
    }

    /// `make install` into a DESTDIR, a plugin built against the installed header with
    /// pkg-config and loaded by the installed tabd, then `make uninstall` leaves only the
    /// configuration behind.
    @Test func installBuildPluginWithPkgConfigUninstall() throws {
        let destdir = try Self.install()
        for file in ["usr/bin/tabd", "usr/bin/tabctl", "usr/lib/tabd/plugins/libLoginGate.so",
                     "usr/lib/tabd/plugins/libOrientationRules.so", "usr/include/tabd/policy.h",
                     "usr/lib/pkgconfig/tabd-policy.pc", "usr/lib/systemd/system/tabd.service",
                     "usr/lib/systemd/system/tabd.socket", "usr/lib/sysusers.d/tabd.conf",
                     "usr/lib/tmpfiles.d/tabd.conf", "etc/tabd/tabd.yaml", "usr/share/doc/tabd/README.md", "usr/share/doc/tabd/tabd.example.yaml",
                     "usr/share/man/man1/tabctl.1", "usr/share/man/man5/tabd.yaml.5", "usr/share/man/man8/tabd.8",
                     "usr/share/bash-completion/completions/tabctl", "usr/share/zsh/site-functions/_tabctl",
                     "usr/share/fish/vendor_completions.d/tabctl.fish", "usr/\(SwiftSDKPackageTests.sdkDirectory)/Package.swift"] {
            #expect(FileManager.default.fileExists(atPath: destdir + "/" + file), "\(file) installed")
        }
        let pc = "PKG_CONFIG_SYSROOT_DIR=\(destdir) PKG_CONFIG_PATH=\(destdir)/usr/lib/pkgconfig"
        let cflags = try shell("\(pc) pkg-config --cflags tabd-policy")
        #expect(cflags.status == 0 && cflags.output.contains("-I\(destdir)/usr/include"), "\(cflags.output)")
        let plugindir = try shell("\(pc) pkg-config --variable=plugindir tabd-policy")
        #expect(plugindir.output.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("/usr/lib/tabd/plugins"), "\(plugindir.output)")
        let work = temporaryDirectory("author")
        let build = try shell("""
            cp \(destdir)/usr/share/doc/tabd/docs/hello.c \(work)/ && cd \(work) && \
            cc -shared -fPIC $(\(pc) pkg-config --cflags tabd-policy) hello.c -o hello.so
            """)
        #expect(build.status == 0, "\(build.output)")
        // The installed tabd loads it (and the installed reference plugins).
        let config = "plugins:\n  directories: [\(destdir)/usr/lib/tabd/plugins, \(work)]\n  load:\n    - path: hello.so\n    - path: libOrientationRules.so\n"
        let dir = temporaryDirectory("itabd")
        try config.write(toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
        let check = try shell("\(destdir)/usr/bin/tabd --check-config --config \(dir)/c.yaml --socket \(dir)/s --state-dir \(dir)/st")
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("configuration OK: \(dir)/c.yaml"), "\(check.output)")
        #expect(check.output.split(separator: "\n").filter { $0.hasSuffix("loaded, init and fini ran") }.count == 2, "\(check.output)")
        let tabd = try TabdProcess(config: config, dir: dir)
        let plugins = try tabd.client().request(#"{"cmd":"plugins"}"#).object("result")?["plugins"]?.jsonString ?? ""
        #expect(plugins.contains("\"name\":\"hello\"") && !plugins.contains("\"loaded\":false"), "\(plugins)")
        // Built from installed files only, it keeps its tap count in its store across kill -9
        // and acts on time (plugin ABI 1.6).
        let watcher = try tabd.client()
        _ = try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        var c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        _ = try c.ok(#"{"cmd":"tap","tab":"b"}"#)
        _ = try c.ok(#"{"cmd":"plugin.call","plugin":"hello","method":"remind","args":{"seconds":0.05,"text":"installed"}}"#)
        var reminded = false
        for _ in 0..<20 where !reminded {
            guard let line = try watcher.readLine() else { break }
            reminded = try object(line).object("data")?.object("data")?.string("text") == "installed"
        }
        #expect(reminded, "the timer's event reached the subscriber")
        tabd.stop(signal: SIGKILL)
        try tabd.start()
        c = try tabd.client()
        #expect(try c.ok(#"{"cmd":"plugin.call","plugin":"hello","method":"status"}"#).object("value")?.int("taps") == 1)
        tabd.stop()
        // Uninstall: only the configuration (and directories) stay.
        let un = try shell("make -s -C \(Build.packageRoot.path) uninstall DESTDIR=\(destdir) PREFIX=/usr")
        #expect(un.status == 0, "\(un.output)")
        let left = try shell("cd \(destdir) && find . -type f | sort").output.split(separator: "\n")
        #expect(left == ["./etc/tabd/credentials", "./etc/tabd/tabd.yaml"], "left behind: \(left)")
    }

    /// The installed docs keep the source tree's layout: every relative link of every
    /// installed Markdown file leads to an installed file (and an anchor to its heading).
    @Test func installedDocsLinksWork() throws {
        let destdir = try Self.install()
        let doc = destdir + "/usr/share/doc/tabd"
        let files = try shell("cd \(doc) && find . -name '*.md' | sort").output.split(separator: "\n").map { String($0.dropFirst(2)) }
        #expect(files.contains("README.md") && files.contains("docs/operations.md") && files.contains("examples/README.md"), "\(files)")
        var links = 0
        for file in files {
            let text = try String(contentsOfFile: doc + "/" + file, encoding: .utf8)
            let base = (file as NSString).deletingLastPathComponent
            for m in text.matches(of: #/\]\(([^)\s]+)\)/#) {
                let target = String(m.output.1)
                if target.hasPrefix("http") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
                links += 1
                let path = String(target.split(separator: "#", maxSplits: 1)[0])
                let resolved = ((doc + "/" + base) as NSString).appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: resolved), "\(file) links to \(target), not installed")
            }
        }
        #expect(links > 5)
    }

    /// `make install` writes tabd(8) and tabctl(1) from the parsers of the binaries it
    /// installs, and tabd.yaml(5): man renders each without a warning, each says what it
    /// must (every subcommand, option and configuration key), and the unit points at them.
    @Test func manPagesRenderWithoutWarningsAndCoverTheParsersAndTheConfiguration() throws {
        let destdir = try Self.install()
        let man = destdir + "/usr/share/man"
        var rendered: [String: String] = [:]
        for page in ["man1/tabctl.1", "man8/tabd.8", "man5/tabd.yaml.5"] {
            let warnings = try shell("MANWIDTH=80 man --warnings -l \(man)/\(page) 2>&1 >/dev/null")
            #expect(warnings.status == 0 && warnings.output.isEmpty, "\(page): \(warnings.output)")
            let text = try shell("MANWIDTH=80 man -l \(man)/\(page) 2>/dev/null | col -bx")
            #expect(text.status == 0, "\(page): \(text.output)")
            rendered[page] = text.output
        }
        let tabctl = rendered["man1/tabctl.1"] ?? ""
        let tabd = rendered["man8/tabd.8"] ?? ""
        let yaml = rendered["man5/tabd.yaml.5"] ?? ""
        #expect(tabctl.hasPrefix("TABCTL(1)") && tabd.hasPrefix("TABD(8)") && yaml.hasPrefix("TABD.YAML(5)"), "the sections")
        // Generated: whatever the parsers have is there.
        let dump = try object(try shell("\(Build.tabctl) --experimental-dump-help 2>/dev/null").output)
        guard case .array(let subcommands)? = dump.object("command")?["subcommands"] else {
            Issue.record("tabctl --experimental-dump-help lists no subcommands")
            return
        }
        let names = subcommands.compactMap { c -> String? in
            guard case .object(let o) = c, let name = o.string("commandName"), name != "help" else { return nil }
            return name
        }
        #expect(names.contains("metrics") && names.contains("login"), "\(names)")
        for name in names { #expect(tabctl.contains("\n   \(name)\n"), "tabctl(1) has no section for \(name)") }
        for text in ["--socket path", "--controller name", "TABD_SOCKET", "key:=json", "EXIT STATUS", "tabd " + TabdVersion.string] {
            #expect(tabctl.contains(text), "tabctl(1) lacks \(text)")
        }
        // EXIT STATUS from the table --help prints too: every status with its meaning, once.
        for (page, table) in [(tabd, TabdExit.all), (tabctl, TabctlExit.all)] {
            let flat = page.replacing(#/\s+/#, with: " ")
            #expect(flat.components(separatedBy: " EXIT STATUS ").count == 2, "one EXIT STATUS section")
            for status in table {
                let words = status.meaning.split(separator: " ").prefix(8).joined(separator: " ")
                #expect(flat.contains(" \(status.code) \(words)"), "\(status.code): \(words)")
            }
        }
        #expect(!tabd.contains("tabd.example.yaml in the current") && !tabctl.contains("make run"), "no make run in tabctl(1)")
        for option in ["--config", "--socket", "--state-dir", "--fsync", "--log-level", "--repair", "--check-config", "--version"] {
            #expect(tabd.contains(option), "tabd(8) lacks \(option)")
        }
        // Hand-written: every key of the commented example configuration is described.
        let example = try String(contentsOf: Build.packageRoot.appendingPathComponent("tabd.example.yaml"), encoding: .utf8)
        let keys = Set(example.split(separator: "\n").compactMap { line -> String? in
            let words = line.drop { $0 == " " || $0 == "#" || $0 == "-" }.drop { $0 == " " }
            guard let colon = words.firstIndex(of: ":"), words[..<colon].allSatisfy({ $0.isLowercase || $0 == "_" }),
                  !words[..<colon].isEmpty else { return nil }
            return String(words[..<colon])
        })
        #expect(keys.count > 30 && keys.contains("memory_budget_bytes") && keys.contains("tap_pops"), "\(keys.sorted())")
        for key in keys.sorted() { #expect(yaml.contains(key), "tabd.yaml(5) does not describe \(key)") }
        #expect(!yaml.contains("/usr/local") && yaml.contains("/usr/share/doc/tabd/docs/plugins.md"), "PREFIX=/usr is filled in")
        // man:tabd(8) and man:tabd.yaml(5) are the unit's documentation.
        let service = try String(contentsOfFile: destdir + "/usr/lib/systemd/system/tabd.service", encoding: .utf8)
        #expect(service.contains("Documentation=man:tabd(8) man:tabd.yaml(5)\n"), "\(service)")
    }

    /// The completions are tabctl's own (--generate-completion-script): bash loads them and
    /// completes subcommands and the global options; zsh and fish files are theirs.
    @Test func completionsAreInstalledForBashZshAndFish() throws {
        let destdir = try Self.install()
        let share = destdir + "/usr/share"
        let bash = try shell("""
            source \(share)/bash-completion/completions/tabctl && complete -p tabctl && \
            COMP_WORDS=(tabctl --socket /x me); COMP_CWORD=3; COMP_LINE="tabctl --socket /x me"; COMP_POINT=${#COMP_LINE}; \
            _tabctl tabctl me /x; printf '%s\\n' "${COMPREPLY[@]}"
            """)
        #expect(bash.status == 0 && bash.output.contains("-F _tabctl tabctl"), "\(bash.output)")
        #expect(bash.output.contains("\nmetrics\n"), "bash completes a subcommand after a global option: \(bash.output)")
        let zsh = try String(contentsOfFile: share + "/zsh/site-functions/_tabctl", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef tabctl") && zsh.contains("metrics"), "\(zsh.prefix(200))")
        let fish = try String(contentsOfFile: share + "/fish/vendor_completions.d/tabctl.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'tabctl'") && fish.contains("metrics"), "\(fish.prefix(200))")
        for (shell_, file) in [("zsh", share + "/zsh/site-functions/_tabctl"), ("fish", share + "/fish/vendor_completions.d/tabctl.fish")] {
            guard (try shell("command -v \(shell_)")).status == 0 else { continue }  // checked for syntax where installed
            let check = try shell("\(shell_) -n \(file)")
            #expect(check.status == 0, "\(shell_) -n: \(check.output)")
        }
    }
}
