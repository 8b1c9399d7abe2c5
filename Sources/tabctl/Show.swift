// `tabctl show [CONTROLLER]`: draws a controller (ShowDrawing.swift). With --watch it keeps
// a mirror of the controller from events (ShowMirror.swift) on one connection, as
// docs/protocol.md's "Staying in sync" says: subscribe, read `state`, apply only events
// whose seq is later; redraw after each batch; after the connection drops, reconnect and
// do it again. It never polls: `state` is read again only when events cannot say
// something (see ControllerView.rereadAfter) or when the mirror is in doubt.

import ArgumentParser
import CLinux
import Foundation
import TabJSON
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

enum ColorMode: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    /// auto: colour when stdout is a terminal and NO_COLOR is not set to something
    /// (no-color.org: an empty NO_COLOR does not count).
    var enabled: Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            return isatty(1) == 1 && !noColor
        }
    }
}

extension Tabctl {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a controller: its bar, the More list, each tab's stack, orientation and customizing.",
            discussion: """
                Colour (ANSI) when stdout is a terminal and NO_COLOR is not set; plain text otherwise. \
                With --watch, redraws after each batch of events (on a terminal the screen is cleared; \
                otherwise each drawing follows a line '--- seq N ---'), reconnects when tabd goes away, \
                and exits 0 when the controller is deleted.
                """)
        @OptionGroup var common: Common
        @Argument(help: ArgumentHelp("The controller to draw (default: --controller, else main).", valueName: "controller"))
        var name: String?
        @Flag(help: "Keep drawing: redraw from events as the controller changes.")
        var watch = false
        @Option(help: "Colour: auto (a terminal without NO_COLOR), always or never.")
        var color: ColorMode = .auto
        @Option(help: "With --watch: how long to try to reconnect (once a second) after tabd went away.")
        var reconnectSeconds = 30

        func validate() throws {
            if let name, let other = common.controller, name != other {
                throw ValidationError("the controller is named twice ('\(name)' and --controller '\(other)'); name it once")
            }
            if reconnectSeconds < 0 { throw ValidationError("--reconnect-seconds must be 0 or more") }
        }

        func run() throws {
            let controller = name ?? common.controller ?? "main"
            let drawing = Drawing(colour: color.enabled)
            if watch {
                let watcher = Watcher(common: common, name: controller, drawing: drawing,
                                      terminal: isatty(1) == 1, reconnectSeconds: reconnectSeconds)
                try watcher.run()
                return
            }
            let state = try common.result(Watcher.request("state", controller))
            print(drawing.draw(ControllerView(state: state, name: controller)), terminator: "")
        }
    }
}

extension Connection {
    /// A whole line already received, if any; reads nothing.
    mutating func bufferedLine() -> String? {
        guard let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: buffer[..<nl], as: UTF8.self)
        buffer.removeSubrange(...nl)
        return line
    }

    /// True when the socket has something to read (or has ended) within `milliseconds`.
    func readable(within milliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, milliseconds) > 0
    }
}

/// `show --watch`: one connection, one mirror, a drawing after each batch of events.
final class Watcher {
    let common: Common
    let name: String
    let drawing: Drawing
    /// Clear the screen between drawings (stdout is a terminal), else separator lines.
    let terminal: Bool
    let reconnectSeconds: Int

    private var conn: Connection?
    private var mirror: ControllerView
    private var instance: String?
    /// Requests sent and not answered yet, in order (tabd answers in order).
    private var pending: [(Asked, reason: String?)] = []
    private var lastNotice: String?

    enum Asked { case full, unannounced }

    /// The controller was deleted: say so and exit 0.
    struct Deleted: Error { var seq: Int? }
    /// The connection ended or failed.
    struct Dropped: Error {}

    init(common: Common, name: String, drawing: Drawing, terminal: Bool, reconnectSeconds: Int) {
        self.common = common
        self.name = name
        self.drawing = drawing
        self.terminal = terminal
        self.reconnectSeconds = reconnectSeconds
        mirror = ControllerView(name: name)
    }

