// LoginGate ("login-gate"): until a user logs in on a controller, a tap on any tab but the
// login tab is refused — the seeds' example of a delegate that vetoes selection.
//
// Settings:
//   login_tab:        the tab that stays reachable (default "login")
//   credentials_file: lines "user:hash" like /etc/shadow (`openssl passwd -6` makes a hash)
//   max_failures:     failed logins for a user before it is locked out (default 5)
//   lockout_seconds:  how long the lockout lasts (default 60)
//
// plugin.call methods: login {user, password} → {user}; logout → {user} (and the selection
// returns to the login tab); status → {logged_in, user, login_tab}.
// Events: {"event":"login","user":…} and {"event":"logout","user":…}.

import CCrypt
import Glibc
import TabPolicy

@_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(LoginGate.self) }

final class LoginGate: PolicyPlugin {
    static let name = "login-gate"
    static let version = "1.0.0"
    static let summary = "Refuses every tab but the login tab until a user logs in on the controller."
    static let hooks: PolicyHooks = [.shouldSelect, .call]

    let host: PolicyHost
    let loginTab: String
    let credentialsFile: String
    let maxFailures: Int
    let lockoutSeconds: Int

    /// Who is logged in, by controller name.
    private var sessions: [String: String] = [:]
    /// Failed logins by user name (also for unknown names, so they cannot be told apart).
    private var failures: [String: (count: Int, lockedUntil: UInt64)] = [:]
    /// crypt_r's work area (about 32 KiB), made once.
    private let cryptData: UnsafeMutablePointer<crypt_data>

    init(settings: JSON, host: PolicyHost) throws {
        let known: Set<String> = ["login_tab", "credentials_file", "max_failures", "lockout_seconds"]
        for key in (settings.objectValue ?? [:]).keys where !known.contains(key) {
            throw PolicyError.invalid("unknown setting '\(key)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        self.host = host
        loginTab = try LoginGate.string(settings, "login_tab") ?? "login"
        guard let file = try LoginGate.string(settings, "credentials_file") else {
            throw PolicyError.invalid("settings need credentials_file: a file of \"user:hash\" lines (openssl passwd -6 makes a hash)")
        }
        credentialsFile = file
        maxFailures = try LoginGate.int(settings, "max_failures", least: 1) ?? 5
        lockoutSeconds = try LoginGate.int(settings, "lockout_seconds", least: 0) ?? 60
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
    }

    func shutdown() {
        cryptData.deallocate()
    }

    // MARK: The gate

    func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict {
        if sessions[controller.name] != nil { return .allow }
        if !candidate.isMore, candidate.id == loginTab { return .allow }
        return .deny(reason: "not logged in", message: "login required before '\(candidate.id)' can be selected")
    }

    // MARK: Methods

    func call(_ method: String, args: JSON, in controller: ControllerView) throws -> JSON {
        switch method {
        case "login": return try login(args, controller)
        case "logout": return logout(controller)
        case "status":
            let user = sessions[controller.name]
            return ["logged_in": .bool(user != nil), "user": JSON(user), "login_tab": .string(loginTab)]
        default:
            throw PolicyError.unknownMethod(method)
        }
    }

    private func login(_ args: JSON, _ controller: ControllerView) throws -> JSON {
        guard let user = args["user"]?.stringValue, let password = args["password"]?.stringValue else {
            throw PolicyError.invalid("login needs {\"user\": \"…\", \"password\": \"…\"}")
        }
        let now = LoginGate.monotonicSeconds()
        if let f = failures[user], f.lockedUntil > now {
            host.log(.warning, "login for '\(user)' on controller '\(controller.name)' refused: locked out after \(maxFailures) failed attempts")
            throw PolicyError.denied("too many failed logins for '\(user)'; try again in \(f.lockedUntil - now) s", reason: "rate limited")
        }
        let hash = try readCredentials()[user]
        guard verify(password, against: hash) else {
            var f = failures[user] ?? (0, 0)
            f.count += 1
            if f.count >= maxFailures {
                f = (0, now + UInt64(lockoutSeconds))
                host.log(.warning, "failed login for '\(user)' on controller '\(controller.name)'; locked out for \(lockoutSeconds) s")
            } else {
                host.log(.warning, "failed login for '\(user)' on controller '\(controller.name)' (\(f.count) of \(maxFailures))")
            }
            failures[user] = f
            throw PolicyError.denied("wrong user name or password", reason: "bad credentials")
        }
        failures[user] = nil
        sessions[controller.name] = user
        host.log(.info, "'\(user)' logged in on controller '\(controller.name)'")
        host.emit(["event": "login", "user": .string(user)], in: controller)
        return ["user": .string(user)]
    }

    private func logout(_ controller: ControllerView) -> JSON {
        let user = sessions.removeValue(forKey: controller.name)
        if let user {
            host.log(.info, "'\(user)' logged out of controller '\(controller.name)'")
            host.emit(["event": "logout", "user": .string(user)], in: controller)
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
        guard let f = fopen(credentialsFile, "r") else {
            throw PolicyError.invalid("cannot read credentials_file \(credentialsFile): \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var users: [String: String] = [:]
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, f) > 0, let line {
            let text = String(cString: line).trimmingNewline
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

    private static func int(_ settings: JSON, _ key: String, least: Int) throws -> Int? {
        guard let v = settings[key], !v.isNull else { return nil }
        guard let n = v.intValue, n >= least else { throw PolicyError.invalid("\(key) must be a whole number of at least \(least)") }
        return n
    }

    private static func monotonicSeconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec)
    }
}

private extension String {
    var trimmingNewline: String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == "\r\n" { s = s.dropLast() }
        return String(s)
    }
}
