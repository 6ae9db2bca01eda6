/*
 * escape_masks.h: JSON string escapes found 64 bytes at a time, without a branch per backslash.
 *
 * Text full of escapes (`\n`, `\"`, `\\`, `\u00e9`, one every few bytes) would make the UTF-8
 * check's surrogate test (utf8_prefix.h) take a mispredicted branch or two per escape. Here a
 * block's backslashes become one 64-bit mask (bit k for byte k), and which bytes are escaped
 * follows from it with a few additions (cyajl_escaped_mask).
 *
 * Nothing here reports an error: a block with a surrogate escape stops the fast path, and the
 * byte-by-byte code finds what is wrong and where.
 */
#ifndef CYAJL_ESCAPE_MASKS_H
#define CYAJL_ESCAPE_MASKS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The escaped bytes of a 64-byte block whose backslashes are `backslashes`: a byte is escaped when
 * an odd run of backslashes ends just before it (inside a run, every second backslash is escaped by
 * the one before it). `*carry` is 1 when the block's first byte is escaped (the previous block
 * ended with a backslash that escapes), and becomes the same for the next block.
 *
 * A run of backslashes is a run of set bits. Adding a run's lowest bit to the mask clears the run
 * and sets the bit just after it; doing so for the runs that start at even positions and, apart,
 * for those at odd ones gives each run's end. A run escapes its end when its length is odd: the
 * end of a run that starts at an even position is then odd, and the other way round. Inside a run,
 * the bytes at odd distances from its start are the escaped backslashes. A run that starts at an
 * odd position and reaches bit 63 carries out of the addition exactly when its length is odd
 * (64 is even); one that starts at an even position never escapes byte 64.
 */
static inline uint64_t cyajl_escaped_mask(uint64_t backslashes, uint64_t *carry) {
    const uint64_t even = 0x5555555555555555ULL, odd = ~even;
    const uint64_t incoming = *carry;
    /* A backslash that the previous block escaped escapes nothing itself. */
    const uint64_t runs = backslashes & ~incoming;
    const uint64_t starts = runs & ~(runs << 1);
    const uint64_t evenSum = runs + (starts & even);
    uint64_t oddSum;
    *carry = __builtin_add_overflow(runs, starts & odd, &oddSum) ? 1 : 0;
    /* The bits of the runs that start at even positions (the sum cleared them), and the rest. */
    const uint64_t evenRuns = runs & ~evenSum;
    const uint64_t oddRuns = runs & ~evenRuns;
    /* The bit just after each run. */
    const uint64_t evenEnds = evenSum & ~runs;
    const uint64_t oddEnds = oddSum & ~runs;
    return ((evenRuns | evenEnds) & odd) | ((oddRuns | oddEnds) & even) | incoming;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#include <string.h>

/* Bits 16k to 16k+15 of a 64-byte block's mask: the bytes of its k-th 16 for which `x` is set. */
static inline uint64_t cyajl_bits_at(__m128i x, int k) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(x) << (16 * k);
}

/* The mask of a 64-byte block (bit k for byte k) from the compares of its four 16s. */
static inline uint64_t cyajl_bits64(__m128i a, __m128i b, __m128i c, __m128i d) {
    return cyajl_bits_at(a, 0) | cyajl_bits_at(b, 1) | cyajl_bits_at(c, 2) | cyajl_bits_at(d, 3);
}

#endif

#endif /* CYAJL_ESCAPE_MASKS_H */
