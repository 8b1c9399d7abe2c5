// tabctl's interactive mode, as redis-cli has one: `tabctl` with no command on a terminal,
// or `tabctl -i [-s socket] [-c controller] [--json]`. Each line is a tabctl command line
// (`select home`, `watch -n 1`), a raw JSON request (`{"cmd":"state"}`), `help` or `quit`.
// On a terminal the line is edited in place: arrows, Home/End (Ctrl-A/E), Ctrl-U, history
// (up/down; kept in $TABCTL_HISTORY, else ~/.tabctl_history, the last 1,000 lines) and Tab
// completion — commands, then what the command takes, asked of tabd as the shells'
// completions ask (tab ids, controllers, event names, command names).

import ArgumentParser
import Foundation
import Synchronization
import TabJSON
import TabProtocol
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

enum Interactive {
    static let flags: Set<String> = ["-i", "--interactive"]

    /// Whether this command line asks for the interactive mode.
    static func wanted(_ arguments: [String]) -> Bool {
        if arguments.contains(where: { flags.contains($0) }) { return true }
        // No command, only the options every command takes (tabctl -s PATH): on a terminal.
        guard Sys.isTerminal(0), Sys.isTerminal(1) else { return false }
        return arguments.isEmpty || (try? Common.parse(arguments)) != nil
    }

    static let words = ["help", "quit"]

    static func run(arguments: [String]) -> Never {
        let common = arguments.filter { !flags.contains($0) }
        // What may come with -i: the options every command takes, given to each line's command.
        let parsed: Common
        do { parsed = try Common.parse(common) } catch {
            FileHandle.standardError.write(Data("tabctl: -i takes only --socket, --controller and --json: \(Common.message(for: error)); \(Tabctl.usageHint)\n".utf8))
            exit(TabctlExit.usage.code)
        }
        let socket = parsed.socketPath
        let terminal = Sys.isTerminal(0)
        if terminal {
            let hello = Completion.ask(socket, #"{"cmd":"hello"}"#)
            let version = hello.flatMap { if case .string(let v)? = $0["version"] { return v } else { return nil } }
            print(version.map { "tabd \($0.oneLine) on \(socket)" } ?? "tabd does not answer on \(socket) yet")
            print("Type a tabctl command (select home, watch -n 1), a JSON request, help, or quit; Tab completes, arrows recall.")
        }
        if terminal { Interrupt.install() }
        var editor = LineEditor(prompt: terminal ? "\(socket)> " : "", history: History.load())
        while let line = terminal ? editor.read(complete: { complete($0, common: common) }) : Swift.readLine() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if terminal { editor.history.add(text) }
            if text == "quit" || text == "exit" { break }
            if text == "help" {
                print("Commands: " + Tabctl.configuration.subcommands.map { $0._commandName }.joined(separator: " "))
                print("help COMMAND for one; a line starting with { is sent as it is; quit or Ctrl-D ends.")
                print("Arguments of call: " + argumentRule)
                print("Ctrl-C stops watch and show --watch and comes back here.")
                continue
            }
            if text.hasPrefix("{") {
                do {
                    let reply = try parsed.exchange(text)
                    try Common.report(reply, oneLine: parsed.json)
                } catch {}
                continue
            }
            guard let words = split(text) else {
                FileHandle.standardError.write(Data("tabctl: unbalanced quote in that line\n".utf8))
                continue
            }
            let command = words.first == "help" ? ["help"] + words.dropFirst() : words + common
            _ = Tabctl.run(command)
        }
        if terminal { print("") }
        exit(0)
    }

