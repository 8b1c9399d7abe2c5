// tabctl: talk to tabd from a shell. Prints the result JSON; errors go to stderr.
// Exit codes: 0 ok, 1 tabd answered with an error, 3 tabd could not be reached,
// 64 usage error (swift-argument-parser's).

import ArgumentParser
import Foundation
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

struct Connection {
    let fd: Int32
    var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.unreachable("socket(): \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw Failure.unreachable("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure.unreachable("cannot connect to \(path): \(reason) (is tabd running? set --socket or TABD_SOCKET)")
        }
    }

    func send(_ line: String) throws {
        var bytes = Array(line.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; throw Failure.unreachable("write failed: \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    /// The next line from tabd, or nil at end of stream.
    mutating func readLine() throws -> String? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { if errno == EINTR { continue }; throw Failure.unreachable("read failed: \(String(cString: strerror(errno)))") }
            if n == 0 { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

enum Failure: Error, CustomStringConvertible {
    case unreachable(String)
    var description: String {
        switch self { case .unreachable(let s): return s }
    }
}

struct Common: ParsableArguments {
    @Option(name: .shortAndLong, help: "tabd's socket (default: $TABD_SOCKET, else ./run/tabd.sock if it exists, else /run/tabd/tabd.sock).")
    var socket: String?

    @Option(name: .shortAndLong, help: "The controller to address (default main).")
    var controller: String?

    var socketPath: String {
        if let socket { return socket }
        if let env = ProcessInfo.processInfo.environment["TABD_SOCKET"], !env.isEmpty { return env }
        if FileManager.default.fileExists(atPath: "run/tabd.sock") { return "run/tabd.sock" }
        return "/run/tabd/tabd.sock"
    }

    /// Sends one request object and prints the result; exit 1 on an error reply.
    func request(_ fields: [(String, JSONValue)]) throws {
        var object = JSONObject(fields)
        if let controller, object["controller"] == nil { object.set("controller", .string(controller)) }
        var w = JSONWriter()
        w.write(.object(object))
        try roundTrip(String(decoding: w.bytes, as: UTF8.self))
    }

    func roundTrip(_ line: String) throws {
        try Common.report(exchange(line))
    }

    /// A connection to tabd; exit 3 when it cannot be reached.
    func connect() throws -> Connection {
        do { return try Connection(path: socketPath) } catch {
            FileHandle.standardError.write(Data("tabctl: \(error)\n".utf8))
            throw ExitCode(3)
        }
    }

    /// Sends one request line on a new connection and returns the reply line.
    func exchange(_ line: String) throws -> String {
        var conn = try connect()
        defer { close(conn.fd) }
        try conn.send(line)
        guard let reply = try conn.readLine() else {
            FileHandle.standardError.write(Data("tabctl: tabd closed the connection without answering\n".utf8))
            throw ExitCode(3)
        }
        return reply
    }

    /// Prints a reply's result (stdout) or error (stderr, exit 1).
    static func report(_ reply: String) throws {
        guard case .object(let o)? = try? JSONParser.parse(reply) else {
            print(reply)
            return
        }
        if case .bool(true)? = o["ok"] {
            print((o["result"] ?? .object(JSONObject([]))).jsonString)
            return
        }
        if case .object(let e)? = o["error"] {
            var text = "tabctl: \(e["code"].map(stringValue) ?? "error"): \(e["message"].map(stringValue) ?? reply)"
            for (k, v) in e where k != "code" && k != "message" { text += "\n  \(k): \(stringValue(v))" }
            FileHandle.standardError.write(Data((text + "\n").utf8))
            throw ExitCode(1)
        }
        print(reply)
    }

    static func stringValue(_ v: JSONValue) -> String {
        if case .string(let s) = v { return s }
        return v.jsonString
    }
}

/// `key=value` → a field; the value is JSON when it parses as JSON, else a string.
func field(_ pair: String) throws -> (String, JSONValue) {
    guard let eq = pair.firstIndex(of: "=") else { throw ValidationError("expected key=value, got '\(pair)'") }
    let key = String(pair[..<eq])
    let raw = String(pair[pair.index(after: eq)...])
    return (key, (try? JSONParser.parse(raw)) ?? .string(raw))
}

@main
struct Tabctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabctl",
        abstract: "Send commands to tabd and print what it answers.",
        discussion: "Exit codes: 0 ok, 1 tabd answered with an error, 3 tabd could not be reached, 64 usage error.",
        subcommands: [Call.self, Send.self, State.self, Show.self, Select.self, Tap.self, Badge.self, Login.self, Logout.self,
                      Watch.self, Reload.self, Ping.self, Stats.self, Plugins.self]
    )

    struct Call: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send any command with key=value arguments (values are JSON when they parse, else strings).",
            discussion: "Example: tabctl call set_tabs 'tabs=[{\"id\":\"home\"},{\"id\":\"login\"}]'")
        @OptionGroup var common: Common
        @Argument(help: "The command name, e.g. state, add_tab, badge.") var cmd: String
        @Argument(help: "Arguments as key=value.") var arguments: [String] = []
        func run() throws { try common.request([("cmd", .string(cmd))] + arguments.map(field)) }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send raw JSON request lines (arguments, or stdin when none) and print the raw replies.")
        @OptionGroup var common: Common
        @Argument(help: "Request lines; read from stdin when omitted.") var lines: [String] = []
        func run() throws {
            var conn = try common.connect()
            defer { close(conn.fd) }
            var requests = lines
            if requests.isEmpty { while let l = Swift.readLine() { if !l.isEmpty { requests.append(l) } } }
            for r in requests { try conn.send(r) }
            var failed = false
            for _ in requests {
                guard let reply = try conn.readLine() else { throw ExitCode(3) }
                print(reply)
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
        @Argument var target: String
        func run() throws {
            if target == "more" { return try common.request([("cmd", "select"), ("more", .bool(true))]) }
            if let i = Int(target) { return try common.request([("cmd", "select"), ("index", .int(Int64(i)))]) }
            try common.request([("cmd", "select"), ("tab", .string(target))])
        }
    }

    struct Tap: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tap a tab as a user would (the policy plugins decide): a tab id or 'more'.")
        @OptionGroup var common: Common
        @Argument var target: String
        func run() throws {
            if target == "more" { return try common.request([("cmd", "tap"), ("more", .bool(true))]) }
            try common.request([("cmd", "tap"), ("tab", .string(target))])
        }
    }

    struct Badge: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a tab's badge; omit the value to remove it.")
        @OptionGroup var common: Common
        @Argument var tab: String
        @Argument var value: String?
        func run() throws {
            try common.request([("cmd", "badge"), ("tab", .string(tab)), ("value", value.map(JSONValue.string) ?? .null)])
        }
    }

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log in through the login-gate plugin.")
        @OptionGroup var common: Common
        @Argument var user: String
        @Argument var password: String
        func run() throws {
            var args = JSONObject([])
            args.set("user", .string(user))
            args.set("password", .string(password))
            try common.request([("cmd", "plugin.call"), ("plugin", "login-gate"), ("method", "login"), ("args", .object(args))])
        }
    }

    struct Logout: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log out through the login-gate plugin.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "plugin.call"), ("plugin", "login-gate"), ("method", "logout")]) }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Subscribe and print events as they come (all events when none are named).")
        @OptionGroup var common: Common
        @Argument(help: "Event names, e.g. selection_changed did_select.") var events: [String] = []
        @Option(name: [.customShort("n"), .long], help: "Exit 0 after printing this many events (default: follow until tabd closes).")
        var count: Int?
        func run() throws {
            var conn = try common.connect()
            defer { close(conn.fd) }
            var fields: [(String, JSONValue)] = [("cmd", "subscribe"), ("events", .array((events.isEmpty ? ["*"] : events).map(JSONValue.string)))]
            if let c = common.controller { fields.append(("controllers", .array([.string(c)]))) }
            var w = JSONWriter()
            w.write(.object(JSONObject(fields)))
            try conn.send(String(decoding: w.bytes, as: UTF8.self))
            guard let first = try conn.readLine() else { throw ExitCode(3) }
            if first.contains("\"ok\":false") { try Common.report(first) }
            setvbuf(stdout, nil, _IOLBF, 0)
            var printed = 0
            while count.map({ printed < $0 }) ?? true, let line = try conn.readLine() {
                print(line)
                printed += 1
            }
            if let count, printed < count {
                FileHandle.standardError.write(Data("tabctl: tabd closed the connection after \(printed) of \(count) events\n".utf8))
                throw ExitCode(3)
            }
        }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-read the configuration and re-initialise plugins (admin only); waits for the answer.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "reload")]) }
    }

    struct Ping: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check that tabd answers.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "ping")]) }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Counters and per-command latency.")
        @OptionGroup var common: Common
        func run() throws { try common.request([("cmd", "stats")]) }
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
