// One state directory, one tabd: an exclusive flock on `<state_dir>/lock`, taken before
// anything in the directory is read and held until the process ends (the kernel drops it
// when the process dies, kill -9 included: a lock is never stale). The holder writes its
// pid into the file so that a second tabd can say who holds the directory.

import Foundation
import TabSystem

public final class StateDirectoryLock {
    public let directory: String
    /// `<directory>/lock`.
    public let path: String
    private var fd: Int32

    /// Creates `directory` (mode 0750) when it is missing and takes its lock. Throws a
    /// `StateError` whose sentence names the directory and the pid holding it when another
    /// process has it.
    /// The lock file's name in the state directory.
    public static let fileName = "lock"

    public init(directory: String) throws {
        self.directory = directory
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        try Self.makeDirectory(directory)
        do {
            fd = try Sys.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: 0o640)
        } catch {
            if error.errno == ELOOP { throw StateError("the lock file \(path) is a symbolic link; tabd does not follow it there. Remove it and start again") }
            throw StateError("cannot open the lock file \(path) of the state directory: \(error.reason)")
        }
        // Checked on the descriptor: a hard link would have tabd write its pid into (and then
        // truncate) a file elsewhere; a FIFO or device is not a lock file tabd made.
        let st = try? Sys.fstat(fd)
        guard let st, st.st_mode & S_IFMT == S_IFREG, st.st_nlink <= 1 else {
            let reason = st.map { $0.st_mode & S_IFMT != S_IFREG ? "is not a regular file" : "has \($0.st_nlink) hard links" } ?? "is not a regular file"
            Sys.close(fd)
            fd = -1
            throw StateError("the lock file \(path) \(reason); tabd writes its pid only into a lock file of its own. Remove it and start again")
        }
        do {
            try Sys.lock(fd, LOCK_EX | LOCK_NB)
        } catch {
            let holder = Self.holder(fd: fd)
            Sys.close(fd)
            fd = -1
            guard error.errno == EWOULDBLOCK else {
                throw StateError("cannot lock \(path): \(error.reason)")
            }
            throw StateError("the state directory \(directory) is in use by tabd (\(holder.map { "pid \($0)" } ?? "pid unknown"), lock file \(path)); stop that tabd or start this one with another --state-dir")
        }
        writePID()
    }

    deinit { release() }

    /// Gives the directory up (also done when the lock is freed or the process ends).
    public func release() {
        guard fd >= 0 else { return }
        try? Sys.ftruncate(fd, 0)  // the pid in it is no one's any more
        Sys.close(fd)
        fd = -1
    }

    /// Our pid, at the start of the file and alone in it. Best effort: the lock holds
    /// without it (a full disk); an old pid is never left behind.
    private func writePID() {
        let text = Array("\(getpid())\n".utf8)
        let written = text.withUnsafeBytes { (try? Sys.pwriteAll(fd, $0, at: 0)) != nil }
        try? Sys.ftruncate(fd, written ? text.count : 0)
    }

    /// The pid holding the lock on `fd`'s file: the one written in it, else the kernel's
    /// record of the flock (/proc/locks, by inode). The holder writes its pid just after it
    /// took the lock: an empty file is read again for a moment.
    private static func holder(fd: Int32) -> pid_t? {
        for attempt in 0..<20 {
            if attempt > 0 { usleep(10_000) }
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { (try? Sys.pread(fd, into: $0, at: 0)) ?? -1 }
            if n > 0, let pid = pid_t(String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 {
                return pid
            }
            if n > 0 { break }  // something else than a pid: do not wait for one
        }
        guard let st = try? Sys.fstat(fd), let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF" (pid, then major:minor:inode);
        // a waiter's line has "->" after the number.
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE" else { continue }
            let device = fields[5].split(separator: ":")
            guard device.count == 3, UInt64(device[2]) == UInt64(st.st_ino), let pid = pid_t(fields[4]) else { continue }
            return pid
        }
        return nil
    }

    /// mkdir -p with mode 0750 for what is missing; an existing path must be a directory.
    private static func makeDirectory(_ directory: String) throws {
        if let st = try? Sys.fileStatus(directory) {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw StateError("the state directory \(directory) is not a directory") }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try makeDirectory(parent) }
        do { try Sys.mkdir(directory, mode: 0o750) } catch where error.errno != EEXIST {
            throw StateError("cannot create the state directory \(directory): \(error.reason)")
        } catch {}
    }
}
