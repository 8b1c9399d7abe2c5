// sd_notify without libsystemd: one datagram per notification to $NOTIFY_SOCKET.

import CLibevent
import Foundation
import Glibc

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
        var bytes = Array(state.utf8)
        let count = bytes.count
        do {
            _ = try syscall("sendto(NOTIFY_SOCKET=\(socketPath))") {
                address.withSockaddr { addr, length in
                    bytes.withUnsafeMutableBytes { sendto(fd, $0.baseAddress, count, Int32(MSG_NOSIGNAL), addr, length) }
                }
            }
        } catch {
            return error
        }
        return nil
    }
}
