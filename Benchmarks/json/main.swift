// Parse + write ns/op of the hand-written codec against Foundation's JSONSerialization,
// on one tiny request line (the daemon's common case) and one larger reply-like line.
// Build and run: Benchmarks/json/run.sh (swiftc -O with the codec's sources, no SwiftPM).

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
