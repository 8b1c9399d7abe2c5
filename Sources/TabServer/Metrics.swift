// `metrics`: the counters of `stats` and the per-command latency histograms, in either of
// the two text formats scrapers read (tabd itself stays on its Unix socket):
// - OpenMetrics 1.0.0 (the default): a counter family is named without `_total`, its
//   samples with it; `# UNIT`; `# EOF` at the end.
// - the Prometheus text format 0.0.4 (`format: prometheus`), what node_exporter's textfile
//   collector reads: a counter's `# TYPE` and `# HELP` name the sample itself (`…_total`);
//   no `# UNIT`, no `# EOF`.
// Only the types both know (counter, gauge, histogram); no timestamps. docs/operations.md,
// "Metrics", lists every family.
// swift-prometheus (2.4) was considered: it writes the 0.0.4 text only (no OpenMetrics),
// and would keep its own counters and fixed-bucket histograms, updated under its locks on
// every request, where tabd counts in plain loop-owned fields and its log-linear histogram
// (Stats.swift). This writer reads those fields only when `metrics` is asked.

import Foundation
import TabPlugins
import TabProtocol
import TabTransport
import TabState

/// Writes an exposition: families one after the other, each its metadata then its samples.
struct OpenMetricsText {
    enum Kind: String { case counter, gauge, histogram }

    let format: MetricsFormat
    private(set) var text = ""

    init(format: MetricsFormat = .openmetrics) { self.format = format }

    /// A family's metadata, in the order the specification recommends: TYPE, UNIT, HELP.
    /// `name` is the OpenMetrics family name (a counter's without `_total`). `unit` must end
    /// `name` (after an underscore). `help` is plain text without newlines, backslashes or
    /// quotes: the two formats escape those differently in HELP.
    mutating func family(_ name: String, _ kind: Kind, unit: String? = nil, help: String) {
        // In 0.0.4 a counter's metadata names its sample: tabd_commands_total.
        let named = format == .prometheus && kind == .counter ? name + "_total" : name
        text += "# TYPE \(named) \(kind.rawValue)\n"
        if let unit, format == .openmetrics { text += "# UNIT \(name) \(unit)\n" }
        text += "# HELP \(named) \(help)\n"
    }

    /// One sample line: `name{label="value",…} value`.
    mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (i, (key, v)) in labels.enumerated() {
                if i > 0 { text += "," }
                text += key + "=\"" + Self.escaped(v) + "\""
            }
            text += "}"
        }
        text += " " + value + "\n"
    }

    mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: UInt64) {
        sample(name, labels: labels, String(value))
    }

    mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels: labels, String(value))
    }

    /// A float: Swift writes the shortest text that reads back the same, always with a `.`
    /// or an exponent ("3.0", "1e-05"), as both formats read it.
    mutating func sample(_ name: String, labels: [(String, String)] = [], seconds value: Double) {
        sample(name, labels: labels, value.description)
    }

    /// The end of the exposition (OpenMetrics marks it; 0.0.4 just ends).
    mutating func finish() { if format == .openmetrics { text += "# EOF\n" } }

    /// A label value with `\`, `"` and line feeds escaped (the same in both formats).
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

extension ServiceStats {
    /// The `le` bounds of `tabd_command_duration_seconds`: 1 µs to 10 s in 1-2-5 steps, in
    /// nanoseconds and as OpenMetrics' canonical label text (Go's %g, ".0" added to whole
    /// numbers), then +Inf. The log-linear histogram behind them is finer; `stats` reports
    /// p50/p99 from that.
    static let durationBounds: [(nanos: UInt64, le: String)] = [
        (1_000, "1e-06"), (2_000, "2e-06"), (5_000, "5e-06"),
        (10_000, "1e-05"), (20_000, "2e-05"), (50_000, "5e-05"),
        (100_000, "0.0001"), (200_000, "0.0002"), (500_000, "0.0005"),
        (1_000_000, "0.001"), (2_000_000, "0.002"), (5_000_000, "0.005"),
        (10_000_000, "0.01"), (20_000_000, "0.02"), (50_000_000, "0.05"),
        (100_000_000, "0.1"), (200_000_000, "0.2"), (500_000_000, "0.5"),
        (1_000_000_000, "1.0"), (2_000_000_000, "2.0"), (5_000_000_000, "5.0"),
        (10_000_000_000, "10.0"),
    ]

    /// The keys `limits_hit` counts (CloseReason.limitKey): each is exposed from the start,
    /// at 0 until a connection is closed for it.
    static let limitKeys = CloseReason.limitKeys

