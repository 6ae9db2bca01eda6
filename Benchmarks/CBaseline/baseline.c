#include "baseline.h"

#include <yajl/yajl_parse.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    cyajl_baseline_counts c;
    long long depth;
} state;

#define S ((state *)ctx)

static int noop_null(void *ctx) { (void)ctx; return 1; }
static int noop_bool(void *ctx, int v) { (void)ctx; (void)v; return 1; }
static int noop_number(void *ctx, const char *s, size_t l) { (void)ctx; (void)s; (void)l; return 1; }
static int noop_string(void *ctx, const unsigned char *s, size_t l) { (void)ctx; (void)s; (void)l; return 1; }

static int count_null(void *ctx) { S->c.nulls++; return 1; }
static int count_bool(void *ctx, int v) { (void)v; S->c.booleans++; return 1; }
static int count_integer(void *ctx, long long v) { (void)v; S->c.integers++; return 1; }
static int count_double(void *ctx, double v) { (void)v; S->c.doubles++; return 1; }
static int count_string(void *ctx, const unsigned char *s, size_t l) { (void)s; (void)l; S->c.strings++; return 1; }
static int count_key(void *ctx, const unsigned char *s, size_t l) { (void)s; (void)l; S->c.keys++; return 1; }
static int open_container(state *st) {
    st->depth++;
    if (st->depth > st->c.max_depth) st->c.max_depth = st->depth;
    return 1;
}
static int count_start_map(void *ctx) { S->c.maps++; return open_container(S); }
static int count_start_array(void *ctx) { S->c.arrays++; return open_container(S); }
static int count_end(void *ctx) { S->depth--; return 1; }

static const yajl_callbacks noop_callbacks = {
    noop_null, noop_bool, NULL, NULL, noop_number, noop_string,
    noop_null, noop_string, noop_null, noop_null, noop_null
};

static const yajl_callbacks counting_callbacks = {
    count_null, count_bool, count_integer, count_double, NULL, count_string,
    count_start_map, count_key, count_end, count_start_array, count_end
};

int cyajl_baseline_run(const char *path, size_t chunk_size, cyajl_baseline_mode mode,
                       int allow_multiple_values, cyajl_baseline_counts *counts) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 2;
    unsigned char *buffer = malloc(chunk_size);
    if (buffer == NULL) { close(fd); return 2; }

    state st = {0};
    const yajl_callbacks *callbacks = mode == cyajl_baseline_verify ? NULL
        : mode == cyajl_baseline_noop ? &noop_callbacks : &counting_callbacks;
    yajl_handle handle = yajl_alloc(callbacks, NULL, &st);
    if (allow_multiple_values) yajl_config(handle, yajl_allow_multiple_values, 1);

    int result = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, chunk_size);
        if (n < 0) { result = 2; break; }
        if (n == 0) {
            if (yajl_complete_parse(handle) != yajl_status_ok) result = 1;
            break;
        }
        st.c.bytes += n;
        if (yajl_parse(handle, buffer, (size_t)n) != yajl_status_ok) { result = 1; break; }
    }
    yajl_free(handle);
    free(buffer);
    close(fd);
    if (counts) *counts = st.c;
    return result;
}
