/* rsp-kernel-sigs.c — kernel function names by meaning (see the header). */
#include "rsp-kernel-sigs.h"

#include <string.h>

typedef struct {
  const char *name;
  RspKernelSig sig;
  gboolean prefix; /* match names starting with NAME */
} Signature;

static const Signature signatures[] = {
  /* timer expiry */
  { "hrtimer_wakeup", RSP_SIG_TIMER, FALSE },
  { "process_timeout", RSP_SIG_TIMER, FALSE },
  { "call_timer_fn", RSP_SIG_TIMER, FALSE },
  { "__run_timers", RSP_SIG_TIMER, FALSE },
  { "run_timer_softirq", RSP_SIG_TIMER, FALSE },
  { "__hrtimer_run_queues", RSP_SIG_TIMER, FALSE },
  { "hrtimer_interrupt", RSP_SIG_TIMER, FALSE },
  { "posix_timer_fn", RSP_SIG_TIMER, FALSE },
  { "it_real_fn", RSP_SIG_TIMER, FALSE },
  { "tick_sched_timer", RSP_SIG_TIMER, FALSE },
  /* disk completion */
  { "blk_mq_end_request", RSP_SIG_DISK, FALSE },
  { "blk_mq_end_request_batch", RSP_SIG_DISK, FALSE },
  { "blk_update_request", RSP_SIG_DISK, FALSE },
  { "blk_mq_complete_request", RSP_SIG_DISK, FALSE },
  { "bio_endio", RSP_SIG_DISK, FALSE },
  { "iomap_dio_bio_end_io", RSP_SIG_DISK, FALSE },
  { "blkdev_bio_end_io", RSP_SIG_DISK, FALSE },
  { "blkdev_bio_end_io_simple", RSP_SIG_DISK, FALSE },
  { "end_bio_bh_io_sync", RSP_SIG_DISK, FALSE },
  { "mpage_end_io", RSP_SIG_DISK, FALSE },
  { "ext4_end_bio", RSP_SIG_DISK, FALSE },
  { "virtblk_done", RSP_SIG_DISK, FALSE },
  { "nvme_irq", RSP_SIG_DISK, FALSE },
  { "folio_end_writeback", RSP_SIG_DISK, FALSE },
  { "folio_end_read", RSP_SIG_DISK, FALSE },
  { "end_page_writeback", RSP_SIG_DISK, FALSE },
  { "end_buffer_write_sync", RSP_SIG_DISK, FALSE },
  { "end_buffer_read_sync", RSP_SIG_DISK, FALSE },
  { "end_buffer_async_write", RSP_SIG_DISK, FALSE },
  { "ext4_finish_bio", RSP_SIG_DISK, FALSE },
  { "ext4_end_io_rsv_work", RSP_SIG_DISK, FALSE },
  { "ext4_end_io_end", RSP_SIG_DISK, FALSE },
  { "iomap_finish_ioends", RSP_SIG_DISK, FALSE },
  { "iomap_finish_ioend", RSP_SIG_DISK, FALSE },
  { "iomap_dio_complete_work", RSP_SIG_DISK, FALSE },
  { "jbd2_journal_commit_transaction", RSP_SIG_DISK, FALSE },
  { "blk_done_softirq", RSP_SIG_DISK, FALSE },
  /* network receive */
  { "net_rx_action", RSP_SIG_NET_RX, FALSE },
  { "__netif_receive_skb", RSP_SIG_NET_RX, FALSE },
  { "__netif_receive_skb_core", RSP_SIG_NET_RX, TRUE },
  { "__netif_receive_skb_one_core", RSP_SIG_NET_RX, FALSE },
  { "process_backlog", RSP_SIG_NET_RX, FALSE },
  { "ip_local_deliver", RSP_SIG_NET_RX, FALSE },
  { "ip_local_deliver_finish", RSP_SIG_NET_RX, FALSE },
  { "ip6_input", RSP_SIG_NET_RX, FALSE },
  { "tcp_v4_rcv", RSP_SIG_NET_RX, FALSE },
  { "tcp_v6_rcv", RSP_SIG_NET_RX, FALSE },
  { "tcp_rcv_established", RSP_SIG_NET_RX, FALSE },
  { "tcp_data_queue", RSP_SIG_NET_RX, FALSE },
  { "udp_rcv", RSP_SIG_NET_RX, FALSE },
  { "__udp4_lib_rcv", RSP_SIG_NET_RX, FALSE },
  { "udp_queue_rcv_skb", RSP_SIG_NET_RX, FALSE },
  { "udpv6_rcv", RSP_SIG_NET_RX, FALSE },
  /* hardware interrupts */
  { "common_interrupt", RSP_SIG_HARDIRQ, FALSE },
  { "asm_common_interrupt", RSP_SIG_HARDIRQ, FALSE },
  { "handle_irq_event", RSP_SIG_HARDIRQ, FALSE },
  { "__handle_irq_event_percpu", RSP_SIG_HARDIRQ, FALSE },
  { "do_IRQ", RSP_SIG_HARDIRQ, FALSE },
  { "sysvec_", RSP_SIG_HARDIRQ, TRUE },
  { "asm_sysvec_", RSP_SIG_HARDIRQ, TRUE },
  { "__sysvec_", RSP_SIG_HARDIRQ, TRUE },
  { "apic_timer_interrupt", RSP_SIG_HARDIRQ, FALSE },
  /* softirq processing */
  { "__do_softirq", RSP_SIG_SOFTIRQ, FALSE },
  { "handle_softirqs", RSP_SIG_SOFTIRQ, FALSE },
  { "do_softirq", RSP_SIG_SOFTIRQ, FALSE },
  { "run_ksoftirqd", RSP_SIG_SOFTIRQ, FALSE },
  /* deliberate sleeps (on the sleeping task's stack) */
  { "do_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  { "hrtimer_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  { "common_nsleep", RSP_SIG_NANOSLEEP, FALSE },
  { "__x64_sys_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  { "__x64_sys_clock_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  { "__ia32_sys_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  { "__ia32_sys_clock_nanosleep", RSP_SIG_NANOSLEEP, FALSE },
  /* sends (the waker of a loopback receiver is the sender) */
  { "tcp_sendmsg", RSP_SIG_SEND, FALSE },
  { "tcp_sendmsg_locked", RSP_SIG_SEND, FALSE },
  { "udp_sendmsg", RSP_SIG_SEND, FALSE },
  { "udpv6_sendmsg", RSP_SIG_SEND, FALSE },
  { "inet_sendmsg", RSP_SIG_SEND, FALSE },
  { "__sys_sendto", RSP_SIG_SEND, FALSE },
  { "__sys_sendmsg", RSP_SIG_SEND, FALSE },
  { "__ip_queue_xmit", RSP_SIG_SEND, FALSE },
  { "ip_finish_output2", RSP_SIG_SEND, FALSE },
  { "__dev_queue_xmit", RSP_SIG_SEND, FALSE },
  { "unix_stream_sendmsg", RSP_SIG_SEND, FALSE },
  { "unix_dgram_sendmsg", RSP_SIG_SEND, FALSE },
  { "sock_sendmsg", RSP_SIG_SEND, FALSE },
  { "sock_write_iter", RSP_SIG_SEND, FALSE },
  /* scheduler plumbing: never the frame that describes a sleep */
  { "schedule", RSP_SIG_SCHED, FALSE },
  { "__schedule", RSP_SIG_SCHED, FALSE },
  { "schedule_timeout", RSP_SIG_SCHED, FALSE },
  { "schedule_hrtimeout_range", RSP_SIG_SCHED, FALSE },
  { "schedule_hrtimeout_range_clock", RSP_SIG_SCHED, FALSE },
  { "schedule_preempt_disabled", RSP_SIG_SCHED, FALSE },
  { "preempt_schedule", RSP_SIG_SCHED, FALSE },
  { "preempt_schedule_common", RSP_SIG_SCHED, FALSE },
  { "preempt_schedule_irq", RSP_SIG_SCHED, FALSE },
  { "preempt_schedule_notrace", RSP_SIG_SCHED, FALSE },
  { "__cond_resched", RSP_SIG_SCHED, FALSE },
  { "exit_to_user_mode_loop", RSP_SIG_SCHED, FALSE },
  { "exit_to_user_mode_prepare", RSP_SIG_SCHED, FALSE },
  { "irqentry_exit_to_user_mode", RSP_SIG_SCHED, FALSE },
  { "irqentry_exit", RSP_SIG_SCHED, FALSE },
  { "syscall_exit_to_user_mode", RSP_SIG_SCHED, FALSE },
  { "io_schedule", RSP_SIG_SCHED, FALSE },
  { "io_schedule_timeout", RSP_SIG_SCHED, FALSE },
  { "do_syscall_64", RSP_SIG_SCHED, FALSE },
  { "entry_SYSCALL_64_after_hwframe", RSP_SIG_SCHED, FALSE },
  { "finish_task_switch", RSP_SIG_SCHED, TRUE },
  /* I/O on an open file: a disk wait under these is for the file the
   * task's latest file event named (rsp-files.h) */
  { "vfs_read", RSP_SIG_FILE_IO, FALSE },
  { "vfs_write", RSP_SIG_FILE_IO, FALSE },
  { "vfs_readv", RSP_SIG_FILE_IO, FALSE },
  { "vfs_writev", RSP_SIG_FILE_IO, FALSE },
  { "vfs_iter_read", RSP_SIG_FILE_IO, FALSE },
  { "vfs_iter_write", RSP_SIG_FILE_IO, FALSE },
  { "ksys_read", RSP_SIG_FILE_IO, FALSE },
  { "ksys_write", RSP_SIG_FILE_IO, FALSE },
  { "ksys_pread64", RSP_SIG_FILE_IO, FALSE },
  { "ksys_pwrite64", RSP_SIG_FILE_IO, FALSE },
  { "filemap_read", RSP_SIG_FILE_IO, FALSE },
  { "vfs_fsync_range", RSP_SIG_FILE_IO, FALSE },
  { "do_fsync", RSP_SIG_FILE_IO, FALSE },
  { "ksys_sync_file_range", RSP_SIG_FILE_IO, FALSE },
  { "filemap_fault", RSP_SIG_FILE_IO, FALSE },
  { "iomap_dio_rw", RSP_SIG_FILE_IO, FALSE },
  { "__iomap_dio_rw", RSP_SIG_FILE_IO, FALSE },
  { "vfs_copy_file_range", RSP_SIG_FILE_IO, FALSE },
  { "do_splice", RSP_SIG_FILE_IO, FALSE },
  { "do_sendfile", RSP_SIG_FILE_IO, FALSE },
  /* waits that may end by a timeout */
  { "do_sys_poll", RSP_SIG_POLL, FALSE },
  { "do_poll", RSP_SIG_POLL, FALSE },
  { "do_select", RSP_SIG_POLL, FALSE },
  { "core_sys_select", RSP_SIG_POLL, FALSE },
  { "ep_poll", RSP_SIG_POLL, FALSE },
  { "do_epoll_wait", RSP_SIG_POLL, FALSE },
  { "futex_wait", RSP_SIG_POLL, FALSE },
  { "futex_wait_queue", RSP_SIG_POLL, FALSE },
};

static GHashTable *exact_table;
static GPtrArray *prefix_table;

static void
init_tables (void)
{
  GHashTable *exact = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *prefixes = g_ptr_array_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (signatures); i++)
    {
      if (signatures[i].prefix)
        g_ptr_array_add (prefixes, (gpointer) &signatures[i]);
      else
        g_hash_table_insert (exact, (gpointer) signatures[i].name, GINT_TO_POINTER (signatures[i].sig));
    }
  prefix_table = prefixes;
  exact_table = exact;
}

gboolean
rsp_irq_name_is_disk (const char *irq_name)
{
  /* virtio-blk queues ("virtio1-req.0"), NVMe, AHCI/ATA controllers */
  return irq_name != NULL
         && (strstr (irq_name, "-req.") != NULL || g_str_has_prefix (irq_name, "nvme")
             || g_str_has_prefix (irq_name, "ahci") || g_str_has_prefix (irq_name, "ata_"));
}

RspKernelSig
rsp_kernel_sig (const char *symbol)
{
  static gsize initialized = 0;
  if (g_once_init_enter (&initialized))
    {
      init_tables ();
      g_once_init_leave (&initialized, 1);
    }
  if (symbol == NULL)
    return RSP_SIG_NONE;
  gpointer v = g_hash_table_lookup (exact_table, symbol);
  if (v != NULL)
    return (RspKernelSig) GPOINTER_TO_INT (v);
  for (guint i = 0; i < prefix_table->len; i++)
    {
      const Signature *s = g_ptr_array_index (prefix_table, i);
      if (g_str_has_prefix (symbol, s->name))
        return s->sig;
    }
  return RSP_SIG_NONE;
}

/* Waits for the task's own disk I/O, by the function it sleeps in.  Kept
 * apart from the signatures above: io_schedule is also scheduler plumbing
 * there (never the frame that describes a sleep). */
static const char *const io_waits[] = {
  "io_schedule", "io_schedule_timeout", "blk_io_schedule", "bit_wait_io", "folio_wait_bit_common",
  "folio_wait_bit", "folio_wait_writeback", "__folio_lock", "__folio_lock_killable", "submit_bio_wait",
  "wait_on_page_bit_common", "__wait_on_buffer", "wait_for_completion_io", "wait_for_completion_io_timeout",
  "__iomap_dio_rw", "blkdev_issue_flush", "filemap_fdatawait_range", "__filemap_fdatawait_range",
};

gboolean
rsp_kernel_is_io_wait (const char *symbol)
{
  if (symbol == NULL)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (io_waits); i++)
    if (strcmp (symbol, io_waits[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
rsp_kernel_is_flush_wait (const char *symbol)
{
  /* asked for every kernel frame of every disk wait: the first letter
   * settles most */
  return symbol != NULL && symbol[0] == 'b' && strcmp (symbol, "blkdev_issue_flush") == 0;
}

gboolean
rsp_kernel_is_futex (const char *symbol)
{
  return symbol != NULL && g_str_has_prefix (symbol, "futex");
}
