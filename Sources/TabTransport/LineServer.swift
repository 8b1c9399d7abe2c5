// Line-delimited requests over a Unix socket, independent of what the lines mean.
//
// A turn: every connection the poll found readable hands its complete lines to the delegate
// (whose replies are held), then — in an event activated by the first of them, which libevent
// runs after every callback that poll made ready — the delegate commits once (`commitTurn`), and only then are
// the held replies written. So nothing a turn produced reaches a client before it is durable,
// and the commit is shared by every request of the turn (group commit).

import CLibevent
import CLinux
import Glibc
import Logging
import TabSystem

/// Why the transport refuses a client's input and closes the connection. The delegate
/// answers with one error line, which is written before the connection closes.
public enum InputRefusal: Equatable, Sendable {
    /// A line longer than `limits.maxLineBytes`.
    case lineTooLong
    /// A line not finished within `limits.lineTimeout` seconds of its first byte.
    case lineTimeout
    /// All connections together held more than `limits.memoryBudget`; this one, holding the
    /// most (its unfinished input), is refused to bring the total down.
    case overBudget
    /// A new connection of a uid that is not privileged while every ordinary slot is taken
    /// (`maxConnections` less `adminReservedConnections`).
    case tooManyConnections
    /// A new connection of a uid that already holds `maxConnectionsPerUID`.
    case tooManyForUID
    /// A connection that neither subscribed nor sent anything for `idleTimeout` seconds.
    case idle

    /// Why the connection is then closed.
    var closeReason: CloseReason {
        switch self {
        case .lineTooLong: .lineTooLong
        case .lineTimeout: .lineTimeout
        case .overBudget: .overBudget
        case .tooManyConnections: .tooManyConnections
        case .tooManyForUID: .tooManyForUID
        case .idle: .idle
        }
    }
}

public protocol LineServiceDelegate: AnyObject {
    func connectionDidOpen(_ connection: Connection)
    /// One complete request line, without its trailing "\n" or "\r\n"; never empty (empty
    /// lines are skipped). The buffer is valid only during the call.
    func connection(_ connection: Connection, didReceive line: UnsafeRawBufferPointer)
    /// The transport refuses the client's input (`reason`). The delegate sends an error
    /// line; the transport then flushes and closes. Never called inside another delegate call.
    func connection(_ connection: Connection, refused reason: InputRefusal)
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
    /// Output a client may leave unread; a client above it for longer than `outputTimeout`
    /// is dropped (a slow reader never blocks the loop). One reply or one turn's events may
    /// be bigger: what counts is what stays unread.
    public var maxOutputBytes = 8 << 20
    /// Seconds a client may stay above `maxOutputBytes` of unread output.
    public var outputTimeout = 5.0
    /// Unwritten output at which a client's further requests wait (and its socket is not
    /// read) until the output is written: a client that pipelines without reading holds
    /// about this much, not one reply per request.
    public var pauseInputBytes = 1 << 20
    /// Bytes all connections together may hold: unfinished lines, input waiting, output not
    /// written. From five eighths of it, the connections holding the most are refused and closed.
    public var memoryBudget = 256 << 20
    /// Seconds a request line may take from its first byte to its newline.
    public var lineTimeout = 10.0
    /// Connections served at once; beyond it tabd stops accepting until one closes.
    public var maxConnections = 100_000
    /// Seconds without accepting after running out of descriptors (EMFILE, ENFILE).
    public var acceptBackoff = 0.1
    /// Seconds a client may take none of its output at shutdown; then it is closed anyway.
    /// A reply tabd still owes (a big `state` or `preserve` made off the loop) is not the
    /// client's delay: it is finished first; and a client taking its output, however slowly,
    /// is given it (`maxShutdownWait` in all).
    /// (A client closing for any other reason — its end of input, `close()`, a refusal —
    /// takes its output under the same rules as an open one: `maxOutputBytes`, `outputTimeout`.)
    public var closeGracePeriod = 2.0
    /// Seconds a shutdown waits at most, replies still owed included: then every client is
    /// closed, owed or not. Below the unit's `TimeoutStopSec` (15 s, systemd/tabd.service), so
    /// that tabd still syncs its journal and exits before systemd kills it.
    public var maxShutdownWait = 10.0
    /// Connections one uid may hold (privileged peers excepted); 0: no cap of its own.
    public var maxConnectionsPerUID = 0
    /// Of `maxConnections`, slots only privileged peers (root, admins) may take.
    public var adminReservedConnections = 0
    /// Seconds a connection may neither send nor be subscribed (nor have output to take)
    /// before it is closed; 0: never. Checked every quarter of it.
    public var idleTimeout = 0.0
    /// Longest a turn may be kept open by sockets that keep becoming ready: after this many
    /// seconds the turn is committed and its replies released even if more input is waiting.
    public var maxTurnDelay = 0.01

