// R8 (badges), R9 (orientation) and R10 (layout).
import Testing
@testable import TabCore

@Suite("R8 Badges")
struct BadgeTests {
    /// A badge is set, replaced with a number sent as a string, and cleared with null; nothing else changes.
    @Test("R8.1 a badge is a short string or null, and setting it changes nothing else")
    func badge() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "b", item: TabItem(title: "Bee", image: "b.png", tag: 2))])
        let before = c
        let out = try c.apply(.badge(tab: "b", value: "3"))
        #expect(out.notifications == [.badgeChanged(tab: "b", value: "3")])
        #expect(c.tab("b")?.badge == "3")
        #expect(c.tab("b")?.effectiveItem == TabItem(title: "Bee", image: "b.png", tag: 2, badge: "3"))
        _ = try c.apply(.badge(tab: "a", value: "new"))
        #expect(c.tab("a")?.effectiveItem == TabItem(title: nil, badge: "new"))  // R1.3: no title, not the id
        _ = try c.apply(.badge(tab: "a", value: nil))
        _ = try c.apply(.badge(tab: "b", value: nil))
        #expect(c.tab("a")?.badge == nil)
        #expect(c.tab("b")?.badge == nil)
        #expect(c.tab("b")?.item == before.tab("b")?.item)
        #expect(c.selection == before.selection)
        #expect(c.ids == before.ids)
        #expect(c.customizable == before.customizable)
        let same = try c.apply(.badge(tab: "b", value: nil))
        #expect(!same.changed)
        expectRefused(&c, .badge(tab: "zz", value: "1"), .notFound)
    }
}

@Suite("R9 Orientation")
struct OrientationTests {
    /// With no tabs, or tabs that declare nothing, only portrait is supported.
    @Test("R9.1 portrait by default; a tab that declares nothing supports portrait only")
    func defaults() throws {
        let empty = Controller(name: "c")
        #expect(empty.tabsOrientations == .portrait)
        #expect(empty.orientation == .portrait)
        let c = try controller([Tab(id: "a", orientations: .all), Tab(id: "b")])
        #expect(c.tabsOrientations == .portrait)
        #expect(c.decided(by: DefaultPolicy()).supported == .portrait)
    }

    /// The controller supports only what every tab supports.
    @Test("R9.1 supported orientations are the intersection over all tabs")
    func intersection() throws {
        var c = try controller([
            Tab(id: "a", orientations: .all),
            Tab(id: "b", orientations: [.portrait, .landscapeLeft, .landscapeRight]),
            Tab(id: "c", orientations: [.landscapeLeft, .portrait]),
        ])
        #expect(c.tabsOrientations == [.portrait, .landscapeLeft])
        _ = try c.apply(.updateTab("c", TabUpdate { $0.orientations = .set([.landscapeRight]) }))
        #expect(c.tabsOrientations == [.landscapeRight])
        // R9.4 (issue 17): an update that leaves nothing in common is refused.
        expectRefused(&c, .updateTab("b", TabUpdate { $0.orientations = .set(.portrait) }), .conflict)
        #expect(c.tabsOrientations == [.landscapeRight])
    }

    /// The delegate narrows the supported set and names the preferred orientation.
    @Test("R9.2 the delegate replaces supported orientations and names a preferred one")
    func delegate() throws {
        let c = try controller([Tab(id: "a", orientations: .all), Tab(id: "b", orientations: .all)])
        let policy = RecordingPolicy()
        policy.supported = .landscape
        #expect(c.decided(by: policy).supported == .landscape)
        #expect(policy.calls == [.supportedOrientations(proposed: .all), .preferredOrientation])
        policy.preferred = .landscapeRight
        #expect(c.decided(by: policy).preferred == .landscapeRight)
        policy.preferred = nil
        // No preference: the current orientation (portrait) is not supported → the first supported one.
        #expect(c.decided(by: policy).preferred == .landscapeLeft)
        #expect(c.decided(by: DefaultPolicy()).preferred == .portrait)
    }

    /// A supported orientation rotates the controller; an unsupported one leaves it as it is and says so.
    @Test("R9.3 rotate only to a supported orientation; refusal changes nothing")
    func rotate() throws {
        var c = try controller([Tab(id: "a", orientations: .all), Tab(id: "b", orientations: [.portrait, .landscapeLeft])])
        let policy = RecordingPolicy()
        let ok = try c.apply(.rotate(.landscapeLeft), policy: policy)
        #expect(ok.rotated == true)
        #expect(c.orientation == .landscapeLeft)
        #expect(ok.notifications == [.orientationChanged(from: .portrait, to: .landscapeLeft)])
        #expect(ok.journal(of: .rotate(.landscapeLeft)) == .setOrientation(.landscapeLeft))
        // The delegate is asked once for each: the supported set decides, the preference is
        // asked after the turn, and both go with the outcome (for the reply).
        #expect(policy.calls == [.supportedOrientations(proposed: [.portrait, .landscapeLeft]), .preferredOrientation])
        #expect(ok.orientations == OrientationDecision(supported: [.portrait, .landscapeLeft], preferred: .landscapeLeft))

        let before = c
        let no = try c.apply(.rotate(.landscapeRight), policy: policy)
        #expect(no.rotated == false)
        #expect(!no.changed)
        #expect(no.notifications.isEmpty)
        #expect(c == before)

        policy.supported = .landscapeLeft
        let vetoed = try c.apply(.rotate(.portrait), policy: policy)
        #expect(vetoed.rotated == false)
        #expect(c == before)
    }

