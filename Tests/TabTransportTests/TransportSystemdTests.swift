// systemd: sd_notify datagrams (path and abstract namespace), the watchdog interval, and
// socket activation (a listening socket passed as descriptor 3).

import Foundation
import Glibc
import Logging
import TabSystem
import Testing
@testable import TabSystemd
@testable import TabTransport

extension TransportTests {
    @Suite struct Systemd {
        /// A datagram socket bound at `address` ("/path" or "@abstract"), to play systemd.
        private func notifySocket(_ address: String) throws -> Int32 {
            let fd = try Sys.unixSocket(datagram: true)
            let bound = UnixAddress(address)!.withSockaddr { bind(fd, $0, $1) }
            guard bound == 0 else { throw SystemError("bind(\(address))", errno: errno) }
            return fd
        }

        private func receive(_ fd: Int32) -> String? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 2000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
        }

        /// notify sends "READY=1" (and more) to NOTIFY_SOCKET given as a path.
        @Test func notifiesAPathSocket() throws {
            let path = temporarySocketPath("n")
            defer { unlink(path) }
            let fd = try notifySocket(path)
            defer { close(fd) }
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
            #expect(notifier.isEnabled)
            #expect(notifier.notify("READY=1\nSTATUS=serving") == nil)
            #expect(receive(fd) == "READY=1\nSTATUS=serving")
        }

        /// notify reaches an abstract-namespace socket ("@name").
        @Test func notifiesAnAbstractSocket() throws {
            let name = "@tabd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = try notifySocket(name)
            defer { close(fd) }
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": name])
            #expect(notifier.notify("READY=1") == nil)
            #expect(receive(fd) == "READY=1")
        }

        /// Without NOTIFY_SOCKET, notify does nothing (and does not fail).
        @Test func withoutNotifySocketNothingHappens() {
            let notifier = SystemdNotifier(environment: [:])
            #expect(!notifier.isEnabled)
            #expect(notifier.notify("READY=1") == nil)
            #expect(notifier.watchdogInterval == nil)
        }

        /// The watchdog is pinged at half of WATCHDOG_USEC, and only by the process it watches.
        @Test func watchdogInterval() {
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000"]).watchdogInterval == 1.5)
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid())"]).watchdogInterval == 1.5)
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(getpid() + 1)"]).watchdogInterval == nil)
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
        }

        /// Without LISTEN_FDS there is no activated socket.
        @Test func noSocketWithoutListenFDs() throws {
            #expect(getenv("LISTEN_FDS") == nil)
            #expect(try ListeningSocket.fromSystemd() == nil)
        }

        /// A listening socket passed as descriptor 3 (in a child process, as systemd would) is
        /// adopted: checked, made non-blocking and close-on-exec, the variables unset; and it serves.
        @Test func adoptsSocketPassedAsDescriptor3() throws {
            let path = temporarySocketPath("a")
            defer { unlink(path) }
            let listener = try ListeningSocket.bind(path: path)
            defer { close(listener.fd) }
            let (status, parentOK) = runInChild {
                guard dup2(listener.fd, 3) == 3 else { return 10 }
                if listener.fd != 3 { close(listener.fd) }
                _ = fcntl(3, F_SETFL, fcntl(3, F_GETFL) & ~O_NONBLOCK)  // as systemd passes it
                _ = fcntl(3, F_SETFD, 0)
                setenv("LISTEN_PID", "\(getpid())", 1)
                setenv("LISTEN_FDS", "1", 1)
                setenv("LISTEN_FDNAMES", "tabd.socket", 1)
                guard let activated = try? ListeningSocket.fromSystemd() else { return 11 }
                guard activated.fd == 3, activated.activated, activated.path == path else { return 12 }
                guard fcntl(3, F_GETFL) & O_NONBLOCK != 0, fcntl(3, F_GETFD) & FD_CLOEXEC != 0 else { return 13 }
                guard getenv("LISTEN_PID") == nil, getenv("LISTEN_FDS") == nil, getenv("LISTEN_FDNAMES") == nil else { return 14 }
                guard let loop = try? EventLoop() else { return 15 }
                let delegate = EchoDelegate()
                let server = LineServer(loop: loop, listener: activated, delegate: delegate,
                                        logger: Logger(label: "child", factory: { _ in SwiftLogNoOpLogHandler() }))
                server.start()
                loop.addTimer(every: 0.01) { if delegate.closed.count == 1 { loop.stop() } }
                loop.after(10) { loop.stop() }
                guard (try? loop.run()) != nil else { return 16 }
                return delegate.lines == ["through systemd"] ? 0 : 17
            } parent: {
                guard let client = try? Client(path: path) else { return false }
                client.write("through systemd")
                client.shutdownWrite()
                return client.readUntilClosed().lines == ["echo:through systemd"]
            }
            #expect(parentOK)
            #expect(status == 0)
        }

        /// LISTEN_PID of another process: the sockets are not ours (nil), the variables are
        /// unset; something that is not a socket as descriptor 3 is refused with a clear error.
        @Test func refusesForeignOrInvalidActivation() throws {
            let (status, _) = runInChild {
                setenv("LISTEN_PID", "1", 1)
                setenv("LISTEN_FDS", "1", 1)
                guard case .some(.none) = try? ListeningSocket.fromSystemd() else { return 10 }
                guard getenv("LISTEN_FDS") == nil else { return 11 }

                var pipeFDs: [Int32] = [0, 0]
                guard pipe(&pipeFDs) == 0, dup2(pipeFDs[0], 3) == 3 else { return 12 }
                setenv("LISTEN_PID", "\(getpid())", 1)
                setenv("LISTEN_FDS", "1", 1)
                do {
                    _ = try ListeningSocket.fromSystemd()
                    return 13
                } catch let error as SocketError {
                    return error == .invalidSystemdSocket && error.description.contains("not a socket") ? 0 : 14
                } catch {
                    return 15
                }
            }
            #expect(status == 0)
        }
    }
}
