// The journal's own record format: what a record says, written and read here only.
//
// A record is its sequence number (hex, without leading zeros: written from two 8-byte
// stores, no decimal formatting), a space, and one JSON object `{"op":"<operation>", …}` — the operation's fields
// are named as on the wire (`tab`, `tabs`, `screen`, …) so that an operator can read a
// journal, but this is not the socket's protocol and is never decoded by it. The journal
// holds operations clients cannot send (`set_orientation`: a rotation as the orientation it
// resolved to; `controller.create` and `controller.delete` as facts), and writes every
// field of a tab, its item and a controller, nulls included, so that replaying a record
// needs no default that could drift from the one the client's request was read with.
// Tabs, `update_tab`'s fields, screens and restoration archives are TabCore's forms
// (`Tab.fields`, the journal's `TabForm`), not the protocol's: a change of the wire changes
// no record. Screens and archives read as `state` and `preserve` show them (a screen
// without a title has none).
//
// Format 1 (tabd 0.1.0) wrote client requests (`{"cmd":…}`, no sequence number, the
// rotation as `_set_orientation`); it is read here too, and nowhere else.

import TabCore
import TabJSON
import TabStrings

/// One change, as the journal records it.
public enum JournalRecord: Equatable, Sendable {
    /// A command of a controller's state machine, in its deterministic form.
    case command(controller: String, Command)
    /// A container created: its name, kind and the kind's configuration, as asked.
    case createController(name: String, ContainerSpec)
    /// A command of an R15 container (format 5), as it succeeded, with what plugins answered to
    /// its proposals (R15.33): replayed without asking plugins.
    case node(controller: String, NodeCommand, answers: [ProposalAnswer] = [])
    case deleteController(name: String)
    /// Events that changed no state were numbered (a tap on the tab already shown, a plugin's
    /// event): the controller's `seq` is now `seq`, so that a restart never numbers an event
    /// again (R11.4).
    case eventSeq(controller: String, seq: UInt64)
    /// A plugin set `key` of its store to `value`, or removed it (nil): plugin ABI 1.6's
    /// store_put and store_delete. Changes no controller.
    case pluginData(plugin: String, key: String, value: String?)
    /// What plugins answered to proposals (R15.33) while the tab controller `controller`'s
    /// next command settled the splits of its tree (R15.10: a split attached in a tab, a tab
    /// root's environment): written just before that command's record, handed to its replay.
    case treeAnswers(controller: String, [ProposalAnswer])

    /// The controller the record changes ("" for a plugin's store, which belongs to none).
    public var controller: String {
        switch self {
        case .command(let c, _), .node(let c, _, _): return c
        case .createController(let c, _), .deleteController(let c), .eventSeq(let c, _), .treeAnswers(let c, _): return c
        case .pluginData: return ""
        }
    }

    /// The operation's name in the journal (`select`, `controller.create`, …).
    public var operation: String {
        switch self {
        case .command(_, let command): return command.name
        case .node(_, let command, _): return command.journalOp
        case .createController: return "controller.create"
        case .deleteController: return "controller.delete"
        case .eventSeq: return "seq"
        case .pluginData: return "plugin.store"
        case .treeAnswers: return "tree.answers"
        }
    }

    /// The record of a tab controller created with these options (`.tab(TabBarOptions(…))`).
    public static func createController(name: String, idiom: Idiom, maxVisible: Int?, tapPops: TapPops = .always,
                                        mode: Mode = .automatic, sizeClass: SizeClass? = nil,
                                        compactTabs: [String]? = nil) -> JournalRecord {
        .createController(name: name, .tab(TabBarOptions(idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode,
                                                          sizeClass: sizeClass, compactTabs: compactTabs)))
    }
}

/// Why a record cannot be read: one sentence about the record itself.
public struct JournalRecordError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public enum JournalCodec {
    /// The format this tabd writes (in each file's header). It reads this one and older ones.
    public static let version = 5

    /// The rules a journal's commands were accepted under: format 3 came with the amended
    /// rules (issue 17: identity across `set_tabs`, orientation checks, event numbering).
    public static func semantics(ofFormat version: Int) -> Semantics {
        version >= 4 ? .amended : version == 3 ? .amendedBeforeTree : .original
    }

    // MARK: Writing

