// The fast path of request decoding: the requests clients send most (`select`, `tap`,
// `state`, `ping`) and R15's flat node commands (`open_drawer`, `close_drawer`, a
// navigation controller's `pop`, `show_column`, `hide_column`: issue 42) as flat objects of
// plain ASCII strings, integers and booleans, decoded straight from the bytes — no JSON
// tree, no key strings, no array of members.
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
    enum Key { case cmd, controller, tab, id, index, side, gesture, animated, user, column }

    enum Value {
        case string(String)
        case int(Int)
    }

    /// The commands this path takes, recognised from the bytes: no String is made for `cmd`.
    enum Name { case select, tap, state, ping, openDrawer, closeDrawer, pop, showColumn, hideColumn }

    /// The members only the node commands take, where they lie (no String made, nothing to
    /// release: a select pays for none of them); each command checks its own.
    struct NodeFields {
        var side: (start: Int, end: Int)?, gesture: (start: Int, end: Int)?, column: (start: Int, end: Int)?
        var animated: Bool?, user: Bool?
        var any = false

        /// Reads the value of `key`, a node command's member; false for a repeated one or a
        /// value of the wrong type (the general decoder explains).
        mutating func read(_ key: Key, _ p: inout FlatScanner) -> Bool {
            any = true
            switch key {
            case .side, .gesture, .column:
                guard p.i < p.count, p.base[p.i] == UInt8(ascii: "\""), let bounds = p.plainString() else { return false }
                switch key {
                case .side: guard side == nil else { return false }; side = bounds
                case .gesture: guard gesture == nil else { return false }; gesture = bounds
                default: guard column == nil else { return false }; column = bounds
                }
                return true
            default:
                guard case .bool(let b)? = p.scalar() else { return false }
                if key == .animated {
                    guard animated == nil else { return false }
                    animated = b
                } else {
                    guard user == nil else { return false }
                    user = b
                }
                return true
            }
        }
    }

    /// The request, or nil: let the general decoder handle the line.
    static func decode(_ line: UnsafeRawBufferPointer) -> Request? {
        var name = CommandName.ping
        return decode(line, name: &name)
    }

    /// The same, with `name` set to the request's command name when there is one (the
    /// server counts requests by it: known here from the bytes, where asking the request
    /// switches over every command; FastRequestTests checks it is the request's).
    static func decode(_ line: UnsafeRawBufferPointer, name: inout CommandName) -> Request? {
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var p = FlatScanner(base: base, count: line.count)
        var cmd: Name?, controller: String?, tab: String?, id: Range<Int>?, index: Int?
        var node = NodeFields()

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
            if key.isNodeMember {
                guard node.read(key, &p) else { return nil }
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
        if node.any || cmd.isNode {
            guard tab == nil, index == nil, let command = nodeCommand(cmd, node, p) else { return nil }
            name = command.commandName
            return Request(id: requestID, controller: controllerName, command: .node(command))
        }
        switch cmd {
        case .select:
            if let tab, index == nil {
                name = .select
                return Request(id: requestID, controller: controllerName, command: .core(.select(.tab(tab))))
            } else if let index, tab == nil {
                name = .select
                return Request(id: requestID, controller: controllerName, command: .core(.select(.index(index))))
            }
            return nil
        case .tap:
            guard let tab, index == nil else { return nil }
            name = .tap
            return Request(id: requestID, controller: controllerName, command: .core(.tap(.tab(tab))))
        case .state:
            guard tab == nil, index == nil else { return nil }
            name = .state
            return Request(id: requestID, controller: controllerName, command: .state)
        case .ping:
            guard tab == nil, index == nil else { return nil }
            name = .ping
            return Request(id: requestID, controller: controllerName, command: .ping)
        case .openDrawer, .closeDrawer, .pop, .showColumn, .hideColumn:
            return nil  // taken above
        }
    }

    /// A drawer's side from its bytes (no String made and compared: ~200 instructions an
    /// open_drawer); nil for another word.
    static func drawerSide(_ b: (start: Int, end: Int), _ p: FlatScanner) -> DrawerSide? {
        switch b.end &- b.start {
        case 4 where p.word(b.start, 4) == 0x7466656c /* "left" */: return .left
        case 5 where p.word(b.start, 5) == 0x7468676972 /* "right" */: return .right
        default: return nil
        }
    }

    /// A node command from its members, as `RequestDecoder.node` and `navigation` read them;
    /// nil for a member the command does not take, a missing one, or a value it does not
    /// know (the general decoder explains). Out of line: a select never comes here.
    @inline(never)
    static func nodeCommand(_ cmd: Name, _ f: NodeFields, _ p: FlatScanner) -> NodeCommand? {
        let animated = f.animated ?? false
        func gesture(_ bounds: (start: Int, end: Int)?) -> DrawerGesture?? {
            guard let bounds else { return .some(nil) }  // none
            return DrawerGesture(rawValue: p.string(bounds)).map { .some($0) }  // nil: one it does not know
        }
        switch cmd {
        case .openDrawer:
            guard f.column == nil, f.user == nil, let side = f.side.flatMap({ drawerSide($0, p) }),
                  let gesture = gesture(f.gesture) else { return nil }
            return .openDrawer(side, gesture: gesture, animated: animated)
        case .closeDrawer:
            guard f.side == nil, f.column == nil, f.user == nil, let gesture = gesture(f.gesture) else { return nil }
            return .closeDrawer(gesture: gesture, animated: animated)
        case .pop:
            guard f.side == nil, f.gesture == nil, f.column == nil else { return nil }
            return .pop(user: f.user ?? false, animated: animated)
        case .showColumn, .hideColumn:
            guard f.side == nil, f.gesture == nil, let column = f.column.flatMap({ SplitColumn(rawValue: p.string($0)) }) else { return nil }
            let user = f.user ?? false
            return cmd == .showColumn ? .showColumn(column, user: user, animated: animated) : .hideColumn(column, user: user, animated: animated)
        case .select, .tap, .state, .ping:
            return nil
        }
    }
}

