// R11: state preservation and restoration, and persistence of whole controllers.
import Testing
import TabJSON
@testable import TabCore

/// The snapshot's JSON of a controller, parsed.
func snapshotJSON(_ c: Controller) throws -> JSONValue {
    var w = JSONWriter()
    c.writeSnapshot(to: &w)
    let bytes = w.bytes
    return try bytes.withUnsafeBytes { try JSONParser.parse($0, maxDepth: 512) }
}

/// Written and read back by the snapshot's codec, the way the daemon writes snapshots.
func roundTrip(_ c: Controller) throws -> Controller {
    try Controller(snapshot: snapshotJSON(c), at: "")
}

func roundTrip(_ all: TabContainers) throws -> TabContainers {
    var w = JSONWriter()
    all.writeSnapshot(to: &w)
    let bytes = w.bytes
    return try TabContainers(snapshot: bytes.withUnsafeBytes { try JSONParser.parse($0, maxDepth: 512) })
}

@Suite("R11 State preservation")
struct RestorationTests {
    /// The selected tab is saved by restoration id and restored wherever it now is.
    @Test("R11.1 restoring selects the tab with the saved restoration id, whatever its position")
    func byRestorationID() throws {
        var c = try controller([Tab(id: "a", restorationID: "home"), Tab(id: "b", restorationID: "mail", navigation: true),
                                Tab(id: "c")])
        _ = try c.apply(.select(.tab("b")))
        _ = try c.apply(.push(tab: "b", screen: Screen(id: "inbox")))
        let archive = c.preserve()
        #expect(archive.selected != nil)
        // A new session of the app: other order, nothing selected but tab 0, stacks at the root.
        var fresh = try controller([Tab(id: "c"), Tab(id: "a", restorationID: "home"),
                                    Tab(id: "b", restorationID: "mail", navigation: true)])
        let out = try fresh.apply(.restore(archive))
        #expect(fresh.selection == .tab("b"))
        #expect(fresh.selectedIndex == 2)
        #expect(fresh.tab("b")?.stack == [Screen(id: "inbox")])
        #expect(out.selectionChanges == [.selectionChanged(tab: "b", index: 2, previous: "c", cause: .restore)])
    }

    /// Tabs without a restoration id return to their defaults (root screen).
    @Test("R11.1 tabs without a restoration id return to their defaults")
    func withoutID() throws {
        var c = try controller([Tab(id: "a", navigation: true), Tab(id: "b", restorationID: "b", navigation: true)])
        _ = try c.apply(.push(tab: "a", screen: Screen(id: "a1")))
        _ = try c.apply(.push(tab: "b", screen: Screen(id: "b1")))
        let archive = c.preserve()
        #expect(archive.stacks.count == 1)
        _ = try c.apply(.push(tab: "b", screen: Screen(id: "b2")))
        _ = try c.apply(.restore(archive))
        #expect(c.tab("a")?.stack == [])
        #expect(c.tab("b")?.stack == [Screen(id: "b1")])
    }

    /// Two tabs share a restoration id: their paths differ and restore picks the saved one.
    @Test("R11.2 duplicate restoration ids: the path disambiguates")
    func duplicates() throws {
        var c = try controller([Tab(id: "x", restorationID: "list", navigation: true),
                                Tab(id: "y", restorationID: "list", navigation: true)])
        let x = try #require(c.tab("x")), y = try #require(c.tab("y"))
        let px = try #require(c.restorationPath(of: x))
        let py = try #require(c.restorationPath(of: y))
        #expect(px != py)
        _ = try c.apply(.select(.tab("y")))
        _ = try c.apply(.push(tab: "y", screen: Screen(id: "deep")))
        let archive = c.preserve()
        #expect(archive.stacks.count == 2)
        var fresh = try controller([Tab(id: "x", restorationID: "list", navigation: true),
                                    Tab(id: "y", restorationID: "list", navigation: true)])
        _ = try fresh.apply(.restore(archive))
        #expect(fresh.selection == .tab("y"))
        #expect(fresh.tab("y")?.stack == [Screen(id: "deep")])
        #expect(fresh.tab("x")?.stack == [])
    }

    /// A saved tab whose id changed is still found by its restoration id (also one containing '#').
    @Test("R11.1 restore finds the restoration id when the tab id changed", arguments: ["mail", "m#a\\il#"])
    func byRestorationIDAfterRename(rid: String) throws {
        let old = try controller([Tab(id: "a"), Tab(id: "old", restorationID: rid)])
        let archive = RestorationArchive(selected: old.restorationPath(of: old.tabs[1]))
        var new = try controller([Tab(id: "b", restorationID: "other"), Tab(id: "a"), Tab(id: "new", restorationID: rid)])
        _ = try new.apply(.restore(archive))
        #expect(new.selection == .tab("new"))
    }

