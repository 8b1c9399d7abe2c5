// TabService at start and around the journal: recovery (snapshot, journal replay, then the
// engine's configured controllers), commits outside a turn, and storage faults with their retries.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport
import TabState

extension TabService {
    // MARK: Recovery

    /// Loads the snapshot, replays the journal and creates configured controllers. Throws
    /// one sentence (a `StateError`) when the state directory cannot be trusted.
    public func recover(repair: Bool) throws {
        try recoverState(repair: repair)
        finishRecovery()
    }

    /// The first half of `recover`: the snapshot and the journal, without plugins. Their
    /// stores are handed to the plugin host, so that plugins loaded after this see in init
    /// what they kept (plugin ABI 1.6).
    public func recoverState(repair: Bool) throws {
        // What replayed records did not match (plugins' answers journaled with a command that
        // asked otherwise on replay, R15.8 d): each logged as a warning once recovery ends.
        var anomalies: [String] = []
        let report = try store.recover(repair: repair, StateStore.Replay(
            start: { [unowned self] snapshot in engine.containers = snapshot ?? .withDefault() },
            apply: { [unowned self] record, semantics in
                do throws(TabError) {
                    anomalies += try engine.containers.replay(record, semantics: semantics)
                    return nil
                } catch { return error.message }
            },
            state: { [unowned self] in engine.containers }
        ))
        engine.containers.keepChanges()
        engine.journal = store.batch()
        engine.fault = store.fault
        var metadata: Logger.Metadata = [
            "state.controllers": "\(engine.containers.count)", "state.replayed": "\(report.applied)",
            "state.generation": "\(report.generation)", "journal.seq": "\(report.lastSeq)",
        ]
        if report.formatRead < JournalCodec.version { metadata["state.upgraded_from_format"] = "\(report.formatRead)" }
        if report.tornBytes > 0 { metadata["state.torn_bytes_cut"] = "\(report.tornBytes)" }
        if !report.setAside.isEmpty {
            metadata["state.set_aside"] = .array(report.setAside.map { .string("\($0)") })
            metadata["state.lost_records"] = "\(report.lostRecords)"
            metadata["state.lost_controllers"] = "\(report.lostControllers)"
        }
        if !anomalies.isEmpty { metadata["state.replay_warnings"] = "\(anomalies.count)" }
        for anomaly in anomalies {
            logger.warning("replay: a journal record's plugin answers did not match what its command asked; the proposal was kept (the state may differ from before the restart): \(anomaly)",
                           metadata: ["state.replay": .string(anomaly)])
        }
        logger.info("state recovered", metadata: metadata)
        plugins.adoptStore(engine.containers.pluginData)
        plugins.adoptControllers(engine.containers.names)
    }

    /// The second half of `recover`, once the plugins are loaded: what their init asked for,
    /// their orientations, the configured controllers, all committed.
    public func finishRecovery() {
        outsideALine { $0.finishRecovery(into: &$1) }
        commitOutsideTurn()
    }

    // MARK: Storage faults

    /// Commits what was changed outside a turn (start, SIGHUP, a retry); on failure the
    /// changes are undone.
    /// Returns whether they were made durable.
    @discardableResult
    func commitOutsideTurn() -> Bool {
        do {
            try store.commit(&engine.journal)
            engine.keepChanges()
            // A timer's writes, as a turn's: the journal is compacted when it has grown enough.
            if !turnOpen { compactIfDue() }
            return true
        } catch {
            let undone = engine.undoChanges()
            storeFaulted(error.description, undone: undone)
            return false
        }
    }

    /// The journal could not be written: say so, and try again with backoff.
    func storeFaulted(_ fault: String, undone: [String]) {
        engine.storageFaulted(fault)
        logger.error("the journal cannot be written: changes are refused (unavailable) until it can; reads go on", metadata: [
            "error": "\(fault)", "undone.controllers": "\(undone)", "retry.seconds": "\(retryDelay)",
        ])
        hooks.stateFault(fault)
        scheduleRetry()
    }

    /// Starts a compaction when the journal has grown to `compact_bytes` or a snapshot is owed.
    /// Nothing is pending where it is called; should compact's own commit still fail, that is
    /// a storage fault like any other.
    func compactIfDue() {
        guard store.needsCompaction else { return }
        do { try store.compact(engine.containers) } catch { storeFaulted(error.description, undone: []) }
    }

    private func scheduleRetry() {
        guard !retryScheduled else { return }
        retryScheduled = true
        hooks.schedule(retryDelay) { [weak self] in self?.retryStore() }
        retryDelay = min(retryDelay * 2, 5)
    }

    private func retryStore() {
        retryScheduled = false
        guard store.fault != nil else { return }
        guard store.retry() else { return scheduleRetry() }
        engine.fault = nil
        engine.journal = store.batch()
        retryDelay = 0.05
        logger.notice("the journal can be written again: changes are accepted", metadata: ["state.directory": "\(store.directory)"])
        // The whole state is written anew: whatever a failed fsync may have lost is covered
        // (now, or as soon as a compaction under way has finished).
        store.requestSnapshot()
        compactIfDue()
        guard store.fault == nil else { return }
        outsideALine { $0.createConfiguredControllers(into: &$1) }
        commitOutsideTurn()
        if store.fault == nil { hooks.stateFault(nil) }
    }

    /// Once a second under `everysec`: the journal is fsynced off the loop; `onLoop` brings
    /// the result back to the loop thread (the loop's door). The service goes along as a
    /// `LoopBound`: the helper thread only carries it.
    public func tick(onLoop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        if !turnOpen { compactIfDue() }
        let service = LoopBound(self)
        store.syncInBackground { nanos, error in
            onLoop {
                let service = service.value
                service.store.backgroundSyncFinished(nanos: nanos, error: error)
                if let error {
                    service.logger.critical("changes acknowledged since the last good fsync may not be on disk", metadata: ["error": "\(error)"])
                    service.storeFaulted(error, undone: [])
                }
            }
        }
    }

    /// At shutdown, once the clients were answered: every plugin's fini (their timers were
    /// stopped as the shutdown began); what they asked for is done, and `finish` commits it.
    public func stopPlugins() {
        outsideALine { $0.stopPlugins(into: &$1) }
    }

    /// At shutdown: everything written and synced.
    public func finish() {
        do {
            try store.commit(&engine.journal)
            store.finishBackgroundWork()
            if store.fsync != .no { try store.syncIfNeeded() }
        } catch {
            logger.critical("could not flush the journal at shutdown", metadata: ["error": "\(error.description)"])
        }
    }
}
