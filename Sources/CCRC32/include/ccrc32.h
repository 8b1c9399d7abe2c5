// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: zlib's, gzip's, PNG's) for the
// journal's records and the snapshot. In C for one reason: x86-64's carry-less multiply
// (PCLMULQDQ), which Swift cannot reach, folds sixteen bytes forward with two multiplies
// and reduces the remainder with four, where a table lookup per byte costs far more. Used
// only when the CPU has it (CPUID, checked once); elsewhere, and for a buffer shorter than
// eight bytes, the slicing-by-8 tables. Both give the same checksum: tested on random
// buffers against a bit-at-a-time reference (TabStateTests.CRC32Tests).
#ifndef TABD_CCRC32_H
#define TABD_CCRC32_H

#include <stddef.h>
#include <stdint.h>

/// The CRC-32 of `length` bytes at `bytes` (0 for none), with the usual pre- and
/// post-inversion: tabd_crc32("123456789", 9) == 0xCBF43926.
uint32_t tabd_crc32(const void *bytes, size_t length);

/// The same checksum by the tables alone (for the tests: both paths must agree).
uint32_t tabd_crc32_tables(const void *bytes, size_t length);

/// Whether tabd_crc32 uses the carry-less multiply on this CPU.
int tabd_crc32_uses_clmul(void);

#endif