    /// A line split into words as a shell would (single and double quotes, backslash); nil
    /// for an unbalanced quote.
    static func split(_ line: String) -> [String]? {
        var words: [String] = [], current = "", inWord = false
        var quote: Character?
        var escaped = false
        for c in line {
            if escaped { current.append(c); escaped = false; continue }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { current.append(c) }
                continue
            }
            switch c {
            case "'", "\"": quote = c; inWord = true
            case "\\": escaped = true; inWord = true
            case " ", "\t":
                if inWord { words.append(current); current = ""; inWord = false }
            default: current.append(c); inWord = true
            }
        }
        guard quote == nil else { return nil }
        if inWord { words.append(current) }
        return words
    }

    /// Candidates for the last word of `before` (the line up to the cursor).
    static func complete(_ before: String, common: [String]) -> [String] {
        var words = split(before) ?? before.split(separator: " ").map(String.init)
        let prefix = before.last == " " || before.isEmpty ? "" : (words.popLast() ?? "")
        let line = common + words
        if words.isEmpty {
            let names = Tabctl.configuration.subcommands.map { $0._commandName } + Self.words
            return Completion.matching(names, prefix)
        }
        if let last = words.last, ["-c", "--controller"].contains(last) { return Completion.controllers(line, prefix) }
        if prefix.hasPrefix("-") { return [] }
        let positional = words.dropFirst().filter { !$0.hasPrefix("-") }.count
        switch words[0] {
        case "select", "tap": return positional == 0 ? Completion.tabs(line, prefix, more: true) : []
        case "badge": return positional == 0 ? Completion.tabs(line, prefix, more: false) : []
        case "watch": return Completion.events(line, prefix)
        case "call": return positional == 0 ? Completion.commands(line, prefix) : []
        case "show": return positional == 0 ? Completion.controllers(line, prefix) : []
        case "help": return Completion.matching(Tabctl.configuration.subcommands.map { $0._commandName }, prefix)
        default: return []
        }
    }
}

/// Ctrl-C in the interactive mode: it stops the command that is running when that command
/// can stop (`watch`, `show --watch`: it registered how with `stopping`) and the prompt comes
/// back; during any other command it ends tabctl, as it does outside the interactive mode.
/// (While a line is edited the terminal is raw: Ctrl-C is a key there, not a signal.)
enum Interrupt {
    /// The write end of the pipe the SIGINT handler writes a byte to: in a handler only
    /// async-signal-safe calls may run, so a thread of its own reads the pipe and acts.
    /// nonisolated(unsafe): written once, before the handler is installed.
    nonisolated(unsafe) private static var pipeWrite: Int32 = -1
    /// Whether Ctrl-C comes back to the prompt (the interactive mode on a terminal).
    static var installed: Bool { pipeWrite >= 0 }
    private static let stop = Mutex<(@Sendable () -> Void)?>(nil)

    static func install() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        pipeWrite = fds[1]
        let readEnd = fds[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while Glibc.read(readEnd, &byte, 1) == 1 {
                if let stop = Interrupt.stop.withLock({ $0 }) {
                    stop()
                } else {
                    signal(SIGINT, SIG_DFL)
                    raise(SIGINT)
                }
            }
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 3
            _ = Glibc.write(Interrupt.pipeWrite, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        _ = try? Sys.setSignalAction(SIGINT, action)
        // Whatever mask tabctl was started with (a test runner's may block it), as show --watch.
        try? Sys.unblockSignals([SIGINT])
    }

    /// Runs `body` (a wait for a command's task) with Ctrl-C calling `stop` instead of ending
    /// tabctl — in the interactive mode; elsewhere SIGINT ends tabctl as it always does.
    static func stopping<R>(with stop: @escaping @Sendable () -> Void, _ body: () throws -> R) rethrows -> R {
        self.stop.withLock { $0 = stop }
        defer { self.stop.withLock { $0 = nil } }
        if installed { FileHandle.standardError.write(Data("tabctl: Ctrl-C stops this and comes back to the prompt\n".utf8)) }
        return try body()
    }
}

/// The lines typed before, oldest first.
struct History {
    static let limit = 1000
    var lines: [String]
    let path: String?

    static var file: String? {
        let env = ProcessInfo.processInfo.environment
        if let p = env["TABCTL_HISTORY"], !p.isEmpty { return p }
        guard let home = env["HOME"], !home.isEmpty else { return nil }
        return home + "/.tabctl_history"
    }

    static func load() -> History {
        let path = file
        let text = path.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        return History(lines: text.split(separator: "\n").map(String.init).suffix(limit), path: path)
    }