    /// R9.4: a change of tabs that would leave no orientation every tab supports is a
    /// conflict naming the tab, and changes nothing.
    @Test("R9.4 tabs with no orientation in common are refused")
    func r9_4_noCommonOrientationIsAConflict() throws {
        var c = try controller([Tab(id: "a", orientations: .all), Tab(id: "b", orientations: [.portrait, .landscapeLeft])])
        let set = expectRefused(&c, .setTabs([Tab(id: "p"), Tab(id: "l", orientations: .landscape)], animated: false), .conflict)
        #expect(set?.message.contains("'l'") == true)
        let add = expectRefused(&c, .addTab(Tab(id: "up", orientations: [.portraitUpsideDown]), index: 0), .conflict)
        #expect(add?.message.contains("'up' supports portrait_upside_down") == true)
        let update = expectRefused(&c, .updateTab("a", TabUpdate { $0.orientations = .set(.landscapeRight) }), .conflict)
        #expect(update?.message.contains("'a'") == true)
        expectRefused(&c, .setTabs([Tab(id: "none", orientations: [])], animated: false), .conflict)
        #expect(!c.tabsOrientations.isEmpty)
    }

    /// R9.4: a change that leaves the current orientation unsupported rotates the controller
    /// to the first orientation the tabs support (portrait first) and announces it — decided
    /// from the tabs alone, whatever the delegate prefers, so that replay lands there too.
    @Test("R9.4 a change leaving the orientation unsupported re-orients and announces it")
    func r9_4_reorientsWhenUnsupported() throws {
        var c = try controller([Tab(id: "a", orientations: .all)])
        _ = try c.apply(.rotate(.landscapeRight))
        #expect(c.orientation == .landscapeRight)
        let policy = RecordingPolicy()
        policy.preferred = .landscapeRight
        let add = try c.apply(.addTab(Tab(id: "p"), index: nil), policy: policy)
        #expect(c.orientation == .portrait)
        #expect(add.lastButBar == .orientationChanged(from: .landscapeRight, to: .portrait))
        #expect(add.journal(of: .addTab(Tab(id: "p"), index: nil)) == .addTab(Tab(id: "p"), index: nil))
        let update = try c.apply(.updateTab("p", TabUpdate { $0.orientations = .set(.landscape) }))
        #expect(c.orientation == .landscapeLeft)
        #expect(update.lastButBar == .orientationChanged(from: .portrait, to: .landscapeLeft))
        // The last tab gone: the controller supports portrait only again (R9.1).
        _ = try c.apply(.removeTab("a"))
        let remove = try c.apply(.removeTab("p"))
        #expect(c.orientation == .portrait)
        #expect(remove.lastButBar == .orientationChanged(from: .landscapeLeft, to: .portrait))
        // set_tabs alike; a change that keeps the orientation supported does not rotate.
        _ = try c.apply(.setTabs([Tab(id: "l", orientations: [.landscapeRight])], animated: false))
        #expect(c.orientation == .landscapeRight)
        let keep = try c.apply(.setTabs([Tab(id: "l", orientations: .all)], animated: false))
        #expect(c.orientation == .landscapeRight)
        #expect(!keep.notifications.contains { if case .orientationChanged = $0 { true } else { false } })
    }
}

@Suite("R10 Layout")
struct LayoutTests {
    /// Phone: bar at the bottom; content between the status bar and the bar, never under the bar.
    @Test("R10.1 content never underlaps the bar")
    func phone() throws {
        let c = try controller(tabs("a"))
        let (bar, content) = c.layout(width: 390, height: 844, statusBar: 47)
        #expect(bar == Frame(x: 0, y: 844 - 49, width: 390, height: 49))
        #expect(content == Frame(x: 0, y: 47, width: 390, height: 844 - 49 - 47))
        #expect(content.y + content.height <= bar.y)
        let tiny = c.layout(width: 100, height: 30)
        #expect(tiny.content.y + tiny.content.height <= tiny.bar.y)
        #expect(tiny.content.height >= 0)
    }

    /// A full-screen-layout tab underlaps the status bar but still not the bar.
    @Test("R10.1 full-screen layout underlaps the status bar only")
    func fullScreen() throws {
        var c = try controller([Tab(id: "a"), Tab(id: "movie", fullScreenLayout: true)])
        _ = try c.apply(.select(.tab("movie")))
        let (bar, content) = c.layout(width: 1024, height: 768, statusBar: 20)
        #expect(content == Frame(x: 0, y: 0, width: 1024, height: 768 - 49))
        #expect(content.y + content.height == bar.y)
        _ = try c.apply(.select(.tab("a")))
        #expect(c.layout(width: 1024, height: 768, statusBar: 20).content.y == 20)
    }

    /// tv: the bar is at the top and content starts below it.
    @Test("R10.1 tv: the bar is at the top")
    func tv() throws {
        let c = try controller(.tv, [Tab(id: "a", fullScreenLayout: true)])
        let (bar, content) = c.layout(width: 1920, height: 1080, statusBar: 20)
        #expect(bar.y == 0)
        #expect(bar.width == 1920)
        #expect(content.y == bar.height)
        #expect(content.y + content.height == 1080)
    }
}
