// LoginGate, the real libLoginGate.so, driven through the host and TabCore.

import Foundation
import TabCore
import TabPlugins
import Testing
import TestLogging

/// `openssl passwd -6 -salt tabdtestsalt demo`
let demoHash = "$6$tabdtestsalt$bZaucwgXfnZj/uddAj.0cj9Yl3D1ubtNEF/UDwiY73zibMM3mqhaDiptCoT83CLKCY7.K2jcbO34aoGDR4tiR/"

/// A credentials file with `demo` / `demo`, and a host with LoginGate loaded; `settings`:
/// more members of its settings object (`"rate_burst":3`). Password checks are not limited
/// to two back to back (max_hashes_per_second) unless `hashesPerSecond` says so.
func loginGateHost(maxFailures: Int = 5, lockoutSeconds: Int = 60, hashesPerSecond: Int = 1000, extraLines: String = "",
                   settings: String = "") throws -> (PluginHost, LogRecorder, credentials: String) {
    let plugin = try referencePlugin("libLoginGate.so")
    let dir = try temporaryDirectory()
    let credentials = dir + "/credentials"
    try "# user:hash\ndemo:\(demoHash)\nlocked:!\n\(extraLines)".write(toFile: credentials, atomically: true, encoding: .utf8)
    let (host, log) = makeHost([buildDirectory])
    try host.load([PluginSpec(path: URL(fileURLWithPath: plugin).lastPathComponent, required: true, configJSON: """
        {"login_tab":"login","credentials_file":"\(credentials)","max_failures":\(maxFailures),"lockout_seconds":\(lockoutSeconds),"max_hashes_per_second":\(hashesPerSecond)\(settings.isEmpty ? "" : "," + settings)}
        """)])
    return (host, log, credentials)
}

