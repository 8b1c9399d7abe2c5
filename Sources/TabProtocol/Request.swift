// Decoding one request line into a typed request (PROTOCOL.md "Envelopes" and "Commands").
// Input is strict: an unknown field or a wrong type is an `invalid_request` that names the
// field, and nothing is changed.

import TabCore
import TabJSON

/// An error reply before or instead of running a command.
/// The text formats `metrics` writes.
public enum MetricsFormat: String, Sendable, CaseIterable {
    /// OpenMetrics 1.0.0 (`application/openmetrics-text; version=1.0.0`).
    case openmetrics
    /// The Prometheus text format 0.0.4 (`text/plain; version=0.0.4`): what node_exporter's
    /// textfile collector reads.
    case prometheus
}

public struct ProtocolError: Error, Equatable, Sendable {
    public enum Code: String, Sendable, CaseIterable {
        case parseError = "parse_error"
        case invalidRequest = "invalid_request"
        case unknownCommand = "unknown_command"
        case notFound = "not_found"
        case outOfRange = "out_of_range"
        case conflict
        case notAvailable = "not_available"
        case denied
        case forbidden
        case tooLarge = "too_large"
        case overloaded
        /// The change could not be made durable (disk full, I/O error); nothing changed.
        case unavailable
        /// A `reload` whose configuration file tabd refuses; the running configuration stays.
        case configInvalid = "config_invalid"
        case `internal`
    }

    public var code: Code
    public var message: String
    /// Extra fields of the error object (`field`, `plugin`, `reason` …), in order.
    public var details: [(String, String)]
    /// Extra fields that are lists of strings (a refused reload's `problems`), after `details`.
    public var lists: [(String, [String])] = []

    public init(_ code: Code, _ message: String, details: [(String, String)] = [], lists: [(String, [String])] = []) {
        // One line (String.oneLine): a message quotes what the client sent (a command or
        // field name, an id), which may hold any character. Found by fuzz/request.
        self.code = code; self.message = message.oneLine; self.details = details; self.lists = lists
    }

    /// A member of a tab object (or of a value in one) that is not what it must be.
    public init(_ error: TabFieldError) {
        self.init(.invalidRequest, error.wireMessage, details: [("field", error.path)])
    }

    public static func invalid(_ field: String, _ message: String) -> ProtocolError {
        ProtocolError(.invalidRequest, message, details: [("field", field)])
    }

    public init(_ error: TabError) {
        let code: Code
        switch error.code {
        case .notFound: code = .notFound
        case .outOfRange: code = .outOfRange
        case .conflict: code = .conflict
        case .notAvailable: code = .notAvailable
        case .denied: code = .denied
        case .invalid: code = .invalidRequest
        case .internal: code = .internal
        }
        var details: [(String, String)] = []
        if let plugin = error.plugin { details.append(("plugin", plugin)) }
        if let method = error.method { details.append(("method", method)) }
        if let reason = error.reason { details.append(("reason", reason)) }
        if let field = error.field { details.append(("field", field)) }
        self.init(code, error.message, details: details)
    }

    public static func == (a: ProtocolError, b: ProtocolError) -> Bool {
        a.code == b.code && a.message == b.message && a.details.elementsEqual(b.details, by: { $0 == $1 })
            && a.lists.elementsEqual(b.lists, by: { $0 == $1 })
    }
}

/// Everything a client may ask, once decoded: the one form of a request, whichever decoder
/// read it (the fast path's `select`, `tap`, `state`, `ping` and flat node commands too).
///
/// A case whose payload is bigger than a `Command`'s (`plugin.call`'s) is `indirect`, so that
/// the enum is no bigger than the state machine's command it wraps (FastRequestTests checks):
/// a `select` is copied and destroyed on every request, and a small value does that with
/// less work.
public enum RequestCommand: Equatable, Sendable {
    /// `hello` and `plugin.call`: rare commands with payloads, boxed together in one case.
    /// One more payload case (hello's `via`) needed one more tag bit than the payloads' spare
    /// bits hold, and made every request a byte bigger than the command it carries
    /// (FastRequestTests); `.hello(via:)` and `.pluginCall(…)` make them.
    indirect case boxed(Boxed)
    case ping
    case state
    case controllers
    /// A new container: its kind and the kind's configuration.
    case controllerCreate(ContainerSpec)
    case controllerDelete
    /// A command of the controller's state machine (the mutating ones).
    case core(Command)
    /// `open_drawer` and `close_drawer` (R15.25): not boxed like the other node commands (a
    /// box is an allocation and a release per request; issue 42 holds a drawer's move to a
    /// select's cost). `node(_:)` makes them, so both decoders give this case.
    case drawer(DrawerRequest)
    case layout(width: Double, height: Double, statusBar: Double?)
    case preserve
    /// `grouped`: each command's events to this client as one line (`{"events":[…]}`);
    /// nil: as the connection's subscription had it.
    case subscribe(events: [String], controllers: [String]?, grouped: Bool?)
    case unsubscribe(events: [String])
    case plugins
    case reload
    case stats
    /// The counters and latency histograms in the OpenMetrics text format.
    case metrics
    /// `metrics` with `"format":"prometheus"`: a case of its own, not a payload, so that a
    /// request command stays the size of a state-machine command.
    case metricsPrometheus
    /// The configuration in use, as YAML keys, secrets masked (admin only).
    case config

