// Snapshot body encode and decode time per tab: TabJSON (what StateStore writes and reads
// now: JSONValueEncoder with sorted keys and JSONWriter; JSONParser and JSONValueDecoder)
// against Foundation's JSONEncoder and JSONDecoder (what it used before), on the same state.
// Build and run: Benchmarks/snapshot/run.sh (swiftc -O of TabCore and TabJSON with this file,
// one module, no SwiftPM).

import Foundation

@inline(never) func consume<T>(_ x: T) { withExtendedLifetime(x) {} }

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Best of 5 rounds of `iterations` calls, in ns per call.
func measure(_ iterations: Int, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let t0 = now()
        for _ in 0..<iterations { body() }
        best = min(best, Double(now() - t0) / Double(iterations))
    }
    return best
}

/// The tabs of Benchmarks/core: titles, an item on every third, restoration ids, all
/// orientations, a navigation stack on every fourth.
func tabList(_ count: Int) -> [Tab] {
    (0..<count).map { i in
        Tab(id: "t\(i)", title: "Tab \(i)", item: i % 3 == 0 ? TabItem(title: "Item \(i)", image: "i\(i).png", badge: "\(i)") : nil,
            restorationID: i % 2 == 0 ? "r\(i)" : nil, orientations: .all, navigation: i % 4 == 0)
    }
}

func state(_ tabs: Int) -> TabContainers {
    var c = TabContainers.withDefault()
    _ = try! c.apply(.setTabs(tabList(tabs), animated: false), to: TabContainers.defaultName, policy: DefaultPolicy(), notifying: false)
    _ = try! c.apply(.select(.tab("t1")), to: TabContainers.defaultName, policy: DefaultPolicy(), notifying: false)
    _ = try! c.apply(.push(tab: "t0", screen: Screen(id: "detail")), to: TabContainers.defaultName, policy: DefaultPolicy(), notifying: false)
    return c
}

func tabJSONEncode(_ s: TabContainers) -> [UInt8] {
    var w = JSONWriter(capacity: 4096)
    w.write(try! JSONValueEncoder(sortedKeys: true).encode(s))
    return w.bytes
}

func tabJSONDecode(_ bytes: [UInt8]) -> TabContainers {
    let value = try! bytes.withUnsafeBytes { try JSONParser.parse($0, maxDepth: 512) }
    return try! JSONValueDecoder().decode(TabContainers.self, from: value)
}

let foundationEncoder = JSONEncoder()
foundationEncoder.outputFormatting = [.sortedKeys]
let foundationDecoder = JSONDecoder()

print("snapshot body, per tab (best of 5)     encode        decode     bytes")
for n in [6, 50, 1000] {
    let s = state(n)
    let ours = tabJSONEncode(s)
    let theirs = Data(try! foundationEncoder.encode(s))
    precondition(tabJSONDecode(ours) == s && tabJSONDecode(Array(theirs)) == s, "the codecs disagree")
    precondition(try! foundationDecoder.decode(TabContainers.self, from: Data(ours)) == s, "JSONDecoder cannot read TabJSON's text")
    let iterations = max(20, 20_000 / n)
    let perTab = { (ns: Double) in String(format: "%9.2f µs", ns / Double(n) / 1000) }
    let e = measure(iterations) { consume(tabJSONEncode(s)) }
    let d = measure(iterations) { consume(tabJSONDecode(ours)) }
    let fe = measure(iterations) { consume(try! foundationEncoder.encode(s)) }
    let fd = measure(iterations) { consume(try! foundationDecoder.decode(TabContainers.self, from: theirs)) }
    print("  \(n) tabs, TabJSON             \(perTab(e))  \(perTab(d))  \(ours.count)")
    print("  \(n) tabs, JSONEncoder/Decoder \(perTab(fe))  \(perTab(fd))  \(theirs.count)   (\(String(format: "%.1f", fe / e))x, \(String(format: "%.1f", fd / d))x)")
}
