// A plugin that attacks tabd through the host functions (issue 29): floods of log lines,
// events and selection requests in one hook call, a 10 MiB refusal, a process it starts to
// outlive tabd, a crash inside `call`. Each is bounded, said once in the log, and other
// clients are served. The fixture is Tests/EndToEndTests/Fixtures/hostile.c.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite(.serialized) struct HostilePluginTests {
    /// An isolated plugin's deadline is a minute (the most tabd takes) unless the test is
    /// about the deadline: a loaded machine's helper may take seconds over a flood of 100,000
    /// calls, and a deadline missed there would answer "timed out" for what the test checks.
    private static func config(_ file: String, in dir: String, _ defines: [String], isolated: Bool, deadline: Int = 60000) throws -> String {
        try Plugins.build(Plugins.fixture("hostile.c"), file, in: dir, defines)
        return Plugins.config("    - path: \(file)\n" + (isolated ? "      isolation: process\n      deadline_ms: \(deadline)\n" : ""), extraDirectory: dir)
    }

    /// 100,000 request_select, emit and log calls in one should_select, then a deny whose
    /// reason and message are 10 MiB: isolated or not, the subscriber gets at most 100 of the
    /// events, the log at most 100 of the lines and one warning per kind naming the plugin,
    /// the reply carries at most 1 KiB of each text, marked as cut, and tabd serves on.
    @Test(arguments: [true, false]) func floodsInOneHookCallAreCapped(isolated: Bool) throws {
        let dir = temporaryDirectory(isolated ? "hfi" : "hfp")
        let tabd = try TabdProcess(config: try Self.config("flood.so", in: dir, [#"NAME="flood""#, #"FLOOD="flood""#], isolated: isolated), dir: dir)
        let c = try tabd.client(), watcher = try tabd.client(), other = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"flood"}]}"#)
        try c.write(#"{"cmd":"tap","tab":"flood"}"# + "\n")
        let raw = try #require(try c.readLine())
        #expect(raw.utf8.count < 4096, "the reply is bounded: \(raw.utf8.count) bytes")
        let reply = try JSONParser.parse(raw)
        guard case .object(let r) = reply, case .object(let e)? = r["error"] else { Issue.record("not an error: \(raw.prefix(300))"); return }
        #expect(e.string("code") == "denied" && e.string("plugin") == "flood")
        let mark = " … (cut: longer than 1024 bytes)"
        #expect(e.string("reason") == String(repeating: "x", count: 1024) + mark)
        #expect(e.string("message") == String(repeating: "x", count: 1024) + mark)
        try other.ok(#"{"cmd":"ping"}"#)

        // The events: the flood's first 100, then nothing more of it.
        try c.ok(#"{"cmd":"tap","tab":"b"}"#)  // its event {"tapped":"b"…} comes after the flood's
        var floods = 0
        while let line = try watcher.readLine(), line.contains(#""flood":true"#) { floods += 1 }
        #expect(floods == 100, "events of the flood delivered: \(floods)")
        let log = tabd.log
        let lines = log.split(separator: "\n")
        #expect(lines.filter { $0.contains("flooding") }.count == 100, "log lines kept")
        for what in ["logged more than 100 times", "emitted an event more than 100 times", "asked for a selection more than 16 times"] {
            #expect(lines.filter { $0.contains("plugin \(what) in one hook call; the rest of this call's are dropped") && $0.contains("flood") }.count == 1,
                    "one warning: \(what)\n\(log.suffix(2000))")
        }
        #expect(try c.ok(#"{"cmd":"state"}"#).string("selected") == "b")
    }

    /// An isolated plugin cannot start a process: fork answers EPERM in its helper, so nothing
    /// it starts (double-forked, in a session of its own) outlives the helper or tabd.
    @Test func anIsolatedPluginCannotLeaveAProcessBehind() throws {
        let dir = temporaryDirectory("hfk")
        let tabd = try TabdProcess(config: try Self.config("forky.so", in: dir, [#"NAME="forky""#, #"FORK="fork""#], isolated: true), dir: dir)
        let c = try tabd.client(), watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"fork"}]}"#)
        try c.ok(#"{"cmd":"tap","tab":"fork"}"#)
        let event = try #require(try watcher.readLine())
        #expect(event.contains(#""fork":\#(EPERM)"#), "fork refused in the helper: \(event)")
        #expect(try c.ok(#"{"cmd":"tap","tab":"a"}"#).string("selected") == "a", "the helper still answers (threads still work)")
        _ = tabd.stop()
        #expect(try shell("pgrep -x tabd-orphan").output.isEmpty, "a process the plugin started is still running")
    }

    /// A crash inside an isolated plugin's `call` is reported as a crash, not a timeout (the
    /// helper's Swift backtracer, which spent longer than the deadline on its report, is off).
    /// The deadline, 1 s, is far longer than a crash takes to be seen even on a loaded
    /// machine, and shorter than the backtracer's report took.
    @Test func aCrashInAnIsolatedCallIsReportedAsACrash() throws {
        let dir = temporaryDirectory("hcc")
        let tabd = try TabdProcess(config: try Self.config("callcrash.so", in: dir, [#"NAME="callcrash""#, "CALL_CRASH"], isolated: true, deadline: 1000), dir: dir)
        let c = try tabd.client()
        let e = try c.error(#"{"cmd":"plugin.call","plugin":"callcrash","method":"go"}"#)
        #expect(e.string("message") == "plugin 'callcrash' crashed while running 'go'; its helper is restarted", "\(e)")
        #expect(tabd.log.contains("isolated plugin callcrash crashed in call"), "\(tabd.log.suffix(1500))")
    }
}

extension HostilePluginTests {
    /// The store's and the timers' limits (tabd/policy.h, TABD_STORE_* and TABD_TIMER_*), in
    /// process and isolated: each write past one is refused with its status, said once in the
    /// log, and what was accepted survives kill -9.
    @Test(arguments: [false, true]) func storeAndTimersStayWithinTheirLimits(isolated: Bool) throws {
        // The budget over time is StoreBudgetTests': here, as much as a hook call may write.
        let tabd = try Self.storeAbuse("store-abuse", isolated: isolated, plugins: "  store_bytes_per_second: 1073741824\n  store_burst_bytes: 4294967296\n")
        var c = try tabd.client()
        func call(_ method: String, _ args: String = "{}") throws -> JSONObject? {
            try c.ok(#"{"cmd":"plugin.call","plugin":"storeabuse","method":"\#(method)","args":\#(args)}"#).object("value")
        }
        // TABD_STORE_OK 0, TABD_STORE_MISSING 1, TABD_STORE_TOO_LARGE 2, TABD_STORE_INVALID 3.
        #expect(try call("put", #"{"key_bytes":256,"value_bytes":1}"#)?.int("status") == 0)
        #expect(try call("put", #"{"key_bytes":257,"value_bytes":1}"#)?.int("status") == 2)
        #expect(try call("put", #"{"key_bytes":1,"value_bytes":65536}"#)?.int("status") == 0)
        #expect(try call("put", #"{"key_bytes":1,"value_bytes":65537}"#)?.int("status") == 2)
        #expect(try call("put", #"{"key_bytes":0,"value_bytes":1}"#)?.int("status") == 3)
        // One hook call writes at most the store's size (1 MiB): 17 writes of 60,005 bytes.
        let flood = try call("flood")
        #expect(flood?.int("ok") == 17 && flood?.int("status") == 2, "\(String(describing: flood))")
        // The smallest writes (a one-byte key, an empty value) count their journal record too:
        // 1 MiB / (1 + 0 + TABD_STORE_WRITE_COST_BYTES) writes, not 1,048,576 records.
        let tiny = try call("tiny")
        #expect(tiny?.int("ok") == 1_048_576 / 65 && tiny?.int("status") == 2, "\(String(describing: tiny))")
        // At most 1,024 keys: four are there.
        let fill = try call("fill")
        #expect(fill?.int("ok") == 1020 && fill?.int("status") == 2, "\(String(describing: fill))")
        #expect(try call("timers")?.int("ok") == 64)
        #expect(tabd.log.components(separatedBy: "timers armed already").count - 1 <= 1 || isolated, "said once: \(tabd.log)")
        #expect(tabd.log.contains("to its store in one hook call"), "the flood is said: \(tabd.log)")
        // Other clients are served; what was accepted survives kill -9.
        _ = try tabd.client().ok(#"{"cmd":"ping"}"#)
        tabd.stop(signal: SIGKILL)
        try tabd.start()
        c = try tabd.client()
        #expect(try call("get", #"{"key":"flood"}"#)?.int("bytes") == 60000)
        #expect(try call("get", #"{"key":"fill-1019"}"#)?.int("status") == 0)
        #expect(try call("get", #"{"key":"fill-1020"}"#)?.int("status") == 1)
    }

    /// tabd with storeabuse.c loaded (isolated: in a helper); `plugins` adds settings to the
    /// `plugins` section.
    private static func storeAbuse(_ tag: String, isolated: Bool, plugins: String = "") throws -> TabdProcess {
        let dir = temporaryDirectory(tag)
        try Plugins.build(Plugins.fixture("storeabuse.c"), "storeabuse.so", in: dir)
        let load = "    - path: storeabuse.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let config = Plugins.config(load, extraDirectory: dir).replacingOccurrences(of: "plugins:\n", with: "plugins:\n" + plugins)
        return try TabdProcess(config: config)
    }

    /// A plugin that answers every selection change with 16 selections of its own, back and
    /// forth: what one client's select sets off is bounded, and other clients are answered.
    @Test(arguments: [false, true]) func selectionChangedPingPongIsBounded(isolated: Bool) throws {
        let tabd = try Self.storeAbuse("pingpong", isolated: isolated)
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        let before = try c.ok(#"{"cmd":"plugin.call","plugin":"storeabuse","method":"pingpong"}"#).object("value")?.int("changes") ?? 0
        _ = try c.ok(#"{"cmd":"select","tab":"c"}"#)
        let after = try c.ok(#"{"cmd":"plugin.call","plugin":"storeabuse","method":"pingpong"}"#).object("value")?.int("changes") ?? 0
        _ = try tabd.client().ok(#"{"cmd":"ping"}"#)
        let warnings = tabd.log.components(separatedBy: "too many times over").count - 1
        // The client's select, then 4 levels of 16 at most (HookCaps.selections each): 64.
        #expect(after - before <= 1 + 64, "selection changes told for one select: \(after - before)")
        #expect(warnings <= 1, "warnings: \(warnings)")
    }

    /// Two plugins answering each other's selection changes (here one that answers its own,
    /// 16 at a time) cut every request's chain short: the warning is said once per period
    /// (plugins.warning_period_seconds, 1 s here) with how many more there were, not once per
    /// request (1,121 lines in 5 s before). Every one is counted: the lines' counts add up.
    @Test func repeatedWarningsAreSaidOncePerPeriodWithACount() throws {
        let tabd = try Self.storeAbuse("warnrate", isolated: false, plugins: "  warning_period_seconds: 1\n")
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        _ = try c.ok(#"{"cmd":"plugin.call","plugin":"storeabuse","method":"pingpong"}"#)
        let requests = 200
        let start = Date()
        try c.write(String(repeating: #"{"cmd":"select","tab":"c"}"# + "\n", count: requests))
        for _ in 0..<requests { _ = try c.readLine() }
        // The periods the requests spanned: a loaded machine takes more of them.
        let periods = Int(Date().timeIntervalSince(start).rounded(.up)) + 1
        // Each request's chain was cut once: the plain lines and the counts add up to them,
        // once the period's last count is said (waited for in the log).
        func said() -> (lines: Int, total: Int) {
            let lines = tabd.log.split(separator: "\n").filter { $0.contains("too many times over") }
            let total = lines.reduce(0) { sum, line in
                guard let r = line.range(of: #"warning\.repeated=(\d+)"#, options: .regularExpression) else { return sum + 1 }
                return sum + (Int(line[r].split(separator: "=")[1]) ?? 0)
            }
            return (lines.count, total)
        }
        let deadline = Date().addingTimeInterval(60)
        while said().total < requests, Date() < deadline { usleep(50_000) }
        let (lines, total) = said()
        #expect(total == requests, "warnings counted: \(total) of \(requests)\n\(tabd.log.suffix(2000))")
        // At most a plain line and a count per period and one more (12 when they took 4 s).
        #expect(lines >= 2 && lines <= 2 * (periods + 1), "lines for \(requests) warnings in \(periods) periods: \(lines)")
        #expect(tabd.log.contains("more like it in the last"), "\(tabd.log.suffix(1500))")
        _ = try tabd.client().ok(#"{"cmd":"ping"}"#)
    }
}
