// The fast path of request decoding: the requests clients send most (`select`, `tap`,
// `state`, `ping`) as flat objects of plain ASCII strings and integers, decoded straight
// from the bytes — no JSON tree, no key strings, no array of members.
//
// It only ever accepts; it never rejects. Anything outside its narrow shape (an escape, a
// non-ASCII byte, a number that is not a small integer, a repeated or unknown key, a field
// the command does not take …) returns nil, and the general decoder decides, with its
// errors. So the fast path cannot change what a request means: FastRequestTests checks,
// over generated near-miss lines, that whenever it answers, the general decoder gives the
// same request. Under `make bench` it takes about a fifth of a request's CPU time off.

import TabCore
import TabJSON

enum FastRequest {
    enum Key { case cmd, controller, tab, id, index }

    enum Value {
        case string(String)
        case int(Int)
    }

    /// The commands this path takes, recognised from the bytes: no String is made for `cmd`.
    enum Name { case select, tap, state, ping }

    /// The request, or nil: let the general decoder handle the line.
    static func decode(_ line: UnsafeRawBufferPointer) -> Request? {
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var p = FlatScanner(base: base, count: line.count)
        var cmd: Name?, controller: String?, tab: String?, id: Range<Int>?, index: Int?

        p.skipWhitespace()
        guard p.take(UInt8(ascii: "{")) else { return nil }
        repeat {
            p.skipWhitespace()
            guard let key = p.key() else { return nil }
            p.skipWhitespace()
            guard p.take(UInt8(ascii: ":")) else { return nil }
            p.skipWhitespace()
            if key == .cmd {
                // Another command (or a repeated cmd): the general decoder.
                guard cmd == nil, let name = p.name() else { return nil }
                cmd = name
                p.skipWhitespace()
                continue
            }
            if key == .id {
                // Only where it is: the reply copies the bytes.
                guard id == nil, let token = p.idToken() else { return nil }
                id = token
                p.skipWhitespace()
                continue
            }
            guard let value = p.value() else { return nil }
            // A repeated key, or a value of the wrong type: the general decoder explains.
            switch (key, value) {
            case (.controller, .string(let s)) where controller == nil: controller = s
            case (.tab, .string(let s)) where tab == nil: tab = s
            case (.index, .int(let i)) where index == nil: index = i
            default: return nil
            }
            p.skipWhitespace()
        } while p.take(UInt8(ascii: ","))
        guard p.take(UInt8(ascii: "}")) else { return nil }
        p.skipWhitespace()
        guard p.atEnd, let cmd else { return nil }

        // Each case returns its request as it builds it: one built first and returned after
        // the switch was copied into the result and destroyed (~130 instructions a select).
        let requestID = id.map { RequestID(token: UnsafeRawBufferPointer(start: base + $0.lowerBound, count: $0.count)) }
        let controllerName = controller ?? TabContainers.defaultName
        switch cmd {
        case .select:
            if let tab, index == nil {
                return Request(id: requestID, controller: controllerName, command: .core(.select(.tab(tab))))
            } else if let index, tab == nil {
                return Request(id: requestID, controller: controllerName, command: .core(.select(.index(index))))
            }
            return nil
        case .tap:
            guard let tab, index == nil else { return nil }
            return Request(id: requestID, controller: controllerName, command: .core(.tap(.tab(tab))))
        case .state:
            guard tab == nil, index == nil else { return nil }
            return Request(id: requestID, controller: controllerName, command: .state)
        case .ping:
            guard tab == nil, index == nil else { return nil }
            return Request(id: requestID, controller: controllerName, command: .ping)
        }
    }
}

/// What only requests read: their keys, their command names, their `id`s.
private extension FlatScanner {
    @inline(__always)
    mutating func key() -> FastRequest.Key? {
        guard let (s, e) = plainString() else { return nil }
        switch e &- s {
        case 2 where word(s, 2) == 0x6469 /* "id" */: return .id
        case 3:
            let w = word(s, 3)
            if w == 0x646d63 /* "cmd" */ { return .cmd }
            if w == 0x626174 /* "tab" */ { return .tab }
            return nil
        case 5 where word(s, 5) == 0x7865646e69 /* "index" */: return .index
        case 10 where word(s, 8) == 0x6c6c6f72746e6f63 /* "controll" */ && word(s &+ 8, 2) == 0x7265 /* "er" */: return .controller
        default: return nil
        }
    }

    /// A `cmd` value this path takes.
    @inline(__always)
    mutating func name() -> FastRequest.Name? {
        guard let (s, e) = plainString() else { return nil }
        switch e &- s {
        case 3 where word(s, 3) == 0x706174 /* "tap" */: return .tap
        case 4 where word(s, 4) == 0x676e6970 /* "ping" */: return .ping
        case 5 where word(s, 5) == 0x6574617473 /* "state" */: return .state
        case 6 where word(s, 6) == 0x7463656c6573 /* "select" */: return .select
        default: return nil
        }
    }

    /// A plain string, or an integer `integer()` reads.
    mutating func value() -> FastRequest.Value? {
        guard i < count else { return nil }
        if base[i] == UInt8(ascii: "\"") {
            return plainString().map { .string(string($0)) }
        }
        return integer().map(FastRequest.Value.int)
    }

    /// Where an `id` this path takes lies: a plain string (quotes included) or an integer
    /// `integer()` reads. Anything else (an escape, `-0`, `1.0`, `true` …) is left to the
    /// general decoder, which echoes it as sent too.
    mutating func idToken() -> Range<Int>? {
        let start = i
        guard i < count else { return nil }
        if base[i] == UInt8(ascii: "\"") {
            guard plainString() != nil else { return nil }
        } else {
            guard integer() != nil else { return nil }
        }
        return start..<i
    }
}
