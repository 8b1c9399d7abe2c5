// Errors as values that map one-to-one onto the wire's error codes (PROTOCOL.md).

/// A rejected command. A command that throws changed nothing.
public struct TabError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The wire code of the error.
    public enum Code: String, Sendable, Equatable {
        case notFound = "not_found"
        case outOfRange = "out_of_range"
        case conflict
        case notAvailable = "not_available"
        case denied
        case invalid = "invalid_request"
        /// Not the client's fault: e.g. a plugin answered with output tabd does not accept.
        case `internal`
    }

    public var code: Code
    /// A sentence a person understands.
    public var message: String
    /// For `denied`: the plugin that refused.
    public var plugin: String?
    /// For `denied`: the plugin's reason.
    public var reason: String?
    /// For a plugin method's output that tabd refused: the method.
    public var method: String?
    /// For `invalid_request`: the request's field at fault (the wire's `field`).
    public var field: String?

    public init(_ code: Code, _ message: String, plugin: String? = nil, reason: String? = nil, method: String? = nil, field: String? = nil) {
        self.code = code; self.message = message; self.plugin = plugin; self.reason = reason; self.method = method; self.field = field
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// What an index may be, as people write it: "it must be 0", "it must be from 0 to 5".
    static func allowed(upTo last: Int) -> String {
        last == 0 ? "it must be 0" : "it must be from 0 to \(last)"
    }

    static func noTab(_ id: String) -> TabError { TabError(.notFound, "no tab '\(id)' in this controller") }
}
