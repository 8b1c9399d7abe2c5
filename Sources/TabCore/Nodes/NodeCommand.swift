// The commands of R15's containers (PROTOCOL.md, "Containers beyond tabs") and the events
// they send. A command is addressed to one container; its events may come from several (a
// child controller's children appear with it, R15.8 a), each numbered by its own container.

/// A command of a navigation, drawer or custom controller, or one every kind takes
/// (`set_window`).
public enum NodeCommand: Equatable, Sendable {
    /// R15.4: a root's window flag.
    case setWindow(Bool)
    /// R15.1: the kind's configuration (not its slots).
    case configure(NodeConfiguration)
    // R15.13: navigation.
    case push(ChildObject, animated: Bool)
    /// `user`: the back button or the edge swipe (a user action, R15.9).
    case pop(user: Bool, animated: Bool)
    case popTo(String, animated: Bool)
    case popToRoot(animated: Bool)
    case setStack([ChildObject], animated: Bool)
    // R15.25–R15.28: drawer.
    case openDrawer(DrawerSide, gesture: DrawerGesture?, animated: Bool)
    case closeDrawer(gesture: DrawerGesture?, animated: Bool)
    case toggleDrawer(DrawerSide, gesture: DrawerGesture?, animated: Bool)
    case setCenter(ChildObject, closeDrawer: Bool)
    case setDrawer(DrawerSide, ChildObject?)
    // R15.30–R15.31: custom.
    /// `shown` nil: the old `shown` still present.
    case setChildren([ChildObject], shown: [String]?)
    case setShown([String])
    case transition(from: String, to: ChildObject, animated: Bool)
    // R15.16–R15.22: split.
    /// `child` nil: only for `compact`.
    case setColumn(SplitColumn, ChildObject?)
    case showColumn(SplitColumn, user: Bool, animated: Bool)
    case hideColumn(SplitColumn, user: Bool, animated: Bool)
    case showDetail(ChildObject, animated: Bool)
    /// R15.12: `restore` of a root's tree (what `preserve` returned for it).
    case restoreTree(TreeArchive)
    /// R15.10: a non-tab root's environment (R9.3, R14.4).
    case rotate(Orientation)
    case setSizeClass(SizeClass)

    /// The command's wire name.
    public var commandName: CommandName {
        switch self {
        case .setWindow: .setWindow
        case .configure: .configure
        case .push: .push
        case .pop: .pop
        case .popTo: .popTo
        case .popToRoot: .popToRoot
        case .setStack: .setStack
        case .openDrawer: .openDrawer
        case .closeDrawer: .closeDrawer
        case .toggleDrawer: .toggleDrawer
        case .setCenter: .setCenter
        case .setDrawer: .setDrawer
        case .setChildren: .setChildren
        case .setShown: .setShown
        case .transition: .transition
        case .setColumn: .setColumn
        case .showColumn: .showColumn
        case .hideColumn: .hideColumn
        case .showDetail: .showDetail
        case .restoreTree: .restore
        case .rotate: .rotate
        case .setSizeClass: .setSizeClass
        }
    }

    public var name: String { commandName.rawValue }

    /// The kind the command is for (nil: every kind but `tab`).
    public var kind: ContainerKind? {
        switch self {
        case .setWindow, .configure, .restoreTree, .rotate, .setSizeClass: nil
        case .push, .pop, .popTo, .popToRoot, .setStack: .navigation
        case .openDrawer, .closeDrawer, .toggleDrawer, .setCenter, .setDrawer: .drawer
        case .setChildren, .setShown, .transition: .custom
        case .setColumn, .showColumn, .hideColumn, .showDetail: .split
        }
    }

    /// Whether it is a user action (R15 vocabulary: `user: true` or a `gesture`): checked for
    /// reach (R15.9), and what plugins are asked about.
    public var isUserAction: Bool {
        switch self {
        case .pop(let user, _), .showColumn(_, let user, _), .hideColumn(_, let user, _): user
        case .openDrawer(_, let g, _), .closeDrawer(let g, _), .toggleDrawer(_, let g, _): g != nil
        default: false
        }
    }
}

/// The configuration `configure` may change and `controller.create` may give (R15.1), as
/// asked: nil members are left as they are.
public struct NodeConfiguration: Equatable, Sendable {
    // Drawer (R15.26, R15.29).
    public var openGestures: [DrawerGesture]?
    public var closeGestures: [DrawerGesture]?
    public var centerInteraction: CenterInteraction?
    // Custom (R15.11): `.some(nil)` clears it.
    public var statusBarChild: String??
    // Split (R15.17, R15.19).
    public var preferredDisplayMode: SplitDisplayMode?
    public var preferredSplitBehavior: SplitBehavior?
    public var presentsWithGesture: Bool?

