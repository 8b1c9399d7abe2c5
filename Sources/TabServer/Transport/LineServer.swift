// Line-delimited requests over a Unix socket, independent of what the lines mean.
//
// A turn: every connection the poll found readable hands its complete lines to the delegate
// (whose replies are held), then — in an event activated by the first of them, which libevent
// runs after every callback that poll made ready — the delegate commits once (`commitTurn`), and only then are
// the held replies written. So nothing a turn produced reaches a client before it is durable,
// and the commit is shared by every request of the turn (group commit).

import CLibevent
import Glibc
import Logging

public protocol LineServiceDelegate: AnyObject {
    func connectionDidOpen(_ connection: Connection)
    /// One complete request line, without its trailing "\n" or "\r\n"; never empty (empty
    /// lines are skipped). The buffer is valid only during the call.
    func connection(_ connection: Connection, didReceive line: UnsafeRawBufferPointer)
    /// The client sent more than `limits.maxLineBytes` without a newline. The delegate sends
    /// an error line; the transport then flushes and closes.
    func connectionLineTooLong(_ connection: Connection)
    /// Input arrived on the connection and its lines are about to be handed over (none, one
    /// or many). The service takes its clock reading here: each line's time then runs from
    /// the end of the one before, one clock read per line.
    func connectionWillDeliverLines(_ connection: Connection)
    /// The connection is gone (its descriptor is closed). Called once per connection.
    func connectionDidClose(_ connection: Connection, reason: CloseReason)
    /// Called once per turn in which any line was received, after every readable
    /// connection's lines were handed over and before any reply produced during that turn is
    /// written to a socket. Replies are released when it returns true. False: the turn could
    /// not be committed; its output is discarded, then `redoTurn` produces the output that
    /// replaces it, and that is released.
    func commitTurn() -> Bool
    /// After a failed `commitTurn`: the turn's replies again (connections that closed their
    /// input during the turn still get them).
    func redoTurn()
}

extension LineServiceDelegate {
    public func connectionWillDeliverLines(_ connection: Connection) {}
    public func redoTurn() {}
}

/// Bounds that keep one client from costing the others.
public struct TransportLimits: Sendable {
    /// Longest request line, without its "\n".
    public var maxLineBytes = 1 << 20
    /// Unsent output a client may have; beyond it the client is dropped (a slow reader never
    /// blocks the loop, nor makes it grow without bound).
    public var maxOutputBytes = 8 << 20
    /// Connections served at once; beyond it tabd stops accepting until one closes.
    public var maxConnections = 100_000
    /// Seconds without accepting after running out of descriptors (EMFILE, ENFILE).
    public var acceptBackoff = 0.1
    /// Seconds a closing client gets to take its output (at shutdown, after `close()`, end
    /// of input or a too long line); then it is closed anyway.
    public var closeGracePeriod = 2.0
    /// Longest a turn may be kept open by sockets that keep becoming ready: after this many
    /// seconds the turn is committed and its replies released even if more input is waiting.
    public var maxTurnDelay = 0.01

    public init() {}

    public init(maxLineBytes: Int = 1 << 20, maxOutputBytes: Int = 8 << 20, maxConnections: Int = 100_000,
                acceptBackoff: Double = 0.1, closeGracePeriod: Double = 2.0, maxTurnDelay: Double = 0.01) {
        self.maxLineBytes = maxLineBytes
        self.maxOutputBytes = maxOutputBytes
        self.maxConnections = maxConnections
        self.acceptBackoff = acceptBackoff
        self.closeGracePeriod = closeGracePeriod
        self.maxTurnDelay = maxTurnDelay
    }
}

public final class LineServer {
    public let loop: EventLoop
    public let limits: TransportLimits
    /// Held strongly: the server is the delegate's only caller.
    let delegate: LineServiceDelegate
    let logger: Logger
    private let listener: ListeningSocket
    let acceptor: Acceptor

    private var byID: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 1

    /// One read buffer for all connections: lines are framed in place, only an unterminated
    /// rest is copied into its connection.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)

    /// Every reply of the turn, one after another: a connection's replies usually form one
    /// run here and are written straight from it when the turn ends, so a connection whose
    /// socket takes them needs no buffer of its own (no allocation per request). Emptied at
    /// the end of every turn.
    private(set) var turnOutput: UnsafeMutableRawPointer
    private(set) var turnOutputBytes = 0
    private var turnOutputCapacity = LineServer.turnOutputKeep

    /// The turn buffer's capacity kept between turns (a bigger one, grown for a big turn, is given back).
    static let turnOutputKeep = 64 << 10

    // The end of the turn.
    private var endOfTurnEvent: OpaquePointer?
    private var endOfTurnPending = false
    private var turnOpenedAt = 0.0
    private var linesThisTurn = false
    private var toRelease: [Connection] = []
    private var toReap: [Connection] = []
    /// Turns committed so far (tests).
    private(set) var commits = 0

    // Shutdown.
    private enum ShutdownPhase { case serving, draining, done }
    private var shutdownPhase = ShutdownPhase.serving
    private var afterShutdown: [() -> Void] = []
    private var shutdownDeadline: TimerHandle?
    private var listenerClosed = false

