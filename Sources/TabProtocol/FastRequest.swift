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
import TabStrings

enum FastRequest {
    private enum Key { case cmd, controller, tab, id, index }

    private enum Value {
        case string(String)
        case int(Int)
    }

    /// The commands this path takes, recognised from the bytes: no String is made for `cmd`.
    private enum Name { case select, tap, state, ping }

    /// The request, or nil: let the general decoder handle the line.
    static func decode(_ line: UnsafeRawBufferPointer) -> Request? {
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var p = Scanner(base: base, count: line.count)
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

    private struct Scanner {
        let base: UnsafePointer<UInt8>
        let count: Int
        var i = 0

        var atEnd: Bool { i == count }

        mutating func take(_ b: UInt8) -> Bool {
            guard i < count, base[i] == b else { return false }
            i += 1
            return true
        }

        /// JSON's whitespace: space, tab, LF, CR.
        mutating func skipWhitespace() {
            while i < count {
                switch base[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// A quoted run of printable ASCII without `"` or `\`: its bounds, after the quotes.
        @inline(__always)
        mutating func plainString() -> (start: Int, end: Int)? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            while i < count {
                let b = base[i]
                if b == UInt8(ascii: "\"") {
                    i += 1
                    return (start, i - 1)
                }
                // Escapes, control characters and non-ASCII go the general way.
                guard b >= 0x20, b < 0x7F, b != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            return nil
        }

        /// The first `n` (≤ 8) bytes from `s` as a little-endian word, the rest zero: a key
        /// or command name compared as one integer (no memcmp call per candidate).
        @inline(__always)
        func word(_ s: Int, _ n: Int) -> UInt64 {
            if s &+ 8 <= count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self))
                return n == 8 ? w : w & ((1 &<< UInt64(n &* 8)) &- 1)
            }
            var w: UInt64 = 0
            for k in 0..<n { w |= UInt64(base[s &+ k]) &<< UInt64(k &* 8) }
            return w
        }

        @inline(__always)
        mutating func key() -> Key? {
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
        mutating func name() -> Name? {
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
        mutating func value() -> Value? {
            guard i < count else { return nil }
            if base[i] == UInt8(ascii: "\"") {
                guard let (s, e) = plainString() else { return nil }
                // Printable ASCII (`plainString` checked): made as a small string's words.
                return .string(SmallASCII.string(base + s, count: e - s))
            }
            return integer().map(Value.int)
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

        /// An integer of at most 18 digits without sign tricks: `-0`, leading zeros,
        /// fractions and exponents are left to the general decoder.
        mutating func integer() -> Int? {
            guard i < count else { return nil }
            let negative = base[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            let start = i
            var n = 0
            while i < count, base[i] >= UInt8(ascii: "0"), base[i] <= UInt8(ascii: "9") {
                guard i - start < 18 else { return nil }  // 18 digits cannot overflow an Int
                n = n * 10 + Int(base[i] - UInt8(ascii: "0"))
                i += 1
            }
            let digits = i - start
            guard digits > 0 else { return nil }
            if base[start] == UInt8(ascii: "0"), digits > 1 || negative { return nil }
            if i < count {
                switch base[i] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            return negative ? -n : n
        }
    }
}