    public init() {}

    public init(maxLineBytes: Int = 1 << 20, maxOutputBytes: Int = 8 << 20, outputTimeout: Double = 5.0,
                pauseInputBytes: Int = 1 << 20, memoryBudget: Int = 256 << 20, lineTimeout: Double = 10.0,
                maxConnections: Int = 100_000,
                acceptBackoff: Double = 0.1, closeGracePeriod: Double = 2.0, maxTurnDelay: Double = 0.01) {
        self.maxLineBytes = maxLineBytes
        self.maxOutputBytes = maxOutputBytes
        self.outputTimeout = outputTimeout
        self.pauseInputBytes = pauseInputBytes
        self.memoryBudget = memoryBudget
        self.lineTimeout = lineTimeout
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

    // The memory budget.
    /// What all connections hold, as they last counted it (`Connection.account`).
    public private(set) var heldBytes = 0
    /// Freed since malloc last gave memory back to the system.
    private var freedSinceTrim = 0
    /// Connections refused for the budget, answered at the end of the turn.
    private var overBudgetRefusals: [Connection] = []
    private var enforcingBudget = false
    /// Connections the sweep looks at; the sweep runs while there are any (or memory to trim).
    private var watching: [UInt64: Connection] = [:]
    private var sweepTimer: TimerHandle?
    /// Connections closed for a limit so far, by the limit's config key (stats).
    public private(set) var limitHits: [String: Int] = [:]

    // Slots.
    /// Whether a new connection's peer may take the slots kept for admins and is free of the
    /// per-uid cap (the delegate's rule; root and tabd's own user at least).
    public var isPrivileged: (Connection) -> Bool = { $0.peer.uid == 0 || $0.peer.uid == Sys.effectiveUserID() }
    /// Open connections of peers that are not privileged, in all and by uid.
    private var ordinaryConnections = 0
    private var connectionsByUID: [uid_t: Int] = [:]
    private var idleTimer: TimerHandle?

    // Shutdown.
    private enum ShutdownPhase { case serving, draining, done }
    private var shutdownPhase = ShutdownPhase.serving
    private var afterShutdown: [() -> Void] = []
    private var shutdownDeadline: TimerHandle?
    private var shutdownBegan = 0.0
    private var listenerClosed = false

    /// Takes ownership of `listener`'s descriptor. Call `start()` to accept connections.
    public init(loop: EventLoop, listener: ListeningSocket, limits: TransportLimits = TransportLimits(),
                delegate: LineServiceDelegate, logger: Logger) {
        self.loop = loop
        self.listener = listener
        self.limits = limits
        self.delegate = delegate
        self.logger = logger
        budgetMark = limits.memoryBudget / 8 * 5
        turnOutput = .allocate(byteCount: LineServer.turnOutputKeep, alignment: 16)
        acceptor = Acceptor(loop: loop, fd: listener.fd, backoff: limits.acceptBackoff, logger: logger)
        endOfTurnEvent = tabd_evtimer_new(loop.base, Int16(EV_PERSIST), { _, _, ctx in
            Unmanaged<LineServer>.fromOpaque(ctx!).takeUnretainedValue().endTurn()
        }, Unmanaged.passUnretained(self).toOpaque())
        event_priority_set(endOfTurnEvent, EventLoop.endOfTurnPriority)
        acceptor.hasRoom = { [unowned self] in byID.count < limits.maxConnections }
        // A loop kept busy by timers (a plugin's) still ends a turn that is overdue.
        loop.beforeTimer = { [unowned self] in closeTurnIfOverdue() }
        acceptor.onAccept = { [unowned self] fd in accepted(fd) }
    }

    deinit {
        // Free every event here, while the loop (a stored property) surely still exists.
        loop.beforeTimer = nil
        for c in byID.values {
            c.tearDown()
        }
        acceptor.invalidate()
        idleTimer?.cancel()
        shutdownDeadline?.cancel()
        sweepTimer?.cancel()
        if let endOfTurnEvent { event_free(endOfTurnEvent) }
        closeListener()
        readBuffer.deallocate()
        turnOutput.deallocate()
    }

    /// Starts accepting connections.
    public func start() {
        acceptor.start()
        if limits.idleTimeout > 0 {
            idleTimer = loop.addTimer(every: limits.idleTimeout / Double(Self.idleSweeps)) { [unowned self] in sweepIdle() }
        }
    }

    /// Sweeps of the idle check in one `idleTimeout`.
    static let idleSweeps = 4

    /// Closes connections that have sent nothing for `idleSweeps` sweeps and are neither
    /// subscribed (`keepsAlive`) nor taking output: each is answered why, then closed.
    private func sweepIdle() {
        for c in Array(byID.values) where c.state == .open && !c.keepsAlive && c.pendingOutputBytes == 0 && !c.inputPaused {
            c.idleSweeps += 1
            guard c.idleSweeps > Self.idleSweeps else { continue }
            logger.info("connection idle: closing it", metadata: [
                "connection.id": "\(c.id)", "connection.peer.uid": "\(c.peer.uid)", "limits.idle_timeout_seconds": "\(limits.idleTimeout)",
            ])
            refuse(c, .idle)
        }
    }

    /// Connections currently open (including closing ones not yet torn down).
    public var connectionCount: Int { byID.count }

    /// What `stats` shows of the transport.
    public struct Status {
        public var connections = 0
        public var maxConnections = 0
        public var heldBytes = 0
        public var memoryBudget = 0
        /// Connections closed for a limit, by the limit's config key (`max_line_bytes`, …).
        public var limitHits: [String: Int] = [:]
        public init() {}
    }

    public var status: Status {
        var s = Status()
        s.connections = byID.count
        s.maxConnections = limits.maxConnections
        s.heldBytes = heldBytes
        s.memoryBudget = limits.memoryBudget
        s.limitHits = limitHits
        return s
    }

    public var connections: some Collection<Connection> { byID.values }

    /// Stops accepting, stops reading, lets every connection take what is queued for it (one
    /// that takes none of it for `limits.closeGracePeriod` seconds is closed; none waits past
    /// `limits.maxShutdownWait`: `graceEnds`), closes them all, then calls `then`.
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
        shutdownBegan = monotonicSeconds()
        shutdownDeadline = loop.once(after: min(limits.closeGracePeriod, limits.maxShutdownWait)) { [unowned self] in graceEnds() }
        wakeEndOfTurn()
    }

