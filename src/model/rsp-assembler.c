/* rsp-assembler.c — one pass over the time-ordered events builds tasks,
 * runs, sleeps, samples, links, disk and network operations (paper §5.2,
 * "Assembling Pieces"), inferring what the kernel or perf did not record
 * (docs/MODEL.md, "Missing events are normal") and counting each such anomaly.
 *
 * Why a sleep ended is decided once, when its wake-up is seen
 * (sched_waking, in the waker's context): from the interrupt brackets of the
 * waker's CPU and from the waker's stack, read through the single table of
 * kernel names in rsp-kernel-sigs.c.
 */
#include "rsp-model-private.h"

#include <string.h>

#include "rsp-kernel-sigs.h"
#include "rsp-model-event.h"
#include "rsp-tid-map.h"

#define MAX_STACK 256
#define TASK_STATE_MASK 0xff
#define TASK_DEAD_STATES (0x10 | 0x20) /* EXIT_DEAD, EXIT_ZOMBIE */
#define SOFTIRQ_TIMER 1
#define SOFTIRQ_NET_RX 3
#define SOFTIRQ_BLOCK 4
#define SOFTIRQ_HRTIMER 8

/* What a sched_waking said, kept until the woken task runs. */
typedef struct {
  gboolean valid;
  gboolean early;  /* recorded just before the switch-out of the sleep it ends */
  guint64 time;
  RspWakeReason reason;
  RspIdx waker_run;
  RspIdx disk_op;
  RspIdx net_op;
  const char *irq_name;
} PendingWake;

typedef struct {
  RspIdx task;
  RspIdx open_run;
  RspIdx open_sleep;
  RspIdx last_run;
  PendingWake pending;
  guint64 last_send_time;
  guint64 last_send_sk;
  const char *exec_comm; /* name announced by an exec COMM record */
  guint64 fib_time;      /* its last route lookup: the peer of its next send */
  guint8 fib_proto;
  const char *fib_peer;
  RspFileId file;        /* the file of its latest file event (rsp-files.h), until it is back in user space;
                          * ino 0: none.  Named (file_label()) only when a wait or request takes it: a
                          * flusher's writeback can touch tens of thousands of inodes no wait is in */
  guint64 file_time;
} TidState;

#define BRACKET_DEPTH 4

/* A request in flight at its key (rsp-assembler.c's DiskKey), in
 * Assembler.inflight; op 0: an empty slot.  Without a block of memory per
 * request (a GLib hash table keyed by a copy of the key): a copy of many
 * files has a request for each. */
typedef struct {
  guint64 sector;
  guint32 dev;
  guint32 op; /* its index + 1 */
} InflightSlot;

/* What the assembler keeps per disk request while it may be in flight. */
typedef struct {
  RspIdx later;       /* the next in flight at its key, or RSP_NONE */
  gboolean requeued;  /* requeued, not issued again yet */
} OpLink;

typedef struct {
  gint32 tid;           /* running tid, 0 idle, -1 unknown */
  RspIdx run;           /* open run */
  guint64 last_switch;
  gint hardirq_depth;
  const char *hardirq_name;
  gint softirq_depth;
  guint32 softirq_vec;
  gboolean softirq_at_irq_exit; /* the softirq runs at an interrupt's exit (or on an idle CPU), not from a task's own code */
  guint64 irq_tail_time;    /* the end of the latest handler, or of a softirq run at a handler's exit */
  gint irq_tail_vec;        /* that softirq's vector, -1 after a handler */
  gint hrtimer_depth;   /* inside a timer's expiry callback (hrtimer_expire_entry/exit) */
  /* when each kind's innermost open bracket was entered (by depth, the
   * deeper ones past BRACKET_DEPTH sharing the last): the latest entered of
   * the kinds open is the innermost (innermost_bracket()) */
  guint64 hardirq_at[BRACKET_DEPTH], softirq_at[BRACKET_DEPTH], hrtimer_at[BRACKET_DEPTH];
  RspIdx last_completed_op;
  guint64 last_complete_time;
  guint64 data_ready_sk;
  guint64 data_ready_time;
} CpuState;

#define SIG_CACHE_BITS 10

struct _RspAssembler {
  RspModel *m;
  GHashTable *tids; /* tid -> TidState*: owns them, and its order is the order
                     * finish() closes what is open */
  RspTidMap *tid_index; /* the same, for the lookups (once or more per event) */
  GArray *cpus;     /* CpuState */
  InflightSlot *inflight; /* open addressing, linear probing: the oldest request in flight at each key */
  guint64 inflight_mask;  /* its size less one (a power of two) */
  guint64 n_inflight;
  GArray *op_links; /* OpLink per disk request, by index */
  gboolean requeues_recorded;
  GHashTable *sock_endpoints;/* sk -> interned "addr:port" */
  GHashTable *sock_ports;    /* sk -> its own TCP port + 1 (inet_sock_set_state) */
  GHashTable *ignored_pids;  /* keep-awake spinners */
  GHashTable *comms;         /* tid -> interned comm, from COMM records */
  GHashTable *sigs;          /* symbol pointer -> RspKernelSig + 1: names are interned */
  /* in front of SIGS, by the pointer's bits: one slot each, overwritten */
  struct {
    const char *symbol;
    RspKernelSig sig;
  } sig_cache[1u << SIG_CACHE_BITS];
  const RspFileTable *files; /* the recording's file names, or NULL */
  GArray *chain_stacks;      /* the decoder's: RspStackId by chain number - 1 */
  GHashTable *file_labels;   /* RspFileId -> interned label, for the files the table does not name */
  const char **entry_labels; /* per entry of files: its interned path, or NULL until asked for */
  GHashTable *endpoints;     /* (IPv4 address << 16 | port) + 1 -> interned "a.b.c.d:port" */
};

typedef struct _RspAssembler Assembler;

/* ------------------------------------------------------------------ helpers */

static CpuState *
cpu_state (Assembler *a, gint32 cpu)
{
  if (cpu < 0 || cpu > 4095)
    return NULL;
  while (a->cpus->len <= (guint) cpu)
    {
      CpuState cs = { .tid = -1, .run = RSP_NONE, .last_completed_op = RSP_NONE };
      g_array_append_val (a->cpus, cs);
    }
  return &g_array_index (a->cpus, CpuState, cpu);
}

static RspIdx
new_task (Assembler *a, gint32 tid, gint32 pid, const char *comm, guint64 time, RspIdx parent, guint32 generation)
{
  RspTask t = { 0 };
  t.tid = tid;
  t.pid = pid;
  t.comm = rsp_model_intern (a->m, comm);
  t.generation = generation;
  t.parent = parent;
  t.start = t.end = time;
  t.first_run = t.last_run = RSP_NONE;
  t.ignored = g_hash_table_contains (a->ignored_pids, GINT_TO_POINTER (pid))
              || g_hash_table_contains (a->ignored_pids, GINT_TO_POINTER (tid));
  g_array_append_val (a->m->tasks, t);
  return a->m->tasks->len - 1;
}

/* The state of a thread first seen at TIME: apart from tid_state(), so
 * that its lookup, done for nearly every event, sets up no stack frame. */
static G_GNUC_NO_INLINE TidState *
tid_state_new (Assembler *a, gint32 tid, guint64 time)
{
  TidState *ts = g_new0 (TidState, 1);
  ts->open_run = ts->open_sleep = ts->last_run = RSP_NONE;
  const char *comm = g_hash_table_lookup (a->comms, GINT_TO_POINTER (tid));
  ts->task = new_task (a, tid, tid, comm, time, RSP_NONE, 0);
  g_hash_table_insert (a->tids, GINT_TO_POINTER (tid), ts);
  rsp_tid_map_insert (a->tid_index, tid, ts);
  return ts;
}

static inline TidState *
tid_state (Assembler *a, gint32 tid, guint64 time)
{
  TidState *ts = rsp_tid_map_lookup (a->tid_index, tid);
  return G_LIKELY (ts != NULL) ? ts : tid_state_new (a, tid, time);
}

static RspStackId
event_stack (Assembler *a, const RspModelEvent *ev)
{
  if (ev->chain == 0)
    return rsp_model_intern_stack (a->m, ev->frames, ev->n_frames);
  /* the same frames intern to the same id: interned once, read after */
  RspStackId *id = &g_array_index (a->chain_stacks, RspStackId, ev->chain - 1);
  if (*id == 0)
    *id = rsp_model_intern_stack (a->m, ev->frames, ev->n_frames);
  return *id;
}

static void
touch_task (Assembler *a, RspIdx task, guint64 time)
{
  RspTask *t = model_task (a->m, task);
  if (time > t->end)
    t->end = time;
}

static RspIdx
open_run (Assembler *a, TidState *ts, gint32 cpu, guint64 time, RspRunStart kind)
{
  RspModel *m = a->m;
  RspRun run = { 0 };
  run.task = ts->task;
  run.cpu = cpu;
  run.start = run.end = time;
  run.start_kind = kind;
  run.prev_sleep = run.next_sleep = run.next_run = RSP_NONE;
  run.first_sample = RSP_NONE;
  run.wake_link = RSP_NONE;
  RspIdx idx = m->runs->len;
  RspTask *t = model_task (m, ts->task);
  if (ts->open_sleep != RSP_NONE && model_sleep (m, ts->open_sleep)->task == ts->task)
    run.prev_sleep = ts->open_sleep;
  rsp_model_append_reserved (m->runs, m->switch_room, &run, sizeof run);
  if (t->last_run != RSP_NONE)
    model_run (m, t->last_run)->next_run = idx;
  else
    t->first_run = idx;
  t->last_run = idx;
  t->n_runs++;
  if (time < t->start)
    t->start = time;
  ts->open_run = idx;
  ts->last_run = idx;
  return idx;
}

