// tabctl: talk to tabd from a shell. Prints the result JSON; errors go to stderr.
// Exit statuses: TabctlExit (TabProtocol/ExitStatus.swift), the one table of them.

import ArgumentParser
import Foundation
import TabClient
import TabJSON
import TabProtocol
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

struct Connection {
    let fd: Int32
    var buffer: [UInt8] = []

    init(path: String) throws {
        do { fd = try Sys.connectUnix(path) } catch {
            guard error.call == "connect" else { throw Failure.unreachable("socket(): \(error.reason)") }
            throw error.errno == EACCES || error.errno == EPERM ? Failure.denied(error.reason) : Failure.unreachable(Sys.connectFailure(error))
        }
    }

    func send(_ line: String) throws {
        var bytes = Array(line.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        do { try sendAll(fd, bytes) } catch {
            throw Failure.unreachable("write failed: \(String(cString: strerror(error.errno)))")
        }
    }

    /// How much of `buffer` holds no newline: a reply of megabytes is searched once, not once
    /// per read.
    var scanned = 0
    /// Seconds tabd has to send a whole reply (`--timeout`); nil: as long as it takes.
    var timeout: Double?
    /// The longest line tabctl takes from tabd: TabClient's, the one default of the clients.
    var maxLineBytes = TabClient.defaultMaxLineBytes

    /// The next line from tabd, or nil at end of stream. A line the stream ends in the middle
    /// of, a line longer than `maxLineBytes`, or a line that has not ended `timeout` seconds
    /// after the call is a failure that says so.
    mutating func readLine() throws -> String? {
        let deadline = timeout.map { monotonicSeconds() + $0 }
        while true {
            if let nl = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                guard nl <= maxLineBytes else { throw tooLong() }
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                scanned = 0
                return line
            }
            scanned = buffer.count
            guard buffer.count <= maxLineBytes else { throw tooLong() }
            let n = try receive(deadline: deadline)
            if n == 0 {
                guard buffer.isEmpty else {
                    throw Failure.cut("tabd closed the connection after \(buffer.count) bytes of a reply, before its end; the reply is incomplete and was not printed")
                }
                return nil
            }
        }
    }

    private func tooLong() -> Failure {
        .cut("tabd sent a line longer than \(maxLineBytes) bytes, the most tabctl reads; it was not printed")
    }
}

enum Failure: Error, CustomStringConvertible {
    case unreachable(String)
    /// connect(2) refused for the socket's permissions (EACCES).
    case denied(String)
    /// A reply cut off, not JSON, or not in time: one sentence.
    case cut(String)
    var description: String {
        switch self { case .unreachable(let s), .denied(let s), .cut(let s): return s }
    }
}

