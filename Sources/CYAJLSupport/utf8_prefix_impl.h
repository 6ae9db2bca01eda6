/*
 * utf8_prefix_impl.h: the fast path of the parser's strict UTF-8 check, 16 bytes at a time (SSSE3).
 *
 * cyajl_valid_utf8_prefix returns how many leading bytes of `data` are certainly fine: valid
 * UTF-8 (Unicode Table 3-7: no overlong form, no encoded surrogate, nothing past U+10FFFF) that
 * ends on a character boundary, with every `\u` escape in it complete and not a lone surrogate.
 * The Swift validator (UTF8Validator) checks the rest byte by byte, and finds where and why
 * anything is wrong, so this function never needs to report an error: it stops before it.
 * It assumes the bytes before `data` end on a character boundary, outside any escape.
 *
 * The UTF-8 check is the lookup algorithm of Keiser and Lemire, "Validating UTF-8 In Less Than
 * One Instruction Per Byte" (Software: Practice and Experience, 2021): three 16-entry tables,
 * indexed by the high and low nibble of the previous byte and the high nibble of the byte, flag
 * each error class in one bit; the AND of the three lookups is nonzero exactly where two adjacent
 * bytes cannot follow each other, except that two continuation bytes are an error only when no
 * three- or four-byte lead two or three bytes back requires them.
 */
#ifndef CYAJL_UTF8_PREFIX_IMPL_H
#define CYAJL_UTF8_PREFIX_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* Four hex digits at `p` as a number, or -1. */
static inline int cyajl_hex4(const uint8_t *p) {
    int value = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t c = p[k], digit;
        if (c >= '0' && c <= '9') digit = (uint8_t)(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') digit = (uint8_t)((c | 0x20) - 'a' + 10);
        else return -1;
        value = value << 4 | digit;
    }
    return value;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <tmmintrin.h>
#include "escape_masks.h"

/* Whether the CPU has SSSE3 (every x86-64 CPU since 2006 but a few older AMD ones). */
static inline int cyajl_has_ssse3(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSSE3) != 0;
}

/* Error classes, one bit each (a pair of adjacent bytes is in a class when all three lookups agree). */
enum {
    CYAJL_TOO_SHORT = 1 << 0,   /* a lead followed by ASCII or another lead */
    CYAJL_TOO_LONG = 1 << 1,    /* ASCII followed by a continuation */
    CYAJL_OVERLONG_3 = 1 << 2,  /* E0 followed by 80..9F */
    CYAJL_TOO_LARGE = 1 << 3,   /* F4..FF followed by 90..BF */
    CYAJL_SURROGATE = 1 << 4,   /* ED followed by A0..BF */
    CYAJL_OVERLONG_2 = 1 << 5,  /* C0 or C1 followed by a continuation */
    CYAJL_LARGE_OR_OVERLONG_4 = 1 << 6, /* F5..FF, or F0, followed by 80..8F */
    CYAJL_TWO_CONTINUATIONS = 1 << 7,   /* a continuation followed by a continuation */
    CYAJL_CARRY = CYAJL_TOO_SHORT | CYAJL_TOO_LONG | CYAJL_TWO_CONTINUATIONS,
};

__attribute__((target("ssse3")))
static inline __m128i cyajl_high_nibbles(__m128i v) {
    return _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F));
}

/* Bit k set when byte k of the 64 at `data` is d or D (a surrogate escape's first digit). */
static inline uint64_t cyajl_mask64_d(const uint8_t *data) {
    uint64_t mask = 0;
    for (int k = 0; k < 4; k++) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 16 * k));
        mask |= cyajl_bits_at(_mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('d')), k);
    }
    return mask;
}

/* Bit k set when byte k of the 64 at `data` is 8, 9, a to f or A to F (a surrogate escape's second
 * digit). */
static inline uint64_t cyajl_mask64_8_to_f(const uint8_t *data) {
    uint64_t mask = 0;
    for (int k = 0; k < 4; k++) {
        /* With 0x20 set, 8 and 9 stay themselves and A to F become a to f. */
        const __m128i v = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(data + 16 * k)), _mm_set1_epi8(0x20));
        const __m128i letters = _mm_sub_epi8(v, _mm_set1_epi8('a'));
        const __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('8')), _mm_cmpeq_epi8(v, _mm_set1_epi8('9'))),
            _mm_cmpeq_epi8(_mm_min_epu8(letters, _mm_set1_epi8(5)), letters));
        mask |= cyajl_bits_at(hit, k);
    }
    return mask;
}