static void
close_run (Assembler *a, TidState *ts, guint64 time)
{
  if (ts->open_run == RSP_NONE)
    return;
  RspRun *run = model_run (a->m, ts->open_run);
  run->end = MAX (time, run->start);
  touch_task (a, ts->task, run->end);
  ts->open_run = RSP_NONE;
}

static gboolean stack_has_sig (Assembler *a, RspStackId stack, RspKernelSig sig);

/* The name of a file: its stored path, else its device and inode. */
static const char *
file_label (Assembler *a, RspFileId id)
{
  /* a stored name: interned once per entry of the table */
  gint entry = rsp_file_table_find (a->files, id);
  if (entry >= 0)
    {
      if (a->entry_labels == NULL)
        a->entry_labels = g_new0 (const char *, rsp_file_table_size (a->files));
      const char **label = &a->entry_labels[entry];
      if (*label == NULL)
        *label = rsp_model_intern (a->m, rsp_file_table_path (a->files, (guint) entry));
      return *label;
    }
  const char *label = g_hash_table_lookup (a->file_labels, &id);
  if (label != NULL)
    return label;
  g_autofree char *text = id.dev != 0 ? g_strdup_printf ("device %u:%u inode %" G_GUINT64_FORMAT,
                                                         RSP_KDEV_MAJOR (id.dev), RSP_KDEV_MINOR (id.dev), id.ino)
                                      : g_strdup_printf ("inode %" G_GUINT64_FORMAT, id.ino);
  label = rsp_model_intern (a->m, text);
  g_hash_table_insert (a->file_labels, g_memdup2 (&id, sizeof id), (gpointer) label);
  return label;
}

static RspIdx
model_disk_op_task (RspModel *m, RspIdx op)
{
  return g_array_index (m->disk_ops, RspDiskOp, op).task;
}

static RspIdx
open_sleep (Assembler *a, TidState *ts, guint64 time, RspStackId stack, guint32 prev_state)
{
  RspModel *m = a->m;
  RspSleep s = { 0 };
  s.task = ts->task;
  s.start = s.end = s.defacto_start = time;
  s.prev_run = ts->last_run != RSP_NONE && model_run (m, ts->last_run)->task == ts->task ? ts->last_run : RSP_NONE;
  s.next_run = RSP_NONE;
  s.stack = stack;
  s.prev_state = prev_state;
  s.waker_run = s.disk_op = s.net_op = RSP_NONE;
  /* in a read, write, sync or fault of a file (when the stack says): the
   * file of its latest file event */
  if (ts->file.ino != 0 && time - ts->file_time <= RSP_FILE_VALID_NS
      && (stack == 0 || stack_has_sig (a, stack, RSP_SIG_FILE_IO)))
    s.file = file_label (a, ts->file);
  s.runnable_at = G_MAXUINT64;
  if ((prev_state & TASK_STATE_MASK) == 0)
    {
      /* still runnable: preempted (R / R+) */
      s.reason = RSP_WAKE_PREEMPTION;
      s.runnable_at = time;
    }
  RspIdx idx = m->sleeps->len;
  rsp_model_append_reserved (m->sleeps, m->switch_room, &s, sizeof s);
  if (s.prev_run != RSP_NONE)
    model_run (m, s.prev_run)->next_sleep = idx;
  ts->open_sleep = idx;
  /* A wake-up recorded before the switch-out woke nothing, unless it came
   * just before a blocking switch-out: the waker's CPU can trace
   * sched_waking while the sleeper is still inside schedule() on its own
   * CPU, before its sched_switch is traced (the kernel then holds the
   * wake-up until the switch is done).  That wake-up ends this sleep; a
   * later one replaces it. */
  if (ts->pending.valid && (prev_state & TASK_STATE_MASK) != 0 && ts->pending.time <= time
      && time - ts->pending.time <= RSP_EARLY_WAKE_WINDOW_NS)
    ts->pending.early = TRUE;
  else
    ts->pending.valid = FALSE;
  return idx;
}

/* rsp_kernel_sig, cached per interned name: it runs for every frame of
 * every wake-up. */
static RspKernelSig
frame_sig (Assembler *a, const char *symbol)
{
  if (symbol == NULL)
    return RSP_SIG_NONE;
  /* a direct-mapped slot first: the hash table's lookup was a twentieth
   * of the model's build of a 300 MB perf.data */
  guint k = (guint) ((((guint64) (guintptr) symbol >> 3) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15))
                     >> (64 - SIG_CACHE_BITS));
  if (a->sig_cache[k].symbol == symbol)
    return a->sig_cache[k].sig;
  gpointer cached = g_hash_table_lookup (a->sigs, symbol);
  RspKernelSig sig;
  if (cached != NULL)
    sig = (RspKernelSig) (GPOINTER_TO_INT (cached) - 1);
  else
    {
      sig = rsp_kernel_sig (symbol);
      g_hash_table_insert (a->sigs, (gpointer) symbol, GINT_TO_POINTER (sig + 1));
    }
  a->sig_cache[k].symbol = symbol;
  a->sig_cache[k].sig = sig;
  return sig;
}

static gboolean
stack_has_sig (Assembler *a, RspStackId stack, RspKernelSig sig)
{
  guint n;
  const RspModelFrame *frames = rsp_model_stack_unnamed (a->m, stack, &n);
  for (guint i = 0; i < n; i++)
    if (frames[i].kernel && frame_sig (a, frames[i].symbol) == sig)
      return TRUE;
  return FALSE;
}

static RspIdx
add_link (Assembler *a, RspLinkKind kind, guint64 time, RspIdx from_run, RspIdx from_op, RspIdx to_run)
{
  RspLink l = { .time = time, .kind = kind, .from_run = from_run, .from_op = from_op, .to_run = to_run };
  rsp_model_append_reserved (a->m->links, a->m->switch_room, &l, sizeof l);
  return a->m->links->len - 1;
}

/* OP's completion was not recorded: it completed at T (and, its issue
 * unseen too, it was issued when queued: paper §5.2).  Counted. */
static void
infer_completion_at (RspModel *m, RspDiskOp *op, guint64 t)
{
  op->complete = t;
  op->complete_inferred = TRUE;
  if (op->issue == 0)
    {
      op->issue = op->insert;
      op->issue_inferred = TRUE;
    }
  m->anomalies[RSP_ANOMALY_MISSING_COMPLETION]++;
}

static void infer_completion (Assembler *a, RspIdx idx, guint64 t);

/* When OP entered the block layer: its insert, else (issued directly) its issue. */
static inline guint64
disk_op_began (const RspDiskOp *op)
{
  return op->insert != 0 ? op->insert : op->issue;
}

/* A request in flight during sleep S that is the likeliest to have ended
 * it: the task's own latest one; else, another task's (the flusher's
 * writeback, the journal's commit that an fsync waits for), the one whose
 * recorded completion came last before S ended, else the latest one issued
 * whose completion was not recorded, within a second of S. */
static RspIdx
disk_op_for_sleep (RspModel *m, const RspSleep *s)
{
  RspIdx other_done = RSP_NONE, other_open = RSP_NONE;
  for (guint i = m->disk_ops->len; i > 0 && m->disk_ops->len - i < 4096; i--)
    {
      const RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, i - 1);
      guint64 began = disk_op_began (op);
      if (op->merged || began == 0 || began > s->end || (op->complete != 0 && op->complete < s->start))
        continue;
      if (op->task == s->task)
        return i - 1;
      if (op->complete != 0 && op->complete <= s->end)
        {
          if (other_done == RSP_NONE || op->complete > g_array_index (m->disk_ops, RspDiskOp, other_done).complete)
            other_done = i - 1;
        }
      else if (op->complete == 0 && other_open == RSP_NONE && began + G_GUINT64_CONSTANT (1000000000) >= s->start)
        other_open = i - 1;
    }
  return other_done != RSP_NONE ? other_done : other_open;
}

/* A sleep whose wake-up was not recorded (perf drops those that fire in
 * interrupt context on idle CPUs): what its own stack says it waited for.
 * Waiting for I/O with a disk request in flight (its task's own, else
 * another task's: see disk_op_for_sleep): that request.  In nanosleep: a
 * deliberate sleep.  In poll, select or epoll (not a futex: threads wake
 * those, and perf records such wake-ups): its timeout.  Marks the sleep
 * inferred and counts it; FALSE if the stack says nothing. */
static gboolean
infer_wake (Assembler *a, RspSleep *s)
{
  RspModel *m = a->m;
  guint n;
  const RspModelFrame *f = rsp_model_stack_unnamed (m, s->stack, &n);
  gboolean io = FALSE, poll = FALSE, nanosleep = FALSE;
  for (guint i = 0; i < n && f[i].kernel; i++)
    {
      RspKernelSig sig = frame_sig (a, f[i].symbol);
      nanosleep |= sig == RSP_SIG_NANOSLEEP;
      poll |= sig == RSP_SIG_POLL && f[i].symbol != NULL && !rsp_kernel_is_futex (f[i].symbol);
      io |= rsp_kernel_is_io_wait (f[i].symbol);
    }
  RspIdx op_idx = io ? disk_op_for_sleep (m, s) : RSP_NONE;
  if (op_idx != RSP_NONE)
    {
      RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, op_idx);
      if (op->complete == 0 && op->task == s->task)
        {
          /* its own request: the sleep ended when it completed */
          infer_completion (a, op_idx, s->end);
        }
      s->reason = RSP_WAKE_DISK;
      s->disk_op = op_idx;
      /* another task's completion may have ended another wait of ours: the
       * sleep's own end is the safe bound */
      s->runnable_at = op->complete != 0 && op->task == s->task ? MIN (op->complete, s->end) : s->end;
      s->inferred = TRUE;
      m->anomalies[RSP_ANOMALY_INFERRED_DISK]++;
      return TRUE;
    }
  if (nanosleep || poll)
    {
      s->reason = RSP_WAKE_TIMER;
      s->deliberate = nanosleep;
      s->runnable_at = s->end;
      s->inferred = TRUE;
      m->anomalies[RSP_ANOMALY_INFERRED_TIMER]++;
      return TRUE;
    }
  return FALSE;
}

