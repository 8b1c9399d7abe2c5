// The test targets' one seeded generator: random tests that repeat exactly for a seed.

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence on every
/// platform, so that a failure's printed seed reproduces it. Each test target adds the
/// helpers it draws with (ranges, chances) in an extension of its own.
public struct SplitMix64: RandomNumberGenerator {
    public private(set) var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
