/* ftrace-synth.h — tracefs instance sections built byte by byte, as
 * rsp-ftrace-section.h lays them out and as the kernel's ring buffer
 * writes its sub-buffers: sched_waking events only.  For the ftrace
 * reader's tests and for bench/merge-cpus.c. */
#pragma once

#include <glib.h>

#define SUBBUF 4096
#define WAKING_ID 375
#define WAKING_SIZE 36 /* payload bytes, a multiple of 4: type_len 9 */
/* how many events a sub-buffer holds */
#define WAKINGS_PER_SUBBUF ((SUBBUF - 16) / (4 + WAKING_SIZE))

/* sched_waking's payload: WAKER (common_pid) wakes PID named COMM */
void waking_payload (guint8 *p, gint32 waker, const char *comm, gint32 pid);

/* One sub-buffer holding sched_waking events at TIMES (absolute ns, up to
 * 2^27 ns apart) for the pids in PIDS, N <= WAKINGS_PER_SUBBUF;
 * COMMIT_OVERRIDE != 0 writes a damaged commit word. */
void add_subbuf (GByteArray *cpu_data, const guint64 *times, const gint32 *pids, guint n, guint64 commit_override);

/* The section of N_CPUS CPUs whose sub-buffers are CPUS[i] (CPU i). */
GByteArray *section (GByteArray **cpus, guint n_cpus);
