// TabSystem's one system call layer: `syscall(_:_:)` retries EINTR and throws the rest as a
// `SystemError` naming the call, and the wrappers (`Sys`) keep errno as the kernel gave it,
// so that callers can act on it (ENOENT, EWOULDBLOCK, ELOOP…) and say it in their words.

import Glibc
@testable import TabSystem
import Testing

@Suite struct SyscallTests {
    /// A scratch directory, removed by the caller.
    static func directory() throws -> String {
        var template = Array("/tmp/tabsystem-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError.current("mkdtemp") }
        return String(cString: made)
    }

    static func remove(_ dir: String) {
        for name in (try? Sys.directoryEntries(dir)) ?? [] { try? Sys.unlink(dir + "/" + name) }
        rmdir(dir)
    }

    @Test func eintrIsRetriedAndAnotherErrnoIsThrownWithTheCallsName() throws {
        var calls = 0
        let value = try syscall("read") { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(value == 7 && calls == 3)
        let error = #expect(throws: SystemError.self) {
            _ = try syscall("fsync") { () -> Int32 in errno = EIO; return -1 }
        }
        #expect(error == SystemError("fsync", errno: EIO))
        #expect(error?.description == "fsync: \(String(cString: strerror(EIO)))")
        #expect(error?.about("/var/lib/tabd").call == "fsync(/var/lib/tabd)")
    }

    @Test func aMissingFileIsENOENTFromOpen() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        do {
            _ = try Sys.open(dir + "/missing", O_RDONLY | O_CLOEXEC)
            Issue.record("opened a file that does not exist")
        } catch {
            #expect(error.call == "open" && error.errno == ENOENT && error.reason == String(cString: strerror(ENOENT)))
        }
    }

    @Test func writtenBytesReadBackAndTheDirectoryListsThemAlone() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        let fd = try Sys.open(dir + "/file", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        defer { Sys.close(fd) }
        let text = Array("tabd-journal 5 1 1\n".utf8)
        try text.withUnsafeBytes { bytes in try Sys.pwriteAll(fd, bytes, at: 4) }
        try Sys.fdatasync(fd)
        #expect(try Sys.fstat(fd).st_size == 4 + text.count)
        var back = [UInt8](repeating: 0xFF, count: text.count)
        let n = try back.withUnsafeMutableBytes { buffer in try Sys.pread(fd, into: buffer, at: 4) }
        #expect(n == text.count && back == text)
        try Sys.ftruncate(fd, 2)
        #expect(try Sys.linkStatus(dir + "/file").st_size == 2)
        #expect(try Sys.directoryEntries(dir) == ["file"])
        try Sys.rename(dir + "/file", to: dir + "/renamed")
        #expect(!Sys.exists(dir + "/file") && Sys.exists(dir + "/renamed"))
    }

    /// flock is per open file: a second descriptor of the file is refused with EWOULDBLOCK
    /// while the first holds it (what the state directory's lock tells another tabd by).
    @Test func aHeldLockIsEWOULDBLOCKFromFlock() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        let first = try Sys.open(dir + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        defer { Sys.close(first) }
        let second = try Sys.open(dir + "/lock", O_RDWR | O_CLOEXEC)
        defer { Sys.close(second) }
        try Sys.lock(first, LOCK_EX | LOCK_NB)
        let error = #expect(throws: SystemError.self) { try Sys.lock(second, LOCK_EX | LOCK_NB) }
        #expect(error?.call == "flock" && error?.wouldBlock == true)
    }

