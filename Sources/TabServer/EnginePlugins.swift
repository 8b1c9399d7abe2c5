// What plugins answer and ask for: `plugins`, `plugin.call`, `explain`, and the effects
// plugins ask for (events to publish, selections to make) done after whatever asked them.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabTransport

extension ServiceEngine {
    func listPlugins(_ r: Request, _ out: inout Step) {
        reply(r, &out) { w in
            w.key(literal: "plugins"); w.beginArray()
            for p in plugins.plugins { PluginsEncoding.status(p, &w) }
            w.endArray()
        }
    }

    mutating func callPlugin(_ r: Request, plugin: String, method: String, args: JSONValue?, _ client: Client, _ out: inout Step) throws(ProtocolError) {
        let c = try controller(r.controller)
        guard case .object(let argsObject) = args ?? .object(JSONObject([])) else {
            throw ProtocolError.invalid("args", "'args' must be a JSON object")
        }
        let peer = client.peer
        // The groups cost a system call: made for plugin.call only, never on a tap.
        let caller = PluginCaller(uid: peer.uid, gid: peer.gid, pid: peer.pid, isAdmin: isAdmin(client),
                                  groups: (try? host.peerGroups(of: client)) ?? [], via: client.via)
        let answer = plugins.call(plugin: plugin, method: method, args: argsObject, controller: c, caller: caller)
        switch answer.result {
        case .success(let json):
            // Checked by the plugin host with JSONParser, and compact.
            reply(r, &out) { w in w.key(literal: "plugin"); w.string(plugin); w.key(literal: "value"); w.raw(json.utf8) }
        case .failure(let error):
            perform(answer.effects, &out)
            throw ProtocolError(error)
        }
        perform(answer.effects, &out)
    }

    func explain(_ r: Request, _ query: ExplainQuery, _ out: inout Step) {
        reply(r, &out) { w in
            w.key(literal: "decisions"); w.beginArray()
            for d in plugins.explain(query) { PluginsEncoding.decision(d, &w) }
            w.endArray()
        }
    }

    /// Does what plugins asked for (a command's, a call's or a reload's effects): publishes
    /// their events, then applies their selections in order. A selection applied here may
    /// bring effects of its own (the plugins decide its orientations; selection_changed
    /// asks for more): done in turn, a few levels deep and `maxChainSelections` in all at
    /// most, so that plugins answering each selection with others cannot keep tabd busy.
    @inline(__always)
    mutating func perform(_ effects: [PolicyEffect], depth: Int = 0, _ out: inout Step) {
        if !effects.isEmpty { performEffects(effects, depth: depth, &out) }
    }

    private mutating func performEffects(_ effects: [PolicyEffect], depth: Int, _ out: inout Step) {
        if depth == 0 {
            pluginSelectionsLeft = Self.maxChainSelections
            pluginSelectionsCapLogged = false
        }
        // The plugins' store writes first: they were made before the events that may tell of them.
        for case .store(let plugin, let key, let value) in effects {
            let k = PluginStoreKey(plugin: plugin, key: key)
            if storeBefore[k] == nil { storeBefore[k] = .some(containers.pluginData[plugin]?[key]) }
            containers.setPluginValue(plugin: plugin, key: key, value)
            journal.append(.pluginData(plugin: plugin, key: key, value: value))
            if out.outsideState { out.storeWriters.insert(plugin) }
        }
        for case .event(let plugin, let controller, let dataJSON) in effects {
            publishPluginEvent(plugin: plugin, controller: controller, dataJSON: dataJSON, &out)
        }
        for case .select(let name, let target) in effects {
            if let fault {
                plugins.warnings.warn("selection while refused", subject: "controller \(name)", "a plugin asked for a selection while changes are refused", metadata: ["controller": "\(name)", "error": "\(fault)"])
                continue
            }
            guard depth < Self.maxEffectDepth, pluginSelectionsLeft > 0 else {
                if !pluginSelectionsCapLogged {
                    pluginSelectionsCapLogged = true
                    plugins.warnings.warn("selection chain", subject: "controller \(name)", "plugins asked for selections in controller '\(name)' while tabd applied ones they asked for, too many times over (more than \(Self.maxEffectDepth) levels deep or \(Self.maxChainSelections) in all); the rest are dropped: make them stop answering each other's selections", metadata: ["controller": "\(name)"])
                }
                continue
            }
            pluginSelectionsLeft -= 1
            do {
                let command = Command.select(target)
                let outcome = try containers.apply(command, to: name, policy: policy, notifying: notifying,
                                                   selectionChanges: plugins.watchesSelection) { _, _ in }
                journal(outcome, of: command, controller: name)
                if containers.hasTreeEvents { publishInTree(outcome, controller: name, &out) } else { publish(outcome, controller: name, &out) }
                var more = outcome.effects
                tellSelectionChanges(outcome, controller: name, effects: &more)
                perform(more, depth: depth + 1, &out)
            } catch {
                plugins.warnings.warn("selection refused", subject: "controller \(name)", "a plugin asked for a selection that cannot be made", metadata: ["controller": "\(name)", "error": "\(error)"])
            }
        }
    }

    /// How deep selections asked for while applying selections asked for are followed.
    private static let maxEffectDepth = 4
    /// How many selections plugins asked for are applied for one command, call or timer, all
    /// levels together: a full hook call's worth (HookCaps.selections) per level.
    static let maxChainSelections = maxEffectDepth * HookCaps.selections

    /// Whether a command's notifications are kept: for subscribers. (For plugins told every
    /// selection change, the state machine keeps those alone: `selectionChanges`.)
    var notifying: Bool { !subscriptions.isEmpty }

    /// Tells the plugins that watch the selection what `outcome` changed of it (any cause);
    /// what they ask for meanwhile is appended to `effects`.
    mutating func tellSelectionChanges(_ outcome: Outcome, controller name: String, effects: inout [PolicyEffect]) {
        guard plugins.watchesSelection, !outcome.notifications.isEmpty else { return }
        var asked: [PolicyEffect] = []
        let plugins = self.plugins
        _ = try? containers.reading(name) { c in
            withUnsafePointer(to: c) { p in
                for case .selectionChanged(let tab, _, let previous, let cause, let path, _) in outcome.notifications {
                    let change = SelectionChange(tab: tab, previous: previous, cause: cause, path: path)
                    plugins.selectionChanged(change, in: LentController(p), effects: &asked)
                }
            }
        }
        effects.append(contentsOf: asked)
    }

    /// A plugin's timer is due (plugin ABI 1.6): its hook runs with its controller lent
    /// (dropped when that controller was deleted), then what it asked for is done and
    /// committed (by the adapter), as after a client's request.
    public mutating func fireTimer(_ timer: PluginTimer, into out: inout Step) {
        var effects: [PolicyEffect] = []
        let plugins = self.plugins
        if let name = timer.controller {
            guard containers[name] != nil else {
                logger.debug("a plugin's timer for a controller that no longer exists; dropped", metadata: ["controller": "\(name)", "timer": "\(timer.name)"])
                return
            }
            _ = try? containers.reading(name) { c in
                withUnsafePointer(to: c) { p in effects = plugins.fire(timer, in: LentController(p)) }
            }
        } else {
            effects = plugins.fire(timer, in: nil)
        }
        perform(effects, &out)
    }
}
