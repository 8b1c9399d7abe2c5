// `tabctl show [CONTROLLER]`: draws a controller (ShowDrawing.swift). With --watch it keeps
// a mirror of the controller from events with TabClient's Mirror (the recipe of
// docs/protocol.md, "Staying in sync": subscribe, read `state`, apply only later events,
// read `state` again when in doubt, reconnect with backoff) and redraws after each batch.

import ArgumentParser
import CLinux
import Foundation
import TabJSON
import TabClient
import TabProtocol
import TabSystem
import Synchronization

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
            return Sys.isTerminal(1) && !noColor
        }
    }
}

extension Tabctl {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a controller: its bar, the More list, each tab's stack, orientation and customizing.",
            discussion: """
                A navigation, split, drawer or custom controller is drawn as a tree: each container's kind, \
                its stack (top marked), split columns (visible ones marked), drawer slots (open side marked) \
                or children (shown ones marked), \
                and each nested controller beneath the child that holds it. \
                Colour (ANSI) when stdout is a terminal and NO_COLOR is not set; plain text otherwise. \
                With --watch, redraws after each batch of events (on a terminal the screen is cleared; \
                otherwise each drawing follows a line '--- seq N ---'), reconnects when tabd goes away, \
                and exits 0 when the controller is deleted.
                """)
        @OptionGroup var common: Common
        @Argument(help: ArgumentHelp("The controller to draw (default: --controller, else main).", valueName: "controller"),
                  completion: .custom { words, _, prefix in Completion.controllers(words, prefix) })
        var name: String?
        @Flag(help: "Keep drawing: redraw from events as the controller changes.")
        var watch = false
        @Option(help: "Colour: auto (a terminal without NO_COLOR), always or never.")
        var color: ColorMode = .auto
        @Option(help: "With --watch: how long to try to reconnect (backing off to once a second) after tabd went away.")
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
                if try isComposite(controller) {
                    try TreeWatcher(common: common, name: controller, drawing: drawing, terminal: Sys.isTerminal(1),
                                    reconnectSeconds: reconnectSeconds).runBlocking()
                    return
                }
                let watcher = Watcher(common: common, name: controller, drawing: drawing,
                                      terminal: Sys.isTerminal(1), reconnectSeconds: reconnectSeconds)
                try watcher.runBlocking()
                return
            }
            let state = try common.result(Watcher.request("state", controller))
            if ContainerState.isComposite(state) {
                print(drawing.draw(try readTree(controller, root: state)), terminator: "")
                return
            }
            print(drawing.draw(ControllerView(state: state, name: controller)), terminator: "")
        }

        /// Whether `name` is an R15 container (else a tab bar controller, or none: the mirror
        /// says so as before).
        private func isComposite(_ name: String) throws -> Bool {
            // tabd unreachable: its message and exit 3, as every command.
            guard let state = Watcher.result(try common.exchange(Watcher.request("state", name))) else { return false }
            return ContainerState.isComposite(state)
        }

        /// The tree below `name` (whose state is `root`), each nested controller's state read
        /// in turn; one that cannot be read is drawn as such.
        private func readTree(_ name: String, root: JSONObject) throws -> ContainerTree {
            var tree = ContainerTree(root: name)
            tree.add(name, root)
            while let next = tree.nextToRead {
                let reply = try common.exchange(Watcher.request("state", next))
                if let state = Watcher.result(reply) { tree.add(next, state) } else { tree.fail(next, Watcher.errorText(reply)) }
            }
            return tree
        }
    }
}

/// What every `show --watch` does around its drawings: the task it runs on, a drawing after
/// the other (the screen cleared on a terminal, else a separator line), a line about the
/// connection or the controller between them, and the end when the controller is deleted.
class WatchScreen: @unchecked Sendable {  // used by one task at a time
    let common: Common
    let name: String
    let drawing: Drawing
    /// Clear the screen between drawings (stdout is a terminal), else separator lines.
    let terminal: Bool
    let reconnectSeconds: Int
    private var lastNotice: String?

    init(common: Common, name: String, drawing: Drawing, terminal: Bool, reconnectSeconds: Int) {
        self.common = common
        self.name = name
        self.drawing = drawing
        self.terminal = terminal
        self.reconnectSeconds = reconnectSeconds
    }

    /// Runs `run()` on Swift's task pool until it ends; the exit it asks for is thrown here.
    func runBlocking() throws {
        setvbuf(tabd_stdout(), nil, _IOFBF, 1 << 16)
        // It runs until stopped: whatever mask it was started with, SIGINT, SIGTERM and
        // SIGHUP stop it.
        try? Sys.unblockSignals([SIGINT, SIGTERM, SIGHUP])
        // The first connection as every command makes it (its message and exit 3 when tabd
        // cannot be reached); the watcher makes its own.
        let probe = try common.connect()
        Sys.close(probe.fd)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Int32?>(nil)
        let task = Task {
            let code = await self.run()
            outcome.withLock { $0 = code }
            done.signal()
        }
        Interrupt.stopping(with: { task.cancel() }) { done.wait() }
        let code = outcome.withLock { $0 } ?? 0
        if code != 0 { throw ExitCode(code) }
    }

