/*
 * utf8_prefix.h: the fast path of the parser's strict UTF-8 check, 16 bytes at a time (SSSE3).
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
#ifndef CYAJL_UTF8_PREFIX_H
#define CYAJL_UTF8_PREFIX_H

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
    const __m128i backslash = _mm_set1_epi8('\\');
    __m128i previous = zero;
    int previousIncomplete = 0;
    int previousPlain = 1;  /* the previous block was plain ASCII: try the 64-byte loop */
    size_t good = 0, escapedUntil = 0;
    for (size_t i = 0; i + 16 <= length; i += 16) {
        /* Runs of plain ASCII (no backslash), 64 bytes at a time. */
        while (previousPlain && i + 64 <= length) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(data + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(data + i + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(data + i + 32));
            const __m128i d = _mm_loadu_si128((const __m128i *)(data + i + 48));
            const __m128i high = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
            const __m128i slashes = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(a, backslash), _mm_cmpeq_epi8(b, backslash)),
                _mm_or_si128(_mm_cmpeq_epi8(c, backslash), _mm_cmpeq_epi8(d, backslash)));
            if (_mm_movemask_epi8(_mm_or_si128(high, slashes)) != 0) {
                previousPlain = 0;
                break;
            }
            previous = d;
            i += 64;
            if (escapedUntil <= i) good = i;
        }
        if (i + 16 > length) break;
        const __m128i input = _mm_loadu_si128((const __m128i *)(data + i));
        const int highBits = _mm_movemask_epi8(input);
        if (highBits != 0 || previousIncomplete) {
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
        }
        unsigned backslashes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(input, backslash));
        previousPlain = highBits == 0 && backslashes == 0;
        while (backslashes != 0) {
            const size_t p = i + (size_t)__builtin_ctz(backslashes);
            backslashes &= backslashes - 1;
            if (p < escapedUntil) continue;  /* an escaped backslash */
            if (p + 1 >= length) return p;
            if (data[p + 1] != 'u') {  /* a one-character escape (a non-ASCII byte is checked as UTF-8 above) */
                escapedUntil = p + 2;
                continue;
            }
            if (p + 6 > length) return p;
            const int code = cyajl_hex4(data + p + 2);
            if (code < 0) {  /* not an escape: YAJL reports it */
                escapedUntil = p + 2;
                continue;
            }
            if (code < 0xD800 || code > 0xDFFF) {
                escapedUntil = p + 6;
                continue;
            }
            if (code > 0xDBFF || p + 12 > length) return p;  /* a lone low surrogate, or cut */
            const int low = data[p + 6] == '\\' && data[p + 7] == 'u' ? cyajl_hex4(data + p + 8) : -1;
            if (low < 0xDC00 || low > 0xDFFF) return p;  /* a lone high surrogate */
            escapedUntil = p + 12;
        }
        previous = input;
        previousIncomplete = highBits != 0 && (data[i + 15] >= 0xC0 || data[i + 14] >= 0xE0 || data[i + 13] >= 0xF0);
        if (!previousIncomplete && escapedUntil <= i + 16) good = i + 16;
    }
    return good;
}
#endif

/* See the top of this file; 0 without SSSE3 (the Swift validator then does everything). */
static inline size_t cyajl_valid_utf8_prefix(const uint8_t *data, size_t length, int useSSSE3) {
#if defined(__x86_64__)
    if (useSSSE3) return cyajl_utf8_prefix_ssse3(data, length);
#endif
    (void)data;
    (void)length;
    (void)useSSSE3;
    return 0;
}

/* Whether cyajl_valid_utf8_prefix can use SSSE3 on this CPU. */
static inline int cyajl_utf8_prefix_available(void) {
#if defined(__x86_64__)
    return cyajl_has_ssse3();
#else
    return 0;
#endif
}

#endif /* CYAJL_UTF8_PREFIX_H */
