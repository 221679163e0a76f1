/* rsp-ftrace.h — RSP's own tracefs instance: the second recording channel.
 *
 * perf's sampling drops the tracepoint events that fire in interrupt
 * context while a CPU is in the idle task (block completions, wake-ups from
 * timers and interrupts).  A tracefs instance records every one of them, so
 * `rsp record` runs one beside perf for the events that can fire there
 * (RSP_FTRACE_EVENTS), with trace_clock "mono" while perf runs with
 * -k CLOCK_MONOTONIC: both streams share one clock.
 *
 * Life of the instance:
 *   rsp_ftrace_remove_stale ()  removes the "rsp-<pid>-<hex>" instances of
 *                               recorders that are gone (killed with SIGKILL,
 *                               crashed): the only cleanup that covers those;
 *   rsp_ftrace_new ()           creates "rsp-<pid>-<random hex>", tracing off,
 *                               clock mono, rsp_ftrace_buffer_kb() per CPU, the
 *                               events enabled, one non-blocking reader per CPU;
 *   rsp_ftrace_start ()         tracing on (just before perf's "enable");
 *   rsp_ftrace_poll_fds () and rsp_ftrace_drain ()
 *                               the caller's poll loop drains the per-CPU raw
 *                               buffers into unlinked temporary files as they
 *                               fill (the kernel wakes the poll at
 *                               RSP_FTRACE_BUFFER_PERCENT of a buffer);
 *   rsp_ftrace_stop ()          tracing off (just after perf's "disable"),
 *                               the partial last sub-buffers read, the
 *                               per-CPU statistics read;
 *   rsp_ftrace_destroy ()       events off, instance removed: on every path
 *                               (idempotent; rsp_ftrace_free calls it too).
 *
 * The data goes into the recording as the "ftrace" section, laid out as
 * rsp-ftrace-section.h says, and its description into the meta JSON
 * (RspFtraceMeta).
 */
#pragma once

#include <glib.h>
#include <poll.h>
#include <sys/types.h>

#include "rsp-recording.h"

G_BEGIN_DECLS

/* Per-CPU ring buffer of the instance.  The drain wakes when a buffer is
 * RSP_FTRACE_BUFFER_PERCENT full; the rest absorbs the time until the
 * recorder runs, which on CPUs the load keeps busy can be long: with 4 MB
 * per CPU, perf bench sched messaging -g 8 -l 400 on 2 CPUs overran it
 * (230 k and 330 k of 1.37 M events lost in two runs), with 16 MB it lost
 * none.  It is kernel memory only while recording: RSP_FTRACE_BUFFER_MAX_KB
 * per CPU as long as all CPUs' together stay within 1/64 of the RAM and
 * 256 MB, down to RSP_FTRACE_BUFFER_MIN_KB (rsp_ftrace_buffer_kb). */
#define RSP_FTRACE_BUFFER_MIN_KB 4096
#define RSP_FTRACE_BUFFER_MAX_KB 16384
#define RSP_FTRACE_BUFFER_PERCENT 25

/* The instance's buffer per CPU, in kB, for N_CPUS CPUs and RAM_BYTES of
 * memory (0: unknown, taken as plenty). */
int rsp_ftrace_buffer_kb (guint n_cpus, guint64 ram_bytes);
#define RSP_FTRACE_CLOCK "mono"

/* What is lost when the channel cannot run, for the warnings. */
#define RSP_FTRACE_LOSS_TEXT \
  N_("block completions and wake-ups from interrupts may be missing on idle CPUs")

typedef struct _RspFtrace RspFtrace;

/* The events recorded through the instance, "system:name", NULL-terminated. */
const char *const *rsp_ftrace_events (void);

/* Parses an instance name "rsp-<pid>-<hex>"; FALSE for any other name. */
gboolean rsp_ftrace_parse_instance_name (const char *name, pid_t *pid);

/* TRUE when the recorder that made an instance of PID is gone: no such
 * process, or a process that is not rsp (the pid was reused). */
gboolean rsp_ftrace_pid_is_stale (pid_t pid);

/* Removes the stale instances under TRACEFS (see above); returns how many,
 * and prints one line for each. */
