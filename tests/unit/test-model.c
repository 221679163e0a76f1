/* test-model.c — the model's rules on synthetic event streams: one test per
 * rule of the paper's procedure and per kind of missing event. */
#include <glib.h>

#include "rsp-analysis.h"
#include "rsp-analysis-private.h"
#include "rsp-model-event.h"
#include "rsp-model-private.h"
#include "rsp-recording.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (1000 * MS)

/* ------------------------------------------------------------------ builders */

typedef struct {
  RspAssembler *as;
  RspModelFrame frames[32];
} Stream;

static void
stream_init (Stream *s)
{
  s->as = rsp_assembler_new (NULL);
}

/* FRAMES: NULL-terminated kernel names then "|" then user names. */
static guint
make_frames (Stream *s, const char *const *names)
{
  guint n = 0;
  gboolean kernel = TRUE;
  for (; names != NULL && *names != NULL && n < G_N_ELEMENTS (s->frames); names++)
    {
      if (g_strcmp0 (*names, "|") == 0)
        {
          kernel = FALSE;
          continue;
        }
      s->frames[n].symbol = g_intern_string (*names);
      s->frames[n].dso = g_intern_static_string (kernel ? "[kernel.kallsyms]" : "/usr/bin/test");
      s->frames[n].ip = (kernel ? 0xffffffff81000000ull : 0x400000ull) + g_str_hash (*names) % 0x100000;
      s->frames[n].kernel = kernel;
      n++;
    }
  return n;
}

static void
feed (Stream *s, RspModelEvent *ev, const char *const *frames)
{
  ev->n_frames = make_frames (s, frames);
  ev->frames = ev->n_frames > 0 ? s->frames : NULL;
  rsp_assembler_feed (s->as, ev);
}

static void
comm (Stream *s, gint32 pid, gint32 tid, const char *name)
{
  RspModelEvent ev = { .kind = RSP_MEV_COMM, .time = 0, .cpu = -1, .pid = pid, .tid = tid };
  ev.u.comm.pid = pid;
  ev.u.comm.tid = tid;
  ev.u.comm.comm = name;
  feed (s, &ev, NULL);
}

static void
sw (Stream *s, guint64 t, gint32 cpu, gint32 prev, guint32 state, gint32 next, const char *const *frames)
{
  RspModelEvent ev = { .kind = RSP_MEV_SWITCH, .time = t, .cpu = cpu, .pid = prev, .tid = prev };
  ev.u.sw.prev_tid = prev;
  ev.u.sw.next_tid = next;
  ev.u.sw.prev_state = state;
  feed (s, &ev, frames);
}

static void
waking (Stream *s, guint64 t, gint32 cpu, gint32 waker, gint32 target, const char *const *frames)
{
  RspModelEvent ev = { .kind = RSP_MEV_WAKING, .time = t, .cpu = cpu, .pid = waker, .tid = waker };
  ev.u.wake.tid = target;
  feed (s, &ev, frames);
}

static void
sample (Stream *s, guint64 t, gint32 cpu, gint32 tid, const char *const *frames)
{
  RspModelEvent ev = { .kind = RSP_MEV_SAMPLE, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  feed (s, &ev, frames);
}

static void
irq (Stream *s, guint64 t, gint32 cpu, gboolean entry, const char *name)
{
  RspModelEvent ev = { .kind = entry ? RSP_MEV_IRQ_ENTRY : RSP_MEV_IRQ_EXIT, .time = t, .cpu = cpu };
  ev.u.irq.name = name;
  feed (s, &ev, NULL);
}

static void
softirq (Stream *s, guint64 t, gint32 cpu, gint32 tid, gboolean entry, guint32 vec)
{
  RspModelEvent ev = { .kind = entry ? RSP_MEV_SOFTIRQ_ENTRY : RSP_MEV_SOFTIRQ_EXIT, .time = t, .cpu = cpu,
                       .pid = tid, .tid = tid };
  ev.u.softirq.vec = vec;
  feed (s, &ev, NULL);
}

/* fib_table_lookup by TID for a datagram (protocol 17) to 10.0.0.LAST:53 */
static void
route_to (Stream *s, guint64 t, gint32 cpu, gint32 tid, guint8 last)
{
  RspModelEvent ev = { .kind = RSP_MEV_FIB, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  ev.u.fib.proto = 17;
  ev.u.fib.daddr = 10u | ((guint32) last << 24); /* in memory: 10, 0, 0, LAST */
  ev.u.fib.dport = 53;
  feed (s, &ev, NULL);
}

static void
sock_ev (Stream *s, RspModelEventKind kind, guint64 t, gint32 cpu, gint32 tid, guint64 sk, guint16 protocol)
{
  RspModelEvent ev = { .kind = kind, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  ev.u.sock.sk = sk;
  ev.u.sock.protocol = protocol;
  ev.u.sock.ret = 64;
  feed (s, &ev, NULL);
}

static void
hrtimer (Stream *s, guint64 t, gint32 cpu, gboolean entry)
{
  RspModelEvent ev = { .kind = entry ? RSP_MEV_HRTIMER_ENTRY : RSP_MEV_HRTIMER_EXIT, .time = t, .cpu = cpu };
  feed (s, &ev, NULL);
}

static void
rq_on (Stream *s, guint32 dev, RspModelEventKind kind, guint64 t, gint32 cpu, gint32 tid, guint64 sector)
{
  RspModelEvent ev = { .kind = kind, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  ev.u.rq.dev = dev;
  ev.u.rq.sector = sector;
  ev.u.rq.nr_sector = 8;
  ev.u.rq.rwbs = "R";
  feed (s, &ev, NULL);
}

static void
rq (Stream *s, RspModelEventKind kind, guint64 t, gint32 cpu, gint32 tid, guint64 sector)
{
  rq_on (s, 0x800010, kind, t, cpu, tid, sector);
}

static void
fork_ev (Stream *s, guint64 t, gint32 cpu, gint32 parent, gint32 child, const char *child_comm)
{
  RspModelEvent ev = { .kind = RSP_MEV_FORK, .time = t, .cpu = cpu, .pid = parent, .tid = parent };
  ev.u.fork.parent_tid = parent;
  ev.u.fork.child_tid = child;
  ev.u.fork.child_comm = child_comm;
  feed (s, &ev, NULL);
  RspModelEvent wn = { .kind = RSP_MEV_WAKEUP_NEW, .time = t, .cpu = cpu, .pid = parent, .tid = parent };
  wn.u.wake.tid = child;
  feed (s, &wn, NULL);
}

static void
task_ev (Stream *s, gint32 pid, gint32 tid)
{
  RspModelEvent ev = { .kind = RSP_MEV_TASK, .time = 0, .cpu = -1, .pid = pid, .tid = tid };
  ev.u.task.pid = pid;
  ev.u.task.tid = tid;
  feed (s, &ev, NULL);
}

static void
exec_ev (Stream *s, guint64 t, gint32 cpu, gint32 tid, const char *filename)
{
  RspModelEvent ev = { .kind = RSP_MEV_EXEC, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  ev.u.exec.filename = filename;
  feed (s, &ev, NULL);
}

/* Asserts the invariants every analysis must keep. */
static void
check_invariants (const RspAnalysis *a)
{
  guint64 sum = 0;
  for (guint c = 0; c < RSP_CAT_N; c++)
    sum += rsp_analysis_category_ns (a, c);
  g_assert_cmpuint (sum, ==, rsp_analysis_total_ns (a));
  g_assert_cmpuint (rsp_analysis_wall_ns (a), <=, rsp_analysis_total_ns (a));
  /* each path's accounting adds up to its total, and the paths to the whole */
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      guint64 by_paths = 0;
      for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
        by_paths += rsp_analysis_path (a, p)->category_ns[c];
      g_assert_cmpuint (by_paths, ==, rsp_analysis_category_ns (a, c));
    }
  for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
    {
      const RspControlPath *path = rsp_analysis_path (a, p);
      guint64 path_sum = 0;
      for (guint c = 0; c < RSP_CAT_N; c++)
        path_sum += path->category_ns[c];
      g_assert_cmpuint (path_sum, ==, path->total);
    }
  guint64 findings = 0;
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      findings += rsp_analysis_finding (a, i)->ns;
      if (i > 0)
        g_assert_cmpuint (rsp_analysis_finding (a, i - 1)->ns, >=, rsp_analysis_finding (a, i)->ns);
    }
  g_assert_cmpuint (findings, ==, sum);
}

static const char *const user_read[] = { "schedule", "pipe_read", "|", "read", "main", NULL };
static const char *const user_write_wake[] = { "try_to_wake_up", "pipe_write", "|", "write", "main", NULL };
static const char *const user_work[] = { "|", "work", "main", NULL };
static const char *const poll_stack[] = { "schedule", "do_sys_poll", "|", "poll", "wait_loop", NULL };
static const char *const timer_wake[] = { "try_to_wake_up", "hrtimer_wakeup", "__hrtimer_run_queues",
                                          "hrtimer_interrupt", "sysvec_apic_timer_interrupt", NULL };
static const char *const nanosleep_stack[] = { "schedule", "do_nanosleep", "hrtimer_nanosleep", "|",
                                               "clock_nanosleep", "sleepy", NULL };
static const char *const irq_wake[] = { "try_to_wake_up", "eth_handler", "handle_irq_event", "common_interrupt", NULL };
static const char *const disk_wake[] = { "try_to_wake_up", "blk_mq_end_request", "virtblk_done", "common_interrupt", NULL };
static const char *const io_stack[] = { "schedule", "io_schedule", "|", "pread64", "reader", NULL };

/* Task 100 on CPU 0 reads from disk: its request is queued at 100 us, it
 * sleeps at 200 us, the request is issued at 1 ms and completes at 5 ms on
 * CPU 1, where the wake-up (with WAKE_STACK) follows 2 us later; it runs
 * again at 5.01 ms and exits at 6 ms.  Queued 0.8 ms, served 4 ms. */
static RspModel *
pread_disk_wait (const char *const *wake_stack)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
  sw (&s, T0 + 200 * US, 0, 100, 2, 0, io_stack);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 1 * MS, 1, 0, 4096);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS, 1, 0, 4096);
  waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 100, wake_stack);
  sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
  return rsp_assembler_finish (s.as);
}

/* Task 100, current on CPU 0, queues a read of SECTOR at AT; the disk
 * takes it 50 us later, and the task waits for it (in io_schedule) from
 * 50 us after that. */
static void
read_and_wait (Stream *s, guint64 at, guint64 sector)
{
  rq (s, RSP_MEV_RQ_INSERT, at, 0, 100, sector);
  rq (s, RSP_MEV_RQ_ISSUE, at + 50 * US, 0, 100, sector);
  sw (s, at + 100 * US, 0, 100, 2, 0, io_stack);
}

/* ------------------------------------------------------------------ tests */

/* A hands work to B over a pipe and waits; B's run becomes the child of A's
 * sleep, on one control path. */
static void
test_call_return (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "A");
  comm (&s, 200, 200, "B");
  sw (&s, T0, 0, 0, 0, 100, NULL);                         /* A runs on cpu0 */
  sw (&s, T0, 1, 0, 0, 200, NULL);                         /* B runs on cpu1 ... */
  sw (&s, T0 + 10 * US, 1, 200, 1, 0, user_read);          /* ... and waits for work */
  sample (&s, T0 + 500 * US, 0, 100, user_work);
  waking (&s, T0 + 1 * MS, 0, 100, 200, user_write_wake);  /* A wakes B */
  sw (&s, T0 + 1 * MS + 20 * US, 0, 100, 1, 0, user_read); /* A waits */
  sw (&s, T0 + 1 * MS + 50 * US, 1, 0, 0, 200, NULL);      /* B runs */
  sample (&s, T0 + 2 * MS, 1, 200, user_work);
  waking (&s, T0 + 3 * MS, 1, 200, 100, user_write_wake);  /* B wakes A */
  sw (&s, T0 + 3 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 3 * MS + 30 * US, 0, 0, 0, 100, NULL);      /* A runs */
  sample (&s, T0 + 3500 * US, 0, 100, user_work);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);             /* A exits */
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);

  g_autoptr (GError) error = NULL;
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, &error);
  g_assert_no_error (error);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 1);
  g_assert_cmpuint (rsp_analysis_wall_ns (a), ==, 4 * MS);
  /* B's work is a child of A's sleep, one layer deeper */
  gboolean b_child = FALSE;
  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *seg = rsp_analysis_segment (a, i);
      if (seg->kind == RSP_SEG_RUN && rsp_model_task (m, seg->task)->tid == 200)
        {
          g_assert_cmpuint (seg->depth, ==, 1);
          g_assert_cmpuint (seg->path, ==, 0);
          b_child = TRUE;
        }
    }
  g_assert_true (b_child);
  /* scheduler delay: A woken at 3 ms, ran at 3.03 ms */
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_SCHEDULER), >=, 30 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_CPU_SAMPLED), >=, 3 * MS);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
  const RspFinding *top = rsp_analysis_finding (a, 0);
  g_assert_cmpint (top->category, ==, RSP_CAT_CPU_SAMPLED);
  g_assert_cmpstr (top->frame, ==, "work");
}

/* Consecutive timed-out polls with the same stack are one sleep from the
 * first one's start (paper: de facto start); their time is "timeout". */