    /// The rare commands with payloads (`boxed`).
    public enum Boxed: Equatable, Sendable {
        /// `via`: the connection relays for others (e.g. "tabd-web") and is no administrator.
        case hello(via: String?)
        case pluginCall(plugin: String, method: String, args: JSONValue?)
        case explain(ExplainQuery)
        /// A state-machine command sent with `"brief": true`: its reply leaves out the lists
        /// as long as the controller (`Command.repliesWithList`). Boxed: rare, and a case of
        /// its own keeps `core`, which every select goes through, as it is.
        case brief(Command)
        /// A command of R15's containers (navigation, drawer, custom; `set_window`, `configure`).
        case node(NodeCommand)
    }

    public static func node(_ command: NodeCommand) -> RequestCommand {
        switch command {
        case .openDrawer(let side, let gesture, let animated): .drawer(DrawerRequest(side: side, gesture: gesture, animated: animated))
        case .closeDrawer(let gesture, let animated): .drawer(DrawerRequest(side: nil, gesture: gesture, animated: animated))
        default: .boxed(.node(command))
        }
    }

    public static func hello(via: String?) -> RequestCommand { .boxed(.hello(via: via)) }
    public static func explain(_ query: ExplainQuery) -> RequestCommand { .boxed(.explain(query)) }
    public static func brief(_ command: Command) -> RequestCommand { .boxed(.brief(command)) }
    public static func pluginCall(plugin: String, method: String, args: JSONValue?) -> RequestCommand {
        .boxed(.pluginCall(plugin: plugin, method: method, args: args))
    }
}

/// An `open_drawer` (`side`) or a `close_drawer` (`side` nil), as `RequestCommand.drawer` holds it.
public struct DrawerRequest: Equatable, Sendable {
    public let side: DrawerSide?
    public let gesture: DrawerGesture?
    public let animated: Bool

    /// The node command it is.
    public var command: NodeCommand {
        if let side { return .openDrawer(side, gesture: gesture, animated: animated) }
        return .closeDrawer(gesture: gesture, animated: animated)
    }
}

/// A request's `id` as the client wrote it: the bytes of its JSON token (a string with its
/// quotes and escapes as sent, a number as written, `true`, `false` or `null`), which replies
/// repeat byte for byte. `123456789012345678901234567890`, `-0`, `1.0`, `1E+2` and
/// `"\u0041"` come back as they were sent, not as a value decoded and encoded again.
public struct RequestID: Equatable, Sendable, CustomStringConvertible {
    /// The token's text: one JSON scalar, checked by the decoder that read it. A token of up
    /// to 15 bytes is held in the String itself, so making one allocates nothing.
    public let json: String