    /// O_NOFOLLOW on a symbolic link is ELOOP, which the state files and the plugin loader
    /// turn into their refusals.
    @Test func aLinkOpenedWithoutFollowingIsELOOP() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        #expect(symlink("/etc/hostname", dir + "/link") == 0)
        let error = #expect(throws: SystemError.self) { _ = try Sys.open(dir + "/link", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        #expect(error?.errno == ELOOP)
        let dirFD = try Sys.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { Sys.close(dirFD) }
        #expect(try Sys.linkStatus("link", in: dirFD).st_mode & S_IFMT == S_IFLNK)
    }

    @Test func aDatagramReachesItsAddressAndAnEmptySocketWouldBlock() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        let address = try #require(UnixAddress(dir + "/notify"))
        let receiver = try Sys.unixSocket(datagram: true)
        defer { Sys.close(receiver) }
        try Sys.bind(receiver, address)
        var buffer = [UInt8](repeating: 0, count: 64)
        let empty = #expect(throws: SystemError.self) {
            _ = try buffer.withUnsafeMutableBytes { b in try Sys.receive(receiver, into: b) }
        }
        #expect(empty?.call == "recv" && empty?.wouldBlock == true)
        let sender = try Sys.unixSocket(datagram: true)
        defer { Sys.close(sender) }
        let sent = try Array("READY=1".utf8).withUnsafeBytes { b in try Sys.send(b, to: sender, address: address) }
        #expect(sent == 7)
        #expect(try Sys.poll(receiver, Int16(POLLIN), milliseconds: 1000) & Int16(POLLIN) != 0)
        let n = try buffer.withUnsafeMutableBytes { b in try Sys.receive(receiver, into: b) }
        #expect(String(decoding: buffer[..<n], as: UTF8.self) == "READY=1")
    }

    /// A blocking stream socket (tabctl's) connects to a listener and, with a receive timeout
    /// of a fraction of a second (its whole and micro seconds set apart), fails with EAGAIN
    /// when nothing comes in time; 0 takes the limit away again.
    @Test func aBlockingSocketsReceiveTimeoutIsEAGAIN() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        let (listener, address) = try Self.listening(in: dir)
        defer { Sys.close(listener) }
        let client = try Sys.unixSocket(blocking: true)
        defer { Sys.close(client) }
        #expect(try Sys.fstat(client).st_mode & S_IFMT == S_IFSOCK)
        let flags = fcntl(client, F_GETFL), fdFlags = fcntl(client, F_GETFD)
        #expect(flags & O_NONBLOCK == 0 && fdFlags & FD_CLOEXEC != 0)
        try Sys.connect(client, address)
        // (The kernel keeps it in ticks of its clock: half a second is a whole number of them.)
        try Sys.setReceiveTimeout(client, seconds: 2.5)
        #expect(Self.receiveTimeout(client) == timeval(tv_sec: 2, tv_usec: 500_000))
        try Sys.setReceiveTimeout(client, seconds: 0.02)
        var buffer = [UInt8](repeating: 0, count: 16)
        let silent = #expect(throws: SystemError.self) {
            _ = try buffer.withUnsafeMutableBytes { b in try Sys.receive(client, into: b) }
        }
        #expect(silent?.wouldBlock == true)
        try Sys.setReceiveTimeout(client, seconds: 0)
        #expect(Self.receiveTimeout(client) == timeval(tv_sec: 0, tv_usec: 0))
        // Not a terminal, so it has no terminal settings.
        #expect(!Sys.isTerminal(client))
        let error = #expect(throws: SystemError.self) { _ = try Sys.terminalAttributes(client) }
        #expect(error?.call == "tcgetattr" && error?.errno == ENOTTY)
    }

    /// A client's connection (tabctl's, TabClient's): connected and blocking where a listener
    /// is; where none is, or the path cannot be a socket address, a `connect` failure whose
    /// sentence says which.
    @Test func aClientConnectsToAPathOrSaysWhyNot() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        let (listener, _) = try Self.listening(in: dir)
        defer { Sys.close(listener) }
        let client = try Sys.connectUnix(dir + "/tabd.sock")
        defer { Sys.close(client) }
        #expect(fcntl(client, F_GETFL) & O_NONBLOCK == 0 && fcntl(client, F_GETFD) & FD_CLOEXEC != 0)
        let absent = #expect(throws: SystemError.self) { _ = try Sys.connectUnix(dir + "/nothing.sock") }
        #expect(absent?.call == "connect" && absent?.errno == ENOENT && Sys.connectFailure(absent!) == "No such file or directory")
        let long = #expect(throws: SystemError.self) { _ = try Sys.connectUnix(dir + "/" + String(repeating: "x", count: 120)) }
        #expect(long?.errno == ENAMETOOLONG && Sys.connectFailure(long!) == "the path is too long for a Unix socket")
    }

    /// A stream socket listening at `dir`/tabd.sock, and its address.
    static func listening(in dir: String) throws -> (Int32, UnixAddress) {
        let address = try #require(UnixAddress(dir + "/tabd.sock"))
        let listener = try Sys.unixSocket()
        do {
            try Sys.bind(listener, address)
            try Sys.listen(listener, backlog: 1)
        } catch {
            Sys.close(listener)
            throw error
        }
        return (listener, address)
    }

    static func receiveTimeout(_ fd: Int32) -> timeval {
        var tv = timeval()
        var length = socklen_t(MemoryLayout<timeval>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &length)
        return tv
    }

    /// The user and group databases: root is uid 0 in group 0 everywhere; a name no system
    /// has is nil, not an error; a buffer too small (ERANGE) is grown until the entry fits.
    @Test func usersAndGroupsAreLookedUpAndAMissingOneIsNil() throws {
        let root = try #require(try Sys.user(named: "root"))
        #expect(root.uid == 0 && root.gid == 0)
        #expect(try Sys.groupID(named: "root") == 0)
        #expect(try Sys.groupName(of: 0) == "root")
        #expect(try Sys.user(named: "no-such-user-tabd-test") == nil)
        #expect(try Sys.groupID(named: "no-such-group-tabd-test") == nil)
        var calls = 0
        let name = try Sys.lookUp("getgrgid_r", group(), bufferBytes: 1, { calls += 1; return getgrgid_r(0, $0, $1, $2, $3) }) { String(cString: $0.gr_name) }
        #expect(name == "root" && calls > 1)
        // Another errno than ERANGE is the call's error, as it returned it.
        let error = #expect(throws: SystemError.self) {
            _ = try Sys.lookUp("getgrgid_r", group(), { _, _, _, _ in EIO }) { $0.gr_gid }
        }
        #expect(error == SystemError("getgrgid_r", errno: EIO))
    }

    /// access(2) says what the process may do with a path; rmdir(2) removes an empty
    /// directory only.
    @Test func accessAndRmdir() throws {
        let dir = try Self.directory()
        defer { Self.remove(dir) }
        try Sys.access(dir, W_OK | X_OK)
        let missing = #expect(throws: SystemError.self) { try Sys.access(dir + "/missing", F_OK) }
        #expect(missing?.call == "access" && missing?.errno == ENOENT)
        try Sys.mkdir(dir + "/sub", mode: 0o700)
        let fd = try Sys.open(dir + "/sub/file", O_WRONLY | O_CREAT | O_CLOEXEC, mode: 0o600)
        Sys.close(fd)
        let full = #expect(throws: SystemError.self) { try Sys.rmdir(dir + "/sub") }
        #expect(full?.errno == ENOTEMPTY)
        try Sys.unlink(dir + "/sub/file")
        try Sys.rmdir(dir + "/sub")
        #expect(!Sys.exists(dir + "/sub"))
    }

    /// The open file limit reads back as it was set (its soft limit, set to what it is), and
    /// signals unblocked are out of the thread's mask.
    @Test func theOpenFileLimitAndTheSignalMask() throws {
        let limit = try Sys.openFileLimit()
        #expect(limit.rlim_cur <= limit.rlim_max && limit.rlim_cur > 0)
        try Sys.setOpenFileLimit(limit)
        let again = try Sys.openFileLimit()
        #expect(again.rlim_cur == limit.rlim_cur && again.rlim_max == limit.rlim_max)

        var blocked = sigset_t(), before = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR2)
        pthread_sigmask(SIG_BLOCK, &blocked, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        try Sys.unblockSignals([SIGUSR2])
        var now = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &now)
        #expect(sigismember(&now, SIGUSR2) == 0)
    }
}

