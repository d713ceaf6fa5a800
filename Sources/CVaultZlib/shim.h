#ifndef VAULT_CZLIB_SHIM_H
#define VAULT_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 / deflateInit2 are macros over the *_ functions: wrap them for Swift.
static inline int vault_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);   // gzip wrapper only (RFC 1952)
}

static inline int vault_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

#endif
