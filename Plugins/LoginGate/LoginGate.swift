// LoginGate ("login-gate"): until a user logs in on a controller, a tap on any tab but the
// login tab is refused — the seeds' example of a delegate that vetoes selection.
//
// Settings:
//   login_tab:        the tab that stays reachable (default "login")
//   credentials_file: lines "user:hash" like /etc/shadow (`openssl passwd -6` makes a hash)
//   max_failures:     failed logins for a user before it is locked out (default 5)
//   lockout_seconds:  how long the lockout lasts (default 60)
//   failure_window_seconds: a user's failed logins are forgotten this long after the last
//                     one (default 900)
//   max_user_bytes:   longer user names are refused before anything else (default 64)
//   max_tracked_users: most user names whose failures are remembered (default 1024)
//   rate_burst:       failed logins one client uid may make back to back (default 5)
//   rate_interval_seconds: after the burst, one more every this many seconds (default 10)
//   max_tracked_peers: most client uids whose rate is remembered (default 1024)
//   max_hashes_per_second: password checks per second, all clients together (default 20;
//                     at most two back to back)
//   session_seconds:  how long a login lasts (default 28800, eight hours; 0: until logout;
//                     at most 315360000, ten years).
//                     An expired session is logged out with a logout event (reason "session
//                     expired"), on time, by a timer (plugin ABI 1.6).
//   drawers:          per side ("left", "right"), the tab controller on which someone must be
//                     logged in before a user opens a drawer on that side, or false: users
//                     open it freely (default {"left": "main", "right": "main"}; a side the
//                     object leaves out is free). Asked through may_open_drawer (plugin ABI
//                     1.10): only a user's open (a gesture), never an app's.
//
// Logins are kept in the plugin's store (plugin ABI 1.6), so they survive restarts and
// kill -9 (and an expiry that fell while tabd was down is logged out as it starts). A reload
// that replaces or removes the gate still logs everyone out, with an event. A controller that
// is deleted is logged out too, with an event (plugin ABI 1.7, controller_deleted), and its
// session key goes: a controller created again under its name, maybe by another client,
// starts logged out; init drops the sessions of controllers that no longer exist. A logout tabd
// cannot keep (its journal cannot be written) is refused and tells no one: the session goes
// on (an expired one is tried again every second).
//
// plugin.call methods: login {user, password} → {user}; logout → {user} (and the selection
// returns to the login tab); status → {logged_in, user, login_tab}; stats → the sizes of its
// tables and its counters.
// Events: {"event":"login","user":…} and {"event":"logout","user":…}.
//
// Hostile clients: a password check (SHA-512 crypt, about 2 ms) runs on tabd's only thread,
// so every check is paid for by every other client. Before any check, a login is refused
// (`denied`, reason "rate limited") when the calling uid (host.caller, ABI 1.1) has used its
// burst of failed logins, when the user is locked out, or when this tabd's budget of
// max_hashes_per_second checks (two at most back to back) is spent. Memory is bounded
// whatever clients send: names are short, and both tables have a size cap and entries that
// expire.

import CCrypt
import Glibc
import TabPolicy
import TabSystem

@_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(LoginGate.self) }

