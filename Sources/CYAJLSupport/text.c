/*
 * text.c: scans of plain bytes (the position tracker's newlines and quotes) and number conversion
 * in the "C" locale.
 */
#include "CYAJLSupport.h"
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* glibc and musl declare memrchr only under _GNU_SOURCE, which a module cannot rely on: declare it. */
#if defined(__linux__)
extern void *memrchr(const void *s, int c, size_t n);
#endif

/*
 * The index of the last byte equal to `byte` among the first `length` bytes of `data`, or -1: the
 * C library's memrchr (vectorized) where there is one, else a plain loop. The position tracker
 * looks for the last quote and the last newline of every chunk with it, so that a chunk without
 * them (a run of numbers) costs a few instructions per 32 bytes instead of a few per byte.
 */
long cyajl_last_index_of(const void *data, int byte, size_t length) {
#if defined(__linux__)
    const void *found = length == 0 ? NULL : memrchr(data, byte, length);
    return found ? (long)((const unsigned char *)found - (const unsigned char *)data) : -1;
#else
    const unsigned char *bytes = (const unsigned char *)data;
    while (length > 0) {
        length--;
        if (bytes[length] == (unsigned char)byte) return (long)length;
    }
    return -1;
#endif
}

/*
 * The number of newlines among the `length` bytes at `data` (the position tracker counts every
 * chunk's): 16 bytes a step with SSE2, which every x86-64 CPU has, each compare subtracted into
 * byte counters that are summed (psadbw) every 255 steps, before they could wrap; a plain loop
 * for the last bytes and elsewhere.
 */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
long cyajl_count_newlines(const unsigned char *data, size_t length) {
    size_t count = 0, i = 0;
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (length - i >= 16) {
        size_t steps = (length - i) / 16;
        if (steps > 255) steps = 255;
        __m128i counters = _mm_setzero_si128();
        for (size_t step = 0; step < steps; step++, i += 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)(data + i));
            counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(bytes, newline));
        }
        __m128i sums = _mm_sad_epu8(counters, _mm_setzero_si128());
        count += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_extract_epi16(sums, 4);
    }
#endif
    for (; i < length; i++) count += data[i] == '\n';
    return (long)count;
}

/* glibc declares strtod_l only under _GNU_SOURCE, which a module cannot rely on: declare it. */
extern double strtod_l(const char *nptr, char **endptr, locale_t locale);

/* A process-wide "C" locale, created once, so strtod never sees a user locale's decimal comma. */
static locale_t cyajl_c_locale(void) {
    static locale_t cached = (locale_t)0;
    locale_t loc = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (loc == (locale_t)0) {
        locale_t fresh = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        locale_t expected = (locale_t)0;
        if (__atomic_compare_exchange_n(&cached, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            loc = fresh;
        } else {
            freelocale(fresh);
            loc = expected;
        }
    }
    return loc;
}

/*
 * strtod over `length` bytes that are not NUL-terminated (YAJL's number text).
 * Copies into a stack buffer (heap for very long numbers), parses in the C locale.
 * Returns 0 and sets *ok to 0 only if memory for a long copy could not be had.
 */
double cyajl_strtod(const char *text, size_t length, int *ok) {
    char small[128];
    char *copy = small;
    if (length >= sizeof small) {
        copy = (char *)malloc(length + 1);
        if (copy == NULL) { *ok = 0; return 0.0; }
    }
    memcpy(copy, text, length);
    copy[length] = '\0';
    double value = strtod_l(copy, NULL, cyajl_c_locale());
    if (copy != small) free(copy);
    *ok = 1;
    return value;
}

