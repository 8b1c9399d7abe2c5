// `tabctl show` of R15's containers (issue 42 item 7): a navigation, split, drawer or custom
// controller drawn with its subtree, and `--watch` following the tree's events.

import Foundation
import Glibc
import Testing

@Suite struct TabctlTreeTests {
    typealias Watching = TabctlShowTests.Watching

    /// A window's drawer: a navigation controller in the center, a menu screen on the left, a
    /// custom controller on the right.
    static func tree(_ client: LineClient) throws {
        try client.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","stack":[{"id":"inbox","title":"Inbox"},{"id":"msg"}]}"#)
        try client.ok(#"{"cmd":"controller.create","controller":"panel","kind":"custom","children":[{"id":"a"},{"id":"b","title":"B"}],"shown":["b"]}"#)
        try client.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"center":{"id":"main","controller":"nav"},"left":{"id":"menu","title":"Menu"},"right":{"id":"extra","controller":"panel"}}"#)
        try client.ok(#"{"cmd":"open_drawer","controller":"root","side":"left"}"#)
    }

    static func seq(_ client: LineClient, _ name: String) throws -> Int {
        try client.ok(#"{"cmd":"state","controller":"\#(name)"}"#).int("seq") ?? -1
    }

    @Test func showDrawsTheTreeWithTopOpenSideAndShownMarkedAndNestedControllersBeneathTheirChild() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try Self.tree(client)
        let (root, nav, panel) = (try Self.seq(client, "root"), try Self.seq(client, "nav"), try Self.seq(client, "panel"))
        let r = try TabctlShowTests.show(tabd, "root")
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output == """
            root — drawer, phone, window, visible, open left, seq \(root)
              center  main → nav
                  nav — navigation, phone, visible, seq \(nav)
                    0  inbox "Inbox"
                    1 >msg<  (top)
              left   >menu "Menu"<  (open)
              right   extra → panel
                  panel — custom, phone, not visible, seq \(panel)
                    0  a
                    1 >b "B"<  (shown)
              gestures: open none; close none; center interaction navigation_bar_only
            status bar: menu
            key: >id< top of a stack, visible column, open drawer or shown child; "…" its title; → the controller a child is

            """, "\(r.output)")
        // A nested controller named alone: where it is attached, and its own subtree.
        let alone = try TabctlShowTests.show(tabd, "nav")
        #expect(alone.status == 0 && alone.output.hasPrefix("nav — navigation, phone, child main of root, visible, seq \(nav)\n"), "\(alone.output)")
        #expect(!alone.output.contains("status bar:"), "\(alone.output)")  // only a root has a status bar path
        // A tab bar controller is drawn as before.
        let tabs = try TabctlShowTests.show(tabd, "main")
        #expect(tabs.status == 0 && tabs.output.hasPrefix("main — phone, max_visible 5"), "\(tabs.output)")
        // Colour: the marked children in reverse video, no brackets.
        let coloured = try TabctlShowTests.show(tabd, "root --color always")
        #expect(coloured.output.contains("\u{1B}[7mmsg\u{1B}[0m ◀ top") && !coloured.output.contains(">msg<"), "\(coloured.output)")
    }