static void
test_timeout_merging (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "poller");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  guint64 t = T0 + 50 * US;
  for (int i = 0; i < 5; i++)
    {
      sw (&s, t, 0, 100, 1, 0, poll_stack);
      t += 1 * MS;
      waking (&s, t, 0, 0, 100, timer_wake);
      sw (&s, t + 5 * US, 0, 0, 0, 100, NULL);
      t += 30 * US; /* short run between polls */
    }
  sw (&s, t, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);

  const RspTask *task = NULL;
  for (guint i = 0; i < rsp_model_n_tasks (m); i++)
    if (rsp_model_task (m, i)->tid == 100)
      task = rsp_model_task (m, i);
  g_assert_nonnull (task);
  /* the last sleep's de facto start is the first poll's start */
  guint64 first_start = G_MAXUINT64, last_defacto = 0, last_start = 0;
  for (guint i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      if (sl->reason != RSP_WAKE_TIMER)
        continue;
      first_start = MIN (first_start, sl->start);
      if (sl->start > last_start)
        {
          last_start = sl->start;
          last_defacto = sl->defacto_start;
        }
    }
  g_assert_cmpuint (last_defacto, ==, first_start);
  g_assert_cmpuint (last_start, >, first_start);

  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_TIMEOUT), >=, 5 * MS - 50 * US);
  g_assert_cmpint (rsp_analysis_finding (a, 0)->category, ==, RSP_CAT_TIMEOUT);
  g_assert_cmpstr (rsp_analysis_finding (a, 0)->frame, ==, "poll");
}

/* A timer ending a nanosleep is a deliberate sleep, not a timeout. */
static void
test_deliberate_sleep (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 100 * US, 0, 100, 1, 0, nanosleep_stack);
  waking (&s, T0 + 10 * MS, 0, 0, 100, timer_wake);
  sw (&s, T0 + 10 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 11 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_SLEEP), ==, 10 * MS - 100 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_TIMEOUT), ==, 0);
  g_assert_cmpstr (rsp_analysis_finding (a, 0)->frame, ==, "clock_nanosleep");
}

/* Ping-pong between 100 and 200 on two CPUs, N rounds: a switch, a
 * wake-up and a sleep each. */
static RspModel *
pingpong_model (guint64 reserve, guint n)
{
  Stream s;
  stream_init (&s);
  if (reserve > 0)
    rsp_assembler_reserve (s.as, reserve);
  guint64 t = T0;
  for (guint i = 0; i < n; i++, t += 100 * US)
    {
      gint32 from = i % 2 ? 200 : 100, to = i % 2 ? 100 : 200;
      sw (&s, t, i % 2, 0, 0, from, NULL);
      waking (&s, t + 10 * US, i % 2, from, to, user_write_wake);
      sw (&s, t + 20 * US, i % 2, from, 1, 0, user_read);
    }
  /* too late: the arrays are no longer empty, nothing changes */
  rsp_assembler_reserve (s.as, 1u << 20);
  return rsp_assembler_finish (s.as);
}

/* The same runs, sleeps and links, field by field (their structs have
 * holes, which memcmp would compare too). */
static void
assert_same_model (const RspModel *a, const RspModel *b)
{
  g_assert_cmpuint (a->runs->len, ==, b->runs->len);
  for (guint i = 0; i < a->runs->len; i++)
    {
      const RspRun *x = &g_array_index (a->runs, RspRun, i), *y = &g_array_index (b->runs, RspRun, i);
      g_assert_true (x->task == y->task && x->cpu == y->cpu && x->start == y->start && x->end == y->end
                     && x->start_kind == y->start_kind && x->prev_sleep == y->prev_sleep
                     && x->next_sleep == y->next_sleep && x->next_run == y->next_run
                     && x->first_sample == y->first_sample && x->n_samples == y->n_samples
                     && x->wake_link == y->wake_link);
    }
  g_assert_cmpuint (a->sleeps->len, ==, b->sleeps->len);
  for (guint i = 0; i < a->sleeps->len; i++)
    {
      const RspSleep *x = &g_array_index (a->sleeps, RspSleep, i), *y = &g_array_index (b->sleeps, RspSleep, i);
      g_assert_true (x->task == y->task && x->start == y->start && x->end == y->end
                     && x->runnable_at == y->runnable_at && x->prev_run == y->prev_run
                     && x->next_run == y->next_run && x->stack == y->stack && x->prev_state == y->prev_state
                     && x->reason == y->reason && x->deliberate == y->deliberate && x->waker_run == y->waker_run
                     && x->disk_op == y->disk_op && x->net_op == y->net_op && x->irq_name == y->irq_name
                     && x->defacto_start == y->defacto_start && x->inferred == y->inferred && x->file == y->file);
    }
  g_assert_cmpuint (a->links->len, ==, b->links->len);
  for (guint i = 0; i < a->links->len; i++)
    {
      const RspLink *x = &g_array_index (a->links, RspLink, i), *y = &g_array_index (b->links, RspLink, i);
      g_assert_true (x->kind == y->kind && x->time == y->time && x->from_run == y->from_run
                     && x->from_op == y->from_op && x->to_run == y->to_run);
    }
}

/* Room reserved before the first event (rsp_assembler_reserve(): less,
 * more and absurdly more than the events need) changes nothing in the
 * model.  (Not G_MAXUINT64: that reserves the cap, 256 MB an array, which
 * the tests' G_DEBUG=gc-friendly makes GLib clear whole.) */
static void
test_reserve (void)
{
  g_autoptr (RspModel) plain = pingpong_model (0, 3000);
  g_assert_cmpuint (plain->switch_room, ==, 0);
  g_assert_cmpuint (plain->runs->len, >=, 3000);
  g_assert_cmpuint (plain->sleeps->len, >=, 2000);
  g_assert_cmpuint (plain->links->len, >=, 2000);
  const guint64 reserves[] = { 2000, 4000, 100000 };
  for (guint k = 0; k < G_N_ELEMENTS (reserves); k++)
    {
      g_autoptr (RspModel) m = pingpong_model (reserves[k], 3000);
      /* stored in place up to the room (an eighth over), appended past it */
      g_assert_cmpuint (m->switch_room, ==, reserves[k] + reserves[k] / 8);
      if (k == 0)
        g_assert_cmpuint (m->runs->len, >, m->switch_room);
      assert_same_model (m, plain);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
    }
}

/* TASK's runs along its chain (first_run, next_run), as an array. */
static GArray *
chain_of (const RspModel *m, RspIdx task)
{
  GArray *chain = g_array_new (FALSE, FALSE, sizeof (RspIdx));
  for (RspIdx r = rsp_model_task (m, task)->first_run; r != RSP_NONE; r = rsp_model_run (m, r)->next_run)
    g_array_append_val (chain, r);
  return chain;
}

static void
assert_index_runs_are_chains (const RspModel *m)
{
  const RspModelIndex *x = rsp_model_get_index (m);
  g_assert_cmpuint (x->n_tasks, ==, rsp_model_n_tasks (m));
  for (guint t = 0; t < x->n_tasks; t++)
    {
      g_autoptr (GArray) chain = chain_of (m, t);
      g_assert_cmpuint (x->task_runs[t]->len, ==, chain->len);
      for (guint k = 0; k < chain->len; k++)
        g_assert_cmpuint (g_array_index (x->task_runs[t], RspIdx, k), ==, g_array_index (chain, RspIdx, k));
    }
}

/* A task's runs in time order: read in one pass over the runs array where
 * they lie there in that order (the assembler appends them so), along
 * the task's chain where they do not. */
static void
test_run_order (void)
{
  g_autoptr (RspModel) m = pingpong_model (0, 40);
  guint n_tasks = rsp_model_n_tasks (m);
  g_autofree guint8 *in_order = rsp_model_tasks_in_run_order (m);
  RspIdx ping = RSP_NONE, pong = RSP_NONE;
  for (guint t = 0; t < n_tasks; t++)
    {
      g_assert_cmpuint (in_order[t], ==, 1);
      if (rsp_model_task (m, t)->tid == 100)
        ping = t;
      if (rsp_model_task (m, t)->tid == 200)
        pong = t;
    }
  g_assert_true (ping != RSP_NONE && pong != RSP_NONE);
  g_assert_cmpuint (rsp_model_task (m, ping)->n_runs, >=, 3);

  /* ping's chain relinked out of array order (its second run last): read
   * along it; pong's still in one pass */
  g_autoptr (GArray) chain = chain_of (m, ping);
  RspIdx r0 = g_array_index (chain, RspIdx, 0), r1 = g_array_index (chain, RspIdx, 1);
  RspIdx last = g_array_index (chain, RspIdx, chain->len - 1);
  g_array_index (m->runs, RspRun, r0).next_run = g_array_index (m->runs, RspRun, r1).next_run;
  g_array_index (m->runs, RspRun, last).next_run = r1;
  g_array_index (m->runs, RspRun, r1).next_run = RSP_NONE;
  g_autofree guint8 *relinked = rsp_model_tasks_in_run_order (m);
  g_assert_cmpuint (relinked[ping], ==, 0);
  g_assert_cmpuint (relinked[pong], ==, 1);
  assert_index_runs_are_chains (m);
  g_autoptr (GArray) read = chain_of (m, ping);
  g_assert_cmpuint (g_array_index (read, RspIdx, read->len - 1), ==, r1);

  /* a chain that goes on into another task's run is not in order (the
   * other task's is) */
  g_autoptr (RspModel) other = pingpong_model (0, 40);
  g_autoptr (GArray) ping_runs = chain_of (other, ping);
  g_autoptr (GArray) pong_runs = chain_of (other, pong);
  g_array_index (other->runs, RspRun, g_array_index (pong_runs, RspIdx, pong_runs->len - 1)).next_run =
    g_array_index (ping_runs, RspIdx, ping_runs->len - 1);
  g_autofree guint8 *crossed = rsp_model_tasks_in_run_order (other);
  g_assert_cmpuint (crossed[pong], ==, 0);
  g_assert_cmpuint (crossed[ping], ==, 1);
}

/* The count the reservation is made from: the health table's, capped by
 * what the data could hold. */
static void
test_recorded_switches (void)
{
  g_assert_cmpuint (rsp_model_recorded_switches (NULL, 1 << 20), ==, 0);
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_new ();
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 1 << 20), ==, 0); /* no table */
  RspHealthEntry other = { g_strdup ("sched:sched_wakeup"), 900, 900 };
  g_array_append_val (meta->health, other);
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 1 << 20), ==, 0); /* not the switches' */
  RspHealthEntry switches = { g_strdup ("sched:sched_switch"), 5000, 4990 };
  g_array_append_val (meta->health, switches);
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 1 << 20), ==, 5000); /* the larger count */
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 64 * 1000), ==, 1000); /* what the data holds */
  /* a damaged table (a negative count read as unsigned) */
  g_array_index (meta->health, RspHealthEntry, 1).counted = G_MAXUINT64;
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 1 << 20), ==, (1 << 20) / 64);
  g_assert_cmpuint (rsp_model_recorded_switches (meta, 0), ==, 0);
}

/* A calls B calls C calls A: C's sleep began long before A called; only
 * the part inside A's sleep is on A's behalf (the triangle is cut). */
static void
test_triangle_cut (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 1, 0, 0, 300, NULL);
  sw (&s, T0 + 10 * US, 1, 300, 1, 0, user_read);          /* C idles from T0 */
  sw (&s, T0 + 20 * US, 1, 0, 0, 200, NULL);
  sw (&s, T0 + 30 * US, 1, 200, 1, 0, user_read);          /* B idles */
  sw (&s, T0 + 50 * MS, 0, 0, 0, 100, NULL);               /* A starts late */
  waking (&s, T0 + 51 * MS, 0, 100, 200, user_write_wake); /* A calls B */
  sw (&s, T0 + 51 * MS + 10 * US, 0, 100, 1, 0, user_read);
  sw (&s, T0 + 51 * MS + 20 * US, 1, 0, 0, 200, NULL);
  waking (&s, T0 + 52 * MS, 1, 200, 300, user_write_wake); /* B calls C */
  sw (&s, T0 + 52 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 52 * MS + 20 * US, 1, 0, 0, 300, NULL);
  waking (&s, T0 + 54 * MS, 1, 300, 100, user_write_wake); /* C answers A */
  sw (&s, T0 + 54 * MS + 10 * US, 1, 300, 1, 0, user_read);
  sw (&s, T0 + 54 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 55 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_wall_ns (a), ==, 5 * MS);
  g_assert_cmpuint (rsp_analysis_total_ns (a), ==, 5 * MS);
  /* nothing before A's sleep is counted: C's 50 ms of idling is cut */
  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *seg = rsp_analysis_segment (a, i);
      g_assert_cmpuint (seg->start, >=, T0 + 50 * MS);
      if (rsp_model_task (m, seg->task)->tid == 300)
        {
          g_assert_cmpuint (seg->depth, ==, 1);
          g_assert_cmpuint (seg->start, >=, T0 + 51 * MS + 10 * US);
        }
      if (rsp_model_task (m, seg->task)->tid == 200)
        g_assert_cmpuint (seg->depth, ==, 2);
    }
}

/* A waker that started before the sleep did not run on its behalf: another
 * control path, and the sleep waits "on other path". */
