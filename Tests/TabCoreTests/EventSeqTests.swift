// R11.4: a controller's event numbering. Every notification counts, whether anyone reads it
// or not, so that replaying the journal (no notifications built) numbers events as they were
// numbered live; a name's seq never repeats across deleting and creating it again.

import Testing
@testable import TabCore

@Suite struct EventSeqTests {
    private func tabs(_ ids: String...) -> Command { .setTabs(ids.map { Tab(id: $0) }, animated: false) }

    /// R11.4: seq is the number of notifications so far, built or only counted.
    @Test func r11_4_seqCountsEveryNotificationPublishedOrNot() throws {
        var told = Controller(name: "main"), counted = Controller(name: "main")
        var total = 0
        for command in [tabs("a", "b", "c"), .select(.tab("b")), .tap(.tab("b")), .badge(tab: "a", value: "1"),
                        .select(.tab("b")), .tap(.tab("c")), .removeTab("c")] {
            let outcome = try told.apply(command, notifying: true)
            let quiet = try counted.apply(command, notifying: false)
            #expect(outcome.notificationCount == quiet.notificationCount)
            total += outcome.notifications.count
            #expect(told.seq == UInt64(total))
        }
        #expect(told == counted)
    }

    /// A refused command numbers nothing.
    @Test func r11_4_aRefusedCommandNumbersNothing() throws {
        var c = Controller(name: "main")
        _ = try c.apply(tabs("a"))
        let before = c.seq
        #expect(throws: TabError.self) { _ = try c.apply(.select(.tab("nope"))) }
        #expect(c.seq == before)
    }

    /// R11.4: deleting and creating a controller of the same name continues above its last
    /// event (`controller_deleted`, numbered one past the last notification).
    @Test func r11_4_aRecreatedControllerNeverRepeatsASeq() throws {
        var set = TabContainers.withDefault()
        try set.create("pad", idiom: .pad)
        _ = try set.apply(tabs("a", "b"), to: "pad")
        let last = set["pad"]!.seq
        #expect(last > 0)
        #expect(try set.delete("pad") == last + 1)
        try set.create("pad", idiom: .pad)
        #expect(set["pad"]!.seq == last + 1)
        _ = try set.apply(tabs("x"), to: "pad")
        #expect(set["pad"]!.seq > last + 1)
    }

    /// Undoing a turn puts the numbering back with the controllers (the events never left).
    @Test func r11_4_undoPutsTheNumberingBack() throws {
        var set = TabContainers.withDefault()
        try set.create("pad", idiom: .pad)
        _ = try set.apply(tabs("a"), to: "pad")
        set.keepChanges()
        let saved = set
        _ = try set.apply(tabs("a", "b"), to: "pad")
        _ = set.nextSeq("pad")
        try set.delete("pad")
        try set.create("pad", idiom: .phone)
        set.undoChanges()
        #expect(set == saved)
        #expect(set.seqFloor == saved.seqFloor)
        #expect(set["pad"]!.seq == saved["pad"]!.seq)
    }

    /// `main` always exists (PROTOCOL additions); a journal written before may still delete it.
    @Test func mainCannotBeDeleted() throws {
        var set = TabContainers.withDefault()
        #expect(throws: TabError.self) { try set.delete("main") }
        #expect(set["main"] != nil)
        try set.delete("main", replaying: true)
        #expect(set["main"] == nil)
    }

    /// `bar_changed` ends a command's notifications when what the bar shows changed, and only then.
    @Test func barChangedEndsTheCommandsThatChangeTheBar() throws {
        var c = Controller(name: "main")  // phone: 5 fit, 6 → 4 + More
        var o = try c.apply(tabs("a", "b", "c", "d", "e", "f"))
        #expect(o.notifications.last == .barChanged)
        o = try c.apply(.select(.tab("b")))
        #expect(o.notifications.last == .barChanged)  // a → b on the bar
        o = try c.apply(.select(.tab("e")))
        #expect(o.notifications.last == .barChanged)  // b → More
        o = try c.apply(.select(.tab("f")))
        #expect(!o.notifications.contains(.barChanged))  // More stays the selected item
        o = try c.apply(.badge(tab: "a", value: "3"))
        #expect(!o.notifications.contains(.barChanged))
        o = try c.apply(.removeTab("f"))  // 5 tabs: More goes, e (selected by index) shows
        #expect(o.notifications.last == .barChanged)
        #expect(o.notifications.filter { $0 == .barChanged }.count == 1)
    }
}
