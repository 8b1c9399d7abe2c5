// The engine's state beyond a request: controllers created (configured or asked for), the
// journal records of a change, changes refused while the journal cannot be written, what
// is left to do once recovery loaded plugins, and a reload's transaction (what the adapter
// prepared, swapped in).

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabState

extension ServiceEngine {
    // MARK: Controllers and the journal

    /// The controllers the configuration names that do not exist yet (not while the journal
    /// cannot be written: they are created once it can).
    public mutating func createConfiguredControllers(into out: inout Step) {
        guard fault == nil else { return }
        for spec in config.controllers where containers[spec.name] == nil {
            do {
                try createController(spec.name, .tab(spec.options), &out)
            } catch {
                logger.error("a configured controller cannot be created", metadata: ["controller": "\(spec.name)", "error": "\(error.message)"])
            }
        }
    }

    mutating func createController(_ name: String, _ spec: ContainerSpec, _ out: inout Step) throws(TabError) {
        if containers[name] == nil, containers.count >= config.maxControllers {
            throw TabError(.outOfRange, "tabd holds \(containers.count) controllers, the most it may (limits.max_controllers); delete one or raise the limit")
        }
        let outcome = try containers.create(name, spec, limits: config.controllerLimits, policy: policy)
        var recorded = spec
        if case .composite(var c) = spec, !outcome.answers.isEmpty {
            // R15.8 d: what plugins answered (a split created collapsed) is in the record.
            c.answers = outcome.answers
            recorded = .composite(c)
        }
        journal.append(.createController(name: name, recorded))
        publish(outcome, &out)
        perform(containers.decideOrientations(of: name, policy: policy), &out)
        // Plugin ABI 1.7: the plugins are told, and what they ask for is done.
        var effects: [PolicyEffect] = []
        let plugins = self.plugins
        _ = try? containers.reading(name) { c in
            withUnsafePointer(to: c) { p in plugins.controllerCreated(in: LentController(p), effects: &effects) }
        }
        perform(effects, &out)
    }

    /// Writes what `command` changed (or announced: R11.4) to the journal, in the form the
    /// outcome gives it (`Outcome.journal(of:)`).
    mutating func journal(_ outcome: Outcome, of command: Command, controller: String) {
        outcome.journal(of: command) { c in
            // R15.10, R15.33: what plugins answered for the splits of its tree, just before it
            // (only a tab controller in a tree has any, and then tree events too).
            if containers.hasTreeEvents, !containers.treeAnswers.isEmpty {
                journal.append(.treeAnswers(controller: controller, containers.treeAnswers))
            }
            journal.append(c, controller: controller)
        }
    }

    /// What was changed since the last commit is durable now: nothing to undo any more.
    public mutating func keepChanges() {
        containers.keepChanges()
        if !storeBefore.isEmpty { storeBefore.removeAll() }
    }

    /// What was changed since the last commit could not be made durable: the controllers
    /// are put back as they were (created ones go, deleted ones come back), and so is every
    /// plugin store key written meanwhile — in the containers and in the plugins' own copies
    /// (an isolated helper's too) — so that a refused login leaves no session behind. The
    /// plugins hear of the controllers as they are again (`controller_at`). Returns the names
    /// of the controllers put back.
    public mutating func undoChanges() -> [String] {
        let undone = containers.undoChanges()
        if !storeBefore.isEmpty {
            for (k, old) in storeBefore { containers.setPluginValue(plugin: k.plugin, key: k.key, old) }
            plugins.restoreStore(storeBefore.map { ($0.key.plugin, $0.key.key, $0.value) })
            storeBefore.removeAll()
        }
        plugins.adoptControllers(containers.names)
        return undone
    }

    /// The journal could not be written: changes are refused until the adapter's retry
    /// succeeds (and sets `fault` to nil).
    public mutating func storageFaulted(_ fault: String) {
        self.fault = fault
        stats.storageFaults += 1
    }

    /// Every change is refused, before it is tried, while the journal cannot be written.
    @inline(__always)
    func requireWritable() throws(ProtocolError) {
        guard let fault else { return }
        throw ProtocolError(.unavailable, "the change could not be made durable (\(fault)); nothing changed. tabd keeps retrying and takes changes again as soon as the journal can be written; reads still work")
    }

    // MARK: Recovery

