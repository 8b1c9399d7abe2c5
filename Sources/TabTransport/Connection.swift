// One client connection: its descriptor, line framing of what it sends, and its output —
// held until the end of the turn, then written without ever blocking the loop.
//
// What a connection holds (an unfinished line, input waiting to be handled, unsent output)
// is counted in the server's memory budget (`accounted`). A client whose output is not
// written yet is not read: past `pauseInputBytes` of output its remaining requests wait,
// and its socket is left unread, until its output is written (back-pressure, so a client
// that pipelines requests faster than it reads replies holds a bounded amount).
//
// Memory per idle connection is the object and one libevent read event: the input buffer
// exists only while a line is incomplete, output buffers and the write event only while
// there is something to write. A turn's replies go into the server's shared turn buffer
// and are written from there when the turn ends; a connection gets an output buffer of its
// own only for what its socket did not take (or when its output and another's alternate).

import CLibevent
import Glibc
import TabSystem

/// Who is on the other end of a connection (SO_PEERCRED, taken when it was accepted).
public struct PeerCredentials: Equatable, Sendable {
    public let pid: pid_t
    public let uid: uid_t
    public let gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// Why a connection was closed.
public enum CloseReason: Equatable, Sendable, CustomStringConvertible {
    /// The client closed (end of file, or it went away: ECONNRESET, EPIPE).
    case clientClosed
    /// The client left more than `maxOutputBytes` unread for longer than `outputTimeout`.
    case outputOverflow
    /// The client sent a line longer than `maxLineBytes`.
    case lineTooLong
    /// The client did not finish a line within `lineTimeout` seconds.
    case lineTimeout
    /// All connections together held more than `memoryBudget`; this one held the most.
    case overBudget
    /// No slot for a peer that is not privileged (`maxConnections` less the admins' slots).
    case tooManyConnections
    /// Its uid holds `maxConnectionsPerUID` connections already.
    case tooManyForUID
    /// Neither sent nor subscribed for `idleTimeout` seconds.
    case idle
    /// A read or write failed with this errno.
    case error(Int32)
    /// The server is shutting down.
    case serverShutdown
    /// The delegate called `close()`.
    case closedByServer

    public var description: String {
        switch self {
        case .clientClosed: "client closed"
        case .outputOverflow: "output overflow"
        case .lineTooLong: "line too long"
        case .lineTimeout: "line not finished in time"
        case .overBudget: "over the memory budget"
        case .tooManyConnections: "no ordinary connection slot left"
        case .tooManyForUID: "too many connections of its uid"
        case .idle: "idle"
        case .error(let code): "error: \(String(cString: strerror(code)))"
        case .serverShutdown: "server shutdown"
        case .closedByServer: "closed by server"
        }
    }

    /// The config key (under `limits`) of the limit the client hit, if it hit one.
    public var limitKey: String? {
        switch self {
        case .outputOverflow: "max_output_bytes"
        case .lineTooLong: "max_line_bytes"
        case .lineTimeout: "line_timeout_seconds"
        case .overBudget: "memory_budget_bytes"
        case .tooManyConnections: "max_connections"
        case .tooManyForUID: "max_connections_per_uid"
        case .idle: "idle_timeout_seconds"
        case .clientClosed, .error, .serverShutdown, .closedByServer: nil
        }
    }

    /// Every `limitKey`, in order: what `limits_hit` counts.
    public static let limitKeys = ["idle_timeout_seconds", "line_timeout_seconds", "max_connections", "max_connections_per_uid",
                                   "max_line_bytes", "max_output_bytes", "memory_budget_bytes"]
}

public final class Connection {
    enum State: Equatable {
        /// Reading requests, writing replies.
        case open
        /// Not reading any more; the output is flushed, then the connection is torn down.
        case closing(CloseReason)
        /// Output discarded; torn down at the end of the turn.
        case dropping(CloseReason)
        /// Torn down: descriptor closed, delegate told.
        case closed
    }

    public let id: UInt64
    public let peer: PeerCredentials
    /// The delegate's per-connection state (subscriptions and the like). Set to nil after
    /// `connectionDidClose`, so that a context referring back to its connection is freed.
    public var context: AnyObject?

