// The listening socket: bound by tabd itself or passed by systemd; and the acceptor that
// takes connections from it, backing off (never spinning, never dying) when descriptors run out.

import CLibevent
import CLinux
import Glibc
import Logging
import TabSystem

/// Why a listening socket could not be set up. The description says what to do; a failed
/// system call is kept as it came (`systemError`, with its errno) and its sentence is made
/// from it when the error is told.
public struct SocketError: Error, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case pathTooLong, addressInUse, notASocket, directoryMissing, invalidSystemdSocket, system
    }
    private let kind: Kind
    /// The sentence; for a failed system call, what was being done (may be empty).
    private let text: String
    /// The system call that failed (`SocketError.system` only).
    public let systemError: SystemError?

    private init(_ kind: Kind, _ text: String, _ systemError: SystemError? = nil) {
        self.kind = kind
        self.text = text
        self.systemError = systemError
    }

    /// The path does not fit sun_path (107 bytes and a NUL on Linux).
    public static let pathTooLong = SocketError(.pathTooLong, "")
    /// Another process is listening on the path.
    public static let addressInUse = SocketError(.addressInUse, "")
    /// Something that is not a socket exists at the path; tabd does not remove it.
    public static let notASocket = SocketError(.notASocket, "")
    /// The socket's directory does not exist.
    public static let directoryMissing = SocketError(.directoryMissing, "")
    /// LISTEN_FDS names something that is not one listening AF_UNIX stream socket.
    public static let invalidSystemdSocket = SocketError(.invalidSystemdSocket, "")
    /// Another system call failed, or the socket cannot be had at all.
    public static let system = SocketError(.system, "")

    static func pathTooLong(_ m: String) -> Self { .init(.pathTooLong, m) }
    static func addressInUse(_ m: String) -> Self { .init(.addressInUse, m) }
    static func notASocket(_ m: String) -> Self { .init(.notASocket, m) }
    static func directoryMissing(_ m: String) -> Self { .init(.directoryMissing, m) }
    /// For TabSystemd, which says what is wrong with the socket systemd passed.
    public static func invalidSystemdSocket(_ m: String) -> Self { .init(.invalidSystemdSocket, m) }
    static func unsupported(_ m: String) -> Self { .init(.system, m) }
    /// `error` failed while doing `doing` (empty: the call says it all).
    public static func system(_ error: SystemError, doing: String = "") -> Self { .init(.system, doing, error) }

    /// Same kind of error (the message is not compared).
    public static func == (a: Self, b: Self) -> Bool { a.kind == b.kind }

    /// The sentence.
    public var message: String {
        guard let systemError else { return text }
        return text.isEmpty ? systemError.description : "\(text): \(systemError)"
    }

    public var description: String { message }
}

/// A listening Unix stream socket, non-blocking and close-on-exec. A `LineServer` takes
/// ownership of its descriptor.
public struct ListeningSocket {
    public let fd: Int32
    /// The file path (nil for an abstract or unnamed socket).
    public let path: String?
    /// Adopted (passed by systemd: socket activation) rather than bound by tabd.
    public let activated: Bool
    /// The socket file we created, so that we only ever remove our own.
    private let file: FileIdentity?

    /// Binds `path` the careful way: checks its length, refuses when another process is
    /// listening there, removes a stale socket file only after connect() was refused,
    /// creates the socket with `mode` (through umask, so it is never wider, even briefly),
    /// optionally gives it to `group`, and listens with a backlog of 511.
    public static func bind(path: String, mode: mode_t = 0o660, group: gid_t? = nil) throws -> ListeningSocket {
        guard !path.hasPrefix("@") else {
            throw SocketError.unsupported("socket path '\(path)': abstract socket names are not supported (tabd's socket is a file, so that its mode and group control access)")
        }
        guard let address = UnixAddress(path) else {
            throw SocketError.pathTooLong("socket path '\(path)' is \(path.utf8.count) bytes; a Unix socket path must be shorter than \(UnixAddress.capacity) bytes (choose a shorter one)")
        }
        try removeStaleSocket(path, address)

        let fd = try wrap { () throws(SystemError) in try Sys.unixSocket() }
        var bound = false
        do {
            let oldMask = umask(0o777 & ~mode)
            let binding = Result { () throws(SystemError) in try Sys.bind(fd, address) }
            umask(oldMask)
            if case .failure(let error) = binding {
                if error.errno == ENOENT || error.errno == ENOTDIR {
                    let dir = PathComponents(path: path).directory
                    throw SocketError.directoryMissing("cannot create the socket '\(path)': directory '\(dir)' does not exist (create it, e.g. systemd RuntimeDirectory=, or choose another socket path)")
                }
                if error.errno == EADDRINUSE {
                    throw SocketError.addressInUse("cannot bind '\(path)': it appeared while tabd was starting; is another tabd starting too?")
                }
                throw SocketError.system(error.about(path))
            }
            bound = true
            if let group {
                try wrap("\(path), group \(group)") { () throws(SystemError) in try Sys.chown(path, group: group) }
            }
            let st = try wrap(path) { () throws(SystemError) in try Sys.fileStatus(path) }
            try wrap(path) { () throws(SystemError) in try Sys.listen(fd, backlog: 511) }
            return ListeningSocket(fd: fd, path: path, activated: false, file: FileIdentity(st))
        } catch {
            if bound { try? Sys.unlink(path) }
            Sys.close(fd)
            throw error
        }
    }