static void
test_other_path (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 1, 0, 0, 200, NULL);                          /* B computes from T0 */
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sample (&s, T0 + 1 * MS, 1, 200, user_work);
  sw (&s, T0 + 2 * MS, 0, 100, 1, 0, user_read);           /* A waits from 2 ms */
  waking (&s, T0 + 20 * MS, 1, 200, 100, user_write_wake); /* B finishes at 20 ms */
  sw (&s, T0 + 20 * MS + 5 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 20 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 21 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 2);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_OTHER_PATH), >=, 17 * MS);
  g_assert_cmpuint (rsp_analysis_total_ns (a), >, rsp_analysis_wall_ns (a));
}

/* A hand-off (the paper's pass): A wakes B, goes on for longer than the
 * fit tolerance (a sanitizer, an interrupt) and then waits for B's answer.
 * B was set going by A itself: its work is on A's behalf, one control
 * path, nothing waits on another. */
static void
test_hand_off (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);                           /* A runs */
  sw (&s, T0, 1, 0, 0, 200, NULL);                           /* B runs, then reads */
  sw (&s, T0 + 100 * US, 1, 200, 1, 0, user_read);
  waking (&s, T0 + 1 * MS, 0, 100, 200, user_write_wake);    /* A writes the token */
  sw (&s, T0 + 1 * MS + 10 * US, 1, 0, 0, 200, NULL);        /* B takes it at once */
  sample (&s, T0 + 1 * MS + 200 * US, 1, 200, user_work);
  sw (&s, T0 + 1 * MS + 300 * US, 0, 100, 1, 0, user_read);  /* A reads 300 µs later */
  sample (&s, T0 + 2 * MS, 1, 200, user_work);
  waking (&s, T0 + 3 * MS, 1, 200, 100, user_write_wake);    /* B answers */
  sw (&s, T0 + 3 * MS + 5 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 3 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 1);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_OTHER_PATH), ==, 0);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_CPU_SAMPLED), >=, 1500 * US);
}

/* A waker that was already running, across an exec, before the sleep
 * began heads another control path from where its activity began, before
 * the exec: the lane covers both generations and the accounting adds up. */
static void
test_other_path_across_exec (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "waiter");
  comm (&s, 200, 200, "launcher");
  sw (&s, T0, 0, 0, 0, 100, NULL);                          /* A runs from T0 */
  sw (&s, T0 + 500 * US, 1, 0, 0, 200, NULL);               /* B from 0.5 ms */
  sample (&s, T0 + 700 * US, 1, 200, user_work);
  exec_ev (&s, T0 + 1 * MS, 1, 200, "/usr/bin/tool");       /* and execs */
  sample (&s, T0 + 3 * MS, 1, 200, user_work);
  sw (&s, T0 + 2 * MS, 0, 100, 1, 0, user_read);            /* A waits from 2 ms */
  waking (&s, T0 + 5 * MS, 1, 200, 100, user_write_wake);   /* B answers at 5 ms */
  sw (&s, T0 + 5 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 5 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 2);
  const RspControlPath *other = rsp_analysis_path (a, 1);
  g_assert_cmpuint (other->start, ==, T0 + 500 * US);
  g_assert_cmpuint (other->total, ==, 5 * MS + 10 * US - 500 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
}

/* The time of generation GENERATION of task TID as a child (depth 1) of
 * a sleep of the process of interest, in segments from FROM on. */
static guint64
child_ns (const RspAnalysis *a, const RspModel *m, gint32 tid, guint32 generation, guint64 from)
{
  guint64 ns = 0;
  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *seg = rsp_analysis_segment (a, i);
      const RspTask *t = rsp_model_task (m, seg->task);
      if (seg->depth == 1 && t->tid == tid && t->generation == generation && seg->start >= from)
        ns += seg->end - seg->start;
    }
  return ns;
}

/* A server that forks and execs a worker per connection: A connects to the
 * listener M and waits; M forks C, C execs and answers A.  A's wait is
 * explained all the way: M (accept, fork) before the fork, C before its
 * exec, the worker after it; nothing unaccounted, one control path. */
static void
test_fork_exec_origin (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "client");
  comm (&s, 200, 200, "listener");
  sw (&s, T0, 1, 0, 0, 200, NULL);
  sw (&s, T0 + 10 * US, 1, 200, 1, 0, user_read);           /* M listens */
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sample (&s, T0 + 500 * US, 0, 100, user_work);
  waking (&s, T0 + 1 * MS, 0, 100, 200, user_write_wake);   /* A connects */
  sw (&s, T0 + 1 * MS + 10 * US, 0, 100, 1, 0, poll_stack); /* A waits */
  sw (&s, T0 + 1 * MS + 20 * US, 1, 0, 0, 200, NULL);
  sample (&s, T0 + 1500 * US, 1, 200, user_work);
  fork_ev (&s, T0 + 2 * MS, 1, 200, 300, "listener");       /* M forks C */
  task_ev (&s, 300, 300);
  sw (&s, T0 + 2 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 2 * MS + 20 * US, 1, 0, 0, 300, NULL);
  sample (&s, T0 + 2500 * US, 1, 300, user_work);
  exec_ev (&s, T0 + 3 * MS, 1, 300, "/usr/lib/worker");     /* C execs */
  sample (&s, T0 + 5 * MS, 1, 300, user_work);
  waking (&s, T0 + 8 * MS, 1, 300, 100, user_write_wake);   /* the worker answers */
  sw (&s, T0 + 8 * MS + 10 * US, 1, 300, 1, 0, user_read);
  sw (&s, T0 + 8 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sample (&s, T0 + 8500 * US, 0, 100, user_work);
  sw (&s, T0 + 9 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 1);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_OTHER_PATH), ==, 0);
  g_assert_cmpuint (rsp_analysis_total_ns (a), ==, 9 * MS);
  /* under A's wait: M until the fork, C until its exec, then the worker */
  g_assert_cmpuint (child_ns (a, m, 200, 0, 0), ==, 2 * MS - (1 * MS + 10 * US));
  g_assert_cmpuint (child_ns (a, m, 300, 0, 0), ==, 1 * MS);
  g_assert_cmpuint (child_ns (a, m, 300, 1, 0), ==, 5 * MS);
}

/* A shell's vfork: S vforks C and waits until C execs; S then waits
 * 2 ms for a CPU before it blocks in wait4, and the exec'd C, running since
 * its exec without a break, ends that wait by exiting (before the exec, C
 * was preempted once; in the second variant S's switch-in before the fork
 * is lost).  C was set going by
 * S (the fork, and the exec that woke S), so it is S's child however late S
 * blocked: one control path, nothing waits on another. */
static void
vfork_exec_hand_off (gboolean forker_switch_in_lost)
{
  static const char *const vfork_stack[] = { "schedule", "wait_for_vfork_done", "|", "vfork", "evalcommand", NULL };
  static const char *const wait_stack[] = { "schedule", "do_wait", "|", "wait4", "waitforjob", NULL };
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "sh");
  comm (&s, 300, 300, "other");
  comm (&s, 400, 400, "another");
  sw (&s, T0, 0, 0, 0, 100, NULL);                           /* S runs */
  if (forker_switch_in_lost)
    {
      /* S reads, is woken; its switch-in is lost: the fork record is its
       * first event, before the forker's run is known */
      sw (&s, T0 + 200 * US, 0, 100, 1, 0, user_read);
      waking (&s, T0 + 400 * US, 1, 0, 100, NULL);
    }
  else
    sample (&s, T0 + 500 * US, 0, 100, user_work);
  fork_ev (&s, T0 + 1 * MS, 0, 100, 200, "sh");              /* S vforks C */
  task_ev (&s, 200, 200);
  sw (&s, T0 + 1 * MS + 10 * US, 0, 100, 2, 0, vfork_stack); /* and waits for its exec */
  sw (&s, T0 + 1 * MS + 20 * US, 1, 0, 0, 200, NULL);
  sw (&s, T0 + 1200 * US, 1, 200, 0, 400, NULL);             /* C is preempted a while */
  sw (&s, T0 + 1300 * US, 1, 400, 1, 200, user_read);
  sw (&s, T0 + 1500 * US, 0, 0, 0, 300, NULL);               /* another task takes S's CPU */
  waking (&s, T0 + 2 * MS, 1, 200, 100, NULL);               /* C's exec releases S */
  exec_ev (&s, T0 + 2 * MS + 5 * US, 1, 200, "/usr/bin/grandchild");
  sample (&s, T0 + 3 * MS, 1, 200, user_work);
  sw (&s, T0 + 4100 * US, 0, 300, 1, 100, user_read);        /* S gets a CPU 2.1 ms later */
  sw (&s, T0 + 4200 * US, 0, 100, 1, 0, wait_stack);         /* and blocks in wait4 */
  for (guint k = 5; k < 50; k += 5)
    sample (&s, T0 + k * MS, 1, 200, user_work);
  waking (&s, T0 + 50 * MS, 1, 200, 100, NULL);              /* C exits */
  sw (&s, T0 + 50 * MS + 5 * US, 1, 200, 0x20, 0, NULL);
  sw (&s, T0 + 50 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 51 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 1);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_OTHER_PATH), ==, 0);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
  /* the exec'd C is under S's wait4 */
  g_assert_cmpuint (child_ns (a, m, 200, 1, T0 + 4200 * US), ==, 50 * MS - 4200 * US);
}

static void
test_vfork_exec_hand_off (void)
{
  vfork_exec_hand_off (FALSE);
}

static void
test_vfork_lost_switch_in (void)
{
  vfork_exec_hand_off (TRUE);
}

/* Threads of the process of interest are lanes of control path 0: a lane
 * waiting for another lane that was already running waits "on other path"
 * (path 0), and no new control path counts the other lane twice; a new
 * thread's wait for its first run is not work of its creator. */
static void
test_own_threads (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "player");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sample (&s, T0 + 500 * US, 0, 100, user_work);
  fork_ev (&s, T0 + 1 * MS, 0, 100, 101, "player/vo");      /* a thread */
  sw (&s, T0 + 1 * MS + 10 * US, 1, 0, 0, 101, NULL);
  sample (&s, T0 + 1500 * US, 1, 101, user_work);
  sw (&s, T0 + 2 * MS, 0, 100, 1, 0, user_read);            /* main waits */
  waking (&s, T0 + 10 * MS, 1, 101, 100, user_write_wake);  /* the thread, running since 1 ms, wakes it */
  sw (&s, T0 + 10 * MS + 10 * US, 1, 101, 0x20, 0, NULL);
  sw (&s, T0 + 10 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 11 * MS, 0, 100, 0x20, 0, NULL);
  task_ev (&s, 100, 101); /* the helpers give each event pid = tid: say it is a thread last */
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 1);
  g_assert_cmpuint (rsp_analysis_wall_ns (a), ==, 11 * MS);
  /* two lanes: main 11 ms, the thread from its fork to its exit */
  g_assert_cmpuint (rsp_analysis_total_ns (a), ==, 11 * MS + 9 * MS + 10 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_OTHER_PATH), ==, 8 * MS);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
}

/* A wake-up from a hardware interrupt: "hardware", named after the IRQ. */
static void
test_interrupt (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1 * MS, 0, 100, 1, 0, user_read);
  irq (&s, T0 + 6 * MS, 1, TRUE, "eth0");
  waking (&s, T0 + 6 * MS + 1 * US, 1, 0, 100, irq_wake);
  irq (&s, T0 + 6 * MS + 2 * US, 1, FALSE, "eth0");
  sw (&s, T0 + 6 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 7 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_HARDWARE), ==, 5 * MS + 1 * US);
  g_assert_cmpint (rsp_analysis_finding (a, 0)->category, ==, RSP_CAT_HARDWARE);
  g_assert_cmpstr (rsp_analysis_finding (a, 0)->frame, ==, "eth0");
}

/* Disk: queue time and service time from insert/issue/complete. */
static void
test_disk (void)
{
  g_autoptr (RspModel) m = pread_disk_wait (disk_wake);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 1);
  const RspDiskOp *op = rsp_model_disk_op (m, 0);
  g_assert_cmpuint (op->complete - op->issue, ==, 4 * MS);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE), ==, 800 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 4 * MS + 2 * US);
  g_assert_cmpint (rsp_analysis_finding (a, 0)->category, ==, RSP_CAT_DISK_IO);
  g_assert_cmpstr (rsp_analysis_finding (a, 0)->frame, ==, "pread64");
}

/* A disk wake-up whose completion was not recorded: the request the task
 * has in flight ended its wait (its completion inferred then), not its
 * request that completed before the wait began (taken before: 1 ms of
 * the 8 ms wait became in-service time of a request long done). */
static void
test_disk_wake_not_before_wait (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  read_and_wait (&s, T0 + 100 * US, 4096);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 1 * MS, 1, 0, 4096);
  waking (&s, T0 + 1 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 1 * MS + 10 * US, 0, 0, 0, 100, NULL);
  read_and_wait (&s, T0 + 2 * MS, 8192);
  /* the second request's completion is lost */
  waking (&s, T0 + 10 * MS, 1, 0, 100, disk_wake);
  sw (&s, T0 + 10 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 11 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 2);
  const RspDiskOp *second = rsp_model_disk_op (m, 1);
  g_assert_true (second->complete_inferred);
  g_assert_cmpuint (second->complete, ==, T0 + 10 * MS);
  guint found = 0;
  for (RspIdx i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      if (sl->start == T0 + 2 * MS + 100 * US)
        {
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_DISK);
          g_assert_cmpuint (sl->disk_op, ==, 1);
          found++;
        }
    }
  g_assert_cmpuint (found, ==, 1);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  /* both waits are disk time, in service from each request's issue */
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, (1 * MS + 2 * US - 200 * US) + (8 * MS - 100 * US));
}

