// The registry of containers (docs/architecture.md, "The registry of containers"): nodes with a
// kind, a parent and a window flag; a kind's configuration as one value.
import TabJSON
import Testing
@testable import TabCore

@Suite("The registry of containers")
struct RegistryTests {
    @Test("a created container is a node of its kind: a root in a window, numbering from the seq floor")
    func createdNodes() throws {
        var all = TabContainers.withDefault()
        try all.create("pad", .tab(TabBarOptions(idiom: .pad, maxVisible: 4, tapPops: .reselect, mode: .tabSidebar)))
        _ = try all.delete("pad")
        let floor = all.seqFloor
        try all.create("pad", .tab(TabBarOptions(idiom: .pad)))
        let node = try #require(all.node("pad"))
        #expect(node.kind == .tab && node.isRoot && node.window && node.parent == nil)
        #expect(node.seq == floor && floor > 0)
        #expect(all.count == 2 && all.names == ["main", "pad"])
        #expect(all["pad"] == node.tabBar)
        #expect(all.inconsistency == nil)
    }

    @Test("a node attached and a window's root at once, attached where it is not held, or attached to no node, is inconsistent")
    func impossibleNodes() throws {
        var all = TabContainers.withDefault()
        var hidden = TabBarOptions(idiom: .phone)
        hidden.window = false
        try all.create("x", .tab(hidden))
        try all.create("d", composite: CompositeSpec(body: .drawer(DrawerState(center: ChildObject(id: "home", controller: "x")))))
        #expect(all.inconsistency == nil)
        all.nodes["x"]!.parent = nil
        #expect(all.inconsistency?.contains("not attached there") == true)  // held, but not attached
        all.nodes["x"]!.parent = Attachment(parent: "d", slot: "home")
        all.nodes["x"]!.window = true
        #expect(all.inconsistency?.contains("a window's root at once") == true)
        all.nodes["x"]!.window = false
        #expect(all.inconsistency == nil)
        all.nodes["x"]!.parent = Attachment(parent: "d", slot: "menu")
        #expect(all.inconsistency?.contains("which does not hold it") == true)
        all.nodes["x"]!.parent = Attachment(parent: "nowhere", slot: "home")
        #expect(all.inconsistency?.contains("'nowhere', which does not exist") == true)
    }

    @Test("an undone create, delete or change puts the node back with its kind and place")
    func undoKeepsNodes() throws {
        var all = TabContainers.withDefault()
        try all.create("a", idiom: .tv)
        all.keepChanges()
        let before = all
        try all.create("b", .tab(TabBarOptions(idiom: .pad, sizeClass: .compact)))
        _ = try all.delete("a")
        _ = try all.apply(.setTabs([Tab(id: "t")], animated: false, selected: nil), to: "main")
        all.undoChanges()
        #expect(all == before)
    }

    @Test("a kind's options are checked in one place, in the order the wire reports them")
    func optionsValidate() {
        #expect(throws: TabError.self) { try TabBarOptions(idiom: .phone, sizeClass: .regular).validate() }
        #expect(throws: TabError.self) { try TabBarOptions(idiom: .tv, maxVisible: 1001).validate() }
        #expect(throws: TabError.self) { try TabBarOptions(idiom: .pad, maxVisible: 1).validate() }
        #expect(throws: Never.self) { try TabBarOptions(idiom: .tv, maxVisible: 1).validate() }
        #expect(TabBarOptions.maxVisibleRange(.phone) == 2...1000 && TabBarOptions.maxVisibleRange(.tv) == 1...1000)
        // A bad name is reported before bad options (the golden transcript's order).
        var all = TabContainers()
        let e = #expect(throws: TabError.self) { try all.create(String(repeating: "x", count: 65), idiom: .tv, maxVisible: 1001) }
        #expect(e?.code == .invalid)
    }

    @Test("the options are written once: the journal keeps what was asked, the reply what the controller has")
    func optionsWritten() {
        func written(_ o: TabBarOptions, _ form: TabBarOptions.Form) -> String {
            var w = JSONWriter()
            w.beginObject()
            o.writeMembers(to: &w, form)
            w.endObject()
            return String(decoding: w.bytes, as: UTF8.self)
        }
        let asked = TabBarOptions(idiom: .pad, sizeClass: .regular, compactTabs: ["a", "b"])
        #expect(written(asked, .journal) == #"{"idiom":"pad","max_visible":null,"tap_pops":"always","size_class":"regular","compact_tabs":["a","b"]}"#)
        let has = Controller(name: "p", asked).options
        #expect(written(has, .reply) == #"{"idiom":"pad","max_visible":8,"tap_pops":"always","compact_tabs":["a","b"]}"#)
        #expect(ContainerSpec.tab(asked).kind == .tab)
    }
}
