// One thin layer over the system calls the transport makes: every call goes through
// `syscall(_:_:)`, which retries EINTR and turns errno into a `SystemError` naming the call.

import CLibevent
import Glibc

/// A failed system call: which call, and errno (printed with strerror).
public struct SystemError: Error, Equatable, CustomStringConvertible {
    /// The C call, sometimes with its subject: "bind(/run/tabd/tabd.sock)".
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// EAGAIN/EWOULDBLOCK: a non-blocking call found nothing to do.
    var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}

/// Runs `body` (a system call returning -1 and setting errno on failure) until it does not
/// fail with EINTR; returns its result or throws its errno as a `SystemError`.
@inline(__always)
func syscall<T: FixedWidthInteger>(_ call: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemError(call(), errno: code)
    }
}

enum Sys {
    /// close(2). EINTR is not retried: on Linux the descriptor is gone either way.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// fcntl(F_GETFL/F_SETFL, O_NONBLOCK) and fcntl(F_GETFD/F_SETFD, FD_CLOEXEC).
    static func setNonBlockingCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            _ = try syscall("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
        let fdFlags = try syscall("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
        if fdFlags & FD_CLOEXEC == 0 {
            _ = try syscall("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
        }
    }

    /// socket(AF_UNIX, SOCK_STREAM or SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0).
    static func unixSocket(datagram: Bool = false) throws(SystemError) -> Int32 {
        try syscall("socket(AF_UNIX)") { tabd_unix_socket(datagram ? 1 : 0) }
    }

    /// accept4(SOCK_NONBLOCK | SOCK_CLOEXEC).
    static func accept(_ listener: Int32) throws(SystemError) -> Int32 {
        try syscall("accept4") { tabd_accept4(listener) }
    }

    /// recv(2) into `buffer`; 0 is end of file.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try syscall("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// send(MSG_NOSIGNAL) of the start of `bytes`; how many were written.
    static func send(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(SystemError) -> Int {
        try syscall("send") { tabd_send(fd, bytes.baseAddress, bytes.count) }
    }

    /// sendmsg(MSG_NOSIGNAL) of the start of an evbuffer, draining what was written.
    static func send(_ evbuffer: OpaquePointer, to fd: Int32) throws(SystemError) -> Int {
        try syscall("sendmsg") { tabd_evbuffer_send(evbuffer, fd) }
    }

    /// getsockopt(SOL_SOCKET, option) for an int-valued option.
    static func socketOption(_ fd: Int32, _ option: Int32, _ name: String) throws(SystemError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try syscall("getsockopt(\(name))") { getsockopt(fd, SOL_SOCKET, option, &value, &length) }
        return value
    }

    /// getsockopt(SO_PEERCRED).
    static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        var raw = tabd_peer_credentials()
        _ = try syscall("getsockopt(SO_PEERCRED)") { tabd_get_peer_credentials(fd, &raw) }
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
    }

    /// getsockopt(SO_PEERGROUPS) (Linux 4.13): the supplementary groups the peer had when it
    /// connected. The list's length is not known ahead: ERANGE says how much room it needs.
    static func peerGroups(_ fd: Int32) throws(SystemError) -> [gid_t] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<gid_t>.stride)
            let result = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, $0.baseAddress, &length) }
            if result == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.stride)) }
            let code = Glibc.errno
            if code == EINTR { continue }
            // ERANGE: `length` is what the list needs (the kernel allows at most 65536 groups).
            guard code == ERANGE, Int(length) > groups.count * MemoryLayout<gid_t>.stride, length <= 65536 * 4 else {
                throw SystemError("getsockopt(SO_PEERGROUPS)", errno: code)
            }
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.stride)
        }
    }

    /// clock_gettime(CLOCK_MONOTONIC) in seconds.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A sockaddr_un for `path` (a file path, or the abstract namespace when it starts with "@"),
/// with the length to pass to bind/connect/sendto. Nil when the path does not fit sun_path.
struct UnixAddress {
    var storage = sockaddr_un()
    var length: socklen_t

    /// sun_path's size (108 on Linux), including the terminating NUL of a file path.
    static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    init?(_ path: String) {
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract {
            bytes[0] = 0  // abstract namespace: a leading NUL, no terminator
            guard bytes.count <= Self.capacity else { return nil }
        } else {
            guard !bytes.isEmpty, bytes.count < Self.capacity, !bytes.contains(0) else { return nil }
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { dst in
            dst.copyBytes(from: bytes)
        }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = socklen_t(offset + bytes.count + (abstract ? 0 : 1))
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
