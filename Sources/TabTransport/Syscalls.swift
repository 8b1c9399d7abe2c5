// The transport's one system call of its own, on top of TabSystem's `Sys` (every other call
// it makes is there): libevent's evbuffer sent with sendmsg, through `syscall(_:_:)`.

import CLibevent
import CLinux
import TabSystem

extension Sys {
    /// sendmsg(MSG_NOSIGNAL) of the start of an evbuffer, draining what was written.
    static func send(_ evbuffer: OpaquePointer, to fd: Int32) throws(SystemError) -> Int {
        try syscall("sendmsg") { tabd_evbuffer_send(evbuffer, fd) }
    }
}