    public init(openGestures: [DrawerGesture]? = nil, closeGestures: [DrawerGesture]? = nil,
                centerInteraction: CenterInteraction? = nil, statusBarChild: String?? = nil,
                preferredDisplayMode: SplitDisplayMode? = nil, preferredSplitBehavior: SplitBehavior? = nil, presentsWithGesture: Bool? = nil) {
        self.openGestures = openGestures; self.closeGestures = closeGestures
        self.centerInteraction = centerInteraction; self.statusBarChild = statusBarChild
        self.preferredDisplayMode = preferredDisplayMode; self.preferredSplitBehavior = preferredSplitBehavior
        self.presentsWithGesture = presentsWithGesture
    }

    public var isEmpty: Bool { fieldNames.isEmpty }

    /// The members set, by their wire names (what `config_changed` reports).
    public var fieldNames: [String] {
        var names: [String] = []
        if openGestures != nil { names.append("open_gestures") }
        if closeGestures != nil { names.append("close_gestures") }
        if centerInteraction != nil { names.append("center_interaction") }
        if statusBarChild != nil { names.append("status_bar_child") }
        if preferredDisplayMode != nil { names.append("preferred_display_mode") }
        if preferredSplitBehavior != nil { names.append("preferred_split_behavior") }
        if presentsWithGesture != nil { names.append("presents_with_gesture") }
        return names
    }
}

/// What a container is created with (`controller.create` of a kind other than `tab`).
public struct CompositeSpec: Equatable, Sendable {
    public var body: CompositeBody
    public var window: Bool
    public var idiom: Idiom
    /// The configuration beside the slots (gestures, center interaction, status bar child).
    public var configuration: NodeConfiguration
    /// What plugins answered while it was created (a split created collapsed, R15.20): the
    /// journal keeps them, so replay asks no plugin (R15.8 d). Set by the daemon.
    public var answers: [ProposalAnswer]

    public init(body: CompositeBody, window: Bool = false, idiom: Idiom = .phone, configuration: NodeConfiguration = NodeConfiguration(),
                answers: [ProposalAnswer] = []) {
        self.body = body; self.window = window; self.idiom = idiom; self.configuration = configuration; self.answers = answers
    }

    public var kind: ContainerKind { body.kind }
}

/// What a navigation change was (`navigation_changed`'s `operation`).
public enum NavigationOperation: String, Sendable, Equatable {
    case push, pop, popTo = "pop_to", popToRoot = "pop_to_root", setStack = "set_stack"
}

/// Why a container's state changed (the `cause` of its state event).
/// A plugin's answer to a proposal hook (R15.33), as a command got it: kept in its journal
/// record, and given back to the command on replay (`RecordedProposals`).
public struct ProposalAnswer: Equatable, Sendable {
    public enum Answer: Equatable, Sendable {
        case topColumn(SplitColumn)
        case displayMode(SplitDisplayMode)
    }
    /// The split asked about.
    public var controller: String
    public var answer: Answer
    public init(controller: String, _ answer: Answer) { self.controller = controller; self.answer = answer }
}

/// The policy replay gives a command: the answers its record kept, in the order it asks,
/// and nothing else (no gate is asked on replay). A missing or mismatched answer keeps the
/// proposal (a damaged record cannot make a split impossible), and says so: `mismatches`,
/// which recovery logs as a warning.
public final class RecordedProposals: Policy {
    private let answers: [ProposalAnswer]
    private var next = 0
    private var mismatched: [String] = []
    public init(_ answers: [ProposalAnswer]) { self.answers = answers }

    /// What did not match, one sentence each: an answer for another split or of another
    /// hook than the one asked, a question the record holds no answer for, answers left
    /// unasked. Empty for a record replayed as it was written (and for one that held no
    /// answers: a journal from before they were kept).
    public var mismatches: [String] {
        guard !answers.isEmpty else { return [] }
        var out = mismatched
        if next < answers.count {
            out.append("the record holds \(answers.count - next) answer(s) that replay did not ask for (the first for split '\(answers[next].controller)'); they were ignored")
        }
        return out
    }

    private func take(_ controller: String, _ hook: String) -> ProposalAnswer.Answer? {
        guard next < answers.count else {
            mismatched.append("split '\(controller)' asked \(hook) and the record holds no answer left for it; the proposal was kept")
            return nil
        }
        guard answers[next].controller == controller else {
            mismatched.append("split '\(controller)' asked \(hook) and the record's answer \(next + 1) is for '\(answers[next].controller)'; the proposal was kept")
            return nil
        }
        next += 1
        return answers[next - 1].answer
    }

    public func topColumnForCollapsing(proposed: SplitColumn, style: SplitStyle, controller: String) -> SplitColumn {
        let hook = "top-column-for-collapsing"
        switch take(controller, hook) {
        case .topColumn(let c)?: return c
        case .displayMode?: mismatched.append("split '\(controller)' asked \(hook) and the record's answer \(next) is a display mode; the proposal was kept")
        case nil: break
        }
        return proposed
    }

