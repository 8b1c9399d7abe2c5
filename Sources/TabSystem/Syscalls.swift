// The system calls of tabd's processes (the daemon, its plugin helpers, tabctl), one thin
// wrapper each, documented with the C call it makes (swift-system's Internals/Syscalls.swift
// is the model). Each goes through `syscall(_:_:)`: EINTR is retried and a failure is a
// `SystemError` naming the call. The wrappers decide nothing: a caller that handles an errno
// (ENOENT, ELOOP, EAGAIN, ENOSPC, EMFILE…) tests `error.errno`, and the sentence a person
// reads is made where the error is reported.

import CLinux
import Glibc

public enum Sys {
    // MARK: Files

    /// open(2) with `flags` (O_CLOEXEC is the caller's to pass) and `mode` for O_CREAT.
    @inlinable
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        try syscall("open") { Glibc.open(path, flags, mode) }
    }

    /// openat(2): `name` relative to the directory `directory` (a descriptor).
    @inlinable
    public static func openat(_ directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        try syscall("openat") { Glibc.openat(directory, name, flags, mode) }
    }

    /// close(2). EINTR is not retried (on Linux the descriptor is gone either way), and a
    /// failure is not reported: nothing is to be done about it.
    @inlinable
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// fstat(2).
    @inlinable
    public static func fstat(_ fd: Int32) throws(SystemError) -> stat {
        var st = stat()
        _ = try syscall("fstat") { Glibc.fstat(fd, &st) }
        return st
    }

    /// stat(2) of `path` (a symbolic link followed).
    @inlinable
    public static func fileStatus(_ path: String) throws(SystemError) -> stat {
        var st = stat()
        _ = try syscall("stat") { cStat(path, &st) }
        return st
    }

    /// lstat(2) of `path` (a symbolic link itself).
    @inlinable
    public static func linkStatus(_ path: String) throws(SystemError) -> stat {
        var st = stat()
        _ = try syscall("lstat") { Glibc.lstat(path, &st) }
        return st
    }

    /// fstatat(2) with AT_SYMLINK_NOFOLLOW of `name` in the directory `directory` (a
    /// descriptor): a symbolic link itself.
    @inlinable
    public static func linkStatus(_ name: String, in directory: Int32) throws(SystemError) -> stat {
        var st = stat()
        _ = try syscall("fstatat") { fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) }
        return st
    }

    /// realpath(3): `path` with every link, "." and ".." resolved.
    public static func realPath(_ path: String) throws(SystemError) -> String {
        guard let p = realpath(path, nil) else { throw .current("realpath") }
        defer { free(p) }
        return String(cString: p)
    }

    /// read(2) once into `buffer`: how many bytes (0 at end of file).
    @inlinable
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try syscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// pread(2) once into `buffer` from `offset`: how many bytes (0 at end of file).
    @inlinable
    public static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemError) -> Int {
        try syscall("pread") { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// write(2) once: how many of `bytes` were written.
    @inlinable
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try syscall("write") { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// pwrite(2) of all of `bytes` at `offset`, short writes continued.
    @inlinable
    public static func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            done += try syscall("pwrite") { Glibc.pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
        }
    }

    /// lseek(2): the new offset. `whence` may be SEEK_HOLE (4) or SEEK_DATA (3), which Glibc
    /// does not export to Swift.
    @inlinable
    public static func lseek(_ fd: Int32, _ offset: Int, _ whence: Int32) throws(SystemError) -> Int {
        Int(try syscall("lseek") { Glibc.lseek(fd, off_t(offset), whence) })
    }

    /// fsync(2).
    @inlinable
    public static func fsync(_ fd: Int32) throws(SystemError) {
        _ = try syscall("fsync") { Glibc.fsync(fd) }
    }

    /// fdatasync(2).
    @inlinable
    public static func fdatasync(_ fd: Int32) throws(SystemError) {
        _ = try syscall("fdatasync") { Glibc.fdatasync(fd) }
    }

    /// ftruncate(2).
    @inlinable
    public static func ftruncate(_ fd: Int32, _ length: Int) throws(SystemError) {
        _ = try syscall("ftruncate") { Glibc.ftruncate(fd, off_t(length)) }
    }

    /// fallocate(2) with mode 0 of the first `length` bytes: the file is at least that long,
    /// its space reserved (EOPNOTSUPP where the filesystem cannot).
    @inlinable
    public static func fallocate(_ fd: Int32, length: Int) throws(SystemError) {
        _ = try syscall("fallocate") { tabd_fallocate(fd, Int64(length)) }
    }

    /// flock(2) with `operation` (LOCK_EX | LOCK_NB: EWOULDBLOCK when another holds it).
    @inlinable
    public static func lock(_ fd: Int32, _ operation: Int32) throws(SystemError) {
        _ = try syscall("flock") { cFlock(fd, operation) }
    }

    /// fcntl(F_DUPFD_CLOEXEC): a close-on-exec copy of `fd`, numbered `lowest` or above.
    @inlinable
    public static func duplicate(_ fd: Int32, lowest: Int32 = 0) throws(SystemError) -> Int32 {
        try syscall("fcntl(F_DUPFD_CLOEXEC)") { fcntl(fd, F_DUPFD_CLOEXEC, lowest) }
    }

    /// fcntl(F_GETFL/F_SETFL, O_NONBLOCK) and fcntl(F_GETFD/F_SETFD, FD_CLOEXEC).
    public static func setNonBlockingCloseOnExec(_ fd: Int32) throws(SystemError) {
        try setNonBlocking(fd)
        let fdFlags = try syscall("fcntl(F_GETFD)") { fcntl(fd, F_GETFD) }
        if fdFlags & FD_CLOEXEC == 0 {
            _ = try syscall("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
        }
    }

    /// fcntl(F_GETFL/F_SETFL, O_NONBLOCK).
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            _ = try syscall("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
    }

    /// rename(2).
    @inlinable
    public static func rename(_ from: String, to: String) throws(SystemError) {
        _ = try syscall("rename") { Glibc.rename(from, to) }
    }

    /// unlink(2).
    @inlinable
    public static func unlink(_ path: String) throws(SystemError) {
        _ = try syscall("unlink") { Glibc.unlink(path) }
    }

    /// mkdir(2) with `mode` (through the umask).
    @inlinable
    public static func mkdir(_ path: String, mode: mode_t) throws(SystemError) {
        _ = try syscall("mkdir") { Glibc.mkdir(path, mode) }
    }

    /// chown(2); `uid_t.max` or `gid_t.max` leaves that one as it is.
    @inlinable
    public static func chown(_ path: String, user: uid_t = .max, group: gid_t = .max) throws(SystemError) {
        _ = try syscall("chown") { Glibc.chown(path, user, group) }
    }

    /// access(2) with F_OK: whether `path` exists (false on any failure).
    @inlinable
    public static func exists(_ path: String) -> Bool {
        Glibc.access(path, F_OK) == 0
    }

    /// access(2) with `mode` (W_OK | X_OK…): throws (EACCES…) unless the process's real uid
    /// and gid may use `path` so.
    @inlinable
    public static func access(_ path: String, _ mode: Int32) throws(SystemError) {
        _ = try syscall("access") { Glibc.access(path, mode) }
    }

    /// rmdir(2): an empty directory removed.
    @inlinable
    public static func rmdir(_ path: String) throws(SystemError) {
        _ = try syscall("rmdir") { Glibc.rmdir(path) }
    }

    /// mmap(2) of `length` bytes of `fd` from its start, readable and writable, MAP_SHARED.
    public static func mapShared(_ fd: Int32, length: Int) throws(SystemError) -> UnsafeMutableRawPointer {
        guard let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else { throw .current("mmap") }
        return p
    }

    /// munmap(2).
    public static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = munmap(address, length)
    }

    /// opendir(3), readdir(3), closedir(3): the names in `directory`, "." and ".." left out.
    public static func directoryEntries(_ directory: String) throws(SystemError) -> [String] {
        guard let d = opendir(directory) else { throw .current("opendir") }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): a counter another thread wakes a loop with.
    @inlinable
    public static func eventfd() throws(SystemError) -> Int32 {
        try syscall("eventfd") { tabd_eventfd() }
    }

    // MARK: Terminals

    /// isatty(3): whether `fd` is a terminal.
    @inlinable
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// tcgetattr(3): the terminal `fd`'s settings.
    @inlinable
    public static func terminalAttributes(_ fd: Int32) throws(SystemError) -> termios {
        var t = termios()
        _ = try syscall("tcgetattr") { tcgetattr(fd, &t) }
        return t
    }

    /// tcsetattr(3) with TCSAFLUSH: the terminal `fd` set to `attributes` once its output is
    /// written, its unread input discarded.
    @inlinable
    public static func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SystemError) {
        var t = attributes
        _ = try syscall("tcsetattr") { tcsetattr(fd, TCSAFLUSH, &t) }
    }

    // MARK: Processes

    /// geteuid(2): the uid the process acts as (it cannot fail).
    @inlinable
    public static func effectiveUserID() -> uid_t {
        geteuid()
    }

    /// getrlimit(2) of RLIMIT_NOFILE: how many descriptors the process may open (soft, hard).
    @inlinable
    public static func openFileLimit() throws(SystemError) -> rlimit {
        var limit = rlimit()
        _ = try syscall("getrlimit(RLIMIT_NOFILE)") { tabd_get_nofile(&limit) }
        return limit
    }

    /// setrlimit(2) of RLIMIT_NOFILE.
    @inlinable
    public static func setOpenFileLimit(_ limit: rlimit) throws(SystemError) {
        var limit = limit
        _ = try syscall("setrlimit(RLIMIT_NOFILE)") { tabd_set_nofile(&limit) }
    }

    /// sigaction(2): `action` for `signal`; returns the action it replaces.
    @inlinable
    public static func setSignalAction(_ signal: Int32, _ action: sigaction) throws(SystemError) -> sigaction {
        var new = action, old = sigaction()
        _ = try syscall("sigaction") { sigaction(signal, &new, &old) }
        return old
    }

    /// poll(2) of one descriptor for `events` up to `milliseconds` (-1: no limit): the events
    /// that came, 0 when the time ran out or a signal came first. EINTR is not retried here,
    /// as it is everywhere else: a caller with a deadline computes the time left again.
    @inlinable
    public static func poll(_ fd: Int32, _ events: Int16, milliseconds: Int32) throws(SystemError) -> Int16 {
        var p = pollfd(fd: fd, events: events, revents: 0)
        let n = Glibc.poll(&p, 1, milliseconds)
        if n < 0 {
            let code = Glibc.errno
            if code == EINTR { return 0 }
            throw SystemError("poll", errno: code)
        }
        return n == 0 ? 0 : p.revents
    }

    /// waitpid(2) with `options` (WNOHANG: 0 while the child runs): the pid and its status.
    @inlinable
    public static func waitpid(_ pid: pid_t, options: Int32) throws(SystemError) -> (pid: pid_t, status: Int32) {
        var status: Int32 = 0
        let r = try syscall("waitpid") { Glibc.waitpid(pid, &status, options) }
        return (r, status)
    }

    /// sigprocmask(2) with SIG_UNBLOCK: `signals` are delivered to the calling thread,
    /// whatever mask the process was started with.
    public static func unblockSignals(_ signals: [Int32]) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        _ = try syscall("sigprocmask") { sigprocmask(SIG_UNBLOCK, &set, nil) }
    }

    /// kill(2).
    @inlinable
    public static func kill(_ pid: pid_t, _ signal: Int32) throws(SystemError) {
        _ = try syscall("kill") { Glibc.kill(pid, signal) }
    }

    // MARK: Sockets

    /// socket(AF_UNIX, SOCK_STREAM or SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0); without
    /// SOCK_NONBLOCK when `blocking` (a client that waits for its reply: tabctl).
    @inlinable
    public static func unixSocket(datagram: Bool = false, blocking: Bool = false) throws(SystemError) -> Int32 {
        try syscall("socket(AF_UNIX)") { tabd_unix_socket(datagram ? 1 : 0, blocking ? 1 : 0) }
    }

    /// socketpair(AF_UNIX, `type` | SOCK_CLOEXEC, 0).
    @inlinable
    public static func socketPair(_ type: Int32) throws(SystemError) -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        _ = try syscall("socketpair") { socketpair(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) }
        return (pair[0], pair[1])
    }

    /// bind(2) to `address`.
    @inlinable
    public static func bind(_ fd: Int32, _ address: UnixAddress) throws(SystemError) {
        _ = try syscall("bind") { address.withSockaddr { Glibc.bind(fd, $0, $1) } }
    }

    /// connect(2) to `address`.
    @inlinable
    public static func connect(_ fd: Int32, _ address: UnixAddress) throws(SystemError) {
        _ = try syscall("connect") { address.withSockaddr { Glibc.connect(fd, $0, $1) } }
    }

    /// A blocking stream socket connected to the Unix socket at `path`: what a client opens
    /// (tabctl, TabClient). A path no socket address can hold fails as `connect` with
    /// ENAMETOOLONG (too long: `UnixAddress.isTooLong`) or ENOENT (empty, or a NUL in it).
    public static func connectUnix(_ path: String) throws(SystemError) -> Int32 {
        let fd = try unixSocket(blocking: true)
        guard let address = UnixAddress(path, abstract: false) else {
            close(fd)
            throw SystemError("connect", errno: UnixAddress.isTooLong(path) ? ENAMETOOLONG : ENOENT)
        }
        do { try connect(fd, address) } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// What a client says of a failed `connectUnix`: strerror's words, or for a path too long
    /// for a socket address, that.
    public static func connectFailure(_ error: SystemError) -> String {
        error.errno == ENAMETOOLONG && error.call == "connect" ? "the path is too long for a Unix socket" : error.reason
    }

    /// listen(2) with `backlog`.
    @inlinable
    public static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        _ = try syscall("listen") { Glibc.listen(fd, backlog) }
    }

    /// accept4(SOCK_NONBLOCK | SOCK_CLOEXEC).
    @inlinable
    public static func accept(_ listener: Int32) throws(SystemError) -> Int32 {
        try syscall("accept4") { tabd_accept4(listener) }
    }

    /// recv(2) into `buffer`; 0 is end of file.
    @inlinable
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try syscall("recv") { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// shutdown(2) of both directions: a thread blocked reading `fd` sees its end (the
    /// descriptor stays open until `close`).
    public static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// send(MSG_NOSIGNAL) of the start of `bytes`; how many were written.
    @inlinable
    public static func send(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(SystemError) -> Int {
        try syscall("send") { tabd_send(fd, bytes.baseAddress, bytes.count) }
    }

    /// sendto(MSG_NOSIGNAL) of `bytes` as one datagram to `address`.
    @inlinable
    public static func send(_ bytes: UnsafeRawBufferPointer, to fd: Int32, address: UnixAddress) throws(SystemError) -> Int {
        try syscall("sendto") { address.withSockaddr { tabd_sendto(fd, bytes.baseAddress, bytes.count, $0, $1) } }
    }

    /// getsockopt(SOL_SOCKET, option) for an int-valued option (`name`, like "SO_TYPE", names
    /// it in the error).
    public static func socketOption(_ fd: Int32, _ option: Int32, _ name: String) throws(SystemError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try syscall("getsockopt(\(name))") { getsockopt(fd, SOL_SOCKET, option, &value, &length) }
        return value
    }

    /// setsockopt(SO_RCVTIMEO): a blocking receive on `fd` waits `seconds` at most, then fails
    /// with EAGAIN (0: as long as it takes).
    public static func setReceiveTimeout(_ fd: Int32, seconds: Double) throws(SystemError) {
        let whole = seconds.rounded(.down)
        var tv = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
        _ = try syscall("setsockopt(SO_RCVTIMEO)") { setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) }
    }

    /// getsockopt(SO_PEERCRED): who the peer was when it connected.
    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> (pid: pid_t, uid: uid_t, gid: gid_t) {
        var raw = tabd_peer_credentials()
        _ = try syscall("getsockopt(SO_PEERCRED)") { tabd_get_peer_credentials(fd, &raw) }
        return (raw.pid, raw.uid, raw.gid)
    }

    /// getsockopt(SO_PEERGROUPS) (Linux 4.13): the supplementary groups the peer had when it
    /// connected. The list's length is not known ahead: ERANGE says how much room it needs.
    public static func peerGroups(_ fd: Int32) throws(SystemError) -> [gid_t] {
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

// stat and flock name both a function and a struct in Glibc; outside `Sys` the call is the
// function.
@usableFromInline func cStat(_ path: String, _ st: inout stat) -> Int32 { stat(path, &st) }
@usableFromInline func cFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

// MARK: Users and groups

extension Sys {
    /// getpwnam_r(3): the user `name`'s uid and primary gid (nil: there is no such user).
    public static func user(named name: String) throws(SystemError) -> (uid: uid_t, gid: gid_t)? {
        try lookUp("getpwnam_r", passwd(), { getpwnam_r(name, $0, $1, $2, $3) }) { ($0.pw_uid, $0.pw_gid) }
    }

    /// getgrnam_r(3): the group `name`'s gid (nil: there is no such group).
    public static func groupID(named name: String) throws(SystemError) -> gid_t? {
        try lookUp("getgrnam_r", group(), { getgrnam_r(name, $0, $1, $2, $3) }) { $0.gr_gid }
    }

    /// getgrgid_r(3): the name of the group `gid` (nil: there is no such group).
    public static func groupName(of gid: gid_t) throws(SystemError) -> String? {
        try lookUp("getgrgid_r", group(), { getgrgid_r(gid, $0, $1, $2, $3) }) { String(cString: $0.gr_name) }
    }

    /// A reentrant lookup of the user and group databases (`call`): `get` fills `entry` with
    /// strings kept in a buffer of the caller's, which starts at `bufferBytes` and doubles
    /// while the call says it is too small (ERANGE), up to 1 MiB. These calls return their
    /// errno rather than set it, and "no such entry" is success with no result.
    static func lookUp<Entry, Value>(_ call: String, _ entry: Entry, bufferBytes: Int = 1024,
                                     _ get: (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>) -> Int32,
                                     _ value: (Entry) -> Value) throws(SystemError) -> Value? {
        var entry = entry
        var size = bufferBytes
        while true {
            var found: UnsafeMutablePointer<Entry>?
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let code = get(&entry, buffer, size, &found)
            if code == EINTR { continue }
            if code == ERANGE, size < 1 << 20 {
                size *= 2
                continue
            }
            if code != 0 { throw SystemError(call, errno: code) }
            return found.map { value($0.pointee) }
        }
    }
}
