// R12: TabCore asks its Policy (the plugin chain in the daemon) and tells it what happened.
import Testing
@testable import TabCore

@Suite("R12 Delegate decisions come from the policy")
struct PolicyTests {
    /// Should-select is asked for taps, with the controller as it was before the tap;
    /// a deny vetoes; did-select follows an allowed tap.
    @Test("R12 should-select is asked before a tap and did-select told after it")
    func selectDecisions() throws {
        var c = try controller(tabs(count: 6))
        let policy = RecordingPolicy()
        policy.refuse["t3"] = ("gate", "closed")
        _ = try c.apply(.tap(.tab("t2")), policy: policy)
        expectRefused(&c, .tap(.tab("t3")), policy: policy, .denied)
        _ = try c.apply(.tap(.more), policy: policy)
        #expect(policy.calls == [
            .shouldSelect("t2", index: 2), .didSelect("t2", index: 2),
            .shouldSelect("t3", index: 3),
            .shouldSelect("more", index: nil), .didSelect("more", index: nil),
        ])
    }

    /// Supported orientations come from the policy given the tabs' intersection; preferred from the policy.
    @Test("R12 supported and preferred orientations are asked of the policy")
    func orientationDecisions() throws {
        var c = try controller([Tab(id: "a", orientations: .all)])
        let policy = RecordingPolicy()
        policy.supported = [.portrait, .portraitUpsideDown]
        policy.preferred = .portraitUpsideDown
        #expect(c.decided(by: policy) == OrientationDecision(supported: [.portrait, .portraitUpsideDown], preferred: .portraitUpsideDown))
        #expect(policy.calls == [.supportedOrientations(proposed: .all), .preferredOrientation], "each asked once")
        #expect(try c.apply(.rotate(.landscapeLeft), policy: policy).rotated == false)
        #expect(try c.apply(.rotate(.landscapeLeft)).rotated == true)
    }

    /// Customization notifications reach the policy in order: will-begin, will-end, did-end.
    @Test("R12 the policy is told of customization in order")
    func customizationNotices() throws {
        var c = try controller(tabs(count: 6))
        let policy = RecordingPolicy()
        _ = try c.apply(.customizeBegin, policy: policy)
        _ = try c.apply(.customizeMove(tab: "t0", to: 5), policy: policy)
        _ = try c.apply(.customizeEnd, policy: policy)
        let start = (0..<6).map { "t\($0)" }
        let end = ["t1", "t2", "t3", "t4", "t5", "t0"]
        #expect(policy.calls == [
            .willBeginCustomizing(start),
            .willEndCustomizing(end, changed: true),
            .didEndCustomizing(end, changed: true),
        ])
    }

    /// With the default policy every tap is allowed and orientations are the tabs' own.
    @Test("R12 with no plugin the seeds' defaults apply")
    func defaults() throws {
        var c = try controller([Tab(id: "a", orientations: .landscape), Tab(id: "b", orientations: .all)])
        _ = try c.apply(.tap(.tab("b")))
        #expect(c.selection == .tab("b"))
        #expect(c.decided(by: DefaultPolicy()) == OrientationDecision(supported: .landscape, preferred: .landscapeLeft))
        #expect(c.decidedOrientations == c.decided(by: DefaultPolicy()), "what state reports, without a delegate")
    }
}

@Suite("Tab containers")
struct ContainersTests {
    /// A fresh set holds the phone controller "main".
    @Test("containers start with the default phone controller 'main'")
    func defaultMain() throws {
        let all = TabContainers.withDefault()
        #expect(all.names == ["main"])
        let main = try all.controller("main")
        #expect(main.idiom == .phone)
        #expect(main.maxVisible == 5)
        #expect(TabContainers().names.isEmpty)
    }

    /// Controllers are created with an idiom and optional max_visible, and deleted by name.
    @Test("create and delete controllers")
    func createDelete() throws {
        var all = TabContainers.withDefault()
        try all.create("living-room.tv", idiom: .tv)
        try all.create("pad_2", idiom: .pad, maxVisible: 3)
        #expect(all.names == ["living-room.tv", "main", "pad_2"])
        #expect(all["living-room.tv"]?.maxVisible == 7)
        #expect(all["pad_2"]?.maxVisible == 3)
        try all.delete("pad_2")
        #expect(all["pad_2"] == nil)
        #expect(throws: TabError(.notFound, "no controller named 'pad_2'")) { try all.delete("pad_2") }
    }

    /// A second controller with the same name is a conflict and changes nothing.
    @Test("a duplicate controller name is a conflict")
    func duplicate() throws {
        var all = TabContainers.withDefault()
        _ = try all.apply(.setTabs(tabs("a"), animated: false), to: "main")
        let before = all
        let error = #expect(throws: TabError.self) { try all.create("main", idiom: .tv) }
        #expect(error?.code == .conflict)
        #expect(all == before)
    }

    /// Names are 1–64 characters of letters, digits, '-', '_' and '.'.
    @Test("invalid controller names are rejected",
          arguments: ["", "has space", "slash/name", "ünï", String(repeating: "x", count: 65), "semi;colon", "new\nline"])
    func invalidNames(name: String) {
        var all = TabContainers.withDefault()
        let error = #expect(throws: TabError.self) { try all.create(name, idiom: .phone) }
        #expect(error?.code == .invalid)
        #expect(all.names == ["main"])
    }