/* Ends TS's open sleep at TIME, applying what woke it. */
static void
close_sleep (Assembler *a, TidState *ts, guint64 time, RspIdx next_run)
{
  RspModel *m = a->m;
  if (ts->open_sleep == RSP_NONE)
    return;
  RspSleep *s = model_sleep (m, ts->open_sleep);
  s->end = MAX (time, s->start);
  s->next_run = next_run;
  PendingWake *p = &ts->pending;
  if (s->reason != RSP_WAKE_PREEMPTION && s->reason != RSP_WAKE_FORK)
    {
      if (p->valid && (p->time >= s->start || p->early))
        {
          s->reason = p->reason;
          s->runnable_at = MIN (MAX (p->time, s->start), s->end);
          s->waker_run = p->waker_run;
          s->disk_op = p->disk_op;
          s->net_op = p->net_op;
          s->irq_name = p->irq_name;
          if (s->reason == RSP_WAKE_TIMER)
            s->deliberate = stack_has_sig (a, s->stack, RSP_SIG_NANOSLEEP);
        }
      else
        {
          m->anomalies[RSP_ANOMALY_MISSING_WAKEUP]++;
          if (!infer_wake (a, s))
            {
              s->reason = RSP_WAKE_UNKNOWN;
              s->runnable_at = s->end;
            }
        }
    }
  if (s->runnable_at > s->end)
    s->runnable_at = s->end;
  /* the file of a disk wait: its task's (rsp-files.h), else its request's
   * when another task issued it (the flusher's writeback of an inode; its
   * own requests name no more than its stack did); a wait for another task (fsync for the journal
   * thread) keeps its task's for the disk waits found there; others none */
  if (s->reason != RSP_WAKE_DISK && s->reason != RSP_WAKE_RUN)
    s->file = NULL;
  else if (s->file == NULL && s->disk_op != RSP_NONE && model_disk_op_task (m, s->disk_op) != s->task)
    {
      RspFileId op_file = g_array_index (m->disk_ops, RspDiskOp, s->disk_op).file;
      if (op_file.ino != 0)
        s->file = file_label (a, op_file);
    }
  if (next_run != RSP_NONE)
    {
      RspRun *run = model_run (m, next_run);
      run->prev_sleep = ts->open_sleep;
      RspLinkKind kind = RSP_LINK_WAKEUP;
      RspIdx from_run = RSP_NONE, from_op = RSP_NONE;
      switch (s->reason)
        {
        case RSP_WAKE_RUN:
          from_run = s->waker_run;
          break;
        case RSP_WAKE_FORK:
          kind = RSP_LINK_FORK;
          from_run = s->waker_run;
          break;
        case RSP_WAKE_DISK:
          kind = RSP_LINK_DISK;
          from_op = s->disk_op;
          break;
        case RSP_WAKE_NETWORK:
          kind = RSP_LINK_NETWORK;
          from_op = s->net_op;
          break;
        case RSP_WAKE_PREEMPTION:
          kind = RSP_LINK_PREEMPTION;
          from_run = s->prev_run;
          break;
        case RSP_WAKE_IRQ:
        case RSP_WAKE_TIMER:
          kind = RSP_LINK_INTERRUPT;
          from_run = s->prev_run;
          break;
        case RSP_WAKE_UNKNOWN:
          kind = RSP_LINK_WAKEUP;
          break;
        }
      if (from_run != RSP_NONE || from_op != RSP_NONE)
        run->wake_link = add_link (a, kind, s->runnable_at, from_run, from_op, next_run);
    }
  ts->open_sleep = RSP_NONE;
  ts->pending.valid = FALSE;
}

/* ------------------------------------------------------------------ scheduler */

/* When a task whose switch-in was lost (docs/MODEL.md, "Missing events are normal") started running on
 * CS: not before the CPU's last switch, nor before its own sleep began or
 * it was woken.  Without a recorded wake-up there is no evidence it ran
 * before T, so the run starts at T rather than swallowing the sleep. */
static guint64
inferred_start (Assembler *a, TidState *ts, const CpuState *cs, guint64 t)
{
  RspModel *m = a->m;
  guint64 since = cs->last_switch > 0 ? cs->last_switch : m->start_time;
  if (ts->open_sleep != RSP_NONE)
    {
      const RspSleep *s = model_sleep (m, ts->open_sleep);
      since = MAX (since, s->start);
      if (ts->pending.valid)
        since = MAX (since, ts->pending.time);
      else if (s->reason != RSP_WAKE_PREEMPTION && s->reason != RSP_WAKE_FORK)
        since = t;
    }
  if (ts->open_run != RSP_NONE)
    since = MAX (since, model_run (m, ts->open_run)->start);
  return MIN (since, t);
}

/* TS runs on CPU at T although no switch-in said so: close what the CPU
 * was running (its switch-out was lost too), end TS's sleep or its run on
 * another CPU, and open an inferred run. */
static RspIdx
infer_run (Assembler *a, TidState *ts, gint32 tid, gint32 cpu, guint64 t)
{
  RspModel *m = a->m;
  CpuState *cs = cpu_state (a, cpu);
  if (cs->tid > 0 && cs->tid != tid)
    {
      TidState *other = tid_state (a, cs->tid, t);
      if (other->open_run != RSP_NONE && model_run (m, other->open_run)->cpu == cpu)
        {
          close_run (a, other, t);
          open_sleep (a, other, t, 0, 1);
          m->anomalies[RSP_ANOMALY_MISSING_SWITCH_OUT]++;
        }
    }
  gboolean at_start = cs->last_switch == 0 && ts->open_sleep == RSP_NONE && ts->open_run == RSP_NONE;
  guint64 since = inferred_start (a, ts, cs, t);
  if (ts->open_run != RSP_NONE)
    close_run (a, ts, since);
  RspIdx run = open_run (a, ts, cpu, since, at_start ? RSP_RUN_START_RECORDING : RSP_RUN_START_INFERRED);
  close_sleep (a, ts, since, run);
  cs->tid = tid;
  cs->run = run;
  cs->last_switch = since;
  if (!at_start)
    m->anomalies[RSP_ANOMALY_MISSING_SWITCH_IN]++;
  return run;
}

/* An event in TID's context on CPU proves TID runs there now.  Samples
 * arriving just after a switch-out (RSP_SAMPLE_GRACE_NS) are not proof. */
static void
ensure_running (Assembler *a, gint32 tid, gint32 cpu, guint64 t)
{
  RspModel *m = a->m;
  CpuState *cs = cpu_state (a, cpu);
  if (cs == NULL || tid <= 0)
    return;
  TidState *ts = tid_state (a, tid, t);
  if (ts->open_run != RSP_NONE && model_run (m, ts->open_run)->cpu == cpu)
    return;
  if (ts->open_run == RSP_NONE && ts->last_run != RSP_NONE)
    {
      const RspRun *last = model_run (m, ts->last_run);
      if (last->cpu == cpu && t - MIN (t, last->end) <= RSP_SAMPLE_GRACE_NS)
        return;
    }
  infer_run (a, ts, tid, cpu, t);
}

static void
handle_switch (Assembler *a, const RspModelEvent *ev)
{
  RspModel *m = a->m;
  CpuState *cs = cpu_state (a, ev->cpu);
  if (cs == NULL)
    return;
  gint32 prev = ev->u.sw.prev_tid;
  gint32 next = ev->u.sw.next_tid;
  guint32 prev_state = ev->u.sw.prev_state;
  guint64 t = ev->time;
  RspIdx prev_closed_run = RSP_NONE, prev_sleep = RSP_NONE;

  /* A lost switch-out: the previous task on this CPU may never have switched out. */
  if (cs->tid > 0 && cs->tid != prev)
    {
      TidState *lost = tid_state (a, cs->tid, t);
      if (lost->open_run != RSP_NONE && model_run (m, lost->open_run)->cpu == ev->cpu)
        {
          close_run (a, lost, t);
          open_sleep (a, lost, t, 0, 1);
          m->anomalies[RSP_ANOMALY_MISSING_SWITCH_OUT]++;
        }
    }

  if (prev > 0)
    {
      TidState *ts = tid_state (a, prev, t);
      /* it ran here without a recorded switch-in */
      if (ts->open_run == RSP_NONE || model_run (m, ts->open_run)->cpu != ev->cpu)
        infer_run (a, ts, prev, ev->cpu, t);
      prev_closed_run = ts->open_run;
      close_run (a, ts, t);
      if (prev_state & TASK_DEAD_STATES)
        model_task (m, ts->task)->exited = TRUE;
      else
        prev_sleep = open_sleep (a, ts, t, event_stack (a, ev), prev_state);
    }

  cs->tid = next;
  cs->last_switch = t;
  cs->run = RSP_NONE;
  if (next > 0)
    {
      TidState *ts = tid_state (a, next, t);
      if (ts->open_run != RSP_NONE)
        {
          /* still "running" elsewhere: that CPU lost its switch-out */
          close_run (a, ts, t);
          m->anomalies[RSP_ANOMALY_MISSING_SWITCH_OUT]++;
        }
      RspIdx run = open_run (a, ts, ev->cpu, t, RSP_RUN_START_SWITCH);
      close_sleep (a, ts, t, run);
      cs->run = run;
      /* A task that preempts the one that just woke it runs on its behalf:
       * the preemption gets it as its child (pass-style hand-offs). */
      RspIdx woken_from = model_run (m, run)->prev_sleep;
      if (prev_sleep != RSP_NONE && prev_closed_run != RSP_NONE && woken_from != RSP_NONE
          && model_sleep (m, prev_sleep)->reason == RSP_WAKE_PREEMPTION
          && (model_sleep (m, woken_from)->reason == RSP_WAKE_RUN || model_sleep (m, woken_from)->reason == RSP_WAKE_FORK)
          && model_sleep (m, woken_from)->waker_run == prev_closed_run)
        model_sleep (m, prev_sleep)->waker_run = run;
    }
}