    /// Writes a command's record: its sequence number, a space, its JSON (borrowing the
    /// command: the request path makes no copy).
    @inline(__always)
    public static func encode(_ command: Command, controller: String, seq: UInt64, into w: inout JSONWriter) {
        begin(seq: seq, into: &w)
        // The request path's records apart from `body`: grown past the inliner's limit, it
        // called `op` out of line (~50 instructions a select).
        switch command {
        case .select, .tap: selection(command, controller: controller, into: &w)
        default: body(command, controller: controller, into: &w)
        }
        w.endObject()
    }

    /// A `node.*` record: the command of the container `controller`, with what plugins
    /// answered while it ran.
    static func encode(node command: NodeCommand, controller: String, answers: [ProposalAnswer], seq: UInt64, into w: inout JSONWriter) {
        begin(seq: seq, into: &w)
        // `journalOp` without making it: "node." + the wire name (a name of 11 bytes or
        // more made a string on the heap, ~800 instructions a record). The names are
        // the protocol's, plain ASCII (no escapes).
        w.key(literal: "op"); w.literal("\"node.")
        var name = command.name
        name.withUTF8 { w.append(bytes: UnsafeRawBufferPointer($0)) }
        w.literal("\"")
        w.key(literal: "controller"); w.string(controller)
        command.writeMembers(to: &w)
        if !answers.isEmpty { w.key(literal: "answers"); ProposalAnswer.write(answers, to: &w) }
        w.endObject()
    }

    public static func encode(_ record: JournalRecord, seq: UInt64, into w: inout JSONWriter) {
        switch record {
        case .command(let controller, let command):
            encode(command, controller: controller, seq: seq, into: &w)
        case .createController(let name, let spec):
            begin(seq: seq, into: &w)
            w.key(literal: "op"); w.string(literal: "controller.create")
            w.key(literal: "controller"); w.string(name)
            switch spec {
            case .tab(let options): options.writeMembers(to: &w, .journal)
            case .composite(let spec): spec.writeMembers(to: &w)
            }
            w.endObject()
        case .node(let controller, let command, let answers):
            encode(node: command, controller: controller, answers: answers, seq: seq, into: &w)
        case .deleteController(let name):
            begin(seq: seq, into: &w)
            w.key(literal: "op"); w.string(literal: "controller.delete")
            w.key(literal: "controller"); w.string(name)
            w.endObject()
        case .treeAnswers(let name, let answers):
            begin(seq: seq, into: &w)
            w.key(literal: "op"); w.string(literal: "tree.answers")
            w.key(literal: "controller"); w.string(name)
            w.key(literal: "answers"); ProposalAnswer.write(answers, to: &w)
            w.endObject()
        case .eventSeq(let name, let eventSeq):
            begin(seq: seq, into: &w)
            w.key(literal: "op"); w.string(literal: "seq")
            w.key(literal: "controller"); w.string(name)
            w.key(literal: "seq"); w.int(Int(truncatingIfNeeded: eventSeq))
            w.endObject()
        case .pluginData(let plugin, let key, let value):
            begin(seq: seq, into: &w)
            w.key(literal: "op"); w.string(literal: "plugin.store")
            w.key(literal: "plugin"); w.string(plugin)
            w.key(literal: "key"); w.string(key)
            w.key(literal: "value"); value.write(to: &w, .journal)
            w.endObject()
        }
    }

    @inline(__always)
    private static func begin(seq: UInt64, into w: inout JSONWriter) {
        // The digits that count, the space and the object's "{" in one piece (the writer then
        // knows the first member needs no comma).
        let high = seq >> 32
        var digits = (high == 0 ? 0 : CRC32.hexDigits(UInt32(truncatingIfNeeded: high)), CRC32.hexDigits(UInt32(truncatingIfNeeded: seq)),
                      UInt8(ascii: " "), UInt8(ascii: "{"))
        let skip = min(15, seq.leadingZeroBitCount / 4)
        withUnsafeBytes(of: &digits) { w.append(bytes: UnsafeRawBufferPointer(rebasing: $0[skip..<18])) }
    }

