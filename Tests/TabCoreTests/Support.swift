// Builders and a recording delegate shared by the TabCore tests.
import Testing
@testable import TabCore

/// Tabs with the given ids and default everything else.
func tabs(_ ids: String...) -> [Tab] { ids.map { Tab(id: $0, title: $0.uppercased()) } }

/// `count` tabs named t0, t1, …
func tabs(count: Int, prefix: String = "t") -> [Tab] {
    (0..<count).map { Tab(id: "\(prefix)\($0)", title: "Tab \($0)") }
}

/// A phone controller holding `tabs` (set with set_tabs, so tab 0 is selected).
func controller(_ tabs: [Tab]) throws -> Controller { try controller(.phone, tabs) }

/// A controller of `idiom` holding `tabs` (set with set_tabs, so tab 0 is selected).
func controller(_ idiom: Idiom, maxVisible: Int? = nil, _ tabs: [Tab]) throws -> Controller {
    var c = Controller(name: "c", idiom: idiom, maxVisible: maxVisible)
    _ = try c.apply(.setTabs(tabs, animated: false))
    return c
}

extension Controller {
    /// Ids of the tabs, in order.
    var ids: [String] { tabs.map(\.id) }
}

extension Outcome {
    var appearances: [Notification] { notifications.filter { if case .appearance = $0 { true } else { false } } }
    var containments: [Notification] { notifications.filter { if case .containment = $0 { true } else { false } } }
    var appearanceAndContainment: [Notification] {
        notifications.filter {
            switch $0 {
            case .appearance, .containment: return true
            default: return false
            }
        }
    }
    var selectionChanges: [Notification] {
        notifications.filter { if case .selectionChanged = $0 { true } else { false } }
    }
    var didSelects: [Notification] { notifications.filter { if case .didSelect = $0 { true } else { false } } }
    var contentLoads: [Notification] { notifications.filter { if case .contentLoaded = $0 { true } else { false } } }
}

/// Applies `command`, expects it to be refused with `code`, and checks that the controller
/// did not change at all. Returns the error for further checks.
@discardableResult
func expectRefused(_ c: inout Controller, _ command: Command, policy: Policy = DefaultPolicy(),
                   _ code: TabError.Code, sourceLocation: SourceLocation = #_sourceLocation) -> TabError? {
    let before = c
    do {
        let out = try c.apply(command, policy: policy)
        if let refusal = out.refusal {
            // The delegate refused: a value in the outcome, not a throw.
            #expect(refusal.code == code, "\(refusal)", sourceLocation: sourceLocation)
            #expect(out.notifications.isEmpty && !out.changed, "a refused command notified or changed", sourceLocation: sourceLocation)
            #expect(c == before, "a refused command changed the controller", sourceLocation: sourceLocation)
            return refusal
        }
        Issue.record("expected \(code.rawValue) for \(command), got \(out.notifications)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(c == before, "a refused command changed the controller", sourceLocation: sourceLocation)
        return error
    }
}

/// A delegate that records every call, in order, and answers as configured.
final class RecordingPolicy: Policy {
    enum Call: Equatable {
        case shouldSelect(String, index: Int?)
        case supportedOrientations(proposed: OrientationMask)
        case preferredOrientation
        case didSelect(String, index: Int?)
        case willBeginCustomizing([String])
        case willEndCustomizing([String], changed: Bool)
        case didEndCustomizing([String], changed: Bool)
        case visibilityChanged([TabVisibility])
        case displayOrderChanged(group: String?, order: [String])
    }

    var calls: [Call] = []
    /// Candidate id → (who, why) for refusals.
    var refuse: [String: (by: String, reason: String)] = [:]
    /// Intersected with what the tabs propose; nil leaves it alone.
    var supported: OrientationMask?
    var preferred: Orientation?
    /// Selection as seen by the delegate at did-select time.
    var selectionAtDidSelect: [Selection] = []
    /// Off unless a test turns it on: then each change also asks for the orientations.
    var decidesOrientations = false
    /// A sentence for people to refuse with (nil: the controller's own).
    var refusalMessage: String?
    /// What the delegate asks for at did-select (as a plugin's emit would).
    var effectAtDidSelect: PolicyEffect?

    func shouldSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) -> Decision {
        calls.append(.shouldSelect(candidate.id, index: candidate.index))
        if let r = refuse[candidate.id] { return .deny(by: r.by, reason: r.reason, message: refusalMessage) }
        return .allow
    }
    func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask {
        calls.append(.supportedOrientations(proposed: proposed))
        return supported.map { proposed.intersection($0) } ?? proposed
    }
    func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation? {
        calls.append(.preferredOrientation)
        return preferred
    }
    func didSelect(_ candidate: Candidate, in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.didSelect(candidate.id, index: candidate.index))
        selectionAtDidSelect.append(controller.selection)
        if let effectAtDidSelect { effects.append(effectAtDidSelect) }
    }
    func willBeginCustomizing(tabs: [String], in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.willBeginCustomizing(tabs))
    }
    func willEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.willEndCustomizing(tabs, changed: changed))
    }
    func didEndCustomizing(tabs: [String], changed: Bool, in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.didEndCustomizing(tabs, changed: changed))
    }
    func visibilityChanged(_ tabs: [TabVisibility], in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.visibilityChanged(tabs))
    }
    func displayOrderChanged(group: String?, order: [String], in controller: LentController, effects: inout [PolicyEffect]) {
        calls.append(.displayOrderChanged(group: group, order: order))
    }
}

extension Controller {
    /// R9.2's orientations as `policy` decides them now (what it asks for meanwhile is left out).
    func decided(by policy: Policy) -> OrientationDecision {
        var effects: [PolicyEffect] = []
        return orientations(policy: policy, effects: &effects)
    }

    /// The same state, whatever the event numbering (R11.4): a push then a pop leaves the
    /// controller as it was, but two events later.
    func sameState(as other: Controller) -> Bool {
        var a = self
        a.seq = other.seq
        return a == other
    }
}

extension Outcome {
    /// The last notification before a trailing `bar_changed` (which ends a command's
    /// notifications whenever what the bar shows changed).
    var lastButBar: TabCore.Notification? { notifications.last(where: { $0 != .barChanged }) }
}
