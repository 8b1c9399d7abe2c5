#ifndef TABD_CLINUX_CALLS_H
#define TABD_CLINUX_CALLS_H

// The Linux calls tabd makes that Swift cannot import as they are: GNU extensions the Glibc
// module does not declare (accept4, fallocate, struct ucred), constants whose enum types do
// not import as the parameters' (RLIMIT_NOFILE, SOCK_*), malloc tuning, the CPU's cycle
// counter, and stdio's stdout (a C global Swift 6 will not read without isolation). Static inline wrappers only: nothing to link. No libevent here (CLibevent).

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <malloc.h>
#include <sys/resource.h>

/// Blocks above `mapped` bytes are mapped on their own and unmapped when freed; free memory
/// at the top of the heap is given back only past `keep` bytes (tabd trims itself, see
/// tabd_malloc_trim). Fixed values also stop glibc from moving the mmap threshold up after
/// such frees (its default), which kept later big blocks in the heap for good.
static inline void tabd_malloc_tune(int mapped, int keep) {
    mallopt(M_MMAP_THRESHOLD, mapped);
    mallopt(M_TRIM_THRESHOLD, keep);
}

/// stdio's `stdout`: glibc never reassigns it, so reading it from any thread is safe; Swift 6
/// refuses the imported global variable (tabctl's output buffering and flushes).
static inline FILE *tabd_stdout(void) { return stdout; }

/// Gives free heap memory back to the system (malloc_trim(3)).
static inline int tabd_malloc_trim(void) { return malloc_trim(0); }

/// getrlimit/setrlimit of RLIMIT_NOFILE (its enum type does not import as the parameter's).
static inline int tabd_get_nofile(struct rlimit *limit) { return getrlimit(RLIMIT_NOFILE, limit); }
static inline int tabd_set_nofile(const struct rlimit *limit) { return setrlimit(RLIMIT_NOFILE, limit); }

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): wakes the loop from another thread.
static inline int tabd_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/// socket(AF_UNIX, SOCK_STREAM or SOCK_DGRAM | SOCK_NONBLOCK unless `blocking` | SOCK_CLOEXEC, 0).
/// In C because the Glibc enum's constants do not import reliably next to other C modules.
static inline int tabd_unix_socket(int datagram, int blocking) {
    return socket(AF_UNIX, (datagram ? SOCK_DGRAM : SOCK_STREAM) | (blocking ? 0 : SOCK_NONBLOCK) | SOCK_CLOEXEC, 0);
}

/// SO_TYPE's value for a stream socket.
static inline int tabd_sock_stream(void) { return SOCK_STREAM; }

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): the Glibc module does not declare
/// accept4 (a GNU extension), so through syscall(2).
static inline int tabd_accept4(int fd) {
    return (int)syscall(SYS_accept4, fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// fallocate(fd, 0, 0, length): allocates the file's blocks up to `length` (and makes it
/// that long) without writing them. Through syscall(2): the Glibc module does not declare
/// fallocate (a GNU extension). -1 with errno EOPNOTSUPP where the filesystem cannot.
static inline int tabd_fallocate(int fd, int64_t length) {
    return (int)syscall(SYS_fallocate, fd, 0, (off_t)0, (off_t)length);
}

/// struct ucred without _GNU_SOURCE (same layout: pid_t, uid_t, gid_t).
struct tabd_peer_credentials {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
};

/// getsockopt(fd, SOL_SOCKET, SO_PEERCRED): the credentials of the peer of a Unix socket.
static inline int tabd_get_peer_credentials(int fd, struct tabd_peer_credentials *out) {
    socklen_t len = sizeof *out;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, out, &len);
}

/// The CPU's cycle counter (x86-64 RDTSC), 0 where there is none. Only meaningful where the
/// kernel keeps time with it (clocksource "tsc": constant rate, synchronised across CPUs);
/// LatencyClock checks that and converts ticks to nanoseconds.
static inline uint64_t tabd_cycle_counter(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/// send(fd, bytes, length, MSG_NOSIGNAL): a client that went away is EPIPE, never SIGPIPE.
static inline ssize_t tabd_send(int fd, const void *bytes, size_t length) {
    return send(fd, bytes, length, MSG_NOSIGNAL);
}

/// sendto(fd, bytes, length, MSG_NOSIGNAL, address, length): one datagram (sd_notify).
static inline ssize_t tabd_sendto(int fd, const void *bytes, size_t length, const struct sockaddr *address, socklen_t address_length) {
    return sendto(fd, bytes, length, MSG_NOSIGNAL, address, address_length);
}

#endif
