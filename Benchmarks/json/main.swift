// TabJSON, the one JSON codec, against Foundation:
// - parse + write ns/op against JSONSerialization, on one tiny request line (the daemon's
//   common case) and one larger reply-like line;
// - snapshot bodies, encode and decode per tab: what StateStore writes and reads (Codable
//   over JSONValue with sorted keys and JSONWriter; JSONParser and JSONValueDecoder) against
//   JSONEncoder and JSONDecoder (what it used before), on the same state.
// Build and run: Benchmarks/json/run.sh (swiftc -O of TabJSON and TabCore with this file,
// one module, no SwiftPM).

import Foundation

let lines: [(String, String)] = [
    ("tiny request", #"{"cmd":"select","tab":"music","id":12}"#),
    ("state reply", #"{"id":7,"ok":true,"result":{"tabs":[{"id":"music","title":"Music","item":{"title":"Music","image":"music.png","tag":3,"badge":"2"},"stack":[]},{"id":"settings","title":"Settings \u00e9","item":{"title":"Settings","image":null,"tag":4,"badge":null},"stack":[{"id":"detail","title":"Detail"}]}],"selected":"music","selected_index":0,"bar":{"visible":["music","settings"],"more":[]},"customizable":true,"customizing":false,"orientation":{"current":"portrait","supported":["portrait","landscape_left"],"preferred":"portrait"},"idiom":"phone","max_visible":5,"ratio":0.618}}"#),
]

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

func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
func ns(_ d: Double) -> String { String(format: "%9.1f ns/op", d) }

for (name, line) in lines {
    let bytes = Array(line.utf8)
    let data = Data(line.utf8)
    let n = name == "tiny request" ? 1_000_000 : 100_000
    let value = try! bytes.withUnsafeBytes { try JSONParser.parse($0) }
    let object = try! JSONSerialization.jsonObject(with: data)
    var w = JSONWriter(capacity: 1024)

    let parse = measure(n) { consume(bytes.withUnsafeBytes { try! JSONParser.parse($0) }) }
    let write = measure(n) { w.reset(); w.write(value); consume(w.count) }
    let both = measure(n) {
        let v = bytes.withUnsafeBytes { try! JSONParser.parse($0) }
        w.reset(); w.write(v); consume(w.count)
    }
    let fParse = measure(n / 10) { consume(try! JSONSerialization.jsonObject(with: data)) }
    let fWrite = measure(n / 10) { consume(try! JSONSerialization.data(withJSONObject: object)) }
    let fBoth = measure(n / 10) {
        consume(try! JSONSerialization.data(withJSONObject: try! JSONSerialization.jsonObject(with: data)))
    }
    print("\(name) (\(bytes.count) bytes)")
    print("  \(pad("JSONParser.parse", 30)) \(ns(parse))   JSONSerialization.jsonObject \(ns(fParse))")
    print("  \(pad("JSONWriter.write", 30)) \(ns(write))   JSONSerialization.data       \(ns(fWrite))")
    print("  \(pad("parse + write", 30)) \(ns(both))   parse + write                \(ns(fBoth))   (\(String(format: "%.0f", fBoth / both))x)")
}

// MARK: Snapshot bodies

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