    let fd: Int32
    private(set) var state = State.open
    /// Unretained: the server tears down every connection before it goes (its deinit), and a
    /// torn-down connection never touches it again (`send` and `close` do nothing once closed).
    /// A checked `unowned` costs an atomic retain and release on every use, several per request;
    /// the request path borrows it with `_withUnsafeGuaranteedRef`, which costs neither.
    private let serverRef: Unmanaged<LineServer>
    private var server: LineServer { serverRef.takeUnretainedValue() }

    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private var writeArmed = false
    /// The start of a line whose "\n" has not arrived yet. Never rescanned: only new bytes
    /// are searched for "\n", so a long line costs O(n), not O(n²).
    private var partial: [UInt8] = []
    /// Output queued during the current turn while it is one run in the server's turn
    /// buffer: its bounds there (`runStart` < 0: none).
    private var runStart = -1
    private var runEnd = 0
    /// Output queued during the current turn otherwise (evbuffer, lazily): when another
    /// connection's output came between two of this one's, the run moves here. Never both.
    private var held: OpaquePointer?
    /// Output released and not yet accepted by the socket (evbuffer, lazily).
    private var output: OpaquePointer?
    /// Input read from the socket but not handed over yet: the client's output reached
    /// `pauseInputBytes`, so its requests wait (and its socket is not read) until it is written.
    private var pendingInput: [UInt8] = []
    private(set) var inputPaused = false

    /// Bytes this connection holds as last counted in the server's memory budget.
    private(set) var accounted = 0
    /// When the unfinished line in `partial` began (monotonic seconds).
    private(set) var partialSince = 0.0
    /// Since when more than `maxOutputBytes` of released output is unread (nil: not more).
    private(set) var overOutputLimitSince: Double?
    /// Since when the client has taken none of its output (its socket full, nothing written
    /// since); nil while its output moves or there is none. Read only when a write would
    /// block, so it costs nothing while the socket takes everything.
    private(set) var stalledSince: Double?
    /// In the server's list of connections its sweep looks at (an unfinished line, or
    /// unread output over the limit).
    var watched = false

    /// In the server's list of connections with held output / to reap at the end of the turn.
    var awaitingRelease = false
    var awaitingReap = false
    /// Counted among the ordinary (not privileged) connections and its uid's.
    var holdsOrdinarySlot = false
    /// Subscribed: never closed for being idle (the delegate sets it).
    public var keepsAlive = false
    /// What this connection said it relays for in `hello` (`via`, e.g. "tabd-web"): its
    /// requests come from users tabd cannot see, so it is no administrator, whatever its uid.
    public var via: String?
    /// Idle sweeps since it last sent anything (`LineServer.sweepIdle`).
    var idleSweeps = 0
    /// Replies the delegate owes and sends later (`deferReply`): until they are sent, no
    /// further line of this client is handed over, so its replies keep their order.
    private(set) var deferredReplies = 0

    init(id: UInt64, fd: Int32, peer: PeerCredentials, server: LineServer) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.serverRef = .passUnretained(server)
    }

    deinit {
        freeResources()
        if state != .closed { Sys.close(fd) }
    }

    // MARK: Public API