guint rsp_ftrace_remove_stale (const char *tracefs);

/* Creates the instance under TRACEFS for the CPUs of CPUS (guint), with its
 * temporary files in the directory of TMP_PREFIX (a path prefix).  Returns
 * NULL and sets ERROR (a message naming the cause and the fix) when the
 * channel cannot run; a missing event is only noted in the meta.  The
 * events of the comma-separated PRETEND_MISSING (RSP_RECORD_PRETEND_MISSING,
 * for tests) count as missing from the kernel. */
RspFtrace *rsp_ftrace_new (const char *tracefs, const GArray *cpus, const char *tmp_prefix,
                           const char *pretend_missing, GError **error);
/* The buffer per CPU it asked the kernel for, in kB (0 for NULL). */
int rsp_ftrace_get_buffer_kb (const RspFtrace *self);

/* A live instance: EVENTS only, BUFFER_KB per CPU, its sub-buffers kept in
 * memory for rsp_ftrace_take_live instead of stored (rsp record's file
 * namer, rsp-files.h). */
RspFtrace *rsp_ftrace_new_live (const char *tracefs, const GArray *cpus, const char *const *events, int buffer_kb,
                                const char *pretend_missing, GError **error);
/* What a live instance recorded since the last call, as an "ftrace"
 * section (rsp-ftrace-reader.h reads it); NULL when there is nothing (or
 * with ERROR when the formats cannot be read). */
GBytes *rsp_ftrace_take_live (RspFtrace *self, GError **error);
/* The bytes before the CPU blocks in what rsp_ftrace_take_live returns (the
 * same every time; 0 before the first). */
gsize rsp_ftrace_live_head_size (const RspFtrace *self);

const char *rsp_ftrace_get_name (const RspFtrace *self);
/* CPUs read (the most fds rsp_ftrace_poll_fds gives); 0 for NULL. */
guint rsp_ftrace_get_n_cpus (const RspFtrace *self);

/* Tracing on in the instance. */
gboolean rsp_ftrace_start (RspFtrace *self, GError **error);
/* Once perf's events are enabled: learns the addresses of perf's sampling
 * timers (the expiries of perf_swevent_hrtimer, seen in a small instance of
 * their own for up to WAIT_MS, or until every CPU's was seen) and leaves
 * their expiries' exits out of the instance, which keeps out their entries
 * already.  Returns how many timers it filters out: 0 when the instance has
 * no such exits, its entries no filter, or nothing could be learnt (the
 * exits are then recorded whole, as before; the model ignores them). */
guint rsp_ftrace_filter_perf_timer_exits (RspFtrace *self, guint wait_ms);

/* Fills FDS (room for MAX) with the readers still open; returns how many. */
guint rsp_ftrace_poll_fds (RspFtrace *self, struct pollfd *fds, guint max);

/* Drains the readers that FDS (from rsp_ftrace_poll_fds, after poll) say
 * are ready. */
void rsp_ftrace_drain (RspFtrace *self, const struct pollfd *fds, guint n);

/* Tracing off, the rest of each buffer read, the statistics read. */
void rsp_ftrace_stop (RspFtrace *self);

/* Events off and the instance removed; safe to call more than once. */
void rsp_ftrace_destroy (RspFtrace *self);
void rsp_ftrace_free (RspFtrace *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspFtrace, rsp_ftrace_free)

/* The description for the meta JSON (after rsp_ftrace_stop). */
RspFtraceMeta *rsp_ftrace_build_meta (const RspFtrace *self);

/* The "ftrace" section as consecutive parts (GBytes; the data parts map the
 * temporary files, they are not copied).  NULL with ERROR when it cannot be
 * built. */
GPtrArray *rsp_ftrace_section_parts (RspFtrace *self, GError **error);

/* Events stored (the kernel's read count) and lost (overrun, commit overrun
 * and dropped events, summed over the CPUs) according to META. */
guint64 rsp_ftrace_meta_events (const RspFtraceMeta *meta);
guint64 rsp_ftrace_meta_lost (const RspFtraceMeta *meta);

G_END_DECLS
