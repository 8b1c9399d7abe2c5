// LoginGate against a hostile client (issue 13): a flood of failed logins with huge user names
// leaves tabd's memory where it was and other clients served; failed logins are limited per
// client uid, before any password check.

import Foundation
import Glibc
import TabProtocol
import Testing

/// tabd's resident memory in kB (VmRSS of /proc/<pid>/status).
func residentKilobytes(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else {
        throw TestFailure("no VmRSS in /proc/\(pid)/status")
    }
    return kB
}

/// A login request line with a wrong password.
private func failedLogin(_ user: String) -> String {
    #"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"\#(user)","password":"wrong"}}"#
}

@Suite struct LoginGateAbuseTests {
    /// One client sends 100 failed logins with ~1 MB user names, each followed by one with a
    /// short unknown name (default settings). tabd's RSS stays within 40 MB of where it was
    /// (it kept every name before: +100 MB and more), the long names are refused as such, the
    /// short ones are rate limited after the burst, and another client's pings are answered
    /// all along.
    @Test func floodOfHugeNamesLeavesMemoryBoundedAndPingsAnswered() throws {
        let dir = temporaryDirectory("flood")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        let attacker = try tabd.client()
        let pinger = try tabd.client()
        // Warm up (a first long line, a first password check), then the baseline.
        let padding = String(repeating: "x", count: 1_000_000)
        _ = try attacker.request(failedLogin("warm-up" + padding))
        _ = try attacker.request(failedLogin("warm-up"))
        _ = try pinger.ok(#"{"cmd":"ping"}"#)
        let before = try residentKilobytes(tabd.pid)

        final class Outcome: @unchecked Sendable {
            let lock = NSLock()
            var codes: [String] = []
            var reasons: [String] = []
            var done = false
            var failure: String?
        }
        let outcome = Outcome()
        nonisolated(unsafe) let flooder = attacker  // the thread's alone from here on
        let flood = Thread {
            defer { outcome.lock.lock(); outcome.done = true; outcome.lock.unlock() }
            do {
                for i in 0..<100 {
                    let long = try flooder.request(failedLogin("mallory-\(i)-" + padding))
                    let short = try flooder.request(failedLogin("mallory-\(i)"))
                    outcome.lock.lock()
                    outcome.codes.append(long.object("error")?.string("code") ?? "none")
                    outcome.reasons.append(short.object("error")?.string("reason") ?? "none")
                    outcome.lock.unlock()
                }
            } catch {
                outcome.lock.lock(); outcome.failure = "\(error)"; outcome.lock.unlock()
            }
        }
        let start = Date()
        flood.start()
        var pings = 0
        while true {
            outcome.lock.lock()
            let done = outcome.done
            outcome.lock.unlock()
            if done { break }
            _ = try pinger.ok(#"{"cmd":"ping"}"#)
            pings += 1
            usleep(5_000)
        }
        let after = try residentKilobytes(tabd.pid)
        let seconds = Date().timeIntervalSince(start)

        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.codes == Array(repeating: "invalid_request", count: 100), "long names are refused as such")
        // Passwords were checked for the burst of 5 (the warm-up and at most four short
        // names) and one more every 10 s; every other short name was refused unchecked.
        #expect(outcome.reasons.first == "bad credentials")
        #expect(outcome.reasons.allSatisfy { $0 == "rate limited" || $0 == "bad credentials" }, "\(outcome.reasons)")
        let checked = outcome.reasons.filter { $0 == "bad credentials" }.count
        #expect(checked <= 4 + Int(seconds / 10) + 1, "\(outcome.reasons) in \(seconds) s")
        #expect(after - before < 40_000, "VmRSS went from \(before) kB to \(after) kB during the flood")
        #expect(pings >= 10, "another client's pings were answered throughout the flood (\(pings))")
        _ = try pinger.ok(#"{"cmd":"ping"}"#)
        #expect(!tabd.log.contains(padding.prefix(1000)), "huge names never reach the log")
    }

    /// The burst of failed logins is per client uid: root's sixth is refused (rate limited,
    /// saying when to try again, and logged once with uid and pid) while uid 65534's first
    /// is an ordinary wrong password.
    @Test func failedLoginsAreLimitedPerUid() throws {
        let dir = temporaryDirectory("peer")
        chmod(dir, 0o755)
        let config = "socket_mode: \"0666\"\n" + Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir)))
        let tabd = try TabdProcess(config: config, dir: dir)
        let root = try tabd.client()
        for i in 0..<5 {
            #expect(try root.error(failedLogin("guess-\(i)")).string("reason") == "bad credentials")
            usleep(120_000)  // not more than two password checks back to back (max_hashes_per_second)
        }
        for user in ["guess-5", "demo"] {
            let limited = try root.error(failedLogin(user))
            #expect(limited.string("code") == "denied")
            #expect(limited.string("plugin") == "login-gate")
            #expect(limited.string("reason") == "rate limited")
            // One more every 10 s (rate_interval_seconds): the wait is at most that.
            let message = limited.string("message") ?? ""
            let wait = Int(message.replacingOccurrences(of: "too many failed logins from uid 0; try again in ", with: "").dropLast(2)) ?? 0
            #expect(message.hasSuffix(" s") && (1...10).contains(wait), "\(message)")
        }
        let other = try AccessTests.asOtherUser(tabd.socket, [failedLogin("guess-6")])
        #expect(other.first?.object("error")?.string("reason") == "bad credentials", "\(other)")
        let refusals = tabd.log.components(separatedBy: "logins by uid 0 (pid \(getpid())) are refused for").count - 1
        #expect(refusals == 1, "one log line for the rate-limited client: \(tabd.log)")
        #expect(tabd.log.contains("failed login for 'guess-6' on controller 'main' (1 of 5) by uid 65534"))
    }
}
