#ifndef SSVC_CMEMORY_H
#define SSVC_CMEMORY_H

#include <stddef.h>
#include <stdint.h>

/// Returns the heap's free pages to the system (glibc's malloc_trim(0)):
/// after a burst of checks the daemon idles for an hour.
int ssvc_trim_heap(void);

/// Caps glibc's malloc arenas at `count` (mallopt M_ARENA_MAX); 1 on
/// success. Call it before the threads that allocate start: a thread keeps
/// the arena it was given.
int ssvc_limit_arenas(int count);

/// Drops from this process the pages of every loaded object's read-only
/// segments (code, constants): madvise(MADV_DONTNEED) over each PT_LOAD
/// without PF_W. They stay in the page cache, so the next use maps them
/// again with a minor fault. Writable segments, the vDSO and objects with
/// text relocations are left alone. Returns the bytes of address range
/// advised, not the resident bytes freed.
size_t ssvc_release_code_pages(void);

/// A thread that calls `release(context)` once `quiet_ns` have passed since
/// the last `ssvc_idle_releaser_note`, and otherwise sleeps: blocked on an
/// eventfd until work arms it, never on a periodic timer. It lives as long
/// as the process. NULL when the thread cannot be made.
struct ssvc_idle_releaser *ssvc_idle_releaser_start(uint64_t quiet_ns, void (*release)(void *), void *context);

/// Notes work: stamps the time, and wakes the thread when it is not
/// already counting down. A clock read and an atomic store otherwise.
void ssvc_idle_releaser_note(struct ssvc_idle_releaser *releaser);

#endif
