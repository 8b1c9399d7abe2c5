// The one place a Unix socket address is built or read: tabd's listener and its systemd
// notifications, tabctl, and the tests that play clients or systemd.

import Glibc

/// A sockaddr_un for `path` (a file path, or the abstract namespace when it starts with "@"),
/// with the length to pass to bind/connect/sendto. Nil when the path does not fit sun_path.
public struct UnixAddress {
    public private(set) var storage = sockaddr_un()
    public private(set) var length: socklen_t

    /// sun_path's size (108 on Linux), including the terminating NUL of a file path.
    public static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Where sun_path starts in a sockaddr_un.
    static let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!

    /// `abstract`: whether "@name" names the abstract namespace (else it is a file "@name").
    /// Nil for an empty path, a path with a NUL, or one longer than `capacity` allows.
    public init?(_ path: String, abstract: Bool = true) {
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let isAbstract = abstract && bytes.first == UInt8(ascii: "@")
        if isAbstract {
            bytes[0] = 0  // abstract namespace: a leading NUL, no terminator
            guard bytes.count <= Self.capacity else { return nil }
        } else {
            guard !bytes.isEmpty, bytes.count < Self.capacity, !bytes.contains(0) else { return nil }
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { dst in
            dst.copyBytes(from: bytes)
        }
        length = socklen_t(Self.pathOffset + bytes.count + (isAbstract ? 0 : 1))
    }

    /// Whether `path` is too long for sun_path (as a file path).
    public static func isTooLong(_ path: String) -> Bool {
        path.utf8.count >= capacity
    }

    /// The local address of the socket `fd` (getsockname), or nil when it is not AF_UNIX.
    public init?(boundTo fd: Int32) {
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, storage.sun_family == sa_family_t(AF_UNIX) else { return nil }
        self.length = length
    }

    /// The file path; nil for an abstract or unnamed socket.
    public var path: String? {
        guard Int(length) > Self.pathOffset + 1 else { return nil }
        return withUnsafeBytes(of: storage.sun_path) { raw in
            raw[0] == 0 ? nil : String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