typedef enum {
  BRACKET_NONE,
  BRACKET_HARDIRQ,
  BRACKET_SOFTIRQ,
  BRACKET_HRTIMER,
} Bracket;

static void
bracket_enter (guint64 *at, gint *depth, guint64 t)
{
  at[MIN (*depth, BRACKET_DEPTH - 1)] = t;
  (*depth)++;
}

static guint64
bracket_since (const guint64 *at, gint depth)
{
  return at[MIN (depth, BRACKET_DEPTH) - 1];
}

/* A bracket open this long lost its exit (perf or the instance dropped
 * it): handlers and softirqs last microseconds (a softirq pass gives up
 * the CPU after 2 ms), a timer's callback as long.  Left open, every
 * stackless wake-up on the CPU after it would be read as its. */
#define BRACKET_STALE_NS (100 * 1000 * 1000)

static void
bracket_expire (RspModel *m, guint64 *at, gint *depth, guint64 t)
{
  while (*depth > 0 && t - MIN (t, bracket_since (at, *depth)) > BRACKET_STALE_NS)
    {
      (*depth)--;
      m->anomalies[RSP_ANOMALY_MISSING_IRQ_EXIT]++;
    }
}

/* Closes CS's brackets whose exit was lost, as of T. */
static void
brackets_expire (RspModel *m, CpuState *cs, guint64 t)
{
  bracket_expire (m, cs->hardirq_at, &cs->hardirq_depth, t);
  bracket_expire (m, cs->softirq_at, &cs->softirq_depth, t);
  bracket_expire (m, cs->hrtimer_at, &cs->hrtimer_depth, t);
}

/* CS's innermost open bracket: the one entered last; at the same time the
 * timer's, then the softirq's (a timer's callback runs inside the timer's
 * interrupt or softirq). */
static Bracket
innermost_bracket (const CpuState *cs)
{
  Bracket inner = BRACKET_NONE;
  guint64 at = 0;
  if (cs->hardirq_depth > 0)
    inner = BRACKET_HARDIRQ, at = bracket_since (cs->hardirq_at, cs->hardirq_depth);
  if (cs->softirq_depth > 0 && (inner == BRACKET_NONE || bracket_since (cs->softirq_at, cs->softirq_depth) >= at))
    inner = BRACKET_SOFTIRQ, at = bracket_since (cs->softirq_at, cs->softirq_depth);
  if (cs->hrtimer_depth > 0 && (inner == BRACKET_NONE || bracket_since (cs->hrtimer_at, cs->hrtimer_depth) >= at))
    inner = BRACKET_HRTIMER;
  return inner;
}

/* Finds the socket whose data-ready fired on this CPU just before. */
static guint64
recent_data_ready (CpuState *cs, guint64 t)
{
  if (cs->data_ready_sk != 0 && t - cs->data_ready_time <= RSP_IRQ_WAKE_WINDOW_NS)
    return cs->data_ready_sk;
  return 0;
}

static RspIdx
add_net_op (Assembler *a, guint64 sk, TidState *target, guint64 ready, gboolean loopback)
{
  RspNetOp op = { 0 };
  op.sk = sk;
  op.task = target->task;
  op.ready = ready;
  op.send = target->last_send_sk == sk ? target->last_send_time : 0;
  op.endpoint = g_hash_table_lookup (a->sock_endpoints, &sk);
  op.loopback_peer = loopback;
  g_array_append_val (a->m->net_ops, op);
  return a->m->net_ops->len - 1;
}

/* The disk operation a completion-context wake-up belongs to: the one that
 * completed on this CPU just before; else the latest one the woken task
 * issued that completed since its wait began (one that completed before
 * cannot have ended it); else one it issued whose completion was not
 * recorded, queued at most a second before the wait began. */
static RspIdx
disk_op_for_wake (Assembler *a, CpuState *cs, TidState *target, guint64 t)
{
  RspModel *m = a->m;
  if (cs->last_completed_op != RSP_NONE && t - cs->last_complete_time <= RSP_IRQ_WAKE_WINDOW_NS)
    return cs->last_completed_op;
  guint64 since = target->open_sleep != RSP_NONE ? model_sleep (m, target->open_sleep)->start : 0;
  RspIdx best = RSP_NONE;
  for (guint i = m->disk_ops->len; i > 0 && m->disk_ops->len - i < 4096; i--)
    {
      RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, i - 1);
      if (op->task != target->task || op->merged)
        continue;
      if (op->complete != 0 && op->complete <= t && op->complete >= since)
        return i - 1;
      /* in flight: one it issued for this wait (at most a second before it
       * began), not one whose completion was lost long before */
      guint64 began = disk_op_began (op);
      if (op->complete == 0 && best == RSP_NONE && began <= t
          && began + G_GUINT64_CONSTANT (1000000000) >= (since != 0 ? since : t))
        best = i - 1;
    }
  if (best != RSP_NONE)
    infer_completion (a, best, t);
  return best;
}

/* Whether the softirq EV enters runs at the exit of an interrupt (or on an
 * idle CPU) rather than from the current task's own code — the receive
 * half of a send over loopback runs so, in the sender, from
 * local_bh_enable.  At an interrupt's exit the softirqs follow the
 * handler's end, and each other in ascending order of their vectors,
 * within RSP_IRQ_EXIT_GAP_NS (measured: 0.2-0.6 us; a task's own softirq
 * after an interrupt that came in its run: 0.5 us after a BLOCK softirq,
 * 4 us and more).  It decides a stackless network wake-up: a local
 * peer's run, or the network. */
static gboolean
softirq_at_irq_exit (const CpuState *cs, const RspModelEvent *ev)
{
  if (ev->tid <= 0 || cs->hardirq_depth > 0)
    return TRUE;
  /* one pass at an interrupt's exit runs the pending vectors in ascending
   * order: a lower or equal one after a softirq was raised anew, by the
   * task (a send right after the interrupt) */
  return cs->irq_tail_time != 0 && ev->time >= cs->irq_tail_time && ev->time - cs->irq_tail_time <= RSP_IRQ_EXIT_GAP_NS
         && (cs->irq_tail_vec < 0 || (gint) ev->u.softirq.vec > cs->irq_tail_vec);
}

/* ksoftirqd runs softirqs for the interrupts that left them pending: not
 * its own sends. */
static gboolean
is_ksoftirqd (Assembler *a, gint32 tid)
{
  TidState *ts = rsp_tid_map_lookup (a->tid_index, tid);
  const char *comm = ts != NULL ? model_task (a->m, ts->task)->comm : NULL;
  return comm != NULL && g_str_has_prefix (comm, "ksoftirqd/");
}

