#ifndef SSVC_CZLIB_SHIM_H
#define SSVC_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 is a macro, which Swift cannot call: raw deflate (no zlib
   or gzip header, as in a zip entry) is window bits -15. */
static inline int ssvc_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

#endif
