// TabService as the transport's delegate: connections open and close, lines arrive and
// are handled, and each loop turn is committed — or undone and redone when its journal
// records cannot be made durable.

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
        connection.context = ClientState()
        stats.connectionsAccepted += 1
    }

    public func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        subscribers[connection.id] = nil
    }

    public func connection(_ connection: Connection, refused reason: InputRefusal) {
        let error = switch reason {
        case .lineTooLong:
            ProtocolError(.tooLarge, "the request line is longer than \(config.maxLineBytes) bytes (limits.max_line_bytes); the connection will be closed")
        case .lineTimeout:
            ProtocolError(.invalidRequest, "the request line was not finished within \(config.lineTimeout.formatted) s (limits.line_timeout_seconds); the connection will be closed")
        case .overBudget:
            ProtocolError(.overloaded, "all clients together hold more than tabd allows them (five eighths of limits.memory_budget_bytes, \(config.memoryBudgetBytes / 8 * 5) of \(config.memoryBudgetBytes) bytes) and this connection held the most of those not taking their replies; it will be closed")
        case .tooManyConnections:
            ProtocolError(.overloaded, "every connection slot open to uid \(connection.peer.uid) is taken (limits.max_connections less limits.admin_reserved_connections, kept for root and admins); the connection will be closed: try again once others closed")
        case .tooManyForUID:
            ProtocolError(.overloaded, "uid \(connection.peer.uid) holds as many connections as one uid may (limits.max_connections_per_uid); the connection will be closed: close one of the others first")
        case .idle:
            ProtocolError(.invalidRequest, "the connection sent nothing and subscribed to nothing for \(config.idleTimeout.formatted) s (limits.idle_timeout_seconds); it will be closed")
        }
        stats.countError(error.code)
        let reply = ReplyEncoder.failure(id: nil, error)
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
        if let captured = capture {
            turnReplays[turnEntries.count - 1] = captured
            capture = nil
        }
        let end = clock.now()
        stats.record(name, nanos: clock.nanoseconds(end &- began))
        lineStart = end
    }

    /// Handles one line; its reply is sent. Returns the command's `nameIndex` (for
    /// statistics), or `ServiceStats.invalid`.
    private func handle(_ line: UnsafeRawBufferPointer, from connection: Connection) -> Int {
        w.reset()
        let name: Int
        var common = false
        var generalID: RequestID?
        let request = RequestDecoder.decodeCommon(line, found: &common)
        if common {
            // The requests clients send most, without the (id, Result) wrapping; none of
            // them acts outside the state.
            name = request.command.nameIndex
            run(request, from: connection)
        } else {
            let (id, result) = RequestDecoder.decodeInGeneral(line, maxDepth: config.maxJSONDepth)
            generalID = id
            switch result {
            case .failure(let error):
                name = ServiceStats.invalid
                stats.countError(error.code)
                ReplyEncoder.failure(id: id, error, into: &w)
            case .success(let request):
                name = request.command.nameIndex
                if Self.actsOutsideState(request.command) { capture = [] }
                run(request, from: connection)
            }
        }
        w.withBytes { connection.send($0) }
        if capture != nil { capture!.append((connection, captureStoreWriters.isEmpty ? w.bytes : storeNotKept(id: generalID))) }
        return name
    }

    /// What a plugin call or reload that wrote plugins' stores answers should its turn be
    /// redone: its store writes were not made durable, so it is not acknowledged (a logout
    /// answered ok would come back as a login after kill -9).
    private func storeNotKept(id: RequestID?) -> [UInt8] {
        let plugins = captureStoreWriters.sorted().map { "'\($0)'" }.joined(separator: ", ")
        captureStoreWriters.removeAll()
        let error = ProtocolError(.unavailable, "the journal could not be written, so what plugin \(plugins) wrote to its store is not durable: it holds until tabd stops and is written once the journal can be written again; check the plugin's state then")
        return ReplyEncoder.failure(id: id, error)
    }

    /// Commands whose effects an undone turn cannot take back (they are in plugins or the
    /// configuration): their output is kept for a redo instead of running them again.
    private static func actsOutsideState(_ command: RequestCommand) -> Bool {
        switch command {
        case .pluginCall, .reload: return true
        default: return false
        }
    }

    /// Makes the turn's changes durable. False: they could not be; they were undone, and the
    /// transport discards the turn's output and asks for `redoTurn`.
    public func commitTurn() -> Bool {
        turnOpen = false
        do {
            try store.commit()
        } catch {
            let undone = containers.undoChanges()
            storeFaulted(error.description, undone: undone)
            return false
        }
        containers.keepChanges()
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
        if !turnReplays.isEmpty { perform(containers.decideOrientations(policy: policy)) }
        containers.keepChanges()
        forgetTurn()
        sendReadyStates()
    }

    private func forgetTurn() {
        // A huge reply or event (a `state` of thousands of tabs) grew these: given back.
        w.reset(keepingAtMost: 1 << 20)
        ew.reset(keepingAtMost: 1 << 20)
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
