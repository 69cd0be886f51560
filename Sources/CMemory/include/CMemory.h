#ifndef SSVC_CMEMORY_H
#define SSVC_CMEMORY_H

/// Returns the heap's free pages to the system (glibc's malloc_trim(0)):
/// after a burst of checks the daemon idles for an hour.
int ssvc_trim_heap(void);

#endif
