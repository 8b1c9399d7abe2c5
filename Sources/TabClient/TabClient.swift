// TabClient: one connection to tabd, with async/await (docs/clients.md).
//
// Requests are pipelined: each call writes its line at once and waits for its reply; tabd
// answers in order, so the replies are matched to the calls first in, first out. Events
// come on the same connection, between replies, and go to `events` (an AsyncSequence) in
// the order they came: an event sent before a reply is in `events` before that reply's
// call returns. One thread per connection reads (blocking reads on the socket); no
// networking framework is involved, only the Unix socket.
//
// Results and events are TabJSON's values (`JSONValue`, `JSONObject`), so TabClient
// re-exports TabJSON: `import TabClient` alone reads them. `@_exported import` rather than
// typealiases: a typealias would clash with TabJSON's own name in a file that imports both
// ("'JSONValue' is ambiguous"), and under Swift's MemberImportVisibility the members and
// extensions TabJSON declares (`jsonString`, `JSONObject.keys`) are visible only from an imported
// module, which the re-export makes TabJSON for every file that imports TabClient.

import Foundation
import Synchronization
import TabCore
@_exported import TabJSON
import TabProtocol
import TabSystem

/// An error reply from tabd: its code (ProtocolError.Code, the protocol's one list), its
/// message, and the error object's other members (`plugin`, `reason`, `field`, …).
public struct TabdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The wire code as sent (a newer tabd may send one this library does not know).
    public var codeName: String
    public var message: String
    /// The whole error object.
    public var object: JSONObject

    /// The code, when it is one of the protocol's (ProtocolError.Code).
    public var code: ProtocolError.Code? { ProtocolError.Code(rawValue: codeName) }
    /// For `denied`: the plugin that refused, and its reason.
    public var plugin: String? { object.text("plugin") }
    public var reason: String? { object.text("reason") }
    /// For `invalid_request`: the field.
    public var field: String? { object.text("field") }

    public init(object: JSONObject) {
        self.object = object
        codeName = object.text("code") ?? "internal"
        message = object.text("message") ?? "tabd sent an error without a message"
    }

    public var description: String {
        "\(codeName): \(message)" + (plugin.map { " (plugin \($0))" } ?? "")
    }
}

/// What went wrong with the connection itself (not an answer of tabd's).
public enum TabClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// connect() failed: the path and the reason.
    case unreachable(path: String, reason: String)
    /// The connection ended (tabd stopped or restarted, or closed it) before the reply came;
    /// `TabClient.disconnectReason` says why.
    case disconnected
    /// A line from tabd that is not what the protocol says.
    case badReply(String)

    public var description: String {
        switch self {
        case .unreachable(let path, let reason): return "cannot reach tabd at \(path): \(reason)"
        case .disconnected: return "the connection to tabd ended"
        case .badReply(let line): return "tabd sent a line this client cannot read: \(line.prefix(200))"
        }
    }
}

/// Why a connection ended (`TabClient.disconnectReason`): the first of these that happened.
public enum DisconnectReason: Error, Sendable, Equatable, CustomStringConvertible {
    /// tabd closed the connection at the end of a line: it stopped or restarted, or closed
    /// this connection (a limit of docs/protocol.md, "Framing": its error reply, when it sent
    /// one, came before).
    case endOfFile
    /// tabd's side ended in the middle of a line: `bytes` of it had come.
    case endOfFileInLine(bytes: Int)
    /// This side ended it: `close()`.
    case closed
    /// Reading failed: recv(2)'s errno (ECONNRESET, …).
    case readFailed(errno: Int32)
    /// Writing a request failed: send(2)'s errno (EPIPE: tabd had closed the connection).
    case writeFailed(errno: Int32)
    /// tabd sent a line longer than the client takes (`maxLineBytes`).
    case lineTooLong(limit: Int)
    /// tabd sent a line this client cannot read: not a JSON object, or an event without a
    /// name (the line, cut to 200 bytes).
    case badLine(String)
    /// tabd sent a reply when no request waited for one (the line, cut to 200 bytes).
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .endOfFile: return "tabd closed the connection"
        case .endOfFileInLine(let n): return "tabd closed the connection in the middle of a line (after \(n) bytes of it)"
        case .closed: return "this client closed the connection"
        case .readFailed(let e): return "reading from tabd failed: \(SystemError("recv", errno: e).reason) (errno \(e))"
        case .writeFailed(let e): return "writing to tabd failed: \(SystemError("send", errno: e).reason) (errno \(e))"
        case .lineTooLong(let limit): return "tabd sent a line longer than \(limit) bytes, more than this client takes"
        case .badLine(let line): return "tabd sent a line this client cannot read: \(line)"
        case .unexpectedReply(let line): return "tabd sent a reply no request waited for: \(line)"
        }
    }

    static func excerpt(_ line: ArraySlice<UInt8>) -> String { String(decoding: line.prefix(200), as: UTF8.self) }
}