static void
handle_waking (Assembler *a, const RspModelEvent *ev, gboolean is_new)
{
  RspModel *m = a->m;
  CpuState *cs = cpu_state (a, ev->cpu);
  gint32 target_tid = ev->u.wake.tid;
  if (cs == NULL || target_tid <= 0)
    return;
  brackets_expire (m, cs, ev->time);
  gboolean first_seen = rsp_tid_map_lookup (a->tid_index, target_tid) == NULL;
  TidState *target = tid_state (a, target_tid, ev->time);
  /* A task seen first being woken slept since the recording began: its
   * wake-up ends that sleep (a worker woken by a completion is then the
   * completion's, for whoever it wakes in turn). */
  if (first_seen && !is_new)
    open_sleep (a, target, MIN (m->start_time, ev->time), 0, 1);
  if (target->pending.valid && !target->pending.early)
    return; /* the first wake-up is the one that made it runnable */

  PendingWake p = { TRUE, FALSE, ev->time, RSP_WAKE_UNKNOWN, RSP_NONE, RSP_NONE, RSP_NONE, NULL };
  RspIdx waker_run = RSP_NONE;
  if (ev->tid > 0)
    {
      TidState *waker = rsp_tid_map_lookup (a->tid_index, ev->tid);
      if (waker != NULL && waker->open_run != RSP_NONE)
        waker_run = waker->open_run;
    }

  if (is_new)
    {
      p.reason = RSP_WAKE_FORK;
      p.waker_run = waker_run;
      target->pending = p;
      /* the fork record came before the forker's run was known (its
       * switch-in was missing and is inferred from this event) */
      if (target->open_sleep != RSP_NONE && waker_run != RSP_NONE)
        {
          RspSleep *fs = model_sleep (m, target->open_sleep);
          if (fs->reason == RSP_WAKE_FORK && fs->waker_run == RSP_NONE
              && model_run (m, waker_run)->start <= fs->start)
            fs->waker_run = waker_run;
        }
      return;
    }

  /* Read the waker's stack, innermost first: the first meaningful frame
   * says which context woke the task. */
  RspKernelSig context = RSP_SIG_NONE;
  gboolean sender_below = FALSE;
  gboolean interrupt_below = FALSE;
  for (guint i = 0; i < ev->n_frames; i++)
    {
      if (!ev->frames[i].kernel)
        break;
      RspKernelSig sig = frame_sig (a, ev->frames[i].symbol);
      if (context == RSP_SIG_NONE
          && (sig == RSP_SIG_TIMER || sig == RSP_SIG_DISK || sig == RSP_SIG_NET_RX || sig == RSP_SIG_HARDIRQ
              || sig == RSP_SIG_SOFTIRQ))
        context = sig;
      else if (context == RSP_SIG_NET_RX && sig == RSP_SIG_SEND)
        sender_below = TRUE;
      else if (context == RSP_SIG_NET_RX && (sig == RSP_SIG_SOFTIRQ || sig == RSP_SIG_HARDIRQ))
        interrupt_below = TRUE;
    }
  /* receive processing straight from a syscall, with no interrupt: a
   * local peer delivered it */
  if (context == RSP_SIG_NET_RX && !interrupt_below && waker_run != RSP_NONE)
    sender_below = TRUE;
  /* Without a stack, the innermost of the CPU's interrupt brackets tells:
   * a timer's expiry callback inside the timer interrupt or softirq is the
   * timer's, a disk's interrupt taken inside a softirq the disk's. */
  if (context == RSP_SIG_NONE && ev->n_frames == 0)
    {
      Bracket inner = innermost_bracket (cs);
      if (inner == BRACKET_HRTIMER)
        context = RSP_SIG_TIMER;
      else if (inner == BRACKET_SOFTIRQ)
        {
          context = cs->softirq_vec == SOFTIRQ_NET_RX ? RSP_SIG_NET_RX
                    : cs->softirq_vec == SOFTIRQ_BLOCK ? RSP_SIG_DISK
                    : (cs->softirq_vec == SOFTIRQ_TIMER || cs->softirq_vec == SOFTIRQ_HRTIMER) ? RSP_SIG_TIMER
                    : RSP_SIG_SOFTIRQ;
          /* receive processing run by the waker's own code: a local send */
          if (context == RSP_SIG_NET_RX && !cs->softirq_at_irq_exit && !is_ksoftirqd (a, ev->tid))
            sender_below = TRUE;
        }
      else if (inner == BRACKET_HARDIRQ)
        context = rsp_irq_name_is_disk (cs->hardirq_name) ? RSP_SIG_DISK : RSP_SIG_HARDIRQ;
      /* no bracket recorded: a request that completed on this CPU just
       * before is what the interrupt was for (a completion sent to this
       * CPU by an inter-processor interrupt has no handler bracket) — on
       * an idle CPU, or inside the run of the task that was interrupted,
       * at once.  A task that ran only after the completion (the one it
       * woke, say) wakes others from its own code. */
      else if (cs->last_completed_op != RSP_NONE && ev->time - cs->last_complete_time <= RSP_IRQ_WAKE_WINDOW_NS
               && (waker_run == RSP_NONE
                   || (ev->time - cs->last_complete_time <= RSP_IPI_COMPLETION_NS
                       && model_run (m, waker_run)->start <= cs->last_complete_time)))
        context = RSP_SIG_DISK;
    }
  /* a hardware interrupt of a disk controller is a disk completion */
  if (context == RSP_SIG_HARDIRQ && cs->hardirq_depth > 0 && rsp_irq_name_is_disk (cs->hardirq_name))
    context = RSP_SIG_DISK;

  switch (context)
    {
    case RSP_SIG_TIMER:
      p.reason = RSP_WAKE_TIMER;
      break;
    case RSP_SIG_DISK:
      p.reason = RSP_WAKE_DISK;
      p.disk_op = disk_op_for_wake (a, cs, target, ev->time);
      break;
    case RSP_SIG_NET_RX:
      {
        guint64 sk = recent_data_ready (cs, ev->time);
        if (sender_below && waker_run != RSP_NONE)
          {
            /* loopback: the sender's own run delivered the data */
            p.reason = RSP_WAKE_RUN;
            p.waker_run = waker_run;
          }
        else
          p.reason = RSP_WAKE_NETWORK;
        p.net_op = add_net_op (a, sk, target, ev->time, p.reason == RSP_WAKE_RUN);
      }
      break;
    case RSP_SIG_HARDIRQ:
    case RSP_SIG_SOFTIRQ:
      p.reason = RSP_WAKE_IRQ;
      p.irq_name = cs->hardirq_depth > 0 && cs->hardirq_name != NULL ? cs->hardirq_name
                   : context == RSP_SIG_SOFTIRQ                       ? "softirq"
                                                                      : "interrupt";
      break;
    default:
      if (waker_run != RSP_NONE)
        {
          p.reason = RSP_WAKE_RUN;
          p.waker_run = waker_run;
        }
      else
        {
          /* the name of a handler that has ended would be a guess */
          p.reason = RSP_WAKE_IRQ;
          p.irq_name = cs->hardirq_depth > 0 && cs->hardirq_name != NULL ? cs->hardirq_name : "interrupt";
        }
      break;
    }
  target->pending = p;
}

static void
handle_fork (Assembler *a, const RspModelEvent *ev)
{
  gint32 parent_tid = ev->u.fork.parent_tid;
  gint32 child_tid = ev->u.fork.child_tid;
  if (child_tid <= 0)
    return;
  TidState *parent = tid_state (a, parent_tid, ev->time);
  TidState *child = rsp_tid_map_lookup (a->tid_index, child_tid);
  const char *comm = ev->u.fork.child_comm;
  RspTask *pt = model_task (a->m, parent->task);
  if (child == NULL)
    {
      child = g_new0 (TidState, 1);
      child->open_run = child->open_sleep = child->last_run = RSP_NONE;
      g_hash_table_insert (a->tids, GINT_TO_POINTER (child_tid), child);
      rsp_tid_map_insert (a->tid_index, child_tid, child);
    }
  /* tgid comes from PERF_RECORD_FORK; until then assume a new process */
  child->task = new_task (a, child_tid, child_tid, comm != NULL ? comm : pt->comm, ev->time, parent->task, 0);
  /* A new task waits for its first run: a "sleep" ended by the fork. */
  RspSleep s = { 0 };
  s.task = child->task;
  s.start = s.end = s.defacto_start = s.runnable_at = ev->time;
  s.prev_run = s.next_run = RSP_NONE;
  s.reason = RSP_WAKE_FORK;
  s.waker_run = parent->open_run;
  s.disk_op = s.net_op = RSP_NONE;
  g_array_append_val (a->m->sleeps, s);
  child->open_sleep = a->m->sleeps->len - 1;
  child->pending.valid = FALSE;
}

static void
handle_exec (Assembler *a, const RspModelEvent *ev)
{
  RspModel *m = a->m;
  gint32 tid = ev->tid;
  if (tid <= 0)
    return;
  TidState *ts = tid_state (a, tid, ev->time);
  RspTask *old = model_task (m, ts->task);
  const char *filename = ev->u.exec.filename;
  g_autofree char *base = filename != NULL ? g_path_get_basename (filename) : NULL;
  RspIdx old_run = ts->open_run;
  gint32 cpu = old_run != RSP_NONE ? model_run (m, old_run)->cpu : ev->cpu;
  close_run (a, ts, ev->time);
  old->exited = TRUE;
  RspIdx old_task = ts->task;
  const char *comm = ts->exec_comm != NULL ? ts->exec_comm : base != NULL ? base : old->comm;
  ts->exec_comm = NULL;
  ts->task = new_task (a, tid, old->pid, comm, ev->time, old_task, model_task (m, old_task)->generation + 1);
  ts->last_run = RSP_NONE;
  RspIdx run = open_run (a, ts, cpu, ev->time, RSP_RUN_START_EXEC);
  if (old_run != RSP_NONE)
    model_run (m, run)->wake_link = add_link (a, RSP_LINK_EXEC, ev->time, old_run, RSP_NONE, run);
  CpuState *cs = cpu_state (a, cpu);
  if (cs != NULL && cs->tid == tid)
    cs->run = run;
}

/* ------------------------------------------------------------------ disk */

/* A request in flight: its device and sector, both whole (the device's
 * 32 bits of major and minor and a sector of up to 64 bits do not fit in
 * one 64-bit key: 8:0 and 259:0 took the same keys). */
typedef struct {
  guint32 dev;
  guint64 sector;
} DiskKey;

static guint64
disk_key_slot (const Assembler *a, DiskKey key)
{
  guint64 h = (key.sector ^ ((guint64) key.dev << 32) ^ key.dev) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (h >> 20) & a->inflight_mask;
}

static DiskKey
disk_key (const RspModelEvent *ev)
{
  return (DiskKey){ ev->u.rq.dev, ev->u.rq.sector };
}

/* The slot of KEY: its own, or the empty one where it would go. */
static guint64
inflight_slot (const Assembler *a, DiskKey key)
{
  guint64 k = disk_key_slot (a, key);
  for (; a->inflight[k].op != 0; k = (k + 1) & a->inflight_mask)
    if (a->inflight[k].sector == key.sector && a->inflight[k].dev == key.dev)
      break;
  return k;
}

static RspIdx
inflight_lookup (Assembler *a, DiskKey key)
{
  guint32 op = a->inflight[inflight_slot (a, key)].op;
  return op != 0 ? op - 1 : RSP_NONE;
}

static void inflight_set (Assembler *a, DiskKey key, RspIdx idx);

static void
inflight_grow (Assembler *a)
{
  InflightSlot *old = a->inflight;
  guint64 old_n = a->inflight_mask + 1;
  a->inflight_mask = old_n * 2 - 1;
  a->inflight = g_new0 (InflightSlot, a->inflight_mask + 1);
  a->n_inflight = 0;
  for (guint64 i = 0; i < old_n; i++)
    if (old[i].op != 0)
      inflight_set (a, (DiskKey){ old[i].dev, old[i].sector }, old[i].op - 1);
  g_free (old);
}

/* IDX is the oldest in flight at KEY. */
static void
inflight_set (Assembler *a, DiskKey key, RspIdx idx)
{
  if (2 * (a->n_inflight + 1) > a->inflight_mask + 1)
    inflight_grow (a);
  guint64 k = inflight_slot (a, key);
  if (a->inflight[k].op == 0)
    a->n_inflight++;
  a->inflight[k] = (InflightSlot){ key.sector, key.dev, idx + 1 };
}

/* None in flight at KEY any more: its slot is emptied, and those after it
 * in its run that would not be found past the hole move back into it. */
