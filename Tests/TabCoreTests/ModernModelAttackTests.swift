// R13 under attack: edge cases of hidden tabs and selection found by review.
import Foundation
import Testing
@testable import TabCore

@Suite("R13 attack: hidden tabs and the selection")
struct ModernModelAttackTests {
    /// More is selected; hiding a tab takes More off the bar: the selection must not stay on
    /// an item the bar no longer has (as R2.2: More stays selected only while it is shown).
    @Test("R13.3 hiding a tab that takes More off the bar moves a More selection")
    func hidingRemovesSelectedMore() throws {
        var c = try controller(.phone, maxVisible: 2, [tab("a"), tab("b"), tab("c", hideable: true)])
        _ = try c.apply(.select(.more))
        #expect(c.selection == .more)
        let out = try c.apply(.setHidden(tab: "c", hidden: true))
        #expect(!c.moreShown)
        #expect(c.selection != .more)
        #expect(c.selectedPath == ["a"])
        #expect(out.selectionChanges.count == 1)
    }

    /// The same through the bar's order: taking an optional tab out of the bar removes More.
    @Test("R13.5 a bar reorder that takes More off the bar moves a More selection")
    func reorderRemovesSelectedMore() throws {
        var c = try controller(.phone, maxVisible: 2, [tab("a"), group("g", ["x", "y"])])
        _ = try c.apply(.reorder(group: nil, order: ["a", "g", "x"]))
        #expect(c.moreShown)
        _ = try c.apply(.select(.more))
        let out = try c.apply(.reorder(group: nil, order: ["a", "g"]))
        #expect(!c.moreShown)
        #expect(c.selection != .more)
        #expect(out.selectionChanges.count == 1)
    }

    /// A group whose children are all hidden is a leaf; showing a child makes the selection
    /// descend into it: that is a selection change, with its appearance calls.
    @Test("R13.3 showing a child of a selected childless-looking group announces the new leaf")
    func showingChildOfSelectedLeafGroup() throws {
        var c = try controller(.pad, [tab("home"), Tab(id: "g", children: [Tab(id: "x", hidden: true, allowsHiding: true)])])
        _ = try c.apply(.select(.tab("g")))
        #expect(c.selectedPath == ["g"])
        let out = try c.apply(.setHidden(tab: "x", hidden: false))
        #expect(c.selectedPath == ["g", "x"])
        #expect(out.selectionChanges == [.selectionChanged(tab: "g", index: 1, previous: "g", cause: .hidden, path: ["g", "x"], previousPath: ["g"])])
        #expect(out.contentLoads == [.contentLoaded(tab: "x")])
        #expect(c.tab("x")?.contentLoaded == true)
    }

    /// R11 restore in an arranged controller: never onto a hidden tab (R13.3), and onto a
    /// group's leaf, with the leaf's appearance calls and the path (R13.2).
    @Test("R13.3 restore never selects a hidden tab; a group restores to its leaf")
    func restoreArranged() throws {
        var c = try controller(.pad, [tab("a", hideable: true), tab("b")])
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.setHidden(tab: "a", hidden: true))
        _ = try c.apply(.restore(RestorationArchive()))
        #expect(c.selectedPath == ["b"])

        var g = try controller(.pad, [group("g", ["x", "y"]), tab("b")])
        _ = try g.apply(.select(.tab("b")))
        let out = try g.apply(.restore(RestorationArchive()))
        #expect(g.selectedPath == ["g", "x"])
        #expect(out.contentLoads == [])  // x was loaded when set_tabs selected it
        #expect(out.selectionChanges == [.selectionChanged(tab: "g", index: 0, previous: "b", cause: .restore, path: ["g", "x"], previousPath: ["b"])])
        #expect(out.notifications.contains(.appearance(tab: "x", phase: .willAppear)))
    }

    /// A set_tabs command carries tabs as a journal record holds them, with a group's
    /// remembered child and display order: a group that stays takes neither from the new
    /// description (only from what the user did), so a record cannot bring in a state
    /// `inconsistency` refuses (a display order naming a child twice, a selected stranger).
    @Test("R13.5 a staying group ignores a described selected_child and display_order")
    func stayingIgnoresDescribedState() throws {
        var c = try controller(.pad, [group("g", ["a", "b"]), tab("h")])
        var g = group("g", ["a", "b"])
        g.selectedChild = "zzz"
        g.displayOrder = ["a", "a"]
        _ = try c.apply(.setTabs([g, tab("h")], animated: false))
        #expect(c.inconsistency == nil)
        #expect(c.tab("g")?.displayOrder == nil)
        #expect(c.sidebarItems.first?.children?.map(\.id) == ["a", "b"])
    }

    /// The user took a default tab out of the bar (R13.5): removing another tab must not
    /// put it back — remove_tab adds no tab, so none is new to the bar's order.
    @Test("R13.5 remove_tab keeps the user's bar order: a tab taken out stays out")
    func removeTabKeepsBarOrder() throws {
        var c = try controller(.pad, [tab("a"), tab("b"), tab("c")])
        _ = try c.apply(.reorder(group: nil, order: ["a", "c"]))
        #expect(c.composedBar.middle == ["a", "c"])
        _ = try c.apply(.removeTab("c"))
        #expect(c.composedBar.middle == ["a"])
        #expect(c.barOrder == ["a"])
    }

    /// A bar at max_tabs: which bar item a selection shows is found through sets (a nested
    /// scan per node was quadratic: set_hidden on a 1000-tab tree spent most of its time
    /// there). The answers are the same as for a short bar.
    @Test("R13.4 a long bar: the selected bar item of nested tabs on the bar, under More, off the bar")
    func longBarItems() throws {
        let roots = (0..<500).map { Tab(id: "r\($0)", children: [Tab(id: "k\($0)", allowsHiding: true)]) }
        var c = try controller(.phone, roots)
        _ = try c.apply(.select(.tab("k1")))
        #expect(c.barSelected == "r1")
        _ = try c.apply(.select(.tab("k450")))
        #expect(c.barSelected == "more")
        _ = try c.apply(.reorder(group: nil, order: ["k450"] + (0..<500).map { "r\($0)" }))
        #expect(c.barSelected == "k450")
        _ = try c.apply(.setHidden(tab: "k450", hidden: true))
        #expect(c.selectedPath == ["r449", "k449"])  // R13.3: the parent's sibling before it
        #expect(c.barSelected == "more")
        var tv = try controller(.tv, roots)
        _ = try tv.apply(.select(.tab("k450")))
        #expect(tv.barSelected == nil)
    }
}