extension FastRequest.Key {
    /// A member only the node commands take.
    var isNodeMember: Bool {
        switch self {
        case .side, .gesture, .animated, .user, .column: return true
        case .cmd, .controller, .tab, .id, .index: return false
        }
    }
}

extension FastRequest.Name {
    /// A command of R15's containers (the node commands this path takes).
    var isNode: Bool {
        switch self {
        case .openDrawer, .closeDrawer, .pop, .showColumn, .hideColumn: return true
        case .select, .tap, .state, .ping: return false
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
        default: return nodeKey(s, e &- s)
        }
    }

    /// A key only the node commands take. Out of line, as `nodeName`: in `key()` these cases
    /// made it too big to be inlined into the decoder, and a select and a state paid the calls.
    @inline(never)
    func nodeKey(_ s: Int, _ n: Int) -> FastRequest.Key? {
        switch n {
        case 4:
            let w = word(s, 4)
            if w == 0x65646973 /* "side" */ { return .side }
            if w == 0x72657375 /* "user" */ { return .user }
            return nil
        case 6 where word(s, 6) == 0x6e6d756c6f63 /* "column" */: return .column
        case 7 where word(s, 7) == 0x65727574736567 /* "gesture" */: return .gesture
        case 8 where word(s, 8) == 0x646574616d696e61 /* "animated" */: return .animated
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
        default: return nodeName(s, e &- s)
        }
    }

    /// R15's node commands this path takes (issue 42), out of line (see `nodeKey`).
    @inline(never)
    func nodeName(_ s: Int, _ n: Int) -> FastRequest.Name? {
        switch n {
        case 3 where word(s, 3) == 0x706f70 /* "pop" */: return .pop  // R15.13's, without "tab"
        case 11:
            let w = word(s, 8), rest = word(s &+ 8, 3)
            if w == 0x6172645f6e65706f /* "open_dra" */ && rest == 0x726577 /* "wer" */ { return .openDrawer }
            guard rest == 0x6e6d75 /* "umn" */ else { return nil }
            if w == 0x6c6f635f776f6873 /* "show_col" */ { return .showColumn }
            if w == 0x6c6f635f65646968 /* "hide_col" */ { return .hideColumn }
            return nil
        case 12 where word(s, 8) == 0x72645f65736f6c63 /* "close_dr" */ && word(s &+ 8, 4) == 0x72657761 /* "awer" */: return .closeDrawer
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