func login(_ host: PluginHost, _ c: Controller, user: String = "demo", password: String = "demo",
           caller: PluginCaller? = nil) -> PluginCallReply {
    host.call(plugin: "login-gate", method: "login", argsJSON: #"{"user":"\#(user)","password":"\#(password)"}"#, controller: c, caller: caller)
}

/// LoginGate's `stats`: its table sizes and counters.
func loginStats(_ host: PluginHost, _ c: Controller) throws -> [String: Int] {
    let text = try host.call(plugin: "login-gate", method: "stats", argsJSON: "{}", controller: c).get()
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    return object.compactMapValues { $0 as? Int }
}

extension PluginTests {
    @Suite struct LoginGate {
        /// LoginGate loads from the build directory with its name, version and hooks.
        @Test func loads() throws {
            let (host, _, _) = try loginGateHost()
            let s = try #require(host.status("login-gate"))
            #expect(s.loaded)
            #expect(s.version == "1.5.1")
            #expect(s.hooks == ["init", "fini", "should_select", "call", "will_stop", "timer", "controller_deleted", "may_open_drawer"])
            #expect(s.required)
        }

        /// Logged out, a tap on any tab but the login tab is denied, naming the plugin, the
        /// reason and PROTOCOL.md's sentence; the selection does not change.
        @Test func tapDeniedUntilLogin() throws {
            let (host, _, _) = try loginGateHost()
            var c = try controller(["login", "home", "settings"])
            let before = c
            let error = try #require(tapDenial(&c, "settings", policy: host))
            #expect(error.code == .denied)
            #expect(error.plugin == "login-gate")
            #expect(error.reason == "not logged in")
            #expect(c == before)
            #expect(error.message == "login required before 'settings' can be selected")
        }

        /// The login tab itself can be tapped while logged out.
        @Test func loginTabIsAllowed() throws {
            let (host, _, _) = try loginGateHost()
            var c = try controller(["home", "login", "settings"])
            #expect(tapDenial(&c, "login", policy: host) == nil)
            #expect(c.selection == .tab("login"))
        }

        /// Tapping More while logged out is denied too.
        @Test func moreDeniedWhileLoggedOut() throws {
            let (host, _, _) = try loginGateHost()
            var c = try controller(["login", "a", "b", "c", "d", "e", "f"])
            #expect(c.moreShown)
            let error = try #require(tapDenial(&c, "more", policy: host))
            #expect(error.reason == "not logged in")
            #expect(error.message == "login required before 'more' can be selected")
        }

        /// After a login with the right password, taps are allowed; status says who.
        @Test func loginAdmits() throws {
            let (host, log, _) = try loginGateHost()
            var c = try controller(["login", "home", "settings"])
            let loggedIn = login(host, c)
            #expect(try loggedIn.get() == #"{"user":"demo"}"#)
            #expect(tapDenial(&c, "settings", policy: host) == nil)
            #expect(c.selection == .tab("settings"))
            #expect(tapDenial(&c, "home", policy: host) == nil)
            let status = try host.call(plugin: "login-gate", method: "status", argsJSON: "{}", controller: c).get()
            // Logged in until session_seconds (eight hours by default) from now, wall clock.
            let until = Int(time(nil)) + 28800
            #expect([until - 1, until, until + 1].map { #"{"logged_in":true,"login_tab":"login","until":\#($0),"user":"demo"}"# }.contains(status), "\(status)")
            #expect(log.contains("'demo' logged in on controller 'main'"))
            #expect(loggedIn.events.map(\.dataJSON) == [#"{"event":"login","user":"demo"}"#])
        }

        /// A hash made by `openssl passwd -6` (as the docs say) works.
        @Test func opensslHashWorks() throws {
            let hash = try run(["openssl", "passwd", "-6", "s3cret"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let (host, _, _) = try loginGateHost(extraLines: "alice:\(hash)\n")
            let c = try controller(["login", "home"])
            #expect(try login(host, c, user: "alice", password: "s3cret").get() == #"{"user":"alice"}"#)
        }

        /// Arguments are JSON: escapes and \u sequences in a password reach crypt(3) decoded.
        @Test func escapedPasswordWorks() throws {
            // openssl passwd -6 -salt tabdtestsalt 'pa"ss\wörd'
            let hash = "$6$tabdtestsalt$v5ABGfpk4pBhjSDWZQL7o7KHLlV0UaJ.wABjX3B8xHzzbHNaMtgYg8gl7ce31JXAAPZbSebk144PNYBpQfMnC/"
            let (host, _, _) = try loginGateHost(extraLines: "zoë:\(hash)\n")
            let c = try controller(["login", "home"])
            let args = #"{"user":"zo\u00eb","password":"pa\"ss\\w\u00f6rd"}"#
            #expect(try host.call(plugin: "login-gate", method: "login", argsJSON: args, controller: c).get() == #"{"user":"zoë"}"#)
        }

        /// Login is per controller: logging in on one leaves the others gated.
        @Test func loginIsPerController() throws {
            let (host, _, _) = try loginGateHost()
            var main = try controller(["login", "home"])
            var other = try controller(["login", "home"], name: "kiosk")
            _ = try login(host, main).get()
            #expect(tapDenial(&main, "home", policy: host) == nil)
            #expect(tapDenial(&other, "home", policy: host)?.reason == "not logged in")
        }

        /// A wrong password is an error (denied, bad credentials), logged, and admits nothing.
        @Test func wrongPasswordIsRefused() throws {
            let (host, log, _) = try loginGateHost()
            var c = try controller(["login", "home"])
            let failed = login(host, c, password: "nope")
            let error = try #require(failed.failure)
            #expect(error.code == .denied)
            #expect(error.plugin == "login-gate")
            #expect(error.reason == "bad credentials")
            #expect(error.message == "wrong user name or password")
            #expect(log.contains("failed login for 'demo' on controller 'main' (1 of 5)"))
            #expect(tapDenial(&c, "home", policy: host)?.reason == "not logged in")
            #expect(failed.effects.isEmpty)
        }

        /// Unknown users and locked hashes ("!") cannot log in, with the same answer as a wrong password.
        @Test func unknownAndLockedUsersAreRefused() throws {
            let (host, _, _) = try loginGateHost()
            let c = try controller(["login", "home"])
            #expect(login(host, c, user: "mallory", password: "demo").failure?.message == "wrong user name or password")
            #expect(login(host, c, user: "locked", password: "").failure?.message == "wrong user name or password")
            #expect(login(host, c, user: "locked", password: "!").failure?.message == "wrong user name or password")
        }

        /// After max_failures wrong passwords the user is locked out: even the right
        /// password is refused (rate limited) until the lockout ends.
        @Test func failedLoginsAreRateLimited() throws {
            let (host, log, _) = try loginGateHost(maxFailures: 3, lockoutSeconds: 60)
            let c = try controller(["login", "home"])
            for _ in 0..<3 { #expect(login(host, c, password: "guess").failure?.reason == "bad credentials") }
            let limited = try #require(login(host, c).failure)
            #expect(limited.code == .denied)
            #expect(limited.reason == "rate limited")
            #expect(limited.message.hasPrefix("too many failed logins for 'demo'; try again in"))
            #expect(log.contains("locked out for 60 s"))
        }

        /// With a zero lockout, the right password works again after the failures.
        @Test func lockoutEnds() throws {
            let (host, _, _) = try loginGateHost(maxFailures: 2, lockoutSeconds: 0)
            let c = try controller(["login", "home"])
            for _ in 0..<2 { _ = login(host, c, password: "guess") }
            #expect(try login(host, c).get() == #"{"user":"demo"}"#)
        }

        /// Logout asks the host to select the login tab (applied after the command), emits
        /// a logout event, and gates taps again.
        @Test func logoutReturnsToLoginTab() throws {
            let (host, _, _) = try loginGateHost()
            var c = try controller(["login", "home", "settings"])
            _ = try login(host, c).get()
            #expect(tapDenial(&c, "settings", policy: host) == nil)
            let logout = host.call(plugin: "login-gate", method: "logout", argsJSON: "{}", controller: c)
            #expect(try logout.get() == #"{"user":"demo"}"#)
            let requested = logout.selections
            #expect(requested.count == 1)
            #expect(requested.first?.controller == "main")
            #expect(requested.first?.target == .tab("login"))
            let events = logout.events
            #expect(events.map(\.plugin) == ["login-gate"])
            #expect(events.map(\.controller) == ["main"])
            #expect(events.map(\.dataJSON) == [#"{"event":"logout","user":"demo"}"#])
            #expect(tapDenial(&c, "home", policy: host)?.reason == "not logged in")
        }

        /// Unknown methods are not_found; bad arguments invalid_request.
        @Test func callErrors() throws {
            let (host, _, _) = try loginGateHost()
            let c = try controller(["login"])
            #expect(host.call(plugin: "login-gate", method: "dance", argsJSON: "{}", controller: c).failure?.code == .notFound)
            #expect(host.call(plugin: "login-gate", method: "login", argsJSON: #"{"user":"demo"}"#, controller: c).failure?.code == .invalid)
            #expect(host.call(plugin: "nobody", method: "login", argsJSON: "{}", controller: c).failure?.code == .notFound)
            #expect(host.call(plugin: "login-gate", method: "status", argsJSON: "[]", controller: c).failure?.code == .invalid)
        }

        /// A user name longer than max_user_bytes is refused (invalid_request, naming the
        /// setting) before anything else: no hash, no entry, not in the log. One of exactly
        /// max_user_bytes is an ordinary failed login.
        @Test func longUserNamesAreRefusedBeforeAnything() throws {
            let (host, log, _) = try loginGateHost(settings: #""max_user_bytes":8"#)
            let c = try controller(["login", "home"])
            let long = String(repeating: "m", count: 1_000_000)
            for name in ["mallory-9", long] {
                let error = try #require(login(host, c, user: name, password: "x").failure)
                #expect(error.code == .invalid)
                #expect(error.message == "user names are at most 8 bytes long (login-gate's max_user_bytes); this one has \(name.utf8.count)")
            }
            #expect(!log.contains("mallory"))
            #expect(try loginStats(host, c) == ["users_tracked": 0, "peers_tracked": 0, "hashes": 0, "rate_limited": 0, "long_names_refused": 2])
            #expect(login(host, c, user: "mallory8", password: "x").failure?.reason == "bad credentials")
            #expect(try loginStats(host, c)["users_tracked"] == 1)
        }

        /// The failure table holds at most max_tracked_users names: when full, the one that
        /// failed longest ago goes (its count starts over).
        @Test func failureTableIsCapped() throws {
            let (host, log, _) = try loginGateHost(settings: #""max_tracked_users":4,"rate_burst":1000"#)
            let c = try controller(["login", "home"])
            for _ in 0..<2 { _ = login(host, c, password: "guess") }
            #expect(log.contains("failed login for 'demo' on controller 'main' (2 of 5)"))
            for i in 0..<20 { _ = login(host, c, user: "user\(i)", password: "guess") }
            #expect(try loginStats(host, c)["users_tracked"] == 4)
            _ = login(host, c, password: "guess")
            #expect(log.all.filter { $0.contains("failed login for 'demo' on controller 'main' (1 of 5)") }.count == 2)
        }

        /// Failures are forgotten failure_window_seconds after the last one (the count starts
        /// over, the entry goes); a lockout ends and its entry goes with it.
        @Test func failuresExpire() throws {
            let (host, log, _) = try loginGateHost(maxFailures: 3, lockoutSeconds: 1, settings: #""failure_window_seconds":1,"rate_burst":100"#)
            let c = try controller(["login", "home"])
            for _ in 0..<2 { _ = login(host, c, password: "guess") }
            #expect(try loginStats(host, c)["users_tracked"] == 1)
            usleep(1_200_000)
            #expect(try loginStats(host, c)["users_tracked"] == 0)
            _ = login(host, c, password: "guess")
            #expect(log.all.filter { $0.contains("failed login for 'demo' on controller 'main' (1 of 3)") }.count == 2)
            for _ in 0..<2 { _ = login(host, c, password: "guess") }
            #expect(login(host, c).failure?.reason == "rate limited")
            usleep(1_200_000)
            #expect(try loginStats(host, c)["users_tracked"] == 0)
            #expect(try login(host, c).get() == #"{"user":"demo"}"#)
        }

        /// After rate_burst failed logins a caller's uid is refused (rate limited) without a
        /// password check or a look at the credentials file — even with the right password —
        /// and the log says so once. Another uid is not held back.
        @Test func callerIsRateLimitedBeforeHashing() throws {
            let (host, log, credentials) = try loginGateHost(settings: #""rate_burst":3,"rate_interval_seconds":60"#)
            let c = try controller(["login", "home"])
            let mallory = PluginCaller(uid: 1000, gid: 1000, pid: 42)
            for i in 0..<3 {
                #expect(login(host, c, user: "u\(i)", password: "guess", caller: mallory).failure?.reason == "bad credentials")
            }
            #expect(log.contains("failed login for 'u0' on controller 'main' (1 of 5) by uid 1000 (pid 42)"))
            try FileManager.default.removeItem(atPath: credentials)
            for password in ["guess", "demo", "demo"] {
                let limited = try #require(login(host, c, password: password, caller: mallory).failure)
                #expect(limited.code == .denied)
                #expect(limited.reason == "rate limited")
                #expect(limited.message == "too many failed logins from uid 1000; try again in 60 s")
            }
            let stats = try loginStats(host, c)
            #expect(stats["hashes"] == 3)
            #expect(stats["rate_limited"] == 3)
            #expect(stats["peers_tracked"] == 1)
            #expect(log.all.filter { $0.contains("logins by uid 1000 (pid 42) are refused for 60 s (rate limited): 3 failed logins in a row, then one every 60 s") }.count == 1)
            try "demo:\(demoHash)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
            #expect(try login(host, c, caller: PluginCaller(uid: 1001, gid: 1001, pid: 43)).get() == #"{"user":"demo"}"#)
            #expect(log.contains("'demo' logged in on controller 'main' by uid 1001 (pid 43)"))
        }

        /// The table of callers holds at most max_tracked_peers uids.
        @Test func peerTableIsCapped() throws {
            let (host, _, _) = try loginGateHost(settings: #""max_tracked_peers":2"#)
            let c = try controller(["login", "home"])
            for uid in UInt32(1)...6 {
                _ = login(host, c, user: "u\(uid)", password: "guess", caller: PluginCaller(uid: uid, gid: uid, pid: 1))
            }
            let stats = try loginStats(host, c)
            #expect(stats["peers_tracked"] == 2)
            #expect(stats["hashes"] == 6)
        }

        /// max_hashes_per_second holds for all callers together (two checks at most back to
        /// back): past it, a login is refused (rate limited) without a password check, and the
        /// log says so once.
        @Test func hashBudgetIsSharedByAllCallers() throws {
            let (host, log, _) = try loginGateHost(hashesPerSecond: 2)
            let c = try controller(["login", "home"])
            var reasons: [String?] = []
            for uid in UInt32(1)...6 {
                reasons.append(login(host, c, user: "u\(uid)", password: "guess", caller: PluginCaller(uid: uid, gid: uid, pid: 1)).failure?.reason)
            }
            #expect(reasons == ["bad credentials", "bad credentials", "rate limited", "rate limited", "rate limited", "rate limited"])
            let limited = try #require(login(host, c, caller: PluginCaller(uid: 7, gid: 7, pid: 1)).failure)
            #expect(limited.message == "too many logins on this server right now; try again in 1 s")
            #expect(try loginStats(host, c)["hashes"] == 2)
            #expect(log.all.filter { $0.contains("password checks are limited to 2 per second for all clients together (max_hashes_per_second)") }.count == 1)
        }

        /// Bad settings refuse the plugin with a message saying which.
        @Test func badSettingsAreRefused() throws {
            _ = try referencePlugin("libLoginGate.so")
            let (host, _) = makeHost([buildDirectory])
            try host.load([
                PluginSpec(name: "no-file", path: "libLoginGate.so", configJSON: #"{"login_tab":"login"}"#),
                PluginSpec(name: "typo", path: "libLoginGate.so", configJSON: #"{"credentials_file":"/nonexistent","logn_tab":"x"}"#),
                PluginSpec(name: "unreadable", path: "libLoginGate.so", configJSON: #"{"credentials_file":"/nonexistent/credentials"}"#),
            ])
            #expect(host.status("no-file")?.error?.contains("settings need credentials_file") == true)
            #expect(host.status("typo")?.error?.contains("unknown setting 'logn_tab'") == true)
            #expect(host.status("unreadable")?.error?.contains("cannot read credentials_file /nonexistent/credentials") == true)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
