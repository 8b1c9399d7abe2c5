/*
 * loadgen — a neutral load generator for line protocols over a Unix socket.
 *
 * One thread, epoll over N nonblocking connections. Each connection keeps P
 * requests in flight; a request is one line (the harness appends "\n"), and a
 * request is answered by one reply line (a request string containing k
 * newlines expects k reply lines; its latency ends at the last one). Latency
 * runs from the write() that sent the request to the read() that completed its
 * reply, CLOCK_MONOTONIC, recorded in a log-linear histogram (< 0.8% error).
 *
 * Modes:
 *   load (default)   -s SOCK -c N -P DEPTH -d SEC -w SEC -r LINE | -R FILE
 *                    [--setup LINE]... [-e SUBSTRING]
 *   idle             --idle N -r LINE [--pid PID] [-d HOLD_SEC]
 *                    N connections, one request each, wait for every reply,
 *                    then hold them open; with --pid, VmRSS of PID is read
 *                    before connecting and once all replies are in.
 *   subscribe        --subscribe N --sub-line LINE plus the load options:
 *                    N extra connections send LINE once and then only read;
 *                    their received lines per second are reported, while the
 *                    -c connections send -r requests as in load mode.
 *
 * Output: one line on stdout, key=value pairs, e.g.
 *   ops_per_sec=41234 p50_us=23.1 p99_us=61.0 p999_us=112.0 max_us=803.2 errors=0 ...
 * Exit status: 0, 1 on usage/connection failure, 2 if connections were lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* ---------- histogram: log-linear, HdrHistogram layout, values in ns ---------- */

#define H_SUB_BITS 8                        /* 256 sub-buckets; half = 128 -> 1/128 precision */
#define H_SUB_COUNT (1u << H_SUB_BITS)
#define H_SUB_HALF (H_SUB_COUNT / 2)
#define H_MAX_NS 10000000000ull             /* 10 s; larger values are clamped */
#define H_BUCKETS 27                        /* 256 << 26 > 1e10 */
#define H_LEN (H_SUB_COUNT + (H_BUCKETS - 1) * H_SUB_HALF)

typedef struct {
    uint64_t counts[H_LEN];
    uint64_t total, max, min;
} hist_t;

static void hist_reset(hist_t *h) {
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

static unsigned hist_index(uint64_t v) {
    if (v < H_SUB_COUNT) return (unsigned)v;
    unsigned msb = 63 - (unsigned)__builtin_clzll(v);    /* >= 8 */
    unsigned shift = msb - (H_SUB_BITS - 1);             /* bucket number, >= 1 */
    unsigned sub = (unsigned)(v >> shift);                /* 128..255 */
    unsigned idx = H_SUB_COUNT + (shift - 1) * H_SUB_HALF + (sub - H_SUB_HALF);
    return idx < H_LEN ? idx : H_LEN - 1;
}

/* highest value that maps to the same index (what HdrHistogram reports) */
static uint64_t hist_value_at_index(unsigned idx) {
    if (idx < H_SUB_COUNT) return idx;
    unsigned b = (idx - H_SUB_COUNT) / H_SUB_HALF + 1;
    uint64_t sub = (idx - H_SUB_COUNT) % H_SUB_HALF + H_SUB_HALF;
    return ((sub + 1) << b) - 1;
}

static void hist_record(hist_t *h, uint64_t v) {
    if (v > H_MAX_NS) v = H_MAX_NS;
    h->counts[hist_index(v)]++;
    h->total++;
    if (v > h->max) h->max = v;
    if (v < h->min) h->min = v;
}

static uint64_t hist_percentile(const hist_t *h, double p) {
    if (h->total == 0) return 0;
    uint64_t target = (uint64_t)(p / 100.0 * (double)h->total + 0.999999);
    if (target < 1) target = 1;
    uint64_t acc = 0;
    for (unsigned i = 0; i < H_LEN; i++) {
        acc += h->counts[i];
        if (acc >= target) {
            uint64_t v = hist_value_at_index(i);
            return v > h->max ? h->max : v;
        }
    }
    return h->max;
}

/* ---------- helpers ---------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, const char *arg) {
    fprintf(stderr, "loadgen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

/* "\n", "\r", "\t", "\\" escapes; appends the final "\n"; counts the lines. */
typedef struct { char *s; size_t len; unsigned lines; } payload_t;

static payload_t make_payload(const char *src) {
    size_t n = strlen(src);
    payload_t p = { malloc(n + 2), 0, 0 };
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        if (c == '\\' && i + 1 < n) {
            char e = src[i + 1];
            if (e == 'n') c = '\n';
            else if (e == 'r') c = '\r';
            else if (e == 't') c = '\t';
            else if (e == '\\') c = '\\';
            else { p.s[p.len++] = c; continue; }
            i++;
        }
        p.s[p.len++] = c;
    }
    p.s[p.len++] = '\n';
    for (size_t i = 0; i < p.len; i++) if (p.s[i] == '\n') p.lines++;
    return p;
}

