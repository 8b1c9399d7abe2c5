// syncprobe: what one durable journal write costs on this filesystem, the way tabd writes
// under `fsync: always` and the way it would without allocating ahead.
//
//   syncprobe [DIR] [WRITES] [BYTES]     (defaults: . 3000 100)
//
// For each mode, WRITES times: write BYTES at the end of the records, then fdatasync.
//   append      the file grows with every write (each fdatasync commits the new size)
//   allocated   the file was fallocate'd first (tabd under `always`): size unchanged
//   zeroed      the file was filled with zeros and synced first (PostgreSQL's WAL)
// Prints microseconds per write+fdatasync, the median of 3 rounds per mode.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run(const char *path, int mode, int writes, int bytes) {
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror(path); exit(1); }
    off_t size = (off_t)writes * bytes + (1 << 20);
    if (mode == 1 && fallocate(fd, 0, 0, size) != 0) { perror("fallocate"); exit(1); }
    if (mode == 2) {
        char zeros[1 << 16];
        memset(zeros, 0, sizeof zeros);
        for (off_t at = 0; at < size; at += (off_t)sizeof zeros)
            if (pwrite(fd, zeros, sizeof zeros, at) < 0) { perror("pwrite"); exit(1); }
    }
    fsync(fd);
    char *record = malloc((size_t)bytes);
    memset(record, 'x', (size_t)bytes);
    double start = now();
    for (int i = 0; i < writes; i++) {
        if (pwrite(fd, record, (size_t)bytes, (off_t)i * bytes) != bytes) { perror("pwrite"); exit(1); }
        if (fdatasync(fd) != 0) { perror("fdatasync"); exit(1); }
    }
    double us = (now() - start) / writes * 1e6;
    free(record);
    close(fd);
    unlink(path);
    return us;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int writes = argc > 2 ? atoi(argv[2]) : 3000;
    int bytes = argc > 3 ? atoi(argv[3]) : 100;
    if (writes <= 0 || bytes <= 0) { fprintf(stderr, "usage: syncprobe [DIR] [WRITES] [BYTES]\n"); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/syncprobe.%d", dir, (int)getpid());
    const char *names[] = {"append", "allocated", "zeroed"};
    for (int mode = 0; mode < 3; mode++) {
        double r[3];
        for (int i = 0; i < 3; i++) r[i] = run(path, mode, writes, bytes);
        qsort(r, 3, sizeof r[0], cmp);
        printf("%-9s %6.1f us per %d-byte write + fdatasync (median of 3 x %d)\n", names[mode], r[1], bytes, writes);
    }
    return 0;
}
