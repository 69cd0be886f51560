#ifndef SSVC_CSYSTEMD_H
#define SSVC_CSYSTEMD_H

#include <stdint.h>
#include <sys/uio.h>

/// systemd's protocols, spoken without libsystemd: linking it loaded seven
/// shared objects (libsystemd, libcap, libgcrypt, liblzma, libzstd, liblz4,
/// libgpg-error) at every start for three calls (issue 55).

/// One native journal entry (systemd's JOURNAL_NATIVE_PROTOCOL) to the
/// datagram socket at `path` (journald's is /run/systemd/journal/socket),
/// as sd_journal_sendv(3) sends it: each iovec is one `NAME=value` field; a
/// value holding a line feed goes in the binary-safe form. An entry too
/// large for a datagram goes through a sealed memfd. 0 when journald took
/// it, else -errno (-ENOENT when no journald listens, where libsystemd
/// says 0 and the entry is lost). With `wait` 0 it never blocks: -EAGAIN
/// when journald's queue is full (libsystemd would wait as long as
/// journald does not read).
int ssvc_journal_sendv(const char *path, const struct iovec *fields, int count, int wait);

/// sd_listen_fds(3) with unset_environment: how many descriptors systemd
/// passed this process from 3 on (0 when none, or when `LISTEN_PID` names
/// another process), each made close-on-exec. `LISTEN_PID`, `LISTEN_FDS`
/// and `LISTEN_FDNAMES` are removed, so that children do not inherit them.
int ssvc_listen_fds(void);

/// sd_watchdog_enabled(3): 1 and the interval in `usec` when systemd
/// expects watchdog pings from this process (`WATCHDOG_USEC` set, and
/// `WATCHDOG_PID` unset or ours); 0 when not; -EINVAL when malformed.
int ssvc_watchdog_enabled(uint64_t *usec);

#endif
