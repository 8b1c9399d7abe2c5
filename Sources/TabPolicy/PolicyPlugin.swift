// The Swift SDK for tabd policy plugins: conform a class to `PolicyPlugin` and export it
// with one line,
//
//     @_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(MyPolicy.self) }
//
// then build it as a dynamic library (`.library(type: .dynamic)`). The SDK speaks the C ABI
// of tabd/policy.h underneath; a Swift plugin never sees a C type.

/// A tabd policy plugin. tabd makes one instance per configured plugin (on load and on
/// every reload), calls it on its one thread, and drops it at fini (`shutdown()` first).
/// Every hook has a default that abstains or ignores, so implement only what you need —
/// and list it in `hooks`, so tabd does not call the rest.
public protocol PolicyPlugin: AnyObject {
    /// Short and lower-case ("login-gate"): names the plugin in `plugins`, `plugin.call`,
    /// `explain`, `stats` and `denied` errors.
    static var name: String { get }
    /// The plugin's version ("1.0.0").
    static var version: String { get }
    /// One sentence saying what it does (`description` in `plugins`).
    static var summary: String { get }
    /// The hooks tabd should call. Default: all of them.
    static var hooks: PolicyHooks { get }

    /// Called with the plugin's settings (a JSON object, `{}` when there are none). Throw
    /// (e.g. `PolicyError.invalid("…")`) to refuse to load; the message is logged and
    /// shown in `plugins`.
    init(settings: JSON, host: PolicyHost) throws

    /// A user tapped `candidate`: `.allow`, `.deny(reason:message:)` or `.abstain`.
    func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict
    /// The orientations the controller may support, or nil to abstain. tabd intersects the
    /// answer with `proposed` (what the tabs, and plugins before this one, allow).
    func supportedOrientations(proposed: Orientations, in controller: ControllerView) -> Orientations?
    /// The orientation preferred for presentation, or nil to abstain.
    func preferredOrientation(in controller: ControllerView) -> Orientation?
    /// A tap selected `candidate`.
    func didSelect(_ candidate: Candidate, in controller: ControllerView)
    /// A customization session begins with `tabs` in this order.
    func willBeginCustomizing(tabs: [String], in controller: ControllerView)
    /// A customization session is about to end with `tabs` as the new order.
    func willEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView)
    /// A customization session ended; `tabs` is the controller's order now.
    func didEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView)
    /// A plugin-defined method (`plugin.call`). Return the result; throw
    /// `PolicyError.denied`, `.invalid` or `.unknownMethod` to refuse.
    func call(_ method: String, args: JSON, in controller: ControllerView) throws -> JSON
    /// A reload is about to stop this instance (its settings changed, or it is no longer
    /// configured): called once per controller before `shutdown`, to announce what it drops
    /// with `host.emit` (ABI 1.2). Not called when a reload keeps the instance, nor at
    /// tabd's shutdown.
    func willStop(in controller: ControllerView)
    /// Called at fini (a reload replaced or dropped the instance, or tabd shuts down).
    func shutdown()
}

extension PolicyPlugin {
    public static var version: String { "0.0.0" }
    public static var summary: String { "" }
    public static var hooks: PolicyHooks { .all }
    public func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict { .abstain }
    public func supportedOrientations(proposed: Orientations, in controller: ControllerView) -> Orientations? { nil }
    public func preferredOrientation(in controller: ControllerView) -> Orientation? { nil }
    public func didSelect(_ candidate: Candidate, in controller: ControllerView) {}
    public func willBeginCustomizing(tabs: [String], in controller: ControllerView) {}
    public func willEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView) {}
    public func didEndCustomizing(tabs: [String], changed: Bool, in controller: ControllerView) {}
    public func call(_ method: String, args: JSON, in controller: ControllerView) throws -> JSON {
        throw PolicyError.unknownMethod(method)
    }
    public func willStop(in controller: ControllerView) {}
    public func shutdown() {}
}

/// Which hooks a plugin implements.
public struct PolicyHooks: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let shouldSelect = PolicyHooks(rawValue: 1 << 0)
    public static let supportedOrientations = PolicyHooks(rawValue: 1 << 1)
    public static let preferredOrientation = PolicyHooks(rawValue: 1 << 2)
    public static let didSelect = PolicyHooks(rawValue: 1 << 3)
    /// will-begin, will-end and did-end customizing.
    public static let customizing = PolicyHooks(rawValue: 1 << 4)
    public static let call = PolicyHooks(rawValue: 1 << 5)
    /// will_stop (ABI 1.2): a reload is about to stop this instance.
    public static let willStop = PolicyHooks(rawValue: 1 << 6)
    public static let all: PolicyHooks = [.shouldSelect, .supportedOrientations, .preferredOrientation, .didSelect, .customizing, .call, .willStop]
}

