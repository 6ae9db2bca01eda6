// zlib (Debian: zlib1g-dev) for `yajl split --gzip`: deflateInit2 is a macro Swift cannot call.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/// Starts a gzip stream (a gzip header and trailer around raw deflate) at `level`.
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