    /// Once the state is recovered (without plugins) and the plugins are loaded: what their
    /// init asked for, their orientations, the configured controllers.
    public mutating func finishRecovery(into out: inout Step) {
        perform(plugins.takeEffects(), &out)
        // Replayed without plugins: their orientations are asked for now.
        decideOrientations(into: &out)
        createConfiguredControllers(into: &out)
    }

    /// At shutdown: every plugin's fini, then what they asked for meanwhile (their store
    /// writes are journaled with the rest; the adapter commits them).
    public mutating func stopPlugins(into out: inout Step) {
        plugins.shutdown()
        perform(plugins.takeEffects(), &out)
    }

    /// Every controller's orientations asked of the plugins again (not a change of state:
    /// nothing to journal), and what they asked for meanwhile done.
    public mutating func decideOrientations(into out: inout Step) {
        perform(containers.decideOrientations(policy: policy), &out)
    }

    // MARK: Reload

    /// What a reload did.
    public struct ReloadReport {
        /// Settings whose new values are in use.
        public var changed: [String] = []
        /// Settings that changed in the file but keep their running values until a restart.
        public var restartRequired: [String] = []
        public var plugins = PluginChanges()
        /// Optional plugins that do not run, with why.
        public var refused: [PluginProblem] = []
        /// Plugins whose file changed on disk: they run the code loaded before.
        public var stale: [PluginProblem] = []
    }

    /// A reload's input, made by the adapter (`TabService.prepareReload`): the configuration
    /// file read again and parsed (with the running command line's overrides), and its
    /// plugins prepared beside the running ones (files checked and loaded, new or changed
    /// plugins initialised). The engine reads no file and starts no plugin: it is handed this.
    public struct PreparedReload {
        public var config: ServerConfig
        public var plugins: PreparedPlugins

        public init(config: ServerConfig, plugins: PreparedPlugins) {
            self.config = config
            self.plugins = plugins
        }
    }

    /// Applies a reload the adapter prepared, as one transaction: only a usable preparation
    /// is swapped in (the new configuration and its plugins; the replaced instances are
    /// stopped). On failure — the file could not be read or is invalid, or a required plugin
    /// would not run (the adapter discarded what it prepared) — nothing running changes and
    /// the error lists every problem. Logged and counted for `stats` either way.
    public mutating func reload(_ prepared: Result<PreparedReload, ConfigError>, into out: inout Step) -> Result<ReloadReport, ConfigError> {
        let result: Result<ReloadReport, ConfigError>
        switch prepared {
        case .success(let p): result = .success(swapIn(p, &out))
        case .failure(let error): result = .failure(error)
        }
        switch result {
        case .success(let report):
            var metadata: Logger.Metadata = [
                "plugins": .array(plugins.plugins.filter(\.loaded).map { .string($0.name) }),
                "changed": .array(report.changed.map { .string($0) }),
            ]
            if !report.restartRequired.isEmpty { metadata["restart_required"] = .array(report.restartRequired.map { .string($0) }) }
            if !report.refused.isEmpty { metadata["plugins.refused"] = .array(report.refused.map { .string($0.plugin) }) }
            logger.notice("configuration reloaded", metadata: metadata)
            if !report.restartRequired.isEmpty {
                logger.warning("settings changed that only a restart applies; their running values stay until then",
                               metadata: ["restart_required": .array(report.restartRequired.map { .string($0) })])
            }
        case .failure(let error):
            logger.error("reload failed; nothing changed, the running configuration stays", metadata: ["problems": .array(error.problems.map { .string($0.description) })])
        }
        switch result {
        case .success: stats.reloads.record(nil)
        case .failure(let error): stats.reloads.record(error.problems.map(\.description))
        }
        out.plain = false
        out.reloaded = (try? result.get()) != nil  // the adapter says so once the engine is done
        return result
    }