static long read_vmrss_kb(long pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) { kb = strtol(line + 6, NULL, 10); break; }
    fclose(f);
    return kb;
}

static void raise_nofile(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* ---------- connections ---------- */

#define LINE_KEEP 4096   /* the first 4 KiB of each reply line are matched against -e */
#define RBUF 65536

enum { ROLE_LOAD, ROLE_SUB, ROLE_IDLE };

typedef struct {
    int fd, role, dead;
    /* output */
    char *out; size_t out_len, out_off, out_cap;
    int want_out;
    /* in-flight requests: FIFO of send times and lines still expected */
    uint64_t *fifo_t; unsigned *fifo_left; unsigned fifo_head, fifo_n, fifo_cap;
    unsigned discard;           /* reply lines to drop first (setup) */
    uint64_t sent;              /* requests sent, selects the next -R line */
    /* input: the current line's head, for error matching */
    char line[LINE_KEEP]; size_t line_len;
} conn_t;

static struct {
    const char *sock;
    int nconn, depth, idle, nsub;
    double dur, warm;
    payload_t *reqs; int nreqs;
    payload_t *setup; int nsetup;
    const char *errsub;
    payload_t subline; int have_subline;
    unsigned reply_lines;       /* lines per reply (Redis bulk replies: 2) */
    long pid;
} opt = { .nconn = 1, .depth = 1, .dur = 5, .warm = 1, .pid = -1 };

static int epfd;
static conn_t *conns; static int nconns_total;
static int measuring;        /* record latency/ops only inside the window */
static hist_t hist;
static uint64_t ops, errors, sub_lines, lost, replies_any;
static volatile sig_atomic_t stop_flag;

static void on_signal(int s) { (void)s; stop_flag = 1; }

static int connect_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) { close(fd); errno = ENAMETOOLONG; return -1; }
    strcpy(sa.sun_path, path);
    /* blocking connect: waits while the server's backlog is full, instead of EAGAIN */
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) { int e = errno; close(fd); errno = e; return -1; }
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    return fd;
}

static void conn_mod(conn_t *c, int want_out) {
    if (c->want_out == want_out) return;
    c->want_out = want_out;
    struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.ptr = c };
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void conn_kill(conn_t *c) {
    if (c->dead) return;
    c->dead = 1;
    lost++;
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
}

