// TabSystem's one system call layer: `syscall(_:_:)` retries EINTR and throws the rest as a
// `SystemError` naming the call, and the wrappers (`Sys`) keep errno as the kernel gave it,
// so that callers can act on it (ENOENT, EWOULDBLOCK, ELOOP…) and say it in their words.

import Glibc
import TabSystem
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
}
