// Replay: what one journal record does to the containers. The one definition, used by tabd's
// recovery (TabServer's ServiceRecovery), the state tests and the journal fuzz target.

import TabCore

extension TabContainers {
    /// Applies `record` as recovery does: no plugins (DefaultPolicy; their orientation answers
    /// are asked for once recovery ends), no notifications, the rules the record's journal was
    /// written under. Throws the reason a record cannot apply (recovery then treats it as damage).
    /// Returns what did not match in a record that applied (plugins' answers journaled with it
    /// that the replayed command did not ask for as recorded, R15.8 d: the proposals were
    /// kept), one sentence each, for recovery to log as warnings.
    @discardableResult
    public mutating func replay(_ record: JournalRecord, semantics: Semantics) throws(TabError) -> [String] {
        switch record {
        case .command(let controller, let command):
            // The answers the record before it kept (R15.10, R15.33), else no plugin's.
            let answers = takeRecordedAnswers(for: controller)
            let recorded = answers.isEmpty ? nil : RecordedProposals(answers)
            _ = try apply(command, to: controller, policy: recorded ?? DefaultPolicy(), notifying: false, semantics: semantics)
            // Its other containers' events were sent when it ran: none is left for the next
            // command to publish as its own.
            if hasTreeEvents { _ = takePlacedTreeEvents() }
            return recorded?.mismatches ?? []
        case .treeAnswers(let controller, let answers):
            recordAnswers(answers, for: controller)
        case .createController(let name, let spec):
            return try create(name, spec, limits: .unlimited).replayWarnings
        case .node(let controller, let command, let answers):
            let recorded = RecordedProposals(answers)
            _ = try apply(command, to: controller, policy: recorded, replaying: true, limits: .unlimited)
            return recorded.mismatches
        case .deleteController(let name):
            try delete(name, replaying: true)
        case .eventSeq(let name, let seq):
            try setSeq(name, seq)
        case .pluginData(let plugin, let key, let value):
            setPluginValue(plugin: plugin, key: key, value)
        }
        return []
    }
}
