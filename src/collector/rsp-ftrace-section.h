/* rsp-ftrace-section.h — the "ftrace" section of an RSP recording: what
 * RSP's own tracefs instance recorded beside perf.
 *
 * Why a second channel: perf's sampling drops tracepoint events that fire
 * in interrupt context while a CPU is in the idle task (block completions,
 * wake-ups from timers and interrupts; measured 1 of 128 completions), while
 * a tracefs instance records every one.  The instance runs with trace_clock
 * "mono" and perf with -k CLOCK_MONOTONIC, so both streams share one clock.
 *
 * Written by the recorder (rsp-ftrace.c), decoded by the reader
 * (rsp-ftrace-reader.c), which merges the instance's events into perf's by
 * time.  All integers are in the recording machine's byte order, which the
 * perf.data header also gives (the reader refuses a mismatch).
 *
 *   char magic[8]       "RSPFTR01"
 *   u32  version        RSP_FTRACE_SECTION_VERSION
 *   u32  subbuf_size    bytes of one ring-buffer sub-buffer (the page size)
 *   u32  long_size      the kernel's sizeof(long): 8 or 4 (for kbuffer)
 *   u32  n_cpus         per-CPU blocks below
 *   u64  header_page_len
 *   char header_page[header_page_len]     events/header_page of tracefs
 *   u32  n_formats
 *   n_formats × {
 *     u32  system_len;  char system[system_len]   ("sched", no NUL)
 *     u64  format_len;  char format[format_len]   (events/SYS/NAME/format)
 *   }
 *   n_cpus × {
 *     u32  cpu
 *     u32  reserved (0)
 *     u64  data_len     a multiple of subbuf_size
 *     u8   data[data_len]   whole sub-buffers as read from
 *                           per_cpu/cpuN/trace_pipe_raw, in read order
 *   }
 *
 * The instance's name, clock, events and per-CPU statistics (entries,
 * overrun, commit overrun, dropped events) are in the meta JSON, member
 * "ftrace" (RspFtraceMeta in rsp-recording.h).
 */
#pragma once

#define RSP_SECTION_FTRACE "ftrace"
#define RSP_FTRACE_SECTION_MAGIC "RSPFTR01"
#define RSP_FTRACE_SECTION_VERSION 1
/* Prefix of RSP's tracefs instance names: "rsp-<pid>-<random>".  A stale
 * instance (its recorder's pid is gone) is removed at the next start. */
#define RSP_FTRACE_INSTANCE_PREFIX "rsp-"
