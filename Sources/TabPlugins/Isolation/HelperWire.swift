// The helper protocol: what tabd and an isolated plugin's helper process say to each other
// over their SOCK_SEQPACKET socket pair (docs/plugins.md, "Isolation").
//
// A message is one or more packets; each packet's first byte is 1 when more of the same
// message follows, 0 on its last packet (so no message is bounded by the socket buffer).
// In a message: an operation byte, then fields in a fixed order: integers little-endian
// (u8, u32, i64), strings as a u32 length, the bytes and a NUL (so the helper hands the
// plugin pointers into the message itself), an absent string as the length 0xFFFFFFFF.
//
// tabd → helper: a hook request (`Op`), carrying a snapshot of the controller (what the
// host table's readers answer) and the hook's arguments.
// helper → tabd: first `hello` (the descriptor, or why the plugin cannot load), then one
// `answer` per request: the hook's result, its reply strings, and its effects in order
// (log lines, emitted events, requested selections; store writes and timers, since 1.6) for
// tabd to apply. `initialize` carries the plugin's store, which the helper keeps a copy of,
// and (since 1.7) the names of the controllers, which it keeps too.

import CTabPolicy
import Glibc
import TabCore
import TabSystem

enum HelperOp: UInt8 {
    case initialize = 1, fini, shouldSelect, supportedOrientations, preferredOrientation, didSelect,
         willBeginCustomizing, willEndCustomizing, didEndCustomizing, call, willStop,
         visibilityChanged, displayOrderChanged, selectionChanged, timer,
         /// The plugin's store as tabd holds it, for the helper's copy (no hook runs): another
         /// instance of the plugin wrote it after this helper's init (a reload's will_stop).
         storeSync,
         /// Since 1.7: a controller was created or is being deleted (the hook runs with its
         /// snapshot), or only the list of controllers changed (no hook runs). Each carries the
         /// names of the controllers after the change, for the helper's `controller_at`.
         controllerCreated, controllerDeleted, controllersSync,
         /// Since 1.7: keys of the plugin's store as tabd holds them (a value, or absent), for
         /// the helper's copy: writes it took that tabd refused (the plugin's budget).
         storePatch,
         /// Since 1.10: a user opens a drawer (the drawer controller's name, side, gesture; no
         /// snapshot: it is not a tab controller).
         mayOpenDrawer,
         /// Since 1.11: a split's proposals (its name, style, (behavior,) the proposal; the
         /// answer's `reason` slot carries the plugin's answer), and an R15 event (its name,
         /// controller and JSON). No snapshot: none is a tab controller's.
         topColumnForCollapsing, displayModeForExpanding, notify
    case hello = 100, answer
}

/// One effect of a hook, applied by tabd as if an in-process plugin had called the host.
enum HelperEffect {
    case log(level: UInt32, message: String)
    case emit(json: String)
    case select(tab: String)
    /// store_put (a value) or store_delete (nil), since 1.6.
    case store(key: String, value: String?)
    /// set_timer (milliseconds) or cancel_timer (nil), since 1.6.
    case timer(controller: String?, name: String, milliseconds: UInt64?)
}

struct WireWriter {
    var bytes: [UInt8] = []

    init(_ op: HelperOp, capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(op.rawValue)
    }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func i64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func string(_ s: String?) {
        guard var s else { u32(.max); return }
        s.withUTF8 { u in
            u32(UInt32(u.count))
            bytes.append(contentsOf: u)
        }
        bytes.append(0)
    }
    /// A C string, or its first `max` bytes (a plugin's text is read no further: tabd caps
    /// what it keeps of it anyway, HookCaps).
    mutating func string(_ p: UnsafePointer<CChar>?, max: Int = .max) {
        guard let p else { u32(.max); return }
        let n = max == .max ? strlen(p) : strnlen(p, max)
        u32(UInt32(n))
        p.withMemoryRebound(to: UInt8.self, capacity: n) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
        bytes.append(0)
    }
}

/// Reads a message in place; strings come back as pointers into it (NUL-terminated).
struct WireReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    var at = 0

    struct Short: Error {}

    mutating func u8() throws(Short) -> UInt8 {
        guard at < count else { throw Short() }
        defer { at += 1 }
        return base[at]
    }
    mutating func u32() throws(Short) -> UInt32 {
        guard at + 4 <= count else { throw Short() }
        defer { at += 4 }
        return UInt32(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self))
    }
    mutating func i64() throws(Short) -> Int64 {
        guard at + 8 <= count else { throw Short() }
        defer { at += 8 }
        return Int64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: Int64.self))
    }
    /// A pointer to the string's bytes in the message, valid while the message is.
    mutating func cString() throws(Short) -> UnsafePointer<CChar>? {
        let n = try u32()
        if n == .max { return nil }
        guard at + Int(n) < count, base[at + Int(n)] == 0 else { throw Short() }
        defer { at += Int(n) + 1 }
        return UnsafeRawPointer(base + at).assumingMemoryBound(to: CChar.self)
    }
    mutating func string() throws(Short) -> String? {
        let n = try u32()
        if n == .max { return nil }
        guard at + Int(n) < count else { throw Short() }
        defer { at += Int(n) + 1 }
        return String(decoding: UnsafeBufferPointer(start: base + at, count: Int(n)), as: UTF8.self)
    }
}

