// Event sequence numbers per controller: the current controller's count kept apart from
// the others' must never lose or mix a count when requests switch between controllers.

import Testing
@testable import TabServer

@Suite struct EventCountersTests {
    @Test func eachControllerCountsOnItsOwnAcrossSwitches() {
        var c = EventCounters()
        #expect(c.advance("main", by: 3) == 3)
        #expect(c.advance("main", by: 1) == 4)
        #expect(c.advance("pad", by: 2) == 2)
        #expect(c.advance("main", by: 0) == 4)
        #expect(c.advance("main", by: 1) == 5)
        #expect(c.advance("pad", by: 1) == 3)
        #expect(c.advance("tv", by: 7) == 7)
        #expect(c.advance("pad", by: 0) == 3)
    }

    @Test func aRemovedControllerStartsAgainFromZero() {
        var c = EventCounters()
        _ = c.advance("main", by: 5)
        _ = c.advance("pad", by: 2)
        c.remove("main")  // not the current one
        c.remove("pad")   // the current one
        #expect(c.advance("pad", by: 1) == 1)
        #expect(c.advance("main", by: 1) == 1)
    }

    /// Against a plain dictionary, over a seeded random walk between four controllers.
    @Test func matchesADictionaryOverARandomWalk() {
        var c = EventCounters()
        var expected: [String: UInt64] = [:]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let names = ["main", "pad", "tv", "a-much-longer-controller-name"]
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let name = names[Int(state >> 62)]
            if (state >> 40) & 0xFF == 0 {
                c.remove(name)
                expected[name] = nil
                continue
            }
            let n = (state >> 32) & 3
            expected[name, default: 0] += n
            guard c.advance(name, by: n) == expected[name] else {
                Issue.record("\(name) went astray"); return
            }
        }
    }
}
