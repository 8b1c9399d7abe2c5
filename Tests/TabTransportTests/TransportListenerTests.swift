// The listening socket: self-bind (stale files, live servers, mode, group, path length) and
// accepting (descriptor exhaustion backs off, the connection limit pauses accepting).

import Foundation
import Glibc
import Logging
import TestLogging
import TabSystem
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Listening {
        /// A socket file left by a dead process is replaced, and the new socket serves.
        @Test func staleSocketFileIsReplaced() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            // Bind and close without unlinking: what a crashed server leaves behind.
            let stale = try Sys.unixSocket()
            _ = UnixAddress(path)!.withSockaddr { bind(stale, $0, $1) }
            close(stale)
            var st = stat()
            #expect(lstat(path, &st) == 0)

            let listener = try ListeningSocket.bind(path: path)
            defer { close(listener.fd) }
            let client = try Client(path: path)
            _ = client
            var pending = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&pending, 1, 2000) == 1)
        }

        /// When another server listens on the path, bind throws addressInUse with a clear
        /// message, and leaves the other server's socket alone.
        @Test func liveSocketIsNotStolen() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            let first = try ListeningSocket.bind(path: path)
            defer { close(first.fd) }
            let error = #expect(throws: SocketError.addressInUse) { try ListeningSocket.bind(path: path) }
            #expect(error?.description.contains("another process is listening on '\(path)'") == true)
            _ = try Client(path: path)  // the first server's socket still works
        }

        /// The socket is created with mode 0660 (default) or the mode asked, and the group asked.
        @Test func socketModeAndGroup() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            let listener = try ListeningSocket.bind(path: path)
            var st = stat()
            #expect(stat(path, &st) == 0)
            #expect(st.st_mode & S_IFMT == S_IFSOCK)
            #expect(st.st_mode & 0o7777 == 0o660)
            #expect(!listener.activated)
            #expect(fcntl(listener.fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(listener.fd, F_GETFD) & FD_CLOEXEC != 0)
            close(listener.fd)
            unlink(path)

            let custom = try ListeningSocket.bind(path: path, mode: 0o600, group: getgid())
            defer { close(custom.fd) }
            #expect(stat(path, &st) == 0)
            #expect(st.st_mode & 0o7777 == 0o600)
            #expect(st.st_gid == getgid())
        }

        /// A path longer than sun_path is refused with a message saying so.
        @Test func pathTooLongIsRefused() throws {
            let path = "/tmp/" + String(repeating: "x", count: 110)
            let error = #expect(throws: SocketError.pathTooLong) { try ListeningSocket.bind(path: path) }
            #expect(error?.description.contains("shorter than 108 bytes") == true)
        }

        /// A file that is not a socket is never removed; a missing directory is named.
        @Test func otherFilesAndMissingDirectories() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
            #expect(throws: SocketError.notASocket) { try ListeningSocket.bind(path: path) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")

            let error = #expect(throws: SocketError.directoryMissing) {
                try ListeningSocket.bind(path: "/tmp/tabd-no-such-dir-\(getpid())/tabd.sock")
            }
            #expect(error?.description.contains("does not exist") == true)
        }

        /// removeSocketFile removes our socket, but not a socket that replaced it.
        @Test func removeSocketFileOnlyRemovesOurs() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            let ours = try ListeningSocket.bind(path: path)
            close(ours.fd)
            ours.removeSocketFile()
            #expect(access(path, F_OK) != 0)

            let old = try ListeningSocket.bind(path: path)
            close(old.fd)
            unlink(path)
            usleep(50_000)  // another tabd starting later (file times are coarse)
            let newer = try ListeningSocket.bind(path: path)
            defer { close(newer.fd) }
            old.removeSocketFile()
            #expect(access(path, F_OK) == 0)
        }

        /// accept failing with EMFILE: the acceptor stops listening for `acceptBackoff`
        /// (no spinning), logs once for the whole episode, then accepts again.
        @Test func outOfDescriptorsBacksOffAndLogsOnce() throws {
            let log = LogRecorder()
            var calls = 0
            let failures = 4
            let server = try TestServer(limits: TransportLimits(acceptBackoff: 0.05), logger: log.logger) { server in
                server.acceptor.acceptCall = { fd throws(SystemError) in
                    calls += 1
                    if calls <= failures { throw SystemError("accept4", errno: EMFILE) }
                    return try Sys.accept(fd)
                }
            }
            let started = Date()
            let client = try Client(path: server.path)
            client.write("hello\n")
            #expect(client.readLine() == "echo:hello")
            #expect(Date().timeIntervalSince(started) >= 0.05 * Double(failures) * 0.9)
            // The failures, the success, then EAGAIN (nothing more to accept): no spinning.
            #expect(server.sync { calls } == failures + 2)
            #expect(server.sync { server.server.acceptor.backoffEpisodes } == 1)
            let warnings = log.messages.filter { $0.0 == .warning && $0.1.contains("out of file descriptors") }
            #expect(warnings.count == 1)
            #expect(log.messages.contains { $0.1.contains("accepting connections again") })
        }

        /// With RLIMIT_NOFILE really exhausted (in a child process), the server backs off
        /// instead of spinning or dying, and serves every client once descriptors free up.
        @Test func realDescriptorExhaustionInChild() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            let listener = try ListeningSocket.bind(path: path)
            defer { close(listener.fd) }
            let clients = 6
            let (status, parentOK) = runInChild {
                // Only what the server needs: stdio, the listener (every other descriptor, up to
                // the limit: another suite's sockets held here would keep its connections open).
                for fd in 3..<Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))) where fd != listener.fd { close(fd) }
                guard let loop = try? EventLoop() else { return 10 }
                let delegate = EchoDelegate()
                let server = LineServer(loop: loop, listener: listener,
                                        limits: TransportLimits(acceptBackoff: 0.05), delegate: delegate,
                                        logger: Logger(label: "child", factory: { _ in SwiftLogNoOpLogHandler() }))
                // Room for two connections: the lowest free descriptor, and one more.
                let probe = dup(0)
                close(probe)
                var limit = rlimit(rlim_cur: rlim_t(probe + 2), rlim_max: rlim_t(20000))
                guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 11 }
                var closedCount = 0
                server.start()
                loop.addTimer(every: 0.01) {
                    closedCount = delegate.closed.count
                    if closedCount == clients { loop.stop() }
                }
                loop.after(55) { loop.stop() }  // give up: under runInChild's 60 s
                do { try loop.run() } catch { return 12 }
                var usage = rusage()
                getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
                let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                if closedCount != clients { return 13 }
                if server.acceptor.backoffEpisodes < 1 { return 14 }
                if cpu > 0.25 { return 15 }  // spinning would burn the half second clients wait
                return 0
            } parent: {
                var connected: [Client] = []
                for i in 0..<clients {
                    guard let c = try? Client(path: path) else { return false }
                    c.write("client \(i)\n")
                    connected.append(c)
                }
                for (i, c) in connected.enumerated() {
                    guard c.readLine() == "echo:client \(i)" else { return false }
                    // Keep the first connections (and so the child out of descriptors) a while.
                    if i == 0 { usleep(500_000) }
                    c.shutdownWrite()
                    _ = c.readUntilClosed()
                }
                return true
            }
            #expect(parentOK)
            #expect(status == 0)
        }

        /// At maxConnections the server stops accepting; when one closes, the next is served.
        @Test func connectionLimitPausesAccepting() throws {
            let server = try TestServer(limits: TransportLimits(maxConnections: 2))
            let a = try Client(path: server.path)
            let b = try Client(path: server.path)
            try server.wait("two connections") { server.server.connectionCount == 2 }
            let c = try Client(path: server.path)  // queued in the backlog
            c.write("third\n")
            #expect(c.readLine(timeout: 0.3) == nil)
            #expect(server.sync { server.server.connectionCount } == 2)
            a.shutdownWrite()
            #expect(c.readLine() == "echo:third")
            _ = b
        }
    }
}