static const RspSleep *the_sleep (const RspModel *m, gint32 tid, guint64 start);

/* ... nor, when none completed since the wait began, a request of the
 * task whose completion was lost more than a second before it: request
 * A's completion is lost at the start, B is waited for and completes at
 * 1 s; a disk wake-up at 1.6 s ends a wait begun at 1.5 s with no
 * completion recorded.  (A was taken, in service for 1.6 s.) */
static void
test_disk_wake_not_long_lost (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096); /* its completion is lost */
  read_and_wait (&s, T0 + 1000 * MS, 8192);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 1001 * MS, 1, 0, 8192);
  waking (&s, T0 + 1001 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 1001 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1500 * MS, 0, 100, 2, 0, io_stack);
  waking (&s, T0 + 1600 * MS, 1, 0, 100, disk_wake);
  sw (&s, T0 + 1600 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1601 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  const RspDiskOp *lost = rsp_model_disk_op (m, 0);
  g_assert_cmpuint (lost->complete, !=, T0 + 1600 * MS);
  const RspSleep *sl = the_sleep (m, 100, T0 + 1500 * MS);
  g_assert_cmpint (sl->reason, ==, RSP_WAKE_DISK);
  g_assert_cmpuint (sl->disk_op, ==, RSP_NONE);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
}

/* fdatasync's cache flush: the task sleeps in blkdev_issue_flush before the
 * flush request reaches the device (it waits behind the flush in progress)
 * and until it completes.  All of it is disk time, never "blocked in the
 * kernel". */
static const char *const flush_stack[] = { "schedule", "io_schedule_timeout", "wait_for_completion_io",
                                           "submit_bio_wait", "blkdev_issue_flush", "ext4_sync_file",
                                           "__x64_sys_fdatasync", "|", "fdatasync", "main", NULL };

static void
test_flush_wait (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 200 * US, 0, 100, 2, 0, flush_stack);
  /* the flush request goes straight to the device (no insert), later */
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 3 * MS, 1, 0, G_MAXUINT64);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS, 1, 0, G_MAXUINT64);
  waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_KERNEL_MISC), ==, 0);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 4 * MS + 800 * US + 2 * US);
  g_assert_cmpint (rsp_analysis_finding (a, 0)->category, ==, RSP_CAT_DISK_IO);
}

/* A disk wake-up whose completion perf dropped (docs/RECORDING.md): inferred. */
static void
test_missing_completion (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  read_and_wait (&s, T0 + 100 * US, 8192);
  waking (&s, T0 + 3 * MS, 1, 0, 100, disk_wake);
  sw (&s, T0 + 3 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, 1);
  g_assert_true (rsp_model_disk_op (m, 0)->complete_inferred);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), >=, 2 * MS);
}

/* A request issued that never completed (its completion lost) stays a
 * candidate of every later disk wait: it counts as in service, and the
 * later requests' queued stretches are disk I/O.  OWNER issued it: the
 * waiting task itself (its own list of requests) or a kernel thread (the
 * device's).  Later completions must not hide it from the search, which
 * skips requests completed before a wait. */
static void
check_open_request (gint32 owner)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "reader");
  comm (&s, 300, 300, "kworker/0:1");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 50 * US, 0, owner, 1000);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 60 * US, 1, 0, 1000); /* never completed */
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 110 * US, 0, 100, 2000);
  sw (&s, T0 + 200 * US, 0, 100, 2, 0, io_stack);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 1 * MS, 1, 0, 2000);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS, 1, 0, 2000);
  waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
  for (guint k = 0; k < 3; k++)
    {
      guint64 t = T0 + (6 + 4 * k) * MS;
      rq (&s, RSP_MEV_RQ_INSERT, t, 0, 100, 3000 + k);
      sw (&s, t + 100 * US, 0, 100, 2, 0, io_stack);
      rq (&s, RSP_MEV_RQ_ISSUE, t + 1 * MS, 1, 0, 3000 + k);
      rq (&s, RSP_MEV_RQ_COMPLETE, t + 3 * MS, 1, 0, 3000 + k);
      waking (&s, t + 3 * MS + 2 * US, 1, 0, 100, disk_wake);
      sw (&s, t + 3 * MS + 10 * US, 0, 0, 0, 100, NULL);
    }
  sw (&s, T0 + 20 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 5);
  g_assert_cmpuint (rsp_model_disk_op (m, 0)->complete, ==, 0);
  g_assert_cmpint (rsp_model_task (m, rsp_model_disk_op (m, 0)->task)->tid, ==, owner);
  g_assert_cmpint (rsp_model_task (m, rsp_model_disk_op (m, 1)->task)->tid, ==, 100);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE), ==, 0);
  /* the first wait 200 us to 5 ms + 2 us, the three others 0.1 ms to
   * 3 ms + 2 us after their insert */
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 4802 * US + 3 * 2902 * US);
}

/* A request merged into another while queued (block_rq_merge) is queued
 * until then and never served: the wait that follows is queued behind the
 * request that was issued, then served by it.  Without the merge event
 * (WITH_EVENT FALSE: a plain perf.data), a request never issued nor
 * completed while a later one on its device was issued is taken for merged
 * when that one was issued, marked inferred and counted; not for one
 * still queued at the end, with nothing issued after it. */
static void
check_merged_request (gboolean with_event)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "writer");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 50 * US, 0, 100, 1008);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 110 * US, 0, 100, 1000);
  if (with_event)
    rq (&s, RSP_MEV_RQ_MERGE, T0 + 150 * US, 0, 100, 1008);
  sw (&s, T0 + 200 * US, 0, 100, 2, 0, io_stack);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 1 * MS, 1, 0, 1000);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS, 1, 0, 1000);
  waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
  /* a second wait, with a request of its own, long after */
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 10 * MS, 0, 100, 5000);
  sw (&s, T0 + 10 * MS + 100 * US, 0, 100, 2, 0, io_stack);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 11 * MS, 1, 0, 5000);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 13 * MS, 1, 0, 5000);
  waking (&s, T0 + 13 * MS + 2 * US, 1, 0, 100, disk_wake);
  sw (&s, T0 + 13 * MS + 10 * US, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 19 * MS, 0, 100, 9000); /* still queued at the end */
  /* a request issued after it on another disk says nothing of it */
  rq_on (&s, 0x800020, RSP_MEV_RQ_ISSUE, T0 + 19 * MS + 500 * US, 1, 0, 9000);
  rq_on (&s, 0x800020, RSP_MEV_RQ_COMPLETE, T0 + 19 * MS + 700 * US, 1, 0, 9000);
  sw (&s, T0 + 20 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 5);
  const RspDiskOp *merged = rsp_model_disk_op (m, 0);
  g_assert_cmpuint (merged->sector, ==, 1008);
  g_assert_true (merged->merged);
  g_assert_cmpuint (merged->issue, ==, 0);
  g_assert_cmpuint (merged->complete, ==, with_event ? T0 + 150 * US : T0 + 1 * MS);
  g_assert_true (merged->complete_inferred == !with_event);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, with_event ? 0 : 1);
  const RspDiskOp *last = rsp_model_disk_op (m, 3);
  g_assert_false (last->merged);
  g_assert_cmpuint (last->complete, ==, 0);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  /* the first wait: queued 200 us to 1 ms, served to 5 ms, 2 us to the
   * wake-up; the second: queued 0.9 ms, served 2 ms + 2 us, the merged
   * request nowhere in it */
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE), ==, 800 * US + 900 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 4002 * US + 2002 * US);
}

static void
test_merged_request (void)
{
  check_merged_request (TRUE);
}

static void
test_merged_request_inferred (void)
{
  check_merged_request (FALSE);
}

static void
test_open_request_own (void)
{
  check_open_request (100);
}

static void
test_open_request_device (void)
{
  check_open_request (300);
}

/* Preempted while runnable: "involuntary sleep". */
static void
test_preemption (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1 * MS, 0, 100, 0, 300, user_work);  /* state R: preempted by 300 */
  sw (&s, T0 + 3 * MS, 0, 300, 1, 100, user_read);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_PREEMPTED), ==, 2 * MS);
}

/* A task switches in on a CPU whose previous task never switched out, and
 * a task switches out without having switched in (docs/MODEL.md, "Missing events are normal"). */
static void
test_missing_switches (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1 * MS, 0, 0, 0, 200, NULL); /* 100's switch-out was lost */
  sw (&s, T0 + 2 * MS, 1, 300, 1, 0, user_read); /* 300 never switched in on cpu1 */
  sw (&s, T0 + 3 * MS, 0, 200, 1, 100, user_read);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_SWITCH_OUT), >=, 1);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  /* 100's run was closed when 200 came in */
  for (guint i = 0; i < rsp_model_n_runs (m); i++)
    {
      const RspRun *run = rsp_model_run (m, i);
      g_assert_cmpuint (run->end, >=, run->start);
      if (rsp_model_task (m, run->task)->tid == 100 && run->start == T0)
        g_assert_cmpuint (run->end, ==, T0 + 1 * MS);
    }
}

/* A sleep that ends with no recorded wake-up: counted, and not passed off
 * as understood. */
static void
test_missing_wakeup (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1 * MS, 0, 100, 1, 0, user_read);
  sw (&s, T0 + 3 * MS, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_WAKEUP), ==, 1);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 2 * MS);
}

/* The waker's CPU can trace sched_waking while the sleeper is still inside
 * schedule() on its own CPU, before the sleeper's sched_switch: that
 * wake-up ends the sleep (seen on a real run of tcp_chain); a later one
 * replaces it; one long before the switch-out woke nothing. */
static void
test_early_wakeup (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0, 1, 0, 0, 200, NULL);
  /* 200 wakes 100 5 us before 100's switch-out is traced */
  waking (&s, T0 + 1 * MS, 1, 200, 100, user_write_wake);
  sw (&s, T0 + 1 * MS + 5 * US, 0, 100, 1, 0, user_read);
  sw (&s, T0 + 1 * MS + 40 * US, 0, 0, 0, 100, NULL);
  /* a wake-up in the window, then the real one later: the later counts */
  sw (&s, T0 + 2 * MS, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 2 * MS, 1, 0, 0, 300, NULL);
  waking (&s, T0 + 3 * MS - 20 * US, 0, 100, 300, user_write_wake);
  sw (&s, T0 + 3 * MS, 1, 300, 1, 0, user_read);
  waking (&s, T0 + 4 * MS, 0, 100, 300, user_write_wake);
  sw (&s, T0 + 4 * MS + 10 * US, 1, 0, 0, 300, NULL);
  /* one long before the switch-out woke nothing: the sleep's end is unknown */
  waking (&s, T0 + 5 * MS, 0, 100, 300, user_write_wake);
  sw (&s, T0 + 6 * MS, 1, 300, 1, 0, user_read);
  sw (&s, T0 + 7 * MS, 1, 0, 0, 300, NULL);
  sw (&s, T0 + 8 * MS, 1, 300, 0x20, 0, NULL);
  sw (&s, T0 + 8 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_WAKEUP), ==, 1);
  guint checked = 0;
  for (guint i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      const RspTask *t = rsp_model_task (m, sl->task);
      if (t->tid == 100 && sl->start == T0 + 1 * MS + 5 * US)
        {
          /* runnable from its switch-out, woken by 200's run */
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_RUN);
          g_assert_cmpuint (sl->runnable_at, ==, sl->start);
          g_assert_cmpint (rsp_model_task (m, rsp_model_run (m, sl->waker_run)->task)->tid, ==, 200);
          checked++;
        }
      else if (t->tid == 300 && sl->start == T0 + 3 * MS)
        {
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_RUN);
          g_assert_cmpuint (sl->runnable_at, ==, T0 + 4 * MS);
          checked++;
        }
      else if (t->tid == 300 && sl->start == T0 + 6 * MS)
        {
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_UNKNOWN);
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, 3);
}

/* A sample or wake-up in a task's context proves it runs there, even when
 * its switch-in was lost. */
static void
test_inferred_run (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0, 1, 0, 0, 200, NULL);
  sw (&s, T0 + 100 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 1 * MS, 0, 100, 1, 0, user_read);
  irq (&s, T0 + 1500 * US, 1, TRUE, "eth0");
  waking (&s, T0 + 1500 * US, 1, 0, 200, irq_wake);
  irq (&s, T0 + 1501 * US, 1, FALSE, "eth0");
  /* 200's switch-in on cpu1 was lost; it wakes 100 from task context */
  waking (&s, T0 + 2 * MS, 1, 200, 100, user_write_wake);
  sw (&s, T0 + 2 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 3 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_SWITCH_IN), ==, 1);
  gboolean woken_by_run = FALSE;
  for (guint i = 0; i < rsp_model_n_sleeps (m); i++)
    if (rsp_model_sleep (m, i)->reason == RSP_WAKE_RUN && rsp_model_sleep (m, i)->waker_run != RSP_NONE)
      woken_by_run = TRUE;
  g_assert_true (woken_by_run);
  /* the inferred run starts when 200 was woken, not when cpu1 last switched */
  for (guint i = 0; i < rsp_model_n_runs (m); i++)
    {
      const RspRun *run = rsp_model_run (m, i);
      if (run->start_kind == RSP_RUN_START_INFERRED)
        g_assert_cmpuint (run->start, ==, T0 + 1500 * US);
    }
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
}

