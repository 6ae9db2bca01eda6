/*
 * The C baseline: libyajl driven straight from C, with no Swift in the loop. This is the physical
 * limit for any YAJL-backed parser, and the yardstick the benchmarks report ratios against.
 */
#ifndef CYAJL_BASELINE_H
#define CYAJL_BASELINE_H

#include <stddef.h>

/* What the counting callbacks saw; the same keys `yajl stats` prints. */
typedef struct {
    long long bytes, maps, arrays, keys, strings, integers, doubles, numbers, booleans, nulls, max_depth;
} cyajl_baseline_counts;

typedef enum {
    /* No callbacks at all (like json_verify): no escape decoding, not a realistic ceiling. */
    cyajl_baseline_verify = 0,
    /* A no-op yajl_number callback plus no-op others: the realistic ceiling. */
    cyajl_baseline_noop = 1,
    /* Counting callbacks with YAJL's own integer/double conversion (strtoll/strtod inside). */
    cyajl_baseline_counting = 2
} cyajl_baseline_mode;

/*
 * Streams the file at `path` through libyajl in `chunk_size` reads.
 * Returns 0 on success, 1 on a parse error, 2 on an I/O error. `counts` may be NULL.
 */
int cyajl_baseline_run(const char *path, size_t chunk_size, cyajl_baseline_mode mode,
                       int allow_multiple_values, cyajl_baseline_counts *counts);

#endif
