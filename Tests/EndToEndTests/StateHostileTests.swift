// Hostile state directories and the redo path of a turn whose commit failed, end to end:
// a state file that is a FIFO or a huge sparse file must give one sentence (or a start),
// never a hang or a crash; a turn that is redone after a storage fault must answer as if it
// ran once (plugin.call is not run twice) and must not lose replies that are not lines.

import Foundation
import TabJSON
import Testing
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct StateHostileTests {
    /// Starts tabd on `t`'s directory and waits up to `timeout` s for it either to serve or
    /// to exit. Returns nil when it serves, else its exit status and log. A tabd still
    /// running without serving after `timeout` is killed and reported as a hang.
    static func startOutcome(_ t: TabdProcess, timeout: Double = 60) throws -> (status: Int32, log: String)? {
        try t.start(waitForSocket: false)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let c = try? LineClient(path: t.socket), (try? c.request(#"{"cmd":"ping"}"#)) != nil { return nil }
            if t.process?.isRunning != true { break }
            usleep(20_000)
        }
        if t.process?.isRunning == true {
            t.stop(signal: SIGKILL)
            throw TestFailure("tabd neither served nor exited within \(timeout) s (it hangs): \(t.log)")
        }
        let status = t.stop()
        return (status, t.log)
    }

    /// A state file that is a FIFO (snapshot or journal): open(2) for reading blocks until a
    /// writer comes, so tabd hangs at start without a word (systemd: start timeout, loop).
    @Test(arguments: ["snapshot", "journal-0.log"])
    func aStateFileThatIsAFIFOIsRefusedInOneSentenceNotAHang(name: String) throws {
        let t = try TabdProcess(config: "fsync: always\n")
        try t.client().ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"}]}"#)
        t.stop()
        for f in try FileManager.default.contentsOfDirectory(atPath: t.stateDir) where f != "lock" {
            unlink(t.stateDir + "/" + f)
        }
        #expect(mkfifo(t.stateDir + "/" + name, 0o640) == 0)
        let outcome = try Self.startOutcome(t)
        let refused = try #require(outcome, "tabd served with a FIFO as \(name)")
        #expect(refused.status == 1)
        let sentence = refused.log.split(separator: "\n").last(where: { $0.contains("cannot start") }).map(String.init) ?? ""
        #expect(sentence.contains(t.stateDir + "/" + name), "the refusal names the file: \(refused.log)")
    }

    /// A journal that is a huge sparse file (its zeros look like space allocated ahead): tabd
    /// reads the whole file into memory and dies with a Swift allocation failure and a
    /// backtrace. It must start, or refuse in one sentence — never crash.
    @Test func aHugeSparseJournalIsNotACrash() throws {
        let t = try TabdProcess(config: "fsync: always\n")
        try t.client().ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        t.stop()
        let journal = try StateDirectoryTests.journal(t)
        #expect(truncate(journal, 200 << 30) == 0)
        if let failed = try Self.startOutcome(t) {
            #expect(failed.status == 1, "tabd crashed (status \(failed.status)): \(failed.log.prefix(300))")
            #expect(!failed.log.contains("Fatal error"), "\(failed.log.prefix(300))")
            #expect(failed.log.contains("tabd cannot start:") && failed.log.contains(journal))
        }
    }

    /// A too long line in a turn whose commit fails: the `too_large` error is not a line of
    /// the turn, so the redo does not produce it again — the client's connection just closes.
    @Test func aLineTooLongInAFailedTurnIsStillAnswered() throws {
        let (dir, faultFile, env) = faultInjection("hostile")
        let t = try TabdProcess(config: "limits:\n  max_line_bytes: 1024\n", dir: dir, environment: env)
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        defer { unlink(faultFile) }
        // One write: a change (its commit fails) and then a line over the limit.
        try c.write(#"{"id":1,"cmd":"select","tab":"b"}"# + "\n" + String(repeating: "x", count: 3000))
        let first = try object(try #require(try c.readLine(), "no reply to the select"))
        #expect(first.object("error")?.string("code") == "unavailable")
        let second = try c.readLine()
        #expect(second.map { (try? object($0))?.object("error")?.string("code") } == "too_large",
                "expected the too_large error before the connection closed, got \(second ?? "end of stream")")
    }

    /// A plugin's events sent again by a redone turn (its plugin.call is not run twice) go as
    /// a step's events do: the last one a subscriber gets marked `"last":true`, or all of them
    /// as one line to a grouped subscriber.
    @Test func aRedoneTurnsPluginEventsAreMarkedAndGroupedAsAnyStepsAre() throws {
        let (dir, faultFile, env) = faultInjection("redomark")
        try Plugins.build(Plugins.fixture("output.c"), "output.so", in: dir)
        let t = try TabdProcess(config: Plugins.config("    - path: output.so\n", extraDirectory: dir), dir: dir, environment: env)
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let plain = try t.client(), grouped = try t.client()
        try plain.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try grouped.ok(#"{"cmd":"subscribe","events":["plugin"],"grouped":true}"#)
        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        // One write, one turn: a change whose commit fails, and a call whose event is sent again.
        try c.write(#"{"cmd":"badge","tab":"a","value":"1"}"# + "\n" + #"{"cmd":"plugin.call","plugin":"output","method":"emit"}"# + "\n")
        #expect(try object(try #require(try c.readLine())).object("error")?.string("code") == "unavailable")
        #expect(try object(try #require(try c.readLine())).bool("ok") == true)
        unlink(faultFile)
        let events = try EventUnitTests.drain(plain)  // what it got before its own ping's reply
        #expect(events.count == 1 && events.last?.bool("last") == true, "\(events.map { JSONValue.object($0).jsonString })")
        let batch = try EventUnitTests.drain(grouped)
        guard batch.count == 1, case .array(let inside)? = batch[0]["events"] else {
            Issue.record("a grouped subscriber got \(batch.map { JSONValue.object($0).jsonString })")
            return
        }
        #expect(inside.count == 1)
    }

    /// The login gate's plugin.call in a turn whose commit fails is not run twice (a logout
    /// would answer `{"user":null}`, the first run having logged the user out): its answer is
    /// `unavailable`, and what it wrote to the gate's store is undone (answered ok, it came
    /// back as a login after kill -9: PluginPlatformTests), so its `logout` event is not sent
    /// and the user is still logged in, as the reply says (issue 43).
    @Test func aLogoutInAFailedTurnIsUndoneAndSaysSo() throws {
        let (dir, faultFile, env) = faultInjection("hostile")
        let gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir))
        let t = try TabdProcess(config: Plugins.config(gate), dir: dir, environment: env)
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"}]}"#)
        try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        try c.ok(#"{"cmd":"select","tab":"home"}"#)
        let watcher = try t.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)

        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        defer { unlink(faultFile) }
        try c.write(#"{"cmd":"badge","tab":"home","value":"1"}"# + "\n"
            + #"{"cmd":"plugin.call","plugin":"login-gate","method":"logout"}"# + "\n")
        let badge = try object(try #require(try c.readLine()))
        #expect(badge.object("error")?.string("code") == "unavailable")
        let logout = try object(try #require(try c.readLine()))
        #expect(logout.object("error")?.string("code") == "unavailable"
                && logout.object("error")?.string("message")?.contains("plugin 'login-gate' wrote to its store for this request was undone") == true,
                "logout answered \(JSONValue.object(logout).jsonString)")
        // Events come before the watcher's own ping reply.
        try watcher.write(#"{"cmd":"ping","id":"p"}"# + "\n")
        var events: [String] = []
        while let line = try watcher.readLine() {
            let o = try object(line)
            if o.string("id") == "p" { break }
            if let e = o.object("data")?.object("data")?.string("event") ?? o.object("data")?.string("event") { events.append(e) }
            else { events.append(line) }
        }
        #expect(!events.contains("logout"), "the watcher saw \(events)")
        let status = try c.ok(#"{"cmd":"plugin.call","plugin":"login-gate","method":"status"}"#).object("value")
        #expect(status?.bool("logged_in") == true, "the logout was undone: \(String(describing: status))")
    }

    /// A failed login in a turn whose commit fails counts twice: the gate locks the user out
    /// after fewer attempts than max_failures.
    @Test func aFailedLoginInAFailedTurnCountsOnce() throws {
        let (dir, faultFile, env) = faultInjection("hostile")
        let gate = Plugins.loginGate(credentials: try Plugins.credentials(in: dir), extra: ", max_failures: 3, lockout_seconds: 60")
        let t = try TabdProcess(config: Plugins.config(gate), dir: dir, environment: env)
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"}]}"#)

        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        try c.write(#"{"cmd":"badge","tab":"login","value":"1"}"# + "\n"
            + #"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"wrong"}}"# + "\n")
        #expect(try object(try #require(try c.readLine())).object("error")?.string("code") == "unavailable")
        #expect(try object(try #require(try c.readLine())).object("error")?.string("code") == "denied")
        unlink(faultFile)
        try StorageFaultTests.waitUntilHealthy(c)

        // Second wrong attempt: 2 of 3. The right password must still work.
        #expect(try c.error(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"wrong"}}"#).string("code") == "denied")
        let right = try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        #expect(right.bool("ok") == true, "locked out after two wrong passwords (max_failures 3): \(JSONValue.object(right).jsonString)")
    }

    /// A reload in a turn whose commit fails is not run again in the redo (its reply is sent
    /// as it was), but the undo puts back each controller the turn changed as it was before
    /// — with the orientations the plugins loaded then decided for it. The redo asks the
    /// plugins loaded now: `state` shows what they decide, not what the old ones did.
    @Test func aReloadInAFailedTurnLeavesOrientationsAsTheNewPluginsDecide() throws {
        let (dir, faultFile, env) = faultInjection("hostile")
        func config(_ orientations: String) -> String {
            Plugins.config("""
                    - path: libOrientationRules.so
                      settings:
                        rules: [{tab: "*", orientations: \(orientations)}]

                """)
        }
        func supported(_ c: LineClient) throws -> [String]? {
            try c.ok(#"{"cmd":"state"}"#).object("orientation")?.strings("supported")
        }
        let t = try TabdProcess(config: config("[portrait]"), dir: dir, environment: env)
        let c = try t.client()
        let all = #"["portrait","landscape_left","landscape_right"]"#
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home","orientations":"# + all + #"},{"id":"video","orientations":"# + all + "}]}")
        #expect(try supported(c) == ["portrait"])

        try config("[portrait, landscape_left]").write(toFile: t.configPath, atomically: true, encoding: .utf8)
        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        try c.write(#"{"cmd":"badge","tab":"home","value":"1"}"# + "\n" + #"{"cmd":"reload"}"# + "\n")
        #expect(try object(try #require(try c.readLine())).object("error")?.string("code") == "unavailable")
        let reload = try object(try #require(try c.readLine()))
        #expect(reload.bool("ok") == true, "reload answered \(JSONValue.object(reload).jsonString)")
        // Reads answer while the journal cannot be written: the new rules already.
        #expect(try supported(c) == ["portrait", "landscape_left"])
        unlink(faultFile)
        try StorageFaultTests.waitUntilHealthy(c)
        #expect(try supported(c) == ["portrait", "landscape_left"])
    }

}
