// Plugin ABI 1.11 (SEMANTICS R15.20, R15.21, R15.33): a split view controller's proposals —
// the column on top as it collapses, the display mode as it expands — folded through the
// plugins that answer them, and the generic notification of every R15 event (`notify`).
//
// A proposal is asked of the plugins in load order; each sees the current proposal; an
// answer replaces it; abstaining, an answer the split cannot take, or a failure keeps it.
// Each plugin's answer is recorded for `explain`, with the proposal before and after.

import CTabPolicy
import TabCore
import TabSystem

extension PluginHost {
    /// R15.20: the column on top when the split `controller` collapses without a compact child.
    /// `compact`, and `supplementary` on a double split, are not answers a plugin may give.
    public func topColumnForCollapsing(proposed: SplitColumn, style: SplitStyle, controller: String) -> SplitColumn {
        let chain = collapseChain
        if chain.isEmpty { return proposed }
        return controller.withCString { name in
            style.rawValue.withCString { st in
                fold(.topColumnForCollapsing, .topColumnForCollapsing, proposed, noun: "column", controller: controller,
                     split: DecisionRecord.SplitProposal(style: style.rawValue, behavior: nil, proposed: proposed.rawValue),
                     plugins: chain.map(\.0)) { i, current, out in
                    var c = tabd_split_collapse(struct_size: MemoryLayout<tabd_split_collapse>.size, controller: name, style: st, proposed: current)
                    return chain[i].1(chain[i].0.state, &c, out)
                } refusal: { column in
                    switch column {
                    case .compact: "only a compact child is on top as compact, and tabd puts it there unasked"
                    case .supplementary where style == .double: "a double split has no supplementary column"
                    default: nil
                    }
                }
            }
        }
    }

    /// R15.21: the display mode the split `controller` takes as it expands. `automatic`, a mode
    /// `behavior` does not allow, and a mode of two columns beside on a double split are not
    /// answers a plugin may give.
    public func displayModeForExpanding(proposed: SplitDisplayMode, behavior: SplitBehavior, style: SplitStyle, controller: String) -> SplitDisplayMode {
        let chain = expandChain
        if chain.isEmpty { return proposed }
        return controller.withCString { name in
            style.rawValue.withCString { st in
                behavior.rawValue.withCString { b in
                    fold(.displayModeForExpanding, .displayModeForExpanding, proposed, noun: "display mode", controller: controller,
                         split: DecisionRecord.SplitProposal(style: style.rawValue, behavior: behavior.rawValue, proposed: proposed.rawValue),
                         plugins: chain.map(\.0)) { i, current, out in
                        var e = tabd_split_expand(struct_size: MemoryLayout<tabd_split_expand>.size, controller: name, style: st, behavior: b, proposed: current)
                        return chain[i].1(chain[i].0.state, &e, out)
                    } refusal: { mode in
                        if mode == .automatic { return "automatic is a preference, never a split's display mode" }
                        if mode.besides == 2 && style == .double { return "a double split shows at most one column beside the secondary" }
                        if !mode.isAllowed(under: behavior, style: style) { return "the split's behavior, \(behavior.rawValue), does not allow it" }
                        return nil
                    }
                }
            }
        }
    }

    /// The fold of a split proposal: `ask(i, current, out)` calls plugin i's hook with the
    /// current proposal; `refusal` says why an answer cannot be taken (nil: it can).
    private func fold<Value: RawRepresentable<String>>(
        _ kind: DecisionKind, _ hook: PluginHook, _ proposed: Value, noun: String, controller: String,
        split: DecisionRecord.SplitProposal, plugins: [PluginInstance],
        ask: (Int, UnsafePointer<CChar>, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> tabd_result,
        refusal: (Value) -> String?
    ) -> Value {
        var current = proposed
        var answers = takeAnswerBuffer()
        let frame = self.frame
        var t0 = monotonicNanoseconds()
        for (i, plugin) in plugins.enumerated() {
            let failuresBefore = plugin.helperFailures
            var out: UnsafePointer<CChar>?
            enter(plugin, hook)
            let result = current.rawValue.withCString { ask(i, $0, &out) }
            leave()
            let t1 = monotonicNanoseconds()
            let dt = t1 &- t0
            t0 = t1
            plugin.count(hook, nanoseconds: dt)
            let answer: PluginAnswer.Answer
            if result == TABD_ABSTAIN {
                answer = .abstain
            } else if result == TABD_OK, let out, let value = Value(rawValue: HookCaps.text(out)) {
                if let why = refusal(value) {
                    answer = .invalid(value.rawValue, why: why)
                } else {
                    current = value
                    answer = .proposal(value.rawValue)
                }
            } else {
                plugin.failures += 1
                answer = .failed(failuresBefore != plugin.helperFailures ? "its helper crashed or timed out"
                    : result == TABD_OK ? (out.map { "it answered '\(HookCaps.text($0))', which is not a \(noun)" } ?? "it returned TABD_OK without an answer")
                    : result == TABD_ERROR ? "it returned TABD_ERROR"
                    : "it returned \(result.rawValue), not TABD_OK or TABD_ABSTAIN")
            }
            frame.endHook()
            answers.append(PluginAnswer(plugin: plugin.name, answer: answer, nanoseconds: dt))
        }
        recordProposal(kind, controller: controller, split: split, answers: &answers, result: current.rawValue)
        return current
    }

    // MARK: notify

    /// Some running plugin has notify (ABI 1.11): only then does the engine encode an R15
    /// event for the plugins.
    public var hearsNotifications: Bool { !notifyChain.isEmpty }

    /// `Policy.hearsEvents`: the plugins with notify are told the containers' events.
    public var hearsEvents: Bool { hearsNotifications }

    /// R15.33: one event of an R15 container (`json`: the event object as a subscriber gets
    /// it, `length` bytes, NUL-terminated), told to every running plugin that has notify, in
    /// load order. What they ask for meanwhile is appended to `effects`.
    public func notifyEvent(_ event: String, controller: String, json: UnsafePointer<CChar>, length: Int, effects: inout [PolicyEffect]) {
        let chain = notifyChain
        guard !chain.isEmpty else { return }
        defer { hand(&effects) }
        let frame = self.frame
        event.withCString { n in
            controller.withCString { c in
                var note = tabd_notification(struct_size: MemoryLayout<tabd_notification>.size, name: n, controller: c, json: json, json_length: length)
                for (plugin, hook) in chain {
                    let t0 = monotonicNanoseconds()
                    enter(plugin, .notify)
                    _ = hook(plugin.state, &note)
                    leave()
                    plugin.count(.notify, since: t0)
                    frame.endHook()
                }
            }
        }
    }
}