static void
inflight_clear (Assembler *a, DiskKey key)
{
  guint64 hole = inflight_slot (a, key);
  if (a->inflight[hole].op == 0)
    return;
  a->n_inflight--;
  for (guint64 j = (hole + 1) & a->inflight_mask; a->inflight[j].op != 0; j = (j + 1) & a->inflight_mask)
    {
      guint64 home = disk_key_slot (a, (DiskKey){ a->inflight[j].dev, a->inflight[j].sector });
      /* J's entry stays where it is when its home lies cyclically in (HOLE, J] */
      if (((j - home) & a->inflight_mask) < ((j - hole) & a->inflight_mask))
        continue;
      a->inflight[hole] = a->inflight[j];
      hole = j;
    }
  a->inflight[hole].op = 0;
}

static OpLink *
op_link (Assembler *a, RspIdx idx)
{
  return &g_array_index (a->op_links, OpLink, idx);
}

/* The request after IDX in flight at its key, or RSP_NONE. */
static RspIdx
later_at_key (Assembler *a, RspIdx idx)
{
  return op_link (a, idx)->later;
}

/* IDX, in flight at KEY (the oldest there or a later one), is not any
 * more: the one after it takes its place.  Nothing if it is not in flight. */
static void
inflight_remove (Assembler *a, DiskKey key, RspIdx idx)
{
  RspIdx prev = RSP_NONE, i = inflight_lookup (a, key);
  for (; i != RSP_NONE && i != idx; i = later_at_key (a, i))
    prev = i;
  if (i == RSP_NONE)
    return;
  RspIdx next = later_at_key (a, idx);
  op_link (a, idx)->later = RSP_NONE;
  op_link (a, idx)->requeued = FALSE;
  if (prev != RSP_NONE)
    op_link (a, prev)->later = next;
  else if (next != RSP_NONE)
    inflight_set (a, key, next);
  else
    inflight_clear (a, key);
}

/* The request IDX completed at T, unrecorded (infer_completion_at()): it
 * is in flight no more, so that a later issue at its sector is another
 * request (before, one without requeues recorded moved its issue past
 * its inferred completion) and a later completion there is not its. */
static void
infer_completion (Assembler *a, RspIdx idx, guint64 t)
{
  RspDiskOp *op = &g_array_index (a->m->disk_ops, RspDiskOp, idx);
  infer_completion_at (a->m, op, t);
  inflight_remove (a, (DiskKey){ op->dev, op->sector }, idx);
}

/* A new request at KEY: the only one in flight there, or (BEHIND) the
 * latest of those in flight there, completed after them. */
static RspIdx
new_disk_op (Assembler *a, const RspModelEvent *ev, DiskKey key, gboolean behind)
{
  RspDiskOp op = { 0 };
  op.dev = ev->u.rq.dev;
  op.sector = ev->u.rq.sector;
  op.nr_sector = ev->u.rq.nr_sector;
  const char *rwbs = ev->u.rq.rwbs;
  if (rwbs != NULL)
    g_strlcpy (op.rwbs, rwbs, sizeof op.rwbs);
  op.task = RSP_NONE;
  if (ev->tid > 0)
    {
      TidState *ts = tid_state (a, ev->tid, ev->time);
      op.task = ts->task;
      /* a flusher's request belongs to the inode it writes back, for a while */
      if (ts->file.ino != 0 && ev->time - ts->file_time <= RSP_FILE_VALID_NS)
        op.file = ts->file;
    }
  g_array_append_val (a->m->disk_ops, op);
  RspIdx idx = a->m->disk_ops->len - 1;
  OpLink link = { RSP_NONE, FALSE };
  g_array_append_val (a->op_links, link);
  RspIdx last = behind ? inflight_lookup (a, key) : RSP_NONE;
  if (last == RSP_NONE)
    {
      inflight_set (a, key, idx);
      return idx;
    }
  for (RspIdx next; (next = later_at_key (a, last)) != RSP_NONE;)
    last = next;
  op_link (a, last)->later = idx;
  return idx;
}

static void
handle_disk (Assembler *a, const RspModelEvent *ev)
{
  RspModel *m = a->m;
  DiskKey key = disk_key (ev);
  RspIdx idx = inflight_lookup (a, key);
  switch (ev->kind)
    {
    case RSP_MEV_RQ_INSERT:
      if (idx != RSP_NONE && op_link (a, idx)->requeued)
        return; /* a requeued request put back in the queue: queued since its first insert */
      for (RspIdx old; (old = inflight_lookup (a, key)) != RSP_NONE;)
        {
          /* the same sector queued again (requeued unrecorded, or its
           * completion lost): an issued request ended by now; one never
           * issued is left to infer_merges(), which counts it if it infers
           * its merge (counted here too, it was counted twice) */
          RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, old);
          if (op->issue != 0)
            infer_completion_at (m, op, ev->time);
          inflight_remove (a, key, old);
        }
      idx = new_disk_op (a, ev, key, FALSE);
      g_array_index (m->disk_ops, RspDiskOp, idx).insert = ev->time;
      break;
    case RSP_MEV_RQ_ISSUE:
      {
        /* the oldest at its sector not issued (queued, or requeued) */
        RspIdx target = RSP_NONE;
        for (RspIdx i = idx; i != RSP_NONE && target == RSP_NONE; i = later_at_key (a, i))
          if (g_array_index (m->disk_ops, RspDiskOp, i).issue == 0)
            target = i;
        /* without requeues recorded, an issue again is the same request
         * dispatched again (the device was busy): its issue moves */
        if (target == RSP_NONE && idx != RSP_NONE && !a->requeues_recorded)
          target = idx;
        if (target == RSP_NONE)
          {
            /* issued directly (no I/O scheduler, or a flush: no insert):
             * no queue time.  Issued while another at its sector is in
             * flight, not requeued (that is recorded): another request (two
             * flushes on two hardware queues), completed after it */
            target = new_disk_op (a, ev, key, TRUE);
            g_array_index (m->disk_ops, RspDiskOp, target).insert = ev->time;
          }
        op_link (a, target)->requeued = FALSE;
        g_array_index (m->disk_ops, RspDiskOp, target).issue = ev->time;
      }
      break;
    case RSP_MEV_RQ_REQUEUE:
      {
        /* the device did not take it: queued again until its next issue
         * (the latest issued at its sector) */
        RspIdx last = RSP_NONE;
        for (RspIdx i = idx; i != RSP_NONE; i = later_at_key (a, i))
          if (g_array_index (m->disk_ops, RspDiskOp, i).issue != 0)
            last = i;
        if (last == RSP_NONE)
          return;
        RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, last);
        op->issue = 0;
        op->issue_inferred = FALSE;
        op_link (a, last)->requeued = TRUE;
      }
      break;
    case RSP_MEV_RQ_COMPLETE:
      {
        if (idx == RSP_NONE)
          return; /* completed a request issued before the recording */
        RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, idx);
        if (op->issue == 0)
          {
            /* paper §5.2: assume it was issued as soon as it was queued */
            op->issue = op->insert;
            op->issue_inferred = TRUE;
            m->anomalies[RSP_ANOMALY_MISSING_ISSUE]++;
          }
        op->complete = ev->time;
        inflight_remove (a, key, idx);
        CpuState *cs = cpu_state (a, ev->cpu);
        if (cs != NULL)
          {
            cs->last_completed_op = idx;
            cs->last_complete_time = ev->time;
          }
      }
      break;
    case RSP_MEV_RQ_MERGE:
      {
        /* a queued request taken into another (the one ahead of it on the
         * disk): it is never issued nor completed, and its data is served
         * by that one.  Queued until now, then gone. */
        if (idx == RSP_NONE)
          return; /* queued before the recording */
        RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, idx);
        if (op->issue != 0)
          return; /* not the one merged: an issued request is never merged */
        op->merged = TRUE;
        op->complete = ev->time;
        inflight_remove (a, key, idx);
      }
      break;
    default:
      break;
    }
}

/* ------------------------------------------------------------------ network */

#define FIB_SEND_WINDOW_NS (200 * 1000) /* a route lookup this close before a send was for it */

/* "a.b.c.d:port", interned once per address and port (every connection's
 * state changes and route lookups name one: formatting each was a twentieth
 * of a report of 300 HTTP requests). */
static const char *
ipv4_endpoint (Assembler *a, guint32 addr_in_memory, guint16 port)
{
  /* the key is the pointer itself: 48 bits of address and port (where a
   * pointer has fewer, each is formatted anew) */
  gboolean cached = sizeof (gpointer) >= 8;
  gpointer key = GSIZE_TO_POINTER (((guint64) addr_in_memory << 16 | port) + 1);
  const char *label = cached ? g_hash_table_lookup (a->endpoints, key) : NULL;
  if (label != NULL)
    return label;
  char text[64];
  /* the address bytes are in network order: the first byte comes first */
  g_snprintf (text, sizeof text, "%u.%u.%u.%u:%u", addr_in_memory & 0xff, (addr_in_memory >> 8) & 0xff,
              (addr_in_memory >> 16) & 0xff, (addr_in_memory >> 24) & 0xff, port);
  label = rsp_model_intern (a->m, text);
  if (cached)
    g_hash_table_insert (a->endpoints, key, (gpointer) label);
  return label;
}

#define TCP_PROTOCOL 6

/* A send right after a route lookup by the same thread went to that peer:
 * the only place UDP peers show up without kprobes.  A TCP socket keeps
 * the peer it was connected to (its state change names it, its first
 * send's lookup else); a UDP socket's peer is its latest send's, each
 * sendto() may go elsewhere (and a socket freed and made again at the
 * same address is a new one). */
static void
handle_send (Assembler *a, const RspModelEvent *ev)
{
  if (ev->tid <= 0)
    return;
  TidState *ts = tid_state (a, ev->tid, ev->time);
  ts->last_send_sk = ev->u.sock.sk;
  ts->last_send_time = ev->time;
  if (ts->fib_peer != NULL && ev->time - MIN (ev->time, ts->fib_time) <= FIB_SEND_WINDOW_NS
      && ts->fib_proto == ev->u.sock.protocol
      && (ev->u.sock.protocol != TCP_PROTOCOL || !g_hash_table_contains (a->sock_endpoints, &ev->u.sock.sk)))
    {
      guint64 *k = g_new (guint64, 1);
      *k = ev->u.sock.sk;
      g_hash_table_insert (a->sock_endpoints, k, (gpointer) ts->fib_peer);
    }
}

