// TabService as the transport's delegate: connections open and close, lines arrive and go
// through the engine, and each loop turn is committed — or undone and redone when its
// journal records cannot be made durable.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport

extension TabService {
    // MARK: LineServiceDelegate

    public func connectionDidOpen(_ connection: Connection) {
        engine.connectionOpened()
    }

    public func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        subscribers[connection.id] = nil
        engine.forget(connection.id)
    }

    public func connection(_ connection: Connection, refused reason: InputRefusal) {
        let reply = engine.refusal(reason, peer: connection.peer)
        connection.send(reply)
        if turnOpen {
            // Part of this turn's output: sent again should the turn be redone.
            turnReplays[turnEntries.count] = [(connection, reply)]
            turnEntries.append((connection, turnLines.count, 0))
        }
    }

    public func connectionWillDeliverLines(_ connection: Connection) {
        lineStart = clock.now()
    }

    public func connection(_ connection: Connection, didReceive line: UnsafeRawBufferPointer) {
        turnOpen = true
        let start = turnLines.count
        turnLines.append(bytes: line)
        turnEntries.append((connection, start, line.count))
        let began = lineStart
        let name = handle(line, from: connection)
        if step.outsideState { turnReplays[turnEntries.count - 1] = replayable(to: connection) }
        let end = clock.now()
        engine.record(name, nanos: clock.nanoseconds(end &- began))
        lineStart = end
    }

    /// One line through the engine, and its step delivered. Returns the command's
    /// `nameIndex` (for statistics), or `ServiceStats.invalid`.
    private func handle(_ line: UnsafeRawBufferPointer, from connection: Connection) -> Int {
        step.reset()
        current = connection
        let name = engine.handle(line, from: Client(id: connection.id, peer: connection.peer, via: connection.via), into: &step)
        current = nil
        // A `reload` command: its files and plugins are prepared here, and the engine answers.
        if !step.plain, let asked = step.reloadAsked {
            engine.reload(prepareReload(), answering: asked, into: &step)
        }
        deliver(to: connection)
        return name
    }

    /// Makes the turn's changes durable. False: they could not be; they were undone, and the
    /// transport discards the turn's output and asks for `redoTurn`.
    public func commitTurn() -> Bool {
        turnOpen = false
        do {
            try store.commit(&engine.journal)
        } catch {
            let undone = engine.undoChanges()
            storeFaulted(error.description, undone: undone)
            return false
        }
        engine.keepChanges()
        forgetTurn()
        compactIfDue()
        sendReadyStates()
        return true
    }

    /// After a failed commit (the turn's output discarded): every line of the turn again, in
    /// order, against the state as it was before the turn. Changes are refused now
    /// (`unavailable`); reads answer from the state that is durable.
    public func redoTurn() {
        bigStates.epoch += 1  // states deferred in the failed turn are deferred again below
        let entries = turnEntries
        turnLines.withBytes { all in
            for (i, e) in entries.enumerated() {
                if let replay = turnReplays[i] {
                    for (c, bytes) in replay where !c.isClosedForGood { c.send(bytes) }
                    continue
                }
                guard !e.connection.isClosedForGood else { continue }
                _ = handle(UnsafeRawBufferPointer(rebasing: all[e.start..<(e.start + e.count)]), from: e.connection)
            }
        }
        // Lines replayed from their output (a reload, a plugin call) changed the plugins or
        // what they know, and are not run again; the undo put back the controllers the turn
        // changed with the orientations the plugins decided before those lines. Asked again
        // (not a change of state: nothing to journal, so it is not refused now).
        if !turnReplays.isEmpty {
            outsideALine { $0.decideOrientations(into: &$1) }
        }
        engine.keepChanges()
        forgetTurn()
        sendReadyStates()
    }

    private func forgetTurn() {
        guard !turnEntries.isEmpty else { return }
        turnEntries.removeAll(keepingCapacity: turnEntries.count <= 4096)
        if !turnReplays.isEmpty { turnReplays.removeAll() }
        if turnLines.count > 1 << 20 { turnLines = JSONWriter(capacity: 4096) } else { turnLines.reset() }
    }

    /// Measures the latency clock's rate again (every few seconds: it only gets closer).
    public func calibrateClock() {
        clock.calibrate()
    }
}
