// The helper's sandbox (see include/tabd_sandbox.h and docs/plugins.md, "Isolation").
#define _GNU_SOURCE
#include "tabd_sandbox.h"

#include <errno.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

void tabd_sandbox_close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 1 << 20) max = 1 << 20;
    for (int fd = first; fd < max; fd++) close(fd);
}

int tabd_sandbox_parent_death_signal(int signo) { return prctl(PR_SET_PDEATHSIG, signo, 0, 0, 0); }

int tabd_sandbox_become(uid_t uid, gid_t gid) {
    if (setgroups(1, &gid) != 0) return -1;
    if (setgid(gid) != 0) return -1;
    if (setuid(uid) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

#if defined(__x86_64__)
#define TABD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TABD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                 BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

int tabd_sandbox_restrict(void) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
#ifdef TABD_AUDIT_ARCH
    struct sock_filter filter[] = {
        /* Another architecture's calls (x32, 32-bit) would get past the numbers below. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TABD_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /* socket(): AF_UNIX only (no network). */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA)),
        /* New processes: a plugin's helper runs the plugin and nothing else, and a process it
         * started (say double-forked, in a session of its own) could outlive it and tabd.
         * Threads are allowed: clone with CLONE_THREAD. clone3's flags are in memory a filter
         * cannot read, so it answers ENOSYS, and the C library falls back to clone. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef SYS_clone3
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
#endif
        DENY(SYS_fork), DENY(SYS_vfork),
        /* Running other programs, and reaching into other processes. */
        DENY(SYS_execve), DENY(SYS_execveat), DENY(SYS_ptrace),
        DENY(SYS_process_vm_readv), DENY(SYS_process_vm_writev),
        /* Mounts, roots, namespaces. */
        DENY(SYS_mount), DENY(SYS_umount2), DENY(SYS_pivot_root), DENY(SYS_chroot),
        DENY(SYS_unshare), DENY(SYS_setns),
        /* The kernel itself: modules, kexec, reboot, swap, accounting, clocks, bpf, perf. */
        DENY(SYS_init_module), DENY(SYS_finit_module), DENY(SYS_delete_module),
        DENY(SYS_kexec_load), DENY(SYS_reboot), DENY(SYS_swapon), DENY(SYS_swapoff),
        DENY(SYS_acct), DENY(SYS_settimeofday), DENY(SYS_clock_settime), DENY(SYS_bpf),
        DENY(SYS_perf_event_open),
        /* Keyrings, and changing who it is. */
        DENY(SYS_keyctl), DENY(SYS_add_key), DENY(SYS_request_key),
        DENY(SYS_setuid), DENY(SYS_setgid), DENY(SYS_setreuid), DENY(SYS_setregid),
        DENY(SYS_setresuid), DENY(SYS_setresgid), DENY(SYS_setgroups),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) return -1;
#endif
    return 0;
}

/* ---- One line when an in-process plugin crashes tabd (tabd_crash_line_install) ---- */

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const volatile unsigned char *crash_page;
static unsigned crash_slots, crash_slot_bytes, crash_name_bytes;
static char *crash_hooks[32];
static int crash_hook_count;
static char *crash_prefix, *crash_suffix;
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct sigaction crash_previous[sizeof crash_signals / sizeof crash_signals[0]];

/* Appends the C string `s` (at most `max` bytes of it) to buf at *n; async-signal-safe. */
static void crash_append(char *buf, size_t *n, size_t room, const volatile char *s, size_t max) {
    for (size_t i = 0; s != NULL && i < max && s[i] != 0 && *n < room; i++) buf[(*n)++] = s[i];
}

static void crash_handler(int sig, siginfo_t *info, void *context) {
    size_t which = 0;
    while (which < sizeof crash_signals / sizeof crash_signals[0] && crash_signals[which] != sig) which++;
    uint64_t word = crash_page ? ((const volatile uint64_t *)crash_page)[1] : 0;
    unsigned slot = (unsigned)(word >> 32), hook = (unsigned)(word & 0xFFFFFFFFu);
    if (word != 0 && slot >= 1 && slot <= crash_slots) {
        char line[512];
        size_t n = 0;
        crash_append(line, &n, sizeof line, crash_prefix, 64);
        crash_append(line, &n, sizeof line, "plugin ", 16);
        crash_append(line, &n, sizeof line, (const volatile char *)crash_page + 64 + (slot - 1) * crash_slot_bytes, crash_name_bytes - 1);
        crash_append(line, &n, sizeof line, " crashed tabd in hook ", 32);
        crash_append(line, &n, sizeof line, hook >= 1 && (int)hook <= crash_hook_count ? crash_hooks[hook - 1] : "unknown", 64);
        crash_append(line, &n, sizeof line, " (signal ", 16);
        char digits[4] = { (char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ')', 0 };
        crash_append(line, &n, sizeof line, sig >= 10 ? digits : digits + 1, 3);
        crash_append(line, &n, sizeof line, crash_suffix, 400);
        if (n < sizeof line) line[n++] = '\n';
        ssize_t ignored = write(2, line, n);
        (void)ignored;
        /* Die of the signal: the default action, raised again on return (or now, for abort). */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    /* Not a plugin's: whoever handled it before. */
    struct sigaction *before = which < sizeof crash_signals / sizeof crash_signals[0] ? &crash_previous[which] : NULL;
    if (before != NULL && (before->sa_flags & SA_SIGINFO) && before->sa_sigaction != NULL) {
        before->sa_sigaction(sig, info, context);
    } else if (before != NULL && before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN) {
        before->sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

int tabd_crash_line_install(const void *page, int slots, int slot_bytes, int name_bytes,
                            const char *const *hooks, int hook_count, const char *prefix, const char *suffix) {
    crash_slots = (unsigned)slots;
    crash_slot_bytes = (unsigned)slot_bytes;
    crash_name_bytes = (unsigned)name_bytes;
    crash_hook_count = hook_count < 32 ? hook_count : 32;
    for (int i = 0; i < crash_hook_count; i++) crash_hooks[i] = strdup(hooks[i]);
    crash_prefix = strdup(prefix ? prefix : "");
    crash_suffix = strdup(suffix ? suffix : "");
    crash_page = page;
    for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = crash_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(crash_signals[i], &action, &crash_previous[i]) != 0) return -1;
    }
    return 0;
}
