#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "CMemory.h"

struct ssvc_idle_releaser {
    uint64_t quiet_ns;
    void (*release)(void *);
    void *context;
    int wake_fd;
    /// CLOCK_MONOTONIC nanoseconds of the last work noted.
    _Atomic uint64_t last_activity;
    /// Whether the thread is counting down: only the first work after a
    /// release wakes it.
    atomic_bool armed;
};

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void sleep_until(uint64_t deadline_ns) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000u), .tv_nsec = (long)(deadline_ns % 1000000000u),
    };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR) {}
}

/// Waits for work to arm it, then until `quiet_ns` after the last work,
/// then releases. After a release it runs only a few lines of libc before
/// it blocks again, so it maps little back.
static void *run(void *argument) {
    struct ssvc_idle_releaser *releaser = argument;
    for (;;) {
        uint64_t count;
        if (read(releaser->wake_fd, &count, sizeof count) != sizeof count) continue;
        for (;;) {
            uint64_t last = atomic_load_explicit(&releaser->last_activity, memory_order_relaxed);
            uint64_t now = monotonic_ns();
            if (now < last + releaser->quiet_ns) {
                sleep_until(last + releaser->quiet_ns);
                continue;
            }
            atomic_store_explicit(&releaser->armed, false, memory_order_release);
            releaser->release(releaser->context);
            // Work noted after `last` by a note that still saw the thread
            // armed woke nothing: count down for it here, unless a later
            // note armed the thread again itself (and wrote the eventfd).
            if (atomic_load_explicit(&releaser->last_activity, memory_order_relaxed) == last) break;
            bool expected = false;
            if (!atomic_compare_exchange_strong(&releaser->armed, &expected, true)) break;
        }
    }
    return NULL;
}

struct ssvc_idle_releaser *ssvc_idle_releaser_start(uint64_t quiet_ns, void (*release)(void *), void *context) {
    struct ssvc_idle_releaser *releaser = calloc(1, sizeof *releaser);
    if (releaser == NULL) return NULL;
    releaser->quiet_ns = quiet_ns;
    releaser->release = release;
    releaser->context = context;
    releaser->wake_fd = eventfd(0, EFD_CLOEXEC);
    if (releaser->wake_fd < 0) {
        free(releaser);
        return NULL;
    }
    // No signal is ever delivered to this thread.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, run, releaser);
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (failed) {
        close(releaser->wake_fd);
        free(releaser);
        return NULL;
    }
    pthread_setname_np(thread, "ssvc-idle");
    return releaser;
}

void ssvc_idle_releaser_note(struct ssvc_idle_releaser *releaser) {
    atomic_store_explicit(&releaser->last_activity, monotonic_ns(), memory_order_relaxed);
    if (atomic_load_explicit(&releaser->armed, memory_order_relaxed)) return;
    bool expected = false;
    if (!atomic_compare_exchange_strong(&releaser->armed, &expected, true)) return;
    uint64_t one = 1;
    while (write(releaser->wake_fd, &one, sizeof one) < 0 && errno == EINTR) {}
}
