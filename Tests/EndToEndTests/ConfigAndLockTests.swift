// Configuration numbers checked at start and at reload (a bad uid is a sentence, never a
// crash), admin_gids matching supplementary groups, and one tabd per state directory.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct ConfigAndLockTests {
    /// Runs tabd with `arguments` until it exits (killed after `timeout` seconds: a tabd that
    /// should have refused to start and serves instead fails the test with status 128+9).
    static func runTabd(_ arguments: [String], timeout: Double = 60) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.tabd)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = err
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        let output = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus, output)
    }

    /// Sends `lines` as uid/gid 65534 with exactly the supplementary groups `groups` (none
    /// when empty) and returns the replies.
    static func asOtherUser(_ socket: String, groups: [gid_t], _ lines: [String]) throws -> [JSONObject] {
        let groupOption = groups.isEmpty ? "--clear-groups" : "--groups=\(groups.map(String.init).joined(separator: ","))"
        let (status, output) = try shell(
            "setpriv --reuid=\(AccessTests.otherUID) --regid=\(AccessTests.otherUID) \(groupOption) socat -t 5 - UNIX-CONNECT:\(socket)",
            input: lines.map { $0 + "\n" }.joined())
        guard status == 0 else { throw TestFailure("socat as uid \(AccessTests.otherUID) with groups \(groups) failed (\(status)): \(output)") }
        return try output.split(separator: "\n").map { try object(String($0)) }
    }

    static func text(_ replies: [JSONObject]) -> String { replies.map { JSONValue.object($0).jsonString }.joined(separator: "\n") }

    /// On a Swift runtime that lays strings out otherwise than this build expects (simulated:
    /// TABD_TEST_STRING_LAYOUT=other), tabd refuses to start before anything else, in one
    /// line, with the exit status the table gives: no state directory, no socket.
    @Test func anotherStringLayoutIsRefusedAtStart() throws {
        let dir = temporaryDirectory("lay")
        let r = try shell("TABD_TEST_STRING_LAYOUT=other \(Build.tabd) --socket \(dir)/s --state-dir \(dir)/state 2>&1")
        #expect(r.status == TabdExit.failed.code)
        let lines = withoutTimestamps(r.output).split(separator: "\n")
        #expect(lines == ["critical: tabd cannot start: this Swift runtime lays out String otherwise than this build expects (SmallASCII: a small ASCII string as its bytes and 0xE0 | its length in 16 bytes); build tabd with the Swift toolchain whose runtime it runs with"], "\(r.output)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/state") && !FileManager.default.fileExists(atPath: dir + "/s"))
        // An isolated plugin's helper process (tabd itself) checks the same, first.
        let helper = try shell("TABD_TEST_STRING_LAYOUT=other \(Build.tabd) --plugin-host 2>&1")
        #expect(helper.status == TabdExit.failed.code && helper.output.contains("tabd cannot start: this Swift runtime"), "\(helper.output)")
        // Without the simulation, the same command line starts (and stops on SIGTERM).
        let ok = try shell("timeout -s TERM 1 \(Build.tabd) --socket \(dir)/s --state-dir \(dir)/state 2>&1")
        #expect(ok.output.contains("tabd ready"), "\(ok.output)")
    }

    /// Every file of a directory and its bytes.
    static func contents(of dir: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            result[name] = FileManager.default.contents(atPath: dir + "/" + name) ?? Data()
        }
        return result
    }

    static let uidSentence = "access.admin_uids[0] must be a uid from 0 to 4294967294 (got -1)"

    // MARK: (a) at start

    @Test func refusesToStartWithAnOutOfRangeUID() throws {
        let dir = temporaryDirectory("cfg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "access:\n  admin_uids: [-1]\n".write(toFile: dir + "/tabd.yaml", atomically: true, encoding: .utf8)
        let (status, stderr) = try Self.runTabd(["--config", dir + "/tabd.yaml", "--socket", dir + "/tabd.sock", "--state-dir", dir + "/state"])
        #expect(status == 78, "EX_CONFIG: \(status): \(stderr)")
        #expect(withoutTimestamps(stderr) == "critical: tabd cannot start: \(dir)/tabd.yaml:2:16: \(Self.uidSentence)\n", "\(stderr)")
        // Refused before anything was made: no socket, no state directory.
        #expect(!FileManager.default.fileExists(atPath: dir + "/tabd.sock"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/state"))
        // --check-config says the same.
        let check = try Self.runTabd(["--check-config", "--config", dir + "/tabd.yaml"])
        #expect(check.status == 78)
        #expect(check.stderr == "\(dir)/tabd.yaml:2:16: error: \(Self.uidSentence)\ntabd: the configuration is not valid: 1 error\n", "\(check.stderr)")
    }

    @Test func refusesToStartWithAnOutOfRangeLimit() throws {
        let dir = temporaryDirectory("cfg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "limits:\n  max_connections: 0\n".write(toFile: dir + "/tabd.yaml", atomically: true, encoding: .utf8)
        let (status, stderr) = try Self.runTabd(["--config", dir + "/tabd.yaml", "--socket", dir + "/tabd.sock", "--state-dir", dir + "/state"])
        #expect(status == 78, "\(status): \(stderr)")
        #expect(stderr.contains("tabd.yaml:2:20: limits.max_connections must be an integer from 1 to 1048576 (got 0)"), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
    }

    // MARK: (b) at reload

    /// A tabd whose admin_uids is [65534] (so the other user's controller.delete shows which
    /// configuration is running), reachable by that user.
    static func reloadableTabd() throws -> TabdProcess {
        try AccessTests.openTabd("access:\n  admin_uids: [\(AccessTests.otherUID)]\n")
    }

    /// Whether uid 65534 (with no supplementary group) may delete a controller it creates.
    static func otherUserIsAdmin(_ tabd: TabdProcess) throws -> Bool {
        let name = "k\(UInt32.random(in: 0...UInt32.max))"
        let replies = try asOtherUser(tabd.socket, groups: [], [
            #"{"cmd":"controller.create","controller":"\#(name)"}"#,
            #"{"cmd":"controller.delete","controller":"\#(name)"}"#,
        ])
        guard replies.count == 2, replies[0].bool("ok") == true else { throw TestFailure("unexpected: \(text(replies))") }
        if replies[1].bool("ok") == true { return true }
        guard replies[1].object("error")?.string("code") == "forbidden" else { throw TestFailure("unexpected: \(text(replies))") }
        // Deleted by root, so that every probe starts from the same controllers.
        try tabd.client().ok(#"{"cmd":"controller.delete","controller":"\#(name)"}"#)
        return false
    }

    @Test func reloadCommandWithAnOutOfRangeUIDKeepsTheRunningConfig() throws {
        let tabd = try Self.reloadableTabd()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        let before = try c.request(#"{"cmd":"state"}"#)
        #expect(try Self.otherUserIsAdmin(tabd))

        try "socket_mode: \"0666\"\naccess:\n  admin_uids: [-1]\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        let error = try c.error(#"{"cmd":"reload","id":7}"#)
        let message = error.string("message") ?? ""
        #expect(error.string("code") == "config_invalid")
        #expect(message.contains("nothing changed and the running configuration stays"), "\(message)")
        #expect(error.strings("problems")?.count == 1 && error.strings("problems")?.first?.hasSuffix(Self.uidSentence) == true, "\(JSONValue.object(error).jsonString)")
        #expect(!message.contains("\n"))
        // Still serving, on this connection and new ones, with the same state and the old config.
        #expect(tabd.process?.isRunning == true)
        try c.ok(#"{"cmd":"ping"}"#)
        #expect(try tabd.client().request(#"{"cmd":"state"}"#) == before)
        #expect(try Self.otherUserIsAdmin(tabd))
        #expect(tabd.log.contains("reload failed"), "\(tabd.log)")

        // A good file is taken by the next reload (so the check above could tell).
        try "socket_mode: \"0666\"\naccess:\n  admin_uids: []\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd":"reload"}"#)
        #expect(try !Self.otherUserIsAdmin(tabd))
        #expect(tabd.stop() == 0)
    }

    @Test func sighupWithAnOutOfRangeUIDKeepsTheRunningConfig() throws {
        let tabd = try Self.reloadableTabd()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let before = try c.request(#"{"cmd":"state"}"#)

        try "socket_mode: \"0666\"\naccess:\n  admin_uids: [4294967295]\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        kill(tabd.pid, SIGHUP)
        let sentence = "access.admin_uids[0] must be a uid from 0 to 4294967294 (got 4294967295)"
        let deadline = Date().addingTimeInterval(60)
        while !tabd.log.contains(sentence) && Date() < deadline { usleep(20_000) }
        let failed = tabd.log.split(separator: "\n").filter { $0.contains("reload failed") }
        #expect(failed.count == 1 && failed[0].contains(sentence), "\(tabd.log)")
        #expect(tabd.process?.isRunning == true)
        #expect(try tabd.client().request(#"{"cmd":"state"}"#) == before)
        #expect(try Self.otherUserIsAdmin(tabd))

        try "socket_mode: \"0666\"\naccess:\n  admin_uids: []\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        kill(tabd.pid, SIGHUP)
        while !tabd.log.contains("configuration reloaded") && Date() < deadline.addingTimeInterval(60) { usleep(20_000) }
        #expect(try !Self.otherUserIsAdmin(tabd))
        #expect(tabd.stop() == 0)
    }

    // MARK: (c) one tabd per state directory

    @Test func aSecondTabdOnTheSameStateDirectoryRefuses() throws {
        let first = try TabdProcess(config: "fsync: always\n")
        let c = try first.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        try c.ok(#"{"cmd":"select","tab":"c"}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"side","idiom":"pad"}"#)
        let state = try c.request(#"{"cmd":"state"}"#)
        let files = Self.contents(of: first.stateDir)
        #expect(String(decoding: files["lock"] ?? Data(), as: UTF8.self) == "\(first.pid)\n")

        let secondSocket = first.dir + "/second.sock"
        let (status, stderr) = try Self.runTabd(["--config", first.configPath, "--socket", secondSocket, "--state-dir", first.stateDir])
        #expect(status == 1, "\(status): \(stderr)")
        #expect(withoutTimestamps(stderr) == "critical: tabd cannot start: the state directory \(first.stateDir) is in use by tabd (pid \(first.pid), lock file \(first.stateDir)/lock); stop that tabd or start this one with another --state-dir\n", "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: secondSocket))
        // The first is untouched: it answers, with the same state, and its files are the same bytes.
        #expect(try c.request(#"{"cmd":"state"}"#) == state)
        #expect(try first.client().request(#"{"cmd":"state"}"#) == state)
        #expect(Self.contents(of: first.stateDir) == files)

        // The same socket too: refused by the lock before the socket is looked at.
        let again = try Self.runTabd(["--config", first.configPath, "--socket", first.socket, "--state-dir", first.stateDir])
        #expect(again.status == 1)
        #expect(again.stderr.contains("pid \(first.pid)"), "\(again.stderr)")
        #expect(try first.client().request(#"{"cmd":"state"}"#) == state)

        // Once the first stops, the next one starts (on the second socket) with its state.
        #expect(first.stop() == 0)
        let next = Process()
        next.executableURL = URL(fileURLWithPath: Build.tabd)
        next.arguments = ["--config", first.configPath, "--socket", secondSocket, "--state-dir", first.stateDir]
        next.standardError = FileHandle.nullDevice
        try next.run()
        defer {
            if next.isRunning { kill(next.processIdentifier, SIGTERM); next.waitUntilExit() }
            withExtendedLifetime(first) {}  // its directory is removed with it
        }
        var answer: JSONObject?
        let deadline = Date().addingTimeInterval(60)
        while answer == nil && next.isRunning && Date() < deadline {
            answer = try? LineClient(path: secondSocket).request(#"{"cmd":"state"}"#)
            if answer == nil { usleep(20_000) }
        }
        #expect(answer == state)
        #expect(String(decoding: FileManager.default.contents(atPath: first.stateDir + "/lock") ?? Data(), as: UTF8.self) == "\(next.processIdentifier)\n")
    }

    /// A tabd killed with -9 holds nothing: the kernel drops its lock with the process.
    @Test func aKilledTabdLeavesNoLockBehind() throws {
        let tabd = try TabdProcess()
        try tabd.client().ok(#"{"cmd":"set_tabs","tabs":[{"id":"x"}]}"#)
        tabd.stop(signal: SIGKILL)
        try tabd.start()  // throws when it does not serve
        #expect(String(decoding: FileManager.default.contents(atPath: tabd.stateDir + "/lock") ?? Data(), as: UTF8.self) == "\(tabd.pid)\n")
    }

    // MARK: (d) supplementary groups

    @Test func adminGIDsMatchSupplementaryGroups() throws {
        let tabd = try AccessTests.openTabd("access:\n  admin_gids: [4242]\n")
        let commands = [
            #"{"cmd":"reload","id":1}"#,
            #"{"cmd":"controller.create","controller":"g","id":2}"#,
            #"{"cmd":"controller.delete","controller":"g","id":3}"#,
        ]
        // In 4242 as a supplementary group (its primary group is 65534): an admin.
        let member = try Self.asOtherUser(tabd.socket, groups: [4300, 4242], commands)
        #expect(member.map { $0.bool("ok") } == [true, true, true], "\(Self.text(member))")
        // In other groups only, or none: forbidden.
        for groups: [gid_t] in [[4243, 4300], []] {
            let other = try Self.asOtherUser(tabd.socket, groups: groups, commands)
            #expect(other.map { $0.bool("ok") } == [false, true, false], "\(Self.text(other))")
            #expect(other.first?.object("error")?.string("code") == "forbidden", "\(Self.text(other))")
            #expect(other.last?.object("error")?.string("code") == "forbidden", "\(Self.text(other))")
            try tabd.client().ok(#"{"cmd":"controller.delete","controller":"g"}"#)
        }
    }
}
