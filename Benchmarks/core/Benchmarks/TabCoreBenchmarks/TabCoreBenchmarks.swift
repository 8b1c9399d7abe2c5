// TabCore's hot paths at 6, 50 and 1,000 tabs (issue 2, "Speed"):
//   select    programmatic selection, alternating between two tabs (t0 ↔ t1)
//   tap       a user's tap with DefaultPolicy, alternating between two tabs
//   set_tabs  replacing every tab, alternating between two lists with different ids
//   encode    JSONEncoder of the whole Controller (what a snapshot writes)
// Metrics marked * in the output are per operation (scaling factor applied).
// Aim: select/tap under 1 µs at 6 tabs; set_tabs linear in tabs.
import Benchmark
import Foundation
import TabCore

/// Holds state across samples; each sample takes a local copy so the loop mutates a plain var.
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

func tabList(_ count: Int, prefix: String) -> [Tab] {
    (0..<count).map { i in
        Tab(id: "\(prefix)\(i)", title: "Tab \(i)", item: i % 3 == 0 ? TabItem(title: "Item \(i)", image: "i\(i).png", badge: "\(i)") : nil,
            restorationID: i % 2 == 0 ? "r\(i)" : nil, orientations: .all, navigation: i % 4 == 0)
    }
}

/// A phone controller with `count` tabs, both t0 and t1 already loaded (steady state).
func controller(_ count: Int) -> Controller {
    var c = Controller(name: "bench", idiom: .phone)
    _ = try! c.apply(.setTabs(tabList(count, prefix: "t"), animated: false))
    _ = try! c.apply(.select(.tab("t1")))
    _ = try! c.apply(.select(.tab("t0")))
    _ = try! c.apply(.badge(tab: "t1", value: "7"))
    _ = try! c.apply(.push(tab: "t0", screen: Screen(id: "detail")))
    return c
}

let sizes = [6, 50, 1000]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        maxDuration: .seconds(2),
        maxIterations: 5_000
    )
    let perOp = Benchmark.Configuration(scalingFactor: .kilo)

    for n in sizes {
        let start = Box(controller(n))
        let first = Command.select(.tab("t0")), second = Command.select(.tab("t1"))
        Benchmark("select \(n) tabs", configuration: perOp) { benchmark in
            var c = start.value
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                blackHole(try! c.apply(i & 1 == 0 ? second : first))
            }
            benchmark.stopMeasurement()
            start.value = c
        }
    }

    for n in sizes {
        let start = Box(controller(n))
        let first = Command.tap(.tab("t0")), second = Command.tap(.tab("t1"))
        let policy = DefaultPolicy()
        Benchmark("tap \(n) tabs", configuration: perOp) { benchmark in
            var c = start.value
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                blackHole(try! c.apply(i & 1 == 0 ? second : first, policy: policy))
            }
            benchmark.stopMeasurement()
            start.value = c
        }
    }

    for n in sizes {
        let start = Box(controller(n))
        let lists = [Command.setTabs(tabList(n, prefix: "u"), animated: false),
                     Command.setTabs(tabList(n, prefix: "t"), animated: true)]
        Benchmark("set_tabs \(n) tabs", configuration: .init(scalingFactor: n >= 1000 ? .one : .kilo)) { benchmark in
            var c = start.value
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                blackHole(try! c.apply(lists[i & 1]))
            }
            benchmark.stopMeasurement()
            start.value = c
        }
    }

    for n in sizes {
        let c = controller(n)
        let encoder = JSONEncoder()
        Benchmark("encode \(n) tabs", configuration: .init(scalingFactor: n >= 1000 ? .one : .kilo)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try! encoder.encode(c))
            }
        }
    }
}
