// OrientationRules, the real libOrientationRules.so: supported orientations intersected per
// tab rule and lock, preferred orientation from the settings.

import TabCore
import TabPlugins
import Testing
import TestLogging

func orientationHost(_ settings: String) throws -> (PluginHost, LogRecorder) {
    _ = try referencePlugin("libOrientationRules.so")
    let (host, log) = makeHost([buildDirectory])
    try host.load([PluginSpec(path: "libOrientationRules.so", required: true, configJSON: settings)])
    return (host, log)
}

extension PluginTests {
    @Suite struct OrientationRules {
        static let videoRule = #"{"rules":[{"tab":"video*","orientations":["landscape_left","landscape_right"]}]}"#

        /// With a video tab selected, the supported orientations are the tabs' ∩ the rule.
        @Test func ruleOfSelectedTabIntersects() throws {
            let (host, _) = try orientationHost(Self.videoRule)
            var c = try controller(["home", "video-1"], orientations: .all)
            _ = try c.apply(.select(.tab("video-1")))
            #expect(c.supportedOrientations(policy: host) == .landscape)
            // The tabs' own limits still hold: proposed ∩ rule.
            #expect(host.supportedOrientations(proposed: [.portrait, .landscapeLeft], in: c) == .landscapeLeft)
        }

        /// In a controller with groups (R13) the globs match along the selected path, leaf
        /// first: a rule for a nested tab wins over its group's, and a glob matches nested ids.
        @Test func rulesMatchNestedTabsLeafFirst() throws {
            let (host, _) = try orientationHost(#"{"rules":[{"tab":"video*","orientations":"landscape"},{"tab":"media","orientations":["portrait","landscape_left"]}]}"#)
            var c = Controller(name: "c", idiom: .pad)
            let media = Tab(id: "media", orientations: .all, children: [Tab(id: "video-live"), Tab(id: "photos")])
            _ = try c.apply(.setTabs([Tab(id: "home", orientations: .all), media], animated: false))
            _ = try c.apply(.select(.tab("video-live")))
            #expect(c.selectedPath == ["media", "video-live"])
            #expect(c.supportedOrientations(policy: host) == .landscape)  // the leaf's rule
            _ = try c.apply(.select(.tab("photos")))
            #expect(c.supportedOrientations(policy: host) == [.portrait, .landscapeLeft])  // its group's
        }

        /// A tab no rule matches keeps what its tabs support (the plugin abstains).
        @Test func unmatchedTabAbstains() throws {
            let (host, _) = try orientationHost(Self.videoRule)
            let c = try controller(["home", "video-1"], orientations: .all)
            #expect(c.supportedOrientations(policy: host) == .all)
            let record = try #require(host.explain(limit: 1).last)
            #expect(record.kind == .supportedOrientations)
            #expect(record.answers.map(\.answer) == [.abstain])
            #expect(record.final == .orientations(.all))
        }

        /// A rotation the rules forbid does not happen (R9.3); an allowed one does.
        @Test func rotationFollowsRules() throws {
            let (host, _) = try orientationHost(Self.videoRule)
            var c = try controller(["home", "video-1"], orientations: .all)
            _ = try c.apply(.select(.tab("video-1")))
            #expect(try c.apply(.rotate(.portrait), policy: host).rotated == false)
            #expect(try c.apply(.rotate(.landscapeLeft), policy: host).rotated == true)
            #expect(c.orientation == .landscapeLeft)
        }

        /// A global lock limits every tab, and combines with the rules.
        @Test func lockLimitsEverything() throws {
            let (host, _) = try orientationHost(#"{"lock":["portrait","landscape_left"],"rules":[{"tab":"video*","orientations":"landscape"}]}"#)
            var c = try controller(["home", "video-1"], orientations: .all)
            #expect(c.supportedOrientations(policy: host) == [.portrait, .landscapeLeft])
            _ = try c.apply(.select(.tab("video-1")))
            #expect(c.supportedOrientations(policy: host) == .landscapeLeft)
        }

        /// The preferred orientation comes from the settings; without one the plugin abstains.
        @Test func preferredFromSettings() throws {
            let (host, _) = try orientationHost(#"{"preferred":"landscape_right"}"#)
            let c = try controller(["home"], orientations: .all)
            #expect(host.preferredOrientation(in: c) == .landscapeRight)
            #expect(c.preferredOrientation(policy: host) == .landscapeRight)
            let (quiet, _) = try orientationHost(#"{"preferred":null}"#)
            #expect(quiet.preferredOrientation(in: c) == nil)
        }

        /// Unknown orientation names and keys refuse the plugin, saying what is wrong.
        @Test func badSettingsAreRefused() throws {
            _ = try referencePlugin("libOrientationRules.so")
            let (host, _) = makeHost([buildDirectory])
            try host.load([
                PluginSpec(name: "bad-name", path: "libOrientationRules.so", configJSON: #"{"lock":"sideways"}"#),
                PluginSpec(name: "bad-key", path: "libOrientationRules.so", configJSON: #"{"rulez":[]}"#),
                PluginSpec(name: "bad-rule", path: "libOrientationRules.so", configJSON: #"{"rules":[{"orientations":["portrait"]}]}"#),
            ])
            #expect(host.status("bad-name")?.error?.contains("unknown orientation 'sideways'") == true)
            #expect(host.status("bad-key")?.error?.contains("unknown setting 'rulez'") == true)
            #expect(host.status("bad-rule")?.error?.contains("rules[0] needs a tab") == true)
        }
    }
}