    static func request(_ cmd: String, _ controller: String? = nil, _ more: [(String, JSONValue)] = []) -> String {
        var fields: [(String, JSONValue)] = [("cmd", .string(cmd))]
        if let controller { fields.append(("controller", .string(controller))) }
        return JSONValue.object(JSONObject(fields + more)).jsonString
    }

    /// The result of a success reply, nil for anything else.
    static func result(_ line: String) -> JSONObject? {
        guard case .object(let o)? = try? JSONParser.parse(line), case .bool(true)? = o["ok"] else { return nil }
        return o.object("result") ?? JSONObject()
    }

    func run() throws {
        setvbuf(tabd_stdout(), nil, _IOFBF, 1 << 16)
        // It runs until stopped: whatever mask it was started with, SIGINT, SIGTERM and
        // SIGHUP stop it.
        var stop = sigset_t()
        sigemptyset(&stop)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stop, s) }
        sigprocmask(SIG_UNBLOCK, &stop, nil)
        conn = try common.connectForEvents()
        do {
            try sync(reconnecting: false)
        } catch is Dropped {
            try reconnect()
        } catch let d as Deleted {
            return finish(d)
        }
        redraw()
        while true {
            var ended = false
            var lines: [String] = []
            do { try readBatch(into: &lines) } catch { ended = true }
            var changed = false
            do {
                for line in lines where try handle(line) { changed = true }
                if changed { redraw() }
                if !ended { try askIfNeeded() }
            } catch let d as Deleted {
                return finish(d)
            } catch is Dropped {
                ended = true
            }
            if ended {
                do { try reconnect() } catch let d as Deleted { return finish(d) }
                redraw()
            }
        }
    }

    private func finish(_ d: Deleted) {
        say("controller '\(Drawing.clean(name, limit: 64))' was deleted" + (d.seq.map { " (seq \($0))" } ?? ""))
        fflush(tabd_stdout())
    }

    // MARK: reading

    /// Blocks for one line, then takes every line that follows within 10 ms (a command's
    /// events come together), at most 1,000 lines or 200 ms: a batch.
    private func readBatch(into lines: inout [String]) throws {
        guard var c = conn else { throw Dropped() }
        defer { conn = c }
        guard let first = try c.readLine() else { throw Dropped() }
        lines.append(first)
        let start = Date()
        while lines.count < 1000, Date().timeIntervalSince(start) < 0.2 {
            if let l = c.bufferedLine() { lines.append(l); continue }
            guard c.readable(within: 10) else { return }
            guard let l = try c.readLine() else { throw Dropped() }
            lines.append(l)
        }
    }

    /// Sends a request and reads up to its reply; events before it are returned in order.
    private func ask(_ line: String) throws -> (reply: String, events: [String]) {
        guard var c = conn else { throw Dropped() }
        defer { conn = c }
        do { try c.send(line) } catch { throw Dropped() }
        var events: [String] = []
        while true {
            guard let l = try? c.readLine() else { throw Dropped() }
            if l.contains("\"event\""), case .object(let o)? = try? JSONParser.parse(l), o["event"] != nil {
                events.append(l)
                continue
            }
            return (l, events)
        }
    }

    // MARK: the recipe

    /// hello (note the instance), subscribe, state; then the events that came before the
    /// state reply, those with a later seq only.
    private func sync(reconnecting: Bool) throws {
        pending = []
        needFull = nil
        needUnannounced = false
        let hello = try ask(Self.request("hello"))
        let newInstance = Self.result(hello.reply)?.text("instance")
        if reconnecting {
            if let old = instance, let new = newInstance, old != new {
                say("tabd restarted (instance \(old) → \(new))")
            } else {
                say("reconnected to the same tabd")
            }
        }
        instance = newInstance
        let sub = try ask(Self.request("subscribe", nil, [("events", .array(["*"])), ("controllers", .array([.string(name)]))]))
        guard Self.result(sub.reply) != nil else { try Common.report(sub.reply); throw ExitCode(1) }
        let state = try ask(Self.request("state", name))
        guard let result = Self.result(state.reply) else {
            if reconnecting, state.reply.contains("\"not_found\"") { throw Deleted(seq: nil) }
            try Common.report(state.reply)
            throw ExitCode(1)
        }
        let before = mirror.seq
        mirror = ControllerView(state: result, name: name)
        if reconnecting {
            say(mirror.seq == before ? "nothing was missed (seq \(mirror.seq))" : "read the state again at seq \(mirror.seq)")
        }
        for e in sub.events + state.events { _ = try handle(e) }
        try askIfNeeded()
    }

    /// Why the mirror is in doubt (it reads the whole `state` again), nil when it is not.
    private var needFull: String?
    private var needUnannounced = false

    /// Handles one line: an event for the mirror, or the reply to a `state` asked again.
    /// True when the drawing changed.
    private func handle(_ line: String) throws -> Bool {
        guard case .object(let o)? = try? JSONParser.parse(line) else { return false }
        if let event = o.text("event") {
            guard o.text("controller") == name, let seq = o.integer("seq"), seq > mirror.seq else { return false }
            // One connection sees every event of the controller: a gap means doubt.
            if seq != mirror.seq + 1 { needFull = "seq \(mirror.seq) was followed by \(seq)" }
            switch mirror.apply(event: event, seq: seq, data: o.object("data") ?? JSONObject()) {
            case .deleted: throw Deleted(seq: seq)
            case .unsure: needFull = "\(event) at seq \(seq) did not say enough"
            case .applied: break
            }
            if ControllerView.rereadAfter.contains(event) { needUnannounced = true }
            return true
        }
        guard o["ok"] != nil, !pending.isEmpty else { return false }
        let (asked, reason) = pending.removeFirst()
        guard let result = o.object("result"), case .bool(true)? = o["ok"] else {
            if o.object("error")?.text("code") == "not_found" { throw Deleted(seq: nil) }
            return false
        }
        let old = mirror
        switch asked {
        case .full:
            mirror = ControllerView(state: result, name: name)
            say("in doubt (\(reason ?? "")); read the state again at seq \(mirror.seq)")
        case .unannounced: mirror.readUnannounced(from: result)
        }
        return mirror != old
    }

    /// Reads `state` again when the mirror is in doubt (all of it) or when events changed
    /// what decides the fields events do not carry (those only). One request at a time.
    private func askIfNeeded() throws {
        guard pending.isEmpty, needFull != nil || needUnannounced, let c = conn else { return }
        do { try c.send(Self.request("state", name)) } catch { throw Dropped() }
        pending.append((needFull != nil ? .full : .unannounced, needFull))
        needFull = nil
        needUnannounced = false
    }

    /// Every second until --reconnect-seconds have passed: connect and do the recipe again.
    private func reconnect() throws {
        if let c = conn { close(c.fd) }
        conn = nil
        say("connection to tabd lost; reconnecting for up to \(reconnectSeconds) s")
        let deadline = Date().addingTimeInterval(Double(reconnectSeconds))
        while true {
            if let c = try? Connection(path: common.socketPath) {
                conn = c
                do {
                    try sync(reconnecting: true)
                    return
                } catch is Dropped {
                    close(c.fd)
                    conn = nil
                }
            }
            if Date() >= deadline {
                FileHandle.standardError.write(Data("tabctl: tabd could not be reached again within \(reconnectSeconds) s\n".utf8))
                throw ExitCode(3)
            }
            sleep(1)
        }
    }

    // MARK: output

    private func redraw() {
        let picture = drawing.draw(mirror)
        if terminal {
            var status = drawing.render([Drawing.Span(text: "watching — Ctrl-C to stop", sgr: [Drawing.dim])])
            if let lastNotice { status += "  " + lastNotice }
            print("\u{1B}[H\u{1B}[2J" + picture + "\n" + status)
        } else {
            print("--- seq \(mirror.seq) ---")
            print(picture, terminator: "")
        }
        fflush(tabd_stdout())
    }

    /// A line about the connection or the controller itself, between drawings.
    private func say(_ text: String) {
        lastNotice = text
        print(terminal ? drawing.render([Drawing.Span(text: text, sgr: [Drawing.bold])]) : "--- \(text) ---")
        fflush(tabd_stdout())
    }
}
