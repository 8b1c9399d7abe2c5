// The store has a rate and a share (issue 43): each plugin writes at most
// plugins.store_bytes_per_second after a burst of plugins.store_burst_bytes, what is refused
// is counted in `stats` and `metrics` and said once per plugins.warning_period_seconds; and
// whatever plugins write, the state directory stays within about twice limits.compact_bytes
// (plugins' writes wait while the journal waits for a compaction). Before, a plugin's timers
// grew the journal ~250 MB/s and the directory to 538 MB with compact_bytes at 64 MiB.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite(.serialized) struct StoreBudgetTests {
    /// timerflood's counters in `stats`: bytes written, writes refused.
    private static func storeStats(_ c: LineClient) throws -> (bytes: Int, refusals: Int) {
        let stats = try c.ok(#"{"cmd":"stats"}"#)
        guard case .array(let plugins)? = stats["plugins"] else { throw TestFailure("no plugins in stats: \(stats)") }
        for case .object(let p) in plugins where p.string("name") == "timerflood" {
            return (p.int("store_bytes") ?? -1, p.int("store_refusals") ?? -1)
        }
        throw TestFailure("no timerflood in stats")
    }

    private static func fired(_ c: LineClient) throws -> Int {
        try c.ok(#"{"cmd":"plugin.call","plugin":"timerflood","method":"status"}"#).object("value")?.int("fired") ?? 0
    }

    /// 8 timers every 1 ms, each writing 4 KiB (about 33 MB/s asked for), against a budget of
    /// 64 KiB/s after 128 KiB: what it writes over any stretch is at most the budget's, the
    /// rest is refused and counted (stats, metrics), and the log says so once per period.
    @Test(arguments: [false, true]) func aPluginWritesNoMoreThanItsBudget(isolated: Bool) throws {
        let began = Date()
        let dir = temporaryDirectory(isolated ? "budgetsi" : "budgets")
        try Plugins.build(Plugins.fixture("timerflood.c"), "timerflood.so", in: dir, ["TIMERS=8", "VALUE_BYTES=4096"])
        let load = "    - path: timerflood.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let config = Plugins.config(load, extraDirectory: dir).replacingOccurrences(of: "plugins:\n", with:
            "plugins:\n  store_bytes_per_second: 65536\n  store_burst_bytes: 131072\n  warning_period_seconds: 1\n")
        let small = try TabdProcess(config: config, dir: dir)
        let c = try small.client()
        // Refusals come once the burst is spent.
        let deadline = Date().addingTimeInterval(60)
        while try Self.storeStats(c).refusals == 0, Date() < deadline { usleep(10_000) }
        let t1 = Date()
        let first = try Self.storeStats(c)
        #expect(first.refusals > 0, "no write refused within 60 s")
        // Over the next 2,000 timer runs (a few hundred ms to seconds, as the machine allows):
        let fired = try Self.fired(c)
        while try Self.fired(c) < fired + 2000, Date() < deadline { usleep(10_000) }
        let second = try Self.storeStats(c)
        let t2 = Date()
        let allowed = 65536 * t2.timeIntervalSince(t1) + 131072
        #expect(Double(second.bytes - first.bytes) <= allowed, "wrote \(second.bytes - first.bytes) bytes in \(t2.timeIntervalSince(t1)) s: more than the budget's \(allowed)")
        #expect(second.refusals > first.refusals)
        // metrics has the same count (or more: the timers run on).
        let text = try c.ok(#"{"cmd":"metrics"}"#).string("text") ?? ""
        let metrics = try OpenMetricsExposition(text)
        #expect((metrics.value("tabd_plugin_store_refusals_total", ["plugin": "timerflood"]) ?? 0) >= Double(second.refusals))
        // Said once per second at most (and once more, with the count, at each period's end).
        let lines = small.log.split(separator: "\n").filter { $0.contains("wrote more to its store than its budget allows") }
        let seconds = Date().timeIntervalSince(began)
        #expect(!lines.isEmpty && Double(lines.count) <= seconds + 2, "\(lines.count) lines in \(seconds) s")
        #expect(lines.first?.contains("plugin 'timerflood'") == true)
        // Other clients are answered.
        _ = try small.client().ok(#"{"cmd":"ping"}"#)
    }

    /// The state directory's apparent size, in bytes (what `du --apparent-size` counts).
    private static func stateBytes(_ dir: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.reduce(0) { sum, name in
            var st = stat()
            return stat(dir + "/" + name, &st) == 0 ? sum + Int(st.st_size) : sum
        }
    }

    /// 64 timers every 1 ms, each writing 64 KiB, with a budget as large as it goes and
    /// compact_bytes 1 MiB: over 3,000 timer runs the state directory never holds more than the
    /// stated bound, two journals of compact_bytes with their allocation step and a turn's
    /// writes, and the snapshot.
    @Test(arguments: [false, true]) func theStateDirectoryStaysWithinTwiceCompactBytes(isolated: Bool) throws {
        let compact = 1 << 20
        let extra = "limits:\n  compact_bytes: \(compact)\n"
        let dir = temporaryDirectory(isolated ? "sharei" : "share")
        try Plugins.build(Plugins.fixture("timerflood.c"), "timerflood.so", in: dir)
        let load = "    - path: timerflood.so\n" + (isolated ? "      isolation: process\n      deadline_ms: 60000\n" : "")
        let config = extra + Plugins.config(load, extraDirectory: dir).replacingOccurrences(of: "plugins:\n", with:
            "plugins:\n  store_bytes_per_second: 1073741824\n  store_burst_bytes: 4294967296\n")
        let tabd = try TabdProcess(config: config, dir: dir)
        let c = try tabd.client()
        let start = try Self.fired(c)
        var largest = 0, runs = start
        let deadline = Date().addingTimeInterval(120)
        while runs < start + 3000, Date() < deadline {
            runs = try Self.fired(c)
            largest = max(largest, Self.stateBytes(tabd.stateDir))
            usleep(2_000)
        }
        #expect(runs >= start + 3000, "the timers ran \(runs - start) times in 120 s")
        // docs/operations.md, "What plugins may write": two journals, each of compact_bytes,
        // its allocation step (compact_bytes here) and one turn's writes (a hook call's 1 MiB
        // at most), and the snapshot twice (the next one being written): the store's 1 MiB
        // and a little each.
        let bound = 2 * (compact + compact + (1 << 20)) + 2 * (3 << 19)
        #expect(largest <= bound, "the state directory held \(largest) bytes; the bound is \(bound)")
        #expect(tabd.log.contains("state compacted into a snapshot"))
        print("StoreBudgetTests: state directory at most \(largest) bytes (bound \(bound)) over \(runs - start) timer runs (\(isolated ? "isolated" : "in process"))")
    }
}
