// What holds tabd-web's ground below HTTP: every connection passes a GateHandler first (the
// first handler of its pipeline, on the bytes as they arrive). It bounds the connections
// that have not logged in (presented the token) in number and in time, and reads the frame
// headers of an upgraded connection to close it when a client frame is not masked (RFC 6455
// §5.1: hummingbird-websocket and NIO accept such frames and have no option to refuse them).

import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The counts every connection shares, with their bounds (tabd-web's options): connections
/// that have not logged in yet, and WebSocket sessions.
final class Gate: Sendable {
    let pending: Slots
    let sessions: Slots
    let loginTimeout: Int

    init(maxPending: Int, loginTimeout: Int, maxSessions: Int) {
        pending = Slots(maxPending); sessions = Slots(maxSessions); self.loginTimeout = loginTimeout
    }
}

/// At most `limit` at once.
final class Slots: Sendable {
    let limit: Int
    private let taken = Mutex(0)

    init(_ limit: Int) { self.limit = limit }

    /// False when all `limit` are taken.
    func take() -> Bool {
        taken.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func give() { taken.withLock { $0 -= 1 } }
}

/// Sent down a connection's pipeline when one of its requests carried the token.
struct LoggedIn: Sendable {}

/// The gate in front of every connection's pipeline (see the top of this file).
final class GateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let gate: Gate
    /// Counted among the connections that have not logged in.
    private var pending = false
    /// Refused or closed here: what it sends after is not read.
    private var refused = false
    private var timeout: Scheduled<Void>?
    /// The request head read so far (until its blank line): whether it asks for a WebSocket.
    private var head: [UInt8] = []
    /// After a WebSocket upgrade's head: reading frame headers.
    private var frames = false
    /// The frame header read so far, and the payload bytes still to skip.
    private var frameHead: [UInt8] = []
    private var skip: UInt64 = 0

    /// Counted among the pending when it was accepted (GatedChannel), else to be refused.
    private let admitted: Bool

    init(gate: Gate, admitted: Bool) { self.gate = gate; self.admitted = admitted; pending = admitted }

    /// The login timeout runs (or the refusal is sent) from when the connection is active.
    private var started = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leavePending()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard admitted else {
            let text = "tabd-web: \(gate.pending.limit) connections have not logged in yet (its --max-pending); try again in a few seconds\n"
            let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
            sayAndClose(context, Array(answer.utf8))
            return
        }
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(Int64(gate.loginTimeout))) {
            guard self.pending else { return }
            // Said as the peer's end of input first: what waits for a request head ends
            // quietly (else Hummingbird logs an error for each connection closed here).
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        leavePending()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is LoggedIn { leavePending() } else { context.fireUserInboundEventTriggered(event) }
    }

    private func leavePending() {
        guard pending else { return }
        pending = false
        timeout?.cancel()
        timeout = nil
        gate.pending.give()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        let unmasked = buffer.withUnsafeReadableBytes { scan($0) }
        guard !unmasked else {
            // Close, 1002 (protocol error); the server's own frame is never masked.
            sayAndClose(context, [0x88, 0x02, 0x03, 0xEA])
            return
        }
        context.fireChannelRead(data)
    }

    /// Sends `bytes` and ends the connection: its output at once, the rest when the peer
    /// closes or a second later. What the peer sends meanwhile is read and dropped: closed
    /// with unread input, the kernel would answer a reset, and the peer might lose `bytes`.
    private func sayAndClose(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        refused = true
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
    }

    /// Reads request heads until a WebSocket upgrade's, then frame headers. True: a client
    /// frame that is not masked.
    private func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < bytes.count {
            if !frames {
                head.append(bytes[i]); i += 1
                guard head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) else {
                    if head.count > 1 << 16 { head.removeAll() }  // NIO refuses such a head itself
                    continue
                }
                frames = String(decoding: head, as: UTF8.self).lowercased().split(separator: "\r\n").contains {
                    $0.hasPrefix("upgrade:") && $0.dropFirst(8).contains("websocket")
                }
                head.removeAll()
                continue
            }
            if skip > 0 {
                let n = Int(min(skip, UInt64(bytes.count - i)))
                i += n; skip -= UInt64(n)
                continue
            }
            frameHead.append(bytes[i]); i += 1
            guard frameHead.count >= 2 else { continue }
            if frameHead[1] & 0x80 == 0 { return true }
            let length7 = frameHead[1] & 0x7F
            let extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0
            guard frameHead.count == 2 + extended + 4 else { continue }
            skip = extended == 0 ? UInt64(length7) : frameHead[2..<(2 + extended)].reduce(0) { $0 << 8 | UInt64($1) }
            frameHead.removeAll()
        }
        return false
    }
}

/// A server's child channel with the gate in front of whatever `inner` sets up. A connection
/// over `maxPending` gets the gate alone, which refuses it: nothing of HTTP is set up for it.
struct GatedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let inner: Inner.Value?
        let channel: any Channel
    }

    let inner: Inner
    let gate: Gate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = gate.pending.take()
        do {
            try channel.pipeline.syncOperations.addHandler(GateHandler(gate: gate, admitted: admitted), position: .first)
        } catch {
            if admitted { gate.pending.give() }
            return channel.eventLoop.makeFailedFuture(error)
        }
        guard admitted else { return channel.eventLoop.makeSucceededFuture(Value(inner: nil, channel: channel)) }
        return inner.setup(channel: channel, logger: logger).map { Value(inner: $0, channel: channel) }
    }

    func handle(value: Value, logger: Logger) async {
        if let inner = value.inner { await self.inner.handle(value: inner, logger: logger) }
    }
}