#define TCP_ESTABLISHED 1
#define TCP_SYN_RECV 3
#define MSG_PEEK_FLAG 2

/* A TCP send or receive with data, for requests on a port (RspSockIo). */
static void
note_sock_io (Assembler *a, const RspModelEvent *ev, gboolean send)
{
  if (ev->tid <= 0 || ev->u.sock.protocol != TCP_PROTOCOL || ev->u.sock.ret <= 0
      || (!send && (ev->u.sock.flags & MSG_PEEK_FLAG)))
    return;
  TidState *ts = tid_state (a, ev->tid, ev->time);
  guint port = GPOINTER_TO_UINT (g_hash_table_lookup (a->sock_ports, &ev->u.sock.sk));
  RspSockIo io = {
    .time = ev->time,
    .task = ts->task,
    .sk = ev->u.sock.sk,
    .bytes = (guint32) ev->u.sock.ret,
    .local_port = (guint16) (port > 0 ? port - 1 : 0),
    .send = send,
  };
  g_array_append_val (a->m->sock_io, io);
}

static void
handle_sock_state (Assembler *a, const RspModelEvent *ev)
{
  if (ev->u.state.protocol == TCP_PROTOCOL
      && (ev->u.state.newstate == TCP_ESTABLISHED || ev->u.state.newstate == TCP_SYN_RECV))
    {
      guint64 *key = g_new (guint64, 1);
      *key = ev->u.state.sk;
      g_hash_table_insert (a->sock_ports, key, GUINT_TO_POINTER ((guint) ev->u.state.sport + 1));
    }
  guint64 sk = ev->u.state.sk;
  guint64 family = ev->u.state.family;
  guint64 dport = ev->u.state.dport;
  char addr[64] = "";
  const char *endpoint;
  if (family == 2)
    endpoint = ipv4_endpoint (a, ev->u.state.daddr, (guint16) dport);
  else
    {
      g_snprintf (addr, sizeof addr, "[ipv6]:%u", (guint) dport);
      endpoint = rsp_model_intern (a->m, addr);
    }
  guint64 *k = g_new (guint64, 1);
  *k = sk;
  g_hash_table_insert (a->sock_endpoints, k, (gpointer) endpoint);
}

/* ------------------------------------------------------------------ samples */

static void
handle_sample (Assembler *a, const RspModelEvent *ev)
{
  RspModel *m = a->m;
  if (ev->tid <= 0)
    return; /* the idle task */
  TidState *ts = rsp_tid_map_lookup (a->tid_index, ev->tid);
  RspIdx run = RSP_NONE;
  if (ts != NULL)
    {
      if (ts->open_run != RSP_NONE)
        run = ts->open_run;
      else if (ts->last_run != RSP_NONE && ev->time - model_run (m, ts->last_run)->end <= RSP_SAMPLE_GRACE_NS)
        run = ts->last_run;
    }
  if (run == RSP_NONE)
    {
      m->anomalies[RSP_ANOMALY_ORPHAN_SAMPLE]++;
      return;
    }
  /* back in user space: the system call its file event was in is over */
  if (ts->file.ino != 0 && ev->n_frames > 0 && !ev->frames[0].kernel)
    ts->file.ino = 0;
  RspModelSample s = { ev->time, run, event_stack (a, ev) };
  g_array_append_val (m->samples, s);
  model_run (m, run)->n_samples++;
}

void
rsp_assembler_set_files (RspAssembler *a, const RspFileTable *files)
{
  a->files = files;
  g_clear_pointer (&a->entry_labels, g_free); /* another table's entries */
}

void
rsp_assembler_set_requeues_recorded (RspAssembler *a, gboolean recorded)
{
  a->requeues_recorded = recorded;
}

void
rsp_assembler_set_chain_stacks (RspAssembler *a, GArray *stacks)
{
  a->chain_stacks = stacks;
}

const RspModelFrame *
rsp_assembler_stack (RspAssembler *a, RspStackId stack, guint *n_frames)
{
  return rsp_model_stack_unnamed (a->m, stack, n_frames);
}

/* ------------------------------------------------------------------ driver */

void
rsp_assembler_note_unread (RspAssembler *a, guint64 n, guint64 first_time, guint64 last_time)
{
  RspModel *m = a->m;
  m->n_events += n;
  if (first_time > 0 && (m->start_time == 0 || first_time < m->start_time))
    m->start_time = first_time;
  if (last_time > m->end_time)
    m->end_time = last_time;
}

void
rsp_assembler_feed (RspAssembler *a, const RspModelEvent *ev)
{
  RspModel *m = a->m;
  /* perf synthesizes COMM and FORK records for existing tasks at time 0 */
  if (ev->kind != RSP_MEV_COMM && ev->kind != RSP_MEV_TASK && ev->kind != RSP_MEV_LOST && ev->time > 0)
    {
      if (m->start_time == 0 || ev->time < m->start_time)
        m->start_time = ev->time;
      if (ev->time > m->end_time)
        m->end_time = ev->time;
    }

  CpuState *cs;
  switch (ev->kind)
    {
    case RSP_MEV_COMM:
      {
        const char *comm = rsp_model_intern (a->m, ev->u.comm.comm);
        TidState *ts = rsp_tid_map_lookup (a->tid_index, ev->u.comm.tid);
        /* an exec's new name belongs to the next generation (handle_exec) */
        if (ts != NULL && ev->u.comm.exec)
          ts->exec_comm = comm;
        else if (ts != NULL)
          model_task (m, ts->task)->comm = comm;
        else
          g_hash_table_insert (a->comms, GINT_TO_POINTER (ev->u.comm.tid), (gpointer) comm);
      }
      return;
    case RSP_MEV_TASK:
      {
        TidState *ts = rsp_tid_map_lookup (a->tid_index, ev->u.task.tid);
        if (ts != NULL)
          model_task (m, ts->task)->pid = ev->u.task.pid;
      }
      return;
    case RSP_MEV_LOST:
      m->lost_events += ev->u.lost.lost;
      m->anomalies[RSP_ANOMALY_LOST_EVENTS] += ev->u.lost.lost;
      return;
    default:
      break;
    }

  m->n_events++;
  /* the sample context also tells the process of a thread */
  if (ev->tid > 0 && ev->pid > 0)
    {
      TidState *ts = rsp_tid_map_lookup (a->tid_index, ev->tid);
      if (ts != NULL)
        model_task (m, ts->task)->pid = ev->pid;
    }

  if (ev->kind != RSP_MEV_SWITCH && ev->kind != RSP_MEV_OTHER && ev->kind != RSP_MEV_FORK)
    ensure_running (a, ev->tid, ev->cpu, ev->time);

  switch (ev->kind)
    {
    case RSP_MEV_SWITCH:
      handle_switch (a, ev);
      break;
    case RSP_MEV_WAKING:
      handle_waking (a, ev, FALSE);
      break;
    case RSP_MEV_WAKEUP_NEW:
      handle_waking (a, ev, TRUE);
      break;
    case RSP_MEV_FORK:
      handle_fork (a, ev);
      break;
    case RSP_MEV_EXEC:
      handle_exec (a, ev);
      break;
    case RSP_MEV_RQ_INSERT:
    case RSP_MEV_RQ_ISSUE:
    case RSP_MEV_RQ_COMPLETE:
    case RSP_MEV_RQ_MERGE:
    case RSP_MEV_RQ_REQUEUE:
      handle_disk (a, ev);
      break;
    case RSP_MEV_IRQ_ENTRY:
      if ((cs = cpu_state (a, ev->cpu)) != NULL)
        {
          brackets_expire (m, cs, ev->time);
          bracket_enter (cs->hardirq_at, &cs->hardirq_depth, ev->time);
          cs->hardirq_name = rsp_model_intern (a->m, ev->u.irq.name);
        }
      break;
    case RSP_MEV_IRQ_EXIT:
      if ((cs = cpu_state (a, ev->cpu)) != NULL)
        {
          if (cs->hardirq_depth > 0)
            cs->hardirq_depth--;
          cs->irq_tail_time = ev->time;
          cs->irq_tail_vec = -1;
        }
      break;
    case RSP_MEV_SOFTIRQ_ENTRY:
      if ((cs = cpu_state (a, ev->cpu)) != NULL)
        {
          brackets_expire (m, cs, ev->time);
          if (cs->softirq_depth == 0)
            cs->softirq_at_irq_exit = softirq_at_irq_exit (cs, ev);
          bracket_enter (cs->softirq_at, &cs->softirq_depth, ev->time);
          cs->softirq_vec = ev->u.softirq.vec;
        }
      break;
    case RSP_MEV_SOFTIRQ_EXIT:
      if ((cs = cpu_state (a, ev->cpu)) != NULL && cs->softirq_depth > 0)
        {
          cs->softirq_depth--;
          /* the interrupt's exit goes on to its next softirq */
          if (cs->softirq_depth == 0 && cs->softirq_at_irq_exit)
            {
              cs->irq_tail_time = ev->time;
              cs->irq_tail_vec = (gint) cs->softirq_vec;
            }
        }
      break;
    case RSP_MEV_HRTIMER_ENTRY:
      if ((cs = cpu_state (a, ev->cpu)) != NULL)
        {
          brackets_expire (m, cs, ev->time);
          bracket_enter (cs->hrtimer_at, &cs->hrtimer_depth, ev->time);
        }
      break;
    case RSP_MEV_HRTIMER_EXIT:
      if ((cs = cpu_state (a, ev->cpu)) != NULL && cs->hrtimer_depth > 0)
        cs->hrtimer_depth--;
      break;
    case RSP_MEV_SEND:
      handle_send (a, ev);
      note_sock_io (a, ev, TRUE);
      break;
    case RSP_MEV_RECV:
      note_sock_io (a, ev, FALSE);
      break;
    case RSP_MEV_PROBE:
      if (ev->tid > 0 && ev->u.probe.function != NULL)
        {
          RspProbeHit hit = {
            .time = ev->time,
            .task = tid_state (a, ev->tid, ev->time)->task,
            .function = rsp_model_intern (a->m, ev->u.probe.function),
            .ret = ev->u.probe.ret,
          };
          g_array_append_val (a->m->probe_hits, hit);
        }
      break;
    case RSP_MEV_FIB:
      if (ev->tid > 0 && (ev->u.fib.proto == 17 || ev->u.fib.proto == 6) && ev->u.fib.dport != 0)
        {
          TidState *ts = tid_state (a, ev->tid, ev->time);
          ts->fib_time = ev->time;
          ts->fib_proto = ev->u.fib.proto;
          ts->fib_peer = ipv4_endpoint (a, ev->u.fib.daddr, ev->u.fib.dport);
        }
      break;
    case RSP_MEV_DATA_READY:
      if ((cs = cpu_state (a, ev->cpu)) != NULL)
        {
          cs->data_ready_sk = ev->u.sock.sk;
          cs->data_ready_time = ev->time;
        }
      break;
    case RSP_MEV_SOCK_STATE:
      handle_sock_state (a, ev);
      break;
    case RSP_MEV_SAMPLE:
      handle_sample (a, ev);
      break;
    case RSP_MEV_FILE:
      if (ev->tid > 0)
        {
          TidState *ts = tid_state (a, ev->tid, ev->time);
          ts->file = (RspFileId){ ev->u.file.dev, ev->u.file.ino };
          ts->file_time = ev->time;
        }
      break;
    default:
      break;
    }
}