    /// Takes ownership of `listener`'s descriptor. Call `start()` to accept connections.
    public init(loop: EventLoop, listener: ListeningSocket, limits: TransportLimits = TransportLimits(),
                delegate: LineServiceDelegate, logger: Logger) {
        self.loop = loop
        self.listener = listener
        self.limits = limits
        self.delegate = delegate
        self.logger = logger
        turnOutput = .allocate(byteCount: LineServer.turnOutputKeep, alignment: 16)
        acceptor = Acceptor(loop: loop, fd: listener.fd, backoff: limits.acceptBackoff, logger: logger)
        endOfTurnEvent = tabd_evtimer_new(loop.base, Int16(EV_PERSIST), { _, _, ctx in
            Unmanaged<LineServer>.fromOpaque(ctx!).takeUnretainedValue().endTurn()
        }, Unmanaged.passUnretained(self).toOpaque())
        event_priority_set(endOfTurnEvent, EventLoop.endOfTurnPriority)
        acceptor.hasRoom = { [unowned self] in byID.count < limits.maxConnections }
        acceptor.onAccept = { [unowned self] fd in accepted(fd) }
    }

    deinit {
        // Free every event here, while the loop (a stored property) surely still exists.
        for c in byID.values {
            c.lingerTimer?.cancel()
            c.tearDown()
        }
        acceptor.invalidate()
        shutdownDeadline?.cancel()
        if let endOfTurnEvent { event_free(endOfTurnEvent) }
        closeListener()
        readBuffer.deallocate()
        turnOutput.deallocate()
    }

    /// Starts accepting connections.
    public func start() {
        acceptor.start()
    }

    /// Connections currently open (including closing ones not yet torn down).
    public var connectionCount: Int { byID.count }

    public var connections: some Collection<Connection> { byID.values }

    /// Stops accepting, stops reading, lets every connection take what is queued for it (at
    /// most `limits.closeGracePeriod` seconds), closes them all, then calls `then`.
    public func beginShutdown(then: @escaping () -> Void) {
        switch shutdownPhase {
        case .done: return then()
        case .draining: return afterShutdown.append(then)
        case .serving: break
        }
        shutdownPhase = .draining
        afterShutdown.append(then)
        acceptor.stop()
        closeListener()
        for c in byID.values where c.state == .open { beginClosing(c, .serverShutdown) }
        shutdownDeadline = loop.once(after: limits.closeGracePeriod) { [unowned self] in
            shutdownDeadline = nil
            if !byID.isEmpty {
                logger.warning("shutdown: closing clients that did not take their output in time", metadata: [
                    "shutdown.connections": "\(byID.count)",
                ])
            }
            for c in Array(byID.values) { tearDown(c, reason: .serverShutdown) }
        }
        wakeEndOfTurn()
    }

    // MARK: Accepting

    private func accepted(_ fd: Int32) {
        let peer: PeerCredentials
        do {
            peer = try Sys.peerCredentials(fd)
        } catch {
            logger.warning("refusing a connection whose peer is unknown", metadata: ["error": "\(error)"])
            Sys.close(fd)
            return
        }
        let id = nextID
        nextID += 1
        let connection = Connection(id: id, fd: fd, peer: peer, server: self)
        guard connection.register(on: loop) else {
            logger.error("cannot watch a new connection (out of memory?); closing it", metadata: ["connection.id": "\(id)"])
            return  // deinit closes the descriptor
        }
        byID[id] = connection
        logger.debug("connection opened", metadata: [
            "connection.id": "\(id)", "connection.peer.pid": "\(peer.pid)",
            "connection.peer.uid": "\(peer.uid)", "connection.peer.gid": "\(peer.gid)",
        ])
        delegate.connectionDidOpen(connection)
    }

    // MARK: Turns

    func deliver(_ line: UnsafeRawBufferPointer, from connection: Connection) {
        linesThisTurn = true
        wakeEndOfTurn()
        delegate.connection(connection, didReceive: line)
    }

    /// Appends to the turn buffer; returns where the bytes start.
    func appendToTurn(_ bytes: UnsafeRawBufferPointer) -> Int {
        let at = turnOutputBytes
        let needed = at + bytes.count
        if needed > turnOutputCapacity {
            var c = turnOutputCapacity * 2
            while c < needed { c *= 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: c, alignment: 16)
            grown.copyMemory(from: turnOutput, byteCount: at)
            turnOutput.deallocate()
            turnOutput = grown
            turnOutputCapacity = c
        }
        (turnOutput + at).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        turnOutputBytes = needed
        return at
    }

    func releaseAtEndOfTurn(_ connection: Connection) {
        if !connection.awaitingRelease {
            connection.awaitingRelease = true
            toRelease.append(connection)
        }
        wakeEndOfTurn()
    }

    /// While the delegate redoes a turn: a connection that closed its input during the turn
    /// still takes replies.
    private(set) var redoing = false

