// How tabctl reads what tabd sends and decides whom it talks to: a reply is read to its end
// (however big), within `--timeout`, and must be JSON — a cut or invalid reply is one
// sentence and a non-zero exit, never printed as if it were the answer; and before anything
// secret is sent, the process at the other end of the socket must be tabd (SO_PEERCRED).

import Foundation
import TabJSON
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

extension Connection {
    /// Reads once into `buffer` (1 MiB at most); 0 at end of stream. A read that waits past
    /// `deadline` (monotonic seconds; nil: no limit) fails with a sentence saying so.
    mutating func receive(deadline: Double?) throws -> Int {
        let start = buffer.count
        // Set at every read: a connection that waits for events (`connectForEvents`) has none.
        var wait = 0.0
        if let deadline {
            wait = deadline - monotonicSeconds()
            // SO_RCVTIMEO of 0 is no limit: at the deadline, the reply is late.
            guard wait >= 0.001 else { throw late(start) }
        }
        try? Sys.setReceiveTimeout(fd, seconds: wait)
        // No reserveCapacity here: reserving exactly what one more read needs reallocates
        // (and copies) the whole buffer on every read; append grows it geometrically.
        var chunk = [UInt8](repeating: 0, count: Self.chunk)
        let received = chunk.withUnsafeMutableBytes { b in Result { () throws(SystemError) in try Sys.receive(fd, into: b) } }
        switch received {
        case .success(let n):
            buffer.append(contentsOf: chunk[..<n])
            return n
        case .failure(let error):
            if error.wouldBlock, deadline != nil { throw late(start) }
            throw Failure.unreachable("read failed: \(error.reason)")
        }
    }

    private func late(_ received: Int) -> Failure {
        let limit = (timeout ?? 0).formatted()
        return received > 0
            ? .cut("tabd's reply did not end within \(limit) s (\(received) bytes came); give it longer with --timeout")
            : .cut("tabd sent nothing for \(limit) s; give it longer with --timeout")
    }

    static let chunk = 1 << 20

    /// The uid of the process that listens at the other end (SO_PEERCRED).
    func peerUID() -> uid_t? {
        try? Sys.peerCredentials(fd).uid
    }
}

extension Common {
    static let defaultTimeout = 30.0

    /// A connection for a command that waits for events (`watch`, `show`): its reads wait as
    /// long as it takes — `--timeout` is for replies, and events come when something changes.
    func connectForEvents() throws -> Connection {
        var conn = try connect()
        conn.timeout = nil
        return conn
    }

    /// The next reply on `conn`, read to its end and parsed: exit 3 with one sentence when
    /// tabd closes without answering, cuts the reply off, is silent past --timeout, or sends
    /// something that is not JSON.
    static func reply(from conn: inout Connection) throws -> String {
        let line: String?
        do { line = try conn.readLine() } catch { fail("tabctl: \(error)") }
        guard let line else { fail("tabctl: tabd closed the connection without answering") }
        guard (try? JSONParser.parse(line)) != nil else {
            fail("tabctl: tabd's reply (\(line.utf8.count) bytes) is not valid JSON; it was not printed")
        }
        return line
    }

    static func fail(_ sentence: String) -> Never {
        FileHandle.standardError.write(Data((sentence + "\n").utf8))
        Foundation.exit(3)
    }

    /// The uids tabctl trusts with a secret: root, the user it runs as (anyone who can be that
    /// user has its secrets anyway), and `serverUser` (a name or a uid; default the `tabd`
    /// user where it exists).
    static func trustedServerUIDs(_ serverUser: String?) throws -> Set<uid_t> {
        var uids: Set<uid_t> = [0, Sys.effectiveUserID()]
        let name = serverUser ?? "tabd"
        if let uid = uid_t(name) {
            uids.insert(uid)
        } else if let user = (try? Sys.user(named: name)) ?? nil {
            uids.insert(user.uid)
        } else if serverUser != nil {
            fail("tabctl: --server-user \(name) is neither a user nor a uid")
        }
        return uids
    }

    /// Before a secret goes out: the process listening on the socket must run as a trusted
    /// uid (`trustedServerUIDs`), else tabctl refuses in one sentence (exit 3) and sends nothing.
    func requireTrustedServer(_ conn: Connection, serverUser: String?) throws {
        let trusted = try Self.trustedServerUIDs(serverUser)
        guard let uid = conn.peerUID() else { Self.fail("tabctl: cannot tell who listens on \(socketPath) (SO_PEERCRED failed); nothing was sent") }
        guard trusted.contains(uid) else {
            Self.fail("tabctl: the server on \(socketPath) runs as uid \(uid), not as root or tabd's user; the password was not sent (if tabd really runs as that user, pass --server-user \(uid))")
        }
    }
}
