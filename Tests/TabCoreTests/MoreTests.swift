// R3: the More overflow, and the tv idiom's bar.
import Testing
@testable import TabCore

@Suite("R3 The More overflow")
struct MoreTests {
    /// A phone with exactly max_visible (5) tabs shows them all and no More.
    @Test("R3.1 no More at max_visible tabs")
    func noMoreAtMax() throws {
        let c = try controller(tabs(count: 5))
        #expect(c.maxVisible == 5)
        #expect(!c.moreShown)
        #expect(c.barVisible == ["t0", "t1", "t2", "t3", "t4"])
        #expect(c.moreList.isEmpty)
    }

    /// A phone with max_visible + 1 (6) tabs shows 4 tabs and More; More lists the other two.
    @Test("R3.1 More at max_visible + 1 tabs: max_visible - 1 tabs plus More")
    func moreAtMaxPlusOne() throws {
        let c = try controller(tabs(count: 6))
        #expect(c.moreShown)
        #expect(c.barTabCount == 4)
        #expect(c.barVisible == ["t0", "t1", "t2", "t3", "more"])
        #expect(c.moreList == ["t4", "t5"])
    }

    /// The threshold follows the controller's own max_visible (pad default 8, custom 3).
    @Test("R3.1 the threshold is the controller's max_visible", arguments: [(Idiom.pad, nil as Int?), (.phone, 3), (.pad, 2)])
    func thresholdFollowsMaxVisible(idiom: Idiom, maxVisible: Int?) throws {
        let max = maxVisible ?? idiom.defaultMaxVisible
        let atMax = try controller(idiom, maxVisible: maxVisible, tabs(count: max))
        #expect(!atMax.moreShown)
        #expect(atMax.barVisible.count == max)
        let over = try controller(idiom, maxVisible: maxVisible, tabs(count: max + 1))
        #expect(over.moreShown)
        #expect(over.barVisible.count == max)
        #expect(over.barVisible.last == "more")
        #expect(over.moreList == ["t\(max - 1)", "t\(max)"])
    }

    /// More is not a tab: it has no index and "more" cannot be used as a tab id.
    @Test("R3.2 More is never one of the tabs")
    func moreIsNotATab() throws {
        var c = try controller(tabs(count: 7))
        #expect(!c.ids.contains("more"))
        #expect(c.index(of: "more") == nil)
        #expect(c.tab("more") == nil)
        expectRefused(&c, .addTab(Tab(id: "more"), index: nil), .invalid)
        expectRefused(&c, .setTabs(tabs("a", "more"), animated: false), .invalid)
    }

    /// More exists even when it is not shown, but is selected only while it is on the bar
    /// (R3.7, amended in issue 17: selecting it before left the bar highlighting no item).
    @Test("R3.2 More always exists, even when not shown; R3.7 it is selected only when shown")
    func moreAlwaysExists() throws {
        var c = try controller(tabs("a", "b"))
        #expect(!c.moreShown)
        #expect(!c.ids.contains(Controller.moreID))
        let error = expectRefused(&c, .select(.more), .notAvailable)
        #expect(error?.message.contains("More is not on the bar") == true)
        _ = try c.apply(.setTabs(tabs(count: 6), animated: false))
        _ = try c.apply(.select(.more))
        #expect(c.selection == .more)
    }

    /// With More selected, selected_index is not-found (nil) and selected reports "more".
    @Test("R3.3 selecting More makes selected_index nil and selected 'more'")
    func moreSelectedIndex() throws {
        var c = try controller(tabs(count: 6))
        _ = try c.apply(.select(.index(2)))
        let out = try c.apply(.select(.more))
        #expect(c.selectedIndex == nil)
        #expect(c.selection.wireValue == "more")
        #expect(c.barSelected == "more")
        #expect(out.selectionChanges == [.selectionChanged(tab: "more", index: nil, previous: "t2", cause: .select)])
    }

    /// A tab listed under More can be selected by id and by an index ≥ max_visible - 1.
    @Test("R3.4 tabs under More can be selected by id or index")
    func selectUnderMore() throws {
        var c = try controller(tabs(count: 8))
        _ = try c.apply(.select(.index(4)))
        #expect(c.selection == .tab("t4"))
        #expect(c.selectedIndex == 4)
        _ = try c.apply(.select(.tab("t7")))
        #expect(c.selectedIndex == 7)
        expectRefused(&c, .select(.index(8)), .outOfRange)
    }

    /// Choosing a tab from the More list selects that tab while the bar shows More as selected.
    @Test("R3.5 a tab chosen from the More list shows More as the selected bar item")
    func chosenFromMore() throws {
        var c = try controller(tabs(count: 6))
        _ = try c.apply(.tap(.tab("t5")))
        #expect(c.selection == .tab("t5"))
        #expect(c.selectedIndex == 5)
        #expect(c.barSelected == "more")
        _ = try c.apply(.tap(.tab("t1")))
        #expect(c.barSelected == "t1")
    }

    /// tv: no More however many tabs; the bar shows only max_visible tabs; the rest are unreachable from it.
    @Test("R3.6 tv has no More and shows only max_visible tabs")
    func tvBar() throws {
        var c = try controller(.tv, tabs(count: 10))
        #expect(c.maxVisible == 7)
        #expect(!c.moreShown)
        #expect(c.barVisible == (0..<7).map { "t\($0)" })
        #expect(c.moreList.isEmpty)
        #expect(c.unreachable == ["t7", "t8", "t9"])
        expectRefused(&c, .select(.more), .notAvailable)
        expectRefused(&c, .tap(.more), .notAvailable)
    }

    /// tv: a tab beyond the bar cannot be tapped; customization is not available.
    @Test("R3.6 tv: no tapping beyond the bar and no customization")
    func tvNoTapNoCustomize() throws {
        var c = try controller(.tv, tabs(count: 10))
        expectRefused(&c, .tap(.tab("t7")), .notAvailable)
        _ = try c.apply(.tap(.tab("t6")))
        #expect(c.selection == .tab("t6"))
        expectRefused(&c, .customizeBegin, .notAvailable)
    }

    /// R3.6 (amended): on tv a programmatic select may choose a tab off the bar; the bar then
    /// highlights no item.
    @Test("R3.6 tv: selecting a tab that does not fit leaves bar.selected null")
    func r3_6_tvOffBarSelectionHighlightsNothing() throws {
        var c = try controller(.tv, maxVisible: 2, tabs(count: 4))
        _ = try c.apply(.select(.index(3)))
        #expect(c.selection == .tab("t3"))
        #expect(c.barSelected == nil)
        _ = try c.apply(.select(.tab("t1")))
        #expect(c.barSelected == "t1")
    }

    /// R3.7: `select` More where More is not shown is refused, as a tap is; on tv too.
    @Test("R3.7 selecting More when it is not shown is not_available", arguments: [Idiom.phone, .pad, .tv])
    func r3_7_selectMoreNeedsMore(idiom: Idiom) throws {
        var c = try controller(idiom, tabs(count: idiom.defaultMaxVisible))
        expectRefused(&c, .select(.more), .notAvailable)
        expectRefused(&c, .tap(.more), .notAvailable)
    }
}