/* Samples attach to their run, or to a run that ended < 20 µs before. */
static void
test_sample_grace (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 1 * MS, 0, 100, 1, 0, user_read);
  sample (&s, T0 + 1 * MS + 10 * US, 0, 100, user_work); /* late but within grace */
  sw (&s, T0 + 2 * MS, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 3 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_samples (m), ==, 1);
  g_assert_cmpuint (rsp_model_run (m, rsp_model_sample (m, 0)->run)->start, ==, T0);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_SWITCH_IN), ==, 0);
}

/* The tracefs instance's wake-ups carry no stack: on an idle CPU, a wake-up
 * inside a timer's expiry callback (hrtimer_expire_entry/exit) is the
 * timer's.  A poll that ends so timed out; a nanosleep stays a deliberate
 * sleep.  An exit with no entry before it (perf's sampling timer, whose
 * entries are not recorded) changes nothing. */
static void
test_stackless_timer (void)
{
  const char *const *stacks[] = { poll_stack, nanosleep_stack };
  RspCategory want[] = { RSP_CAT_TIMEOUT, RSP_CAT_SLEEP };
  for (guint k = 0; k < G_N_ELEMENTS (stacks); k++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 100 * US, 0, 100, 1, 0, stacks[k]);
      /* the exits of perf's own sampling timer, whose entries rsp record
       * leaves out: each one ends no expiry */
      hrtimer (&s, T0 + 300 * MS, 0, FALSE);
      hrtimer (&s, T0 + 600 * MS, 0, FALSE);
      hrtimer (&s, T0 + 1000 * MS, 0, TRUE);
      waking (&s, T0 + 1000 * MS + 1 * US, 0, 0, 100, NULL);
      hrtimer (&s, T0 + 1000 * MS + 2 * US, 0, FALSE);
      sw (&s, T0 + 1000 * MS + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 1001 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      g_assert_cmpuint (rsp_analysis_category_ns (a, want[k]), >=, 1000 * MS - 100 * US);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_HARDWARE), ==, 0);
      g_assert_cmpint (rsp_analysis_finding (a, 0)->category, ==, want[k]);
    }
}

/* A stackless wake-up right after a completion on the same CPU, with no
 * interrupt bracket recorded, is that completion's. */
static void
test_stackless_disk (void)
{
  g_autoptr (RspModel) m = pread_disk_wait (NULL);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 4 * MS + 2 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_HARDWARE), ==, 0);
}

/* The one sleep of TID that began at START (asserted). */
static const RspSleep *
the_sleep (const RspModel *m, gint32 tid, guint64 start)
{
  const RspSleep *found = NULL;
  guint n = 0;
  for (guint i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      if (rsp_model_task (m, sl->task)->tid == tid && sl->start == start)
        {
          found = sl;
          n++;
        }
    }
  g_assert_cmpuint (n, ==, 1);
  return found;
}

/* The tid whose run woke SL. */
static gint32
waker_tid (const RspModel *m, const RspSleep *sl)
{
  return rsp_model_task (m, rsp_model_run (m, sl->waker_run)->task)->tid;
}

/* A stackless wake-up with no interrupt bracket soon after a completion on
 * the same CPU: the completion's, when it comes inside the run the
 * completion interrupted (an inter-processor interrupt has no bracket);
 * the waker's own, when the waker ran only after the completion (the
 * helper the completion woke passing its answer on through a pipe). */
static void
test_stackless_task_wake (void)
{
  for (guint interrupted = 0; interrupted < 2; interrupted++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 100 * US, 0, 100, 1, 0, user_read);       /* 100 waits for 300's answer */
      sw (&s, T0, 1, 0, 0, 300, NULL);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 200 * US, 1, 300, 4096);
      if (!interrupted)
        sw (&s, T0 + 300 * US, 1, 300, 2, 0, io_stack);        /* 300 waits for its read */
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 300 * US, 1, 300, 4096);
      rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 4 * MS, 1, interrupted ? 300 : 0, 4096);
      if (!interrupted)
        {
          waking (&s, T0 + 4 * MS + 2 * US, 1, 0, 300, NULL);
          sw (&s, T0 + 4 * MS + 10 * US, 1, 0, 0, 300, NULL);
          waking (&s, T0 + 4 * MS + 40 * US, 1, 300, 100, NULL); /* a pipe write, 30 us into its run */
        }
      else
        waking (&s, T0 + 4 * MS + 3 * US, 1, 300, 100, NULL);  /* inside the interrupt */
      sw (&s, T0 + 4 * MS + 60 * US, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 5 * MS, 0, 100, 0x20, 0, NULL);
      sw (&s, T0 + 5 * MS, 1, 300, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      const RspSleep *sl = the_sleep (m, 100, T0 + 100 * US);
      g_assert_cmpint (sl->reason, ==, interrupted ? RSP_WAKE_DISK : RSP_WAKE_RUN);
      if (!interrupted)
        g_assert_cmpint (waker_tid (m, sl), ==, 300);
    }
}

/* A worker seen first when a completion wakes it (it slept since before
 * the recording began) passes the completion on to the task of interest:
 * that task's wait is the worker's wait, for the disk, not unaccounted.
 * Without a stack (RSP recordings) the chain is the only way to know. */
static void
test_first_seen_waker (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 50 * US, 0, 100, 4096);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 60 * US, 0, 100, 4096);
  sw (&s, T0 + 100 * US, 0, 100, 2, 0, io_stack);
  softirq (&s, T0 + 5 * MS, 1, 0, TRUE, 4);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS + 1 * US, 1, 0, 4096);
  waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 400, NULL);   /* the worker, never seen before */
  softirq (&s, T0 + 5 * MS + 3 * US, 1, 0, FALSE, 4);
  waking (&s, T0 + 5 * MS + 40 * US, 1, 400, 100, NULL); /* its switch-in was lost */
  sw (&s, T0 + 5 * MS + 50 * US, 1, 400, 1, 0, NULL);
  sw (&s, T0 + 5 * MS + 60 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, 0);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), >=, 4 * MS);
}

/* A stackless wake-up in receive processing (the network softirq, vector
 * 3): run by the sender's own code (a send over loopback) it is the
 * sender's run, and the client's wait is the server's work — also when a
 * disk interrupt and its softirq (vector 4: one pass at an interrupt's exit
 * would have run 3 first) ended in the sender's run 0.5 us before; at
 * a network interrupt's exit (the softirq right after the handler) it is
 * the network. */
static void
test_stackless_network (void)
{
  for (guint mode = 0; mode < 3; mode++)
    {
      gboolean from_irq = mode == 1;
      Stream s;
      stream_init (&s);
      comm (&s, 200, 200, "server");
      sw (&s, T0, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 100 * US, 0, 100, 1, 0, user_read);        /* the client waits for the answer */
      sw (&s, T0 + 200 * US, 1, 0, 0, 200, NULL);             /* the server works */
      sample (&s, T0 + 1 * MS, 1, 200, user_work);
      sample (&s, T0 + 2 * MS, 1, 200, user_work);
      guint64 t = T0 + 3 * MS;
      if (mode == 1)
        {
          irq (&s, t - 2 * US, 1, TRUE, "virtio0-input.0");
          irq (&s, t - 1 * US, 1, FALSE, "virtio0-input.0");
        }
      else if (mode == 2)
        {
          irq (&s, t - 12 * US, 1, TRUE, "virtio1-req.0");
          irq (&s, t - 11 * US, 1, FALSE, "virtio1-req.0");
          softirq (&s, t - 11 * US + 300, 1, 200, TRUE, 4);
          softirq (&s, t - 500, 1, 200, FALSE, 4);
        }
      softirq (&s, t, 1, 200, TRUE, 3);
      waking (&s, t + 1 * US, 1, 200, 100, NULL);
      softirq (&s, t + 2 * US, 1, 200, FALSE, 3);
      sw (&s, t + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, t + 1 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      if (from_irq)
        g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_NETWORK), ==, 3 * MS - 100 * US + 1 * US);
      else
        g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_NETWORK), ==, 0);
      const RspSleep *sl = the_sleep (m, 100, T0 + 100 * US);
      g_assert_cmpint (sl->reason, ==, from_irq ? RSP_WAKE_NETWORK : RSP_WAKE_RUN);
      if (!from_irq)
        g_assert_cmpint (waker_tid (m, sl), ==, 200);
    }
}

/* A disk's interrupt taken inside a softirq (of any vector): the stackless
 * wake-up in its handler is the disk's, the innermost bracket; a timer's
 * expiry inside the timer softirq stays the timer's.  Before, the softirq
 * decided: a timer softirq made it a timeout, NET_RX a wake-up by the
 * running task, RCU an interrupt. */
static void
test_disk_irq_in_softirq (void)
{
  guint32 vecs[] = { 1, 3, 9 };
  for (guint k = 0; k < G_N_ELEMENTS (vecs); k++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096);
      sw (&s, T0 + 200 * US, 0, 100, 2, 0, io_stack);
      guint64 t = T0 + 5 * MS;
      softirq (&s, t - 20 * US, 1, 0, TRUE, vecs[k]);
      irq (&s, t - 5 * US, 1, TRUE, "nvme0q1");
      rq (&s, RSP_MEV_RQ_COMPLETE, t - 4 * US, 1, 0, 4096);
      waking (&s, t, 1, 0, 100, NULL);
      irq (&s, t + 1 * US, 1, FALSE, "nvme0q1");
      softirq (&s, t + 2 * US, 1, 0, FALSE, vecs[k]);
      sw (&s, t + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, t + 1 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      const RspSleep *sl = the_sleep (m, 100, T0 + 200 * US);
      g_assert_cmpint (sl->reason, ==, RSP_WAKE_DISK);
      g_assert_cmpuint (sl->disk_op, ==, 0);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), >=, 4 * MS);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_TIMEOUT), ==, 0);
    }
  /* the other way round: a timer's expiry in the timer softirq, inside a
   * disk's interrupt that came first (a handler's exit lost) */
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 200 * US, 0, 100, 1, 0, nanosleep_stack);
  guint64 t = T0 + 5 * MS;
  irq (&s, t - 30 * US, 1, TRUE, "nvme0q1");
  softirq (&s, t - 20 * US, 1, 0, TRUE, 1);
  hrtimer (&s, t - 10 * US, 1, TRUE);
  waking (&s, t, 1, 0, 100, NULL);
  hrtimer (&s, t + 1 * US, 1, FALSE);
  softirq (&s, t + 2 * US, 1, 0, FALSE, 1);
  sw (&s, t + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, t + 1 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpint (the_sleep (m, 100, T0 + 200 * US)->reason, ==, RSP_WAKE_TIMER);
}

/* A UDP socket asks two servers in turn (a resolver): each answer's wait
 * names the server asked last, from the route lookup before its send.
 * The socket kept the first peer it was seen with. */
static void
test_udp_peer_per_send (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  for (guint k = 0; k < 2; k++)
    {
      guint64 t = T0 + (1 + 10 * k) * MS;
      route_to (&s, t, 0, 100, (guint8) (1 + k));
      sock_ev (&s, RSP_MEV_SEND, t + 10 * US, 0, 100, 0xa000, 17);
      sw (&s, t + 20 * US, 0, 100, 1, 0, poll_stack);
      softirq (&s, t + 2 * MS, 1, 0, TRUE, 3);
      sock_ev (&s, RSP_MEV_DATA_READY, t + 2 * MS + 1 * US, 1, 0, 0xa000, 17);
      waking (&s, t + 2 * MS + 2 * US, 1, 0, 100, NULL);
      softirq (&s, t + 2 * MS + 3 * US, 1, 0, FALSE, 3);
      sw (&s, t + 2 * MS + 10 * US, 0, 0, 0, 100, NULL);
    }
  sw (&s, T0 + 20 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_net_ops (m), ==, 2);
  g_assert_cmpstr (rsp_model_net_op (m, 0)->endpoint, ==, "10.0.0.1:53");
  g_assert_cmpstr (rsp_model_net_op (m, 1)->endpoint, ==, "10.0.0.2:53");
  g_assert_cmpint (the_sleep (m, 100, T0 + 11 * MS + 20 * US)->reason, ==, RSP_WAKE_NETWORK);
}

/* The analysis of one thread: a sibling thread that was already working
 * when the thread began to wait, and wakes it, is another control path
 * (only the analysed thread is a lane of path 0), its work counted as it
 * would be in another process.  It was taken for a lane of path 0: the
 * wait was "waiting on other path" and the sibling's work on no path. */
static void
test_thread_analysis_sibling (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 100, 100, "server");
  comm (&s, 100, 101, "server/w");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0, 1, 0, 0, 101, NULL); /* the worker thread computes from T0 */
  for (guint k = 1; k < 10; k++)
    sample (&s, T0 + k * MS, 1, 101, user_work);
  sw (&s, T0 + 2 * MS, 0, 100, 1, 0, user_read); /* the thread waits from 2 ms */
  waking (&s, T0 + 10 * MS, 1, 101, 100, user_write_wake);
  sw (&s, T0 + 10 * MS + 10 * US, 1, 101, 1, 0, user_read);
  sw (&s, T0 + 10 * MS + 20 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 11 * MS, 0, 100, 0x20, 0, NULL);
  task_ev (&s, 100, 101);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new_for_thread (m, 100, 100, 0, G_MAXUINT64, NULL);
  g_assert_nonnull (a);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_n_paths (a), ==, 2);
  /* the wait is on the worker's path, whose work is a finding */
  guint64 worker = 0;
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      if (rsp_model_task (m, f->task)->tid == 101 && f->category == RSP_CAT_CPU_SAMPLED)
        worker += f->ns;
    }
  g_assert_cmpuint (worker, >=, 9 * MS);
  /* the whole process: the worker is a lane of path 0, as before */
  g_autoptr (RspAnalysis) whole = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (whole);
  g_assert_cmpuint (rsp_analysis_n_paths (whole), ==, 1);
}

