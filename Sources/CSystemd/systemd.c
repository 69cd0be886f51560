#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "CSystemd.h"

/// What libsystemd asks for its journal socket's send buffer.
#define SEND_BUFFER (8 * 1024 * 1024)
/// iovecs a sendmsg or writev takes at most (IOV_MAX on Linux).
#define MAX_VECTORS 1024
/// Fields an entry may have: each takes at most five iovecs.
#define MAX_FIELDS (MAX_VECTORS / 5)

static _Atomic int journal_fd = -1;

/// The process's journal socket, made once (a failed attempt is tried
/// again at the next entry).
static int journal_socket(void) {
    int fd = atomic_load(&journal_fd);
    if (fd >= 0) return fd;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int size = SEND_BUFFER;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size) < 0) (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
    int expected = -1;
    if (!atomic_compare_exchange_strong(&journal_fd, &expected, fd)) {
        close(fd);
        return expected;
    }
    return fd;
}

/// Writes every byte of `vectors` to `fd`, however many calls it takes.
static int write_all(int fd, struct iovec *vectors, int count) {
    while (count > 0) {
        ssize_t written = writev(fd, vectors, count > MAX_VECTORS ? MAX_VECTORS : count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        while (count > 0 && (size_t)written >= vectors->iov_len) {
            written -= (ssize_t)vectors->iov_len;
            vectors++;
            count--;
        }
        if (count > 0) {
            vectors->iov_base = (char *)vectors->iov_base + written;
            vectors->iov_len -= (size_t)written;
        }
    }
    return 0;
}

/// The entry in a sealed memfd, its descriptor passed to journald.
static int send_through_memfd(int socket_fd, const struct sockaddr_un *address, socklen_t address_length, struct iovec *vectors, int count, int flags) {
    int data = memfd_create("journal-data", MFD_ALLOW_SEALING | MFD_CLOEXEC);
    if (data < 0) return -errno;
    int result = write_all(data, vectors, count);
    if (result == 0 && fcntl(data, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) result = -errno;
    if (result == 0) {
        union {
            struct cmsghdr header;
            char space[CMSG_SPACE(sizeof(int))];
        } control;
        memset(&control, 0, sizeof control);
        struct msghdr message = {
            .msg_name = (void *)address, .msg_namelen = address_length,
            .msg_control = &control, .msg_controllen = sizeof control,
        };
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &data, sizeof(int));
        while (sendmsg(socket_fd, &message, flags) < 0) {
            if (errno != EINTR) {
                result = -errno;
                break;
            }
        }
    }
    close(data);
    return result;
}

int ssvc_journal_sendv(const char *path, const struct iovec *fields, int count, int wait) {
    if (count <= 0 || count > MAX_FIELDS) return -EINVAL;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t path_length = strlen(path);
    if (path_length == 0 || path_length >= sizeof address.sun_path) return -EINVAL;
    memcpy(address.sun_path, path, path_length);
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_length + 1);
    // Per field at most five pieces: the name, a line feed, the length,
    // the value, the closing line feed. The lengths live in `sizes`,
    // which outlives the sends.
    struct iovec vectors[MAX_VECTORS];
    uint64_t sizes[MAX_FIELDS];
    static const char newline = '\n';
    int used = 0;
    for (int index = 0; index < count; index++) {
        const char *field = fields[index].iov_base;
        size_t length = fields[index].iov_len;
        const char *equals = memchr(field, '=', length);
        if (equals == NULL || equals == field) return -EINVAL;
        size_t name = (size_t)(equals - field);
        if (memchr(equals + 1, '\n', length - name - 1) == NULL) {
            vectors[used++] = (struct iovec){(void *)field, length};
        } else {
            // NAME, a line feed, the value's length as 64-bit little
            // endian, then the value.
            uint64_t size = length - name - 1;
            unsigned char *bytes = (unsigned char *)&sizes[index];
            for (int byte = 0; byte < 8; byte++) bytes[byte] = (unsigned char)(size >> (8 * byte));
            vectors[used++] = (struct iovec){(void *)field, name};
            vectors[used++] = (struct iovec){(void *)&newline, 1};
            vectors[used++] = (struct iovec){bytes, 8};
            vectors[used++] = (struct iovec){(void *)(equals + 1), size};
        }
        vectors[used++] = (struct iovec){(void *)&newline, 1};
    }
    int fd = journal_socket();
    if (fd < 0) return fd;
    struct msghdr message = {
        .msg_name = &address, .msg_namelen = address_length,
        .msg_iov = vectors, .msg_iovlen = (size_t)used,
    };
    int flags = MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT);
    for (;;) {
        if (sendmsg(fd, &message, flags) >= 0) return 0;
        if (errno != EINTR) break;
    }
    // journald's queue is full: the caller decides whether to wait.
    if (!wait && (errno == EAGAIN || errno == EWOULDBLOCK)) return -EAGAIN;
    // Too large for a datagram, or no room in the buffer for it: as
    // libsystemd does, the entry goes in a file.
    if (errno != EMSGSIZE && errno != ENOBUFS && errno != EAGAIN) return -errno;
    int result = send_through_memfd(fd, &address, address_length, vectors, used, flags);
    return result == -EWOULDBLOCK ? -EAGAIN : result;
}

/// A decimal number that is all of `text`; false otherwise.
static bool parse_unsigned(const char *text, unsigned long long *value) {
    if (text == NULL || *text < '0' || *text > '9') return false;
    char *end;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && *end == '\0';
}

int ssvc_listen_fds(void) {
    int count = 0;
    unsigned long long pid, fds;
    if (parse_unsigned(getenv("LISTEN_PID"), &pid) && pid == (unsigned long long)getpid()
        && parse_unsigned(getenv("LISTEN_FDS"), &fds) && fds <= 4096) {
        for (int fd = 3; fd < 3 + (int)fds; fd++) {
            int flags = fcntl(fd, F_GETFD);
            if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
                count = -errno;
                break;
            }
            count++;
        }
    }
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    return count;
}

int ssvc_watchdog_enabled(uint64_t *usec) {
    const char *interval = getenv("WATCHDOG_USEC");
    if (interval == NULL) return 0;
    unsigned long long value, pid;
    if (!parse_unsigned(interval, &value) || value == 0) return -EINVAL;
    const char *owner = getenv("WATCHDOG_PID");
    if (owner != NULL) {
        if (!parse_unsigned(owner, &pid)) return -EINVAL;
        if (pid != (unsigned long long)getpid()) return 0;
    }
    *usec = value;
    return 1;
}