/// One event as tabd sends it: `{"event":…,"controller":…,"seq":…,"data":{…}}`.
public struct TabEvent: Sendable, Equatable {
    /// The event's name (`Kind` when it is one this library knows).
    public var name: String
    public var controller: String
    public var seq: Int
    public var data: JSONObject
    /// The last event this connection gets from one command (`"last":true`; false in a
    /// grouped line, which is the whole command's, and from a tabd older than the mark).
    public var last: Bool

    public var kind: Kind? { Kind(rawValue: name) }

    /// The events of docs/protocol.md, "Events": TabCore's one list of event names (a case
    /// per event, `.tabsChanged` for `tabs_changed`; CaseIterable).
    public typealias Kind = EventName

    public init(name: String, controller: String, seq: Int, data: JSONObject, last: Bool = false) {
        self.name = name; self.controller = controller; self.seq = seq; self.data = data; self.last = last
    }

    /// An event line's object; nil when it is not an event.
    public init?(_ o: JSONObject) {
        guard let name = o.text("event") else { return nil }
        self.init(name: name, controller: o.text("controller") ?? "", seq: o.integer("seq") ?? 0, data: o.object("data") ?? JSONObject(),
                  last: o.flag("last") ?? false)
    }

    /// The events of a grouped line (`{"events":[…]}`, `subscribe`'s `grouped`); nil when
    /// the object is not one.
    static func group(_ o: JSONObject) -> [TabEvent]? {
        guard o["ok"] == nil, let list = o.array("events") else { return nil }
        var out: [TabEvent] = []
        for case .object(let e) in list {
            guard let event = TabEvent(e) else { return nil }
            out.append(event)
        }
        return out.count == list.count ? out : nil
    }
}

/// A connection to tabd. Every method may be called from any task; calls made one after the
/// other from one task are answered in that order.
public final class TabClient: Sendable {
    public let path: String
    private let fd: Int32
    /// What the reading thread shares with the callers (the thread holds it, not the client:
    /// a client nobody holds any more shuts its connection down in deinit).
    private let inbox: Inbox
    /// Held while a line is written, so that lines are never interleaved and the order of
    /// `pending` is the order of the lines on the wire.
    private let writing = Mutex<Void>(())

    private final class Inbox: Sendable {
        let state = Mutex(Shared())
        /// Who still uses the descriptor: the client and its reading thread. The last to let
        /// go closes it, so that neither ever touches the number after it was closed (another
        /// socket of the process may have it by then: a shutdown or a send would reach that
        /// socket instead).
        let holders = Atomic<Int>(2)

        /// Lets go of `fd`; the last holder closes it.
        func release(_ fd: Int32) {
            if holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { Sys.close(fd) }
        }

        /// Records why the connection ended, unless something ended it first.
        func end(_ reason: DisconnectReason) {
            state.withLock { s in if s.reason == nil { s.reason = reason } }
        }
    }

    private struct Shared: ~Copyable {
        var pending: [CheckedContinuation<JSONObject, any Error>] = []
        var events: [TabEvent] = []
        var eventWaiter: CheckedContinuation<Void, Never>?
        var closed = false
        /// Why the connection ended: set once, by the first to know.
        var reason: DisconnectReason?
    }