    /// The shutdown's grace is over: clients that took none of their output for the grace
    /// period are closed. Not the client's delay, and waited for (up to `maxShutdownWait` in
    /// all): a reply tabd still makes off the loop (a big `state`), and output the client is
    /// taking, however slowly — the grace runs from the last time it took some.
    private func graceEnds() {
        shutdownDeadline = nil
        let now = monotonicSeconds(), grace = limits.closeGracePeriod
        let giveUp = now - shutdownBegan >= limits.maxShutdownWait
        var late: [Connection] = [], next: Double?
        for c in byID.values {
            let left = c.deferredReplies > 0 ? grace : grace - (now - max(c.stalledSince ?? now, shutdownBegan))
            if left > 0, !giveUp { next = min(next ?? left, left) } else { late.append(c) }
        }
        if !late.isEmpty {
            logger.warning(giveUp ? "shutdown: closing clients still owed a reply or taking their output after the longest wait" : "shutdown: closing clients that did not take their output in time", metadata: [
                "shutdown.connections": "\(late.count)",
                giveUp ? "limits.max_shutdown_wait_seconds" : "limits.close_grace_seconds": "\(giveUp ? limits.maxShutdownWait : grace)",
            ])
        }
        for c in late { tearDown(c, reason: .serverShutdown) }
        if let next, !byID.isEmpty {
            let wait = min(next, limits.maxShutdownWait - (now - shutdownBegan))
            shutdownDeadline = loop.once(after: max(wait, 0.01)) { [unowned self] in graceEnds() }
        }
    }

    // MARK: Accepting

