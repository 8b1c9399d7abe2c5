// OrientationRules ("orientation-rules"): the delegate's supported and preferred
// orientations, from the configuration.
//
// Settings:
//   rules:     [{tab: "video*", orientations: [portrait, landscape_left, landscape_right]}]
//              the first rule whose `tab` (an fnmatch glob) matches the selected tab applies;
//              in a controller with groups (R13), the selected leaf first, then each group
//              above it up to the root tab: the deepest tab that a rule matches decides
//   lock:      null, or orientations every controller is limited to ("portrait")
//   preferred: null, or the orientation preferred for presentation ("landscape_left")
//
// Supported orientations: what the tabs support, intersected with the selected tab's rule
// and with the lock. No rule and no lock: the plugin abstains.

import Glibc
import TabPolicy

@_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(OrientationRules.self) }

final class OrientationRules: PolicyPlugin, SupportedOrientationsHook, PreferredOrientationHook {
    static let name = "orientation-rules"
    static let version = "1.1.0"
    static let summary = "Limits supported orientations per tab (glob) and globally, and names a preferred orientation."

    struct Rule {
        var tab: String
        var orientations: Orientations
    }

    let rules: [Rule]
    let lock: Orientations?
    let preferred: Orientation?

    /// Every setting the plugin reads: any other key is refused, naming these (tabd.yaml(5) and
    /// docs/plugins.md list them; ReferencePluginSettingsTests compares them with this refusal).
    static let settingKeys: Set<String> = ["rules", "lock", "preferred"]

    init(settings: JSON, host: PolicyHost) throws {
        for key in (settings.objectValue ?? [:]).keys where !Self.settingKeys.contains(key) {
            throw PolicyError.invalid("unknown setting '\(key)' (known: \(Self.settingKeys.sorted().joined(separator: ", ")))")
        }
        var rules: [Rule] = []
        if let list = settings["rules"], !list.isNull {
            guard let items = list.arrayValue else { throw PolicyError.invalid("rules must be a list of {tab, orientations}") }
            for (i, item) in items.enumerated() {
                guard let tab = item["tab"]?.stringValue, !tab.isEmpty else {
                    throw PolicyError.invalid("rules[\(i)] needs a tab (an id or a glob such as \"video*\")")
                }
                guard let names = item["orientations"] else { throw PolicyError.invalid("rules[\(i)] needs orientations") }
                let mask: Orientations
                do { mask = try Orientations(settings: names) } catch { throw PolicyError.invalid("rules[\(i)]: \(error.message)") }
                guard !mask.isEmpty else { throw PolicyError.invalid("rules[\(i)] allows no orientation at all") }
                for key in (item.objectValue ?? [:]).keys where key != "tab" && key != "orientations" {
                    throw PolicyError.invalid("rules[\(i)] has an unknown key '\(key)' (known: tab, orientations)")
                }
                rules.append(Rule(tab: tab, orientations: mask))
            }
        }
        self.rules = rules
        if let l = settings["lock"], !l.isNull {
            let mask: Orientations
            do { mask = try Orientations(settings: l) } catch { throw PolicyError.invalid("lock: \(error.message)") }
            guard !mask.isEmpty else { throw PolicyError.invalid("lock allows no orientation at all") }
            lock = mask
        } else {
            lock = nil
        }
        if let p = settings["preferred"], !p.isNull {
            guard let name = p.stringValue, let o = Orientation(rawValue: name) else {
                throw PolicyError.invalid("preferred must be one of portrait, landscape_left, landscape_right, portrait_upside_down, or null")
            }
            preferred = o
        } else {
            preferred = nil
        }
    }

    /// The first rule matching `tab`.
    func rule(for tab: String) -> Rule? {
        rules.first { fnmatch($0.tab, tab, 0) == 0 }
    }

    func supportedOrientations(proposed: Orientations, in controller: ControllerView) -> Orientations? {
        var answer: Orientations?
        if controller.selectedIndex != nil {
            // The selected path, leaf first: a rule for a nested tab wins over its group's.
            for tab in controller.selectedPath.reversed() {
                if let rule = rule(for: tab) { answer = rule.orientations; break }
            }
        }
        if let lock { answer = (answer ?? .all).intersection(lock) }
        return answer.map { $0.intersection(proposed) }
    }

    func preferredOrientation(in controller: ControllerView) -> Orientation? {
        preferred
    }
}
