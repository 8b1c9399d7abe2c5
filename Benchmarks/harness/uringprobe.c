#define _GNU_SOURCE
/*
 * uringprobe — the kernel's part of a request at P=1, and whether batching the system
 * calls through io_uring lowers it: a minimal epoll line server on a Unix socket that
 * answers each line with a select-sized reply (no parsing, no state, no disk), in three
 * modes:
 *   plain   recv() per ready connection, send() per reply       (two system calls a request)
 *   send    recv() per ready connection, the turn's replies as one io_uring submission
 *   both    the turn's receives as one submission, then its replies as one
 *
 *   uringprobe plain|send|both SOCKET_PATH       (syscallcost.sh runs all three)
 *
 * SIGINT/SIGTERM stop it and remove the socket. A measuring tool, not a server: it keeps a
 * fixed buffer per descriptor below 20,000 and drops replies that do not fit.
 */
#include <errno.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAXC 20000
#define BATCH 1024
static const char REPLY[] = "{\"ok\":true,\"result\":{\"selected\":\"a\",\"selected_index\":1,\"changed\":true}}\n";
static char *inbuf[MAXC];
static int pending[MAXC];  /* replies owed per fd */
static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

static int count_lines(const char *p, ssize_t n) { int k = 0; for (ssize_t i = 0; i < n; i++) k += p[i] == '\n'; return k; }
static char outbuf[MAXC][2048];

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: uringprobe plain|send|both SOCKET\n"); return 2; }
    int mode = !strcmp(argv[1], "plain") ? 0 : !strcmp(argv[1], "send") ? 1 : 2;
    signal(SIGPIPE, SIG_IGN); signal(SIGINT, on_sig); signal(SIGTERM, on_sig);
    struct rlimit rl; if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un sun = { .sun_family = AF_UNIX }; strcpy(sun.sun_path, argv[2]); unlink(argv[2]);
    if (bind(ls, (void *)&sun, sizeof sun) || listen(ls, 511)) { perror("bind/listen"); return 1; }
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = ls }; epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    struct io_uring ring;
    if (mode && io_uring_queue_init(BATCH, &ring, 0) < 0) { perror("io_uring_queue_init"); return 1; }
    struct epoll_event evs[512];
    int ready[512];
    while (!stop) {
        int n = epoll_wait(ep, evs, 512, 200);
        if (n < 0) { if (errno == EINTR) continue; perror("epoll_wait"); return 1; }
        int nr = 0;
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c;
                while ((c = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (c >= MAXC) { close(c); continue; }
                    if (!inbuf[c]) inbuf[c] = malloc(65536);
                    struct epoll_event e = { .events = EPOLLIN, .data.fd = c }; epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
                }
                continue;
            }
            ready[nr++] = fd;
        }
        /* receive */
        if (mode < 2) {
            for (int i = 0; i < nr; i++) {
                int fd = ready[i];
                ssize_t r = recv(fd, inbuf[fd], 65536, 0);
                if (r <= 0) { if (r == 0 || errno != EAGAIN) { close(fd); ready[i] = -1; } continue; }
                pending[fd] += count_lines(inbuf[fd], r);
            }
        } else {
            for (int i = 0; i < nr; i++) {
                struct io_uring_sqe *s = io_uring_get_sqe(&ring);
                io_uring_prep_recv(s, ready[i], inbuf[ready[i]], 65536, MSG_DONTWAIT);
                io_uring_sqe_set_data64(s, (unsigned)ready[i]);
            }
            if (nr) io_uring_submit_and_wait(&ring, nr);
            struct io_uring_cqe *cqe; unsigned head, seen = 0;
            io_uring_for_each_cqe(&ring, head, cqe) {
                int fd = (int)cqe->user_data;
                if (cqe->res <= 0) { if (cqe->res == 0 || cqe->res != -EAGAIN) close(fd); }
                else pending[fd] += count_lines(inbuf[fd], cqe->res);
                seen++;
            }
            io_uring_cq_advance(&ring, seen);
        }
        /* reply */
        int ns = 0;
        for (int i = 0; i < nr; i++) {
            int fd = ready[i];
            if (fd < 0 || pending[fd] == 0) continue;
            size_t len = 0;
            for (int k = 0; k < pending[fd] && len + sizeof REPLY < sizeof outbuf[fd]; k++) { memcpy(outbuf[fd] + len, REPLY, sizeof REPLY - 1); len += sizeof REPLY - 1; }
            pending[fd] = 0;
            if (mode == 0) { if (send(fd, outbuf[fd], len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EAGAIN) close(fd); }
            else {
                struct io_uring_sqe *s = io_uring_get_sqe(&ring);
                io_uring_prep_send(s, fd, outbuf[fd], len, MSG_DONTWAIT | MSG_NOSIGNAL);
                io_uring_sqe_set_data64(s, (unsigned)fd);
                ns++;
            }
        }
        if (ns) {
            io_uring_submit_and_wait(&ring, ns);
            struct io_uring_cqe *cqe; unsigned head, seen = 0;
            io_uring_for_each_cqe(&ring, head, cqe) { seen++; }
            io_uring_cq_advance(&ring, seen);
        }
    }
    unlink(argv[2]);
    return 0;
}