final class LoginGate: PolicyPlugin, ShouldSelectHook, CallHook, WillStopHook, ShutdownHook, TimerHook, ControllerDeletedHook,
                       MayOpenDrawerHook {
    static let name = "login-gate"
    static let version = "1.5.1"
    static let summary = "Refuses every tab but the login tab until a user logs in on the controller."

    let host: PolicyHost
    let loginTab: String
    let credentialsFile: String
    let maxFailures: Int
    let lockoutSeconds: Int
    let failureWindowSeconds: Int
    let maxUserBytes: Int
    let rateBurst: Int
    let rateIntervalSeconds: Int
    let hashesPerSecond: Int
    /// How long a login lasts, in seconds (0: until logout).
    let sessionSeconds: Int
    /// By side: the tab controller whose login lets a user open a drawer there (absent: free).
    let drawers: [String: String]
    /// The controller `drawers` names when the settings do not: tabd's default controller.
    static let defaultDrawerLogin = "main"

    /// The controller a tap last asked about, the store's generation then (plugin ABI 1.12;
    /// nil before), its session's text in the store and when that session ends (0: no end;
    /// nil: no session). A tap on the same controller while the generation has not moved
    /// reads nothing; else the text is read and compared, not trusted: tabd may have undone
    /// a write this instance made (its journal failed at the commit), or another instance
    /// written the store (a reload's will_stop), and both move the generation.
    private var lastAsked: LastAsked?
    /// A class: a tuple (or struct) of three strings in an optional was copied out through
    /// the runtime's generic witnesses on every tap (~330 instructions), where this is one
    /// retain.
    private final class LastAsked {
        let controller: String, generation: UInt64?, text: String?, until: Int?
        init(_ controller: String, _ generation: UInt64?, _ text: String?, _ until: Int?) {
            self.controller = controller
            self.generation = generation
            self.text = text
            self.until = until
        }
    }
    /// Failed logins by user name (also for unknown names, so they cannot be told apart).
    private var failures: ExpiringTable<String, Failures>
    /// Failed logins by client uid (nil: calls no client made, or a tabd without callers).
    private var peers: ExpiringTable<UInt32?, PeerRate>
    /// Password checks, all clients together.
    private var hashBudget: TokenBucket
    /// Whether the log has said that the hash budget is spent (once until a check runs again).
    private var hashBudgetAnnounced = false
    /// Controllers whose ended session could not be logged out yet (the log said so once).
    private var expiryRetries: Set<String> = []
    /// For `stats`.
    private var hashes = 0, rateLimited = 0, longNames = 0
    /// crypt_r's work area (about 32 KiB), made once.
    private let cryptData: UnsafeMutablePointer<crypt_data>

    struct Failures {
        var count: Int
        var lockedUntil: UInt64
    }

    struct PeerRate {
        var bucket: TokenBucket
        /// Whether the log has said that this uid is rate limited (once until it may try again).
        var announced = false
    }

    /// Every setting the gate reads: any other key is refused, naming these (tabd.yaml(5) and
    /// docs/plugins.md list them; ReferencePluginSettingsTests compares them with this refusal).
    static let settingKeys: Set<String> = [
        "login_tab", "credentials_file", "max_failures", "lockout_seconds", "failure_window_seconds",
        "max_user_bytes", "max_tracked_users", "rate_burst", "rate_interval_seconds", "max_tracked_peers",
        "max_hashes_per_second", "session_seconds", "drawers",
    ]

    init(settings: JSON, host: PolicyHost) throws {
        for key in (settings.objectValue ?? [:]).keys where !Self.settingKeys.contains(key) {
            throw PolicyError.invalid("unknown setting '\(key)' (known: \(Self.settingKeys.sorted().joined(separator: ", ")))")
        }
        self.host = host
        loginTab = try LoginGate.string(settings, "login_tab") ?? "login"
        guard let file = try LoginGate.string(settings, "credentials_file") else {
            throw PolicyError.invalid("settings need credentials_file: a file of \"user:hash\" lines (openssl passwd -6 makes a hash)")
        }
        credentialsFile = file
        maxFailures = try LoginGate.int(settings, "max_failures", least: 1) ?? 5
        lockoutSeconds = try LoginGate.int(settings, "lockout_seconds", least: 0) ?? 60
        failureWindowSeconds = try LoginGate.int(settings, "failure_window_seconds", least: 1) ?? 900
        maxUserBytes = try LoginGate.int(settings, "max_user_bytes", least: 1) ?? 64
        rateBurst = try LoginGate.int(settings, "rate_burst", least: 1) ?? 5
        rateIntervalSeconds = try LoginGate.int(settings, "rate_interval_seconds", least: 1) ?? 10
        failures = ExpiringTable(capacity: try LoginGate.int(settings, "max_tracked_users", least: 1) ?? 1024)
        peers = ExpiringTable(capacity: try LoginGate.int(settings, "max_tracked_peers", least: 1) ?? 1024)
        let hashesPerSecond = try LoginGate.int(settings, "max_hashes_per_second", least: 1) ?? 20
        // At most two checks back to back (about 4 ms of the loop), then one every 1/rate s.
        hashBudget = TokenBucket(capacity: min(2, hashesPerSecond), nanosecondsPerToken: 1e9 / Double(hashesPerSecond), now: LoginGate.now())
        self.hashesPerSecond = hashesPerSecond
        // A login's end must stay within the clock's range (a larger one crashed tabd at login).
        sessionSeconds = try LoginGate.int(settings, "session_seconds", least: 0, most: LoginGate.maxSessionSeconds) ?? 28800
        drawers = try LoginGate.drawers(settings)
        cryptData = .allocate(capacity: 1)
        UnsafeMutableRawPointer(cryptData).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        // Fail now, not at the first login, when the file cannot be read.
        let users = try readCredentials()
        if users.isEmpty {
            host.log(.warning, "\(credentialsFile) lists no user: nobody can log in")
        }
        var st = stat()
        if stat(credentialsFile, &st) == 0, st.st_mode & (S_IROTH | S_IWOTH) != 0 {
            host.log(.warning, "\(credentialsFile) is readable or writable by others; chmod o-rw it")
        }
        // The logins the last run kept: each one's expiry is watched again (one already past
        // is logged out as soon as tabd serves, with its event).
        // A session of a controller that no longer exists (deleted while no gate of ABI 1.7
        // ran) ends now: a controller created again under its name must start logged out.
        let controllers = host.has(\.controller_at) ? Set(host.controllers) : nil
        for key in host.storedKeys where key.hasPrefix(Session.keyPrefix) {
            let controller = String(key.dropFirst(Session.keyPrefix.count))
            if let controllers, !controllers.contains(controller) {
                if (try? host.store(nil, for: key)) != nil {
                    host.log(.info, "the session on controller '\(controller)' ended: the controller no longer exists")
                }
                continue
            }
            if let session = session(of: controller) { watch(session, controller: controller) }
        }
    }

    func shutdown() {
        cryptData.deallocate()
    }

    // MARK: The gate

    func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict {
        if isLoggedIn(controller.name) { return .allow }
        if !candidate.isMore, candidate.id == loginTab { return .allow }
        return .deny(reason: "not logged in", message: "login required before '\(candidate.id)' can be selected")
    }

    /// A user opens a drawer: refused while nobody is logged in on the controller its side
    /// names (`drawers`); a side it does not name opens freely.
    func mayOpenDrawer(_ open: DrawerOpen) -> Verdict {
        guard let login = drawers[open.side] else { return .allow }
        if isLoggedIn(login) { return .allow }
        return .deny(reason: "not logged in",
                     message: "login required on '\(login)' before the \(open.side) drawer of '\(open.controller)' can be opened")
    }

    /// Whether a session on `controller` admits taps: one past its end does not, even before
    /// its timer logs it out (a controller deleted and created again has no timer left).
    private func isLoggedIn(_ controller: String) -> Bool {
        let until: Int?
        let generation = host.storeGeneration
        if let last = lastAsked, last.controller == controller, generation != nil, last.generation == generation {
            until = last.until
        } else {
            let text = host.stored(Session.keyPrefix + controller)
            if let last = lastAsked, last.controller == controller, last.text == text {
                until = last.until
            } else {
                until = text.flatMap { Session(text: $0) }?.until
            }
            lastAsked = LastAsked(controller, generation, text, until)
        }
        guard let until else { return false }
        return until == 0 || until > LoginGate.wallClock()
    }

    // MARK: Sessions, in the store

    /// One login: who, and until when (wall-clock seconds since 1970; 0: no end), kept under
    /// "session/<controller>" as {"user":…,"until":…}.
    struct Session {
        static let keyPrefix = "session/"
        var user: String
        var until: Int

        init(user: String, until: Int) { self.user = user; self.until = until }

        /// The session a store value holds (nil: not one).
        init?(text: String) {
            guard let json = try? JSON(parsing: text), let user = json["user"]?.stringValue else { return nil }
            self.init(user: user, until: json["until"]?.intValue ?? 0)
        }
    }

    private func session(of controller: String) -> Session? {
        host.stored(Session.keyPrefix + controller).flatMap { Session(text: $0) }
    }

    /// Keeps the session (nil: removes it). Throws when tabd could not keep it.
    private func keep(_ session: Session?, controller: String) throws(StoreError) {
        lastAsked = nil
        let text = session.map { JSON.object(["user": .string($0.user), "until": .number(Double($0.until))]).text }
        try host.store(text, for: Session.keyPrefix + controller)
    }

    /// Arms the controller's "session" timer for the session's end (timers last at most a
    /// day: a longer wait is armed again when it fires).
    private func watch(_ session: Session, controller: String) {
        guard session.until > 0 else { return }
        let left = max(0.001, min(Double(session.until - LoginGate.wallClock()), 86_400))
        if !host.setTimer("session", after: left, controller: controller) {
            host.log(.warning, "cannot watch the session on controller '\(controller)' for its end (tabd refused the timer); it ends at the next logout")
        }
    }

    /// The "session" timer: the session ended (it is logged out, with an event), or it was
    /// armed a day ahead of a longer one (armed again).
    func timer(_ name: String, in controller: ControllerView?) {
        guard name == "session", let controller, let session = session(of: controller.name) else { return }
        if session.until > 0, session.until <= LoginGate.wallClock() {
            do throws(StoreError) { _ = try logout(controller, reason: "session expired") } catch {
                // tabd cannot write its journal now (it refuses every change meanwhile): the
                // session goes on until its logout can be kept, tried again every second.
                if expiryRetries.insert(controller.name).inserted {
                    host.log(.warning, "the session of '\(session.user)' on controller '\(controller.name)' ended, but its logout could not be kept (\(error.description)); tried again every second until it can")
                }
                _ = host.setTimer("session", after: 1, controller: controller.name)
            }
        } else {
            watch(session, controller: controller.name)
        }
    }

    /// Wall-clock seconds: a session's end must mean the same after a restart.
    static func wallClock() -> Int { Int(time(nil)) }

    // MARK: Methods

    func call(_ method: String, args: JSON, in controller: ControllerView) throws -> JSON {
        switch method {
        case "login": return try login(args, controller)
        case "logout":
            do throws(StoreError) { return try logout(controller) } catch {
                throw PolicyError.invalid("the logout could not be kept (\(error.description)); the session goes on: log out again once tabd's journal can be written")
            }
        case "status":
            let session = session(of: controller.name)
            return ["logged_in": .bool(session != nil), "user": JSON(session?.user), "login_tab": .string(loginTab),
                    "until": session.map { $0.until > 0 ? .number(Double($0.until)) : .null } ?? .null]
        case "stats":
            let now = LoginGate.now()
            return [
                "users_tracked": .number(Double(failures.count(now))), "peers_tracked": .number(Double(peers.count(now))),
                "hashes": .number(Double(hashes)), "rate_limited": .number(Double(rateLimited)),
                "long_names_refused": .number(Double(longNames)),
            ]
        default:
            throw PolicyError.unknownMethod(method)
        }
    }

    private func login(_ args: JSON, _ controller: ControllerView) throws -> JSON {
        guard let user = args["user"]?.stringValue, let password = args["password"]?.stringValue else {
            throw PolicyError.invalid("login needs {\"user\": \"…\", \"password\": \"…\"}")
        }
        // Before anything is looked up, counted or logged: no such user can exist.
        guard user.utf8.count <= maxUserBytes else {
            longNames += 1
            throw PolicyError.invalid("user names are at most \(maxUserBytes) bytes long (login-gate's max_user_bytes); this one has \(user.utf8.count)")
        }
        let caller = host.caller
        let by = caller.map { " by uid \($0.uid) (pid \($0.pid))" } ?? ""
        let now = LoginGate.now()

        // The caller's rate, then the user's lockout, then the budget of all: nothing below
        // reads the credentials file or hashes until all three allow it.
        var peer = peers.value(caller?.uid, now) ?? PeerRate(bucket: TokenBucket(
            capacity: rateBurst, nanosecondsPerToken: Double(rateIntervalSeconds) * 1e9, now: now))
        peer.bucket.refill(now)
        defer { peers.set(caller?.uid, peer, expiry: peer.bucket.fullAt, now) }
        guard peer.bucket.hasToken else {
            rateLimited += 1
            let wait = LoginGate.seconds(peer.bucket.wait)
            if !peer.announced {
                peer.announced = true
                host.log(.warning, "logins\(by) are refused for \(wait) s (rate limited): \(rateBurst) failed logins in a row, then one every \(rateIntervalSeconds) s")
            }
            throw PolicyError.denied("too many failed logins\(caller.map { " from uid \($0.uid)" } ?? ""); try again in \(wait) s", reason: "rate limited")
        }
        peer.announced = false
        if let f = failures.value(user, now), f.lockedUntil > now {
            rateLimited += 1
            peer.bucket.take()
            host.log(.warning, "login for '\(user)' on controller '\(controller.name)'\(by) refused: locked out after \(maxFailures) failed attempts")
            throw PolicyError.denied("too many failed logins for '\(user)'; try again in \(LoginGate.seconds(f.lockedUntil - now)) s", reason: "rate limited")
        }
        hashBudget.refill(now)
        guard hashBudget.hasToken else {
            rateLimited += 1
            if !hashBudgetAnnounced {
                hashBudgetAnnounced = true
                host.log(.warning, "logins are refused for a moment (rate limited): password checks are limited to \(hashesPerSecond) per second for all clients together (max_hashes_per_second)")
            }
            throw PolicyError.denied("too many logins on this server right now; try again in \(LoginGate.seconds(hashBudget.wait)) s", reason: "rate limited")
        }
        hashBudgetAnnounced = false
        hashBudget.take()

        let hash = try readCredentials()[user]
        hashes += 1
        guard verify(password, against: hash) else {
            peer.bucket.take()
            var f = failures.value(user, now) ?? Failures(count: 0, lockedUntil: 0)
            f.count += 1
            if f.count >= maxFailures {
                f = Failures(count: 0, lockedUntil: now + UInt64(lockoutSeconds) * 1_000_000_000)
                host.log(.warning, "failed login for '\(user)' on controller '\(controller.name)'\(by); locked out for \(lockoutSeconds) s")
            } else {
                host.log(.warning, "failed login for '\(user)' on controller '\(controller.name)' (\(f.count) of \(maxFailures))\(by)")
            }
            failures.set(user, f, expiry: f.count == 0 ? f.lockedUntil : now + UInt64(failureWindowSeconds) * 1_000_000_000, now)
            throw PolicyError.denied("wrong user name or password", reason: "bad credentials")
        }
        failures.remove(user)
        let session = Session(user: user, until: sessionSeconds == 0 ? 0 : LoginGate.wallClock() + sessionSeconds)
        do throws(StoreError) { try keep(session, controller: controller.name) } catch {
            throw PolicyError.invalid("the login could not be kept (\(error.description)); nobody is logged in")
        }
        watch(session, controller: controller.name)
        host.log(.info, "'\(user)' logged in on controller '\(controller.name)'\(by)")
        host.emit(["event": "login", "user": .string(user)], in: controller)
        return ["user": .string(user)]
    }

    /// A reload replaces this gate (its settings changed) or removes it: whoever is logged in
    /// on `controller` is logged out, and clients are told who and why.
    func willStop(in controller: ControllerView) {
        guard let user = session(of: controller.name)?.user else { return }
        do throws(StoreError) {
            _ = try logout(controller, reason: "reload: the login gate's settings changed or it was removed, so its logins end")
        } catch {
            host.log(.error, "the logout of '\(user)' on controller '\(controller.name)' could not be kept (\(error.description)); the session stays in the gate's store")
        }
    }

    /// The controller is being deleted: its session ends, with a logout event its subscribers
    /// get before the controller goes, and its key leaves the store, so that a controller
    /// created again under this name (by any client) starts logged out.
    func controllerDeleted(_ controller: ControllerView) {
        expiryRetries.remove(controller.name)
        guard let user = session(of: controller.name)?.user else { return }
        do throws(StoreError) {
            try keep(nil, controller: controller.name)
        } catch {
            // tabd refuses the delete itself while its journal cannot be written: not reached.
            host.log(.error, "the session of '\(user)' on deleted controller '\(controller.name)' could not be removed (\(error.description)); it ends at its timer or at the next start")
            return
        }
        host.log(.info, "'\(user)' logged out of controller '\(controller.name)' (controller deleted)")
        host.emit(["event": "logout", "user": .string(user), "reason": "controller deleted"], in: controller)
    }

    /// Ends the session on `controller` (with a logout event) and returns the selection to
    /// the login tab. Throws, changing nothing and telling no one, when tabd cannot keep the
    /// logout (its journal cannot be written): the session goes on.
    private func logout(_ controller: ControllerView, reason: String? = nil) throws(StoreError) -> JSON {
        let user = session(of: controller.name)?.user
        if let user {
            try keep(nil, controller: controller.name)
            expiryRetries.remove(controller.name)
            host.cancelTimer("session", controller: controller.name)
            host.log(.info, "'\(user)' logged out of controller '\(controller.name)'\(reason.map { " (\($0))" } ?? "")")
            var event: [String: JSON] = ["event": "logout", "user": .string(user)]
            if let reason { event["reason"] = .string(reason) }
            host.emit(.object(event), in: controller)
        }
        if controller.index(of: loginTab) != nil {
            if controller.selectedTab != loginTab { host.requestSelection(loginTab, in: controller) }
        } else {
            host.log(.warning, "controller '\(controller.name)' has no tab '\(loginTab)' to return to")
        }
        return ["user": JSON(user)]
    }

    // MARK: Credentials

    /// user → crypt(3) hash, read fresh (so users can be added without a reload).
    private func readCredentials() throws -> [String: String] {
        // Non-blocking and checked on its descriptor (a regular file of at most 16 MiB): this
        // runs on tabd's loop, where a FIFO in its place would stall every client.
        let bytes: [UInt8]
        do { bytes = try RegularFile.read(credentialsFile, what: "credentials_file", limit: 16 << 20) } catch {
            throw PolicyError.invalid(error.description)
        }
        var users: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self).trimmingNewline
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let fields = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, !fields[0].isEmpty else { continue }
            users[String(fields[0])] = String(fields[1])
        }
        return users
    }

    /// crypt_r with the stored hash as setting, compared in constant time. An unknown user
    /// or a locked hash ("!", "*") still costs one hash, so timing tells nothing.
    private func verify(_ password: String, against stored: String?) -> Bool {
        let usable = stored.map { $0.hasPrefix("$") } ?? false
        let setting = usable ? stored! : "$6$tabdlogingate$"
        guard let out = crypt_r(password, setting, cryptData) else { return false }
        let computed = Array(String(cString: out).utf8)
        guard usable, let expected = stored.map({ Array($0.utf8) }), !computed.starts(with: Array("*".utf8)) else { return false }
        var difference = UInt8(computed.count == expected.count ? 0 : 1)
        for i in 0..<min(computed.count, expected.count) { difference |= computed[i] ^ expected[i] }
        return difference == 0
    }

    // MARK: Helpers

    private static func string(_ settings: JSON, _ key: String) throws -> String? {
        guard let v = settings[key], !v.isNull else { return nil }
        guard let s = v.stringValue, !s.isEmpty else { throw PolicyError.invalid("\(key) must be a non-empty string") }
        return s
    }

    private static func int(_ settings: JSON, _ key: String, least: Int, most: Int? = nil) throws -> Int? {
        guard let v = settings[key], !v.isNull else { return nil }
        guard let n = v.intValue, n >= least, n <= most ?? .max else {
            throw PolicyError.invalid("\(key) must be a whole number " + (most.map { "from \(least) to \($0)" } ?? "of at least \(least)"))
        }
        return n
    }

    /// The `drawers` setting: an object of "left" and "right", each a controller name or false.
    private static func drawers(_ settings: JSON) throws -> [String: String] {
        guard let v = settings["drawers"], !v.isNull else { return ["left": defaultDrawerLogin, "right": defaultDrawerLogin] }
        guard let sides = v.objectValue else {
            throw PolicyError.invalid("drawers must be an object of sides, e.g. {\"left\": \"main\", \"right\": false}")
        }
        var out: [String: String] = [:]
        for (side, value) in sides {
            guard side == "left" || side == "right" else {
                throw PolicyError.invalid("drawers: unknown side '\(side)' (known: left, right)")
            }
            if value.boolValue == false { continue }
            guard let name = value.stringValue, !name.isEmpty else {
                throw PolicyError.invalid("drawers.\(side) must be the name of the controller a user logs in on, or false (no login needed)")
            }
            out[side] = name
        }
        return out
    }

    /// The longest session_seconds: ten years.
    static let maxSessionSeconds = 315_360_000

    /// The monotonic clock, in nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Whole seconds for people, rounded up (a wait is never "0 s").
    static func seconds(_ nanoseconds: UInt64) -> UInt64 { max(1, (nanoseconds + 999_999_999) / 1_000_000_000) }
}

