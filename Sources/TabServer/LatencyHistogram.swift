// Per-command latency for `stats` and `metrics`: a log-linear histogram (the layout
// HdrHistogram uses). Each power of two of nanoseconds is split into 32 equal sub-buckets,
// so a bucket is at most 1/32 of the values it holds wide, and a quantile reported as its
// bucket's middle is within 1/64 (1.6%) of the true value. Durations under 64 ns are counted
// exactly. 1,920 buckets cover every UInt64 (up to 584 years) in fixed storage: recording
// is an OR, a count of leading zeros, two shifts, an add and the increments.

/// A class with its buckets in fixed storage: recording is a few instructions, with no
/// copy-on-write or bounds checks (it runs for every request).
final class LatencyHistogram {
    /// log2 of the sub-buckets per power of two.
    static let subBucketBits = 5
    static let subBucketCount = 1 << subBucketBits
    /// Indices 0..<64 hold 0…63 ns one value each; from there each power of two [2^e, 2^(e+1))
    /// takes 32 buckets, up to e = 63.
    static let bucketCount = (64 - subBucketBits + 1) * subBucketCount
    /// The largest relative distance between a recorded duration and the middle of its bucket.
    static let relativeError = 1.0 / Double(2 << subBucketBits)

    let buckets = UnsafeMutablePointer<UInt64>.allocate(capacity: LatencyHistogram.bucketCount)
    var count: UInt64 = 0
    var totalNanos: UInt64 = 0
    var maxNanos: UInt64 = 0

    init() { buckets.initialize(repeating: 0, count: Self.bucketCount) }
    deinit { buckets.deallocate() }

    /// The bucket of `nanos`: with e its highest set bit, the top six bits (the leading 1 and
    /// the next five) of `nanos` after a shift of e - 5, plus 32 per power of two above 2^5.
    /// `| 63` makes the shift 0 for values under 64, which are their own index.
    @inline(__always)
    static func index(_ nanos: UInt64) -> Int {
        let shift = 58 - (nanos | 63).leadingZeroBitCount
        return (shift << subBucketBits) + Int(truncatingIfNeeded: nanos >> UInt64(truncatingIfNeeded: shift))
    }

    /// The durations bucket `i` holds: `lowest…highest` nanoseconds.
    static func range(ofBucket i: Int) -> ClosedRange<UInt64> {
        let shift = max(0, (i >> subBucketBits) - 1)
        let lowest = UInt64(i - (shift << subBucketBits)) << UInt64(shift)
        return lowest...(lowest + ((1 << UInt64(shift)) - 1))
    }

    @inline(__always)
    func record(_ nanos: UInt64) {
        buckets[Self.index(nanos)] &+= 1
        count &+= 1
        totalNanos &+= nanos
        if nanos > maxNanos { maxNanos = nanos }
    }

    /// Quantile `q` (0…1) by nearest rank, in nanoseconds: the middle of the bucket holding
    /// the rank (no more than the largest duration recorded), within `relativeError`.
    func quantile(_ q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((Double(count) * q).rounded(.up)))
        var seen: UInt64 = 0
        for i in 0..<Self.bucketCount {
            seen &+= buckets[i]
            if seen >= rank {
                let r = Self.range(ofBucket: i)
                return min(maxNanos, r.lowerBound + (r.upperBound - r.lowerBound) / 2)
            }
        }
        return maxNanos
    }

    /// Cumulative counts at `bounds` (nanoseconds, ascending): for each bound, the durations
    /// whose bucket lies wholly at or below it. A duration in the bucket that straddles a
    /// bound (within 1/32 under it) is counted at the next bound.
    func cumulativeCounts(atOrBelow bounds: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(bounds.count)
        var i = 0
        var seen: UInt64 = 0
        for bound in bounds {
            while i < Self.bucketCount, Self.range(ofBucket: i).upperBound <= bound {
                seen &+= buckets[i]
                i += 1
            }
            result.append(seen)
        }
        return result
    }
}