    /// The longest allowed name works.
    @Test("a 64-character name is accepted")
    func longestName() throws {
        var all = TabContainers()
        try all.create(String(repeating: "a", count: 64), idiom: .phone)
        #expect(all.names.count == 1)
    }

    /// max_visible must be 2…1000 (1…1000 on tv, which needs no room for More).
    @Test("max_visible bounds")
    func maxVisibleBounds() throws {
        var all = TabContainers()
        for (idiom, value) in [(Idiom.phone, 1), (.pad, 1), (.phone, 1001), (.tv, 0), (.tv, -3)] {
            let error = #expect(throws: TabError.self) { try all.create("x", idiom: idiom, maxVisible: value) }
            #expect(error?.code == .outOfRange)
        }
        #expect(all.names.isEmpty)
        try all.create("p", idiom: .phone, maxVisible: 2)
        try all.create("q", idiom: .pad, maxVisible: 1000)
        try all.create("t", idiom: .tv, maxVisible: 1)
        #expect(all["t"]?.maxVisible == 1)
    }

    /// Commands go to the named controller; a refused one or an unknown name changes nothing.
    @Test("apply addresses one controller and a refusal changes nothing")
    func applyToNamed() throws {
        var all = TabContainers.withDefault()
        try all.create("other", idiom: .pad)
        _ = try all.apply(.setTabs(tabs("a", "b"), animated: false), to: "other")
        #expect(all["other"]?.ids == ["a", "b"])
        #expect(all["main"]?.tabs.isEmpty == true)
        let before = all
        #expect(throws: TabError.self) { try all.apply(.select(.tab("zz")), to: "other") }
        #expect(all == before)
        let error = #expect(throws: TabError.self) { try all.apply(.select(.index(0)), to: "nobody") }
        #expect(error?.code == .notFound)
        #expect(all == before)
        all.insert(Controller(name: "other", idiom: .tv))
        #expect(all["other"]?.idiom == .tv)
    }
}

@Suite("Policy decisions are values")
struct PolicyDecisionValueTests {
    /// A refused tap returns its refusal in the outcome — the delegate's name, reason and
    /// sentence — instead of throwing; nothing changes and nothing is journaled.
    @Test("R4.2 a refusal is the outcome's value, with the delegate's own sentence")
    func refusalIsAValue() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "b")])
        let policy = RecordingPolicy()
        policy.refuse["b"] = (by: "gate", reason: "closed")
        policy.refusalMessage = "b is closed until noon"
        let before = c
        let out = try c.apply(.tap(.tab("b")), policy: policy)
        #expect(out.refusal == TabError(.denied, "b is closed until noon", plugin: "gate", reason: "closed"))
        #expect(c == before && !out.changed && out.journal(of: .tap(.tab("b"))) == nil)
        policy.refusalMessage = nil
        #expect(try c.apply(.tap(.tab("b")), policy: policy).refusal?.message == "'gate' refused selecting 'b': closed")
    }

    /// What the delegate asks for while it is told of a tap comes back with the tap.
    @Test("R12 what the delegate asks for comes back in the outcome")
    func effectsComeWithTheOutcome() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "b")])
        let policy = RecordingPolicy()
        policy.effectAtDidSelect = .select(controller: "main", target: .tab("a"))
        #expect(try c.apply(.tap(.tab("b")), policy: policy).effects == [.select(controller: "main", target: .tab("a"))])
        #expect(try c.apply(.select(.tab("a")), policy: policy).effects.isEmpty, "a select tells the delegate nothing")
    }

    /// A delegate that decides orientations is asked once for each after a change, and the
    /// controller keeps the answers: reading them asks nobody; a command that changed
    /// nothing asks nothing.
    @Test("R9.2 the orientations are decided once per change and read without asking")
    func orientationsDecidedOncePerChange() throws {
        var c = try controller([Tab(id: "a", orientations: .all), Tab(id: "b", orientations: .all)])
        let policy = RecordingPolicy()
        policy.decidesOrientations = true
        policy.supported = .landscape
        policy.preferred = .landscapeRight
        let out = try c.apply(.select(.tab("b")), policy: policy)
        #expect(policy.calls == [.supportedOrientations(proposed: .all), .preferredOrientation])
        #expect(out.orientations == OrientationDecision(supported: .landscape, preferred: .landscapeRight))
        #expect(c.decidedOrientations == out.orientations)
        #expect(c.decidedOrientations == out.orientations)
        _ = try c.apply(.select(.tab("b")), policy: policy)
        #expect(policy.calls.count == 2, "a command that changed nothing asks nothing")
        // A rotation asks once for each too, the reply's values included.
        let turned = try c.apply(.rotate(.landscapeLeft), policy: policy)
        #expect(policy.calls.count == 4)
        #expect(turned.orientations == OrientationDecision(supported: .landscape, preferred: .landscapeRight))
        // Under a delegate that does not decide them, the tabs do again.
        _ = try c.apply(.select(.tab("a")))
        #expect(c.decidedOrientations == OrientationDecision(supported: .all, preferred: .landscapeLeft))
    }
}