    /// Probes an existing socket file: a listener answering connect() means "in use"; a
    /// refused connect() means the file is stale and is removed.
    private static func removeStaleSocket(_ path: String, _ address: UnixAddress) throws {
        let st: stat
        do {
            st = try Sys.linkStatus(path)
        } catch {
            if error.errno == ENOENT { return }
            throw SocketError.system(error.about(path))
        }
        guard st.st_mode & S_IFMT == S_IFSOCK else {
            throw SocketError.notASocket("'\(path)' exists and is not a socket; tabd will not remove it (move it away or choose another socket path)")
        }
        let probe = try wrap { () throws(SystemError) in try Sys.unixSocket() }
        defer { Sys.close(probe) }
        var code: Int32 = 0
        do { try Sys.connect(probe, address) } catch { code = error.errno }
        if code == 0 || code == EAGAIN || code == EINPROGRESS {
            // Connected, or its backlog is full: either way a process is listening.
            throw SocketError.addressInUse("another process is listening on '\(path)' (is tabd already running?); stop it or choose another socket path")
        }
        switch code {
        case ECONNREFUSED:
            // Nobody listens: a stale socket left by a process that did not clean up.
            do { try Sys.unlink(path) } catch where error.errno != ENOENT {
                throw SocketError.system(error.about(path), doing: "removing a stale socket")
            } catch {}
        case ENOENT:
            return
        default:
            throw SocketError.system(SystemError("connect", errno: code), doing: "cannot check whether '\(path)' is in use")
        }
    }

    /// Why a descriptor another process passed cannot be adopted (`adopt`).
    public enum AdoptionProblem: Error, Equatable {
        /// It is not a socket.
        case notASocket
        /// It is a socket, not an AF_UNIX one.
        case notUnix
        /// It is not a stream socket.
        case notStream
        /// It is not listening.
        case notListening
        /// Checking it, or making it non-blocking and close-on-exec, failed.
        case system(SystemError)
    }

    /// Adopts a listening socket another process opened and passed (systemd's socket
    /// activation, see TabSystemd): checks that `fd` is one listening AF_UNIX stream socket
    /// and makes it non-blocking and close-on-exec. Its file is never removed here.
    public static func adopt(_ fd: Int32) throws(AdoptionProblem) -> ListeningSocket {
        guard let st = try? Sys.fstat(fd), st.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket }
        guard let address = UnixAddress(boundTo: fd) else { throw .notUnix }
        func option(_ option: Int32, _ name: String) throws(AdoptionProblem) -> Int32 {
            do { return try Sys.socketOption(fd, option, name) } catch { throw .system(error) }
        }
        guard try option(SO_TYPE, "SO_TYPE") == tabd_sock_stream() else { throw .notStream }
        guard try option(SO_ACCEPTCONN, "SO_ACCEPTCONN") != 0 else { throw .notListening }
        do { try Sys.setNonBlockingCloseOnExec(fd) } catch { throw .system(error) }
        return ListeningSocket(fd: fd, path: address.path, activated: true, file: nil)
    }

    /// Removes the socket file at clean exit: only for a socket tabd bound itself, and only
    /// while the file is still the one it created (a newer tabd may have replaced it).
    public func removeSocketFile() {
        guard !activated, let path, let file else { return }
        guard let st = try? Sys.linkStatus(path), FileIdentity(st) == file else { return }
        try? Sys.unlink(path)
    }

    /// Device, inode and change time: an inode number alone is reused as soon as it is free.
    private struct FileIdentity: Equatable {
        let dev: UInt64, ino: UInt64, ctimeSeconds: Int, ctimeNanoseconds: Int
        init(_ st: stat) {
            dev = UInt64(st.st_dev)
            ino = UInt64(st.st_ino)
            ctimeSeconds = Int(st.st_ctim.tv_sec)
            ctimeNanoseconds = Int(st.st_ctim.tv_nsec)
        }
    }

    /// A failed call as a `SocketError`, naming its `subject` (a path) when there is one.
    private static func wrap<T>(_ subject: String? = nil, _ body: () throws(SystemError) -> T) throws(SocketError) -> T {
        do { return try body() } catch { throw SocketError.system(subject.map(error.about) ?? error) }
    }
}