    public func displayModeForExpanding(proposed: SplitDisplayMode, behavior: SplitBehavior, style: SplitStyle, controller: String) -> SplitDisplayMode {
        let hook = "display-mode-for-expanding"
        switch take(controller, hook) {
        case .displayMode(let m)?: return m
        case .topColumn?: mismatched.append("split '\(controller)' asked \(hook) and the record's answer \(next) is a top column; the proposal was kept")
        case nil: break
        }
        return proposed
    }
}

public enum NodeCause: String, Sendable, Equatable {
    case app, user, tap, restore, removed, environment
}

/// One event of an R15 container.
public enum NodeEvent: Equatable, Sendable {
    /// R15.5/R15.6: a child's appearance; `controller` when the child is a controller.
    case appearance(child: String, controller: String?, phase: AppearancePhase)
    /// R15.6/R15.7: a child's containment; `parent` the container's name, nil when it leaves.
    case containment(child: String, controller: String?, phase: ContainmentPhase, parent: String?)
    /// R15.14.
    case navigationChanged(stack: [ChildObject], operation: NavigationOperation, cause: NodeCause)
    /// R15.25.
    case drawerChanged(center: String, left: String?, right: String?, openSide: OpenSide, previous: OpenSide, cause: NodeCause)
    /// R15.30.
    case childrenChanged(children: [String], shown: [String])
    /// R15.17: an expanded, visible split's display mode is about to change.
    case displayModeWillChange(SplitDisplayMode)
    /// R15.20, R15.21.
    case splitCollapsed(topColumn: SplitColumn)
    case splitExpanded(displayMode: SplitDisplayMode)
    /// R15.16–R15.22: the split's state event (its columns' ids and modes).
    case splitChanged(SplitChange, cause: NodeCause)
    /// R15.8 b: what `configure` was asked, before its effects.
    case configChanged(NodeConfiguration)
    /// R15.4.
    case windowChanged(Bool)
    /// R15.4: attached or detached.
    case parentChanged(parent: Attachment?, window: Bool)
    /// R15.11: a visible root's status bar path.
    case statusBarChanged(path: [String])
    /// R15.5, R15.8 a: a tab controller's selected leaf appearing or disappearing with its
    /// container (today's `appearance`, with `tab`).
    case tabAppearance(tab: String, phase: AppearancePhase)
    /// R5.2, R15.8 a: a tab first shown by an ancestor loads its content just before its will_appear.
    case contentLoaded(tab: String)
    /// A nested tab controller's own notification, in a command of its tree (`restore`, R15.12).
    case tab(Notification)
    /// R15.10: a non-tab root turned (R9.3's event) or changed width class (R14.4's).
    case orientationChanged(from: Orientation, to: Orientation)
    case sizeClassChanged(SizeClass)

    public var event: EventName {
        switch self {
        case .appearance: .appearance
        case .containment: .containment
        case .navigationChanged: .navigationChanged
        case .drawerChanged: .drawerChanged
        case .childrenChanged: .childrenChanged
        case .displayModeWillChange: .displayModeWillChange
        case .splitCollapsed: .splitCollapsed
        case .splitExpanded: .splitExpanded
        case .splitChanged: .splitChanged
        case .configChanged: .configChanged
        case .windowChanged: .windowChanged
        case .parentChanged: .parentChanged
        case .statusBarChanged: .statusBarChanged
        case .tabAppearance: .appearance
        case .contentLoaded: .contentLoaded
        case .tab(let n): n.event
        case .orientationChanged: .orientationChanged
        case .sizeClassChanged: .sizeClassChanged
        }
    }
}

/// One event as sent: the container that sends it, its seq there, the event.
public struct SentNodeEvent: Equatable, Sendable {
    public var controller: String
    public var seq: UInt64
    public var event: NodeEvent

    public init(controller: String, seq: UInt64, event: NodeEvent) { self.controller = controller; self.seq = seq; self.event = event }
}

/// What a node command (or a container's creation) did.
public struct NodeOutcome: Equatable, Sendable {
    /// In order, each with its container and seq.
    public internal(set) var events: [SentNodeEvent] = []
    /// The command changed the state (it is journaled).
    public internal(set) var changed = false
    /// What plugins answered to proposals (R15.33), in the order asked: journaled with the
    /// command, so replay asks no plugin.
    public internal(set) var answers: [ProposalAnswer] = []
    /// What plugins asked for while a non-tab root's rotation asked them (R15.10, R12): the
    /// daemon does it.
    public internal(set) var effects: [PolicyEffect] = []
    /// A replayed creation whose record's answers did not match what it asked
    /// (`RecordedProposals.mismatches`).
    public internal(set) var replayWarnings: [String] = []
    public init() {}
    public init(events: [SentNodeEvent]) { self.events = events }
}
