// A failed system call, and `syscall(_:_:)`, the one helper every wrapper in Syscalls.swift
// (and every call of tabd's processes) goes through: it retries EINTR and turns errno into a
// `SystemError`. The model is swift-system's `valueOrErrno(retryOnInterrupt:)`.

import CLinux
import Glibc

/// A failed system call: the C call's name and errno. Code that handles particular errnos
/// (ENOENT, EAGAIN, ENOSPC, EMFILE…) tests `errno`; the sentence a person reads is made where
/// the error is reported, from `reason` and what that place knows (the path, what to do).
public struct SystemError: Error, Equatable, CustomStringConvertible {
    /// The C call, sometimes with its subject: "bind(/run/tabd/tabd.sock)".
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The failure of `call` that just happened: errno as the C call left it.
    public static func current(_ call: String) -> SystemError { SystemError(call, errno: Glibc.errno) }

    /// The same failure, the call naming its subject: "bind" about "/run/tabd/tabd.sock" is
    /// "bind(/run/tabd/tabd.sock)".
    public func about(_ subject: String) -> SystemError { SystemError("\(call)(\(subject))", errno: errno) }

    /// strerror's text for `errno`: "No space left on device".
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(call): \(reason)" }

    /// EAGAIN/EWOULDBLOCK: a non-blocking call found nothing to do.
    public var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}

/// Runs `body` (a system call returning -1 and setting errno on failure) until it does not
/// fail with EINTR; returns its result or throws its errno as a `SystemError`.
@inlinable @inline(__always)
public func syscall<T: FixedWidthInteger>(_ call: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemError(call(), errno: code)
    }
}

/// send(2) of all of `bytes` on a blocking stream socket, short writes continued, EINTR
/// retried, MSG_NOSIGNAL (a closed peer is EPIPE, not SIGPIPE). What tabctl, TabClient and
/// the tests write requests with.
public func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    var done = 0
    while done < bytes.count {
        let sent = bytes[done...].withUnsafeBytes { chunk in Result { () throws(SystemError) in try Sys.send(chunk, to: fd) } }
        done += try sent.get()
    }
}