/// The options every subcommand takes. Tabctl (the root) declares them too, so they may come
/// before the subcommand or after it: the root parses them wherever they are, and each
/// subcommand's @OptionGroup of the same type takes the root's values.
struct Common: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "tabd's socket (default: $TABD_SOCKET, else /run/tabd/tabd.sock; never one in the current directory).",
        valueName: "path"), completion: .file())
    var socket: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The controller to address (default main; watch: only this controller's events, default every controller's).", valueName: "name"),
            completion: .custom { words, _, prefix in Completion.controllers(words, prefix) })
    var controller: String?

    @Flag(help: "Print a result as one line of JSON, also on a terminal (where it is indented and coloured otherwise).")
    var json = false
    @Option(help: ArgumentHelp("Seconds to wait for each reply before giving up (exit 3; default \(Common.defaultTimeout.formatted()), 0: no limit).", valueName: "seconds"))
    var timeout: Double = Common.defaultTimeout

    /// The socket tabd listens on when installed (systemd's tabd.socket).
    static let systemSocket = "/run/tabd/tabd.sock"

    /// --socket, else $TABD_SOCKET, else the system socket; and where that came from. Never a
    /// socket found in the current directory: a password must not go to whatever listens there.
    var socketChoice: (path: String, origin: String) {
        if let socket { return (socket, "from --socket") }
        if let env = ProcessInfo.processInfo.environment["TABD_SOCKET"], !env.isEmpty { return (env, "from $TABD_SOCKET") }
        return (Self.systemSocket, Self.defaultOrigin)
    }

    private static let defaultOrigin = "the default socket"

    var socketPath: String { socketChoice.path }

    /// Sends one request object and prints the result; exit 1 on an error reply.
    func request(_ fields: [(String, JSONValue)]) throws {
        try roundTrip(line(fields))
    }

    /// One request line of `fields`, addressed to --controller when it has none.
    func line(_ fields: [(String, JSONValue)]) -> String {
        var object = JSONObject(fields)
        if let controller, object["controller"] == nil { object.set("controller", .string(controller)) }
        var w = JSONWriter()
        w.write(.object(object))
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func roundTrip(_ line: String) throws {
        try Common.report(exchange(line), oneLine: json)
    }

    /// A connection to tabd; exit 3 when it cannot be reached.
    func connect() throws -> Connection {
        let (path, origin) = socketChoice
        do {
            var conn = try Connection(path: path)
            if timeout > 0 { conn.timeout = timeout }
            return conn
        } catch Failure.denied(let reason) {
            // The socket is there, its mode keeps this user out: say which group lets one in.
            let group = (try? Sys.fileStatus(path)).flatMap { try? Sys.groupName(of: $0.st_gid) }
            let text = "tabctl: cannot connect to \(path) (\(origin)): \(reason): "
                + (group.map { "the socket is for the members of group \($0); join it (sudo usermod -aG \($0) $USER, then log in again) or ask an administrator" }
                    ?? "this user may not use the socket")
            FileHandle.standardError.write(Data((text + "\n").utf8))
            throw ExitCode(TabctlExit.unreachable.code)
        } catch {
            var text = "tabctl: cannot connect to \(path) (\(origin)): \(error); is tabd running?"
            if origin == Self.defaultOrigin { text += " Set --socket or TABD_SOCKET to use another socket." }
            FileHandle.standardError.write(Data((text + "\n").utf8))
            throw ExitCode(TabctlExit.unreachable.code)
        }
    }

    /// Sends one request line and returns the result of a success reply; any other reply is
    /// reported (exit 1).
    func result(_ line: String) throws -> JSONObject {
        let reply = try exchange(line)
        guard let result = Watcher.result(reply) else { try Common.report(reply); throw ExitCode(1) }
        return result
    }

    /// Sends one request line on a new connection and returns the reply line, read to its
    /// end and checked (`Common.reply(from:)`).
    func exchange(_ line: String) throws -> String {
        var conn = try connect()
        defer { Sys.close(conn.fd) }
        try conn.send(line)
        return try Common.reply(from: &conn)
    }

    /// Prints a reply's result (stdout: indented and coloured on a terminal, unless
    /// `oneLine`) or error (stderr, exit 1).
    static func report(_ reply: String, oneLine: Bool = false) throws {
        guard case .object(let o)? = try? JSONParser.parse(reply) else {
            print(reply.oneLine)
            return
        }
        if case .bool(true)? = o["ok"] {
            print(Output.text(o["result"] ?? .object(JSONObject([])), oneLine: oneLine))
            return
        }
        if case .object(let e)? = o["error"] {
            var text = "tabctl: \(e["code"].map(stringValue) ?? "error"): \(e["message"].map(stringValue) ?? reply.oneLine)"
            for (k, v) in e where k != "code" && k != "message" {
                // A list (a refused reload's problems): one item a line, each once.
                if case .array(let items) = v {
                    text += "\n  \(k.oneLine):"
                    for item in items { text += "\n    \(stringValue(item))" }
                } else {
                    text += "\n  \(k.oneLine): \(stringValue(v))"
                }
            }
            FileHandle.standardError.write(Data((text + "\n").utf8))
            throw ExitCode(TabctlExit.errorReply.code)
        }
        print(reply.oneLine)
    }

    /// A value from tabd as one line of text, its control characters escaped (`oneLine`).
    static func stringValue(_ v: JSONValue) -> String {
        if case .string(let s) = v { return s.oneLine }
        return v.jsonString.oneLine
    }
}

/// How `call` reads its arguments, for the help texts.
let argumentRule = """
    key=value sends the value as a string (title=2024 is "2024"); key:=json sends it as JSON \
    (index:=2 is a number, done:=true a boolean, item:='{"badge":"1"}' an object, value:=null null). \
    JSON with double quotes or spaces goes in single quotes, in a shell and in tabctl -i alike: \
    both split a line into words and drop the double quotes outside single ones (tabctl -i \
    expands no $ or *).
    """

