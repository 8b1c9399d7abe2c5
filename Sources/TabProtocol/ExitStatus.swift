// The exit statuses of tabd and tabctl: the one place they are written. The code exits with
// these values; `--help` and the man pages' EXIT STATUS sections are written from this table
// (tabd-manpage); docs/operations.md's table is compared with it by a test
// (DocTablesTests).

/// One exit status of a tool, and what it means there.
public struct ExitStatus: Sendable, Equatable {
    public let code: Int32
    /// A sentence fragment: "tabd stopped after SIGTERM or SIGINT, …".
    public let meaning: String

    public init(_ code: Int32, _ meaning: String) { self.code = code; self.meaning = meaning }
}

public enum TabdExit {
    public static let ok = ExitStatus(0, "tabd stopped after SIGTERM or SIGINT; --check-config found the configuration valid (warnings allowed); --check-plugin loaded the plugin and ran its init and fini")
    public static let failed = ExitStatus(1, "tabd could not start for a reason other than its configuration: the state directory is in use by another tabd, damaged (see --repair) or cannot be created, the socket cannot be bound, or the Swift runtime lays out strings otherwise than this build expects (rebuild tabd with the toolchain it runs with)")
    public static let usage = ExitStatus(64, "the command line is wrong (an unknown option, a value of the wrong kind); the usage is printed")
    public static let config = ExitStatus(78, "the configuration cannot be used (EX_CONFIG): the file cannot be read, a setting is invalid or a required plugin is refused; or --check-config found a problem that stops a start, or --check-plugin a plugin tabd would not load. The unit does not restart on it (RestartPreventExitStatus=78)")

    /// In the order the man page lists them.
    public static let all = [ok, failed, usage, config]
}

/// What the clients (TabClient, tabctl; clients/python mirrors it, and its tests compare)
/// take from tabd: the one place of the default.
public enum ClientLimits {
    /// The longest line (a reply or an event) a client takes by default: 256 MiB, a `state`
    /// many times the size of the largest controller tabd holds at its limits.
    public static let defaultMaxLineBytes = 1 << 28
}

public enum TabctlExit {
    public static let ok = ExitStatus(0, "tabd answered with success (watch: it printed the --count events asked for)")
    public static let errorReply = ExitStatus(1, "tabd answered with an error, printed on stderr as tabctl: code: message; or login was given no password")
    public static let unreachable = ExitStatus(3, "tabd could not be reached (no socket, or no permission to connect: the message names the group to join), or it closed the connection before answering; or its reply was cut off, not JSON, longer than \(ClientLimits.defaultMaxLineBytes >> 20) MiB or not whole within --timeout; or it went away during watch (or for longer than show --watch waits)")
    public static let usage = ExitStatus(64, "the command line is wrong (usage error), or tabctl was run with no command and stdin is not a terminal")

    public static let all = [ok, errorReply, unreachable, usage]
}

extension ExitStatus {
    /// "0 …; 1 …" as one paragraph for `--help`.
    public static func summary(_ list: [ExitStatus]) -> String {
        "Exit status: " + list.map { "\($0.code) \($0.meaning)" }.joined(separator: "; ") + "."
    }
}