    private mutating func swapIn(_ prepared: PreparedReload, _ out: inout Step) -> ReloadReport {
        let next = prepared.config
        var report = ReloadReport()
        (report.changed, report.restartRequired) = config.differences(to: next)
        // What needs a restart keeps its running value.
        var applied = config
        applied.plugins = next.plugins
        applied.pluginLocations = next.pluginLocations
        applied.pluginDirectories = next.pluginDirectories
        applied.adminUIDs = next.adminUIDs
        applied.adminGIDs = next.adminGIDs
        applied.controllers = next.controllers
        applied.maxJSONDepth = next.maxJSONDepth
        applied.controllerLimits = next.controllerLimits
        applied.maxControllers = next.maxControllers
        applied.maxTotalTabs = next.maxTotalTabs
        applied.slowHookMilliseconds = next.slowHookMilliseconds
        plugins.slowHookNanoseconds = UInt64(next.slowHookMilliseconds) * 1_000_000
        applied.warningPeriod = next.warningPeriod
        plugins.warnings.period = next.warningPeriod
        applied.storeBudget = next.storeBudget
        plugins.storeBudget = next.storeBudget
        applied.explainHistory = next.explainHistory
        plugins.explainHistory = next.explainHistory
        report.plugins = plugins.commit(prepared.plugins, controllers: containers.names.compactMap { containers[$0] })
        plugins.maxJSONDepth = applied.maxJSONDepth
        if !report.plugins.started.isEmpty || !report.plugins.stopped.isEmpty, !report.changed.contains("plugins.load") {
            report.changed.append("plugins.load")  // the same settings, but a file changed or a refused plugin now runs
        }
        report.refused = prepared.plugins.refused
        report.stale = prepared.plugins.stale
        config = applied
        // Events the stopped plugins emitted (a login gate's logouts), and selections they
        // asked for; then every controller's orientations as the new plugins decide them.
        perform(report.plugins.effects, &out)
        decideOrientations(into: &out)
        createConfiguredControllers(into: &out)
        return report
    }

    /// The `reload` command: the engine cannot answer it alone (the file and the plugins are
    /// the adapter's), so the step asks for a reload (`Step.reloadAsked`); the adapter
    /// prepares one and hands it to `reload(_:answering:into:)`, which answers.
    func askForReload(_ r: Request, _ out: inout Step) {
        out.plain = false
        out.reloadAsked = Step.ReloadAsked(id: r.id)
    }

    /// Answers the `reload` command the step asked for with the adapter's `prepared`:
    /// `reload(_:into:)`, and a reply saying what it did, or a `config_invalid` error.
    public mutating func reload(_ prepared: Result<PreparedReload, ConfigError>, answering asked: Step.ReloadAsked, into out: inout Step) {
        out.reloadAsked = nil
        do throws(ProtocolError) {
            try answerReload(prepared, id: asked.id, &out)
        } catch {
            fail(id: asked.id, error, &out)
        }
    }

    private mutating func answerReload(_ prepared: Result<PreparedReload, ConfigError>, id: RequestID?, _ out: inout Step) throws(ProtocolError) {
        let report: ReloadReport
        switch reload(prepared, into: &out) {
        case .success(let r): report = r
        case .failure(let error):
            // One sentence; the problems, each once, in `problems`.
            let n = error.problems.count
            throw ProtocolError(.configInvalid, "reload refused: \(config.path ?? "the configuration") has \(n) problem\(n == 1 ? "" : "s"); nothing changed and the running configuration stays until it is fixed and reloaded",
                                lists: [("problems", error.problems.map(\.description))])
        }
        ReplyEncoder.success(id: id, into: &out.reply) { w in
            w.key(literal: "reloaded"); w.bool(true)
            w.key(literal: "plugins"); ReplyEncoder.strings(plugins.plugins.filter(\.loaded).map(\.name), &w)
            w.key(literal: "changed"); ReplyEncoder.strings(report.changed, &w)
            w.key(literal: "plugins_started"); ReplyEncoder.strings(report.plugins.started, &w)
            w.key(literal: "plugins_stopped"); ReplyEncoder.strings(report.plugins.stopped, &w)
            w.key(literal: "refused"); Self.problems(report.refused, &w)
            w.key(literal: "stale"); Self.problems(report.stale, &w)
            w.key(literal: "restart_required"); ReplyEncoder.strings(report.restartRequired, &w)
        }
    }

    /// `[{"plugin", "path", "message"}]`
    private static func problems(_ list: [PluginProblem], _ w: inout JSONWriter) {
        w.beginArray()
        for p in list {
            w.beginObject()
            w.key(literal: "plugin"); w.string(p.plugin)
            w.key(literal: "path"); w.string(p.path)
            w.key(literal: "message"); w.string(p.message)
            w.endObject()
        }
        w.endArray()
    }
}

/// One key of one plugin's store.
struct PluginStoreKey: Hashable {
    let plugin: String
    let key: String
}