static void out_append(conn_t *c, const char *s, size_t n) {
    if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
    if (c->out_len + n > c->out_cap) {
        if (c->out_off) {
            memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
            c->out_len -= c->out_off; c->out_off = 0;
        }
        while (c->out_len + n > c->out_cap) c->out_cap = c->out_cap ? c->out_cap * 2 : 4096;
        c->out = realloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
}

static void conn_flush(conn_t *c) {
    while (c->out_off < c->out_len) {
        ssize_t w = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (w > 0) { c->out_off += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { conn_mod(c, 1); return; }
        conn_kill(c);
        return;
    }
    conn_mod(c, 0);
}

/* queue requests until DEPTH are in flight; timestamps are taken at flush time */
static void conn_top_up(conn_t *c, int depth) {
    if (c->dead) return;
    int added = 0;
    while ((int)c->fifo_n < depth) {
        const payload_t *p = &opt.reqs[c->sent % (uint64_t)opt.nreqs];
        out_append(c, p->s, p->len);
        unsigned slot = (c->fifo_head + c->fifo_n) % c->fifo_cap;
        c->fifo_left[slot] = p->lines * opt.reply_lines;
        c->fifo_t[slot] = 0;      /* filled below */
        c->fifo_n++;
        c->sent++;
        added++;
    }
    if (!added) return;
    uint64_t t = now_ns();
    for (int i = 0; i < added; i++) {
        unsigned slot = (c->fifo_head + c->fifo_n - 1 - (unsigned)i) % c->fifo_cap;
        c->fifo_t[slot] = t;
    }
    conn_flush(c);
}

static void on_line(conn_t *c, uint64_t t) {
    replies_any++;
    c->line[c->line_len < LINE_KEEP ? c->line_len : LINE_KEEP - 1] = 0;
    if (c->discard) { c->discard--; return; }
    if (c->role == ROLE_SUB) { if (measuring) sub_lines++; return; }
    if (c->role == ROLE_IDLE) {
        if (opt.errsub && strstr(c->line, opt.errsub)) errors++;
        if (c->fifo_n) c->fifo_n--;
        return;
    }
    if (c->fifo_n == 0) { if (measuring) errors++; return; }   /* unsolicited line */
    if (measuring && opt.errsub && strstr(c->line, opt.errsub)) errors++;
    unsigned slot = c->fifo_head;
    if (--c->fifo_left[slot] == 0) {
        if (measuring) { hist_record(&hist, t - c->fifo_t[slot]); ops++; }
        c->fifo_head = (c->fifo_head + 1) % c->fifo_cap;
        c->fifo_n--;
    }
}

static int load_running;

static void conn_read(conn_t *c) {
    static char buf[RBUF];
    for (int rounds = 0; rounds < 4; rounds++) {
        ssize_t r = read(c->fd, buf, sizeof buf);
        if (r == 0) { conn_kill(c); return; }
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            conn_kill(c);
            return;
        }
        uint64_t t = now_ns();
        char *p = buf, *end = buf + r;
        while (p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            if (c->line_len < LINE_KEEP - 1) {
                size_t k = n < LINE_KEEP - 1 - c->line_len ? n : LINE_KEEP - 1 - c->line_len;
                memcpy(c->line + c->line_len, p, k);
            }
            c->line_len += n;
            if (!nl) break;
            on_line(c, t);
            c->line_len = 0;
            p = nl + 1;
        }
        if (r < (ssize_t)sizeof buf) break;
    }
    if (load_running && c->role == ROLE_LOAD && !c->discard) conn_top_up(c, opt.depth);
}

static void conn_init(conn_t *c, int role, unsigned fifo_cap) {
    memset(c, 0, sizeof *c);
    c->role = role;
    c->fd = connect_unix(opt.sock);
    if (c->fd < 0) {
        fprintf(stderr, "loadgen: connect %s: %s\n", opt.sock, strerror(errno));
        exit(1);
    }
    c->fifo_cap = fifo_cap;
    c->fifo_t = calloc(fifo_cap, sizeof *c->fifo_t);
    c->fifo_left = calloc(fifo_cap, sizeof *c->fifo_left);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl: %s", strerror(errno));
}

static void poll_once(int timeout_ms) {
    struct epoll_event evs[256];
    int n = epoll_wait(epfd, evs, 256, timeout_ms);
    for (int i = 0; i < n; i++) {
        conn_t *c = evs[i].data.ptr;
        if (c->dead) continue;
        if (evs[i].events & EPOLLOUT) conn_flush(c);
        if (c->dead) continue;
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) conn_read(c);
    }
}

static int ms_until(uint64_t t) {
    uint64_t n = now_ns();
    if (n >= t) return 0;
    uint64_t ms = (t - n + 999999) / 1000000;
    return ms > 1000 ? 1000 : (int)ms;
}

/* ---------- modes ---------- */