/* Requests queued and then neither issued nor completed, where a later
 * request on the same device was issued: merged into another while queued
 * (block_rq_merge was not recorded: a plain perf.data, an older RSP
 * recording) or their events lost.  Either way they were not waiting in
 * the queue to the recording's end, which would make every later disk
 * wait on the device look queued behind them: they count as merged when
 * that request was issued (the latest a merge can have happened), marked
 * inferred.  Requests with nothing issued after them stay queued.  The
 * requests are in the order they were queued (or issued, without a queue),
 * so the earliest issue among those after one on its device is the first
 * after its insert: one pass from the end, keeping that per device. */
typedef struct {
  guint32 dev;
  guint64 first_issue; /* among the requests after the current one; 0: none */
} DeviceIssue;

static void
infer_merges (RspModel *m)
{
  g_autoptr (GArray) devices = g_array_new (FALSE, FALSE, sizeof (DeviceIssue));
  for (guint i = m->disk_ops->len; i > 0; i--)
    {
      RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, i - 1);
      DeviceIssue *d = NULL;
      for (guint k = 0; k < devices->len && d == NULL; k++)
        if (g_array_index (devices, DeviceIssue, k).dev == op->dev)
          d = &g_array_index (devices, DeviceIssue, k);
      if (d == NULL)
        {
          g_array_append_val (devices, ((DeviceIssue){ op->dev, 0 }));
          d = &g_array_index (devices, DeviceIssue, devices->len - 1);
        }
      if (op->issue == 0 && op->complete == 0 && !op->merged && op->insert != 0 && d->first_issue != 0
          && d->first_issue >= op->insert)
        {
          op->merged = TRUE;
          op->complete = d->first_issue;
          op->complete_inferred = TRUE;
          m->anomalies[RSP_ANOMALY_MISSING_COMPLETION]++;
        }
      if (op->issue != 0 && (d->first_issue == 0 || op->issue < d->first_issue))
        d->first_issue = op->issue;
    }
}

/* Run R of a task, after the runs before it (in time): the sleep after it
 * continues the series of timed-out polls of *PREV_SLEEP, the sleep before
 * it, when it is one more of them; *PREV_SLEEP becomes R's next sleep. */
static void
defacto_step (RspModel *m, RspIdx r, RspIdx *prev_sleep)
{
  const RspRun *run = model_run (m, r);
  RspIdx sl = run->next_sleep;
  if (sl == RSP_NONE)
    return;
  RspSleep *s = model_sleep (m, sl);
  if (*prev_sleep != RSP_NONE)
    {
      const RspSleep *p = model_sleep (m, *prev_sleep);
      if (p->reason == RSP_WAKE_TIMER && !p->deliberate && p->stack == s->stack && p->next_run == r
          && run->end - run->start < RSP_POLL_MERGE_GAP_NS)
        s->defacto_start = p->defacto_start;
    }
  *prev_sleep = sl;
}

static void
finish (Assembler *a)
{
  RspModel *m = a->m;
  infer_merges (m);
  /* close what is still open at the end of the recording */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, a->tids);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      TidState *ts = value;
      if (ts->open_run != RSP_NONE)
        close_run (a, ts, m->end_time);
      if (ts->open_sleep != RSP_NONE)
        {
          RspSleep *s = model_sleep (m, ts->open_sleep);
          s->end = MAX (m->end_time, s->start);
          if (s->runnable_at > s->end)
            s->runnable_at = s->end;
        }
    }

  /* de facto starts: consecutive timed-out waits with the same stack,
   * separated by runs shorter than RSP_POLL_MERGE_GAP_NS, are one sleep.
   * Each task's runs in time order: where they lie in the array in that
   * order (nearly always), all tasks in one pass over it, else along the
   * task's chain. */
  guint n_tasks = m->tasks->len;
  g_autofree guint8 *in_order = rsp_model_tasks_in_run_order (m);
  g_autofree RspIdx *prev_sleep = g_new (RspIdx, MAX (n_tasks, 1));
  for (guint ti = 0; ti < n_tasks; ti++)
    prev_sleep[ti] = RSP_NONE;
  for (guint r = 0; r < m->runs->len; r++)
    {
      RspIdx ti = model_run (m, r)->task;
      if (ti < n_tasks && in_order[ti])
        defacto_step (m, r, &prev_sleep[ti]);
    }
  for (guint ti = 0; ti < n_tasks; ti++)
    if (!in_order[ti])
      for (RspIdx r = model_task (m, ti)->first_run; r != RSP_NONE; r = model_run (m, r)->next_run)
        defacto_step (m, r, &prev_sleep[ti]);

  /* samples grouped by run, in time order within a run */
  guint n_runs = m->runs->len;
  g_autofree guint32 *counts = g_new0 (guint32, n_runs + 1);
  for (guint i = 0; i < m->samples->len; i++)
    counts[g_array_index (m->samples, RspModelSample, i).run + 1]++;
  for (guint r = 0; r < n_runs; r++)
    counts[r + 1] += counts[r];
  GArray *sorted = g_array_sized_new (FALSE, FALSE, sizeof (RspModelSample), m->samples->len);
  g_array_set_size (sorted, m->samples->len);
  g_autofree guint32 *fill = g_memdup2 (counts, sizeof (guint32) * (n_runs + 1));
  for (guint i = 0; i < m->samples->len; i++)
    {
      const RspModelSample *s = &g_array_index (m->samples, RspModelSample, i);
      g_array_index (sorted, RspModelSample, fill[s->run]++) = *s;
    }
  g_array_unref (m->samples);
  m->samples = sorted;
  for (guint r = 0; r < n_runs; r++)
    {
      RspRun *run = model_run (m, r);
      run->first_sample = run->n_samples > 0 ? counts[r] : RSP_NONE;
    }
}

RspAssembler *
rsp_assembler_new (const GArray *ignored_pids)
{
  RspAssembler *a = g_new0 (RspAssembler, 1);
  a->m = rsp_model_new ();
  a->tids = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  a->tid_index = rsp_tid_map_new ();
  a->cpus = g_array_new (FALSE, TRUE, sizeof (CpuState));
  a->inflight_mask = 63;
  a->inflight = g_new0 (InflightSlot, a->inflight_mask + 1);
  a->op_links = g_array_new (FALSE, FALSE, sizeof (OpLink));
  a->sock_endpoints = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  a->sock_ports = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  a->ignored_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  a->comms = g_hash_table_new (g_direct_hash, g_direct_equal);
  a->sigs = g_hash_table_new (g_direct_hash, g_direct_equal);
  a->file_labels = g_hash_table_new_full (rsp_file_id_hash, rsp_file_id_equal, g_free, NULL);
  a->endpoints = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; ignored_pids != NULL && i < ignored_pids->len; i++)
    g_hash_table_add (a->ignored_pids, GINT_TO_POINTER (g_array_index (ignored_pids, gint32, i)));
  return a;
}

void
rsp_assembler_reserve (RspAssembler *a, guint64 n_switches)
{
  rsp_model_reserve_switches (a->m, n_switches);
}

void
rsp_assembler_free (RspAssembler *a)
{
  if (a == NULL)
    return;
  g_clear_pointer (&a->m, rsp_model_unref);
  g_hash_table_unref (a->tids);
  rsp_tid_map_free (a->tid_index);
  g_array_unref (a->cpus);
  g_free (a->inflight);
  g_array_unref (a->op_links);
  g_hash_table_unref (a->sock_endpoints);
  g_hash_table_unref (a->sock_ports);
  g_hash_table_unref (a->ignored_pids);
  g_hash_table_unref (a->comms);
  g_hash_table_unref (a->sigs);
  g_hash_table_unref (a->file_labels);
  g_free (a->entry_labels);
  g_hash_table_unref (a->endpoints);
  g_free (a);
}

RspModel *
rsp_assembler_finish (RspAssembler *a)
{
  finish (a);
  rsp_model_compute_frames (a->m);
  RspModel *m = g_steal_pointer (&a->m);
  rsp_assembler_free (a);
  return m;
}