extension timeval: @retroactive Equatable {
    public static func == (a: timeval, b: timeval) -> Bool { a.tv_sec == b.tv_sec && a.tv_usec == b.tv_usec }
}

/// runQueueWaitNanoseconds: the time this thread waited for a CPU, which a plugin's init is
/// judged without (plugins.slow_hook_ms). It grows while more threads want the CPUs than
/// there are; the test makes that so and waits until it shows (never on a timing).
@Suite struct RunQueueWaitTests {
    @Test func growsWhileOtherThreadsHoldEveryCPU() throws {
        let before = try #require(runQueueWaitNanoseconds(), "the kernel keeps /proc/thread-self/schedstat")
        let stop = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        stop.initialize(to: 0)
        defer { stop.deallocate() }
        var threads: [pthread_t] = []
        for _ in 0..<(2 * Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) {
            var t = pthread_t()
            pthread_create(&t, nil, { p in
                let flag = p!.assumingMemoryBound(to: Int.self)
                while __atomic_load_acquire(flag) == 0 {}
                return nil
            }, stop)
            threads.append(t)
        }
        var now = before
        let deadline = monotonicNanoseconds() + 60_000_000_000
        while now == before && monotonicNanoseconds() < deadline { now = runQueueWaitNanoseconds() ?? before }
        __atomic_store_release(stop, 1)
        for t in threads { pthread_join(t, nil) }
        #expect(now > before, "this thread never waited for a CPU while \(threads.count) threads spun")
    }
}

@inline(never) private func __atomic_load_acquire(_ p: UnsafeMutablePointer<Int>) -> Int {
    UnsafeMutableRawPointer(p).load(as: Int.self)
}

@inline(never) private func __atomic_store_release(_ p: UnsafeMutablePointer<Int>, _ v: Int) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Int.self)
}