/* The process's main thread exits at 1 ms, its worker runs on to 5 ms:
 * analysed from 2 ms, the target is the worker (it was task 0, another
 * process's). */
static void
test_target_without_main_thread (void)
{
  Stream s;
  stream_init (&s);
  comm (&s, 50, 50, "other");
  comm (&s, 100, 100, "server");
  comm (&s, 100, 101, "server/w");
  sw (&s, T0, 0, 0, 0, 50, NULL);
  sw (&s, T0 + 10 * US, 0, 50, 1, 100, NULL);
  sw (&s, T0 + 20 * US, 1, 0, 0, 101, NULL);
  for (guint k = 1; k < 5; k++)
    sample (&s, T0 + k * MS, 1, 101, user_work);
  sw (&s, T0 + 1 * MS, 0, 100, 0x20, 0, NULL);
  sw (&s, T0 + 5 * MS, 1, 101, 0x20, 0, NULL);
  task_ev (&s, 100, 101);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, T0 + 2 * MS, G_MAXUINT64, NULL);
  g_assert_nonnull (a);
  check_invariants (a);
  g_assert_cmpint (rsp_model_task (m, rsp_analysis_target_task (a))->tid, ==, 101);
  /* from the start, the main thread */
  g_autoptr (RspAnalysis) whole = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  g_assert_cmpint (rsp_model_task (m, rsp_analysis_target_task (whole))->tid, ==, 100);
}

/* Thread T2 of the process waits 1..5 ms for W (another process), which
 * computes from T0, outside the wait: another control path.  Thread T1
 * waits 10..20 ms and W's run 12..18 ms wakes it: a child of that wait.
 * Whichever thread's lane is expanded first, W's 0..5 ms are on a path:
 * W's later segment (12..18) covering nothing of 0..5 was taken for
 * covering it when T1 came first, and those 5 ms were counted nowhere. */
static RspModel *
waits_on_one_waker (gboolean late_first)
{
  Stream s;
  stream_init (&s);
  gint32 t1 = late_first ? 100 : 101, t2 = late_first ? 101 : 100;
  gint32 c1 = t1 == 100 ? 0 : 2, c2 = t2 == 100 ? 0 : 2;
  comm (&s, 100, 100, "app");
  comm (&s, 100, 101, "app");
  comm (&s, 200, 200, "W");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0, 2, 0, 0, 101, NULL);
  sw (&s, T0, 1, 0, 0, 200, NULL);
  for (guint k = 1; k < 5; k++)
    sample (&s, T0 + k * MS, 1, 200, user_work);
  sw (&s, T0 + 1 * MS, c2, t2, 1, 0, user_read);
  waking (&s, T0 + 5 * MS, 1, 200, t2, user_write_wake);
  sw (&s, T0 + 5 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 5 * MS + 20 * US, c2, 0, 0, t2, NULL);
  sw (&s, T0 + 10 * MS, c1, t1, 1, 0, user_read);
  waking (&s, T0 + 11 * MS, c1, 0, 200, NULL);
  sw (&s, T0 + 12 * MS, 1, 0, 0, 200, NULL);
  sample (&s, T0 + 15 * MS, 1, 200, user_work);
  waking (&s, T0 + 18 * MS, 1, 200, t1, user_write_wake);
  sw (&s, T0 + 18 * MS + 10 * US, 1, 200, 1, 0, user_read);
  sw (&s, T0 + 18 * MS + 20 * US, c1, 0, 0, t1, NULL);
  sw (&s, T0 + 21 * MS, 0, 100, 0x20, 0, NULL);
  sw (&s, T0 + 21 * MS, 2, 101, 0x20, 0, NULL);
  task_ev (&s, 100, 101);
  return rsp_assembler_finish (s.as);
}

static void
test_covered_later (void)
{
  guint64 sampled[2], paths[2];
  for (guint late_first = 0; late_first < 2; late_first++)
    {
      g_autoptr (RspModel) m = waits_on_one_waker (late_first);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      sampled[late_first] = rsp_analysis_category_ns (a, RSP_CAT_CPU_SAMPLED);
      paths[late_first] = rsp_analysis_n_paths (a);
      g_assert_cmpuint (sampled[late_first], >=, 11 * MS); /* W's 0..5 and 12..18 */
    }
  g_assert_cmpuint (sampled[0], ==, sampled[1]);
  g_assert_cmpuint (paths[0], ==, paths[1]);
}

/* A run whose width times its samples passes 2^64 (at 1 kHz, a run of
 * more than an hour and 11 minutes; here 10^15 ns with 20,000 samples):
 * the samples' shares of it must still add up to it. */
static void
test_long_run_samples (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  guint64 width = G_GUINT64_CONSTANT (1000000000000000);
  for (guint k = 1; k <= 20000; k++)
    sample (&s, T0 + width / 20001 * k, 0, 100, user_work);
  sw (&s, T0 + width, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_CPU_SAMPLED), ==, width);
}

/* Requeues recorded (block_rq_requeue, in RSP's instance since
 * 2026-11-29): a request the busy device did not take is queued again
 * until its next issue, put back in the queue or not; two flushes issued
 * at sector 0 on two hardware queues are two requests, completed in turn.
 * Without requeues recorded, an issue again is the same request
 * dispatched again: its issue moves (as before). */
static void
test_requeue (void)
{
  for (guint put_back = 0; put_back < 2; put_back++)
    {
      Stream s;
      stream_init (&s);
      rsp_assembler_set_requeues_recorded (s.as, TRUE);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_REQUEUE, T0 + 160 * US, 0, 100, 4096);
      if (put_back)
        rq (&s, RSP_MEV_RQ_INSERT, T0 + 170 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 400 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 900 * US, 1, 0, 4096);
      sw (&s, T0 + 1 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 1);
      const RspDiskOp *op = rsp_model_disk_op (m, 0);
      g_assert_cmpuint (op->insert, ==, T0 + 100 * US);
      g_assert_cmpuint (op->issue, ==, T0 + 400 * US);
      g_assert_cmpuint (op->complete, ==, T0 + 900 * US);
      g_assert_false (op->complete_inferred || op->issue_inferred || op->merged);
      g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, 0);
    }
  for (guint recorded = 0; recorded < 2; recorded++)
    {
      Stream s;
      stream_init (&s);
      rsp_assembler_set_requeues_recorded (s.as, recorded);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      RspModelEvent f = { .kind = RSP_MEV_RQ_ISSUE, .cpu = 0, .pid = 0, .tid = 0 };
      f.u.rq.dev = 0x800010;
      f.u.rq.rwbs = "FF";
      f.time = T0 + 100 * US;
      feed (&s, &f, NULL);
      f.time = T0 + 200 * US;
      feed (&s, &f, NULL);
      f.kind = RSP_MEV_RQ_COMPLETE;
      f.time = T0 + 500 * US;
      feed (&s, &f, NULL);
      f.time = T0 + 700 * US;
      feed (&s, &f, NULL);
      sw (&s, T0 + 1 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, recorded ? 2 : 1);
      const RspDiskOp *first = rsp_model_disk_op (m, 0);
      g_assert_cmpuint (first->issue, ==, recorded ? T0 + 100 * US : T0 + 200 * US);
      g_assert_cmpuint (first->complete, ==, T0 + 500 * US);
      if (recorded)
        {
          const RspDiskOp *second = rsp_model_disk_op (m, 1);
          g_assert_cmpuint (second->issue, ==, T0 + 200 * US);
          g_assert_cmpuint (second->complete, ==, T0 + 700 * US);
        }
    }
}

/* A stackless wake-up from an idle CPU outside any bracket is "an
 * interrupt", not the handler that ran there last and has ended. */
static void
test_ended_irq_not_named (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 200 * US, 0, 100, 1, 0, user_read);
  irq (&s, T0 + 1 * MS, 1, TRUE, "eth0");
  irq (&s, T0 + 1 * MS + 1 * US, 1, FALSE, "eth0");
  waking (&s, T0 + 5 * MS, 1, 0, 100, NULL);
  sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  const RspSleep *sl = the_sleep (m, 100, T0 + 200 * US);
  g_assert_cmpint (sl->reason, ==, RSP_WAKE_IRQ);
  g_assert_cmpstr (sl->irq_name, ==, "interrupt");
}

/* An interrupt handler whose exit was lost stays open 100 ms at most: a
 * stackless wake-up 50 ms after its entry is still its, one 300 ms after
 * is the running task's (it was the handler's, and every later one on
 * that CPU would have been). */
static void
test_lost_irq_exit (void)
{
  const guint64 wake_at[] = { 50 * MS, 300 * MS };
  for (guint k = 0; k < G_N_ELEMENTS (wake_at); k++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 200 * US, 0, 100, 1, 0, user_read);
      irq (&s, T0 + 1 * MS, 1, TRUE, "eth0"); /* its exit is lost */
      sw (&s, T0 + 2 * MS, 1, 0, 0, 200, NULL);
      waking (&s, T0 + wake_at[k], 1, 200, 100, NULL);
      sw (&s, T0 + wake_at[k] + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, T0 + wake_at[k] + 1 * MS, 0, 100, 0x20, 0, NULL);
      sw (&s, T0 + wake_at[k] + 2 * MS, 1, 200, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      const RspSleep *sl = the_sleep (m, 100, T0 + 200 * US);
      if (k == 0)
        {
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_IRQ);
          g_assert_cmpstr (sl->irq_name, ==, "eth0");
          g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_IRQ_EXIT), ==, 0);
        }
      else
        {
          g_assert_cmpint (sl->reason, ==, RSP_WAKE_RUN);
          g_assert_cmpint (rsp_model_task (m, rsp_model_run (m, sl->waker_run)->task)->tid, ==, 200);
          g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_IRQ_EXIT), ==, 1);
        }
    }
}

/* Two disks whose device numbers share their minor number (8:0 and 259:0)
 * with requests at the same sector are two requests: each completes its
 * own.  (The key of the requests in flight dropped the major number.) */
static void
test_disks_same_minor (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  rq_on (&s, RSP_KDEV (8, 0), RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
  rq_on (&s, RSP_KDEV (259, 0), RSP_MEV_RQ_INSERT, T0 + 110 * US, 0, 100, 4096);
  rq_on (&s, RSP_KDEV (8, 0), RSP_MEV_RQ_ISSUE, T0 + 120 * US, 0, 100, 4096);
  rq_on (&s, RSP_KDEV (259, 0), RSP_MEV_RQ_ISSUE, T0 + 130 * US, 0, 100, 4096);
  rq_on (&s, RSP_KDEV (259, 0), RSP_MEV_RQ_COMPLETE, T0 + 1 * MS, 1, 0, 4096);
  rq_on (&s, RSP_KDEV (8, 0), RSP_MEV_RQ_COMPLETE, T0 + 2 * MS, 1, 0, 4096);
  sw (&s, T0 + 3 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 2);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, 0);
  const RspDiskOp *sda = rsp_model_disk_op (m, 0), *nvme = rsp_model_disk_op (m, 1);
  g_assert_cmpuint (sda->dev, ==, RSP_KDEV (8, 0));
  g_assert_cmpuint (sda->issue, ==, T0 + 120 * US);
  g_assert_cmpuint (sda->complete, ==, T0 + 2 * MS);
  g_assert_cmpuint (nvme->issue, ==, T0 + 130 * US);
  g_assert_cmpuint (nvme->complete, ==, T0 + 1 * MS);
}

/* The same sector queued again while its request is in flight (requeued,
 * or its completion lost): an issued request ended by then (its completion
 * inferred, counted once), so it is not "in service" for every later wait
 * on the device; one never issued is counted once, when its merge is
 * inferred. */
static void
test_requeued_request (void)
{
  for (guint issued = 0; issued < 2; issued++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
      if (issued)
        rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 300 * US, 0, 100, 4096); /* again */
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 400 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 600 * US, 1, 0, 4096);
      /* later, an ordinary read queued 0.9 ms, then served 1 ms */
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 1 * MS, 0, 100, 8192);
      sw (&s, T0 + 1 * MS + 100 * US, 0, 100, 2, 0, io_stack);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 2 * MS, 1, 0, 8192);
      rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 3 * MS, 1, 0, 8192);
      waking (&s, T0 + 3 * MS + 2 * US, 1, 0, 100, disk_wake);
      sw (&s, T0 + 3 * MS + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, 1);
      const RspDiskOp *first = rsp_model_disk_op (m, 0);
      g_assert_true (first->complete_inferred);
      g_assert_cmpuint (first->complete, ==, issued ? T0 + 300 * US : T0 + 400 * US);
      g_assert_cmpint (first->merged, ==, !issued);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE), ==, 900 * US);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 1 * MS + 2 * US);
    }
}

/* A request whose completion was inferred (its task's wait in io_schedule
 * ended, nothing recorded) is in flight no more: an issue at its sector
 * later (a plain perf.data, requeues unrecorded) is another request, and
 * the wait stays disk time.  Before, the issue moved to 6 ms, after the
 * inferred completion at 5 ms, and the wait became I/O queue. */