/// Packets of one socket: sends a message as packets, receives packets into one message.
enum Packets {
    /// Bytes of a message per packet (with the flag byte in front).
    static let chunk = 32 << 10
    /// The most a helper's answer may hold: a call's JSON result (1 MiB), its texts and a
    /// hook call's capped effects (HookCaps: 100 events of up to 64 KiB are the bulk), with
    /// room to spare. A helper that sends more is treated as crashed.
    static let maxAnswerBytes = 16 << 20

    /// What a side that never waits answers `wait` with (the helper's blocking socket).
    static func noWaiting(_ events: Int16) -> SystemError? { SystemError("poll", errno: EAGAIN) }

    /// Sends `message`: nil, or why it could not. `wait(events)` is asked to wait when the
    /// socket is full (tabd's side is non-blocking, with a deadline): nil when it may be tried
    /// again, else why not (EAGAIN: the deadline passed).
    static func send(_ fd: Int32, _ message: [UInt8], wait: (Int16) -> SystemError?) -> SystemError? {
        var packet = [UInt8](repeating: 0, count: min(message.count, chunk) + 1)
        var offset = 0
        repeat {
            let n = min(chunk, message.count - offset)
            let last = offset + n == message.count
            if packet.count != n + 1 { packet = [UInt8](repeating: 0, count: n + 1) }
            packet[0] = last ? 0 : 1
            packet.withUnsafeMutableBufferPointer { p in
                message.withUnsafeBufferPointer { m in
                    (p.baseAddress! + 1).update(from: m.baseAddress! + offset, count: n)
                }
            }
            while true {
                let sent = packet.withUnsafeBytes { bytes in Result { () throws(SystemError) in try Sys.send(bytes, to: fd) } }
                guard case .failure(let error) = sent else { break }
                guard error.wouldBlock else { return error }
                if let gaveUp = wait(Int16(POLLOUT)) { return gaveUp }
            }
            offset += n
        } while offset < message.count
        return nil
    }

    enum Received { case message(Int), end, failed(SystemError), gaveUp(SystemError) }

    /// Receives one message into `buffer` (grown as needed); `.message(n)`: its n bytes.
    /// `wait` as for `send`.
    static func receive(_ fd: Int32, into buffer: inout UnsafeMutableRawBufferPointer, maxBytes: Int = .max,
                        wait: (Int16) -> SystemError?) -> Received {
        var used = 0
        while true {
            // A message past maxBytes is refused, not collected: the sender is broken or hostile.
            if used > maxBytes { return .failed(SystemError("recv", errno: EMSGSIZE)) }
            if buffer.count - used < chunk + 1 {
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(buffer.count * 2, used + chunk + 1), alignment: 16)
                if used > 0 { bigger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: used) }
                buffer.deallocate()
                buffer = bigger
            }
            let n: Int
            do throws(SystemError) {
                n = try Sys.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[used...]))
            } catch {
                if error.wouldBlock {
                    if let gaveUp = wait(Int16(POLLIN)) { return .gaveUp(gaveUp) }
                    continue
                }
                return error.errno == ECONNRESET ? .end : .failed(error)
            }
            if n == 0 { return .end }
            let more = buffer.load(fromByteOffset: used, as: UInt8.self) == 1
            // Drop the flag byte: the packet's bytes move over it.
            if n > 1 { (buffer.baseAddress! + used).copyMemory(from: buffer.baseAddress! + used + 1, byteCount: n - 1) }
            used += n - 1
            if !more { return .message(used) }
        }
    }
}

/// What the readers of the host table answer about a controller, sent with each hook.
enum ControllerSnapshot {
    static func write(_ c: Controller, _ w: inout WireWriter) {
        w.string(c.name)
        switch c.idiom {
        case .phone: w.u8(UInt8(TABD_IDIOM_PHONE.rawValue))
        case .pad: w.u8(UInt8(TABD_IDIOM_PAD.rawValue))
        case .tv: w.u8(UInt8(TABD_IDIOM_TV.rawValue))
        }
        w.u32(UInt32(clamping: c.maxVisible))
        w.u8(c.moreShown ? 1 : 0)
        w.u32(c.orientation.mask.rawValue)
        w.string(c.selection.wireValue)
        w.i64(Int64(c.selectedIndex ?? -1))
        w.u32(UInt32(c.tabs.count))
        for t in c.tabs {
            w.string(t.id); w.string(t.effectiveItem.title ?? t.id); w.string(t.badge); w.string(t.restorationID)
        }
        // The selected path (ABI 1.4's selected_path): below the root only when there are groups.
        let path = c.arranged ? c.selectedPath : []
        w.u32(UInt32(path.count))
        for id in path { w.string(id) }
    }
}