static int run_idle(void) {
    long rss0 = opt.pid > 0 ? read_vmrss_kb(opt.pid) : -1;
    nconns_total = opt.idle;
    conns = calloc((size_t)opt.idle, sizeof *conns);
    for (int i = 0; i < opt.idle; i++) {
        conn_init(&conns[i], ROLE_IDLE, 1);
        out_append(&conns[i], opt.reqs[0].s, opt.reqs[0].len);
        conns[i].fifo_n = opt.reqs[0].lines;   /* lines still expected */
        conn_flush(&conns[i]);
        /* keep the server's accept queue and our buffers moving while connecting */
        if (i % 256 == 255) poll_once(0);
    }
    uint64_t deadline = now_ns() + 60ull * 1000000000ull;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < opt.idle; i++) if (!conns[i].dead && conns[i].fifo_n) pending++;
        if (!pending || stop_flag || now_ns() > deadline) {
            if (pending) fprintf(stderr, "loadgen: %d connections had no reply\n", pending);
            errors += (uint64_t)pending;
            break;
        }
        poll_once(100);
    }
    /* let the server settle (lazily freed buffers, allocator) before reading RSS */
    uint64_t settle = now_ns() + 500000000ull;
    while (!stop_flag && now_ns() < settle) poll_once(ms_until(settle));
    long rss1 = opt.pid > 0 ? read_vmrss_kb(opt.pid) : -1;
    int alive = 0;
    for (int i = 0; i < opt.idle; i++) if (!conns[i].dead) alive++;
    fprintf(stderr, "loadgen: ready, %d idle connections\n", alive);
    uint64_t hold = now_ns() + (uint64_t)(opt.dur * 1e9);
    while (!stop_flag && now_ns() < hold) poll_once(ms_until(hold));
    printf("idle_conns=%d alive=%d", opt.idle, alive);
    if (opt.pid > 0)
        printf(" rss_before_kb=%ld rss_after_kb=%ld bytes_per_conn=%.0f", rss0, rss1,
               alive ? (double)(rss1 - rss0) * 1024.0 / alive : 0.0);
    printf(" errors=%llu lost=%llu\n", (unsigned long long)errors, (unsigned long long)lost);
    fflush(stdout);
    return lost ? 2 : 0;
}

static int run_load(void) {
    nconns_total = opt.nconn + opt.nsub;
    conns = calloc((size_t)nconns_total, sizeof *conns);
    for (int i = 0; i < opt.nconn; i++) {
        conn_init(&conns[i], ROLE_LOAD, (unsigned)opt.depth);
        for (int k = 0; k < opt.nsetup; k++) {
            out_append(&conns[i], opt.setup[k].s, opt.setup[k].len);
            conns[i].discard += opt.setup[k].lines;
        }
        conn_flush(&conns[i]);
    }
    for (int i = opt.nconn; i < nconns_total; i++) {
        conn_init(&conns[i], ROLE_SUB, 1);
        out_append(&conns[i], opt.subline.s, opt.subline.len);
        conn_flush(&conns[i]);
    }
    /* setup: wait until every load connection has had its setup replies */
    uint64_t deadline = now_ns() + 30ull * 1000000000ull;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < opt.nconn; i++) if (!conns[i].dead && conns[i].discard) pending++;
        if (!pending) break;
        if (stop_flag || now_ns() > deadline) die("%s", "setup replies did not arrive in 30 s");
        poll_once(100);
    }
    if (lost) die("%s", "connections closed during setup");

    uint64_t t0 = now_ns();
    uint64_t t_meas = t0 + (uint64_t)(opt.warm * 1e9);
    uint64_t t_end = t_meas + (uint64_t)(opt.dur * 1e9);
    load_running = 1;
    for (int i = 0; i < opt.nconn; i++) conn_top_up(&conns[i], opt.depth);
    if (opt.warm <= 0) measuring = 1;
    uint64_t meas_start = opt.warm <= 0 ? t0 : 0;
    for (;;) {
        uint64_t n = now_ns();
        if (!measuring && n >= t_meas) {
            measuring = 1;
            meas_start = n;
            hist_reset(&hist);
            ops = errors = sub_lines = 0;
        }
        if (n >= t_end || stop_flag) break;
        if ((int)lost >= nconns_total) break;
        poll_once(ms_until(measuring ? t_end : t_meas));
    }
    uint64_t t_stop = now_ns();
    double secs = meas_start ? (double)(t_stop - meas_start) / 1e9 : 0;
    if (secs <= 0) secs = 1e-9;
    printf("ops_per_sec=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f errors=%llu",
           (double)ops / secs,
           hist_percentile(&hist, 50) / 1e3, hist_percentile(&hist, 99) / 1e3,
           hist_percentile(&hist, 99.9) / 1e3, (double)hist.max / 1e3,
           (unsigned long long)errors);
    printf(" ops=%llu secs=%.3f conns=%d depth=%d lost=%llu",
           (unsigned long long)ops, secs, opt.nconn, opt.depth, (unsigned long long)lost);
    if (opt.nsub)
        printf(" sub_conns=%d sub_lines_per_sec=%.0f", opt.nsub, (double)sub_lines / secs);
    printf("\n");
    fflush(stdout);
    return lost ? 2 : 0;
}

