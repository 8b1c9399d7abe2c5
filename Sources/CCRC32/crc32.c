#include "ccrc32.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

// Slicing-by-8: table[k][b] is the CRC of byte b followed by k zero bytes.
static uint32_t table[8][256];
// 0: not yet looked at; 1: tables only; 2: tables made and the carry-less multiply usable.
static int ready;

static void prepare(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (int i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xFF];
    int clmul = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    // CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 9 SSSE3 (the byte shuffle), bit 19 SSE4.1
    // (the extract and the blend).
    if (__get_cpuid(1, &a, &b, &c, &d)) clmul = (c & (1u << 1)) && (c & (1u << 9)) && (c & (1u << 19));
#endif
    // One thread at a time reaches here in tabd (the loop thread, or a test); a second one
    // would only make the same tables again.
    __atomic_store_n(&ready, clmul ? 2 : 1, __ATOMIC_RELEASE);
}

static inline int state(void) {
    int r = __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
    if (__builtin_expect(r == 0, 0)) { prepare(); r = __atomic_load_n(&ready, __ATOMIC_ACQUIRE); }
    return r;
}

static uint32_t by_tables(uint32_t crc, const uint8_t *p, size_t n) {
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= crc;
        crc = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24]
            ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
// The CRC state after eight bytes `w` (little-endian, the current state already xored into
// the low four) from state zero, in the reflected domain (bit i of a 32-bit value is the
// coefficient of x^(31-i)): W(x)·x^32 mod P(x). With W = Wh·x^32 + Wl (Wh: the low four
// bytes), fold Wh·x^64 into Wh·K, K = x^64 mod P, which gives A = Wh·K + Wl·x^32 of degree
// below 64; then Barrett: q = ⌊⌊A / x^32⌋·μ / x^32⌋ with μ = ⌊x^64 / P⌋, and A + q·P mod
// x^32 is the state. Three multiplies for eight bytes. Constants as 33-bit reflected values
// (a 32×33-bit carry-less product of reflected values is the reflected 64-bit product):
// K = 0x490D678D, μ = 0x104D101DF, P = 0x104C11DB7.
__attribute__((target("pclmul,sse4.1")))
static inline uint32_t step(uint64_t w) {
    const __m128i k = _mm_set_epi64x(0x163CD6124LL, 0x1F7011641LL);  // high: K, low: μ
    const __m128i p = _mm_set_epi64x(0, 0x1DB710641LL);
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
    __m128i x = _mm_cvtsi64_si128((long long)w);
    __m128i a = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), k, 0x10), _mm_srli_epi64(x, 32));
    __m128i t1 = _mm_clmulepi64_si128(_mm_and_si128(a, low32), k, 0x00);
    __m128i t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), p, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(a, t2), 1);
}

// n ≥ 8: whole eight-byte words, then the last 1...7 bytes as the tail of the buffer's last
// eight (read from before them, the bytes already counted shifted out): zero bytes from state
// zero leave it zero, so those bytes in front change nothing.
__attribute__((target("pclmul,sse4.1")))
static uint32_t by_clmul(uint32_t crc, const uint8_t *p, size_t n) {
    const uint8_t *end = p + n;
    uint64_t v;
    while (end - p >= 8) {
        memcpy(&v, p, 8);
        crc = step(v ^ crc);
        p += 8;
    }
    size_t k = (size_t)(end - p);
    if (k == 0) return crc;
    memcpy(&v, end - 8, 8);
    v >>= 8 * (8 - k);  // the last k bytes, in the low ones
    if (k >= 4) return step((v ^ crc) << (8 * (8 - k)));
    uint32_t mask = (1u << (8 * k)) - 1;
    return step(((v ^ crc) & mask) << (8 * (8 - k))) ^ (crc >> (8 * k));
}

// n ≥ 16: sixteen bytes at a time in a 128-bit remainder left unreduced: each block folds
// the one before it 128 bits forward (its low half times x^160 mod P, its high half times
// x^96 mod P: two multiplies) and adds itself. The last r = n mod 16 bytes make, with the
// remainder, 16 + r bytes: its first r are folded forward the same way onto the last 16
// (the remainder's other 16 - r bytes and the r new ones, read as the buffer's last sixteen),
// each half made by one byte shuffle. Then 128 bits down to 64 (a multiply), 64 to 32
// (another) and the Barrett reduction of `step` (two). The fold, the partial block and the
// final reduction of Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"
// (Gopal et al., 2009), as Linux's crc32-pclmul_asm.S has them; constants reflected as in
// `step`: R3 = x^160 mod P = 0x1751997D0, R4 = x^96 mod P = 0x0CCAA009E, R5 = x^64 mod P.
// A select's journal record (27 to 33 bytes): 50 instructions, against 117 eight bytes at a
// time (callgrind, `Benchmarks/harness/instructions.sh 5`).
//
// The shuffles: `shift + r` as a PSHUFB mask moves bytes 0..<r to 16-r..<16 (zeros below);
// `shift + 16 + r` moves bytes r..<16 to 0..<16-r, and its high bits (zero the rest) pick
// the last sixteen's bytes in the blend.
static const uint8_t shift[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

__attribute__((target("pclmul,sse4.1,ssse3")))
static uint32_t by_fold(uint32_t crc, const uint8_t *p, size_t n) {
    const __m128i r43 = _mm_set_epi64x(0x0CCAA009ELL, 0x1751997D0LL);  // high: R4, low: R3
    const __m128i r5 = _mm_set_epi64x(0, 0x163CD6124LL);
    const __m128i mup = _mm_set_epi64x(0x1F7011641LL, 0x1DB710641LL);  // high: μ, low: P
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
    const uint8_t *end = p + n;
    __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
    p += 16;
    while (end - p >= 16) {
        __m128i lo = _mm_clmulepi64_si128(x, r43, 0x00);
        __m128i hi = _mm_clmulepi64_si128(x, r43, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(lo, hi), _mm_loadu_si128((const __m128i *)p));
        p += 16;
    }
    size_t r = (size_t)(end - p);
    if (r != 0) {
        __m128i toHigh = _mm_loadu_si128((const __m128i *)(shift + r));
        __m128i toLow = _mm_loadu_si128((const __m128i *)(shift + 16 + r));
        __m128i first = _mm_shuffle_epi8(x, toHigh);
        __m128i last = _mm_blendv_epi8(_mm_shuffle_epi8(x, toLow), _mm_loadu_si128((const __m128i *)(end - 16)), toLow);
        __m128i lo = _mm_clmulepi64_si128(first, r43, 0x00);
        __m128i hi = _mm_clmulepi64_si128(first, r43, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(lo, hi), last);
    }
    x = _mm_xor_si128(_mm_clmulepi64_si128(x, r43, 0x10), _mm_srli_si128(x, 8));
    x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), r5, 0x00), _mm_srli_si128(x, 4));
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), mup, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), mup, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
}
#endif

uint32_t tabd_crc32(const void *bytes, size_t length) {
    int r = state();
#if defined(__x86_64__)
    if (r == 2 && length >= 16) return ~by_fold(0xFFFFFFFFu, bytes, length);
    if (r == 2 && length >= 8) return ~by_clmul(0xFFFFFFFFu, bytes, length);
#else
    (void)r;
#endif
    return ~by_tables(0xFFFFFFFFu, bytes, length);
}

uint32_t tabd_crc32_tables(const void *bytes, size_t length) {
    state();
    return ~by_tables(0xFFFFFFFFu, bytes, length);
}

int tabd_crc32_uses_clmul(void) { return state() == 2; }
