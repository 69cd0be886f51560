#include <malloc.h>
#include "CMemory.h"

int ssvc_trim_heap(void) {
    return malloc_trim(0);
}
