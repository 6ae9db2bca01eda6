/* The C peer of `yajl stats` in Benchmarks/peers.py: counts a document's events with YAJL's own
 * callbacks (integers and doubles converted by YAJL, as a C program using the library would),
 * reading 64 KiB at a time, and prints the counts. Built by peers.py with `cc -O2 ... -lyajl`
 * against Debian's shared libyajl.
 *
 *     count-events FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

typedef struct {
    long long nulls, booleans, integers, doubles, strings, keys, maps, arrays, depth, max_depth;
} counts;

#define COUNTS ((counts *)context)
static int on_null(void *context) { COUNTS->nulls++; return 1; }
static int on_boolean(void *context, int value) { (void)value; COUNTS->booleans++; return 1; }
static int on_integer(void *context, long long value) { (void)value; COUNTS->integers++; return 1; }
static int on_double(void *context, double value) { (void)value; COUNTS->doubles++; return 1; }
static int on_string(void *context, const unsigned char *text, size_t length) {
    (void)text; (void)length; COUNTS->strings++; return 1;
}
static int on_key(void *context, const unsigned char *text, size_t length) {
    (void)text; (void)length; COUNTS->keys++; return 1;
}
static int opened(counts *c) {
    if (++c->depth > c->max_depth) c->max_depth = c->depth;
    return 1;
}
static int on_start_map(void *context) { COUNTS->maps++; return opened(COUNTS); }
static int on_start_array(void *context) { COUNTS->arrays++; return opened(COUNTS); }
static int on_end(void *context) { COUNTS->depth--; return 1; }

static const yajl_callbacks callbacks = {
    on_null, on_boolean, on_integer, on_double, NULL, on_string,
    on_start_map, on_key, on_end, on_start_array, on_end,
};

static int fail(yajl_handle handle, const unsigned char *chunk, size_t length) {
    unsigned char *message = yajl_get_error(handle, 1, chunk, length);
    fprintf(stderr, "count-events: %s", (const char *)message);
    yajl_free_error(handle, message);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: count-events FILE\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 2; }
    counts c = {0};
    yajl_handle handle = yajl_alloc(&callbacks, NULL, &c);
    static unsigned char buffer[65536];
    ssize_t length;
    while ((length = read(fd, buffer, sizeof buffer)) > 0) {
        if (yajl_parse(handle, buffer, (size_t)length) != yajl_status_ok) return fail(handle, buffer, (size_t)length);
    }
    if (length < 0) { perror(argv[1]); return 2; }
    if (yajl_complete_parse(handle) != yajl_status_ok) return fail(handle, NULL, 0);
    printf("{\"maps\":%lld,\"arrays\":%lld,\"keys\":%lld,\"strings\":%lld,\"integers\":%lld,\"doubles\":%lld,"
           "\"booleans\":%lld,\"nulls\":%lld,\"max_depth\":%lld}\n",
           c.maps, c.arrays, c.keys, c.strings, c.integers, c.doubles, c.booleans, c.nulls, c.max_depth);
    yajl_free(handle);
    close(fd);
    return 0;
}
