// The SDK's Candidate keeps a path of the tab alone implicit (made when read) and the
// controller's name memoised per instance: both must read exactly as before.

import Glibc
import Testing
@testable import TabPolicy

@Suite("Swift SDK candidate and names")
struct CandidateTests {
    @Test func pathOfATabAloneIsItsId() {
        let c = Candidate.tab(id: "a", index: 2)
        #expect(c.path == ["a"])
        #expect(c.group == nil)
        #expect(!c.isMore)
        #expect(c == Candidate.tab(id: "a", index: 2, path: ["a"]))
        #expect(c != Candidate.tab(id: "a", index: 3))
        #expect(c != Candidate.tab(id: "a", index: 2, path: ["g", "a"]))
    }

    @Test func deeperPathIsKept() {
        let c = Candidate.tab(id: "a", index: 0, path: ["g", "a"])
        #expect(c.path == ["g", "a"])
        #expect(c.group == "g")
        // A path given as it is, even empty (as before: `path` returns what was given).
        #expect(Candidate.tab(id: "a", index: 0, path: []).path == [])
        #expect(Candidate.tab(id: "a", index: 0, path: []).group == nil)
    }

    /// Since ABI 1.6: the search tab (R14.1); false for every other candidate.
    @Test func searchTab() {
        let s = Candidate.tab(id: "find", index: 3, isSearch: true)
        #expect(s.isSearch && s.path == ["find"] && s.group == nil)
        #expect(!Candidate.tab(id: "find", index: 3).isSearch && !Candidate.more.isSearch)
        #expect(s != Candidate.tab(id: "find", index: 3))
    }

    @Test func more() {
        #expect(Candidate.more.path == ["more"])
        #expect(Candidate.more.id == "more")
        #expect(Candidate.more.isMore)
        #expect(Candidate.more.group == nil)
    }

    /// The index as given; More has none (and a tab's index is never More's).
    @Test func index() {
        #expect(Candidate.tab(id: "a", index: 0).index == 0)
        #expect(Candidate.tab(id: "a", index: 7, path: ["g", "a"]).index == 7)
        #expect(Candidate.more.index == nil)
        #expect(Candidate(id: "x", index: nil, deeperPath: nil).isMore)
        #expect(!Candidate(id: "x", index: -1, deeperPath: nil).isMore)
    }

    /// Ids from tabd's C strings read as String(cString:) reads them: short ASCII ones made
    /// from their bytes, long and non-ASCII ones the general way.
    @Test func idsFromCStrings() {
        for id in ["", "a", "home", "abcdefghijklmno", "abcdefghijklmnop", "a-much-longer-tab-identifier", "onglet-é", "設定", "tab\u{7F}"] {
            let p = strdup(id)!
            defer { free(p) }
            #expect(string(p) == id)
            #expect(Array(string(p).utf8) == Array(id.utf8))
        }
        // Bytes that are not UTF-8 are repaired as String(cString:) repairs them.
        let bad: [CChar] = [0x61, CChar(bitPattern: 0xFF), 0x62, 0]
        #expect(bad.withUnsafeBufferPointer { string($0.baseAddress!) } == bad.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    @Test func nameMemoFollowsTheBytes() {
        var memo = NameMemo()
        let a = strdup("main")!, b = strdup("other")!, a2 = strdup("main")!
        defer { free(a); free(b); free(a2); memo.clear() }
        #expect(memo.name(of: a) == "main")
        #expect(memo.name(of: a2) == "main")
        #expect(memo.name(of: b) == "other")
        // Same address, new contents: the bytes decide, not the pointer.
        strcpy(b, "x")
        #expect(memo.name(of: b) == "x")
        #expect(memo.name(of: a) == "main")
    }
}
