// Clients that try to make tabd hold memory, and clients that want a lot, end to end:
// unfinished lines on thousands of connections, subscribers that never read, a line that
// never ends, replies of tens of megabytes, controllers filled past their limits. tabd keeps
// within its memory budget, serves the other clients throughout, gives the memory back,
// and every refusal says which limit in one sentence.
//
// The memory figures are printed ("figure: …"); `make bench-memory` runs these tests and
// shows them (BENCHMARKS-HISTORY.md, "Hostile clients").

import Foundation
import TabJSON
import Testing
import TabProtocol
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct HostileClientTests {
    /// Resident memory of a process, in bytes (VmRSS).
    static func rss(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return 0 }
        return kb * 1024
    }

    static func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    static func figure(_ text: String) { print("figure: \(text)") }

    /// A connected socket that is never read (a raw descriptor: thousands of them).
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let r = UnixAddress(path)!.withSockaddr { Glibc.connect(fd, $0, $1) }
        guard r == 0 else {
            close(fd)
            throw TestFailure("connect: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// Sends all of `bytes` unless the peer closes; false then.
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool { (try? sendAll(fd, bytes)) != nil }

    /// Seconds a `ping` takes on `client`.
    static func pingSeconds(_ client: LineClient) throws -> Double {
        let started = Date()
        try client.ok(#"{"cmd":"ping"}"#)
        return Date().timeIntervalSince(started)
    }

    /// The next line, which must be an error reply: its error object.
    static func errorLine(_ c: LineClient) throws -> JSONObject {
        guard let line = try c.readLine() else { throw TestFailure("connection closed instead of an error reply") }
        guard let error = try object(line).object("error") else { throw TestFailure("not an error reply: \(line)") }
        return error
    }

    /// Waits up to `timeout` s for `condition`.
    static func eventually(_ timeout: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// `count` tabs with short ids (base 36), as a set_tabs request.
    static func setTabs(_ count: Int, prefix: String = "") -> String {
        let tabs = (0..<count).map { #"{"id":"\#(prefix)\#(String($0, radix: 36))"}"# }.joined(separator: ",")
        return #"{"cmd":"set_tabs","tabs":[\#(tabs)]}"#
    }

    // MARK: Memory

    /// 4,000 connections each send 1 MiB without a newline (4 GiB if tabd kept it all):
    /// tabd stays under its baseline plus the budget, answers a ping between any two of
    /// them, refuses the biggest holders with `overloaded`, and gives the memory back.
    @Test func thousandsOfUnfinishedLinesStayWithinTheBudget() throws {
        let budget = 64 << 20
        let t = try TabdProcess(config: "limits:\n  memory_budget_bytes: \(budget)\n")
        let pinger = try t.client()
        try pinger.ok(#"{"cmd":"ping"}"#)
        let baseline = Self.rss(t.pid)
        var peak = baseline, slowestPing = 0.0
        let megabyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var holders: [Int32] = []
        defer { for fd in holders { close(fd) } }
        for i in 0..<4_000 {
            let fd = try Self.connect(t.socket)
            holders.append(fd)
            Self.send(fd, megabyte)
            if i % 50 == 0 {
                slowestPing = max(slowestPing, try Self.pingSeconds(pinger))
                peak = max(peak, Self.rss(t.pid))
            }
        }
        peak = max(peak, Self.rss(t.pid))
        let stats = try pinger.ok(#"{"cmd":"stats"}"#)
        let refused = stats.object("limits_hit")?.int("memory_budget_bytes") ?? 0
        for fd in holders { close(fd) }
        holders = []
        #expect(try Self.eventually { (try pinger.ok(#"{"cmd":"stats"}"#).int("connections")) == 1 })
        // What the allocator keeps after the clients left: 0.3–3 MiB when this test runs alone,
        // 8.5 MiB once with the whole suite running beside it (the heap's fragmentation
        // depends on how the reads interleaved). 12 MiB still tells a tabd that gives the
        // ~50 MiB back from one that keeps it.
        var after = Int.max
        _ = Self.eventually { after = Self.rss(t.pid); return after < baseline + (12 << 20) }
        Self.figure("4,000 connections × 1 MiB unfinished line, budget \(Self.mib(budget)): RSS baseline \(Self.mib(baseline)), peak \(Self.mib(peak)), after they left \(Self.mib(after)); slowest ping \(Int(slowestPing * 1000)) ms; \(refused) refused")
        #expect(peak < baseline + budget, "RSS \(Self.mib(peak)) with a baseline of \(Self.mib(baseline)) and a budget of \(Self.mib(budget))")
        #expect(after < baseline + (12 << 20), "RSS \(Self.mib(after)) after the clients left, baseline \(Self.mib(baseline))")
        #expect(refused > 3_000, "\(refused) connections refused for the budget")
        // The pinger was answered every time (pingSeconds waits for the pong); how long it took
        // is the figure above, not an assertion: it depends on the machine's load.
        #expect(t.log.contains("over the memory budget"))
    }

    /// The refused client is told why, in one line, before its connection closes.
    @Test func theBiggestHolderIsToldItIsOverloaded() throws {
        // Refusing starts at 3/4 of the budget (3 MiB here).
        let t = try TabdProcess(config: "limits:\n  memory_budget_bytes: 4194304\n  max_line_bytes: 2500000\n")
        let first = try t.client()
        try first.write(String(repeating: "a", count: 2_400_000))
        usleep(100_000)
        let second = try t.client()
        try second.write(String(repeating: "b", count: 700_000))
        let error = try Self.errorLine(first)
        #expect(error.string("code") == "overloaded")
        #expect(error.string("message")?.contains("limits.memory_budget_bytes") == true)
        #expect(try first.readsEndOfStream())
        try second.write("\n")  // the smaller holder is not refused: its line is just bad JSON
        #expect(try Self.errorLine(second).string("code") == "parse_error")
    }

    /// 150 subscribers never read while another client changes tabs: what they make tabd
    /// hold stays within the budget, and the writer is served throughout.
    @Test func subscribersThatNeverReadStayWithinTheBudget() throws {
        let budget = 64 << 20
        let t = try TabdProcess(config: "limits:\n  memory_budget_bytes: \(budget)\n  max_tabs: 2000\n")
        let writer = try t.client()
        // The baseline is tabd after the same commands without subscribers: a set_tabs of
        // 2,000 tabs needs memory of its own (the request, the old tabs kept for undo, the
        // reply), which the budget does not count and the allocator keeps once used. Measured
        // after a single set_tabs, a release tabd's peak came to 64.3 MiB above it in a
        // fresh-clone run of 066dff7, over the budget by what set_tabs itself needs.
        try writer.ok(Self.setTabs(2_000, prefix: "w"))
        let first = Self.rss(t.pid)
        for i in 0..<4 { try writer.ok(Self.setTabs(2_000, prefix: i % 2 == 0 ? "a" : "b")) }
        let baseline = Self.rss(t.pid)
        var sleepers: [LineClient] = []
        for _ in 0..<150 {
            let s = try t.client()
            try s.ok(#"{"cmd":"subscribe","events":["*"]}"#)
            sleepers.append(s)
        }
        var peak = baseline, slowest = 0.0
        for i in 0..<40 {
            let started = Date()
            try writer.ok(Self.setTabs(2_000, prefix: i % 2 == 0 ? "a" : "b"))
            slowest = max(slowest, Date().timeIntervalSince(started))
            peak = max(peak, Self.rss(t.pid))
        }
        let stats = try writer.ok(#"{"cmd":"stats"}"#)
        let dropped = (stats.object("limits_hit")?.int("memory_budget_bytes") ?? 0) + (stats.object("limits_hit")?.int("max_output_bytes") ?? 0)
        sleepers = []
        // What the allocator keeps after the clients left: 0.3–3 MiB when this test runs alone,
        // 8.5 MiB once with the whole suite running beside it (the heap's fragmentation
        // depends on how the reads interleaved). 12 MiB still tells a tabd that gives the
        // ~50 MiB back from one that keeps it.
        var after = Int.max
        _ = Self.eventually { after = Self.rss(t.pid); return after < baseline + (12 << 20) }
        Self.figure("150 subscribers that never read, 40 set_tabs of 2,000 tabs, budget \(Self.mib(budget)): RSS after one set_tabs \(Self.mib(first)), baseline (after five) \(Self.mib(baseline)), peak \(Self.mib(peak)), after \(Self.mib(after)); slowest set_tabs \(Int(slowest * 1000)) ms; \(dropped) dropped")
        #expect(peak < baseline + budget, "RSS \(Self.mib(peak)) with a baseline of \(Self.mib(baseline)) and a budget of \(Self.mib(budget))")
        #expect(dropped > 100, "only \(dropped) of 150 non-reading subscribers dropped")
        // The writer was served: each of its 40 set_tabs was answered (writer.ok). How long
        // they took is printed above, not asserted: it depends on the machine's load (a
        // 5-second bound failed a fresh-clone CI run on 2 busy cores at 6.8 s).
        #expect(after < baseline + (12 << 20), "RSS \(Self.mib(after)) after the clients left, baseline \(Self.mib(baseline))")
    }

    /// A line that never ends is answered and closed after line_timeout_seconds; the other
    /// clients go on.
    @Test func aLineThatNeverEndsIsClosed() throws {
        let t = try TabdProcess(config: "limits:\n  line_timeout_seconds: 0.5\n")
        let staller = try t.client()
        try staller.write(#"{"cmd":"ping""#)
        let other = try t.client()
        try other.ok(#"{"cmd":"ping"}"#)
        let error = try Self.errorLine(staller)
        #expect(error.string("code") == "invalid_request")
        #expect(error.string("message")?.contains("limits.line_timeout_seconds") == true)
        #expect(try staller.readsEndOfStream())
        try other.ok(#"{"cmd":"ping"}"#)
        #expect(try other.ok(#"{"cmd":"stats"}"#).object("limits_hit")?.int("line_timeout_seconds") == 1)
    }

    // MARK: Big replies

    /// `state` of a 40,000-tab controller (megabytes, more than max_output_bytes) arrives
    /// whole, on the same connection, and the next request is answered too.
    @Test func theStateOfA40000TabControllerArrivesWhole() throws {
        let t = try TabdProcess(config: "limits:\n  max_tabs: 100000\n  max_output_bytes: 1048576\n")
        let c = try t.client()
        try c.ok(Self.setTabs(40_000))
        for _ in 0..<3 {
            let state = try c.ok(#"{"cmd":"state"}"#)
            guard case .array(let tabs)? = state["tabs"] else { throw TestFailure("no tabs in state") }
            #expect(tabs.count == 40_000)
        }
        try c.ok(#"{"cmd":"ping"}"#)
    }

    /// A subscriber that reads as fast as it can gets every event of a 70,000-tab set_tabs
    /// (tens of megabytes in one turn) and is not dropped.
    @Test func aReadingSubscriberKeepsUpWithA70000TabSetTabs() throws {
        let t = try TabdProcess(config: "limits:\n  max_tabs: 100000\n  max_line_bytes: 4194304\n")
        let subscriber = try t.client()
        try subscriber.ok(#"{"cmd":"subscribe","events":["*"]}"#)
        let writer = try t.client()
        final class Count: @unchecked Sendable { var events = 0; var sawTheEnd = false }
        let done = DispatchSemaphore(value: 0), count = Count()
        nonisolated(unsafe) let reader = subscriber  // the thread's alone until `done`
        Thread {
            while let line = try? reader.readLine() {
                count.events += 1
                if line.contains(#""event":"badge_changed""#) { count.sawTheEnd = true; break }
            }
            done.signal()
        }.start()
        try writer.ok(Self.setTabs(70_000))
        try writer.ok(#"{"cmd":"badge","tab":"0","value":"end"}"#)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(count.sawTheEnd, "the subscriber was dropped after \(count.events) events")
        #expect(count.events > 70_000)
    }

    // MARK: Per-controller limits

    /// Past max_tabs, max_id_bytes or max_stack_depth a request is refused `out_of_range`,
    /// naming the limit, and nothing changes.
    @Test func controllerLimitsAreRefusedAndChangeNothing() throws {
        let t = try TabdProcess(config: "limits:\n  max_tabs: 100\n  max_id_bytes: 16\n  max_stack_depth: 2\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a","navigation":true},{"id":"b"}]}"#)
        let before = try #require(try c.readStateLine())
        for (request, limit) in [
            (Self.setTabs(101), "limits.max_tabs"),
            (#"{"cmd":"add_tab","tab":{"id":"seventeen-bytes-x"}}"#, "limits.max_id_bytes"),
            (#"{"cmd":"push","tab":"a","screen":{"id":"s3"}}"#, "limits.max_stack_depth"),
        ] {
            if limit == "limits.max_stack_depth" {
                try c.ok(#"{"cmd":"push","tab":"a","screen":{"id":"s1"}}"#)
                try c.ok(#"{"cmd":"push","tab":"a","screen":{"id":"s2"}}"#)
            }
            let error = try c.error(request)
            #expect(error.string("code") == "out_of_range")
            #expect(error.string("message")?.contains(limit) == true, "\(error)")
        }
        try c.ok(#"{"cmd":"pop","tab":"a"}"#)
        try c.ok(#"{"cmd":"pop","tab":"a"}"#)
        // The same state; only the numbering moved on (the pushes and pops were announced).
        let after = try #require(try c.readStateLine())
        #expect(after.replacingOccurrences(of: #","seq":\d+"#, with: "", options: .regularExpression)
            == before.replacingOccurrences(of: #","seq":\d+"#, with: "", options: .regularExpression))
        #expect(after != before)
        // The default limit: 1,000 tabs.
        let d = try TabdProcess()
        #expect(try d.client().error(Self.setTabs(1_001)).string("message")?.contains("at most 1000 (limits.max_tabs)") == true)
    }
}

extension HostileClientTests {
    /// A subscription names at most 1,024 controllers, each a valid controller name: what a
    /// client makes tabd keep is bounded (a 1 MiB line of names held 4 MiB per connection).
    @Test func aSubscriptionNamesABoundedListOfValidControllers() throws {
        let t = try TabdProcess()
        let c = try t.client()
        let many = (0..<1025).map { "\"c\($0)\"" }.joined(separator: ",")
        let tooMany = try c.error(#"{"cmd":"subscribe","controllers":[\#(many)]}"#)
        #expect(tooMany.string("code") == "out_of_range")
        let bad = try c.error(#"{"cmd":"subscribe","controllers":["main","no spaces"]}"#)
        #expect(bad.string("code") == "invalid_request" && bad.string("field") == "controllers[1]")
        try c.ok(#"{"cmd":"subscribe","controllers":["main","later"]}"#)
    }

    /// controller.create past limits.max_controllers is refused out_of_range and creates nothing.
    @Test func controllersAreLimited() throws {
        let t = try TabdProcess(config: "limits:\n  max_controllers: 3\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"two","idiom":"phone"}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"three","idiom":"pad"}"#)
        let error = try c.error(#"{"cmd":"controller.create","controller":"four","idiom":"tv"}"#)
        #expect(error.string("code") == "out_of_range")
        #expect(error.string("message")?.contains("limits.max_controllers") == true)
        guard case .array(let list)? = try c.ok(#"{"cmd":"controllers"}"#)["controllers"] else { throw TestFailure("no list") }
        #expect(list.count == 3)
    }
}

extension LineClient {
    /// The raw `state` reply line (to compare byte for byte).
    func readStateLine() throws -> String? {
        try write(#"{"cmd":"state"}"# + "\n")
        return try readLine()
    }
}
