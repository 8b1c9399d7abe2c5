// Test support for the transport: a server on a private socket with its loop on a
// background thread, an echo delegate, a blocking client, subprocess helpers.

import Foundation
import Glibc
import Logging
import TestLogging
import TabSystem
import Testing
@testable import TabTransport

/// All transport tests, one at a time: several count descriptors or memory of the process,
/// or fork, which other tests running at the same time would disturb.
@Suite(.serialized) enum TransportTests {}

/// A short private socket path (sun_path holds 107 bytes).
func temporarySocketPath(_ tag: String = "s") -> String {
    "/tmp/tabd-t\(getpid())-\(tag)-\(UInt32.random(in: 0...UInt32.max)).sock"
}


/// Echoes every line as "echo:<line>\n" unless `reply` says otherwise; records what happened.
/// Runs on the loop thread: read its records through `TestServer.sync`.
final class EchoDelegate: LineServiceDelegate {
    var opened: [Connection] = []
    var lines: [String] = []
    var closed: [UInt64: CloseReason] = [:]
    var commits = 0
    var tooLong = 0
    var refusals: [InputRefusal] = []
    var onCommit: () -> Void = {}
    var reply: (Connection, String) -> Void = { c, line in c.send(Array("echo:\(line)\n".utf8)) }

    func connectionDidOpen(_ connection: Connection) { opened.append(connection) }

    func connection(_ connection: Connection, didReceive line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        lines.append(text)
        reply(connection, text)
    }

    func connection(_ connection: Connection, refused reason: InputRefusal) {
        refusals.append(reason)
        if reason == .lineTooLong { tooLong += 1 }
        connection.send(Array("error:\(reason)\n".utf8))
    }

    func connectionDidClose(_ connection: Connection, reason: CloseReason) {
        closed[connection.id] = reason
    }

    func commitTurn() -> Bool {
        commits += 1
        onCommit()
        return true
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out: \(what)" }
}

/// A LineServer on a private socket, its loop running on a background thread.
final class TestServer {
    let loop: EventLoop
    let server: LineServer
    let delegate: EchoDelegate
    let path: String
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false
    /// The loop's thread: the last reference to a TestServer may go away there (in a closure
    /// sent with `sync`), and that thread must not wait for itself.
    private let loopThread = LoopThread()

    init(limits: TransportLimits = TransportLimits(), delegate: EchoDelegate = EchoDelegate(),
         logger: Logger = Logger(label: "tabd.transport.test", factory: { _ in SwiftLogNoOpLogHandler() }),
         configure: (LineServer) -> Void = { _ in }) throws {
        path = temporarySocketPath()
        loop = try EventLoop()
        let listener = try ListeningSocket.bind(path: path)
        self.delegate = delegate
        server = LineServer(loop: loop, listener: listener, limits: limits, delegate: delegate, logger: logger)
        configure(server)
        server.start()
        let loop = self.loop
        let finished = self.finished
        let loopThread = self.loopThread
        let thread = Thread {
            loopThread.set(pthread_self())
            do { try loop.run() } catch { Issue.record("loop.run threw \(error)") }
            finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// Runs `body` on the loop thread and returns its result.
    func sync<T>(_ body: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        var result: T?
        loop.door.async {
            result = body()
            done.signal()
        }
        done.wait()
        return result!
    }

    /// Holds the loop thread for `seconds`, returning once it is held: what clients write
    /// next is all readable in the loop's next turn (a fixed sleep after sending the hold
    /// left the loop free to read a first line before the hold began).
    func holdLoop(seconds: Double) {
        let held = DispatchSemaphore(value: 0)
        loop.door.async {
            held.signal()
            usleep(useconds_t(seconds * 1_000_000))
        }
        held.wait()
    }

    /// Waits (polling the loop) until `condition` holds on the loop thread.
    func wait(_ what: String, timeout: Double = 60, _ condition: @escaping () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !sync(condition) {
            if Date() > deadline { throw TestTimeout(what: what) }
            usleep(2_000)
        }
    }

    /// Shuts the server down gracefully and waits for the loop to end.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if loopThread.isCurrent {
            server.beginShutdown { [loop] in loop.stop() }
            unlink(path)
            return
        }
        loop.door.async { [server, loop] in server.beginShutdown { loop.stop() } }
        if finished.wait(timeout: .now() + 60) == .timedOut {
            Issue.record("the loop did not stop within 60 s")
        }
        unlink(path)
    }
}

final class LoopThread: @unchecked Sendable {
    private let lock = NSLock()
    private var thread: pthread_t?
    func set(_ t: pthread_t) { lock.withLock { thread = t } }
    var isCurrent: Bool { lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
}

/// A blocking client socket with a line reader.
final class Client {
    /// -1 once closed: never close a descriptor twice (another test may own the number by then).
    private(set) var fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = try Sys.unixSocket()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)  // a blocking client
        let address = UnixAddress(path)!
        let r = address.withSockaddr { connect(fd, $0, $1) }
        guard r == 0 else {
            let e = errno
            Glibc.close(fd)
            fd = -1
            throw SystemError("connect(\(path))", errno: e)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Writes everything; false if the server closed (EPIPE, ECONNRESET).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    private func fill(timeout: Double) -> Int {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, Int32(timeout * 1000))
        guard ready > 0 else { return -2 }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n > 0 { buffer.append(contentsOf: chunk[..<n]) }
        return n
    }

