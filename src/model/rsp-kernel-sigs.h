/* rsp-kernel-sigs.h — the one table of kernel function names RSP reads
 * stacks by (docs/MODEL.md, "Why a sleep ended"): which frames mean a timer
 * expiry, a disk completion, network receive processing, a hardware interrupt, a deliberate
 * sleep, a send, or scheduler plumbing.  Kernel versions rename these; keep
 * every name here, nowhere else. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RSP_SIG_NONE = 0,
  RSP_SIG_TIMER,          /* hrtimer_wakeup, process_timeout, ... */
  RSP_SIG_DISK,           /* blk_mq_end_request, bio_endio, ... */
  RSP_SIG_NET_RX,         /* net_rx_action, tcp_v4_rcv, ... */
  RSP_SIG_HARDIRQ,        /* common_interrupt, sysvec_*, ... */
  RSP_SIG_SOFTIRQ,        /* __do_softirq, handle_softirqs */
  RSP_SIG_NANOSLEEP,      /* do_nanosleep, hrtimer_nanosleep, ... (on a sleep's stack) */
  RSP_SIG_SEND,           /* tcp_sendmsg, udp_sendmsg, unix_stream_sendmsg, ... */
  RSP_SIG_SCHED,          /* schedule, __schedule, ... : not a representative frame */
  RSP_SIG_POLL,           /* do_sys_poll, do_select, ep_poll, futex_wait ... : waits with timeouts */
  RSP_SIG_FILE_IO,        /* vfs_read, do_fsync, filemap_fault, ... : I/O on an open file (on a sleep's stack) */
} RspKernelSig;

/* Whether an interrupt line by its name belongs to a disk controller. */
gboolean rsp_irq_name_is_disk (const char *irq_name);

/* Classifies one kernel function name (interned or not). */
RspKernelSig rsp_kernel_sig (const char *symbol);
/* A function a task sleeps in while it waits for its own disk I/O
 * (io_schedule, folio_wait_bit_common, submit_bio_wait, ...): on a sleep's
 * stack it says what the sleep was for when the wake-up was not recorded. */
gboolean rsp_kernel_is_io_wait (const char *symbol);
/* A function a task sleeps in while it waits for a device's cache flush
 * (blkdev_issue_flush: fsync, fdatasync, a journal commit). */
gboolean rsp_kernel_is_flush_wait (const char *symbol);
/* A futex wait: RSP_SIG_POLL (it may have a timeout), but threads wake
 * futexes and such wake-ups are recorded, so a futex sleep without one is
 * not inferred to have timed out. */
gboolean rsp_kernel_is_futex (const char *symbol);

G_END_DECLS