    /// What `tabd_build_info` says: tabd's version, the plugin ABI, the Swift it was built with.
    static let buildInfo: [(String, String)] = [("version", TabdVersion.string), ("abi", PluginHost.abiVersion), ("swift", swiftVersion)]

    static let swiftVersion: String = {
        #if compiler(>=6.5)
        return "6.5+"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }()

    func metricsText(_ format: MetricsFormat, transport: LineServer.Status, subscribers: Int, controllers: Int, store: JournalFigures, plugins: [PluginStats]) -> String {
        var m = OpenMetricsText(format: format)
        m.family("tabd_build_info", .gauge, help: "Always 1; the labels say which tabd this is: its version, its plugin ABI (major.minor) and the Swift it was built with.")
        m.sample("tabd_build_info", labels: Self.buildInfo, 1)
        m.family("tabd_start_time_seconds", .gauge, unit: "seconds", help: "When tabd started, in seconds since the Unix epoch (time() - this is the uptime).")
        m.sample("tabd_start_time_seconds", seconds: (started.timeIntervalSince1970 * 1000).rounded() / 1000)

        m.family("tabd_reload", .counter, help: "Reloads (tabctl reload, SIGHUP), by result: success or failure (refused, the running configuration kept).")
        m.sample("tabd_reload_total", labels: [("result", "success")], reloads.successes)
        m.sample("tabd_reload_total", labels: [("result", "failure")], reloads.failures)
        m.family("tabd_last_reload_successful", .gauge, help: "0 while the last reload was refused (the file on disk would refuse a restart too), else 1.")
        m.sample("tabd_last_reload_successful", reloads.failed == nil ? 1 : 0)
        m.family("tabd_last_reload_success_timestamp_seconds", .gauge, unit: "seconds", help: "When the configuration in use was read: the last successful reload, or the start.")
        m.sample("tabd_last_reload_success_timestamp_seconds", seconds: (reloads.lastSuccess.timeIntervalSince1970 * 1000).rounded() / 1000)
        m.family("tabd_controllers", .gauge, help: "Tab controllers tabd holds now.")
        m.sample("tabd_controllers", controllers)

        m.family("tabd_connections", .gauge, help: "Client connections open now.")
        m.sample("tabd_connections", transport.connections)
        m.family("tabd_connections_accepted", .counter, help: "Client connections accepted since start.")
        m.sample("tabd_connections_accepted_total", connectionsAccepted)
        m.family("tabd_max_connections", .gauge, help: "The most client connections tabd keeps open (limits.max_connections).")
        m.sample("tabd_max_connections", transport.maxConnections)
        m.family("tabd_memory_held_bytes", .gauge, unit: "bytes", help: "What all connections hold now: unfinished lines, input waiting, output not written.")
        m.sample("tabd_memory_held_bytes", transport.heldBytes)
        m.family("tabd_memory_budget_bytes", .gauge, unit: "bytes", help: "The memory budget of all connections together (limits.memory_budget_bytes).")
        m.sample("tabd_memory_budget_bytes", transport.memoryBudget)
        m.family("tabd_limits_hit", .counter, help: "Connections closed for a limit, by the limit's configuration key.")
        for key in Set(Self.limitKeys).union(transport.limitHits.keys).sorted() {
            m.sample("tabd_limits_hit_total", labels: [("limit", key)], transport.limitHits[key] ?? 0)
        }
        m.family("tabd_subscribers", .gauge, help: "Connections subscribed to events.")
        m.sample("tabd_subscribers", subscribers)

        let byName = histograms.sorted(by: { $0.key < $1.key })
        m.family("tabd_commands", .counter, help: "Request lines handled, by command (invalid: lines that did not decode to a command).")
        for (name, h) in byName { m.sample("tabd_commands_total", labels: [("command", name)], h.count) }
        m.family("tabd_errors", .counter, help: "Error replies, by error code (docs/protocol.md, Errors).")
        for (code, n) in errorCounts { m.sample("tabd_errors_total", labels: [("code", code)], n) }
        m.family("tabd_denials", .counter, help: "Commands a policy plugin refused (denied).")
        m.sample("tabd_denials_total", denials)
        m.family("tabd_events_sent", .counter, help: "Events sent to subscribers (one per subscriber that got it).")
        m.sample("tabd_events_sent_total", eventsSent)

        m.family("tabd_journal_bytes", .gauge, unit: "bytes", help: "Bytes of records in the current journal file.")
        m.sample("tabd_journal_bytes", store.journalBytes)
        m.family("tabd_journal_records", .counter, help: "Journal records written since start.")
        m.sample("tabd_journal_records_total", store.records)
        m.family("tabd_journal_fsync_mode", .gauge, help: "The fsync setting: 1 for the one in force (always, everysec or no).")
        m.sample("tabd_journal_fsync_mode", labels: [("mode", store.fsync.rawValue)], 1)
        m.family("tabd_journal_last_fsync_seconds", .gauge, unit: "seconds", help: "How long the last fsync of the journal took.")
        m.sample("tabd_journal_last_fsync_seconds", seconds: Double(store.lastFsyncNanos) / 1e9)
        m.family("tabd_journal_degraded", .gauge, help: "1 while the journal cannot be written and changes are refused (unavailable), else 0.")
        m.sample("tabd_journal_degraded", store.fault == nil ? 0 : 1)
        m.family("tabd_journal_faults", .counter, help: "Times the journal could not be written or fsynced (the turn was undone and refused).")
        m.sample("tabd_journal_faults_total", storageFaults)

        m.family("tabd_plugin_hook_calls", .counter, help: "Calls of a plugin's hook.")
        for p in plugins { for h in p.hooks { m.sample("tabd_plugin_hook_calls_total", labels: [("plugin", p.name), ("hook", h.hook.rawValue)], h.calls) } }
        m.family("tabd_plugin_hook_duration_seconds", .counter, unit: "seconds", help: "Time spent in a plugin's hook.")
        for p in plugins {
            for h in p.hooks {
                m.sample("tabd_plugin_hook_duration_seconds_total", labels: [("plugin", p.name), ("hook", h.hook.rawValue)], seconds: Double(h.totalNanoseconds) / 1e9)
            }
        }
        m.family("tabd_plugin_failures", .counter, help: "Hook calls of a plugin that failed (errors, invalid values, bad JSON).")
        for p in plugins { m.sample("tabd_plugin_failures_total", labels: [("plugin", p.name)], p.failures) }
        m.family("tabd_plugin_denials", .counter, help: "Taps a plugin refused.")
        for p in plugins { m.sample("tabd_plugin_denials_total", labels: [("plugin", p.name)], p.denials) }
        m.family("tabd_plugin_call_refusals", .counter, help: "plugin.call requests a plugin refused.")
        for p in plugins { m.sample("tabd_plugin_call_refusals_total", labels: [("plugin", p.name)], p.callRefusals) }
        m.family("tabd_plugin_store_refusals", .counter, help: "Store writes of a plugin tabd refused: over its budget (plugins.store_bytes_per_second) or while the journal waited for a compaction.")
        for p in plugins { m.sample("tabd_plugin_store_refusals_total", labels: [("plugin", p.name)], p.storeRefusals) }
        m.family("tabd_plugin_store_written_bytes", .counter, help: "Bytes a plugin wrote to its store: keys, values and each write's record cost.")
        for p in plugins { m.sample("tabd_plugin_store_written_bytes_total", labels: [("plugin", p.name)], p.storeBytes) }
        // Isolated plugins' helpers (0 for a plugin in tabd's own process).
        m.family("tabd_plugin_crashes", .counter, help: "Times an isolated plugin's helper process died in a hook.")
        for p in plugins { m.sample("tabd_plugin_crashes_total", labels: [("plugin", p.name)], p.crashes) }
        m.family("tabd_plugin_timeouts", .counter, help: "Hooks an isolated plugin did not answer within its deadline_ms.")
        for p in plugins { m.sample("tabd_plugin_timeouts_total", labels: [("plugin", p.name)], p.timeouts) }
        m.family("tabd_plugin_restarts", .counter, help: "Times an isolated plugin's helper process was restarted.")
        for p in plugins { m.sample("tabd_plugin_restarts_total", labels: [("plugin", p.name)], p.restarts) }

        m.family("tabd_command_duration_seconds", .histogram, unit: "seconds",
                 help: "Time from reading a request line to its reply being queued, by command.")
        let bounds = Self.durationBounds.map(\.nanos)
        for (name, h) in byName {
            let counts = h.cumulativeCounts(atOrBelow: bounds)
            for (b, n) in zip(Self.durationBounds, counts) {
                m.sample("tabd_command_duration_seconds_bucket", labels: [("command", name), ("le", b.le)], n)
            }
            m.sample("tabd_command_duration_seconds_bucket", labels: [("command", name), ("le", "+Inf")], h.count)
            m.sample("tabd_command_duration_seconds_count", labels: [("command", name)], h.count)
            m.sample("tabd_command_duration_seconds_sum", labels: [("command", name)], seconds: Double(h.totalNanos) / 1e9)
        }
        m.finish()
        return m.text
    }
}