    /// Paths stay unique even when ids and restoration ids contain the separator.
    @Test("R11.2 restoration paths are unique even with '#' in ids")
    func separatorInIDs() throws {
        let c = try controller([Tab(id: "z", restorationID: "x#y"), Tab(id: "y#z", restorationID: "x"),
                                Tab(id: "q", restorationID: "x#y#"), Tab(id: "#q", restorationID: "x#y")])
        let paths = c.tabs.compactMap { c.restorationPath(of: $0) }
        #expect(paths.count == 4)
        #expect(Set(paths).count == 4, "\(paths)")
        for t in c.tabs {
            var other = c
            _ = try other.apply(.select(.index(c.tabs.count - 1 - c.index(of: t.id)!)))
            _ = try other.apply(.restore(RestorationArchive(selected: c.restorationPath(of: t))))
            #expect(other.selection == .tab(t.id))
        }
    }

    /// Encoding then decoding a controller gives the same controller, in every interesting state.
    @Test("R11.3 a controller survives encode → decode exactly", arguments: Idiom.allCases)
    func codable(idiom: Idiom) throws {
        var states: [Controller] = [Controller(name: "empty", idiom: idiom)]
        var c = Controller(name: "c", idiom: idiom, maxVisible: idiom == .tv ? 3 : 4)
        func snap() { states.append(c) }
        _ = try c.apply(.setTabs([
            Tab(id: "a", title: "A", item: TabItem(title: "Alpha", image: "a.png", tag: 1, badge: "9"), restorationID: "r",
                orientations: .all, fullScreenLayout: true, navigation: true),
            Tab(id: "b", restorationID: "r", orientations: [.portrait, .landscapeLeft, .portraitUpsideDown]),
            Tab(id: "c", orientations: [.portrait, .landscapeLeft, .landscapeRight], navigation: true),
            Tab(id: "d", orientations: .all), Tab(id: "e", title: "É — ünïcødé 🎉", orientations: .all), Tab(id: "f", orientations: .all),
        ], animated: true)); snap()
        _ = try c.apply(.select(.tab("e"))); snap()
        _ = try c.apply(.push(tab: "c", screen: Screen(id: "s", title: nil))); snap()
        _ = try c.apply(.badge(tab: "d", value: "12")); snap()
        _ = try c.apply(.setCustomizable(["a", "e", "f"])); snap()
        _ = try c.apply(.setCustomizable(nil)); snap()
        _ = try c.apply(.setOrientation(.landscapeLeft)); snap()
        if idiom != .tv {
            _ = try c.apply(.select(.more)); snap()
            _ = try c.apply(.setCustomizable(["c", "f"]))
            _ = try c.apply(.customizeBegin); snap()
            _ = try c.apply(.customizeMove(tab: "f", to: 2)); snap()
            _ = try c.apply(.customizeEnd); snap()
        }
        _ = try c.apply(.setTabs([], animated: false)); snap()
        for state in states {
            let back = try roundTrip(state)
            #expect(back == state)
            #expect(back.selectedIndex == state.selectedIndex)
            #expect(back.barVisible == state.barVisible)
            #expect(back.ids.map { back.index(of: $0) } == state.ids.map { state.index(of: $0) })
        }
        #expect(states.count >= 9)
    }

    /// A whole set of controllers survives encode → decode.
    @Test("R11.3 all controllers survive encode → decode")
    func containersCodable() throws {
        var all = TabContainers.withDefault()
        try all.create("tv1", idiom: .tv, maxVisible: 3)
        _ = try all.apply(.setTabs(tabs(count: 5), animated: false), to: "tv1")
        _ = try all.apply(.setTabs(tabs(count: 7), animated: false), to: "main")
        _ = try all.apply(.select(.more), to: "main")
        // What is saved is the state, not the changes a failed turn would undo.
        all.keepChanges()
        #expect(try roundTrip(all) == all)
    }

