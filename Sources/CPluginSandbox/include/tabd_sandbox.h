/*
 * The sandbox of an isolated plugin's helper process (tabd --plugin-host): what the helper
 * applies to itself before it loads the plugin; and the one line tabd writes when an
 * in-process plugin crashes it. Internal to tabd; not part of the plugin ABI.
 */
#ifndef TABD_SANDBOX_H
#define TABD_SANDBOX_H

#include <sys/types.h>

/** Closes every descriptor from `first` up (close_range, else one by one). */
void tabd_sandbox_close_from(int first);

/** PR_SET_PDEATHSIG: the helper gets `signo` when tabd's thread that made it exits. */
int tabd_sandbox_parent_death_signal(int signo);

/** setgroups([gid]), setgid, setuid, then PR_SET_DUMPABLE 1 (so /proc/self stays the
 *  helper's own and the plugin can be opened through /proc/self/fd). 0, or -1 with errno. */
int tabd_sandbox_become(uid_t uid, gid_t gid);

/** PR_SET_NO_NEW_PRIVS, then a seccomp filter that makes the calls listed in sandbox.c
 *  fail with EPERM (exec, ptrace, mounts, modules, namespaces, keyrings, bpf, reboot, …) and
 *  sockets of any family but AF_UNIX fail with EAFNOSUPPORT. 0, or -1 with errno (the
 *  filter needs NO_NEW_PRIVS first; both are kept when only the filter fails). */
int tabd_sandbox_restrict(void);

/**
 * Installs handlers of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT for the plugin watch
 * (TabPlugins' PluginWatch). `page` is the watch's page: its second word says which plugin
 * (slot << 32) and hook (index + 1) runs, 0 outside hooks; slot s (1 … `slots`) has its
 * name (NUL-terminated within `name_bytes`) at 64 + (s - 1) * `slot_bytes`. While a hook runs, a fatal signal writes one line to stderr —
 * `prefix`, then "plugin <name> crashed tabd in hook <hooks[i]> (signal N)" and `suffix` —
 * and the process dies of the signal as it would have (core dump included). Outside hooks
 * the signal goes to the handler that was there before (the Swift runtime's backtracer:
 * tabd's own faults keep their report). Strings are copied. 0, or -1 with errno.
 */
int tabd_crash_line_install(const void *page, int slots, int slot_bytes, int name_bytes,
                            const char *const *hooks, int hook_count, const char *prefix, const char *suffix);

#endif