    /// Everything the turn produced is discarded (its commit failed): held output only;
    /// what earlier turns released is not touched.
    private func discardTurnOutput() {
        for c in toRelease {
            c.awaitingRelease = false
            c.discardTurnOutput()
        }
        toRelease = []
        turnOutputBytes = 0
    }

    /// Activates the end-of-turn event: it runs after the callbacks already queued by this poll.
    private func wakeEndOfTurn() {
        guard !endOfTurnPending else { return }
        endOfTurnPending = true
        turnOpenedAt = Sys.monotonicSeconds()
        event_active(endOfTurnEvent, EV_TIMEOUT, 0)
    }

    /// A safety net: should a turn stay open longer than `maxTurnDelay` (one poll's callbacks
    /// taking that long), it ends here and now. Called at the start of every I/O callback.
    func closeTurnIfOverdue() {
        guard endOfTurnPending, Sys.monotonicSeconds() - turnOpenedAt > limits.maxTurnDelay else { return }
        event_del(endOfTurnEvent)  // also removes it from the active queue
        endTurn()
    }

    /// Commits the turn's requests, then releases every held reply, then closes what has to.
    private func endTurn() {
        endOfTurnPending = false
        if linesThisTurn {
            linesThisTurn = false
            commits += 1
            if !delegate.commitTurn() {
                discardTurnOutput()
                redoing = true
                delegate.redoTurn()
                redoing = false
            }
        }
        let releasing = toRelease
        toRelease = []
        for c in releasing {
            c.awaitingRelease = false
            c.release()
        }
        // Every run in the turn buffer was written or copied by its connection's release.
        turnOutputBytes = 0
        if turnOutputCapacity > 16 * LineServer.turnOutputKeep {
            turnOutput.deallocate()
            turnOutput = .allocate(byteCount: LineServer.turnOutputKeep, alignment: 16)
            turnOutputCapacity = LineServer.turnOutputKeep
        }
        let reaping = toReap
        toReap = []
        for c in reaping {
            c.awaitingReap = false
            reap(c)
        }
        finishShutdownIfDone()
    }

    // MARK: Closing

    func lineTooLong(_ connection: Connection) {
        logger.warning("request line too long: answering with an error and closing", metadata: [
            "connection.id": "\(connection.id)", "limits.max_line_bytes": "\(limits.maxLineBytes)",
        ])
        wakeEndOfTurn()  // the error reply is released (and the line is not committed)
        delegate.connectionLineTooLong(connection)
        if connection.state == .open { beginClosing(connection, .lineTooLong) }
    }

    /// Stops reading; the connection closes once its output is written.
    func beginClosing(_ connection: Connection, _ reason: CloseReason) {
        connection.markClosing(reason)
        reapAtEndOfTurn(connection)
    }

    /// Discards the connection's output and closes it at the end of the turn (never inside a
    /// delegate call).
    func drop(_ connection: Connection, _ reason: CloseReason) {
        guard connection.state != .closed else { return }
        if reason == .outputOverflow {
            logger.warning("client does not read its output: dropping it", metadata: [
                "connection.id": "\(connection.id)", "limits.max_output_bytes": "\(limits.maxOutputBytes)",
            ])
        }
        connection.markDropping(reason)
        reapAtEndOfTurn(connection)
    }

    private func reapAtEndOfTurn(_ connection: Connection) {
        if !connection.awaitingReap {
            connection.awaitingReap = true
            toReap.append(connection)
        }
        wakeEndOfTurn()
    }

    /// Tears the connection down if it is dropping, or closing with nothing left to write.
    func reap(_ connection: Connection) {
        switch connection.state {
        case .dropping(let reason):
            tearDown(connection, reason: reason)
        case .closing(let reason) where connection.isFlushed:
            tearDown(connection, reason: reason)
        case .closing(let reason):
            // A client that does not take its output must not keep its descriptor forever.
            if connection.lingerTimer == nil {
                connection.lingerTimer = loop.once(after: limits.closeGracePeriod) { [unowned self, unowned connection] in
                    connection.lingerTimer = nil
                    tearDown(connection, reason: reason)
                }
            }
        case .open, .closed:
            break
        }
    }

    private func tearDown(_ connection: Connection, reason: CloseReason) {
        guard connection.state != .closed else { return }
        connection.lingerTimer?.cancel()
        connection.lingerTimer = nil
        connection.tearDown()
        byID[connection.id] = nil
        logger.debug("connection closed", metadata: ["connection.id": "\(connection.id)", "connection.reason": "\(reason)"])
        delegate.connectionDidClose(connection, reason: reason)
        connection.context = nil
        acceptor.connectionClosed()
        finishShutdownIfDone()
    }

    private func finishShutdownIfDone() {
        guard shutdownPhase == .draining, byID.isEmpty else { return }
        shutdownPhase = .done
        shutdownDeadline?.cancel()
        shutdownDeadline = nil
        let waiting = afterShutdown
        afterShutdown = []
        for then in waiting { then() }
    }

    private func closeListener() {
        guard !listenerClosed else { return }
        listenerClosed = true
        Sys.close(listener.fd)
    }
}
