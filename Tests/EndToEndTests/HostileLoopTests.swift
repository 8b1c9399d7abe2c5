// Issue 32, no request holds the loop: a big `state` is encoded off the loop while other
// clients are answered, and the asking client's replies keep their order; all controllers
// together hold at most limits.max_total_tabs tabs.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite(.serialized) struct HostileLoopTests {
    /// HostileSlotsTests' limits for big replies, with an output timeout that is not what
    /// these tests are about: a minute, so that a test process reading a 30 MB reply slowly
    /// on a loaded machine is not dropped as a client that stalls (issue 44).
    static let bigLimits = HostileSlotsTests.bigLimits.replacingOccurrences(of: "output_timeout_seconds: 1", with: "output_timeout_seconds: 60")

    /// Until `stats` (asked on `other`) has counted `count` `state`s: tabd has read the line
    /// (it counts a `state` when its line is handled, before the reply is encoded off the loop).
    static func waitUntilStateIsRead(_ other: LineClient, count: Int = 1) throws {
        let deadline = Date().addingTimeInterval(60)
        while try other.ok(#"{"cmd":"stats"}"#).object("commands")?.object("state")?.int("count") ?? 0 < count, Date() < deadline {
            usleep(5_000)
        }
    }

    /// While a 30 MB `state` is being encoded for one client, another is answered: its
    /// `ping` comes back before the first client has received a byte.
    @Test func aBigStateDoesNotHoldOtherClients() throws {
        let t = try TabdProcess(config: Self.bigLimits)
        try HostileSlotsTests.bigState(t, megabytes: 30)
        let asking = try t.client()
        let other = try t.client()
        try other.ok(#"{"cmd":"ping"}"#)  // connected and served before the state is asked for
        try asking.write(#"{"cmd":"state","id":1}"# + "\n" + #"{"cmd":"ping","id":2}"# + "\n" + #"{"cmd":"state","id":3}"# + "\n")
        // Once tabd has read the first `state` (not after a fixed pause a loaded machine may
        // outlast before tabd reads it), the other client is answered at once.
        try Self.waitUntilStateIsRead(other)
        try other.ok(#"{"cmd":"ping"}"#)
        var byte: UInt8 = 0
        let n = recv(asking.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        #expect(n < 0 && errno == EAGAIN, "the asking client already had its reply when the other's ping was answered: the loop waited for the encoding")
        // The asking client's replies, whole and in order.
        let first = try object(try #require(try asking.readLine()))
        #expect(first.int("id") == 1 && first.object("result")?.strings("customizable")?.count == 15000)
        #expect(try object(try #require(try asking.readLine())).int("id") == 2)
        let third = try #require(try asking.readLine())
        #expect(try object(third).int("id") == 3)
        // Kept: the next one is the same bytes, and a change is seen.
        try asking.write(#"{"cmd":"state","id":3}"# + "\n")
        #expect(try asking.readLine() == third)
        try other.ok(#"{"cmd":"select","tab":"t7"}"#)
        try asking.write(#"{"cmd":"state","id":4}"# + "\n")
        #expect(try object(try #require(try asking.readLine())).object("result")?.string("selected") == "t7")
        // `preserve` of that controller goes the same way, in its place among the replies.
        try asking.write(#"{"cmd":"preserve","id":5}"# + "\n" + #"{"cmd":"ping","id":6}"# + "\n")
        let archive = try object(try #require(try asking.readLine()))
        #expect(archive.int("id") == 5 && archive.object("result")?.object("archive") != nil, "\(JSONValue.object(archive).jsonString.prefix(200))")
        #expect(try object(try #require(try asking.readLine())).int("id") == 6)
    }

    /// limits.max_total_tabs bounds the tabs of all controllers together: set_tabs and
    /// add_tab past it are refused out_of_range naming the key, and change nothing.
    @Test func allControllersTogetherHoldAtMostMaxTotalTabs() throws {
        let t = try TabdProcess(config: "limits:\n  max_total_tabs: 10\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"x","idiom":"phone"}"#)
        let refused = try c.error(#"{"cmd":"set_tabs","controller":"x","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]}"#)
        #expect(refused.string("code") == "out_of_range")
        #expect(refused.string("message") == "all controllers together would hold 11 tabs; tabd holds at most 10 (limits.max_total_tabs): remove tabs or controllers first")
        try c.ok(#"{"cmd":"set_tabs","controller":"x","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#)
        #expect(try c.error(#"{"cmd":"add_tab","controller":"x","tab":{"id":"z"}}"#).string("code") == "out_of_range")
        // Replacing a controller's tabs counts what it will hold, not what it holds now.
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f"}]}"#)
        #expect(try c.ok(#"{"cmd":"state","controller":"x"}"#).strings("customizable")?.count == 4)
    }

    /// A big `state` in a turn whose commit fails: the turn is redone, the state deferred
    /// again — the client gets exactly one reply to it, in its place, and is served after.
    @Test func aBigStateInAFailedTurnIsAnsweredOnce() throws {
        let (dir, faultFile, env) = faultInjection("bigredo")
        let t = try TabdProcess(config: Self.bigLimits, dir: dir, environment: env)
        try HostileSlotsTests.bigState(t, megabytes: 1)
        let c = try t.client()
        try "ENOSPC".write(toFile: faultFile, atomically: true, encoding: .utf8)
        defer { unlink(faultFile) }
        // One write: a change (its commit fails), the state, a ping.
        try c.write(#"{"id":1,"cmd":"select","tab":"t3"}"# + "\n" + #"{"id":2,"cmd":"state"}"# + "\n" + #"{"id":3,"cmd":"ping"}"# + "\n")
        let first = try object(try #require(try c.readLine()))
        #expect(first.int("id") == 1 && first.object("error")?.string("code") == "unavailable")
        let state = try object(try #require(try c.readLine()))
        #expect(state.int("id") == 2 && state.object("result")?.string("selected") == "t0")
        #expect(try object(try #require(try c.readLine())).int("id") == 3)
        unlink(faultFile)
        try StorageFaultTests.waitUntilHealthy(c)
        try c.write(#"{"id":4,"cmd":"ping"}"# + "\n")
        #expect(try object(try #require(try c.readLine())).int("id") == 4, "a second reply to the state came instead")
    }

    /// SIGTERM while a big `state` is being encoded: tabd answers it before it stops (every
    /// request received is answered), then closes. 2 MB: eight times what is encoded off the
    /// loop, and well within the longest wait of a stop (10 s) on a loaded machine, where
    /// 30 MB took longer and was cut at the stop's bound, rightly.
    @Test func aBigStateAskedJustBeforeSIGTERMIsStillAnswered() throws {
        let t = try TabdProcess(config: Self.bigLimits)
        try HostileSlotsTests.bigState(t, megabytes: 2)
        let c = try t.client()
        try c.write(#"{"cmd":"state","id":1}"# + "\n")
        // SIGTERM once tabd has received the request (docs/operations.md: it answers what it
        // received): `stats` counts a `state` when its line is handled, before the big reply is
        // encoded off the loop. (A fixed 50 ms could end before a loaded machine read the line.)
        try Self.waitUntilStateIsRead(try t.client())
        kill(t.pid, SIGTERM)
        let line = try c.readLine()
        let reply = try object(try #require(line, "tabd stopped without answering the state; its log:\n\(t.log)"))
        #expect(reply.int("id") == 1 && reply.object("result")?.strings("customizable")?.count == 1000)
        #expect(try c.readsEndOfStream())
    }
}