    /// The sequence number at the start of a format 2 record (1 to 16 lowercase hex digits,
    /// no leading zero), and the JSON after it.
    static func splitSeq(_ record: UnsafeRawBufferPointer) -> (UInt64, UnsafeRawBufferPointer)? {
        var seq: UInt64 = 0
        var i = 0
        while i < record.count, i <= 16 {
            let b = record[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: " "):
                guard i > 0, seq > 0, record[0] != UInt8(ascii: "0") else { return nil }
                return (seq, UnsafeRawBufferPointer(rebasing: record[(i + 1)...]))
            default: return nil
            }
            guard i < 16 else { return nil }
            seq = seq << 4 | UInt64(d)
            i += 1
        }
        return nil
    }

    /// `"op":<name>` and, for another controller than the default, `"controller"`. A function
    /// of its own, not a closure in `body`: the closure was outlined once `body` grew (~50
    /// instructions a select).
    @inline(__always)
    private static func op(_ name: StaticString, _ controller: String, _ w: inout JSONWriter) {
        w.key(literal: "op"); w.string(literal: name)
        // The default controller goes without saying: a shorter record for the common case.
        if controller != TabContainers.defaultName { w.key(literal: "controller"); w.string(controller) }
    }

    /// The members of a `select` or `tap` record.
    @inline(__always)
    private static func selection(_ command: Command, controller: String, into w: inout JSONWriter) {
        switch command {
        case .select(let target):
            op("select", controller, &w)
            switch target {
            case .tab(let id): w.key(literal: "tab"); w.string(id)
            case .index(let i): w.key(literal: "index"); w.int(i)
            case .more: w.key(literal: "more"); w.bool(true)
            }
        case .tap(let target):
            op("tap", controller, &w)
            switch target {
            case .tab(let id): w.key(literal: "tab"); w.string(id)
            case .more: w.key(literal: "more"); w.bool(true)
            }
        default:
            break
        }
    }

    private static func body(_ command: Command, controller: String, into w: inout JSONWriter) {
        switch command {
        case .select, .tap:
            selection(command, controller: controller, into: &w)
        case .setTabs(let tabs, let animated, let selected):
            op("set_tabs", controller, &w)
            w.key(literal: "tabs"); tabs.write(to: &w, .journal)
            w.key(literal: "animated"); w.bool(animated)
            // R2.6, only when named (records before issue 17 never name one).
            switch selected {
            case nil: break
            case .tab(let id)?: w.key(literal: "selected"); w.string(id)
            case .index(let i)?: w.key(literal: "selected"); w.int(i)
            case .more?: w.key(literal: "selected_more"); w.bool(true)  // refused by the controller; never journalled
            }
        case .addTab(let t, let index, let group):
            op("add_tab", controller, &w)
            w.key(literal: "tab"); t.write(to: &w, .journal)
            w.key(literal: "index"); index.write(to: &w, .journal)
            if let group { w.key(literal: "group"); w.string(group) }
        case .removeTab(let id):
            op("remove_tab", controller, &w); w.key(literal: "tab"); w.string(id)
        case .updateTab(let id, let u):
            op("update_tab", controller, &w); w.key(literal: "tab"); w.string(id)
            // A field present is a change (null included); a field absent is left as it is.
            u.write(to: &w, .journal)
        case .badge(let tab, let value):
            op("badge", controller, &w); w.key(literal: "tab"); w.string(tab); w.key(literal: "value"); value.write(to: &w, .journal)
        case .push(let tab, let s):
            op("push", controller, &w); w.key(literal: "tab"); w.string(tab); w.key(literal: "screen"); s.write(to: &w, .journal)
        case .pop(let tab):
            op("pop", controller, &w); w.key(literal: "tab"); w.string(tab)
        case .popToRoot(let tab):
            op("pop_to_root", controller, &w); w.key(literal: "tab"); w.string(tab)
        case .setCustomizable(let ids):
            op("customizable", controller, &w); w.key(literal: "tabs"); ids.write(to: &w, .journal)
        case .customizeBegin: op("customize.begin", controller, &w)
        case .customizeMove(let tab, let to):
            op("customize.move", controller, &w); w.key(literal: "tab"); w.string(tab); w.key(literal: "to"); w.int(to)
        case .customizeEnd: op("customize.end", controller, &w)
        case .rotate(let o):
            op("rotate", controller, &w); w.key(literal: "orientation"); w.string(o.rawValue)
        case .setOrientation(let o):
            op("set_orientation", controller, &w); w.key(literal: "orientation"); w.string(o.rawValue)
        case .restore(let a):
            op("restore", controller, &w); w.key(literal: "archive"); a.write(to: &w, .journal)
            if a.legacyPaths { w.key(literal: "legacy_paths"); w.bool(true) }
        case .setHidden(let tab, let hidden):
            op("set_hidden", controller, &w); w.key(literal: "tab"); w.string(tab); w.key(literal: "hidden"); w.bool(hidden)
        case .reorder(let group, let order):
            op("reorder", controller, &w); w.key(literal: "group"); group.write(to: &w, .journal)
            w.key(literal: "order"); order.write(to: &w, .journal)
        case .sidebar(let visible):
            op("sidebar", controller, &w); w.key(literal: "visible"); w.bool(visible)
        case .setExpanded, .search, .setEnabled, .setBarHidden, .setSizeClass, .setCompactTabs, .setMode, .editBegin, .editEnd,
             .selectChild:
            // R13.12 and R14, written apart: `body` stays as small as select's path needs.
            modernBody(command, controller: controller, into: &w)
        }
    }

    @inline(never)
    private static func modernBody(_ command: Command, controller: String, into w: inout JSONWriter) {
        switch command {
        case .setExpanded(let group, let expanded):
            op("set_expanded", controller, &w); w.key(literal: "group"); w.string(group); w.key(literal: "expanded"); w.bool(expanded)
        case .search(let active):
            op("search", controller, &w); w.key(literal: "active"); w.bool(active)
        case .setEnabled(let tab, let enabled):
            op("set_enabled", controller, &w); w.key(literal: "tab"); w.string(tab); w.key(literal: "enabled"); w.bool(enabled)
        case .setBarHidden(let hidden, let animated):
            op("set_bar_hidden", controller, &w); w.key(literal: "hidden"); w.bool(hidden); w.key(literal: "animated"); w.bool(animated)
        case .setSizeClass(let size):
            op("set_size_class", controller, &w); w.key(literal: "size_class"); w.string(size.rawValue)
        case .setCompactTabs(let ids):
            op("set_compact_tabs", controller, &w); w.key(literal: "tabs"); ids.write(to: &w, .journal)
        case .setMode(let mode):
            op("set_mode", controller, &w); w.key(literal: "mode"); w.string(mode.rawValue)
        case .editBegin: op("edit.begin", controller, &w)
        case .editEnd: op("edit.end", controller, &w)
        case .selectChild(let group, let child):
            op("select_child", controller, &w); w.key(literal: "group"); w.string(group); w.key(literal: "child"); w.string(child)
        default: assertionFailure("modernBody(\(command.name))")
        }
    }

    // MARK: Reading

    /// Reads one record. `version` is the file's format: 2 has a sequence number before
    /// every record's JSON; 1 (tabd 0.1.0) wrote client requests and has none (nil).
    public static func decode(_ record: UnsafeRawBufferPointer, version: Int) throws(JournalRecordError) -> (seq: UInt64?, record: JournalRecord) {
        try decode(record, version: version, flat: true)
    }

    /// `flat`: whether a flat record may be read from its bytes (the tests read every record
    /// both ways and compare).
    static func decode(_ record: UnsafeRawBufferPointer, version: Int, flat: Bool) throws(JournalRecordError) -> (seq: UInt64?, record: JournalRecord) {
        var json = record
        var seq: UInt64?
        if version >= 2 {
            guard let (n, rest) = splitSeq(record) else { throw JournalRecordError("it has no valid sequence number") }
            seq = n
            json = rest
        }
        // Most records (a select, a tap, a seq, a badge …) are flat objects of plain strings,
        // small integers, booleans and nulls: their members are read from the bytes, with no
        // JSON tree, and the record from them as from a tree's. Any other (a tab, an escape,
        // a repeated key, anything FlatScanner leaves alone) is parsed, with the parser's errors.
        if flat, let base = json.baseAddress {
            var members = FlatMembers(base: base.assumingMemoryBound(to: UInt8.self), count: json.count)
            if members.read() { return (seq, try read(&members, version: version)) }
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(json, maxDepth: 32)  // R13 groups nest 4 deep
        } catch {
            throw JournalRecordError("it is not valid JSON (\(error.description))")
        }
        guard case .object(let object) = value else { throw JournalRecordError("it is not a JSON object") }
        var f = RecordFields(object, path: "")
        return (seq, try read(&f, version: version))
    }

    /// Whether `json` (a record after its sequence number) is read without a JSON tree.
    static func readsFlat(_ json: UnsafeRawBufferPointer) -> Bool {
        guard let base = json.baseAddress else { return false }
        var members = FlatMembers(base: base.assumingMemoryBound(to: UInt8.self), count: json.count)
        return members.read()
    }

    /// The record an object's members make: one description for both readers of members.
    private static func read(_ f: inout some RecordMembers, version: Int) throws(JournalRecordError) -> JournalRecord {
        let name: String
        if version >= 2 {
            name = try f.requiredString("op")
        } else {
            let cmd = try f.requiredString("cmd")
            f.ignore("id")
            name = cmd == "_set_orientation" ? "set_orientation" : cmd
        }
        let controller = try f.string("controller") ?? TabContainers.defaultName
        let record: JournalRecord
        switch name {
        case let op where version >= 5 && op.hasPrefix("node."):
            do {
                record = .node(controller: controller, try NodeCommand(journal: String(op.dropFirst(5))) { f.take($0) },
                               answers: try ProposalAnswer.read(f.take("answers"), "answers"))
            } catch {
                throw JournalRecordError(error.journalMessage)
            }
        case "controller.create":
            if version >= 5, let kindName = try f.string("kind"), kindName != ContainerKind.tab.rawValue {
                guard let kind = ContainerKind(rawValue: kindName) else { throw JournalRecordError("unknown kind '\(kindName)'") }
                do { record = .createController(name: controller, .composite(try CompositeSpec(kind: kind) { f.take($0) })) } catch {
                    throw JournalRecordError(error.journalMessage)
                }
                break
            }
            let idiomName = try f.string("idiom") ?? "phone"
            guard let idiom = Idiom(rawValue: idiomName) else { throw JournalRecordError("unknown idiom '\(idiomName)'") }
            let maxVisible = try f.int("max_visible")
            var tapPops = TapPops.always  // absent in records before issue 17
            if let name = try f.string("tap_pops") {
                guard let t = TapPops(rawValue: name) else { throw JournalRecordError("unknown tap_pops '\(name)'") }
                tapPops = t
            }
            var mode = Mode.automatic  // absent in records before issue 18
            if let name = try f.string("mode") {
                guard let m = Mode(rawValue: name) else { throw JournalRecordError("unknown mode '\(name)'") }
                mode = m
            }
            var sizeClass: SizeClass?  // R14.4: absent before issue 30
            if let name = try f.string("size_class") { sizeClass = try self.sizeClass(name) }
            let compactTabs = try f.take("compact_tabs").map { v throws(JournalRecordError) in try strings(v, path: "compact_tabs") }
            var options = TabBarOptions(idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode, sizeClass: sizeClass, compactTabs: compactTabs)
            if case .bool(false)? = f.take("window") { options.window = false }  // R15.4, format 5
            record = .createController(name: controller, .tab(options))
        case "controller.delete":
            record = .deleteController(name: controller)
        case "plugin.store" where version >= 3:
            guard let plugin = try f.string("plugin"), let key = try f.string("key") else {
                throw JournalRecordError("'plugin.store' needs \"plugin\" and \"key\"")
            }
            record = .pluginData(plugin: plugin, key: key, value: try f.string("value"))
        case "tree.answers" where version >= 5:
            do { record = .treeAnswers(controller: controller, try ProposalAnswer.read(f.take("answers"), "answers")) } catch {
                throw JournalRecordError(error.journalMessage)
            }
        case "seq" where version >= 2:
            guard let n = try f.int("seq"), n >= 0 else { throw JournalRecordError("'seq' has no \"seq\" count") }
            record = .eventSeq(controller: controller, seq: UInt64(n))
        default:
            record = .command(controller: controller, try command(name, &f, version: version))
        }
        try f.finish(name)
        return record
    }

    private static func command(_ name: String, _ f: inout some RecordMembers, version: Int) throws(JournalRecordError) -> Command {
        switch name {
        case "select":
            if let tab = try f.string("tab") { return .select(.tab(tab)) }
            if let index = try f.int("index") { return .select(.index(index)) }
            if try f.bool("more") == true { return .select(.more) }
            throw JournalRecordError("'select' names no tab, index or more")
        case "tap":
            if let tab = try f.string("tab") { return .tap(.tab(tab)) }
            if try f.bool("more") == true { return .tap(.more) }
            throw JournalRecordError("'tap' names no tab or more")
        case "set_tabs":
            guard case .array(let values)? = f.take("tabs") else { throw JournalRecordError("'set_tabs' has no \"tabs\" array") }
            var tabs: [Tab] = []
            tabs.reserveCapacity(values.count)
            for (i, v) in values.enumerated() { tabs.append(try read { () throws(TabFieldError) in try Tab(json: v, at: "tabs[\(i)]", .journal) }) }
            let animated = try f.bool("animated") ?? false
            var selected: SelectTarget?
            switch f.take("selected") {
            case nil, .null?: break
            case .string(let id)?: selected = .tab(id)
            case .int(let i)?:
                guard let i = Int(exactly: i) else { throw JournalRecordError("'selected' is out of range") }
                selected = .index(i)
            default: throw JournalRecordError("'selected' is not a tab id or an index")
            }
            if try f.bool("selected_more") == true { selected = .more }
            return .setTabs(tabs, animated: animated, selected: selected)
        case "add_tab":
            guard let v = f.take("tab") else { throw JournalRecordError("'add_tab' has no \"tab\"") }
            return .addTab(try read { () throws(TabFieldError) in try Tab(json: v, at: "tab", .journal) }, index: try f.int("index"), group: try f.string("group"))
        case "remove_tab": return .removeTab(try f.requiredString("tab"))
        case "update_tab":
            let id = try f.requiredString("tab")
            let u = try read { () throws(TabFieldError) in try TabUpdate(.journal) { f.take($0) } }
            return .updateTab(id, u)
        case "badge":
            let tab = try f.requiredString("tab")
            guard let v = f.take("value") else { throw JournalRecordError("'badge' has no \"value\"") }
            return .badge(tab: tab, value: try read { () throws(TabFieldError) in try String?(json: v, at: "value", .journal, orNull: false) })
        case "push":
            let tab = try f.requiredString("tab")
            guard let v = f.take("screen") else { throw JournalRecordError("'push' has no \"screen\"") }
            return .push(tab: tab, screen: try read { () throws(TabFieldError) in try Screen(json: v, at: "screen", .journal, orNull: false) })
        case "pop": return .pop(tab: try f.requiredString("tab"))
        case "pop_to_root": return .popToRoot(tab: try f.requiredString("tab"))
        case "customizable":
            guard let v = f.take("tabs") else { throw JournalRecordError("'customizable' has no \"tabs\"") }
            if v == .null { return .setCustomizable(nil) }
            return .setCustomizable(try strings(v, path: "tabs"))
        case "customize.begin": return .customizeBegin
        case "customize.move":
            let tab = try f.requiredString("tab")
            guard let to = try f.int("to") else { throw JournalRecordError("'customize.move' has no \"to\"") }
            return .customizeMove(tab: tab, to: to)
        case "customize.end": return .customizeEnd
        case "rotate": return .rotate(try orientation(try f.requiredString("orientation")))
        case "set_orientation": return .setOrientation(try orientation(try f.requiredString("orientation")))
        case "restore":
            guard let v = f.take("archive") else { throw JournalRecordError("'restore' has no \"archive\"") }
            var a = try read { () throws(TabFieldError) in try RestorationArchive(json: v, at: "archive", .journal, orNull: false) }
            // Formats 1 and 2 (before issue 17) matched paths "<restoration id>#<tab id>" (R11.1 then).
            a.legacyPaths = try f.bool("legacy_paths") ?? false || version < 3
            return .restore(a)
        case "set_hidden":
            let tab = try f.requiredString("tab")
            guard let hidden = try f.bool("hidden") else { throw JournalRecordError("'set_hidden' has no \"hidden\"") }
            return .setHidden(tab: tab, hidden: hidden)
        case "reorder":
            let group = try f.string("group")
            guard let v = f.take("order") else { throw JournalRecordError("'reorder' has no \"order\"") }
            return .reorder(group: group, order: try strings(v, path: "order"))
        case "sidebar":
            guard let visible = try f.bool("visible") else { throw JournalRecordError("'sidebar' has no \"visible\"") }
            return .sidebar(visible: visible)
        case "set_expanded":
            guard let e = try f.bool("expanded") else { throw JournalRecordError("'set_expanded' has no \"expanded\"") }
            return .setExpanded(group: try f.requiredString("group"), expanded: e)
        case "search":
            guard let a = try f.bool("active") else { throw JournalRecordError("'search' has no \"active\"") }
            return .search(active: a)
        case "set_enabled":
            guard let e = try f.bool("enabled") else { throw JournalRecordError("'set_enabled' has no \"enabled\"") }
            return .setEnabled(tab: try f.requiredString("tab"), enabled: e)
        case "set_bar_hidden":
            guard let h = try f.bool("hidden") else { throw JournalRecordError("'set_bar_hidden' has no \"hidden\"") }
            return .setBarHidden(hidden: h, animated: try f.bool("animated") ?? false)
        case "set_size_class":
            return .setSizeClass(try sizeClass(try f.requiredString("size_class")))
        case "set_compact_tabs":
            guard let v = f.take("tabs") else { throw JournalRecordError("'set_compact_tabs' has no \"tabs\"") }
            return .setCompactTabs(v == .null ? nil : try strings(v, path: "tabs"))
        case "set_mode":
            let name = try f.requiredString("mode")
            guard let m = Mode(rawValue: name) else { throw JournalRecordError("unknown mode '\(name)'") }
            return .setMode(m)
        case "edit.begin": return .editBegin
        case "edit.end": return .editEnd
        case "select_child":
            return .selectChild(group: try f.requiredString("group"), child: try f.requiredString("child"))
        default:
            throw JournalRecordError("unknown operation '\(name)'")
        }
    }

    /// A value of a tab (`Tab.fields`) read, its error said as the journal says it.
    private static func read<V>(_ body: () throws(TabFieldError) -> V) throws(JournalRecordError) -> V {
        do { return try body() } catch { throw JournalRecordError(error.journalMessage) }
    }

    private static func sizeClass(_ name: String) throws(JournalRecordError) -> SizeClass {
        guard let s = SizeClass(rawValue: name) else { throw JournalRecordError("unknown size_class '\(name)'") }
        return s
    }

    private static func orientation(_ name: String) throws(JournalRecordError) -> Orientation {
        guard let o = Orientation(rawValue: name) else { throw JournalRecordError("unknown orientation '\(name)'") }
        return o
    }

    private static func strings(_ value: JSONValue, path: String) throws(JournalRecordError) -> [String] {
        guard case .array(let values) = value else { throw JournalRecordError("'\(path)' is not an array of strings") }
        var out: [String] = []
        for v in values {
            guard case .string(let s) = v else { throw JournalRecordError("'\(path)' is not an array of strings") }
            out.append(s)
        }
        return out
    }
}