    @Test func watchRedrawsOnR15EventsFollowsControllersAttachedLaterAndEndsWhereShowIs() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try Self.tree(client)
        try client.ok(#"{"cmd":"controller.create","controller":"deep","kind":"navigation","stack":[{"id":"d0"}]}"#)
        let watching = try Watching(tabd, ["root"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        #expect(watching.drawings.first?.contains("  left   >menu \"Menu\"<  (open)") == true, "\(watching.text)")
        // An event of a nested controller (its seq, not the root's, moves).
        try client.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"reply","title":"Reply"}}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("2 >reply \"Reply\"<  (top)") == true }, "\(watching.text)")
        try client.ok(#"{"cmd":"close_drawer","controller":"root"}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("closed") == true }, "\(watching.text)")
        // A controller attached after the watch began: drawn, and its own events followed.
        try client.ok(#"{"cmd":"push","controller":"nav","screen":{"id":"sub","controller":"deep"}}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("deep — navigation") == true }, "\(watching.text)")
        try client.ok(#"{"cmd":"push","controller":"deep","screen":{"id":"d1"}}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("1 >d1<  (top)") == true }, "\(watching.text)")
        try client.ok(#"{"cmd":"set_shown","controller":"panel","shown":["a"]}"#)
        try client.ok(#"{"cmd":"set_window","controller":"root","window":false}"#)
        let expected = try TabctlShowTests.show(tabd, "root").output
        #expect(expected.hasPrefix("root — drawer, phone, not visible, closed") && expected.contains("  0 >a<  (shown)"), "\(expected)")
        let converged = watching.wait { _ in watching.drawings.last.map { $0.hasSuffix("---\n" + expected) } == true }
        #expect(converged, "expected:\n\(expected)\nlast drawing:\n\(watching.drawings.last ?? "")")
        // The separator names each container's seq.
        let seqs = "\(try Self.seq(client, "root")) (root), \(try Self.seq(client, "nav")) (nav), \(try Self.seq(client, "deep")) (deep), \(try Self.seq(client, "panel")) (panel) ---"
        #expect(watching.drawings.last?.hasPrefix(seqs) == true, "\(watching.drawings.last ?? "")")
    }

    /// A pad's split, a window's root: its columns with the visible ones marked, its display
    /// mode and behavior, a navigation controller in its primary column drawn beneath it;
    /// collapsed, the top column marked and the collapsed stack; a triple split's
    /// supplementary column.
    @Test func showDrawsASplitWithItsVisibleColumnsModeAndCollapse() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try client.ok(#"{"cmd":"controller.create","controller":"boxes","kind":"navigation","idiom":"pad","stack":[{"id":"inbox","title":"Inbox"}]}"#)
        try client.ok(#"{"cmd":"controller.create","controller":"cols","kind":"split","style":"double","idiom":"pad","window":true,"primary":{"id":"list","controller":"boxes"},"secondary":{"id":"detail","title":"Detail"}}"#)
        try client.ok(#"{"cmd":"rotate","controller":"cols","orientation":"landscape_left"}"#)
        let (cols, boxes) = (try Self.seq(client, "cols"), try Self.seq(client, "boxes"))
        let r = try TabctlShowTests.show(tabd, "cols")
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output == """
            cols — split, pad, window, visible, double, one_beside (tile), seq \(cols)
              primary   >list< → boxes  (visible)
                  boxes — navigation, pad, visible, seq \(boxes)
                    0 >inbox "Inbox"<  (top)
              secondary >detail "Detail"<  (visible)
              compact    -
              display mode one_beside (preferred automatic); behavior tile (preferred automatic); presents with gesture
            status bar: detail
            key: >id< top of a stack, visible column, open drawer or shown child; "…" its title; → the controller a child is

            """, "\(r.output)")
        // Collapsed by a compact size class, the primary pushed back on top.
        try client.ok(#"{"cmd":"set_size_class","controller":"cols","size_class":"compact"}"#)
        try client.ok(#"{"cmd":"show_column","controller":"cols","column":"primary"}"#)
        try client.ok(#"{"cmd":"configure","controller":"cols","presents_with_gesture":false}"#)
        let collapsed = try TabctlShowTests.show(tabd, "cols").output
        #expect(collapsed.hasPrefix("cols — split, pad, window, visible, double, collapsed, top primary, seq "), "\(collapsed)")
        #expect(collapsed.contains("  primary   >list< → boxes  (top)\n") && collapsed.contains("  secondary  detail \"Detail\"\n"), "\(collapsed)")
        #expect(collapsed.contains("display mode one_beside (preferred automatic); behavior tile (preferred automatic); collapsed stack primary; no gesture"), "\(collapsed)")
        // A phone's triple split: collapsed from its creation, the secondary on top.
        try client.ok(#"{"cmd":"controller.create","controller":"three","kind":"split","style":"triple","primary":{"id":"a"},"supplementary":{"id":"b"},"secondary":{"id":"c"}}"#)
        let triple = try TabctlShowTests.show(tabd, "three").output
        #expect(triple.hasPrefix("three — split, phone, not visible, triple, collapsed, top secondary, seq "), "\(triple)")
        #expect(triple.contains("  supplementary  b\n") && triple.contains("  secondary     >c<  (top)\n"), "\(triple)")
        #expect(triple.contains("collapsed stack primary › supplementary › secondary"), "\(triple)")
        // --watch redraws on a split's events.
        let watching = try Watching(tabd, ["cols"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        try client.ok(#"{"cmd":"set_size_class","controller":"cols","size_class":"regular"}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("double, one_beside (tile)") == true }, "\(watching.text)")
        try client.ok(#"{"cmd":"hide_column","controller":"cols","column":"primary"}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("double, secondary_only (tile)") == true }, "\(watching.text)")
        #expect(watching.drawings.last?.contains("  primary    list → boxes\n") == true, "\(watching.drawings.last ?? "")")
    }

    @Test func watchReconnectsAfterARestartAndExitsWhenTheControllerIsDeleted() throws {
        let tabd = try TabdProcess()
        let client = try tabd.client()
        try client.ok(#"{"cmd":"controller.create","controller":"solo","kind":"custom","children":[{"id":"k"}]}"#)
        let watching = try Watching(tabd, ["solo", "--reconnect-seconds", "120"])
        #expect(watching.wait { _ in watching.drawings.count >= 1 }, "\(watching.text)")
        try tabd.restart()
        #expect(watching.wait { $0.contains("--- tabd restarted (instance ") }, "\(watching.text)")
        #expect(watching.wait { $0.contains("--- nothing changed (seq ") }, "\(watching.text)")
        let again = try tabd.client()
        try again.ok(#"{"cmd":"set_shown","controller":"solo","shown":["k"]}"#)
        #expect(watching.wait { _ in watching.drawings.last?.contains("0 >k<  (shown)") == true }, "\(watching.text)")
        try again.ok(#"{"cmd":"controller.delete","controller":"solo"}"#)
        #expect(watching.waitForExit() == 0, "\(watching.text)")
        #expect(watching.text.contains("--- controller 'solo' was deleted"), "\(watching.text)")
        // An unknown controller: refused, as for a tab bar controller.
        let unknown = try Watching(tabd, ["nowhere"])
        #expect(unknown.waitForExit() == 1, "\(unknown.text)")
    }
}
