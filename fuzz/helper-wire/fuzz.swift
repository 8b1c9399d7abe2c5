// libFuzzer harness for what tabd reads from an isolated plugin's helper process (TabPlugins,
// Isolation/): the helper runs a plugin tabd does not trust, so every byte it sends is
// hostile. Build and run: make fuzz (fuzz/run.sh helper-wire).
//
// The input's first byte chooses what reads the rest:
//   0: an answer (Answer): never a crash; an answer that reads writes back, with the helper's
//      own writer (WireWriter, in the order HelperProcess writes), to bytes that read the same;
//   1: a hello (HelperHello.read): never a crash; a refusal is one sentence; a hello that
//      reads writes back the same way;
//   2: packets (Packets.receive) over a real SOCK_SEQPACKET socket pair: the rest is cut into
//      packets (a length byte, then that many bytes: the first of them the "more follows"
//      flag); the message received is exactly the packets' bytes after their flags up to the
//      first packet without the flag, and a buffer too small grows.

@testable import TabPlugins
import FuzzDriver
import CTabPolicy
import Glibc

func fuzzHelperWire(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let body = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 3 {
    case 0: answer(body)
    case 1: hello(body)
    default: packets(body)
    }
    return 0
}

/// `bytes` in a buffer of their own, as tabd's receive buffer holds a message.
private func withMessage<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafeMutableRawBufferPointer, Int) -> R) -> R {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
    defer { buffer.deallocate() }
    _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
    return body(buffer, bytes.count)
}

private func answer(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let a = withMessage(bytes, { Answer($0, $1) }) else { return }
    var w = WireWriter(.answer)
    w.u32(a.result.rawValue); w.u32(a.mask)
    w.string(a.reason); w.string(a.message); w.string(a.json)
    w.u32(UInt32(a.effects.count))
    for e in a.effects {
        switch e {
        case .log(let level, let message): w.u8(1); w.u32(level); w.string(message)
        case .emit(let json): w.u8(2); w.string(json)
        case .select(let tab): w.u8(3); w.string(tab)
        case .store(let key, let value): w.u8(4); w.string(key); w.string(value)
        case .timer(let controller, let name, let ms):
            w.u8(5); w.string(controller); w.string(name); w.i64(ms.map { Int64(clamping: $0) } ?? -1)
        }
    }
    guard let again = withMessage(w.bytes, { Answer($0, $1) }) else { fatalError("an answer tabd read does not read back once written") }
    require(again.result == a.result && again.mask == a.mask && again.reason == a.reason && again.message == a.message
                 && again.json == a.json && again.effects.count == a.effects.count, "an answer read back differs")
    for (x, y) in zip(a.effects, again.effects) {
        switch (x, y) {
        case (.log(let l1, let m1), .log(let l2, let m2)): require(l1 == l2 && m1 == m2, "a log effect read back differs")
        case (.emit(let j1), .emit(let j2)): require(j1 == j2, "an emit effect read back differs")
        case (.select(let t1), .select(let t2)): require(t1 == t2, "a select effect read back differs")
        case (.store(let k1, let v1), .store(let k2, let v2)): require(k1 == k2 && v1 == v2, "a store effect read back differs")
        case (.timer(let c1, let n1, let m1), .timer(let c2, let n2, let m2)):
            require(c1 == c2 && n1 == n2 && m1 == m2, "a timer effect read back differs")
        default: fatalError("an effect read back changed its kind")
        }
    }
}

private func hello(_ bytes: UnsafeBufferPointer<UInt8>) {
    switch withMessage(bytes, { HelperHello.read($0, $1) }) {
    case .failure(let refusal):
        // The plugin's own text may say anything; tabd's sentences are fixed.
        _ = refusal.sentence
    case .success(let h):
        var w = WireWriter(.hello)
        w.u8(1)
        w.string(h.name); w.string(h.version); w.string(h.summary)
        w.u32(h.major); w.u32(h.minor); w.u32(h.hooks)
        w.string(h.note)
        guard case .success(let again) = withMessage(w.bytes, { HelperHello.read($0, $1) }) else {
            fatalError("a hello tabd read does not read back once written")
        }
        require(again.name == h.name && again.version == h.version && again.summary == h.summary && again.major == h.major
                     && again.minor == h.minor && again.hooks == h.hooks && again.note == h.note, "a hello read back differs")
    }
}

/// One socket pair for the process: each input's packets are sent, received, then the pair is
/// drained (nothing of one input is left for the next).
private let pair: (Int32, Int32) = {
    var fds: [Int32] = [0, 0]
    require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0, "socketpair: \(errno)")
    var big: Int32 = 1 << 20
    setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &big, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &big, socklen_t(MemoryLayout<Int32>.size))
    return (fds[0], fds[1])
}()

private func packets(_ bytes: UnsafeBufferPointer<UInt8>) {
    var sent: [[UInt8]] = []
    var i = 0
    // At most 200 packets: the socket's buffer holds them all (each costs it about 1 KiB).
    while i < bytes.count, sent.count < 200 {
        let n = Int(bytes[i]); i += 1
        let packet = Array(bytes[i..<min(bytes.count, i + n)]); i += n
        sent.append(packet)
    }
    var expected: [UInt8] = []
    var outcome = "gave up"  // no packet ends the message: receive waits, and the harness's wait gives up
    for p in sent {
        if p.isEmpty { outcome = "end"; break }  // a zero-length packet reads as the peer's end
        expected += p.dropFirst()
        if p[0] != 1 { outcome = "message"; break }
    }
    for p in sent { require(p.withUnsafeBytes { send(pair.0, $0.baseAddress, $0.count, 0) } == p.count, "send: \(errno)") }

    // A small buffer, so that receiving grows it (tabd's starts at 64 KiB).
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)
    defer { buffer.deallocate() }
    switch Packets.receive(pair.1, into: &buffer, wait: Packets.noWaiting) {
    case .message(let n):
        require(outcome == "message", "received a message where the packets give: \(outcome)")
        require(n == expected.count && buffer.prefix(n).elementsEqual(expected), "the message received is not the packets' bytes")
    case .end: require(outcome == "end", "received the end where the packets give: \(outcome)")
    case .gaveUp: require(outcome == "gave up", "gave up where the packets give: \(outcome)")
    case .failed(let e): fatalError("receive failed: \(e)")
    }
    var scratch = [UInt8](repeating: 0, count: 1 << 16)
    while recv(pair.1, &scratch, scratch.count, 0) >= 0 {}
}