    /// The longest line tabd may send this client (a reply or an event).
    public let maxLineBytes: Int

    /// The default `maxLineBytes`: 256 MiB, a `state` many times the size of the largest
    /// controller tabd holds by default.
    public static let defaultMaxLineBytes = ClientLimits.defaultMaxLineBytes

    /// Connects to the socket at `path` (TABD_SOCKET's default is the caller's to choose).
    /// A line from tabd longer than `maxLineBytes` ends the connection (`lineTooLong`).
    public init(path: String, maxLineBytes: Int = TabClient.defaultMaxLineBytes) throws(TabClientError) {
        self.path = path
        self.maxLineBytes = maxLineBytes
        let fd: Int32
        do { fd = try Sys.connectUnix(path) } catch { throw .unreachable(path: path, reason: Sys.connectFailure(error)) }
        self.fd = fd
        let inbox = Inbox()
        self.inbox = inbox
        let reader = Thread { Self.readLoop(fd: fd, inbox: inbox, maxLineBytes: maxLineBytes) }
        reader.name = "tabclient-reader"
        reader.start()
    }

    deinit {
        Sys.shutdownBoth(fd)  // the reading thread sees the end
        inbox.release(fd)
    }

    /// Ends the connection: calls waiting for replies throw `disconnected`, `events` ends.
    public func close() {
        inbox.end(.closed)
        Sys.shutdownBoth(fd)
    }

    /// Whether the connection has ended.
    public var isClosed: Bool { inbox.state.withLock { $0.closed } }

    /// Why the connection ended (nil while it has not): the first of what ended it. Set
    /// before calls waiting for replies throw `disconnected` and before `events` ends.
    public var disconnectReason: DisconnectReason? { inbox.state.withLock { $0.closed ? $0.reason : nil } }

    // MARK: requests

    /// Sends one request (`cmd` and its fields) and returns the reply's `result`; an error
    /// reply throws `TabdError`, a connection that ends first `TabClientError.disconnected`.
    @discardableResult
    public func request(_ cmd: String, _ fields: [(String, JSONValue)] = []) async throws -> JSONObject {
        try await send(line: JSONValue.object(JSONObject([("cmd", .string(cmd))] + fields)).jsonString)
    }

    /// Sends a request line as it is (one JSON object, no newline) and returns its result.
    @discardableResult
    public func send(line: String) async throws -> JSONObject {
        let reply = try await exchange(line)
        guard case .bool(let ok)? = reply["ok"] else { throw TabClientError.badReply(JSONValue.object(reply).jsonString) }
        if ok { return reply.object("result") ?? JSONObject() }
        throw TabdError(object: reply.object("error") ?? JSONObject())
    }