static void
test_inferred_completion_done (void)
{
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  read_and_wait (&s, T0 + 100 * US, 4096);
  sw (&s, T0 + 5 * MS, 0, 0, 0, 100, NULL); /* no completion, no wake-up */
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 6 * MS, 1, 0, 4096);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 7 * MS, 1, 0, 4096);
  sw (&s, T0 + 8 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 2);
  const RspDiskOp *first = rsp_model_disk_op (m, 0), *second = rsp_model_disk_op (m, 1);
  g_assert_cmpuint (first->issue, ==, T0 + 150 * US);
  g_assert_cmpuint (first->complete, ==, T0 + 5 * MS);
  g_assert_true (first->complete_inferred);
  g_assert_cmpuint (second->issue, ==, T0 + 6 * MS);
  g_assert_cmpuint (second->complete, ==, T0 + 7 * MS);
  g_assert_false (second->complete_inferred);
  g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_MISSING_COMPLETION), ==, 1);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_DISK_IO), ==, 5 * MS - 200 * US);
  g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE), ==, 0);
}

/* Plain perf.data drops the wake-ups that fire in interrupt context on idle
 * CPUs.  With none recorded, the sleeper's own stack decides, and the time
 * is marked inferred: waiting in io_schedule with a request of its own in
 * flight is that request (its completion inferred too); poll is a timeout;
 * nanosleep a deliberate sleep.  A pipe read stays unaccounted. */
static void
test_inferred_from_stack (void)
{
  const char *const *stacks[] = { io_stack, poll_stack, nanosleep_stack, user_read };
  RspCategory want[] = { RSP_CAT_DISK_IO, RSP_CAT_TIMEOUT, RSP_CAT_SLEEP, RSP_CAT_UNACCOUNTED };
  for (guint k = 0; k < G_N_ELEMENTS (stacks); k++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096);
      sw (&s, T0 + 200 * US, 0, 100, k == 0 ? 2 : 1, 0, stacks[k]);
      /* no completion, no wake-up: the task simply runs again */
      sw (&s, T0 + 5 * MS, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      g_assert_cmpuint (rsp_analysis_category_ns (a, want[k]), ==, 5 * MS - 200 * US);
      guint64 inferred = 0;
      for (guint c = 0; c < RSP_CAT_N; c++)
        inferred += rsp_analysis_inferred_ns (a, c);
      if (want[k] == RSP_CAT_UNACCOUNTED)
        {
          g_assert_cmpuint (inferred, ==, 0);
          continue;
        }
      g_assert_cmpuint (rsp_analysis_inferred_ns (a, want[k]), ==, 5 * MS - 200 * US);
      g_assert_cmpuint (inferred, ==, 5 * MS - 200 * US);
      g_assert_cmpuint (rsp_model_anomaly_count (m, k == 0 ? RSP_ANOMALY_INFERRED_DISK : RSP_ANOMALY_INFERRED_TIMER),
                        ==, 1);
      if (k == 0)
        {
          g_assert_true (rsp_model_disk_op (m, 0)->complete_inferred);
          g_assert_cmpuint (rsp_model_disk_op (m, 0)->complete, ==, T0 + 5 * MS);
        }
    }
}

/* An fsync often waits for writeback that another task issued (the
 * flusher kworker, the journal thread): with the wake-up dropped, that
 * request in flight during the sleep is what it waited for; the other
 * task's request gets no inferred completion, and the wait ends at the
 * sleep's end.  With no request in flight at all, the wait stays a kernel
 * block: the stack alone does not prove a disk. */