    private func accepted(_ fd: Int32) {
        let peer: PeerCredentials
        do {
            let raw = try Sys.peerCredentials(fd)
            peer = PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
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
        takeSlot(connection)
    }

    /// A privileged peer takes any slot; any other takes an ordinary one (not one of the
    /// `adminReservedConnections`) within its uid's `maxConnectionsPerUID`, or is answered
    /// why not and closed.
    private func takeSlot(_ connection: Connection) {
        if isPrivileged(connection) { return }
        let uid = connection.peer.uid
        let refusal: InputRefusal? =
            ordinaryConnections >= limits.maxConnections - limits.adminReservedConnections ? .tooManyConnections
            : limits.maxConnectionsPerUID > 0 && connectionsByUID[uid, default: 0] >= limits.maxConnectionsPerUID ? .tooManyForUID
            : nil
        if let refusal {
            logger.warning("refusing a connection: no slot for its uid", metadata: [
                "connection.id": "\(connection.id)", "connection.peer.uid": "\(uid)", "limit": "\(refusal.closeReason.limitKey ?? "")",
                "connections.ordinary": "\(ordinaryConnections)", "connections.uid": "\(connectionsByUID[uid, default: 0])",
            ])
            return refuse(connection, refusal)
        }
        connection.holdsOrdinarySlot = true
        ordinaryConnections += 1
        connectionsByUID[uid, default: 0] += 1
    }

    private func freeSlot(_ connection: Connection) {
        guard connection.holdsOrdinarySlot else { return }
        connection.holdsOrdinarySlot = false
        ordinaryConnections -= 1
        let uid = connection.peer.uid
        let left = connectionsByUID[uid, default: 1] - 1
        connectionsByUID[uid] = left > 0 ? left : nil
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
        turnOpenedAt = monotonicSeconds()
        event_active(endOfTurnEvent, EV_TIMEOUT, 0)
    }

    /// A safety net: should a turn stay open longer than `maxTurnDelay` (one poll's callbacks
    /// taking that long), it ends here and now. Called at the start of every I/O callback.
    func closeTurnIfOverdue() {
        guard endOfTurnPending, monotonicSeconds() - turnOpenedAt > limits.maxTurnDelay else { return }
        event_del(endOfTurnEvent)  // also removes it from the active queue
        endTurn()
    }

    /// Commits the turn's requests, then releases every held reply, then closes what has to.
    private func endTurn() {
        endOfTurnPending = false
        if !overBudgetRefusals.isEmpty {
            let refused = overBudgetRefusals
            overBudgetRefusals = []
            for c in refused where c.state == .open { refuse(c, .overBudget) }
        }
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
        trimIfDue()
        finishShutdownIfDone()
    }

    // MARK: Closing

    func lineTooLong(_ connection: Connection) {
        logger.warning("request line too long: answering with an error and closing", metadata: [
            "connection.id": "\(connection.id)", "limits.max_line_bytes": "\(limits.maxLineBytes)",
        ])
        refuse(connection, .lineTooLong)
    }

    /// The delegate answers the refusal; then the connection closes once that is written.
    private func refuse(_ connection: Connection, _ reason: InputRefusal) {
        connection.discardInput()
        wakeEndOfTurn()  // the error reply is released (and the line is not committed)
        delegate.connection(connection, refused: reason)
        if connection.state == .open { beginClosing(connection, reason.closeReason) }
    }

    // MARK: The memory budget

    /// A connection holds `bytes` more. Past five eighths of the budget, the biggest
    /// holders are refused: the last three eighths are left for what the bytes cost besides
    /// themselves (the allocator's overhead, buffers freed but not yet reused) and for the
    /// working memory of a turn, so that the process stays within its baseline plus the
    /// budget (BENCHMARKS-HISTORY.md, "Hostile clients": a quarter was not always enough).
    @inline(__always)
    func hold(_ bytes: Int) {
        heldBytes += bytes
        if heldBytes > budgetMark { enforceBudget() }
    }

    /// Where enforcing starts: five eighths of the budget.
    private let budgetMark: Int

    /// A connection holds `bytes` less. Once a lot was freed, the sweep gives it back to the
    /// system (malloc keeps freed memory in its heap otherwise).
    func free(_ bytes: Int) {
        heldBytes -= bytes
        freedSinceTrim += bytes
        if freedSinceTrim >= Self.sweepTrimAfterBytes { scheduleSweep() }
    }

    /// Freed bytes after which the end of a turn trims (at once, in a busy moment) and the
    /// sweep trims (within a second: what the last clients to leave freed goes back too).
    static let trimAfterBytes = 16 << 20
    static let sweepTrimAfterBytes = 1 << 20

    /// Brings what connections hold down to half the budget: the connection holding the
    /// most goes first. One holding mostly output is dropped at once (its output discarded:
    /// it is not reading it); one holding mostly input is answered `overloaded` at the end
    /// of the turn and closed, its input discarded now.
    private func enforceBudget() {
        guard !enforcingBudget else { return }
        enforcingBudget = true
        defer { enforcingBudget = false }
        let target = limits.memoryBudget / 2
        let now = monotonicSeconds()
        while heldBytes > target {
            // The biggest holder among clients that have taken none of their output for a
            // second (or hold only input); only if there is none, the biggest of all: a client
            // reading a big reply is not closed for a squatter that reads nothing.
            var largest: Connection?, largestStalled: Connection?
            for c in byID.values {
                switch c.state {
                case .open, .closing: break
                case .dropping, .closed: continue
                }
                if c.accounted > (largest?.accounted ?? 0) { largest = c }
                let idle = c.stalled(now: now, for: 1) || c.pendingOutputBytes == 0
                if idle, c.accounted > (largestStalled?.accounted ?? 0) { largestStalled = c }
            }
            guard let c = largestStalled ?? largest else { break }
            let holding = c.accounted
            logger.warning(largestStalled != nil
                ? "over the memory budget: closing the connection that holds the most of those not taking their output"
                : "over the memory budget: closing the connection that holds the most (every one is taking its output)", metadata: [
                "connection.id": "\(c.id)", "connection.held_bytes": "\(holding)",
                "connection.unread_bytes": "\(c.pendingOutputBytes)", "server.held_bytes": "\(heldBytes)",
                "limits.memory_budget_bytes": "\(limits.memoryBudget)",
            ])
            if c.pendingOutputBytes * 2 >= holding || c.state != .open {
                drop(c, .overBudget)
            } else {
                c.stopReading()  // its input discarded now; answered and closed at the end of the turn
                overBudgetRefusals.append(c)
                wakeEndOfTurn()
            }
        }
    }

    /// The sweep will look at `connection` (an unfinished line, or output over the limit).
    func watch(_ connection: Connection) {
        guard !connection.watched else { return }
        connection.watched = true
        watching[connection.id] = connection
        scheduleSweep()
    }

    private var sweepInterval: Double {
        max(0.005, min(1.0, limits.lineTimeout / 4, limits.outputTimeout / 4))
    }

    private func scheduleSweep() {
        guard sweepTimer == nil else { return }
        sweepTimer = loop.once(after: sweepInterval) { [unowned self] in
            sweepTimer = nil
            sweep()
        }
    }

    /// Closes lines that stalled and clients that leave too much unread for too long, and
    /// gives freed memory back to the system.
    private func sweep() {
        let now = monotonicSeconds()
        for c in Array(watching.values) {
            if c.state == .open, c.lineStalled(now: now, after: limits.lineTimeout) {
                logger.warning("request line not finished in time: answering with an error and closing", metadata: [
                    "connection.id": "\(c.id)", "limits.line_timeout_seconds": "\(limits.lineTimeout)",
                ])
                refuse(c, .lineTimeout)
            }
            if let since = c.overOutputLimitSince {
                if c.unreadBytes <= limits.maxOutputBytes {
                    c.outputBackUnderLimit()
                } else if now - since > limits.outputTimeout {
                    drop(c, .outputOverflow)
                }
            }
            // Requests waiting for a client that takes none of its replies: it holds its
            // output (up to pauseInputBytes) for nothing. A closing client (its input ended)
            // that takes none of the output it still has is dropped the same way.
            if c.inputPaused || c.isClosing, c.stalled(now: now, for: limits.outputTimeout) {
                drop(c, .outputOverflow)
            }
            if !c.needsWatching {
                c.watched = false
                watching[c.id] = nil
            }
        }
        trimIfDue(after: Self.sweepTrimAfterBytes)
        if !watching.isEmpty { scheduleSweep() }
    }

    /// Once `trimAfterBytes` were freed, malloc gives its free pages back to the system (it
    /// keeps them otherwise; a few milliseconds for a heap of hundreds of megabytes).
    private func trimIfDue(after bytes: Int = LineServer.trimAfterBytes) {
        guard freedSinceTrim >= bytes else { return }
        freedSinceTrim = 0
        _ = tabd_malloc_trim()
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
                "connection.id": "\(connection.id)", "connection.unread_bytes": "\(connection.unreadBytes)",
                "limits.max_output_bytes": "\(limits.maxOutputBytes)", "limits.output_timeout_seconds": "\(limits.outputTimeout)",
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
        case .closing:
            // It takes the rest of its output under the rules of an open client: the sweep
            // drops it (logged, counted) once it takes none of it for `outputTimeout`.
            watch(connection)
        case .open, .closed:
            break
        }
    }

    private func tearDown(_ connection: Connection, reason: CloseReason) {
        guard connection.state != .closed else { return }
        connection.tearDown()
        byID[connection.id] = nil
        freeSlot(connection)
        if let limit = reason.limitKey { limitHits[limit, default: 0] += 1 }
        if connection.watched {
            connection.watched = false
            watching[connection.id] = nil
        }
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

@available(*, unavailable, message: "the server, its connections and turns are used only on the loop thread")
extension LineServer: Sendable {}
