// Counters for `stats` and `metrics`: per-command counts and latency (LatencyHistogram:
// log-linear buckets, so p50/p99 are within 1.6% and cost a few instructions to record),
// errors, events, connections.

import Foundation
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport
import TabState

struct ServiceStats {
    let started: Date
    /// By command (its `RequestCommand.nameIndex`; `invalid` past them), its histogram
    /// once one was recorded: an array read per request, where a name was compared.
    private var byCommand = [LatencyHistogram?](repeating: nil, count: commandNames.count + 1)
    /// Where lines that were no request are counted (as "invalid").
    static let invalid = commandNames.count
    var errors: UInt64 = 0
    /// Error replies by code (`ProtocolError.Code.allCases`' order).
    private(set) var errorsByCode = [UInt64](repeating: 0, count: ProtocolError.Code.allCases.count)
    /// Reloads; the last success is the start until one succeeds (the same instant as
    /// `started`: metrics say the two are equal, and two clock readings could differ).
    var reloads: ReloadStatus
    var denials: UInt64 = 0
    var eventsSent: UInt64 = 0
    var connectionsAccepted: UInt64 = 0

    init() {
        started = Date()
        reloads = ReloadStatus(lastSuccess: started)
    }
    /// Turns (or changes outside a turn) whose records could not be written: undone and refused.
    var storageFaults: UInt64 = 0

    mutating func countError(_ code: ProtocolError.Code) {
        errors += 1
        errorsByCode[ProtocolError.Code.allCases.firstIndex(of: code)!] += 1
    }

    /// Error replies by code, every code (0 for those not sent).
    var errorCounts: [(code: String, count: UInt64)] {
        zip(ProtocolError.Code.allCases, errorsByCode).map { ($0.rawValue, $1) }
    }

    @inline(__always)
    mutating func record(_ command: Int, nanos: UInt64) {
        if let h = byCommand[command] { return h.record(nanos) }
        recordFirst(command, nanos: nanos)
    }

    private mutating func recordFirst(_ command: Int, nanos: UInt64) {
        let h = LatencyHistogram()
        byCommand[command] = h
        h.record(nanos)
    }

    /// Per command name (one of `commandNames`, or "invalid"), its histogram.
    var histograms: [String: LatencyHistogram] {
        var byName: [String: LatencyHistogram] = [:]
        for (i, h) in byCommand.enumerated() {
            if let h { byName[i < commandNames.count ? commandNames[i] : "invalid"] = h }
        }
        return byName
    }

    func encode(_ w: inout JSONWriter, transport: LineServer.Status, subscribers: Int, store: JournalFigures, plugins: PluginHost) {
        w.key(literal: "uptime_seconds"); w.double((Date().timeIntervalSince(started) * 1000).rounded() / 1000)
        w.key(literal: "connections"); w.int(transport.connections)
        w.key(literal: "connections_accepted"); w.int(Int(connectionsAccepted))
        w.key(literal: "max_connections"); w.int(transport.maxConnections)
        // What all connections hold (unfinished lines, input waiting, output not written)
        // against the budget, and connections closed for a limit, by reason.
        w.key(literal: "memory"); w.beginObject()
        w.key(literal: "held_bytes"); w.int(transport.heldBytes)
        w.key(literal: "budget_bytes"); w.int(transport.memoryBudget)
        w.endObject()
        w.key(literal: "limits_hit"); w.beginObject()
        for (reason, count) in transport.limitHits.sorted(by: { $0.key < $1.key }) { w.key(reason); w.int(count) }
        w.endObject()
        w.key(literal: "subscribers"); w.int(subscribers)
        let byName = histograms.sorted(by: { $0.key < $1.key })
        w.key(literal: "commands_total"); w.int(Int(byName.reduce(0) { $0 + $1.value.count }))
        w.key(literal: "errors"); w.int(Int(errors))
        w.key(literal: "errors_by_code"); w.beginObject()
        for (code, n) in errorCounts where n > 0 { w.key(code); w.int(Int(n)) }
        w.endObject()
        w.key(literal: "reload"); reloads.encode(&w)
        w.key(literal: "denials"); w.int(Int(denials))
        w.key(literal: "events_sent"); w.int(Int(eventsSent))
        w.key(literal: "journal"); w.beginObject()
        w.key(literal: "fsync"); w.string(store.fsync.rawValue)
        w.key(literal: "bytes"); w.int(store.journalBytes)
        w.key(literal: "records"); w.int(Int(store.records))
        w.key(literal: "last_fsync_us"); w.double(Double(store.lastFsyncNanos) / 1000)
        w.key(literal: "seq"); w.int(Int(store.committedSeq))
        // "ok", or "degraded": the journal cannot be written, changes are refused (`fault` says why).
        w.key(literal: "state"); w.string(store.fault == nil ? "ok" : "degraded")
        w.key(literal: "fault"); ReplyEncoder.optionalString(store.fault, &w)
        w.key(literal: "faults"); w.int(Int(storageFaults))
        w.endObject()
        w.key(literal: "commands"); w.beginObject()
        for (name, h) in byName {
            w.key(name); w.beginObject()
            w.key(literal: "count"); w.int(Int(h.count))
            w.key(literal: "mean_us"); w.double((Double(h.totalNanos) / Double(max(h.count, 1)) / 10).rounded() / 100)
            w.key("p50_us"); w.double(Double(h.quantile(0.5)) / 1000)
            w.key("p99_us"); w.double(Double(h.quantile(0.99)) / 1000)
            w.key(literal: "max_us"); w.double(Double(h.maxNanos) / 1000)
            w.endObject()
        }
        w.endObject()
        w.key(literal: "plugins"); w.beginArray()
        for p in plugins.stats { PluginsEncoding.stats(p, &w) }
        w.endArray()
    }
}

/// How reloads went since start: what `stats`, `metrics` and systemd's STATUS= line say. A
/// failed reload stays "failed" until a reload succeeds (or tabd restarts): the file on disk
/// is still the one refused, and the next start would refuse it too.
struct ReloadStatus {
    var successes: UInt64 = 0
    var failures: UInt64 = 0
    /// The start, then each successful reload.
    var lastSuccess: Date
    /// The last reload, when it failed and none succeeded since: when, and its problems.
    var failed: (at: Date, problems: [String])?

    mutating func record(_ problems: [String]?) {
        if let problems {
            failures += 1
            failed = (Date(), problems)
        } else {
            successes += 1
            lastSuccess = Date()
            failed = nil
        }
    }

    /// `{"last":"ok"|"failed","successes","failures","last_success_time","failed_at","problems"}`
    func encode(_ w: inout JSONWriter) {
        w.beginObject()
        w.key(literal: "last"); w.string(failed == nil ? "ok" : "failed")
        w.key(literal: "successes"); w.int(Int(successes))
        w.key(literal: "failures"); w.int(Int(failures))
        w.key(literal: "last_success_time"); w.string(RFC3339.string(lastSuccess))
        w.key(literal: "failed_at"); ReplyEncoder.optionalString(failed.map { RFC3339.string($0.at) }, &w)
        w.key(literal: "problems"); ReplyEncoder.strings(failed?.problems ?? [], &w)
        w.endObject()
    }

}