/// The members of one record object, each taken at most once; `finish` refuses the rest
/// (a field this tabd does not know means the record is not what it seems). Read from a
/// parsed object (`RecordFields`) or from a flat record's bytes (`FlatMembers`).
private protocol RecordMembers {
    /// The object's place in the record ("" for the record, "tabs[0]." for its first tab).
    var path: String { get }
    mutating func take(_ key: String) -> JSONValue?
    func finish(_ what: String) throws(JournalRecordError)
}

extension RecordMembers {
    mutating func ignore(_ key: String) { _ = take(key) }

    mutating func string(_ key: String) throws(JournalRecordError) -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw JournalRecordError("'\(path)\(key)' is not a string")
        }
    }

    mutating func requiredString(_ key: String) throws(JournalRecordError) -> String {
        guard let s = try string(key) else { throw JournalRecordError("it has no \"\(path)\(key)\"") }
        return s
    }

    mutating func int(_ key: String) throws(JournalRecordError) -> Int? {
        switch take(key) {
        case nil, .null?: return nil
        case .int(let i)?:
            guard let v = Int(exactly: i) else { throw JournalRecordError("'\(path)\(key)' is out of range") }
            return v
        default: throw JournalRecordError("'\(path)\(key)' is not an integer")
        }
    }

    mutating func bool(_ key: String) throws(JournalRecordError) -> Bool? {
        switch take(key) {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw JournalRecordError("'\(path)\(key)' is not true or false")
        }
    }
}

