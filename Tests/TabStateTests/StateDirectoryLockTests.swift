// The state directory's lock: created with its directory, exclusive (a second holder is
// refused with a sentence naming the pid), released with its holder, never followed
// through a symbolic link.

import Foundation
import Testing
@testable import TabState

@Suite struct StateDirectoryLockTests {
    static func directory() -> String {
        FileManager.default.temporaryDirectory.path + "/tabd-lock-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    static func refusal(_ dir: String) -> String? {
        do {
            let lock = try StateDirectoryLock(directory: dir)
            lock.release()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func createsTheDirectoryAndWritesThePID() throws {
        let dir = Self.directory() + "/a/state"
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        let lock = try StateDirectoryLock(directory: dir)
        var st = stat()
        #expect(stat(dir, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR)
        #expect(st.st_mode & 0o027 == 0, "mode \(String(st.st_mode & 0o777, radix: 8))")  // 0750 at most
        #expect(stat(lock.path, &st) == 0 && st.st_mode & 0o137 == 0, "mode \(String(st.st_mode & 0o777, radix: 8))")  // 0640 at most
        #expect(String(decoding: FileManager.default.contents(atPath: lock.path)!, as: UTF8.self) == "\(getpid())\n")
        lock.release()
        #expect(FileManager.default.contents(atPath: lock.path)?.isEmpty == true)
    }

    /// flock locks belong to an open file: a second open in this process conflicts too.
    @Test func aSecondLockIsRefusedAndNamesTheHolder() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first: StateDirectoryLock? = try StateDirectoryLock(directory: dir)
        #expect(Self.refusal(dir) == "the state directory \(dir) is in use by tabd (pid \(getpid()), lock file \(dir)/lock); stop that tabd or start this one with another --state-dir")
        // Without the pid in the file (a full disk), the kernel's record of the lock names it.
        #expect(truncate(dir + "/lock", 0) == 0)
        #expect(Self.refusal(dir)?.contains("(pid \(getpid()), lock file") == true)
        first = nil
        _ = first
        #expect(Self.refusal(dir) == nil)
    }

    @Test func anOldPIDIsReplaced() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "123456789012\n".write(toFile: dir + "/lock", atomically: false, encoding: .utf8)
        let lock = try StateDirectoryLock(directory: dir)
        #expect(String(decoding: FileManager.default.contents(atPath: lock.path)!, as: UTF8.self) == "\(getpid())\n")
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(symlink(dir + "/elsewhere", dir + "/lock") == 0)
        let message = Self.refusal(dir)
        #expect(message?.contains("is a symbolic link") == true, "\(message ?? "locked")")
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"))
    }

    @Test func aFileIsNotAStateDirectory() throws {
        let dir = Self.directory()
        defer { unlink(dir) }
        #expect(FileManager.default.createFile(atPath: dir, contents: Data()))
        #expect(Self.refusal(dir) == "the state directory \(dir) is not a directory")
    }
}
