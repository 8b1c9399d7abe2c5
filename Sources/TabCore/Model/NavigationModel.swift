// One navigation model (docs/architecture.md, "One navigation model"): the stack operations
// of a tab's R6 stack and of a navigation controller (R15.13) are these, over the same kind
// of value — the entries of a stack, bottom to top. The two differ only in their rules
// (`Navigation.Rules`): a tab is its own stack's root, so its entries are the screens above
// it; a navigation controller's root is its first entry, and its ids are unique. Each kind
// words a refusal its own way (R6's messages are older than R15's and stay as they are), and
// what a change sends is the kind's: R6 stacks are data (SEMANTICS R15.14: no containment or
// appearance for their screens), a navigation controller's changes are transitions (R15.7).

/// What a stack holds: a tab's screen (R6) or a navigation controller's child object (R15.2).
public protocol NavigationEntry: Equatable, Sendable {
    var id: String { get }
}

extension Screen: NavigationEntry {}
extension ChildObject: NavigationEntry {}

public enum Navigation {
    /// How a stack's owner holds it.
    public struct Rules: Sendable {
        /// How many entries at the bottom are the root: 0 when the owner is the root (a tab),
        /// 1 when the root is an entry (a navigation controller's root screen).
        public let base: Int
        /// Whether an id may be on the stack once only (R15.13: `conflict`; R6 says nothing).
        public let uniqueIDs: Bool

        /// R6: a tab's stack, the screens above the tab.
        public static let tab = Rules(base: 0, uniqueIDs: false)
        /// R15.13: a navigation controller's stack, its root first.
        public static let controller = Rules(base: 1, uniqueIDs: true)
    }

    /// A change of a stack (R6.2, R15.13).
    public enum Operation<Entry: NavigationEntry> {
        case push(Entry)
        case pop
        case popTo(String)
        case popToRoot
        case set([Entry])
    }

    /// Why an operation changed nothing and is refused. The owner words it.
    public enum Refusal: Error, Equatable {
        /// Pop at the root (R6.2).
        case atRoot
        /// Push of an id already on the stack (R15.13).
        case alreadyInStack(String)
        /// More screens above the root than the limit allows (`limits.max_stack_depth`): how many.
        case tooDeep(above: Int)
        /// `pop_to` an id that is not on the stack.
        case notInStack(String)
        /// `set` without a root (R15.13).
        case noRoot
    }

    /// The one depth rule: whether `above` screens over the root are within `max`
    /// (`limits.max_stack_depth`, R6 and R15.13 alike).
    @inline(__always)
    public static func fits(above: Int, max: Int) -> Bool { above <= max }

    /// How many screens `stack` holds above its root.
    @inline(__always)
    public static func above<Entry>(_ stack: [Entry], _ rules: Rules) -> Int { Swift.max(0, stack.count - rules.base) }

    /// `pop_to_root`, which is never refused (at the root it is a no-op): whether it changed
    /// `stack`. A tap's pop (R4.3, R15.14) is this.
    @inline(__always)
    @discardableResult
    public static func popToRoot<Entry>(_ stack: inout [Entry], _ rules: Rules) -> Bool {
        guard stack.count > rules.base else { return false }
        stack.removeSubrange(rules.base...)
        return true
    }

    /// Applies `op` to `stack` in place. Returns whether it changed (`pop_to` the top,
    /// `pop_to_root` at the root and `set` to the same stack are no-ops, R15.13); throws, with
    /// `stack` unchanged, when the operation is refused.
    @discardableResult
    public static func apply<Entry>(_ op: Operation<Entry>, to stack: inout [Entry], _ rules: Rules,
                                    maxAbove: Int = .max) throws(Refusal) -> Bool {
        switch op {
        case .push(let e):
            if rules.uniqueIDs, stack.contains(where: { $0.id == e.id }) { throw .alreadyInStack(e.id) }
            guard fits(above: above(stack, rules) + 1, max: maxAbove) else { throw .tooDeep(above: above(stack, rules) + 1) }
            stack.append(e)
            return true
        case .pop:
            guard stack.count > rules.base else { throw .atRoot }
            stack.removeLast()
            return true
        case .popTo(let id):
            guard let i = stack.firstIndex(where: { $0.id == id }) else { throw .notInStack(id) }
            guard i < stack.count - 1 else { return false }
            stack.removeSubrange((i + 1)...)
            return true
        case .popToRoot:
            return popToRoot(&stack, rules)
        case .set(let new):
            // A list given whole is checked as a container's children are (ids unique in it:
            // `TabContainers.checkChildren`) before it comes here.
            guard new.count >= rules.base else { throw .noRoot }
            guard fits(above: above(new, rules), max: maxAbove) else { throw .tooDeep(above: above(new, rules)) }
            guard new != stack else { return false }
            stack = new
            return true
        }
    }
}