/// Which members were taken: the first 64 as bits (no allocation for any record tabd
/// writes), the rest in a set.
private struct Taken {
    private var low: UInt64 = 0
    private var rest: Set<Int> = []

    mutating func insert(_ i: Int) {
        if i < 64 { low |= 1 &<< UInt64(i) } else { rest.insert(i) }
    }

    func contains(_ i: Int) -> Bool {
        i < 64 ? low & (1 &<< UInt64(i)) != 0 : rest.contains(i)
    }
}

/// The members of a parsed object.
private struct RecordFields: RecordMembers {
    private var object: JSONObject
    let path: String
    private var taken = Taken()

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    mutating func take(_ key: String) -> JSONValue? {
        guard let i = object.position(of: key) else { return nil }
        taken.insert(i)
        return object.value(at: i)
    }

    func finish(_ what: String) throws(JournalRecordError) {
        for i in 0..<object.count where !taken.contains(i) {
            throw JournalRecordError("'\(what)' has a field this tabd does not know: '\(path)\(object.key(at: i))'")
        }
    }
}

/// The members of a flat record, read from its bytes: an object of at most 8 members, each
/// key a plain string (FlatScanner's) named once, each value a scalar FlatScanner reads.
/// Anything else is not one (`read` is false): JSONParser reads it. A member is taken as the
/// parser would make it from the same bytes, so a record reads the same either way
/// (JournalFlatTests). Only offsets are kept (nothing to retain or release, little to
/// copy): a value is read when it is taken, a key compared as bytes.
private struct FlatMembers: RecordMembers {
    private struct Member {
        var keyStart: Int32 = 0, keyEnd: Int32 = 0
        var valueStart: Int32 = 0
    }