    /// Adds a line (not one the same as the last) and writes the file (mode 0600: a line
    /// may hold what others should not read).
    mutating func add(_ line: String) {
        guard lines.last != line else { return }
        lines.append(line)
        if lines.count > Self.limit { lines.removeFirst(lines.count - Self.limit) }
        guard let path else { return }
        guard let fd = try? Sys.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o600) else { return }
        defer { Sys.close(fd) }
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        _ = try? text.withUnsafeBytes { bytes in try Sys.pwriteAll(fd, bytes, at: 0) }
    }
}

/// One line read from a terminal in raw mode, edited in place.
struct LineEditor {
    let prompt: String
    var history: History

    private static func out(_ s: String) { FileHandle.standardOutput.write(Data(s.utf8)) }

    private static func byte() -> UInt8? {
        var b: UInt8 = 0
        let n = try? withUnsafeMutableBytes(of: &b) { buffer in try Sys.read(0, into: buffer) }
        return n == 1 ? b : nil
    }

    /// The next line, or nil at Ctrl-D on an empty line (or the end of input).
    mutating func read(complete: (String) -> [String]) -> String? {
        let saved = (try? Sys.terminalAttributes(0)) ?? termios()
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        try? Sys.setTerminalAttributes(0, raw)
        defer { try? Sys.setTerminalAttributes(0, saved) }
        var line: [Character] = [], cursor = 0
        var recalled = history.lines.count  // history.lines.count: the line being typed
        var typed: [Character] = []
        func redraw() {
            var s = "\r\u{1B}[K" + prompt + String(line)
            if cursor < line.count { s += "\u{1B}[\(line.count - cursor)D" }
            Self.out(s)
        }
        redraw()
        while let b = Self.byte() {
            switch b {
            case 13, 10:
                Self.out("\r\n")
                return String(line)
            case 4:  // Ctrl-D
                if line.isEmpty { Self.out("\r\n"); return nil }
            case 3:  // Ctrl-C: a new line, as a shell does
                Self.out("^C\r\n")
                line = []; cursor = 0
                recalled = history.lines.count
            case 1: cursor = 0
            case 5: cursor = line.count
            case 21: line.removeFirst(cursor); cursor = 0
            case 127, 8:
                if cursor > 0 { line.remove(at: cursor - 1); cursor -= 1 }
            case 9:
                let before = String(line[..<cursor])
                let candidates = complete(before)
                let word = before.last == " " ? "" : String(before.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
                if candidates.count == 1 {
                    let rest = Array(candidates[0].dropFirst(word.count)) + [" "]
                    line.insert(contentsOf: rest, at: cursor); cursor += rest.count
                } else if candidates.count > 1 {
                    let common = candidates.dropFirst().reduce(candidates[0]) { String($0.commonPrefix(with: $1)) }
                    if common.count > word.count {
                        let rest = Array(common.dropFirst(word.count))
                        line.insert(contentsOf: rest, at: cursor); cursor += rest.count
                    } else {
                        Self.out("\r\n" + candidates.joined(separator: "  ") + "\r\n")
                    }
                }
            case 27:
                guard Self.byte() == UInt8(ascii: "["), let key = Self.byte() else { break }
                switch key {
                case UInt8(ascii: "A"), UInt8(ascii: "B"):
                    if recalled == history.lines.count { typed = line }
                    recalled = key == UInt8(ascii: "A") ? max(0, recalled - 1) : min(history.lines.count, recalled + 1)
                    line = recalled == history.lines.count ? typed : Array(history.lines[recalled])
                    cursor = line.count
                case UInt8(ascii: "C"): cursor = min(line.count, cursor + 1)
                case UInt8(ascii: "D"): cursor = max(0, cursor - 1)
                case UInt8(ascii: "H"): cursor = 0
                case UInt8(ascii: "F"): cursor = line.count
                case UInt8(ascii: "3"):  // Delete: ESC [ 3 ~
                    _ = Self.byte()
                    if cursor < line.count { line.remove(at: cursor) }
                default: break
                }
            default:
                guard b >= 32 else { break }
                var bytes = [b]
                let more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0
                for _ in 0..<more { if let c = Self.byte() { bytes.append(c) } }
                let text = String(decoding: bytes, as: UTF8.self)
                line.insert(contentsOf: Array(text), at: cursor)
                cursor += text.count
            }
            redraw()
        }
        return line.isEmpty ? nil : String(line)
    }
}
