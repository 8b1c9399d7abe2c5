// `==` tells the truth (issue 31): a controller compares by everything it holds, the
// orientations its delegate decided included (a `state` shows them; an `==` that left them
// out let the `state` memo answer with a reply from before a reload), and a set of
// controllers by its controllers, its seq floor and its changes to undo. Only the set's
// lookup cache is left out, by name.

import Testing
@testable import TabCore

@Suite("Equality")
struct EqualityTests {
    /// A delegate that allows only landscape, and prefers one.
    static func landscape() -> RecordingPolicy {
        let p = RecordingPolicy()
        p.decidesOrientations = true
        p.supported = Orientation.landscapeLeft.mask.union(Orientation.landscapeRight.mask)
        p.preferred = .landscapeRight
        return p
    }

    /// Two controllers alike but for what their delegates answered are not equal.
    @Test func theDelegatesAnswersAreCompared() throws {
        let plain = try controller(tabs("a", "b"))
        var asked = plain
        var effects: [PolicyEffect] = []
        asked.decideOrientations(policy: Self.landscape(), effects: &effects)
        #expect(asked.decidedOrientations != plain.decidedOrientations)
        #expect(asked != plain)
        // Asked again with the same answers: equal again.
        var again = plain
        again.decideOrientations(policy: Self.landscape(), effects: &effects)
        #expect(again == asked)
        // A delegate without a say leaves nothing decided: as if never asked.
        var defaults = plain
        defaults.decideOrientations(policy: DefaultPolicy(), effects: &effects)
        #expect(defaults == plain)
    }

    /// A set with changes a failed turn would undo is not the same value as one with them
    /// kept (the undo would make them differ); once kept, they are equal.
    @Test func changesToUndoAreCompared() throws {
        var kept = TabContainers.withDefault()
        _ = try kept.apply(.setTabs(tabs("a", "b"), animated: false), to: TabContainers.defaultName)
        var pending = kept
        kept.keepChanges()
        #expect(pending != kept)
        pending.keepChanges()
        #expect(pending == kept)
        // The same change undone: the state before it.
        var undone = kept
        _ = try undone.apply(.select(.tab("b")), to: TabContainers.defaultName)
        #expect(undone != kept)
        _ = undone.undoChanges()
        #expect(undone == kept)
    }

    /// Where the set last looked a controller up is not what it holds.
    @Test func theLookupCacheIsNotCompared() throws {
        var a = TabContainers.withDefault()
        try a.create("pad", idiom: .pad)
        a.keepChanges()
        var b = a
        _ = try a.apply(.setTabs(tabs("x"), animated: false), to: "pad")
        _ = try b.apply(.setTabs(tabs("x"), animated: false), to: "pad")
        _ = try? b.apply(.select(.tab("nope")), to: TabContainers.defaultName)  // refused; looked up last: main
        a.keepChanges()
        b.keepChanges()
        #expect(a == b)
    }
}

@Suite("TabContainers equality tells the truth")
struct ContainersEqualityTests {
    /// Every stored property of the set is compared by `==` or listed as left out, with its
    /// reason: a property added to neither list fails here.
    @Test func everyStoredPropertyIsComparedOrListedAsLeftOut() {
        let properties = Set(Mirror(reflecting: TabContainers.withDefault()).children.compactMap(\.label))
        #expect(properties == TabContainers.compared.union(TabContainers.notCompared.keys))
        #expect(TabContainers.compared.isDisjoint(with: TabContainers.notCompared.keys))
    }

    /// Two sets that differ only in a plugin's stored data are not equal: the round-trip law
    /// and the journal's fuzzer, which compare sets, see lost plugin data.
    @Test func pluginDataIsCompared() {
        let a = TabContainers.withDefault()
        var b = a
        b.setPluginValue(plugin: "login-gate", key: "session", _: "demo")
        #expect(a != b)
        b.setPluginValue(plugin: "login-gate", key: "session", _: nil)
        #expect(a == b)
    }
}
