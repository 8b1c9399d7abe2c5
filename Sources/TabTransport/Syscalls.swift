// One thin layer over the system calls the transport makes: every call goes through
// `syscall(_:_:)` (TabSystem), which retries EINTR and turns errno into a `SystemError`
// naming the call.

import CLibevent
import CLinux
import Glibc
import TabSystem

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
}