/// A dictionary of at most `capacity` entries that forget themselves: an entry is gone once its
/// expiry has passed, and adding to a full table drops the expired entries first, then the one
/// set longest ago.
struct ExpiringTable<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, expiry: UInt64, set: UInt64)] = [:]
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The live entries.
    func count(_ now: UInt64) -> Int { entries.values.count { $0.expiry > now } }

    /// The value under `key`, unless it has expired (then it is dropped).
    mutating func value(_ key: Key, _ now: UInt64) -> Value? {
        guard let e = entries[key] else { return nil }
        guard e.expiry > now else { entries[key] = nil; return nil }
        return e.value
    }

    mutating func set(_ key: Key, _ value: Value, expiry: UInt64, _ now: UInt64) {
        guard expiry > now else { entries[key] = nil; return }
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.expiry > now }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.set < $1.value.set }) {
                entries[oldest.key] = nil
            }
        }
        entries[key] = (value, expiry, now)
    }

    mutating func remove(_ key: Key) { entries[key] = nil }
}

/// Up to `capacity` tokens, one more every `nanosecondsPerToken`.
struct TokenBucket {
    let capacity: Double
    let nanosecondsPerToken: Double
    private(set) var tokens: Double
    private(set) var updated: UInt64

    init(capacity: Int, nanosecondsPerToken: Double, now: UInt64) {
        self.capacity = Double(capacity)
        self.nanosecondsPerToken = nanosecondsPerToken
        tokens = Double(capacity)
        updated = now
    }

    mutating func refill(_ now: UInt64) {
        guard now > updated else { return }
        tokens = min(capacity, tokens + Double(now - updated) / nanosecondsPerToken)
        updated = now
    }

    var hasToken: Bool { tokens >= 1 }
    mutating func take() { tokens -= 1 }
    /// Nanoseconds until there is a token.
    var wait: UInt64 { tokens >= 1 ? 0 : UInt64(((1 - tokens) * nanosecondsPerToken).rounded(.up)) }
    /// When it is full again — as good as a new one, so it need not be kept.
    var fullAt: UInt64 { updated + UInt64(((capacity - tokens) * nanosecondsPerToken).rounded(.up)) }
}

private extension String {
    var trimmingNewline: String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == "\r\n" { s = s.dropLast() }
        return String(s)
    }
}
