#ifndef SSVC_CDEFLATE_SHIM_H
#define SSVC_CDEFLATE_SHIM_H

/* libdeflate: whole-buffer raw DEFLATE and CRC-32, about twice zlib's
   speed on an OSV export's entries (issue 55). */
#include <libdeflate.h>

#endif