    /// Queues `bytes` (one or more complete lines). They are held until the end of the
    /// current turn — after `commitTurn()` — then written in order. A client whose unsent
    /// output exceeds `maxOutputBytes` is dropped. Ignored once the connection is closing.
    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard state == .open || (isClosing && (server.redoing || deferredReplies > 0)), let base = bytes.baseAddress, bytes.count > 0 else { return }
        serverRef._withUnsafeGuaranteedRef { server in
            // A big reply or event (64 KiB and more) goes to the connection's own buffer: in the
            // shared turn buffer it would stay until the turn ends even if the connection is
            // dropped (for the budget) meanwhile, and one event sent to a thousand subscribers
            // would grow that buffer by a thousand copies.
            if !holdsInBuffer, bytes.count < Self.bigOutput, runStart < 0 || runEnd == server.turnOutputBytes {
                // The common case: this connection's run continues at the end of the turn buffer.
                let at = server.appendToTurn(bytes)
                if runStart < 0 { runStart = at }
                runEnd = at + bytes.count
            } else {
                moveRunToHeld()
                if held == nil { held = evbuffer_new() }
                evbuffer_add(held, base, bytes.count)
            }
            server.releaseAtEndOfTurn(self)
            // Counted in the budget now (this turn's output too: it is memory held).
            accounted += bytes.count
            server.hold(bytes.count)
        }
    }

    /// Output this big skips the turn buffer.
    public static let bigOutput = 64 << 10

    /// Queues output many connections send alike (an event to every subscriber) without a
    /// copy each: the connection's buffer refers to `shared`'s one copy, kept alive until the
    /// last connection wrote or dropped it. It counts in this connection's share of the
    /// budget as if it were its own (a client that does not read holds it).
    public func send(_ shared: SharedOutput) {
        guard state == .open || (isClosing && (server.redoing || deferredReplies > 0)), shared.count > 0 else { return }
        serverRef._withUnsafeGuaranteedRef { server in
            moveRunToHeld()
            if held == nil { held = evbuffer_new() }
            let retained = Unmanaged.passRetained(shared).toOpaque()
            if evbuffer_add_reference(held, shared.bytes, shared.count, { _, _, extra in
                Unmanaged<SharedOutput>.fromOpaque(extra!).release()
            }, retained) != 0 {
                Unmanaged<SharedOutput>.fromOpaque(retained).release()
                evbuffer_add(held, shared.bytes, shared.count)  // cannot refer: a copy then
            }
            server.releaseAtEndOfTurn(self)
            accounted += shared.count
            server.hold(shared.count)
        }
    }

    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send($0) }
    }

    /// Bytes queued for this client and not yet accepted by its socket.
    public var pendingOutputBytes: Int {
        (runStart < 0 ? 0 : runEnd - runStart) + (held.map { evbuffer_get_length($0) } ?? 0)
            + (output.map { evbuffer_get_length($0) } ?? 0)
    }

    /// Output released in earlier turns that the client has not read yet.
    var unreadBytes: Int { output.map { evbuffer_get_length($0) } ?? 0 }

    /// Everything this connection holds: its unfinished line, input waiting, and output.
    var heldBytes: Int { partial.capacity + pendingInput.capacity + pendingOutputBytes }

    /// Brings `accounted` and the server's total up to date with `heldBytes`.
    func account() {
        let now = state == .closed ? 0 : heldBytes
        guard now != accounted else { return }
        let delta = now - accounted
        accounted = now
        if delta > 0 { server.hold(delta) } else { server.free(-delta) }
    }

    /// Output of this turn is in the `held` evbuffer (not in a run of the turn buffer).
    private var holdsInBuffer: Bool { held.map { evbuffer_get_length($0) > 0 } ?? false }

    /// The run, as bytes of the server's turn buffer (valid until the turn ends).
    private var run: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: server.turnOutput + runStart, count: runEnd - runStart)
    }

    /// Another connection's output follows this one's run in the turn buffer: the run is
    /// copied into `held`, where the rest of the turn's output goes after it.
    private func moveRunToHeld() {
        guard runStart >= 0 else { return }
        if held == nil { held = evbuffer_new() }
        evbuffer_add(held, run.baseAddress, run.count)
        runStart = -1
    }

    /// The supplementary groups the peer had when it connected (SO_PEERGROUPS).
    public func peerGroups() throws(SystemError) -> [gid_t] {
        try Sys.peerGroups(fd)
    }

    /// The delegate will answer the line it is handling later (the reply is made off the
    /// loop): the client's next lines wait, unread, until `endDeferredReply()`.
    public func deferReply() { deferredReplies += 1 }

    /// A deferred reply was sent (or is no longer owed): once none is owed, the client's
    /// lines are read again (when its output allows).
    public func endDeferredReply() {
        deferredReplies -= 1
        resumeInputIfWritten()
        // Closing meanwhile (tabd is stopping): it closes once that reply is written.
        if deferredReplies == 0, isClosing { server.reap(self) }
    }

    /// Stops reading; what is queued is written, then the connection is closed.
    public func close() {
        guard state == .open else { return }
        server.beginClosing(self, .closedByServer)
    }

    /// True once the connection is closing or closed: it reads no more requests and `send`
    /// does nothing.
    public var isClosed: Bool { state != .open }

    /// Closing: reads no more, still writes what it has.
    var isClosing: Bool {
        if case .closing = state { return true }
        return false
    }

    /// Dropped or torn down: nothing sent to it arrives.
    public var isClosedForGood: Bool { state != .open && !isClosing }

    /// Forgets the output queued during this turn (its commit failed; the delegate redoes it).
    func discardTurnOutput() {
        runStart = -1
        runEnd = 0
        if let held { evbuffer_drain(held, evbuffer_get_length(held)) }
        account()
    }

    // MARK: Events

    /// Registers the read event. False when libevent refuses (out of memory).
    func register(on loop: EventLoop) -> Bool {
        readEvent = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), { _, _, ctx in
            Unmanaged<Connection>.fromOpaque(ctx!).takeUnretainedValue().readable()
        }, Unmanaged.passUnretained(self).toOpaque())
        guard let readEvent else { return false }
        event_priority_set(readEvent, EventLoop.ioPriority)
        return event_add(readEvent, nil) == 0
    }

    private func readable() {
        server.closeTurnIfOverdue()
        guard state == .open, !inputPaused else { return }
        // A reply is owed (`deferReply`): nothing more is read — not even the end of input,
        // which would close the connection before that reply is sent.
        if deferredReplies > 0 { return pauseInput(keeping: UnsafeRawBufferPointer(start: nil, count: 0)) }
        if !pendingInput.isEmpty {
            // Resumed after a pause: the requests read before it come first.
            let input = pendingInput
            pendingInput = []
            server.delegate.connectionWillDeliverLines(self)
            input.withUnsafeBytes { frame($0) }
            account()
            return
        }
        let buffer = server.readBuffer
        let count: Int
        do {
            count = try Sys.receive(fd, into: buffer)
        } catch {
            if !error.wouldBlock { server.drop(self, Self.reason(error)) }
            return
        }
        server.delegate.connectionWillDeliverLines(self)
        idleSweeps = 0
        if count == 0 {
            endOfInput()
        } else {
            frame(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    private func writable() {
        server.closeTurnIfOverdue()
        flush()
    }

    // MARK: Framing

    /// Splits what arrived into lines and hands each to the server, in order. Stops (and
    /// keeps the rest) when the output of the lines handed over reaches `pauseInputBytes`.
    private func frame(_ data: UnsafeRawBufferPointer) {
        let limit = server.limits.maxLineBytes
        var rest = data
        if !partial.isEmpty {
            guard let newline = Self.firstNewline(rest) else {
                guard partial.count + rest.count <= limit else { return lineTooLong() }
                keep(rest)
                return account()
            }
            guard partial.count + newline <= limit else { return lineTooLong() }
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<newline]))
            let line = partial
            partial = []
            account()
            line.withUnsafeBytes { deliver($0) }
            rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
        }
        while state == .open, let newline = Self.firstNewline(rest) {
            if accounted >= server.limits.pauseInputBytes || deferredReplies > 0 { return pauseInput(keeping: rest) }
            guard newline <= limit else { return lineTooLong() }
            deliver(UnsafeRawBufferPointer(rebasing: rest[..<newline]))
            rest = UnsafeRawBufferPointer(rebasing: rest[(newline + 1)...])
        }
        guard state == .open, !rest.isEmpty else { return }
        guard rest.count <= limit else { return lineTooLong() }
        partialSince = monotonicSeconds()
        keep(rest)
        account()
        server.watch(self)
    }

    /// Appends to the unfinished line, growing it by doubling but never past the longest
    /// line allowed (a 1 MiB line holds 1 MiB, not the 2 MiB doubling would give it).
    private func keep(_ bytes: UnsafeRawBufferPointer) {
        let needed = partial.count + bytes.count
        if needed > partial.capacity {
            partial.reserveCapacity(min(max(needed, partial.capacity * 2), server.limits.maxLineBytes))
        }
        partial.append(contentsOf: bytes)
    }

    /// Stops reading: `rest` waits in `pendingInput` until the output is written.
    private func pauseInput(keeping rest: UnsafeRawBufferPointer) {
        pendingInput.append(contentsOf: rest)
        inputPaused = true
        if let readEvent { event_del(readEvent) }
        account()
        if stalledSince != nil { server.watch(self) }
    }

    /// Reads again (the waiting input first) once the output is below half the pause mark.
    private func resumeInputIfWritten() {
        guard inputPaused, state == .open, deferredReplies == 0, pendingOutputBytes < server.limits.pauseInputBytes / 2, let readEvent else { return }
        inputPaused = false
        event_add(readEvent, nil)
        // The waiting input is handled from the read callback, in a turn of its own.
        if !pendingInput.isEmpty { event_active(readEvent, EV_READ, 0) }
    }

    /// True while an unfinished line is older than `seconds` (the sweep closes it).
    func lineStalled(now: Double, after seconds: Double) -> Bool {
        !partial.isEmpty && now - partialSince > seconds
    }

    /// Whether the sweep still has to look at this connection.
    var needsWatching: Bool {
        state != .closed && (!partial.isEmpty || overOutputLimitSince != nil || ((inputPaused || isClosing) && stalledSince != nil))
    }

    /// The unread output fell to the limit or below: no longer over it.
    func outputBackUnderLimit() { overOutputLimitSince = nil }

    /// Reads no more and drops the input it holds, staying open to be answered.
    func stopReading() {
        inputPaused = false
        if let readEvent { event_del(readEvent) }
        discardInput()
    }

    /// Drops the input this connection holds (it is refused).
    func discardInput() {
        partial = []
        pendingInput = []
        account()
    }

    /// One line without its "\n"; a trailing "\r" is removed too. Empty lines are skipped.
    private func deliver(_ line: UnsafeRawBufferPointer) {
        guard state == .open else { return }
        var line = line
        if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        guard !line.isEmpty else { return }
        serverRef._withUnsafeGuaranteedRef { $0.deliver(line, from: self) }
    }

    /// The client shut down its writing side (or closed): an unterminated last line is still
    /// a request; then everything queued is written and the connection closed.
    private func endOfInput() {
        if !partial.isEmpty {
            let line = partial
            partial = []
            line.withUnsafeBytes { deliver($0) }
        }
        if state == .open { server.beginClosing(self, .clientClosed) }
    }

    private func lineTooLong() {
        partial = []
        account()
        server.lineTooLong(self)
    }

    private static func firstNewline(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty,
              let hit = memchr(base, Int32(UInt8(ascii: "\n")), bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    // MARK: Output

    /// Moves held output behind what is already released and writes what the socket takes.
    func release() {
        if runStart >= 0 { return releaseRun() }
        guard let held, evbuffer_get_length(held) > 0 else { return }
        if let output, evbuffer_get_length(output) > 0 {
            evbuffer_add_buffer(output, held)
        } else {
            // Nothing in flight: the held buffer becomes the output buffer, no copy.
            self.held = output
            output = held
        }
        flush()
    }

    /// The run goes straight from the turn buffer to the socket when nothing is in flight
    /// before it; only what the socket does not take is copied (into `output`).
    private func releaseRun() {
        let bytes = run
        runStart = -1
        switch state {
        case .open, .closing: break
        case .dropping, .closed: return
        }
        if let output, evbuffer_get_length(output) > 0 {
            evbuffer_add(output, bytes.baseAddress, bytes.count)  // behind what is in flight
            return flush()
        }
        var sent = 0
        while sent < bytes.count {
            do {
                sent += try Sys.send(UnsafeRawBufferPointer(rebasing: bytes[sent...]), to: fd)
            } catch {
                if error.wouldBlock { break }
                return server.drop(self, Self.reason(error))
            }
        }
        if sent < bytes.count {
            if output == nil { output = evbuffer_new() }
            evbuffer_add(output, bytes.baseAddress! + sent, bytes.count - sent)
            account()
            checkUnread(progressed: sent > 0)
            return armWrite()
        }
        // All written: buffers left empty from earlier turns are given back, as `flush` does.
        if let o = output { evbuffer_free(o); output = nil }
        if let h = held, evbuffer_get_length(h) == 0 { evbuffer_free(h); held = nil }
        written()
    }

    /// Everything released is written.
    private func written() {
        account()
        overOutputLimitSince = nil
        stalledSince = nil
        disarmWrite()
        resumeInputIfWritten()
        if case .closing = state, held == nil { server.reap(self) }
    }

    /// Output is left unread (the socket is full): notes since when the client takes none of
    /// it, and when it went over `maxOutputBytes`. The sweep drops a client over the limit
    /// for `outputTimeout`, or whose requests wait for it to read while it has taken nothing
    /// for `outputTimeout`; the budget closes stalled clients before ones that read.
    private func checkUnread(progressed: Bool) {
        let now = monotonicSeconds()
        if progressed || stalledSince == nil { stalledSince = now }
        // Over the limit counts from the last time the client took any of it: one reading a
        // reply bigger than the limit, however slowly, is not dropped for its size.
        if unreadBytes > server.limits.maxOutputBytes, overOutputLimitSince == nil || progressed { overOutputLimitSince = now }
        if overOutputLimitSince != nil || inputPaused || isClosing { server.watch(self) }
    }

    /// Whether the client has taken none of its output for `seconds` (now: `now`).
    func stalled(now: Double, for seconds: Double) -> Bool {
        stalledSince.map { now - $0 >= seconds } ?? false
    }

    /// Writes until the socket is full (then waits for EV_WRITE) or the output is empty.
    private func flush() {
        switch state {
        case .open, .closing: break
        case .dropping, .closed: return
        }
        if let out = output {
            var progressed = false
            while evbuffer_get_length(out) > 0 {
                do {
                    progressed = try Sys.send(out, to: fd) > 0 || progressed
                } catch {
                    if error.wouldBlock {
                        account()
                        checkUnread(progressed: progressed)
                        resumeInputIfWritten()
                        return armWrite()
                    }
                    return server.drop(self, Self.reason(error))
                }
            }
            // Flushed: give the buffers back, an idle connection keeps none.
            evbuffer_free(out)
            output = nil
            if let h = held, evbuffer_get_length(h) == 0 {
                evbuffer_free(h)
                held = nil
            }
        }
        written()
    }

    private func armWrite() {
        guard !writeArmed else { return }
        if writeEvent == nil {
            writeEvent = event_new(server.loop.base, fd, Int16(EV_WRITE | EV_PERSIST), { _, _, ctx in
                Unmanaged<Connection>.fromOpaque(ctx!).takeUnretainedValue().writable()
            }, Unmanaged.passUnretained(self).toOpaque())
            event_priority_set(writeEvent, EventLoop.ioPriority)
        }
        event_add(writeEvent, nil)
        writeArmed = true
    }

    private func disarmWrite() {
        guard writeArmed else { return }
        event_del(writeEvent)
        writeArmed = false
    }

    // MARK: State changes (driven by LineServer)

    /// Stops reading; output continues.
    func markClosing(_ reason: CloseReason) {
        state = .closing(reason)
        partial = []
        pendingInput = []
        if let readEvent { event_del(readEvent) }
        account()
    }

    /// Stops reading and writing; queued output is discarded.
    func markDropping(_ reason: CloseReason) {
        state = .dropping(reason)
        freeResources()
        account()
    }

    /// Whether a closing connection has written everything (and owes no deferred reply).
    var isFlushed: Bool { pendingOutputBytes == 0 && deferredReplies == 0 }

    /// Releases everything and closes the descriptor. The server tells the delegate.
    func tearDown() {
        freeResources()
        state = .closed
        account()
        Sys.close(fd)
    }

    private func freeResources() {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        if let held { evbuffer_free(held) }
        if let output { evbuffer_free(output) }
        readEvent = nil
        writeEvent = nil
        writeArmed = false
        held = nil
        output = nil
        runStart = -1
        partial = []
        pendingInput = []
        inputPaused = false
        overOutputLimitSince = nil
        stalledSince = nil
    }

    private static func reason(_ error: SystemError) -> CloseReason {
        error.errno == ECONNRESET || error.errno == EPIPE ? .clientClosed : .error(error.errno)
    }
}

/// Bytes sent alike to many connections (see `Connection.send(_: SharedOutput)`): one copy,
/// freed when the last connection that refers to it wrote or dropped it.
/// Sendable: its bytes are written once, in `init`, and only read after (a big reply is
/// made on a helper thread and handed to the loop).
public final class SharedOutput: @unchecked Sendable {
    let bytes: UnsafeMutableRawPointer
    public let count: Int

    /// Its bytes, for a body that only reads them.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    public init(_ source: UnsafeRawBufferPointer) {
        count = source.count
        bytes = .allocate(byteCount: max(count, 1), alignment: 16)
        if let base = source.baseAddress { bytes.copyMemory(from: base, byteCount: count) }
    }

    /// Takes over `count` bytes at `bytes` (allocated by Swift, e.g. a `JSONWriter`'s buffer
    /// from `takeBuffer()`), without a copy; freed with the last reference.
    public init(adopting bytes: UnsafeMutableRawPointer, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    deinit { bytes.deallocate() }
}

@available(*, unavailable, message: "a connection is used only on its loop thread")
extension Connection: Sendable {}
