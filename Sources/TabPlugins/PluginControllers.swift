// Plugin ABI 1.7: plugins learn of controllers coming and going. The host keeps the names of
// the controllers tabd holds (what `controller_at` lists, init included), in byte order, and
// tells running plugins when one is created (`controller_created`) and when one is about to
// be deleted (`controller_deleted`, with it still readable, so that a plugin can end what it
// kept for it — the login gate's session — and say so to its subscribers).

import CTabPolicy
import TabCore

extension PluginHost {
    /// The controllers tabd holds, as a start recovered them (before plugins are loaded), or
    /// again after a turn that created or deleted some was undone. Isolated helpers get the
    /// new list when it differs.
    public func adoptControllers(_ names: [String]) {
        let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard sorted != controllerNames else { return }
        controllerNames = sorted
        for p in runningPlugins where p.remote != nil { p.remote?.syncControllers() }
    }

    /// The controller `controller` was created: listed, then every running plugin with
    /// controller_created is told (isolated ones without it are sent the new list).
    public func controllerCreated(in controller: LentController, effects: inout [PolicyEffect]) {
        defer { hand(&effects) }
        let name = controller.pointer.pointee.name
        if !controllerNames.contains(name) {
            let i = controllerNames.firstIndex { !$0.utf8.lexicographicallyPrecedes(name.utf8) } ?? controllerNames.count
            controllerNames.insert(name, at: i)
        }
        tellControllers(.controllerCreated, controller)
    }

    /// The controller `controller` is about to be deleted: unlisted, every running plugin
    /// with controller_deleted is told while it can still read it, then every timer armed
    /// for it is dropped. What they asked for is appended to `effects` (the engine publishes
    /// the events before the controller goes and drops selections in it).
    public func controllerDeleting(in controller: LentController, effects: inout [PolicyEffect]) {
        let name = controller.pointer.pointee.name
        controllerNames.removeAll { $0 == name }
        tellControllers(.controllerDeleted, controller)
        hand(&effects)
        controllerDeleted(name)
    }

    private func tellControllers(_ hook: PluginHook, _ controller: LentController) {
        notify(hook, controller) { p, c in
            let h = hook == .controllerCreated ? p.code.hooks.controller_created : p.code.hooks.controller_deleted
            guard let h else {
                // An isolated plugin that may list controllers keeps its helper's list in step.
                if p.code.abiMinor >= 7 { p.remote?.syncControllers() }
                return false
            }
            h(p.state, c)
            return true
        }
    }
}
