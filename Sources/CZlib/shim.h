#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros (they pass ZLIB_VERSION and sizeof(z_stream)), which Swift cannot
   import; these wrappers hand them to Swift as functions. */

/* A gzip stream (RFC 1952): window bits 15 plus 16 asks zlib for the gzip header and trailer. */
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/* Window bits 15 plus 32: zlib detects a gzip or zlib header. */
static inline int czlib_inflate_init_auto(z_stream *stream) {
    return inflateInit2(stream, 15 + 32);
}

#endif
