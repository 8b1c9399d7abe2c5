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
        #expect(c.supportedOrientations(policy: policy) == [.portrait, .portraitUpsideDown])
        #expect(c.preferredOrientation(policy: policy) == .portraitUpsideDown)
        #expect(policy.calls == [.supportedOrientations(proposed: .all), .preferredOrientation])
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
        #expect(c.supportedOrientations(policy: DefaultPolicy()) == .landscape)
        #expect(c.preferredOrientation(policy: DefaultPolicy()) == .landscapeLeft)
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