    /// R11.1 (amended): a stack is restored by restoration path, not by tab id: a tab renamed
    /// between preserve and restore gets its stack back, another tab with the old id does not.
    @Test("R11.1 stacks are restored by restoration path, not by tab id")
    func r11_1_stacksFollowTheRestorationPath() throws {
        var old = try controller([Tab(id: "a", restorationID: "mail", navigation: true), Tab(id: "b", restorationID: "news", navigation: true)])
        _ = try old.apply(.push(tab: "a", screen: Screen(id: "inbox")))
        _ = try old.apply(.select(.tab("a")))
        let archive = old.preserve()
        #expect(archive.stacks.keys.sorted() == ["mail", "news"])
        #expect(archive.selected == "mail")
        var new = try controller([Tab(id: "a", restorationID: "news", navigation: true),
                                  Tab(id: "renamed", restorationID: "mail", navigation: true)])
        _ = try new.apply(.restore(archive))
        #expect(new.tab("renamed")?.stack == [Screen(id: "inbox")])
        #expect(new.tab("a")?.stack == [])
        #expect(new.selection == .tab("renamed"))
    }

    /// R11.2: the path is the restoration id alone when it is unique, else the id and the tab's
    /// occurrence among the tabs with it; '#' and '\' escaped. No tab id in either.
    @Test("R11.2 paths: the restoration id, or id#n when it repeats")
    func r11_2_pathFormat() throws {
        let c = try controller([Tab(id: "x", restorationID: "list"), Tab(id: "y", restorationID: "a#b\\"),
                                Tab(id: "z", restorationID: "list"), Tab(id: "w")])
        #expect(c.restorationPaths == ["list#0", "a\\#b\\\\", "list#1", nil])
        #expect(c.restorationPath(of: c.tabs[2]) == "list#1")
        #expect(Controller.restorationID(inPath: "a\\#b\\\\") == "a#b\\")
    }

    /// Archives written before issue 17 named stacks "<rid>#<tab id>": they still restore
    /// (a journal's restore records replay as they did).
    @Test("R11.1 an archive with the old paths still restores")
    func r11_1_oldArchivePaths() throws {
        var c = try controller([Tab(id: "a", restorationID: "mail", navigation: true), Tab(id: "b")])
        _ = try c.apply(.restore(RestorationArchive(selected: "mail#a", stacks: ["mail#a": [Screen(id: "s")]])))
        #expect(c.tab("a")?.stack == [Screen(id: "s")])
        // A format 1 journal's restore record matches only those paths, as tabd 0.1.0 did:
        // "mail" was no path then, so the stack goes back to the root on replay.
        var old = c
        _ = try old.apply(.restore(RestorationArchive(selected: nil, stacks: ["mail": [Screen(id: "t")]], legacyPaths: true)))
        #expect(old.tab("a")?.stack == [])
        _ = try c.apply(.restore(RestorationArchive(selected: nil, stacks: ["mail": [Screen(id: "t")]])))
        #expect(c.tab("a")?.stack == [Screen(id: "t")])
        // Repeated restoration ids: the old path selects the very tab it named.
        var twins = try controller([Tab(id: "x", restorationID: "list"), Tab(id: "y", restorationID: "list")])
        _ = try twins.apply(.restore(RestorationArchive(selected: "list#y")))
        #expect(twins.selection == .tab("y"))
    }

    /// A snapshot's `customizable` that is every tab reads back as every tab; one as long as
    /// the tabs but naming a stranger is kept as written and refused by `inconsistency` (not
    /// taken for "every tab" because of its length).
    @Test func customizableFromASnapshotIsEveryTabOnlyWhenItIs() throws {
        var c = Controller(name: "c")
        _ = try c.apply(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false))
        #expect(try roundTrip(c) == c)
        #expect(try roundTrip(c).customizable == ["a", "b"])
        guard case .object(var json) = try snapshotJSON(c) else { Issue.record("not an object"); return }
        json["customizable"] = .array([.string("a"), .string("zz")])
        let hostile = try Controller(snapshot: .object(json), at: "")
        #expect(hostile.inconsistency == "controller 'c' has customizable tabs it does not have")
    }

    /// R11.3 and R4.3: `tap_pops` is persisted; a snapshot written before it existed loads as `always`.
    @Test("R11.3 tap_pops survives encode → decode; old snapshots load as always")
    func r11_3_tapPopsPersisted() throws {
        let c = Controller(name: "r", tapPops: .reselect)
        #expect(try roundTrip(c).tapPops == .reselect)
        guard case .object(var json) = try snapshotJSON(c) else { Issue.record("not an object"); return }
        _ = json.removeValue(forKey: "tapPops")
        let old = try Controller(snapshot: .object(json), at: "")
        #expect(old.tapPops == .always)
    }
}