    /// The token `bytes`, which the caller has checked is one JSON scalar.
    init(token bytes: UnsafeRawBufferPointer) {
        json = String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { json }

    /// Byte for byte: `"é"` and `"e\u0301"` are different ids.
    public static func == (a: RequestID, b: RequestID) -> Bool {
        a.json.utf8.elementsEqual(b.json.utf8)
    }

    /// Appends the token as it is.
    func write(into w: inout JSONWriter) {
        // In place (a small string's from a stack copy), like JSONWriter's strings.
        if let done: Void = json.utf8.withContiguousStorageIfAvailable({ w.append(bytes: UnsafeRawBufferPointer($0)) }) { return done }
        var copy = json
        copy.withUTF8 { w.append(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A decoded request: what `RequestDecoder` gives, from the fast path or the general one.
///
/// Made with the memberwise initialiser, which the decoders alone use: an initialiser written
/// out (`self.id = id; …`) built the request in a variable of its own and copied it out,
/// which cost a select ~350 instructions (a copy and a destroy of the whole request).
public struct Request: Equatable, Sendable {
    /// The client's `id`, echoed in the reply.
    public var id: RequestID?
    /// The controller the request addresses (default `main`).
    public var controller: String
    public var command: RequestCommand

    /// The wire name of the command, for logs and errors. Computed, not kept: a string
    /// in every request was retained and released on every select.
    public var name: String { command.name }

    /// A `ping` of the default controller without an id: what `decodeCommon(_:into:)`
    /// overwrites (nothing in it to release).
    public static var placeholder: Request { Request(id: nil, controller: TabContainers.defaultName, command: .ping) }
}

/// The wire names of every command, in the order `hello` lists them (TabCore's `CommandName`).
public let commandNames = CommandName.allCases.map(\.rawValue)

extension RequestCommand {
    /// The command's wire name (as `commandNames` lists it).
    public var name: String { commandName.rawValue }

    /// The command's place in `commandNames`: what statistics count by (an integer, where the
    /// name was a string made, compared and released on every request).
    @inline(__always)
    public var nameIndex: Int { commandName.index }

    /// The command's name. `set_orientation`, the journal's form of a rotate, is never a
    /// request: counted as `rotate`.
    public var commandName: CommandName {
        switch self {
        case .boxed(.hello): .hello
        case .boxed(.pluginCall): .pluginCall
        case .boxed(.explain): .explain
        case .boxed(.brief(let command)): command.commandName
        case .boxed(.node(let command)): command.commandName
        case .drawer(let d): d.side == nil ? .closeDrawer : .openDrawer
        case .ping: .ping
        case .state: .state
        case .controllers: .controllers
        case .controllerCreate: .controllerCreate
        case .controllerDelete: .controllerDelete
        case .core(let command): command.commandName
        case .layout: .layout
        case .preserve: .preserve
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .plugins: .plugins
        case .reload: .reload
        case .stats: .stats
        case .metrics, .metricsPrometheus: .metrics
        case .config: .config
        }
    }

    /// The commands only an administrator may run (root, the daemon's own uid, or a
    /// configured admin uid/gid): they change what every client sees — the configuration, or
    /// a whole controller disappearing under its users. Creating a controller harms no one.
    /// The one list of them, as a switch: this runs for every request.
    public var isAdminOnly: Bool {
        switch self {
        case .reload, .controllerDelete, .config: return true
        default: return false
        }
    }
}

extension Command {
    /// Whether the command's reply carries a list as long as the controller (`tabs`,
    /// `customizable`, `customizing_order`): what `"brief": true` leaves out, so that a client
    /// keeping its own copy pays for what it changed rather than for the whole list.
    public var repliesWithList: Bool {
        switch self {
        case .setTabs, .addTab, .removeTab, .setCustomizable, .customizeBegin, .customizeMove, .customizeEnd: return true
        default: return false
        }
    }
}

public enum RequestDecoder {
    /// Decodes one line. A `ProtocolError` says what is wrong; `id` is filled in when it
    /// could be read, so the error reply can echo it.
    public static func decode(_ line: UnsafeRawBufferPointer, maxDepth: Int = 64) -> (id: RequestID?, result: Result<Request, ProtocolError>) {
        if let request = FastRequest.decode(line) { return (request.id, .success(request)) }
        return decodeInGeneral(line, maxDepth: maxDepth)
    }

    /// The fast path alone: the requests clients send most (flat `select`, `tap`, `state`,
    /// `ping`; R15's `open_drawer`, `close_drawer`, a navigation `pop`, `show_column`,
    /// `hide_column`), or nil for anything else — then `decodeInGeneral` decides, with its errors.
    /// The same `Request` the general decoder gives, without the (id, Result) around it.
    public static func decodeCommon(_ line: UnsafeRawBufferPointer) -> Request? {
        FastRequest.decode(line)
    }

    /// The same, with `found` set to whether it is one of them (if not, the request is
    /// `placeholder`): the server's form. A `Request?` (or a tuple holding a `Request`) is
    /// destroyed through its type's metadata, the optional's tag found by value witnesses:
    /// ~170 instructions a select, twice what destroying the `Request` field by field costs.
    /// `name`: the command's name, known from the bytes (`RequestCommand.commandName` asked
    /// of the request switches over every command: ~30 instructions a select).
    @inline(__always)
    public static func decodeCommon(_ line: UnsafeRawBufferPointer, found: inout Bool, name: inout CommandName) -> Request {
        guard let decoded = FastRequest.decode(line, name: &name) else { found = false; return .placeholder }
        found = true
        return decoded
    }

    /// The general decoder alone, without the fast path (the fast path's tests compare the two).
    public static func decodeInGeneral(_ line: UnsafeRawBufferPointer, maxDepth: Int = 64) -> (id: RequestID?, result: Result<Request, ProtocolError>) {
        let value: JSONValue
        let idToken: Range<Int>?
        do {
            (value, idToken) = try JSONParser.parse(line, maxDepth: maxDepth, spanOfMember: "id")
        } catch {
            return (nil, .failure(ProtocolError(.parseError, "the request is not valid JSON: \(error.description)")))
        }
        guard case .object(let object) = value else {
            return (nil, .failure(ProtocolError(.parseError, "a request is one JSON object per line, e.g. {\"cmd\":\"ping\"}")))
        }
        var id: RequestID?
        if let i = object.position(ofIdentifier: "id"), let idToken {
            switch object.value(at: i) {
            case .array, .object:
                return (nil, .failure(.invalid("id", "'id' must be a string, number, boolean or null")))
            default:
                id = RequestID(token: UnsafeRawBufferPointer(rebasing: line[idToken]))
            }
        }
        do {
            var fields = Fields(object: object, path: "")
            let request = try decode(&fields, id: id)
            try fields.finish()
            return (id, .success(request))
        } catch {
            return (id, .failure(error))
        }
    }

    public static func decode(_ line: String) -> (id: RequestID?, result: Result<Request, ProtocolError>) {
        var copy = line
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    private static func decode(_ f: inout Fields, id: RequestID?) throws(ProtocolError) -> Request {
        f.markUsed("id")
        guard let name = try f.string("cmd") else {
            throw .invalid("cmd", "every request needs \"cmd\", e.g. {\"cmd\":\"ping\"}")
        }
        let controller = try f.string("controller") ?? TabContainers.defaultName
        var command: RequestCommand
        switch CommandName(rawValue: name) {
        // The commands clients send most come first: a switch on strings compares in order.
        case .select?:
            command = .core(.select(try selectTarget(&f, allowIndex: true)))
        case .tap?:
            switch try selectTarget(&f, allowIndex: false) {
            case .tab(let id): command = .core(.tap(.tab(id)))
            default: command = .core(.tap(.more))
            }
        case .hello?:
            let via = try f.string("via")
            if let via, via.isEmpty || via.utf8.count > 64 {
                throw .invalid("via", "'via' must name the relay in 1 to 64 bytes, e.g. \"tabd-web\"")
            }
            command = .hello(via: via)
        case .ping?: command = .ping
        case .state?: command = .state
        case .controllers?: command = .controllers
        case .controllerCreate?:
            guard f.has("controller") else { throw .invalid("controller", "controller.create needs \"controller\": the new controller's name") }
            let kindName = try f.string("kind") ?? ContainerKind.tab.rawValue
            guard let kind = ContainerKind(rawValue: kindName) else {
                throw .invalid("kind", "'kind' must be one of \(ContainerKind.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(kindName)')")
            }
            if kind != .tab {
                command = .controllerCreate(.composite(try compositeSpec(kind, &f)))
                break
            }
            let window = try f.bool("window") ?? true
            let idiomName = try f.string("idiom") ?? "phone"
            guard let idiom = Idiom(rawValue: idiomName) else {
                throw .invalid("idiom", "'idiom' must be one of phone, pad, tv (got '\(idiomName)')")
            }
            var tapPops = TapPops.always
            if let name = try f.string("tap_pops") {
                guard let t = TapPops(rawValue: name) else {
                    throw .invalid("tap_pops", "'tap_pops' must be \"always\" or \"reselect\" (got '\(name)')")
                }
                tapPops = t
            }
            let mode = try self.mode(&f) ?? .automatic
            let size = try sizeClass(&f)
            if let size, size != idiom.defaultSizeClass, idiom != .pad {
                throw ProtocolError(.notAvailable, "the \(idiom.rawValue) idiom is always \(idiom.defaultSizeClass.rawValue); only a pad has size_class \(size.rawValue)", details: [("field", "size_class")])
            }
            var options = TabBarOptions(idiom: idiom, maxVisible: try f.int("max_visible"), tapPops: tapPops, mode: mode,
                                        sizeClass: size, compactTabs: try f.nullableStringArray("compact_tabs"))
            options.window = window
            command = .controllerCreate(.tab(options))
        case .controllerDelete?:
            guard f.has("controller") else { throw .invalid("controller", "controller.delete needs \"controller\"") }
            command = .controllerDelete
        case .setTabs?:
            let tabs = try f.requiredArray("tabs").enumerated().map { (i, v) throws(ProtocolError) in
                try tab(v, path: "tabs[\(i)]")
            }
            var selected: SelectTarget?
            switch f.value("selected") {
            case nil, .null?: break
            case .string(let id)?: selected = .tab(id)
            case .int(let i)?:
                guard let i = Int(exactly: i) else { throw ProtocolError(.outOfRange, "'selected' index \(i) is out of range", details: [("field", "selected")]) }
                selected = .index(i)
            default: throw .invalid("selected", "'selected' must be a tab id (a string) or an index (an integer)")
            }
            command = .core(.setTabs(tabs, animated: try f.bool("animated") ?? false, selected: selected))
        case .addTab?:
            guard let v = f.value("tab") else { throw .invalid("tab", "add_tab needs \"tab\": a tab object") }
            let t = try tab(v, path: "tab")
            command = .core(.addTab(t, index: try f.int("index"), group: try f.nullableString("group")))
        case .removeTab?:
            command = .core(.removeTab(try f.requiredString("tab")))
        case .updateTab?:
            command = .core(.updateTab(try f.requiredString("tab"), try update(&f)))
        case .badge?:
            let tab = try f.requiredString("tab")
            guard f.has("value") else { throw .invalid("value", "badge needs \"value\": a string, or null to remove the badge") }
            command = .core(.badge(tab: tab, value: try f.nullableString("value")))
        case .push? where !f.has("tab"), .pop? where !f.has("tab"), .popToRoot? where !f.has("tab"):
            command = .node(try navigation(CommandName(rawValue: name)!, &f))
        case .configure?, .setWindow?, .popTo?, .setStack?, .openDrawer?, .closeDrawer?, .toggleDrawer?, .setCenter?, .setDrawer?,
             .setChildren?, .setShown?, .transition?, .setColumn?, .showColumn?, .hideColumn?, .showDetail?:
            command = .node(try node(CommandName(rawValue: name)!, &f)!)
        case .push?:
            let tab = try f.requiredString("tab")
            guard let v = f.value("screen") else { throw .invalid("screen", "push needs \"screen\": {\"id\": …, \"title\": …}") }
            command = .core(.push(tab: tab, screen: try screen(v, path: "screen")))
        case .pop?: command = .core(.pop(tab: try f.requiredString("tab")))
        case .popToRoot?: command = .core(.popToRoot(tab: try f.requiredString("tab")))
        case .customizable?:
            guard f.has("tabs") else { throw .invalid("tabs", "customizable needs \"tabs\": tab ids, or null for none") }
            command = .core(.setCustomizable(try f.nullableStringArray("tabs")))
        case .customizeBegin?: command = .core(.customizeBegin)
        case .customizeMove?:
            let tab = try f.requiredString("tab")
            guard let to = try f.int("to") else { throw .invalid("to", "customize.move needs \"to\": the new position") }
            command = .core(.customizeMove(tab: tab, to: to))
        case .customizeEnd?: command = .core(.customizeEnd)
        case .rotate?:
            command = .core(.rotate(try orientation(f.requiredString("orientation"), field: "orientation")))
        case .layout?:
            guard let w = try f.number("width"), let h = try f.number("height") else {
                throw .invalid(f.has("width") ? "height" : "width", "layout needs \"width\" and \"height\" in points")
            }
            let statusBar = try f.number("status_bar")
            // R10.1: sizes are finite and not negative.
            for (field, v) in [("width", w), ("height", h), ("status_bar", statusBar ?? 0)] where !(v.isFinite && v >= 0) {
                let shown = v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
                throw ProtocolError(.outOfRange, "'\(field)' is \(shown); layout sizes are points, 0 or more", details: [("field", field)])
            }
            command = .layout(width: w, height: h, statusBar: statusBar)
        case .setHidden?:
            let tab = try f.requiredString("tab")
            guard let hidden = try f.bool("hidden") else { throw .invalid("hidden", "set_hidden needs \"hidden\": true or false") }
            command = .core(.setHidden(tab: tab, hidden: hidden))
        case .reorder?:
            let group = try f.nullableString("group")
            guard let order = try f.nullableStringArray("order") else {
                throw .invalid("order", "reorder needs \"order\": tab ids (a group's children, or the bar's tabs between the fixed and the pinned ones)")
            }
            command = .core(.reorder(group: group, order: order))
        case .sidebar?:
            guard let visible = try f.bool("visible") else { throw .invalid("visible", "sidebar needs \"visible\": true or false") }
            command = .core(.sidebar(visible: visible))
        case .setExpanded?:
            let group = try f.requiredString("group")
            guard let e = try f.bool("expanded") else { throw .invalid("expanded", "set_expanded needs \"expanded\": true or false") }
            command = .core(.setExpanded(group: group, expanded: e))
        case .search?:
            guard let a = try f.bool("active") else { throw .invalid("active", "search needs \"active\": true or false") }
            command = .core(.search(active: a))
        case .setEnabled?:
            let tab = try f.requiredString("tab")
            guard let e = try f.bool("enabled") else { throw .invalid("enabled", "set_enabled needs \"enabled\": true or false") }
            command = .core(.setEnabled(tab: tab, enabled: e))
        case .setBarHidden?:
            guard let h = try f.bool("hidden") else { throw .invalid("hidden", "set_bar_hidden needs \"hidden\": true or false") }
            command = .core(.setBarHidden(hidden: h, animated: try f.bool("animated") ?? false))
        case .setSizeClass?:
            guard let size = try sizeClass(&f) else { throw .invalid("size_class", "set_size_class needs \"size_class\": \"regular\" or \"compact\"") }
            command = .core(.setSizeClass(size))
        case .setCompactTabs?:
            guard f.has("tabs") else { throw .invalid("tabs", "set_compact_tabs needs \"tabs\": root tab ids, or null for all") }
            command = .core(.setCompactTabs(try f.nullableStringArray("tabs")))
        case .setMode?:
            guard let m = try mode(&f) else { throw .invalid("mode", "set_mode needs \"mode\": one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))") }
            command = .core(.setMode(m))
        case .editBegin?: command = .core(.editBegin)
        case .editEnd?: command = .core(.editEnd)
        case .selectChild?:
            command = .core(.selectChild(group: try f.requiredString("group"), child: try f.requiredString("child")))
        case .preserve?: command = .preserve
        case .restore?:
            guard let v = f.value("archive") else { throw .invalid("archive", "restore needs \"archive\": what preserve returned") }
            if TreeArchive.isTree(v) {
                // R15.12: the archive of a root of another kind (its tree's controllers by path).
                do { command = .node(.restoreTree(try TreeArchive(json: v, at: "archive"))) } catch { throw ProtocolError(error) }
            } else {
                command = .core(.restore(try archive(v)))
            }
        case .subscribe?:
            command = .subscribe(events: try eventNames(&f), controllers: try subscribedControllers(&f), grouped: try f.bool("grouped"))
        case .unsubscribe?:
            command = .unsubscribe(events: try eventNames(&f))
        case .plugins?: command = .plugins
        case .pluginCall?:
            command = .pluginCall(plugin: try f.requiredString("plugin"), method: try f.requiredString("method"),
                                  args: f.value("args"))
        case .explain?:
            command = .explain(try explainQuery(&f))
        case .reload?: command = .reload
        case .config?: command = .config
        case .stats?: command = .stats
        case .metrics?:
            let name = try f.string("format") ?? MetricsFormat.openmetrics.rawValue
            guard let format = MetricsFormat(rawValue: name) else {
                throw .invalid("format", "'format' must be openmetrics (OpenMetrics 1.0.0, the default) or prometheus (the Prometheus text format 0.0.4)")
            }
            command = format == .prometheus ? .metricsPrometheus : .metrics
        case nil:
            throw ProtocolError(.unknownCommand, "unknown command '\(name)'; send {\"cmd\":\"hello\"} for the list",
                                details: [("cmd", name)])
        }
        // "brief" on a command whose reply carries a list as long as the controller; on any
        // other it is an unknown field, as it does nothing there.
        if case .core(let c) = command, c.repliesWithList, try f.bool("brief") == true { command = .brief(c) }
        return Request(id: id, controller: controller, command: command)
    }

    /// `explain`'s limit and filters: `controller` filters only when the request gives it (a
    /// request's controller is otherwise `main`).
    private static func explainQuery(_ f: inout Fields) throws(ProtocolError) -> ExplainQuery {
        let limit = try f.int("limit") ?? ExplainQuery.defaultLimit
        guard ExplainQuery.limits.contains(limit) else {
            throw .invalid("limit", "'limit' must be between \(ExplainQuery.limits.lowerBound) and \(ExplainQuery.limits.upperBound)")
        }
        var kind: DecisionKind?
        if let name = try f.string("kind") {
            guard let k = DecisionKind(rawValue: name) else {
                throw .invalid("kind", "'kind' must be one of \(DecisionKind.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(name)')")
            }
            kind = k
        }
        return ExplainQuery(limit: limit, controller: f.has("controller") ? try f.string("controller") : nil,
                            plugin: try f.string("plugin"), kind: kind)
    }

    private static func mode(_ f: inout Fields) throws(ProtocolError) -> Mode? {
        guard let name = try f.string("mode") else { return nil }
        guard let m = Mode(rawValue: name) else {
            throw .invalid("mode", "'mode' must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(name)')")
        }
        return m
    }

    private static func sizeClass(_ f: inout Fields) throws(ProtocolError) -> SizeClass? {
        guard let name = try f.string("size_class") else { return nil }
        guard let s = SizeClass(rawValue: name) else {
            throw .invalid("size_class", "'size_class' must be \"regular\" or \"compact\" (got '\(name)')")
        }
        return s
    }

    private static func selectTarget(_ f: inout Fields, allowIndex: Bool) throws(ProtocolError) -> SelectTarget {
        let tab = try f.string("tab")
        let index = allowIndex ? try f.int("index") : nil
        let more = try f.bool("more")
        if more == false { throw .invalid("more", "'more' may only be true") }
        let given = (tab != nil ? 1 : 0) + (index != nil ? 1 : 0) + (more == true ? 1 : 0)
        guard given == 1 else {
            let what = allowIndex ? "exactly one of \"tab\", \"index\" or \"more\": true" : "exactly one of \"tab\" or \"more\": true"
            throw .invalid(tab != nil ? (index != nil ? "index" : "more") : "tab", "\(f.command ?? "this command") needs \(what)")
        }
        if let tab { return .tab(tab) }
        if let index { return .index(index) }
        return .more
    }

    /// Most controllers one `subscribe` may name: what a client keeps is bounded.
    public static let maxSubscribedControllers = 1024

    /// `subscribe`'s controllers: controller names (they need not exist yet), at most
    /// `maxSubscribedControllers`.
    private static func subscribedControllers(_ f: inout Fields) throws(ProtocolError) -> [String]? {
        guard let names = try f.nullableStringArray("controllers") else { return nil }
        guard names.count <= maxSubscribedControllers else {
            throw ProtocolError(.outOfRange, "'controllers' names \(names.count) controllers; a subscription names at most \(maxSubscribedControllers)", details: [("field", "controllers")])
        }
        for (i, name) in names.enumerated() {
            do { try TabContainers.validate(name: name) } catch { throw .invalid("controllers[\(i)]", error.message) }
        }
        return names
    }

    private static func eventNames(_ f: inout Fields) throws(ProtocolError) -> [String] {
        let names = try f.nullableStringArray("events") ?? ["*"]
        for (i, name) in names.enumerated() where name != "*" && name != "plugin" && !Notification.eventNames.contains(name) {
            throw .invalid("events[\(i)]", "unknown event '\(name)'; known: \(Notification.eventNames.joined(separator: ", ")), plugin, or *")
        }
        return names
    }

    static func orientation(_ name: String, field: String) throws(ProtocolError) -> Orientation {
        guard let o = Orientation(rawValue: name) else {
            throw .invalid(field, "unknown orientation '\(name)'; one of \(Orientation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return o
    }

    /// A tab object a client sends (`Tab.fields` says what it holds).
    static func tab(_ value: JSONValue, path: String) throws(ProtocolError) -> Tab {
        do { return try Tab(json: value, at: path, .description) } catch { throw ProtocolError(error) }
    }

    static func screen(_ value: JSONValue, path: String) throws(ProtocolError) -> Screen {
        do { return try Screen(json: value, at: path, .description, orNull: false) } catch { throw ProtocolError(error) }
    }

    /// `update_tab`'s members: each field of a tab object a client may set, as present.
    private static func update(_ f: inout Fields) throws(ProtocolError) -> TabUpdate {
        let u: TabUpdate
        do { u = try TabUpdate(.description) { f.value($0) } } catch { throw ProtocolError(error) }
        f.ignoreStateOnly()
        return u
    }

    static func archive(_ value: JSONValue) throws(ProtocolError) -> RestorationArchive {
        do { return try RestorationArchive(json: value, at: "archive", .description, orNull: false) } catch { throw ProtocolError(error) }
    }
}

/// Reads the fields of one object, remembering which were read so that `finish` can
/// reject the rest (strict input).
struct Fields {
    let object: JSONObject
    let path: String
    /// Which members were asked for, by position: requests have few fields, and a bit per
    /// member is far cheaper than hashing key strings on every request. Members past the
    /// 64th are never "used" — no command has that many fields, so they are unknown anyway.
    private var used: UInt64 = 0

    init(object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    var command: String? {
        if let i = object.position(ofIdentifier: "cmd"), case .string(let s) = object.value(at: i) { return s }
        return nil
    }

    mutating func markUsed(_ key: String) { _ = value(key) }

    /// The members of a tab object that only `state` reports (runtime state, and `badge`,
    /// which repeats `item.badge`): a tab object copied from `state` is accepted back, these
    /// ignored.
    mutating func ignoreStateOnly() {
        for field in Tab.fields where field.accepts == .ignored { markUsed(field.name) }
    }

    mutating func has(_ key: String) -> Bool { value(key) != nil }

    /// `key` is always one of the protocol's field names (ASCII identifiers).
    mutating func value(_ key: String) -> JSONValue? {
        guard let i = object.position(ofIdentifier: key) else { return nil }
        if i < 64 { used |= 1 << UInt64(i) }
        return object.value(at: i)
    }

    private func wrong(_ key: String, _ expected: String) -> ProtocolError {
        .invalid(path + key, "'\(path + key)' must be \(expected)")
    }

    mutating func string(_ key: String) throws(ProtocolError) -> String? {
        switch value(key) {
        case nil: return nil
        case .string(let s)?: return s
        default: throw wrong(key, "a string")
        }
    }

    mutating func requiredString(_ key: String) throws(ProtocolError) -> String {
        guard let s = try string(key) else {
            throw .invalid(path + key, "\(command.map { "'\($0)' needs" } ?? "missing") \"\(path + key)\"")
        }
        return s
    }

    mutating func nullableString(_ key: String) throws(ProtocolError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw wrong(key, "a string or null")
        }
    }

    mutating func int(_ key: String) throws(ProtocolError) -> Int? {
        switch value(key) {
        case nil: return nil
        case .int(let i)?:
            guard let v = Int(exactly: i) else { throw wrong(key, "an integer") }
            return v
        default: throw wrong(key, "an integer")
        }
    }

    mutating func nullableInt(_ key: String) throws(ProtocolError) -> Int? {
        switch value(key) {
        case nil, .null?: return nil
        case .int(let i)?:
            guard let v = Int(exactly: i) else { throw wrong(key, "an integer or null") }
            return v
        default: throw wrong(key, "an integer or null")
        }
    }

    mutating func number(_ key: String) throws(ProtocolError) -> Double? {
        switch value(key) {
        case nil: return nil
        case .int(let i)?: return Double(i)
        case .double(let d)?: return d
        default: throw wrong(key, "a number")
        }
    }

    mutating func bool(_ key: String) throws(ProtocolError) -> Bool? {
        switch value(key) {
        case nil: return nil
        case .bool(let b)?: return b
        default: throw wrong(key, "true or false")
        }
    }

    mutating func requiredArray(_ key: String) throws(ProtocolError) -> [JSONValue] {
        switch value(key) {
        case .array(let a)?: return a
        case nil: throw .invalid(path + key, "\(command.map { "'\($0)' needs" } ?? "missing") \"\(path + key)\": an array")
        default: throw wrong(key, "an array")
        }
    }

    mutating func nullableStringArray(_ key: String) throws(ProtocolError) -> [String]? {
        switch value(key) {
        case nil, .null?: return nil
        case .array(let a)?:
            return try a.enumerated().map { (i, v) throws(ProtocolError) in
                guard case .string(let s) = v else { throw .invalid("\(path)\(key)[\(i)]", "'\(path)\(key)[\(i)]' must be a string") }
                return s
            }
        default: throw wrong(key, "an array of strings or null")
        }
    }

    /// Rejects any field that was not read: strict input.
    func finish() throws(ProtocolError) {
        for i in 0..<object.count where i >= 64 || used & (1 << UInt64(i)) == 0 {
            let key = object.key(at: i)
            let what = command.map { "'\($0)'" } ?? "this object"
            throw .invalid(path + key, "unknown field '\(path + key)' for \(what)")
        }
    }
}
