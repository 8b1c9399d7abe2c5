// tabd and systemd, without libsystemd: sd_notify (one datagram per notification to
// $NOTIFY_SOCKET) and socket activation (the listening socket passed as descriptor 3).

import Foundation
import Glibc
import TabSystem
import TabTransport

/// Tells systemd about the service's state (Type=notify): READY=1, RELOADING=1, STOPPING=1,
/// STATUS=…, WATCHDOG=1. Does nothing when NOTIFY_SOCKET is unset (not run by systemd).
public struct SystemdNotifier {
    /// The notification socket: a path, or "@name" for the abstract namespace.
    public let socketPath: String?
    /// How often to send "WATCHDOG=1": half of WATCHDOG_USEC, so that one late ping is not
    /// fatal. Nil when systemd watches nothing, or watches another process (WATCHDOG_PID).
    public let watchdogInterval: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let path = environment["NOTIFY_SOCKET"], path.hasPrefix("/") || path.hasPrefix("@"), path.count > 1 {
            socketPath = path
        } else {
            socketPath = nil
        }
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0,
           environment["WATCHDOG_PID"].map({ pid_t($0) == getpid() }) ?? true {
            watchdogInterval = Double(usec) / 1e6 / 2
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends `state` (newline-separated assignments, e.g. "READY=1\nSTATUS=serving").
    /// Failures are returned, not thrown: systemd being unreachable must not stop the service.
    @discardableResult
    public func notify(_ state: String) -> SystemError? {
        guard let socketPath else { return nil }
        guard let address = UnixAddress(socketPath) else {
            return SystemError("sendto(NOTIFY_SOCKET=\(socketPath)): path too long", errno: ENAMETOOLONG)
        }
        let fd: Int32
        do {
            fd = try Sys.unixSocket(datagram: true)
        } catch {
            return error
        }
        defer { Sys.close(fd) }
        let sent = Array(state.utf8).withUnsafeBytes { bytes in Result { () throws(SystemError) in try Sys.send(bytes, to: fd, address: address) } }
        if case .failure(let error) = sent { return error.about("NOTIFY_SOCKET=\(socketPath)") }
        return nil
    }
}

// MARK: - Socket activation

extension ListeningSocket {
    /// The socket systemd passed (socket activation), or nil when LISTEN_FDS is absent or
    /// LISTEN_PID is not this process. Checks that descriptor 3 is one listening AF_UNIX
    /// stream socket, makes it non-blocking and close-on-exec, and unsets LISTEN_PID,
    /// LISTEN_FDS and LISTEN_FDNAMES so that child processes do not see them.
    public static func fromSystemd() throws -> ListeningSocket? {
        try fromSystemd(firstDescriptor: 3)
    }

    static func fromSystemd(firstDescriptor fd: Int32) throws -> ListeningSocket? {
        guard let fds = getenv("LISTEN_FDS").map({ String(cString: $0) }) else { return nil }
        let pid = getenv("LISTEN_PID").map { String(cString: $0) }
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid, pid_t(pid) == getpid() else { return nil }  // meant for another process
        guard let count = Int(fds), count >= 1 else {
            throw SocketError.invalidSystemdSocket("LISTEN_FDS='\(fds)' is not a positive number of sockets")
        }
        guard count == 1 else {
            throw SocketError.invalidSystemdSocket("systemd passed \(count) sockets; tabd listens on exactly one (one ListenStream= in tabd.socket)")
        }
        do {
            return try ListeningSocket.adopt(fd)
        } catch {
            switch error {
            case .notASocket:
                throw SocketError.invalidSystemdSocket("descriptor \(fd) passed by systemd is not a socket")
            case .notUnix:
                throw SocketError.invalidSystemdSocket("descriptor \(fd) passed by systemd is not a Unix socket (tabd.socket needs ListenStream=/path)")
            case .notStream:
                throw SocketError.invalidSystemdSocket("descriptor \(fd) passed by systemd is not a stream socket (use ListenStream=)")
            case .notListening:
                throw SocketError.invalidSystemdSocket("descriptor \(fd) passed by systemd is not listening (Accept=no is needed)")
            case .system(let error):
                throw SocketError.system(error, doing: "socket passed by systemd")
            }
        }
    }
}