static void
test_inferred_other_writeback (void)
{
  for (guint k = 0; k < 3; k++)
    {
      Stream s;
      stream_init (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      if (k < 2)
        {
          /* the flusher (tid 300) issued the writeback before the fsync */
          rq (&s, RSP_MEV_RQ_INSERT, T0 + 50 * US, 1, 300, 4096);
          rq (&s, RSP_MEV_RQ_ISSUE, T0 + 60 * US, 1, 300, 4096);
        }
      sw (&s, T0 + 200 * US, 0, 100, 2, 0, io_stack);
      if (k == 1)
        rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 3 * MS, 1, 0, 4096);
      sw (&s, T0 + 5 * MS, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      RspCategory want = k < 2 ? RSP_CAT_DISK_IO : RSP_CAT_KERNEL_MISC;
      g_assert_cmpuint (rsp_analysis_category_ns (a, want), ==, 5 * MS - 200 * US);
      g_assert_cmpuint (rsp_analysis_category_ns (a, RSP_CAT_SCHEDULER), ==, 0);
      g_assert_cmpuint (rsp_analysis_inferred_ns (a, RSP_CAT_DISK_IO), ==, k < 2 ? 5 * MS - 200 * US : 0);
      g_assert_cmpuint (rsp_model_anomaly_count (m, RSP_ANOMALY_INFERRED_DISK), ==, k < 2 ? 1 : 0);
      if (k == 0)
        {
          /* not our request: its completion is not invented */
          g_assert_false (rsp_model_disk_op (m, 0)->complete_inferred);
          g_assert_cmpuint (rsp_model_disk_op (m, 0)->complete, ==, 0);
        }
    }
}

/* Thousands of requests in flight at once, on two devices, completed in
 * a shuffled order: each completion finds its own request (the table of
 * requests in flight grows, and keeps finding keys past the ones removed
 * before them); a second request queued at a key in flight ends the first
 * (its completion lost), and a completion at a key none is in flight at
 * is ignored. */
static void
test_disk_many_in_flight (void)
{
  enum { N = 6000 };
  Stream s;
  stream_init (&s);
  sw (&s, T0, 0, 0, 0, 100, NULL);
  guint32 devs[2] = { 0x800010, 0x10300000 };
  /* sectors at random (sequential ones would spread over the table
   * without a collision), the same on both devices two by two */
  GRand *rand = g_rand_new_with_seed (15);
  static guint64 sectors[N];
  for (guint i = 0; i < N; i += 2)
    {
      sectors[i] = sectors[i + 1] = ((guint64) g_rand_int (rand) << 20 | (g_rand_int (rand) & 0xfffff)) * 8;
      for (guint j = 0; j < i; j += 2)
        if (sectors[j] == sectors[i])
          sectors[i] = sectors[i + 1] = sectors[i] + 8; /* distinct (twice the same: the test would be wrong) */
    }
  for (guint i = 0; i < N; i++)
    {
      guint64 sector = sectors[i];
      rq_on (&s, devs[i % 2], RSP_MEV_RQ_INSERT, T0 + (i + 1) * US, 0, 100, sector);
      rq_on (&s, devs[i % 2], RSP_MEV_RQ_ISSUE, T0 + (i + 1) * US + 1, 0, 100, sector);
    }
  guint order[N];
  for (guint i = 0; i < N; i++)
    order[i] = i;
  for (guint i = N - 1; i > 0; i--)
    {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  g_rand_free (rand);
  guint64 t = T0 + 10 * MS;
  for (guint k = 0; k < N; k++, t += US)
    {
      guint i = order[k];
      rq_on (&s, devs[i % 2], RSP_MEV_RQ_COMPLETE, t, 1, 0, sectors[i]);
    }
  /* none in flight there any more */
  rq_on (&s, devs[0], RSP_MEV_RQ_COMPLETE, t, 1, 0, sectors[0]);
  sw (&s, t + US, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, N);
  for (guint k = 0; k < N; k++)
    {
      const RspDiskOp *op = rsp_model_disk_op (m, order[k]);
      g_assert_cmpuint (op->insert, ==, T0 + (order[k] + 1) * US);
      g_assert_cmpuint (op->issue, ==, op->insert + 1);
      g_assert_cmpuint (op->complete, ==, T0 + 10 * MS + k * US);
    }
}

/* ------------------------------------------------------------------ files */

static void
file_ev (Stream *s, guint64 t, gint32 cpu, gint32 tid, guint32 dev, guint64 ino)
{
  RspModelEvent ev = { .kind = RSP_MEV_FILE, .time = t, .cpu = cpu, .pid = tid, .tid = tid };
  ev.u.file.dev = dev;
  ev.u.file.ino = ino;
  feed (s, &ev, NULL);
}

static const char *const fsync_io_stack[] = { "schedule", "io_schedule", "folio_wait_writeback", "ext4_sync_file",
                                              "vfs_fsync_range", "do_fsync", "|", "fsync", "main", NULL };
static const char *const unlink_io_stack[] = { "schedule", "io_schedule", "__wait_on_buffer", "do_unlinkat", "|",
                                               "unlink", "main", NULL };
static const char *const journal_wait_stack[] = { "schedule", "jbd2_log_wait_commit", "ext4_sync_file", "do_fsync",
                                                  "|", "fsync", "main", NULL };
static const char *const kthread_io_stack[] = { "schedule", "io_schedule", "__wait_on_buffer",
                                                "jbd2_journal_commit_transaction", NULL };

static const char files_section[] = "254 0 77 /var/lib/db\n";

/* A stream whose assembler names files from files_section: the table,
 * which the caller keeps until the assembly is done. */
static RspFileTable *
stream_init_with_files (Stream *s)
{
  RspFileTable *table = rsp_file_table_parse ((const guint8 *) files_section, sizeof files_section - 1, NULL);
  stream_init (s);
  rsp_assembler_set_files (s->as, table);
  return table;
}

/* The disk finding of A that has the most time, and its file. */
static const RspFinding *
disk_finding (const RspAnalysis *a)
{
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    if (rsp_analysis_finding (a, i)->category == RSP_CAT_DISK_IO)
      return rsp_analysis_finding (a, i);
  return NULL;
}

/* A disk wait inside a system call on a file names the file of the task's
 * latest file event: its stored path, else device and inode.  A wait whose
 * stack is no file I/O (unlink), or after the task was seen back in user
 * space, names none. */
static void
test_file_of_disk_wait (void)
{
  enum { NAMED, UNNAMED, NOT_FILE_IO, BACK_IN_USER };
  for (guint k = NAMED; k <= BACK_IN_USER; k++)
    {
      Stream s;
      g_autoptr (RspFileTable) table = stream_init_with_files (&s);
      sw (&s, T0, 0, 0, 0, 100, NULL);
      file_ev (&s, T0 + 50 * US, 0, 100, RSP_KDEV (254, 0), k == UNNAMED ? 78 : 77);
      if (k == BACK_IN_USER)
        sample (&s, T0 + 70 * US, 0, 100, user_work);
      rq (&s, RSP_MEV_RQ_INSERT, T0 + 100 * US, 0, 100, 4096);
      rq (&s, RSP_MEV_RQ_ISSUE, T0 + 150 * US, 0, 100, 4096);
      sw (&s, T0 + 200 * US, 0, 100, 2, 0, k == NOT_FILE_IO ? unlink_io_stack : fsync_io_stack);
      rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 5 * MS, 1, 0, 4096);
      waking (&s, T0 + 5 * MS + 2 * US, 1, 0, 100, disk_wake);
      sw (&s, T0 + 5 * MS + 10 * US, 0, 0, 0, 100, NULL);
      sw (&s, T0 + 6 * MS, 0, 100, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      const char *want = k == NAMED ? "/var/lib/db" : k == UNNAMED ? "device 254:0 inode 78" : NULL;
      const RspFinding *f = disk_finding (a);
      g_assert_nonnull (f);
      g_assert_cmpstr (f->file, ==, want);
      g_assert_cmpuint (f->ns, ==, 5 * MS + 2 * US - 200 * US);
      g_autoptr (GArray) files = rsp_analysis_file_totals (a);
      g_assert_cmpuint (files->len, ==, 1);
      const RspFileTotal *t = &g_array_index (files, RspFileTotal, 0);
      g_assert_cmpstr (t->file, ==, want);
      g_assert_cmpuint (t->ns, ==, f->ns);
      g_assert_cmpuint (t->waits, ==, 1);
      /* the stretches carry it too, for the views */
      for (guint i = 0; i < rsp_analysis_n_stretches (a); i++)
        {
          const RspStretch *x = rsp_analysis_stretch (a, i);
          g_assert_cmpstr (x->file, ==, x->category == RSP_CAT_DISK_IO ? want : NULL);
        }
    }
}

/* fsync waits for the journal thread, which waits for the disk: that disk
 * wait, found through the wake-up, names the file the fsync was for. */
static void
test_file_through_journal (void)
{
  Stream s;
  g_autoptr (RspFileTable) table = stream_init_with_files (&s);
  comm (&s, 200, 200, "jbd2/vda-8");
  sw (&s, T0, 0, 0, 0, 100, NULL);
  sw (&s, T0, 1, 0, 0, 200, NULL);
  file_ev (&s, T0 + 10 * US, 0, 100, RSP_KDEV (254, 0), 77);
  sw (&s, T0 + 100 * US, 0, 100, 2, 0, journal_wait_stack);
  rq (&s, RSP_MEV_RQ_INSERT, T0 + 200 * US, 1, 200, 4096);
  rq (&s, RSP_MEV_RQ_ISSUE, T0 + 250 * US, 1, 200, 4096);
  sw (&s, T0 + 300 * US, 1, 200, 2, 0, kthread_io_stack);
  rq (&s, RSP_MEV_RQ_COMPLETE, T0 + 3 * MS, 1, 0, 4096);
  waking (&s, T0 + 3 * MS + 2 * US, 1, 0, 200, disk_wake);
  sw (&s, T0 + 3 * MS + 10 * US, 1, 0, 0, 200, NULL);
  waking (&s, T0 + 3500 * US, 1, 200, 100, user_write_wake);
  sw (&s, T0 + 3600 * US, 1, 200, 1, 0, NULL);
  sw (&s, T0 + 3600 * US, 0, 0, 0, 100, NULL);
  sw (&s, T0 + 4 * MS, 0, 100, 0x20, 0, NULL);
  g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
  check_invariants (a);
  const RspFinding *f = disk_finding (a);
  g_assert_nonnull (f);
  g_assert_cmpstr (rsp_model_task (m, f->task)->comm, ==, "jbd2/vda-8");
  g_assert_cmpstr (f->file, ==, "/var/lib/db");
  g_autoptr (GArray) files = rsp_analysis_file_totals (a);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (g_array_index (files, RspFileTotal, 0).file, ==, "/var/lib/db");
  g_assert_cmpuint (g_array_index (files, RspFileTotal, 0).ns, ==, rsp_analysis_category_ns (a, RSP_CAT_DISK_IO));
}

/* A flusher's disk request names the inode it wrote back last, for
 * RSP_FILE_VALID_NS, as the device and inode of that file event (named
 * only where a wait takes it: the writeback of a copy of many files has a
 * request for each, and a burst of writeback events names tens of
 * thousands of inodes).  A task that waits for such a request of another
 * task names the request's file: its stored path, else device and inode,
 * else the inode alone. */
static void
test_file_of_flusher_request (void)
{
  enum { NAMED, UNNAMED, NO_DEVICE, N_CASES };
  for (guint c = NAMED; c < N_CASES; c++)
    {
      Stream s;
      g_autoptr (RspFileTable) table = stream_init_with_files (&s);
      comm (&s, 300, 300, "kworker/u8:1");
      sw (&s, T0, 0, 0, 0, 300, NULL);
      sw (&s, T0, 1, 0, 0, 100, NULL);
      guint64 t = T0 + US;
      for (guint64 ino = 1000; ino < 3000; ino++, t += US)
        file_ev (&s, t, 0, 300, RSP_KDEV (254, 0), ino);
      file_ev (&s, t, 0, 300, RSP_KDEV (254, 0), 77);
      rq (&s, RSP_MEV_RQ_INSERT, t + US, 0, 300, 8);
      file_ev (&s, t + 2 * US, 0, 300, RSP_KDEV (254, 0), 78);
      rq (&s, RSP_MEV_RQ_INSERT, t + 3 * US, 0, 300, 16);
      file_ev (&s, t + 4 * US, 0, 300, 0, 79);
      rq (&s, RSP_MEV_RQ_INSERT, t + 5 * US, 0, 300, 24);
      /* the request task 100 waits for (its writeback of the file) */
      static const RspFileId waited[N_CASES] = { { RSP_KDEV (254, 0), 77 }, { RSP_KDEV (254, 0), 78 }, { 0, 79 } };
      file_ev (&s, t + 6 * US, 0, 300, waited[c].dev, waited[c].ino);
      rq (&s, RSP_MEV_RQ_INSERT, t + 7 * US, 0, 300, 32);
      rq (&s, RSP_MEV_RQ_ISSUE, t + 8 * US, 0, 300, 32);
      sw (&s, t + 10 * US, 1, 100, 2, 0, fsync_io_stack);
      rq (&s, RSP_MEV_RQ_COMPLETE, t + 3 * MS, 0, 300, 32);
      waking (&s, t + 3 * MS + 2 * US, 0, 300, 100, disk_wake);
      sw (&s, t + 3 * MS + 10 * US, 1, 0, 0, 100, NULL);
      sw (&s, t + 4 * MS, 1, 100, 0x20, 0, NULL);
      /* too long after its latest file event: none */
      rq (&s, RSP_MEV_RQ_INSERT, t + 6 * US + RSP_FILE_VALID_NS + 1, 0, 300, 40);
      sw (&s, t + 6 * US + RSP_FILE_VALID_NS + 2, 0, 300, 0x20, 0, NULL);
      g_autoptr (RspModel) m = rsp_assembler_finish (s.as);
      g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 5);
      const RspFileId want[] = { { RSP_KDEV (254, 0), 77 }, { RSP_KDEV (254, 0), 78 }, { 0, 79 }, waited[c], { 0, 0 } };
      for (guint i = 0; i < G_N_ELEMENTS (want); i++)
        {
          g_assert_cmpuint (rsp_model_disk_op (m, i)->file.dev, ==, want[i].dev);
          g_assert_cmpuint (rsp_model_disk_op (m, i)->file.ino, ==, want[i].ino);
        }
      g_autoptr (RspAnalysis) a = rsp_analysis_new (m, 100, 0, G_MAXUINT64, NULL);
      check_invariants (a);
      const RspFinding *f = disk_finding (a);
      g_assert_nonnull (f);
      static const char *const label[N_CASES] = { "/var/lib/db", "device 254:0 inode 78", "inode 79" };
      g_assert_cmpstr (f->file, ==, label[c]);
    }
}

/* The table of stretches is grouped by segment, each segment's in time
 * order, and the sort is stable: stretches that start together keep the
 * order they were made in.  The accounting makes each segment's in time
 * order; a segment whose are not is sorted. */
static void
test_index_stretches (void)
{
  RspAnalysis a = { 0 };
  a.segments = g_array_new (FALSE, TRUE, sizeof (RspSegment));
  g_array_set_size (a.segments, 4); /* segment 3 has none */
  a.stretches = g_array_new (FALSE, FALSE, sizeof (RspStretch));
  /* (segment, start, tag): segment 1's in time order, with a tie; segment 0's not */
  static const guint64 made[][3] = {
    { 2, 50, 0 }, { 1, 10, 1 }, { 0, 30, 2 }, { 1, 20, 3 }, { 0, 10, 4 }, { 1, 20, 5 }, { 0, 30, 6 }, { 0, 20, 7 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    {
      RspStretch st = { .start = made[i][1], .end = made[i][1] + 1, .segment = (RspIdx) made[i][0],
                        .sample = (RspIdx) made[i][2] };
      g_array_append_val (a.stretches, st);
    }
  analysis_index_stretches (&a);
  static const guint expect[] = { 4, 7, 2, 6, 1, 3, 5, 0 }; /* tags */
  g_assert_cmpuint (a.stretches->len, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpuint (g_array_index (a.stretches, RspStretch, i).sample, ==, expect[i]);
  static const guint32 first[] = { 0, 4, 7, 8, 8 };
  g_assert_cmpmem (a.seg_first_stretch, sizeof first, first, sizeof first);
  guint n;
  const RspStretch *st = rsp_analysis_segment_stretches (&a, 1, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (st[0].start, ==, 10);
  g_assert_null (rsp_analysis_segment_stretches (&a, 3, &n));
  g_assert_cmpuint (n, ==, 0);
  g_array_unref (a.segments);
  g_array_unref (a.stretches);
  g_free (a.seg_first_stretch);
}

/* The model's table of stacks: one id per distinct stack, in the order
 * first seen, found again through the table's growth; stacks that hash
 * alike (the same addresses, symbols and length, another file: stacks 2k+1
 * and 2k+2) stay apart; and frame names wait for rsp_model_name_frames(),
 * which names each once. */
static void
test_stack_table (void)
{
  RspModel *m = rsp_model_new ();
  const char *dso_a = g_intern_static_string ("/usr/bin/a"), *dso_b = g_intern_static_string ("/usr/bin/b");
  enum { N = 5000 };
  RspModelFrame f[3];
  for (guint i = 0; i < N; i++)
    {
      for (guint k = 0; k < 3; k++)
        f[k] = (RspModelFrame){ NULL, i % 2 == 0 ? dso_a : dso_b, 0x1000 + (i / 2) * 16 + k, 0x100 + k, FALSE, NULL };
      g_assert_cmpuint (rsp_model_intern_stack (m, f, 1 + (i / 2) % 3), ==, i + 1);
    }
  g_assert_cmpuint (rsp_model_intern_stack (m, f, 0), ==, 0);
  for (guint i = 0; i < N; i++)
    {
      for (guint k = 0; k < 3; k++)
        f[k] = (RspModelFrame){ NULL, i % 2 == 0 ? dso_a : dso_b, 0x1000 + (i / 2) * 16 + k, 0x100 + k, FALSE, NULL };
      g_assert_cmpuint (rsp_model_intern_stack (m, f, 1 + (i / 2) % 3), ==, i + 1);
      guint n;
      const RspModelFrame *got = rsp_model_stack_unnamed (m, i + 1, &n);
      g_assert_cmpuint (n, ==, 1 + (i / 2) % 3);
      g_assert_true (got[0].dso == f[0].dso && got[0].ip == f[0].ip && got[0].name == NULL);
    }
  /* not assembled: nothing to name yet */
  rsp_model_name_frames (m);
  g_assert_null (rsp_model_stack_unnamed (m, 1, &(guint){ 0 })[0].name);
  rsp_model_compute_frames (m);
  guint n;
  const RspModelFrame *named = rsp_model_stack (m, 4, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (named[0].name, ==, "b+0x100");
  g_assert_cmpstr (named[1].name, ==, "b+0x101");
  const char *first = named[0].name;
  rsp_model_name_frames (m);
  g_assert_true (rsp_model_stack (m, 4, &n)[0].name == first);
  rsp_model_unref (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/call-return", test_call_return);
  g_test_add_func ("/model/stack-table", test_stack_table);
  g_test_add_func ("/model/timeout-merging", test_timeout_merging);
  g_test_add_func ("/model/deliberate-sleep", test_deliberate_sleep);
  g_test_add_func ("/model/reserve", test_reserve);
  g_test_add_func ("/model/run-order", test_run_order);
  g_test_add_func ("/model/recorded-switches", test_recorded_switches);
  g_test_add_func ("/model/triangle-cut", test_triangle_cut);
  g_test_add_func ("/model/other-path", test_other_path);
  g_test_add_func ("/model/hand-off", test_hand_off);
  g_test_add_func ("/model/fork-exec-origin", test_fork_exec_origin);
  g_test_add_func ("/model/other-path-across-exec", test_other_path_across_exec);
  g_test_add_func ("/model/vfork-exec-hand-off", test_vfork_exec_hand_off);
  g_test_add_func ("/model/vfork-lost-switch-in", test_vfork_lost_switch_in);
  g_test_add_func ("/model/own-threads", test_own_threads);
  g_test_add_func ("/model/interrupt", test_interrupt);
  g_test_add_func ("/model/disk", test_disk);
  g_test_add_func ("/model/disk-many-in-flight", test_disk_many_in_flight);
  g_test_add_func ("/model/open-request-own", test_open_request_own);
  g_test_add_func ("/model/merged-request", test_merged_request);
  g_test_add_func ("/model/merged-request-inferred", test_merged_request_inferred);
  g_test_add_func ("/model/open-request-device", test_open_request_device);
  g_test_add_func ("/model/flush-wait", test_flush_wait);
  g_test_add_func ("/model/stackless-timer", test_stackless_timer);
  g_test_add_func ("/model/stackless-disk", test_stackless_disk);
  g_test_add_func ("/model/stackless-network", test_stackless_network);
  g_test_add_func ("/model/disk-irq-in-softirq", test_disk_irq_in_softirq);
  g_test_add_func ("/model/ended-irq-not-named", test_ended_irq_not_named);
  g_test_add_func ("/model/lost-irq-exit", test_lost_irq_exit);
  g_test_add_func ("/model/udp-peer-per-send", test_udp_peer_per_send);
  g_test_add_func ("/model/thread-analysis-sibling", test_thread_analysis_sibling);
  g_test_add_func ("/model/covered-later", test_covered_later);
  g_test_add_func ("/model/long-run-samples", test_long_run_samples);
  g_test_add_func ("/model/requeue", test_requeue);
  g_test_add_func ("/model/disks-same-minor", test_disks_same_minor);
  g_test_add_func ("/model/requeued-request", test_requeued_request);
  g_test_add_func ("/model/inferred-completion-done", test_inferred_completion_done);
  g_test_add_func ("/model/disk-wake-not-before-wait", test_disk_wake_not_before_wait);
  g_test_add_func ("/model/disk-wake-not-long-lost", test_disk_wake_not_long_lost);
  g_test_add_func ("/model/target-without-main-thread", test_target_without_main_thread);
  g_test_add_func ("/model/stackless-task-wake", test_stackless_task_wake);
  g_test_add_func ("/model/first-seen-waker", test_first_seen_waker);
  g_test_add_func ("/model/inferred-from-stack", test_inferred_from_stack);
  g_test_add_func ("/model/inferred-other-writeback", test_inferred_other_writeback);
  g_test_add_func ("/model/file-of-disk-wait", test_file_of_disk_wait);
  g_test_add_func ("/model/file-through-journal", test_file_through_journal);
  g_test_add_func ("/model/file-of-flusher-request", test_file_of_flusher_request);
  g_test_add_func ("/model/missing-completion", test_missing_completion);
  g_test_add_func ("/model/preemption", test_preemption);
  g_test_add_func ("/model/missing-switches", test_missing_switches);
  g_test_add_func ("/model/missing-wakeup", test_missing_wakeup);
  g_test_add_func ("/model/early-wakeup", test_early_wakeup);
  g_test_add_func ("/model/inferred-run", test_inferred_run);
  g_test_add_func ("/model/sample-grace", test_sample_grace);
  g_test_add_func ("/model/index-stretches", test_index_stretches);
  return g_test_run ();
}