    private var p: FlatScanner
    private var members = InlineArray<8, Member>(repeating: Member())
    private var count = 0
    private var taken: UInt8 = 0
    var path: String { "" }

    init(base: UnsafePointer<UInt8>, count: Int) {
        p = FlatScanner(base: base, count: count)
    }

    /// Whether the bytes are a flat record's object: then its members are known.
    mutating func read() -> Bool {
        guard p.count < Int32.max else { return false }
        p.skipWhitespace()
        guard p.take(UInt8(ascii: "{")) else { return false }
        p.skipWhitespace()
        if !p.take(UInt8(ascii: "}")) {
            repeat {
                p.skipWhitespace()
                guard count < 8, let bounds = p.plainString() else { return false }
                let m = Member(keyStart: Int32(bounds.start), keyEnd: Int32(bounds.end))
                for k in 0..<count where sameKey(members[k], m) { return false }  // a repeated key: the parser explains
                p.skipWhitespace()
                guard p.take(UInt8(ascii: ":")) else { return false }
                p.skipWhitespace()
                members[count] = m
                members[count].valueStart = Int32(p.i)
                guard p.scalar() != nil else { return false }
                count += 1
                p.skipWhitespace()
            } while p.take(UInt8(ascii: ","))
            guard p.take(UInt8(ascii: "}")) else { return false }
        }
        p.skipWhitespace()
        return p.atEnd
    }

