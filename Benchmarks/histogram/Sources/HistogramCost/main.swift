// Records the same million latencies (2 µs … 202 µs) into each histogram, one call per
// value, so that callgrind counts each `record` call on its own (run.sh divides).

import Histogram

/// HdrHistogram as tabd would hold it: in a class, with the sum kept beside it (HdrHistogram
/// keeps count, min and max, not the sum that `mean_us` and `_sum` need). Two significant
/// digits: 1/128 of a value or better, against LatencyHistogram's 1/32 bucket width.
final class HdrLatency {
    var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .two)
    var totalNanos: UInt64 = 0

    @inline(never) func record(_ nanos: UInt64) {
        histogram.record(nanos)
        totalNanos &+= nanos
    }
}

@inline(never) func recordLogLinear(_ h: LatencyHistogram, _ nanos: UInt64) { h.record(nanos) }

let n = 1_000_000
var values = [UInt64](repeating: 0, count: n)
var x: UInt64 = 88_172_645_463_325_252
for i in 0..<n {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17
    values[i] = 2_000 + x % 200_000
}
let logLinear = LatencyHistogram()
let hdr = HdrLatency()
for v in values { recordLogLinear(logLinear, v) }
for v in values { hdr.record(v) }
print("p99: LatencyHistogram \(logLinear.quantile(0.99)) ns, HdrHistogram \(hdr.histogram.valueAtPercentile(99.0)) ns")
