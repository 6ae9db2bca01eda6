/*
 * escape_masks.h: JSON string escapes found 64 bytes at a time, without a branch per backslash.
 *
 * Text full of escapes (`\n`, `\"`, `\\`, `\u00e9`, one every few bytes) made both the UTF-8
 * check's surrogate test (utf8_prefix.h) and the lean validation scanner (SyntaxScanner) take a
 * mispredicted branch or two per escape, and `yajl validate` cost 1.6 times `json_verify` on such a
 * document. Here a block's backslashes become one 64-bit mask (bit k for byte k), and which bytes
 * are escaped follows from it with a few additions (cyajl_escaped_mask); the bytes that must follow
 * a backslash, and the hexadecimal digits after `\u`, are then checked for the whole block at once.
 *
 * Nothing here reports an error: a block with anything wrong (or a surrogate escape, for the UTF-8
 * check) stops the fast path, and the byte-by-byte code finds what is wrong and where.
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

/* The masks of one 64-byte block inside a string. */
typedef struct {
    uint64_t quotes, backslashes, controls, escapable, hex, u;
} cyajl_string_masks;

/* Whether each of the 16 bytes is a hexadecimal digit. */
static inline __m128i cyajl_hex_digits(__m128i v) {
    /* Digits: v - '0' below 10, unsigned; letters: (v | 0x20) - 'a' below 6. */
    const __m128i digits = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    const __m128i isDigit = _mm_cmpeq_epi8(_mm_min_epu8(digits, _mm_set1_epi8(9)), digits);
    const __m128i letters = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    const __m128i isLetter = _mm_cmpeq_epi8(_mm_min_epu8(letters, _mm_set1_epi8(5)), letters);
    return _mm_or_si128(isDigit, isLetter);
}

static inline cyajl_string_masks cyajl_string_block(const uint8_t *data) {
    cyajl_string_masks m = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 16 * k));
        const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
        const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
        const __m128i u = _mm_cmpeq_epi8(v, _mm_set1_epi8('u'));
        /* The bytes that may follow a backslash: " \ / b f n r t u. */
        __m128i escapable = _mm_or_si128(_mm_or_si128(quote, backslash), u);
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('b')));
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('f')));
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('n')));
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('r')));
        escapable = _mm_or_si128(escapable, _mm_cmpeq_epi8(v, _mm_set1_epi8('t')));
        /* A control byte: its unsigned maximum with 0x1F is 0x1F. */
        const __m128i highestControl = _mm_set1_epi8(0x1F);
        const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, highestControl), highestControl);
        m.quotes |= cyajl_bits_at(quote, k);
        m.backslashes |= cyajl_bits_at(backslash, k);
        m.controls |= cyajl_bits_at(control, k);
        m.escapable |= cyajl_bits_at(escapable, k);
        m.hex |= cyajl_bits_at(cyajl_hex_digits(v), k);
        m.u |= cyajl_bits_at(u, k);
    }
    return m;
}

/*
 * Inside a string, from the backslash at `from` (so not itself escaped): whole 64-byte blocks
 * (each with the four bytes after it readable) are checked at once: no control byte, every escape
 * one of \" \\ \/ \b \f \n \r \t or \u and four hexadecimal digits. Returns the bitwise complement
 * (negative) of the index after the string's closing quote; or an index up to which the string is
 * valid and that is outside any escape (`from` itself when nothing could be vouched for): a block
 * with anything wrong, or the end of the input, leaves the rest to the caller.
 */
static inline long cyajl_scan_escaped_string(const uint8_t *data, long length, long from) {
    long good = from;
    uint64_t carry = 0;
    for (long i = from; length - i >= 68; i += 64) {
        const cyajl_string_masks m = cyajl_string_block(data + i);
        uint64_t next = carry;
        const uint64_t escaped = cyajl_escaped_mask(m.backslashes, &next);
        /* Where \u needs hexadecimal digits: the four bytes after each escaped u, past the block
         * included (bytes 64 to 67, whose digits the next block does not look at again). */
        const uint64_t us = escaped & m.u;
        uint32_t after;
        memcpy(&after, data + i + 64, 4);
        const uint64_t tail = (uint64_t)(_mm_movemask_epi8(cyajl_hex_digits(_mm_cvtsi32_si128((int)after))) & 0xF);
        const __uint128_t hex = (__uint128_t)m.hex | ((__uint128_t)tail << 64);
        const uint64_t ends = m.quotes & ~escaped;
        /* Only the bytes before the closing quote belong to the string (all of them when none). */
        const uint64_t inside = ends ? (ends & (0 - ends)) - 1 : ~(uint64_t)0;
        const __uint128_t insideHex = us & inside;
        const __uint128_t needsHexInside = ((insideHex << 1) | (insideHex << 2) | (insideHex << 3) | (insideHex << 4));
        const uint64_t wrong = (m.controls | (escaped & ~m.escapable)) & inside;
        if (wrong != 0 || (needsHexInside & ~hex) != 0) return good;
        if (ends) return ~(i + __builtin_ctzll(ends) + 1);
        /* Where the next block starts outside any escape, or else the escape that crosses into it. */
        good = i + 64;
        if (us >> 60) good = i + 63 - __builtin_clzll(us) - 1;
        else if (next) good = i + 63;
        carry = next;
    }
    return good;
}
#else
/* Without SSE2 nothing is vouched for: the scanner's own state machine does all of it. */
static inline long cyajl_scan_escaped_string(const uint8_t *data, long length, long from) {
    (void)data;
    (void)length;
    return from;
}
#endif

#endif /* CYAJL_ESCAPE_MASKS_H */