    /// Reads `count` bytes as fast as the socket gives them (a big reply), or fewer at end
    /// of file, error or timeout. Lines read before stay buffered ahead of them.
    func read(count: Int, timeout: Double = 60) -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var out = buffer.prefix(count).map { $0 }
        buffer.removeFirst(out.count)
        out.reserveCapacity(count)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while out.count < count {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard deadline.timeIntervalSinceNow > 0, poll(&p, 1, Int32(deadline.timeIntervalSinceNow * 1000)) > 0 else { break }
            let n = recv(fd, &chunk, min(chunk.count, count - out.count), 0)
            guard n > 0 else { break }
            out.append(contentsOf: chunk[..<n])
        }
        return out
    }

    /// The next line (without "\n"), or nil at end of file, error or timeout.
    func readLine(timeout: Double = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, fill(timeout: left) > 0 else { return nil }
        }
    }

    /// What arrives until the server closes: the lines and whether it ended with end of file
    /// (false: an error such as ECONNRESET, or the timeout).
    func readUntilClosed(timeout: Double = 60) -> (lines: [String], eof: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var eof = false
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            let n = fill(timeout: left)
            if n == 0 { eof = true; break }
            if n < 0 { break }
        }
        var lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        buffer.removeAll()
        return (lines, eof)
    }

    /// Bytes waiting in the socket right now (MSG_PEEK | MSG_DONTWAIT), without reading them.
    static func bytesWaiting(_ fd: Int32) -> Int {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return max(n, 0)
    }
}

/// Descriptors open in this process that are the server side of `path`: its listening
/// socket and the connections it accepted (Linux gives an accepted Unix socket its listener's
/// name; a client's socket has none). Not every descriptor of the process: the other suites,
/// running meanwhile in it, open and close theirs. Each descriptor's own name is asked
/// (getsockname): /proc/net/unix, read while other suites open and close thousands of sockets,
/// skipped entries now and then (a read of it is not a snapshot), and the count came out 0.
func serverDescriptorCount(path: String) -> Int {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.compactMap { Int32($0) }.filter { fd in
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard named, address.sun_family == sa_family_t(AF_UNIX),
              Int(length) > MemoryLayout<sa_family_t>.size else { return false }
        let name = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix(Int(length) - MemoryLayout<sa_family_t>.size).prefix { $0 != 0 }, as: UTF8.self)
        }
        return name == path
    }.count
}

/// Resident memory of this process in bytes.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Runs `body` in a forked child and returns its exit status (or -1 after `timeout` seconds,
/// the child then killed), with what `parent` returned (it runs meanwhile in this process).
/// The child only does what `body` does and exits.
func runInChild(timeout: Double = 60, _ body: () -> Int32, parent: () -> Bool = { true }) -> (status: Int32, parent: Bool) {
    let pid = fork()
    if pid == 0 {
        _exit(body())
    }
    precondition(pid > 0, "fork failed")
    let parentResult = parent()
    let deadline = Date().addingTimeInterval(timeout)
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date() > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return (-1, parentResult)
        }
        usleep(5_000)
    }
    // WIFEXITED / WEXITSTATUS are macros.
    return (status & 0x7f == 0 ? (status >> 8) & 0xff : -2, parentResult)
}

/// Runs a shell command (killed after `timeout` seconds) and returns its standard output.
func shell(_ command: String, timeout: Int = 10) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["\(timeout)", "/bin/sh", "-c", command]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