/// A path's directory, without Foundation's URL machinery.
private struct PathComponents {
    let path: String
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

// MARK: - Accepting

/// Takes connections from the listening socket. When the process (or system) runs out of
/// descriptors (EMFILE, ENFILE) or memory, it stops listening for `backoff` seconds instead
/// of spinning on a socket that stays readable, and logs once per episode. At the
/// connection limit it stops listening until a connection closes.
final class Acceptor {
    private enum State {
        case idle, listening, backingOff, full, stopped
    }

    private let loop: EventLoop
    private let fd: Int32
    private let backoff: Double
    private let logger: Logger
    private var event: OpaquePointer?
    private var state = State.idle
    /// A warning was logged for the current episode of running out (of descriptors or slots).
    private var episodeLogged = false
    private var backoffTimer: TimerHandle?

    /// Whether one more connection may be accepted.
    var hasRoom: () -> Bool = { true }
    /// Called with each accepted descriptor (non-blocking, close-on-exec).
    var onAccept: (Int32) -> Void = { Sys.close($0) }
    /// accept4; replaced by tests to simulate running out of descriptors.
    var acceptCall: (Int32) throws(SystemError) -> Int32 = { fd throws(SystemError) in try Sys.accept(fd) }
    /// Connections taken per readiness, so that a flood of connects cannot starve clients.
    private let batch = 64

    /// Backoff episodes so far (tests).
    private(set) var backoffEpisodes = 0

    init(loop: EventLoop, fd: Int32, backoff: Double, logger: Logger) {
        self.loop = loop
        self.fd = fd
        self.backoff = backoff
        self.logger = logger
    }

    deinit {
        invalidate()
    }

    /// Frees the libevent event. Called by the owner before the loop can go away.
    func invalidate() {
        stop()
        if let event { event_free(event) }
        event = nil
    }

    func start() {
        guard state == .idle else { return }
        event = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), { _, _, ctx in
            Unmanaged<Acceptor>.fromOpaque(ctx!).takeUnretainedValue().acceptReady()
        }, Unmanaged.passUnretained(self).toOpaque())
        event_priority_set(event, EventLoop.ioPriority)
        listen()
    }

    /// Stops accepting for good (shutdown). The descriptor is closed by the owner.
    func stop() {
        backoffTimer?.cancel()
        backoffTimer = nil
        if let event { event_del(event) }
        state = .stopped
    }

    var isListening: Bool { state == .listening }

    /// A connection closed: resume if we stopped at the connection limit.
    func connectionClosed() {
        guard state == .full, hasRoom() else { return }
        logger.info("below the connection limit again: accepting connections")
        episodeLogged = false
        listen()
    }

    private func listen() {
        state = .listening
        event_add(event, nil)
    }

    private func pause(_ next: State) {
        event_del(event)
        state = next
    }

    private func acceptReady() {
        for _ in 0..<batch {
            guard state == .listening else { return }
            guard hasRoom() else {
                if !episodeLogged {
                    logger.warning("connection limit reached: not accepting until a connection closes")
                    episodeLogged = true
                }
                pause(.full)
                return
            }
            let client: Int32
            do {
                client = try acceptCall(fd)
            } catch {
                switch error.errno {
                case EAGAIN, EWOULDBLOCK:
                    return
                case ECONNABORTED, EPROTO, EPERM:
                    continue  // that client is gone or refused (e.g. by a security module); next
                default:
                    backOff(error)
                    return
                }
            }
            if episodeLogged {
                logger.info("accepting connections again")
                episodeLogged = false
            }
            onAccept(client)
        }
    }

    /// EMFILE, ENFILE, ENOBUFS, ENOMEM (or anything unexpected): the socket stays readable,
    /// so listening on would spin. Stop for `backoff` seconds, then try again.
    private func backOff(_ error: SystemError) {
        if !episodeLogged {
            backoffEpisodes += 1
            let what = error.errno == EMFILE || error.errno == ENFILE ? "out of file descriptors" : "cannot accept"
            logger.warning("\(what): not accepting connections for \(backoff) s (existing clients are still served)", metadata: [
                "error": "\(error)", "accept.backoff_seconds": "\(backoff)",
            ])
            episodeLogged = true
        }
        pause(.backingOff)
        backoffTimer = loop.once(after: backoff) { [weak self] in
            guard let self, self.state == .backingOff else { return }
            self.backoffTimer = nil
            if self.hasRoom() { self.listen() } else { self.state = .full }
        }
    }
}
