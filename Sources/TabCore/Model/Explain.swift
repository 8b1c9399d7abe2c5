// What `explain` asks for (docs/protocol.md, "plugins, plugin.call, explain"): the kinds of
// decision records tabd keeps, and the filters and limit of one request.

/// The kind of a decision record: which question tabd's plugins were asked. Each group of
/// kinds is kept in a history of its own (`plugins.explain_history` records each: taps;
/// orientations; timers), so one kind's flow cannot push another's records out.
public enum DecisionKind: String, CaseIterable, Sendable {
    case shouldSelect = "should_select"
    case supportedOrientations = "supported_orientations"
    case preferredOrientation = "preferred_orientation"
    /// A plugin's timer ran (its name is the record's `candidate`).
    case timer
    /// R15.26: a user's open of a drawer (the record's `side` and `gesture`; kept with the taps).
    case mayOpenDrawer = "may_open_drawer"
    /// R15.20, R15.33: a split's top column as it collapses (the record's `style`, `proposed`
    /// and `result` columns; kept with the orientations).
    case topColumnForCollapsing = "top_column_for_collapsing"
    /// R15.21, R15.33: a split's display mode as it expands (`style`, `behavior`, `proposed`,
    /// `result`; kept with the orientations).
    case displayModeForExpanding = "display_mode_for_expanding"
}

/// An `explain` request: the newest `limit` records that match every filter given (nil:
/// any), oldest first.
public struct ExplainQuery: Equatable, Sendable {
    /// Records one `explain` returns when it gives no `limit`.
    public static let defaultLimit = 20
    /// What `limit` may be.
    public static let limits: ClosedRange<Int> = 1...1000

    public var limit: Int
    /// Only records of this controller (`controller` given in the request).
    public var controller: String?
    /// Only records this plugin answered in.
    public var plugin: String?
    public var kind: DecisionKind?

    public init(limit: Int = Self.defaultLimit, controller: String? = nil, plugin: String? = nil, kind: DecisionKind? = nil) {
        self.limit = limit; self.controller = controller; self.plugin = plugin; self.kind = kind
    }
}
