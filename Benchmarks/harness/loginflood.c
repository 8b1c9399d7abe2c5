/*
 * loginflood — one client hammering LoginGate with failed logins, as fast as tabd answers.
 *
 *   loginflood -s SOCK [-d SEC] [-P DEPTH] [-b BYTES] [-B EVERY] [-p PLUGIN]
 *
 * One connection keeps DEPTH login requests in flight (pipelined: the next one is written
 * as soon as a reply comes back) for SEC seconds. Every request has a wrong password and a
 * user name never used before ("flood-<n>"); every EVERYth request (default 2: every other
 * one) has BYTES more bytes ('x') in its user name (default 1,000,000). EVERY = 0 sends no big
 * names.
 *
 * Output: one line on stdout, key=value pairs:
 *   sent=… replies=… per_sec=… bad_credentials=… rate_limited=… refused_other=… ok=… closed=0|1
 * (refused_other: any other error, e.g. a name refused for its length). Exit status 0, or 1
 * when the socket cannot be reached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void) {
    fprintf(stderr,
        "usage: loginflood -s SOCKET [options]\n"
        "  -d SECONDS  how long to flood (default 10)\n"
        "  -P DEPTH    login requests in flight (default 16)\n"
        "  -b BYTES    length of the big user names (default 1000000)\n"
        "  -B EVERY    every EVERYth request has a big name (default 2; 0 = never)\n"
        "  -p PLUGIN   the plugin's name (default login-gate)\n");
    exit(1);
}

int main(int argc, char **argv) {
    const char *sock = NULL, *plugin = "login-gate";
    double seconds = 10;
    long depth = 16, big = 1000000, every = 2;
    int ch;
    while ((ch = getopt(argc, argv, "s:d:P:b:B:p:h")) != -1) {
        switch (ch) {
        case 's': sock = optarg; break;
        case 'd': seconds = atof(optarg); break;
        case 'P': depth = atol(optarg); break;
        case 'b': big = atol(optarg); break;
        case 'B': every = atol(optarg); break;
        case 'p': plugin = optarg; break;
        default: usage();
        }
    }
    if (sock == NULL || depth < 1 || big < 16 || every < 0) usage();

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(sock) >= sizeof addr.sun_path) usage();
    strcpy(addr.sun_path, sock);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fprintf(stderr, "loginflood: cannot connect to %s: %s\n", sock, strerror(errno));
        return 1;
    }

    /* The request being written: a prefix, the user name, the rest. */
    size_t cap = (size_t)big + 512;
    char *request = malloc(cap);
    char *padding = malloc((size_t)big + 1);
    memset(padding, 'x', (size_t)big);
    padding[big] = '\0';
    size_t len = 0, off = 0;
    int writing = 0;

    char in[1 << 16], line[4096];
    size_t lineLen = 0;
    unsigned long sent = 0, replies = 0, bad = 0, limited = 0, other = 0, ok = 0;
    int closed = 0;
    double start = now(), end = start + seconds;

    while (now() < end) {
        if (!writing && (long)(sent - replies) < depth) {
            sent++;
            int isBig = every > 0 && sent % (unsigned long)every == 0;
            int head = snprintf(request, cap,
                "{\"cmd\":\"plugin.call\",\"plugin\":\"%s\",\"method\":\"login\",\"args\":{\"user\":\"flood-%lu", plugin, sent);
            len = (size_t)head;
            if (isBig) {
                memcpy(request + len, padding, (size_t)big);
                len += (size_t)big;
            }
            len += (size_t)snprintf(request + len, cap - len, "\",\"password\":\"wrong\"}}\n");
            off = 0;
            writing = 1;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN | (writing ? POLLOUT : 0) };
        int timeout = (int)((end - now()) * 1000) + 1;
        if (poll(&p, 1, timeout) < 0) { if (errno == EINTR) continue; break; }
        if (p.revents & (POLLERR | POLLHUP)) { closed = 1; break; }
        if (writing && (p.revents & POLLOUT)) {
            ssize_t n = send(fd, request + off, len - off, MSG_NOSIGNAL);
            if (n < 0 && errno != EAGAIN && errno != EINTR) { closed = 1; break; }
            if (n > 0) { off += (size_t)n; if (off == len) writing = 0; }
        }
        if (p.revents & POLLIN) {
            ssize_t n = recv(fd, in, sizeof in, 0);
            if (n == 0) { closed = 1; break; }
            if (n < 0) { if (errno == EAGAIN || errno == EINTR) continue; closed = 1; break; }
            for (ssize_t i = 0; i < n; i++) {
                if (in[i] != '\n') { if (lineLen + 1 < sizeof line) line[lineLen++] = in[i]; continue; }
                line[lineLen] = '\0';
                lineLen = 0;
                replies++;
                if (strstr(line, "\"ok\":true") != NULL) ok++;
                else if (strstr(line, "\"reason\":\"bad credentials\"") != NULL) bad++;
                else if (strstr(line, "\"reason\":\"rate limited\"") != NULL) limited++;
                else other++;
            }
        }
    }
    double took = now() - start;
    printf("sent=%lu replies=%lu per_sec=%.0f bad_credentials=%lu rate_limited=%lu refused_other=%lu ok=%lu closed=%d\n",
           sent, replies, (double)replies / took, bad, limited, other, ok, closed);
    close(fd);
    free(request);
    free(padding);
    return 0;
}
