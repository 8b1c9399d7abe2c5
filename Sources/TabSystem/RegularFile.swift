// Reading a file someone else may have put in place (the configuration, a credentials file,
// anything read at run time): opened non-blocking, so that a FIFO cannot hold the caller in
// open(2) until a writer comes, then checked on the descriptor — a regular file, no larger
// than the caller's cap — before a byte is read.

import Glibc

public enum RegularFile {
    /// The file's bytes, or a refusal in one sentence naming `path` (its `what`, like "the
    /// configuration file", starts the sentence) and what to do.
    public static func read(_ path: String, what: String, limit: Int) throws(RegularFileRefusal) -> [UInt8] {
        let fd: Int32
        do { fd = try Sys.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) } catch {
            throw RegularFileRefusal("cannot read \(what) \(path): \(error.reason)")
        }
        defer { Sys.close(fd) }
        let st: stat
        do { st = try Sys.fstat(fd) } catch { throw RegularFileRefusal("cannot stat \(what) \(path): \(error.reason)") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            let kinds: [mode_t: String] = [S_IFIFO: "a FIFO", S_IFDIR: "a directory", S_IFSOCK: "a socket", S_IFCHR: "a character device", S_IFBLK: "a block device"]
            throw RegularFileRefusal("\(what) \(path) is \(kinds[st.st_mode & S_IFMT] ?? "not a regular file"), not a regular file; put a file there")
        }
        guard Int(st.st_size) <= limit else {
            throw RegularFileRefusal("\(what) \(path) holds \(st.st_size) bytes, more than the \(limit) tabd reads from it; it is not such a file, so replace it with one")
        }
        // Room for the size fstat gave and one byte more, so that the end shows; a file that
        // grew meanwhile gets more room, up to one byte more than the cap (refused below). Not
        // the cap itself at once: zeroing it cost every read of a small file its whole limit
        // (11.5 M instructions for a 16 MiB cap; BENCHMARKS.md, "Against issue 41's baseline").
        var bytes = [UInt8](repeating: 0, count: min(Int(st.st_size), limit) + 1)
        var count = 0
        while count <= limit {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 4096), limit + 1 - count))) }
            let read = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try Sys.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), at: count) }
            }
            let n: Int
            switch read {
            case .success(let got): n = got
            case .failure(let error) where error.wouldBlock: continue
            case .failure(let error): throw RegularFileRefusal("cannot read \(what) \(path): \(error.reason)")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else {
            throw RegularFileRefusal("\(what) \(path) holds more than the \(limit) bytes tabd reads from it; it is not such a file, so replace it with one")
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}

/// Why a file was not read: one sentence.
public struct RegularFileRefusal: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
