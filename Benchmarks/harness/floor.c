/*
 * floor — the cost of libevent framing alone: a single-threaded line server on
 * a Unix socket (bufferevent, evbuffer_readln EVBUFFER_EOL_LF) that answers each
 * line with {"ok":true,"result":{}}. No parsing, no state, no disk.
 *
 *   floor SOCKET_PATH
 *
 * SIGINT/SIGTERM stop it and remove the socket.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

static const char REPLY[] = "{\"ok\":true,\"result\":{}}\n";

static void on_drained(struct bufferevent *bev, void *arg) {
    (void)arg;
    if (evbuffer_get_length(bufferevent_get_output(bev)) == 0) bufferevent_free(bev);
}

static void on_read(struct bufferevent *bev, void *arg) {
    (void)arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer *out = bufferevent_get_output(bev);
    size_t n;
    char *line;
    while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
        free(line);
        evbuffer_add(out, REPLY, sizeof REPLY - 1);
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    (void)arg;
    if ((what & BEV_EVENT_EOF) && !(what & BEV_EVENT_ERROR) &&
        evbuffer_get_length(bufferevent_get_output(bev)) > 0) {
        /* half-close: answer what was received, then close */
        bufferevent_setcb(bev, NULL, on_drained, on_event, NULL);
        bufferevent_disable(bev, EV_READ);
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) bufferevent_free(bev);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len, void *arg) {
    (void)sa; (void)len; (void)arg;
    struct event_base *base = evconnlistener_get_base(l);
    struct bufferevent *bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) { close(fd); return; }
    bufferevent_setcb(bev, on_read, NULL, on_event, NULL);
    bufferevent_enable(bev, EV_READ);
}

static void on_accept_error(struct evconnlistener *l, void *arg) {
    (void)l; (void)arg;
    int e = EVUTIL_SOCKET_ERROR();
    fprintf(stderr, "floor: accept: %s\n", evutil_socket_error_to_string(e));
    /* EMFILE and friends: keep listening; the listener retries on the next event */
}

static void on_signal(evutil_socket_t sig, short what, void *arg) {
    (void)sig; (void)what;
    event_base_loopbreak(arg);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: floor SOCKET_PATH\n");
        return 1;
    }
    const char *path = argv[1];
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sun.sun_path) {
        fprintf(stderr, "floor: socket path too long\n");
        return 1;
    }
    strcpy(sun.sun_path, path);

    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }
    signal(SIGPIPE, SIG_IGN);

    struct event_base *base = event_base_new();
    if (!base) { fprintf(stderr, "floor: event_base_new failed\n"); return 1; }
    unlink(path);
    struct evconnlistener *l = evconnlistener_new_bind(base, on_accept, NULL,
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, (struct sockaddr *)&sun, sizeof sun);
    if (!l) { fprintf(stderr, "floor: bind %s: %s\n", path, strerror(errno)); return 1; }
    evconnlistener_set_error_cb(l, on_accept_error);

    struct event *sigint = evsignal_new(base, SIGINT, on_signal, base);
    struct event *sigterm = evsignal_new(base, SIGTERM, on_signal, base);
    event_add(sigint, NULL);
    event_add(sigterm, NULL);

    event_base_dispatch(base);

    evconnlistener_free(l);
    unlink(path);
    event_free(sigint);
    event_free(sigterm);
    event_base_free(base);
    return 0;
}
