#ifndef TABD_CLIBEVENT_SHIM_H
#define TABD_CLIBEVENT_SHIM_H

// libevent, and the few of its macros and calls Swift cannot import as they are. The Linux
// calls that have nothing to do with libevent (eventfd, accept4, fallocate, SO_PEERCRED,
// malloc tuning, the cycle counter) are in CLinux.

// System headers first: event2/event-config.h defines _GNU_SOURCE, which must not change
// how these headers look compared with the Glibc module Swift already imported.
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/uio.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/util.h>

// Static inline wrappers for what Swift cannot import: function-like macros, and a call
// whose flag only exists with _GNU_SOURCE (which the Glibc module lacks).

/// evsignal_new(): a persistent signal event. Macro in event2/event.h.
static inline struct event *tabd_evsignal_new(struct event_base *base, int signo,
                                              event_callback_fn cb, void *arg) {
    return event_new(base, signo, EV_SIGNAL | EV_PERSIST, cb, arg);
}

/// evtimer_new(): an event without a descriptor, fired by its timeout (or event_active).
static inline struct event *tabd_evtimer_new(struct event_base *base, short flags,
                                             event_callback_fn cb, void *arg) {
    return event_new(base, -1, flags, cb, arg);
}

/// evtimer_add() with the timeout in seconds.
static inline int tabd_event_add_seconds(struct event *ev, double seconds) {
    struct timeval tv;
    if (seconds < 0) seconds = 0;
    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    return event_add(ev, &tv);
}

/// Writes the start of `buf` to `fd` with one sendmsg(MSG_NOSIGNAL) over at most 64 of
/// its chunks (no copy), then drains what was written. Returns sendmsg's result; errno is
/// left as sendmsg set it. MSG_NOSIGNAL: a client that went away is EPIPE, never SIGPIPE.
static inline ssize_t tabd_evbuffer_send(struct evbuffer *buf, int fd) {
    struct evbuffer_iovec vec[64];
    int n = evbuffer_peek(buf, -1, NULL, vec, 64);
    if (n <= 0) return 0;
    if (n > 64) n = 64;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = vec;
    msg.msg_iovlen = (size_t)n;
    ssize_t written = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (written > 0) evbuffer_drain(buf, (size_t)written);
    return written;
}

#endif
