// Warnings with a rate (issue 43): what tabd says about a plugin's behaviour — a hook
// call's cap passed, an event or a call result refused, a store write over its budget, a
// chain of selections cut — is said once per period for each plugin (or controller) and
// kind, then once more at the end of the period with how many more times it happened.
// Two plugins answering each other's selection changes logged 1,121 lines in 5 s before.

import Logging
import TabSystem

public final class PluginWarnings {
    /// Seconds between two lines of one kind about one subject (plugins.warning_period_seconds).
    public var period = PluginWarnings.defaultPeriod
    public static let defaultPeriod = 10.0
    /// Runs a closure on the loop later (the daemon's); nil: the count is said with the next
    /// warning of the kind after the period instead.
    var schedule: ((Double, @escaping () -> Void) -> Void)?
    let logger: Logger

    private struct Key: Hashable {
        let subject: String
        let kind: String
    }
    private struct Entry {
        /// When the last line of this kind was said.
        var said: UInt64
        /// How many were not said since.
        var repeated = 0
        var message: String
        var metadata: Logger.Metadata
        var flushScheduled = false
    }
    private var entries: [Key: Entry] = [:]

    init(logger: Logger) { self.logger = logger }

    /// Says `message` (a sentence naming the subject and what to do) at warning, unless one of
    /// `kind` about `subject` (a plugin's name, "controller x") was said less than `period`
    /// ago: then it is counted, and the count said at the end of the period.
    public func warn(_ kind: String, subject: String, _ message: @autoclosure () -> String,
                     metadata: @autoclosure () -> Logger.Metadata = [:]) {
        let key = Key(subject: subject, kind: kind)
        let now = monotonicNanoseconds()
        if var e = entries[key] {
            // Within the period, or its end is already scheduled (a busy loop may run it late:
            // it says the count then, once).
            if Double(now &- e.said) < period * 1e9 || e.flushScheduled {
                e.repeated += 1
                e.message = message()
                e.metadata = metadata()
                if !e.flushScheduled, let schedule {
                    e.flushScheduled = true
                    let wait = max(0.001, period - Double(now &- e.said) / 1e9)
                    schedule(wait) { [weak self] in self?.flush(key) }
                }
                entries[key] = e
                return
            }
            if e.repeated > 0 {
                // No scheduler said it: the count comes with this one.
                e.repeated += 1
                e.message = message()
                e.metadata = metadata()
                say(&e, now)
                entries[key] = e
                return
            }
        }
        var e = Entry(said: now, message: message(), metadata: metadata())
        logger.warning("\(e.message)", metadata: e.metadata)
        e.said = now
        entries[key] = e
    }

    /// The end of a period: the count of what was not said, if any; an entry with nothing
    /// to say is forgotten (the next one of its kind is said at once).
    private func flush(_ key: Key) {
        guard var e = entries[key] else { return }
        e.flushScheduled = false
        guard e.repeated > 0 else { entries[key] = nil; return }
        say(&e, monotonicNanoseconds())
        entries[key] = e
        if let schedule {
            entries[key]?.flushScheduled = true
            schedule(period) { [weak self] in self?.flush(key) }
        }
    }

    private func say(_ e: inout Entry, _ now: UInt64) {
        var metadata = e.metadata
        metadata["warning.repeated"] = "\(e.repeated)"
        metadata["warning.period_seconds"] = "\(period)"
        logger.warning("\(e.message) (\(e.repeated) more like it in the last \(Self.seconds(Double(now &- e.said) / 1e9)) s, said once every \(Self.seconds(period)) s: plugins.warning_period_seconds)", metadata: metadata)
        e.said = now
        e.repeated = 0
    }

    private static func seconds(_ s: Double) -> String {
        let r = (s * 10).rounded() / 10
        return r == r.rounded() ? "\(Int(r))" : "\(r)"
    }
}