/// `key=value` → a string field; `key:=json` → the JSON value. The first `=` ends the key.
func field(_ pair: String) throws -> (String, JSONValue) {
    guard let eq = pair.firstIndex(of: "=") else {
        throw ValidationError("expected key=value or key:=json, got '\(pair)'")
    }
    let raw = String(pair[pair.index(after: eq)...])
    var key = pair[..<eq]
    guard key.last == ":" else {
        guard !key.isEmpty else { throw ValidationError("'\(pair)' has no key before the '='") }
        return (String(key), .string(raw))
    }
    key.removeLast()
    guard !key.isEmpty else { throw ValidationError("'\(pair)' has no key before the ':='") }
    do {
        return (String(key), try JSONParser.parse(raw))
    } catch {
        throw ValidationError("the value of '\(key)' is not JSON (\(error)); put JSON in single quotes, in a shell and in tabctl -i alike (\(key):='{\"a\":1}'), and for a string write \(key)=\(raw)")
    }
}

@main
struct Tabctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabctl",
        abstract: "Send commands to tabd and print what it answers.",
        discussion: """
            The options --socket and --controller may come before or after the subcommand. \
            The socket is --socket, else $TABD_SOCKET, else \(Common.systemSocket); tabctl never \
            looks for one in the current directory.

            Arguments of call: \(argumentRule)

            \(ExitStatus.summary(TabctlExit.all))
            """,
        version: TabdVersion.string,
        subcommands: [Call.self, Send.self, State.self, Show.self, Select.self, Tap.self, Badge.self, Login.self, Logout.self,
                      Watch.self, Reload.self, Ping.self, Stats.self, Metrics.self, Plugins.self, Config.self]
    )

    @OptionGroup var common: Common

    @Flag(name: .shortAndLong, help: "Interactive mode (also tabctl with no command on a terminal): type commands, JSON requests, help or quit, with history and Tab completion.")
    var interactive = false

    /// Options without a command (tabctl --json): a usage error. (-i never gets here: main
    /// runs the interactive mode first.)
    func run() throws { throw ValidationError("no command given") }

    struct Call: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send any command with arguments as key=value (a string) or key:=json (any JSON value).",
            discussion: """
                \(argumentRule)

                Example: tabctl call set_tabs 'tabs:=[{"id":"home"},{"id":"login","title":"Log in"}]'
                """)
        @OptionGroup var common: Common
        @Argument(help: "The command name, e.g. state, add_tab, badge.", completion: .custom { w, _, p in Completion.commands(w, p) })
        var cmd: String
        @Argument(help: ArgumentHelp("Arguments: key=value (a string) or key:=json (a JSON value).", valueName: "key=value|key:=json"))
        var arguments: [String] = []
        func validate() throws { _ = try arguments.map(field) }
        func run() throws { try common.request([("cmd", .string(cmd))] + arguments.map(field)) }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send raw JSON request lines (arguments, or stdin when none) and print the raw replies.")
        @OptionGroup var common: Common
        @Argument(help: "Request lines; read from stdin when omitted.") var lines: [String] = []
        func run() throws {
            var conn = try common.connect()
            defer { Sys.close(conn.fd) }
            var requests = lines
            if requests.isEmpty { while let l = Swift.readLine() { if !l.isEmpty { requests.append(l) } } }
            for r in requests { try conn.send(r) }
            var failed = false
            for _ in requests {
                let reply = try Common.reply(from: &conn)
                print(reply.oneLine)
                if reply.contains("\"ok\":false") { failed = true }
            }
            if failed { throw ExitCode(1) }
        }
    }

    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the controller's whole state.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "state")]) }
    }

    struct Select: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Select a tab programmatically (no delegate): a tab id, a number (index) or 'more'.")
        @OptionGroup var common: Common
        @Argument(help: "A tab id, an index (0 is the first tab) or more.", completion: .custom { w, _, p in Completion.tabs(w, p, more: true) })
        var target: String
        func run() throws {
            if target == "more" { return try common.request([("cmd", "select"), ("more", .bool(true))]) }
            if let i = Int(target) { return try common.request([("cmd", "select"), ("index", .int(Int64(i)))]) }
            try common.request([("cmd", "select"), ("tab", .string(target))])
        }
    }

    struct Tap: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tap a tab as a user would (the policy plugins decide): a tab id or 'more'.")
        @OptionGroup var common: Common
        @Argument(help: "A tab id, or more for the More item.", completion: .custom { w, _, p in Completion.tabs(w, p, more: true) })
        var target: String
        func run() throws {
            if target == "more" { return try common.request([("cmd", "tap"), ("more", .bool(true))]) }
            try common.request([("cmd", "tap"), ("tab", .string(target))])
        }
    }

    struct Badge: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a tab's badge; omit the value to remove it.")
        @OptionGroup var common: Common
        @Argument(help: "The tab id.", completion: .custom { w, _, p in Completion.tabs(w, p, more: false) }) var tab: String
        @Argument(help: "The badge, a string (omitted: no badge).") var value: String?
        func run() throws {
            try common.request([("cmd", "badge"), ("tab", .string(tab)), ("value", value.map(JSONValue.string) ?? .null)])
        }
    }

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in through the login-gate plugin; the password is read from the terminal or stdin.",
            discussion: """
                On a terminal tabctl asks for the password and reads it without echo (from /dev/tty); \
                otherwise it reads one line from stdin: printf '%s\\n' "$PASSWORD" | tabctl login alice. \
                The password is never an argument: others could read it in ps or /proc.
                """)
        @OptionGroup var common: Common
        @Argument(help: "The user name.") var user: String
        @Argument(help: .hidden) var password: String?
        @Option(help: ArgumentHelp("The user tabd runs as, a name or a uid (default tabd): tabctl sends the password only to a server running as root, as that user, or as yourself.", valueName: "user"))
        var serverUser: String?

        func validate() throws {
            if password != nil {
                throw ValidationError("tabctl login takes no password argument (others could read it in ps); type it when asked, or give it on stdin")
            }
        }

        func run() throws {
            // Who listens is checked before the password is asked for, let alone sent.
            var conn = try common.connect()
            defer { Sys.close(conn.fd) }
            try common.requireTrustedServer(conn, serverUser: serverUser)
            let password: String
            do { password = try Password.read(prompt: "Password for \(user): ") } catch {
                FileHandle.standardError.write(Data("tabctl: \(error)\n".utf8))
                throw ExitCode(1)
            }
            var args = JSONObject([])
            args.set("user", .string(user))
            args.set("password", .string(password))
            try conn.send(common.line([("cmd", "plugin.call"), ("plugin", "login-gate"), ("method", "login"), ("args", .object(args))]))
            try Common.report(Common.reply(from: &conn))
        }
    }

    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log out through the login-gate plugin.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "plugin.call"), ("plugin", "login-gate"), ("method", "logout")]) }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe and print events as they come (all events when none are named).",
            discussion: """
                Without --controller, the events of every controller (and of those created later); \
                with it, that controller's only. Without --count, watch follows until tabd goes away: \
                it then says so and exits 3, as for a tabd it cannot reach, so that a script or a \
                supervisor notices.
                """)
        @OptionGroup var common: Common
        @Argument(help: "Event names, e.g. selection_changed did_select (default: every event).",
                  completion: .custom { words, _, prefix in Completion.events(words, prefix) })
        var events: [String] = []
        @Option(name: [.customShort("n"), .long], help: "Exit 0 after printing this many events (default: follow until tabd goes away, then exit 3).")
        var count: Int?
        func run() throws { try follow() }  // WatchEvents.swift
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-read the configuration and re-initialise plugins (admin only); waits for the answer.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "reload")]) }
    }

    struct Ping: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check that tabd answers: prints pong.")
        @OptionGroup var common: Common
        func run() throws {
            _ = try common.result(Watcher.request("ping"))
            print("pong")
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Counters and per-command latency.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "stats")]) }
    }

    struct Metrics: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print tabd's metrics: OpenMetrics 1.0.0, or with --format prometheus the Prometheus text format 0.0.4 (node_exporter's textfile collector).")
        @OptionGroup var common: Common
        @Option(help: ArgumentHelp("openmetrics (default) or prometheus.", valueName: "format"))
        var format: String = MetricsFormat.openmetrics.rawValue
        func validate() throws {
            guard MetricsFormat(rawValue: format) != nil else {
                throw ValidationError("--format must be \(MetricsFormat.allCases.map(\.rawValue).joined(separator: " or ")), not '\(format)'")
            }
        }
        func run() throws {
            // The default as `{"cmd":"metrics"}`, which every tabd answers.
            let request = format == MetricsFormat.openmetrics.rawValue ? #"{"cmd":"metrics"}"# : #"{"cmd":"metrics","format":"\#(format)"}"#
            let result = try common.result(request)
            guard let text = result.text("text") else {
                FileHandle.standardError.write(Data("tabctl: tabd's metrics result has no text: \(JSONValue.object(result).jsonString)\n".utf8))
                throw ExitCode(1)
            }
            FileHandle.standardOutput.write(Data(Output.lines(text).utf8))
        }
    }

    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Loaded (and refused) plugins.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "plugins")]) }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