    private func sameKey(_ a: Member, _ b: Member) -> Bool {
        let n = Int(a.keyEnd - a.keyStart)
        guard Int(b.keyEnd - b.keyStart) == n else { return false }
        for k in 0..<n where p.base[Int(a.keyStart) + k] != p.base[Int(b.keyStart) + k] { return false }
        return true
    }

    /// Whether `m`'s key is `key`: compared as the words of a small string when `key` is one.
    private static func named(_ m: Member, _ key: String, in p: FlatScanner) -> Bool {
        let start = Int(m.keyStart), n = Int(m.keyEnd) - start
        guard let (low, high) = SmallASCII.words(key) else { return Self.key(m, in: p) == key }
        guard n == SmallASCII.count(high) else { return false }
        if n <= 8 { return p.word(start, n) == low }
        return p.word(start, 8) == low && p.word(start + 8, n - 8) == high & ((1 &<< UInt64((n - 8) * 8)) &- 1)
    }

    private static func key(_ m: Member, in p: FlatScanner) -> String {
        p.string((Int(m.keyStart), Int(m.keyEnd)))
    }

    mutating func take(_ key: String) -> JSONValue? {
        var k = 0
        while k < count {
            let m = members[k]
            if Self.named(m, key, in: p) {
                taken |= 1 &<< UInt8(k)
                var value = p
                value.i = Int(m.valueStart)
                return value.scalar()
            }
            k += 1
        }
        return nil
    }

    func finish(_ what: String) throws(JournalRecordError) {
        for k in 0..<count where taken & (1 &<< UInt8(k)) == 0 {
            throw JournalRecordError("'\(what)' has a field this tabd does not know: '\(Self.key(members[k], in: p))'")
        }
    }
}