/// An answer to should-select.
public enum Verdict: Equatable, Sendable {
    /// Let it happen (another plugin's deny still wins).
    case allow
    /// Refuse. `reason` is short ("not logged in"); `message` is a sentence for people.
    case deny(reason: String, message: String? = nil)
    /// No opinion: never an allow by itself.
    case abstain
}

/// What a user tapped: a tab, or the More item.
public enum Candidate: Equatable, Sendable {
    case tab(id: String, index: Int)
    case more

    /// The tab id, or "more".
    public var id: String {
        switch self {
        case .tab(let id, _): return id
        case .more: return "more"
        }
    }
    public var isMore: Bool { self == .more }
}

/// The kind of device a controller behaves like.
public enum Idiom: String, Sendable {
    case phone, pad, tv
}

/// One orientation; raw values are tabd's wire names.
public enum Orientation: String, CaseIterable, Sendable {
    case portrait
    case landscapeLeft = "landscape_left"
    case landscapeRight = "landscape_right"
    case portraitUpsideDown = "portrait_upside_down"

    public var mask: Orientations {
        switch self {
        case .portrait: return .portrait
        case .landscapeLeft: return .landscapeLeft
        case .landscapeRight: return .landscapeRight
        case .portraitUpsideDown: return .portraitUpsideDown
        }
    }

    /// The orientation of a single-bit mask.
    public init?(mask: Orientations) {
        guard let o = Orientation.allCases.first(where: { $0.mask == mask }) else { return nil }
        self = o
    }
}

/// A set of orientations (the TABD_ORIENTATION_* bits).
public struct Orientations: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let portrait = Orientations(rawValue: 1 << 0)
    public static let landscapeLeft = Orientations(rawValue: 1 << 1)
    public static let landscapeRight = Orientations(rawValue: 1 << 2)
    public static let portraitUpsideDown = Orientations(rawValue: 1 << 3)
    public static let landscape: Orientations = [.landscapeLeft, .landscapeRight]
    public static let all: Orientations = [.portrait, .landscapeLeft, .landscapeRight, .portraitUpsideDown]

    /// The orientations in the set, in a fixed order.
    public var orientations: [Orientation] { Orientation.allCases.filter { contains($0.mask) } }

    /// From settings: one name or a list of names. Besides the wire names, "landscape"
    /// means both landscapes and "all" every orientation.
    public init(settings value: JSON) throws(PolicyError) {
        var names: [JSON]
        switch value {
        case .string: names = [value]
        case .array(let a): names = a
        default: throw PolicyError.invalid("orientations must be a name or a list of names")
        }
        var mask = Orientations()
        for n in names {
            guard let s = n.stringValue else { throw PolicyError.invalid("orientation names are strings") }
            switch s {
            case "landscape": mask.formUnion(.landscape)
            case "all": mask.formUnion(.all)
            default:
                guard let o = Orientation(rawValue: s) else {
                    throw PolicyError.invalid("unknown orientation '\(s)' (portrait, landscape_left, landscape_right, portrait_upside_down, landscape, all)")
                }
                mask.insert(o.mask)
            }
        }
        self = mask
    }
}

/// An error a plugin throws to refuse a call or its settings.
public struct PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad arguments or settings: the client gets `invalid_request`.
        case invalid
        /// Refused (wrong password, rate-limited): the client gets `denied`.
        case denied
        /// No such method: the client gets `not_found`.
        case unknownMethod
    }
    public var kind: Kind
    /// A sentence for people.
    public var message: String
    /// For `denied`: a short reason.
    public var reason: String?

    public init(_ kind: Kind, _ message: String, reason: String? = nil) {
        self.kind = kind; self.message = message; self.reason = reason
    }

    public static func invalid(_ message: String) -> PolicyError { PolicyError(.invalid, message) }
    public static func denied(_ message: String, reason: String? = nil) -> PolicyError { PolicyError(.denied, message, reason: reason) }
    public static func unknownMethod(_ method: String) -> PolicyError { PolicyError(.unknownMethod, "no method '\(method)'") }

    public var description: String { message }
}
