// `tabctl login`'s password: typed on the terminal without echo, or one line of stdin. Never
// an argument (others can read arguments in ps and /proc/PID/cmdline).

import Foundation
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

enum Password {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// From the terminal when stdin is one (prompt and answer on /dev/tty, echo off), else
    /// the first line of stdin (without its line end).
    static func read(prompt: String) throws -> String {
        if Sys.isTerminal(0) { return try fromTerminal(prompt: prompt) }
        guard let line = Swift.readLine(strippingNewline: true) else {
            throw Failure(description: "no password: stdin ended before a line")
        }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// The terminal's settings while echo is off, for the signal handler to put back.
    /// nonisolated(unsafe): written before the handler is installed and read by it alone (a
    /// lock is not async-signal-safe); tabctl has one thread.
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var ttyFD: Int32 = -1
    private static let stopSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP]

    private static func fromTerminal(prompt: String) throws -> String {
        let fd: Int32
        do { fd = try Sys.open("/dev/tty", O_RDWR | O_CLOEXEC) } catch {
            throw Failure(description: "no password: /dev/tty cannot be opened (\(error.reason)); give it on stdin")
        }
        defer { Sys.close(fd) }
        let original: termios
        do { original = try Sys.terminalAttributes(fd) } catch {
            throw Failure(description: "no password: the terminal's settings cannot be read (\(error.reason))")
        }
        write(fd, prompt)
        var quiet = original
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        quiet.c_lflag |= tcflag_t(ECHONL | ICANON)
        saved = original
        ttyFD = fd
        // Ctrl-C (or any stop) while echo is off must not leave the terminal silent.
        var previous: [Int32: sigaction] = [:]
        for s in stopSignals {
            var action = sigaction()
            // The handler makes the raw calls: in a signal handler only async-signal-safe C
            // calls may run (nothing that allocates or throws, as the wrappers may).
            action.__sigaction_handler.sa_handler = { signal in
                tcsetattr(Password.ttyFD, TCSAFLUSH, &Password.saved)
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            previous[s] = try? Sys.setSignalAction(s, action)
        }
        defer {
            try? Sys.setTerminalAttributes(fd, original)
            for (s, old) in previous { _ = try? Sys.setSignalAction(s, old) }
            ttyFD = -1
        }
        do { try Sys.setTerminalAttributes(fd, quiet) } catch {
            throw Failure(description: "no password: echo cannot be turned off (\(error.reason))")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = (try? withUnsafeMutableBytes(of: &byte) { buffer in try Sys.read(fd, into: buffer) }) ?? -1
            if n <= 0 {
                if bytes.isEmpty { throw Failure(description: "no password: the terminal ended before a line") }
                break
            }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = try? bytes.withUnsafeBytes { buffer in try Sys.write(fd, buffer) }
    }
}