static void usage(void) {
    fprintf(stderr,
        "usage: loadgen -s SOCKET (-r LINE | -R FILE) [options]\n"
        "  -s PATH          Unix socket\n"
        "  -c N             connections (default 1)\n"
        "  -P DEPTH         requests in flight per connection (default 1)\n"
        "  -d SECONDS       measured duration (default 5); in --idle mode, how long to hold\n"
        "  -w SECONDS       warmup before measuring (default 1)\n"
        "  -r LINE          request line; \\n \\r \\t \\\\ escapes; \"\\n\" is appended\n"
        "  -R FILE          request lines, one per line, used in turn per connection\n"
        "  -e SUBSTRING     replies containing it count as errors (e.g. '\"ok\":false', '-ERR')\n"
        "  --setup LINE     sent once per connection before measuring, replies discarded (repeatable)\n"
        "  --idle N         open N connections, one -r request each, then hold them -d seconds\n"
        "  --pid PID        with --idle: report VmRSS of PID before and after\n"
        "  --subscribe N    N extra connections send --sub-line once, then only read\n"
        "  --sub-line LINE  the subscription request\n"
        "  --reply-lines N  each reply is N lines (default 1; 2 for a Redis bulk reply such as GET's)\n");
    exit(1);
}

static void add_req(const char *line) {
    opt.reqs = realloc(opt.reqs, (size_t)(opt.nreqs + 1) * sizeof *opt.reqs);
    opt.reqs[opt.nreqs++] = make_payload(line);
}

int main(int argc, char **argv) {
    static const struct option longopts[] = {
        { "setup", required_argument, 0, 1 },
        { "idle", required_argument, 0, 2 },
        { "pid", required_argument, 0, 3 },
        { "subscribe", required_argument, 0, 4 },
        { "sub-line", required_argument, 0, 5 },
        { "reply-lines", required_argument, 0, 6 },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    opt.reply_lines = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "s:c:P:d:w:r:R:e:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 's': opt.sock = optarg; break;
        case 'c': opt.nconn = atoi(optarg); break;
        case 'P': opt.depth = atoi(optarg); break;
        case 'd': opt.dur = atof(optarg); break;
        case 'w': opt.warm = atof(optarg); break;
        case 'r': add_req(optarg); break;
        case 'R': {
            FILE *f = fopen(optarg, "r");
            if (!f) die("cannot open %s", optarg);
            char *line = NULL; size_t cap = 0; ssize_t n;
            while ((n = getline(&line, &cap, f)) > 0) {
                while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
                if (n > 0) add_req(line);
            }
            free(line);
            fclose(f);
            break;
        }
        case 'e': opt.errsub = optarg; break;
        case 1:
            opt.setup = realloc(opt.setup, (size_t)(opt.nsetup + 1) * sizeof *opt.setup);
            opt.setup[opt.nsetup++] = make_payload(optarg);
            break;
        case 2: opt.idle = atoi(optarg); break;
        case 3: opt.pid = atol(optarg); break;
        case 4: opt.nsub = atoi(optarg); break;
        case 5: opt.subline = make_payload(optarg); opt.have_subline = 1; break;
        case 6: opt.reply_lines = (unsigned)atoi(optarg); break;
        default: usage();
        }
    }
    if (!opt.sock || opt.nreqs == 0 || opt.nconn < 1 || opt.depth < 1 || opt.dur < 0 || opt.idle < 0 || opt.nsub < 0)
        usage();
    if (opt.nsub && !opt.have_subline) die("%s", "--subscribe needs --sub-line");

    raise_nofile();
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    hist_reset(&hist);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1: %s", strerror(errno));

    return opt.idle ? run_idle() : run_load();
}