    /// The exit status: 0 when the controller was deleted, else why it ended.
    func run() async -> Int32 { 0 }

    func finish(seq: Int?) -> Int32 {
        say("controller '\(Drawing.clean(name, limit: 64))' was deleted" + (seq.map { " (seq \($0))" } ?? ""))
        fflush(tabd_stdout())
        return 0
    }

    /// A drawing; `seq` names where it stands in the separator line.
    func present(_ picture: String, seq: String) {
        if terminal {
            var status = drawing.render([Drawing.Span(text: "watching — Ctrl-C to stop", sgr: [Drawing.dim])])
            if let lastNotice { status += "  " + lastNotice }
            print("\u{1B}[H\u{1B}[2J" + picture + "\n" + status)
        } else {
            print("--- seq \(seq) ---")
            print(picture, terminator: "")
        }
        fflush(tabd_stdout())
    }

    /// A line about the connection or the controller itself, between drawings.
    func say(_ text: String) {
        let text = text.oneLine  // it may quote tabd (an instance, a reason)
        lastNotice = text
        print(terminal ? drawing.render([Drawing.Span(text: text, sgr: [Drawing.bold])]) : "--- \(text) ---")
        fflush(tabd_stdout())
    }

    /// After a reconnection: whether tabd was restarted.
    func sayReconnected(instance: String, previous: String?) {
        if let previous, previous != instance {
            say("tabd restarted (instance \(previous) → \(instance))")
        } else {
            say("reconnected to the same tabd")
        }
    }

    func sayDisconnected() { say("connection to tabd lost; reconnecting for up to \(reconnectSeconds) s") }

    func sayUnreachable() -> Int32 {
        FileHandle.standardError.write(Data("tabctl: tabd could not be reached again within \(reconnectSeconds) s\n".utf8))
        return 3
    }
}

/// `show --watch`: TabClient's Mirror of one controller, a drawing after each batch of events.
final class Watcher: WatchScreen, @unchecked Sendable {
    static func request(_ cmd: String, _ controller: String? = nil, _ more: [(String, JSONValue)] = []) -> String {
        var fields: [(String, JSONValue)] = [("cmd", .string(cmd))]
        if let controller { fields.append(("controller", .string(controller))) }
        return JSONValue.object(JSONObject(fields + more)).jsonString
    }

    /// The result of a success reply, nil for anything else.
    static func result(_ line: String) -> JSONObject? {
        guard case .object(let o)? = try? JSONParser.parse(line), case .bool(true)? = o["ok"] else { return nil }
        if case .object(let r)? = o["result"] { return r }
        return JSONObject()
    }

    /// An error reply as `code: message` on one line.
    static func errorText(_ line: String) -> String {
        guard case .object(let o)? = try? JSONParser.parse(line), case .object(let e)? = o["error"] else { return line.oneLine }
        return "\(e.text("code") ?? "error"): \(e.text("message") ?? "")".oneLine
    }

    override func run() async -> Int32 {
        let mirror = Mirror(path: common.socketPath, controllers: [name],
                            reconnect: .init(giveUpAfter: .seconds(reconnectSeconds)))
        var view = ControllerView(name: name)
        do {
            for try await update in mirror.updates() {
                switch update {
                case .synced(let sync):
                    if let missing = sync.missing[name] {
                        if sync.initial {
                            FileHandle.standardError.write(Data("tabctl: \(missing.codeName.oneLine): \(missing.message.oneLine)\n".utf8))
                            return 1
                        }
                        return finish(seq: nil)
                    }
                    view = sync.controllers[name] ?? view
                    if !sync.initial {
                        sayReconnected(instance: sync.instance, previous: sync.previousInstance)
                        say(sync.nothingMissed ? "nothing was missed (seq \(view.seq))" : "read the state again at seq \(view.seq)")
                    }
                    redraw(view)
                case .changed(let v, _):
                    if v != view { view = v; redraw(view) }
                case .resynced(let v, let reason):
                    view = v
                    say("in doubt (\(reason)); read the state again at seq \(view.seq)")
                    redraw(view)
                case .compositeChanged, .compositeResynced:
                    break  // this watcher's controller is a tab controller (containers: drawTree)
                case .deleted(_, let seq):
                    return finish(seq: seq)
                case .disconnected:
                    sayDisconnected()
                }
            }
        } catch {
            return sayUnreachable()
        }
        return 0
    }

    private func redraw(_ mirror: ControllerView) { present(drawing.draw(mirror), seq: "\(mirror.seq)") }
}

extension JSONObject {
    /// A string member (`metrics`' text); TabClient reads the rest.
    func text(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        return nil
    }
}
