// The snapshot's JSON body across versions of the codec that writes it: a snapshot written
// by an earlier tabd must load, and what this tabd writes must load back to the same state.

import Foundation
import Testing
import TabProtocol
@testable import TabState
@testable import TabCore

@Suite struct SnapshotFormatTests {
    /// A state that uses every field a snapshot holds: two controllers (one of groups, in
    /// the sidebar mode), items with every member, orientations, a navigation stack, a
    /// customization under way, More, hidden tabs, a user's order, text that needs escapes,
    /// and a seq floor left by a deleted controller.
    static func richState() throws -> TabContainers {
        let main = TabContainers.defaultName
        let odd = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} é 🎉 \u{2028}"
        let records: [JournalRecord] = [
            .command(controller: main, .setTabs([
                Tab(id: "a", title: odd, item: TabItem(title: "In", image: "tray", tag: 7, badge: "3"),
                    restorationID: "r-a", orientations: [.portrait, .landscapeLeft], navigation: true),
                Tab(id: "b", fullScreenLayout: true),
                Tab(id: "c", item: TabItem(tag: -9_007_199_254_740_993)),
                Tab(id: "d", orientations: .all),
                Tab(id: "e"), Tab(id: "f"), Tab(id: "g"),
            ], animated: false)),
            .command(controller: main, .push(tab: "a", screen: Screen(id: "s1", title: "Detail"))),
            .command(controller: main, .push(tab: "a", screen: Screen(id: "s2"))),
            .command(controller: main, .badge(tab: "b", value: odd)),
            .command(controller: main, .select(.tab("f"))),
            .command(controller: main, .setCustomizable(["a", "b", "c", "d", "e", "f", "g"])),
            .command(controller: main, .customizeBegin),
            .command(controller: main, .customizeMove(tab: "f", to: 1)),
            .command(controller: main, .rotate(.landscapeLeft)),
            .createController(name: "gone", idiom: .tv, maxVisible: nil, tapPops: .always, mode: .automatic),
            .command(controller: "gone", .setTabs([Tab(id: "x")], animated: false)),
            .command(controller: "gone", .select(.tab("x"))),
            .deleteController(name: "gone"),
            .createController(name: "pad", idiom: .pad, maxVisible: 4, tapPops: .reselect, mode: .tabSidebar),
            .command(controller: "pad", .setTabs([
                Tab(id: "g1", title: "Group", children: [Tab(id: "x"), Tab(id: "y", subtitle: "why"), Tab(id: "z", allowsHiding: true)],
                    defaultChild: "y", allowsReordering: true),
                Tab(id: "p", placement: .pinned),
                Tab(id: "o", placement: .optional),
                Tab(id: "h", allowsHiding: true, hiddenByDefault: true),
                Tab(id: "s", placement: .sidebarOnly),
            ], animated: false)),
            .command(controller: "pad", .select(.tab("x"))),
            .command(controller: "pad", .reorder(group: "g1", order: ["z", "x", "y"])),
            .command(controller: "pad", .setHidden(tab: "z", hidden: true)),
            .command(controller: "pad", .sidebar(visible: false)),
        ]
        return try Replayer.state(records)
    }

    static var fixtures: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }

    /// Fixtures/snapshot-jsonencoder is `richState()` as StateStore.writeSnapshot wrote it up
    /// to commit c8d3aed, with Foundation's JSONEncoder (sorted keys, "/" escaped as "\\/",
    /// Selection in the synthesized form {"tab":{"_0":…}}): state directories of that tabd
    /// must survive the upgrade.
    @Test func aSnapshotWrittenByFoundationsEncoderLoads() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/snapshot-jsonencoder")))
        let snapshot = try StateStore.decodeSnapshot(bytes)
        #expect(snapshot.version == 3)
        #expect(snapshot.generation == 4)
        #expect(snapshot.lastSeq == 21)
        // The same state, but for one number: since issue 30 (R13.8) a set_tabs announces the
        // containment of nested tabs too, so `richState()` made now numbers the pad's events six
        // further (x, y, z, two each) than the tabd that wrote the fixture did. The snapshot keeps
        // the numbers it was written with.
        var rich = try Self.richState()
        #expect(rich["pad"]?.seq == 42 && snapshot.state["pad"]?.seq == 36)
        var pad = try #require(rich["pad"])
        pad.seq = 36
        rich.insert(pad)
        #expect(snapshot.state == rich)
    }

    /// What this tabd writes reads back to the same state.
    @Test func aSnapshotReadsBackToTheStateItWasWrittenFrom() throws {
        let state = try Self.richState()
        let dir = StateDir()
        _ = try StateStore.writeSnapshot(state, generation: 4, lastSeq: 21, path: dir.file("snapshot"), directory: dir.path)
        let snapshot = try StateStore.decodeSnapshot(dir.bytes("snapshot"))
        #expect(snapshot.state == state)
        #expect(snapshot.state.inconsistency == nil)
    }
}
