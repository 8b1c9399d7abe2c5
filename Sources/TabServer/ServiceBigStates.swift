// Big `state` (and `preserve`) replies, kept off the loop: a controller whose reply would be large (hundreds
// of kilobytes up to ~100 MB at the default limits, ~200 ms to encode) is encoded on a helper
// thread from a copy of its value (copy-on-write: the copy costs nothing), while the loop goes
// on answering everyone else; the asking client's next lines wait (`Connection.deferReply`)
// so that its replies keep their order. Requests for an equal controller while one is being
// encoded wait for that encoding. The encoded members are kept (within an eighth of the
// memory budget) and sent to later askers by reference, without a copy
// (`Connection.send(_: SharedOutput)`), as long as the controller is unchanged.
//
// A turn whose commit fails is redone: a deferral of that turn is then stale (`epoch`), its
// encoding sent to no one, and the redo defers again. A reply that becomes ready while a turn
// is open waits for that turn's commit (or redo), so that it is never discarded with the
// turn's output.

import Dispatch
import TabCore
import TabJSON
import TabProtocol
import TabTransport

/// The replies made this way: a controller's `state`, and its `preserve` archive (all its
/// stacks: tens of megabytes for a full controller).
enum BigReply: Equatable, Sendable {
    case state, preserve

    /// The result's members, then the reply's end.
    func encode(_ c: Controller, _ w: inout JSONWriter) {
        switch self {
        case .state: ReplyEncoder.state(c, &w)
        case .preserve: w.key(literal: "archive"); ReplyEncoder.archive(c.preserve(), &w)
        }
        w.literal("}}\n")
    }
}

/// One encoding under way, and who waits for it.
final class PendingState {
    let controller: Controller
    let kind: BigReply
    let epoch: UInt64
    var waiters: [(connection: Connection, prefix: [UInt8])] = []
    init(controller: Controller, kind: BigReply, epoch: UInt64) {
        self.controller = controller
        self.kind = kind
        self.epoch = epoch
    }
}

/// The last big replies, by controller value.
struct BigStates {
    var kept: [(controller: Controller, kind: BigReply, members: SharedOutput)] = []
    var pending: [PendingState] = []
    /// Turns redone so far: a deferral from before the last redo is stale.
    var epoch: UInt64 = 0
    /// Replies ready while a turn was open: sent after its commit.
    var ready: [() -> Void] = []

    mutating func members(for c: Controller, _ kind: BigReply) -> SharedOutput? {
        for i in kept.indices where kept[i].kind == kind && kept[i].controller.isEqual(to: c) { return kept[i].members }
        return nil
    }

    mutating func keep(_ c: Controller, _ kind: BigReply, _ members: SharedOutput, within bytes: Int) {
        kept.removeAll { $0.kind == kind && $0.controller.name == c.name }
        guard members.count <= bytes else { return }
        kept.append((c, kind, members))
        while kept.reduce(0, { $0 + $1.members.count }) > bytes { kept.removeFirst() }
    }
}

extension TabService {
    /// Replies from this size on are encoded off the loop (about half a millisecond of
    /// encoding on the benchmark machine).
    static let bigStateBytes = 256 << 10

    /// What `state` of `c` will about weigh: its strings and a fixed cost per tab and screen.
    /// A walk of the tabs and stacks without writing anything (a tenth of the encoding).
    static func estimatedStateBytes(_ c: Controller) -> Int {
        var n = 512
        for t in c.tabs {
            n += 260 + t.id.utf8.count + (t.title?.utf8.count ?? 0) * 2 + (t.item?.image?.utf8.count ?? 0) + (t.restorationID?.utf8.count ?? 0)
            for s in t.stack { n += 24 + s.id.utf8.count + (s.title?.utf8.count ?? 0) }
            if n >= bigStateBytes { return n }
        }
        return n
    }

    /// `state` (or `preserve`) of a big controller (`estimatedStateBytes`): from the kept
    /// members, or deferred to a helper thread. False when `c` is small (the caller encodes it).
    func bigState(_ c: Controller, id: RequestID?, to connection: Connection, kind: BigReply = .state) -> Bool {
        if let members = bigStates.members(for: c, kind) {
            var prefix = JSONWriter(capacity: 64)
            Self.replyPrefix(id: id, &prefix)
            prefix.withBytes { connection.send($0) }
            connection.send(members)
            return true
        }
        guard Self.estimatedStateBytes(c) >= Self.bigStateBytes else { return false }
        var prefix = JSONWriter(capacity: 64)
        Self.replyPrefix(id: id, &prefix)
        connection.deferReply()
        for pending in bigStates.pending where pending.epoch == bigStates.epoch && pending.kind == kind {
            var kept = pending.controller
            guard kept.isEqual(to: c) else { continue }
            pending.waiters.append((connection, prefix.bytes))
            return true
        }
        let pending = PendingState(controller: c, kind: kind, epoch: bigStates.epoch)
        pending.waiters.append((connection, prefix.bytes))
        bigStates.pending.append(pending)
        let snapshot = c
        let service = LoopBound(self)
        let pendingBound = LoopBound(pending)
        let onLoop = self.onLoop
        stateEncoder.async {
            var w = JSONWriter(capacity: 1 << 20)
            kind.encode(snapshot, &w)
            let (buffer, count) = w.takeBuffer()
            let members = SharedOutput(adopting: UnsafeMutableRawPointer(buffer), count: count)
            onLoop { service.value.stateEncoded(pendingBound.value, members) }
        }
        return true
    }

    /// `{"id":…,"ok":true,"result":{` — ReplyEncoder.success without its members and end.
    static func replyPrefix(id: RequestID?, _ w: inout JSONWriter) {
        var whole = JSONWriter(capacity: 64)
        ReplyEncoder.success(id: id, into: &whole) { _ in }
        whole.withBytes { w.append(bytes: UnsafeRawBufferPointer(rebasing: $0.dropLast(3))) }  // "}}\n"
    }

    /// On the loop: an encoding finished. Its waiters get it (unless a redo made it stale),
    /// now or, while a turn is open, once that turn is committed.
    func stateEncoded(_ pending: PendingState, _ members: SharedOutput) {
        bigStates.pending.removeAll { $0 === pending }
        let stale = pending.epoch != bigStates.epoch
        if !stale { bigStates.keep(pending.controller, pending.kind, members, within: config.memoryBudgetBytes / 8) }
        let deliver = {
            for (connection, prefix) in pending.waiters {
                if !stale {
                    prefix.withUnsafeBytes { connection.send($0) }
                    connection.send(members)
                }
                connection.endDeferredReply()
            }
        }
        if turnOpen { bigStates.ready.append(deliver) } else { deliver() }
    }

    /// After a commit or a redo: the replies that became ready during the turn.
    func sendReadyStates() {
        guard !bigStates.ready.isEmpty else { return }
        let ready = bigStates.ready
        bigStates.ready = []
        for deliver in ready { deliver() }
    }
}
