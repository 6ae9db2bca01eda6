/* The C peer of `yajl stats` in Benchmarks/peers.py, as a process of its own: the benchmark's C
 * baseline (CBaseline/baseline.c, YAJL's own callbacks counting, integers and doubles converted by
 * YAJL, 64 KiB reads) run on one file, its counts printed. Built by peers.py with
 * `cc -O2 -I CBaseline/include count-events.c CBaseline/baseline.c -lyajl` against Debian's shared
 * libyajl.
 *
 *     count-events FILE
 */
#include <stdio.h>

#include "baseline.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: count-events FILE\n");
        return 2;
    }
    cyajl_baseline_counts c;
    int result = cyajl_baseline_run(argv[1], 65536, cyajl_baseline_counting, 0, &c);
    if (result != 0) {
        fprintf(stderr, "count-events: %s: %s\n", argv[1], result == 1 ? "invalid JSON" : "cannot read the file");
        return result;
    }
    printf("{\"bytes\":%lld,\"maps\":%lld,\"arrays\":%lld,\"keys\":%lld,\"strings\":%lld,\"integers\":%lld,"
           "\"doubles\":%lld,\"booleans\":%lld,\"nulls\":%lld,\"max_depth\":%lld}\n",
           c.bytes, c.maps, c.arrays, c.keys, c.strings, c.integers, c.doubles, c.booleans, c.nulls, c.max_depth);
    return 0;
}
