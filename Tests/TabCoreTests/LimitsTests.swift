// ControllerLimits: what one controller may hold, checked before a client's command runs.
import Testing
@testable import TabCore

@Suite("Controller limits")
struct LimitsTests {
    let limits = ControllerLimits(maxTabs: 3, maxIDBytes: 8, maxTextBytes: 16, maxStackDepth: 2)

    /// Checks `command` against `c` with `limits`; the refusal's message, or nil.
    func refusal(_ command: Command, on c: Controller) -> String? {
        do {
            try limits.check(command) { () throws(TabError) in c }
            return nil
        } catch {
            #expect(error.code == .outOfRange)
            return error.message
        }
    }

    @Test func tabsPerController() throws {
        let c = try controller(tabs("a", "b", "c"))
        #expect(refusal(.setTabs(tabs("a", "b", "c"), animated: false), on: c) == nil)
        #expect(refusal(.setTabs(tabs("a", "b", "c", "d"), animated: false), on: c)?.contains("limits.max_tabs") == true)
        #expect(refusal(.addTab(Tab(id: "d"), index: nil), on: c)?.contains("already has 3 tabs") == true)
        #expect(refusal(.addTab(Tab(id: "c"), index: nil), on: try controller(tabs("a", "b"))) == nil)
        #expect(refusal(.setCustomizable(["a", "b", "c", "d"]), on: c)?.contains("limits.max_tabs") == true)
    }

    @Test func idAndTextLengths() throws {
        let c = try controller(tabs("a"))
        let longID = String(repeating: "i", count: 9), longText = String(repeating: "é", count: 9)  // 18 bytes
        #expect(refusal(.setTabs([Tab(id: longID)], animated: false), on: c)?.contains("limits.max_id_bytes") == true)
        #expect(refusal(.setTabs([Tab(id: "a", title: longText)], animated: false), on: c)?.contains("limits.max_text_bytes") == true)
        var tab = Tab(id: "a")
        tab.item = TabItem(title: "t", image: longText)
        #expect(refusal(.addTab(tab, index: nil), on: c)?.contains("item image of 18 bytes") == true)
        #expect(refusal(.badge(tab: "a", value: longText), on: c)?.contains("badge") == true)
        #expect(refusal(.badge(tab: "a", value: "99+"), on: c) == nil)
        #expect(refusal(.updateTab("a", TabUpdate { $0.restorationID = .set(longID) }), on: c)?.contains("restoration_id") == true)
        #expect(refusal(.updateTab("a", TabUpdate { $0.title = .set(longText) }), on: c)?.contains("title") == true)
        #expect(refusal(.push(tab: "a", screen: Screen(id: longID)), on: c)?.contains("screen id") == true)
        // Exactly at the limit is fine: 8 bytes, 16 bytes.
        #expect(refusal(.setTabs([Tab(id: "12345678", title: String(repeating: "é", count: 8))], animated: false), on: c) == nil)
    }

    @Test func stackDepth() throws {
        var a = Tab(id: "a")
        a.navigation = true
        var c = try controller([a])
        #expect(refusal(.push(tab: "a", screen: Screen(id: "s1")), on: c) == nil)
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "s1")))
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "s2")))
        #expect(refusal(.push(tab: "a", screen: Screen(id: "s3")), on: c)?.contains("limits.max_stack_depth") == true)
        let deep = RestorationArchive(stacks: ["a": [Screen(id: "1"), Screen(id: "2"), Screen(id: "3")]])
        #expect(refusal(.restore(deep), on: c)?.contains("limits.max_stack_depth") == true)
        #expect(refusal(.restore(RestorationArchive(stacks: ["a": [Screen(id: "1")]])), on: c) == nil)
    }

    /// Commands that store nothing new never look the controller up (the hot path).
    @Test func readsAndSelectionsPassWithoutTheController() throws {
        for command: Command in [.select(.tab("a")), .tap(.more), .removeTab("a"), .pop(tab: "a"), .customizeEnd, .rotate(.portrait)] {
            try limits.check(command) { () throws(TabError) in
                Issue.record("looked up the controller for \(command)")
                throw TabError(.notFound, "unused")
            }
        }
    }

    /// A long value is cut in the message, which stays one readable sentence.
    @Test func longValuesAreCutInTheMessage() throws {
        let message = refusal(.setTabs([Tab(id: String(repeating: "x", count: 100_000))], animated: false), on: try controller(tabs("a")))
        #expect(message != nil && message!.utf8.count < 200)
    }
}
