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
    // CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 19 SSE4.1 (for the extract).
    if (__get_cpuid(1, &a, &b, &c, &d)) clmul = (c & (1u << 1)) && (c & (1u << 19));
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
#endif

uint32_t tabd_crc32(const void *bytes, size_t length) {
    int r = state();
#if defined(__x86_64__)
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