__attribute__((target("ssse3")))
static inline size_t cyajl_utf8_prefix_ssse3(const uint8_t *data, size_t length) {
#define L(x) ((char)(x))
    const int TS = CYAJL_TOO_SHORT, TL = CYAJL_TOO_LONG, O3 = CYAJL_OVERLONG_3, LG = CYAJL_TOO_LARGE;
    const int SU = CYAJL_SURROGATE, O2 = CYAJL_OVERLONG_2, L4 = CYAJL_LARGE_OR_OVERLONG_4;
    const int TC = CYAJL_TWO_CONTINUATIONS, C = CYAJL_CARRY;
    /* By the previous byte's high nibble. */
    const __m128i byte1High = _mm_setr_epi8(
        L(TL), L(TL), L(TL), L(TL), L(TL), L(TL), L(TL), L(TL),  /* 0___: ASCII */
        L(TC), L(TC), L(TC), L(TC),                              /* 10__: continuation */
        L(TS | O2), L(TS),                                       /* 110_: two-byte lead */
        L(TS | O3 | SU),                                         /* 1110: three-byte lead */
        L(TS | LG | L4));                                        /* 1111: four-byte lead (or worse) */
    /* By the previous byte's low nibble. */
    const __m128i byte1Low = _mm_setr_epi8(
        L(C | O3 | O2 | L4), L(C | O2), L(C), L(C),
        L(C | LG), L(C | LG | L4), L(C | LG | L4), L(C | LG | L4),
        L(C | LG | L4), L(C | LG | L4), L(C | LG | L4), L(C | LG | L4),
        L(C | LG | L4), L(C | LG | L4 | SU), L(C | LG | L4), L(C | LG | L4));
    /* By the byte's high nibble. */
    const __m128i byte2High = _mm_setr_epi8(
        L(TS), L(TS), L(TS), L(TS), L(TS), L(TS), L(TS), L(TS),  /* ASCII */
        L(TL | O2 | TC | O3 | L4),                               /* 80..8F */
        L(TL | O2 | TC | O3 | LG),                               /* 90..9F */
        L(TL | O2 | TC | SU | LG), L(TL | O2 | TC | SU | LG),    /* A0..BF */
        L(TS), L(TS), L(TS), L(TS));                             /* a lead */
#undef L
    const __m128i zero = _mm_setzero_si128();
    __m128i previous = zero;
    int previousIncomplete = 0;
    /* Whether the next block's first byte is escaped (cyajl_escaped_mask). */
    uint64_t carry = 0;
    /* The `u` of the low half of the last surrogate pair found, and the end of that pair. */
    size_t pairedLow = SIZE_MAX, pairEnd = 0;
    size_t good = 0;
    /* 64 bytes a step, with the two bytes after the block readable (a `\u`'s first two digits). */
    const __m128i slash = _mm_set1_epi8('\\');
    for (size_t i = 0; i + 66 <= length; i += 64) {
        if (!previousIncomplete && !carry) {
            /* Runs of plain ASCII (no byte from 0x80, no backslash) after a clean end: one test a
             * block, and each such block ends clean. */
            const size_t start = i;
            while (i + 66 <= length) {
                const __m128i a = _mm_loadu_si128((const __m128i *)(data + i));
                const __m128i b = _mm_loadu_si128((const __m128i *)(data + i + 16));
                const __m128i c = _mm_loadu_si128((const __m128i *)(data + i + 32));
                const __m128i d = _mm_loadu_si128((const __m128i *)(data + i + 48));
                const __m128i high = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
                const __m128i slashes = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(a, slash), _mm_cmpeq_epi8(b, slash)),
                    _mm_or_si128(_mm_cmpeq_epi8(c, slash), _mm_cmpeq_epi8(d, slash)));
                if (_mm_movemask_epi8(_mm_or_si128(high, slashes)) != 0) break;
                i += 64;
            }
            if (i != start) {
                good = i;
                /* ASCII before a block checks as zeros do (only the previous bytes' kind counts). */
                previous = zero;
            }
            if (i + 66 > length) break;
        }
        const __m128i v[4] = {
            _mm_loadu_si128((const __m128i *)(data + i)), _mm_loadu_si128((const __m128i *)(data + i + 16)),
            _mm_loadu_si128((const __m128i *)(data + i + 32)), _mm_loadu_si128((const __m128i *)(data + i + 48))};
        const __m128i b[4] = {
            _mm_cmpeq_epi8(v[0], slash), _mm_cmpeq_epi8(v[1], slash), _mm_cmpeq_epi8(v[2], slash),
            _mm_cmpeq_epi8(v[3], slash)};
        const int anyHigh = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(v[0], v[1]), _mm_or_si128(v[2], v[3])));
        if (anyHigh != 0 || previousIncomplete) {
            for (int k = 0; k < 4; k++) {
                const __m128i input = v[k];
                const __m128i prev1 = _mm_alignr_epi8(input, previous, 15);
                const __m128i prev2 = _mm_alignr_epi8(input, previous, 14);
                const __m128i prev3 = _mm_alignr_epi8(input, previous, 13);
                __m128i special = _mm_shuffle_epi8(byte1High, cyajl_high_nibbles(prev1));
                special = _mm_and_si128(special, _mm_shuffle_epi8(byte1Low, _mm_and_si128(prev1, _mm_set1_epi8(0x0F))));
                special = _mm_and_si128(special, _mm_shuffle_epi8(byte2High, cyajl_high_nibbles(input)));
                /* Two continuations are right where a lead two or three bytes back requires them. */
                const __m128i required = _mm_or_si128(
                    _mm_subs_epu8(prev2, _mm_set1_epi8((char)(0xE0 - 0x80))),
                    _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80))));
                const __m128i error = _mm_xor_si128(_mm_and_si128(required, _mm_set1_epi8((char)0x80)), special);
                if (_mm_movemask_epi8(_mm_cmpeq_epi8(error, zero)) != 0xFFFF) return good;
                previous = input;
            }
        }
        previous = v[3];
        /* The `\u` escapes of surrogates (a `u` escaped, then d or D, then 8 to F): a high one must
         * be followed by a `\u` of a low one; anything else stops here. */
        const uint64_t backslashes = cyajl_bits64(b[0], b[1], b[2], b[3]);
        uint64_t us = 0;
        if ((backslashes | carry) != 0) {
            const __m128i u = _mm_set1_epi8('u');
            us = cyajl_escaped_mask(backslashes, &carry)
                & cyajl_bits64(_mm_cmpeq_epi8(v[0], u), _mm_cmpeq_epi8(v[1], u), _mm_cmpeq_epi8(v[2], u),
                    _mm_cmpeq_epi8(v[3], u));
            if (us != 0) {
                uint64_t candidates = us & cyajl_mask64_d(data + i + 1) & cyajl_mask64_8_to_f(data + i + 2);
                while (candidates != 0) {
                    const size_t p = i + (size_t)__builtin_ctzll(candidates);
                    candidates &= candidates - 1;
                    if (p == pairedLow) continue;
                    if (p + 11 > length) return good;
                    const int code = cyajl_hex4(data + p + 1);
                    if (code < 0xD800 || code > 0xDFFF) continue;  /* not hexadecimal (YAJL reports it), or not a surrogate */
                    if (code > 0xDBFF) return good;  /* a lone low surrogate */
                    const int low = data[p + 5] == '\\' && data[p + 6] == 'u' ? cyajl_hex4(data + p + 7) : -1;
                    if (low < 0xDC00 || low > 0xDFFF) return good;  /* a lone high surrogate */
                    pairedLow = p + 6;
                    pairEnd = p + 11;
                }
            }
        }
        /* Where the next block starts on a character boundary outside any escape, else the last
         * such place before it: the lead byte of a sequence the block cuts, the backslash that
         * escapes the next block's first byte, or the start of a `\u` escape or pair that crosses. */
        size_t next = i + 64;
        previousIncomplete = (_mm_movemask_epi8(v[3]) != 0)
            && (data[i + 63] >= 0xC0 || data[i + 62] >= 0xE0 || data[i + 61] >= 0xF0);
        if (previousIncomplete) next = data[i + 63] >= 0xC0 ? i + 63 : data[i + 62] >= 0xE0 ? i + 62 : i + 61;
        if (carry && i + 63 < next) next = i + 63;
        if ((us >> 60) != 0 && i + 62 - (size_t)__builtin_clzll(us) < next) next = i + 62 - (size_t)__builtin_clzll(us);
        if (pairEnd > i + 64 && pairEnd - 12 < next) next = pairEnd - 12;
        good = next;
    }
    return good;
}
#endif

/* See the top of this file; 0 without SSSE3 (the Swift validator then does everything). */
static inline size_t cyajl_valid_utf8_prefix_impl(const uint8_t *data, size_t length, int useSSSE3) {
#if defined(__x86_64__)
    if (useSSSE3) return cyajl_utf8_prefix_ssse3(data, length);
#endif
    (void)data;
    (void)length;
    (void)useSSSE3;
    return 0;
}

/* Whether cyajl_valid_utf8_prefix can use SSSE3 on this CPU. */
static inline int cyajl_utf8_prefix_available_impl(void) {
#if defined(__x86_64__)
    return cyajl_has_ssse3();
#else
    return 0;
#endif
}

#endif /* CYAJL_UTF8_PREFIX_IMPL_H */