    /// Sends a request line and returns the whole reply object (`ok`, `result` or `error`,
    /// an echoed `id`): for a bridge that passes replies on as they are.
    public func exchange(_ line: String) async throws -> JSONObject {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<JSONObject, any Error>) in
            writing.withLock { _ in
                let open = inbox.state.withLock { s -> Bool in
                    if s.closed { return false }
                    s.pending.append(c)
                    return true
                }
                guard open else { return c.resume(throwing: TabClientError.disconnected) }
                do throws(SystemError) {
                    try sendAll(fd, bytes)
                } catch {
                    // The reader sees the end too and fails what is pending, this call included.
                    inbox.end(.writeFailed(errno: error.errno))
                    Sys.shutdownBoth(fd)
                }
            }
        }
    }

    // MARK: events

    /// The events this connection receives (after `subscribe`), in order; it ends when the
    /// connection does. Iterate it from one task: each event is handed out once.
    public var events: Events { Events(client: self) }

    public struct Events: AsyncSequence, Sendable {
        public typealias Element = TabEvent
        let client: TabClient
        public struct AsyncIterator: AsyncIteratorProtocol {
            let client: TabClient
            var batch: [TabEvent] = []
            public mutating func next() async -> TabEvent? {
                if batch.isEmpty { batch = await client.nextEvents().reversed() }
                return batch.popLast()
            }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(client: client) }
    }

    /// Every event received and not yet taken, waiting for one when there is none; empty
    /// when the connection has ended or the task was cancelled. A command's events come
    /// together, in one batch: the reader hands them out at the command's last event
    /// (`"last":true`) or grouped line (from a tabd older than the mark: at the end of what
    /// one read brought).
    public func nextEvents() async -> [TabEvent] {
        while !Task.isCancelled {
            let taken = inbox.state.withLock { s -> [TabEvent]? in
                if !s.events.isEmpty { defer { s.events = [] }; return s.events }
                return s.closed ? [] : nil
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let ready = inbox.state.withLock { s -> Bool in
                        // Checked under the lock the handler takes: a cancellation is seen
                        // here or finds the waiter there.
                        if !s.events.isEmpty || s.closed || Task.isCancelled { return true }
                        s.eventWaiter = c
                        return false
                    }
                    if ready { c.resume() }
                }
            } onCancel: {
                let waiter = inbox.state.withLock { s in
                    defer { s.eventWaiter = nil }
                    return s.eventWaiter
                }
                waiter?.resume()
            }
        }
        return []
    }

    // MARK: reading

    private static func readLoop(fd: Int32, inbox: Inbox, maxLineBytes: Int) {
        inbox.end(read(fd: fd, inbox: inbox, maxLineBytes: maxLineBytes))
        let (pending, waiter) = inbox.state.withLock { s in
            s.closed = true
            defer { s.pending = []; s.eventWaiter = nil }
            return (s.pending, s.eventWaiter)
        }
        for c in pending { c.resume(throwing: TabClientError.disconnected) }
        waiter?.resume()
        inbox.release(fd)
    }

    /// Reads lines and hands them out until the connection ends; returns why it did.
    private static func read(fd: Int32, inbox: Inbox, maxLineBytes: Int) -> DisconnectReason {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // Where the search for the next newline goes on: the bytes before it have none.
        var scanned = 0
        // Events of a command whose last has not come yet, and whether tabd marks the last.
        var incoming: [TabEvent] = []
        var marked = false
        func handOut() {
            guard !incoming.isEmpty else { return }
            let waiter = inbox.state.withLock { s -> CheckedContinuation<Void, Never>? in
                s.events += incoming
                defer { s.eventWaiter = nil }
                return s.eventWaiter
            }
            incoming = []
            waiter?.resume()
        }
        defer { handOut() }  // what came before the end is not lost
        while true {
            let n: Int
            switch chunk.withUnsafeMutableBytes({ b in Result { () throws(SystemError) in try Sys.receive(fd, into: b) } }) {
            case .success(let count): n = count
            case .failure(let error): return .readFailed(errno: error.errno)
            }
            if n == 0 { return buffer.isEmpty ? .endOfFile : .endOfFileInLine(bytes: buffer.count) }
            buffer.append(contentsOf: chunk[..<n])
            var start = 0
            while let nl = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<nl]
                start = nl + 1
                scanned = start
                if line.count > maxLineBytes { return .lineTooLong(limit: maxLineBytes) }
                guard case .object(let o)? = try? line.withUnsafeBytes({ try JSONParser.parse($0) }) else {
                    return .badLine(DisconnectReason.excerpt(line))
                }
                if o["event"] != nil {
                    guard let event = TabEvent(o) else { return .badLine(DisconnectReason.excerpt(line)) }
                    incoming.append(event)
                    if event.last { marked = true; handOut() }
                } else if let group = TabEvent.group(o) {
                    marked = true
                    incoming += group
                    handOut()
                } else {
                    let c = inbox.state.withLock { s in s.pending.isEmpty ? nil : s.pending.removeFirst() }
                    guard let c else { return .unexpectedReply(DisconnectReason.excerpt(line)) }
                    c.resume(returning: o)
                }
            }
            if !marked { handOut() }
            buffer.removeSubrange(..<start)
            scanned = buffer.count
            if buffer.count > maxLineBytes { return .lineTooLong(limit: maxLineBytes) }
        }
    }
}
