/* rsp-model-event.h — the events the model is built from, decoded once
 * from perf records (rsp-event-decoder.c) or written directly by tests.
 *
 * The assembler (rsp-assembler.c) consumes these in time order; it never
 * sees perf.data or tracepoint formats.
 */
#pragma once

#include "rsp-model.h"
#include "rsp-files.h"

G_BEGIN_DECLS

typedef enum {
  RSP_MEV_SWITCH,        /* sched_switch */
  RSP_MEV_WAKING,        /* sched_waking, in the waker's context */
  RSP_MEV_WAKEUP_NEW,    /* sched_wakeup_new, in the forker's context */
  RSP_MEV_FORK,          /* sched_process_fork */
  RSP_MEV_EXEC,          /* sched_process_exec */
  RSP_MEV_RQ_INSERT,
  RSP_MEV_RQ_ISSUE,
  RSP_MEV_RQ_COMPLETE,
  RSP_MEV_RQ_MERGE,      /* block_rq_merge: a queued request merged into another, never issued */
  RSP_MEV_RQ_REQUEUE,    /* block_rq_requeue: an issued request the device did not take, queued again */
  RSP_MEV_IRQ_ENTRY,
  RSP_MEV_IRQ_EXIT,
  RSP_MEV_SOFTIRQ_ENTRY,
  RSP_MEV_SOFTIRQ_EXIT,
  RSP_MEV_HRTIMER_ENTRY, /* hrtimer_expire_entry: a timer's callback runs */
  RSP_MEV_HRTIMER_EXIT,
  RSP_MEV_SEND,          /* sock_send_length */
  RSP_MEV_RECV,          /* sock_recv_length */
  RSP_MEV_PROBE,         /* rsp record --probe: a uprobe on a function's entry or return */
  RSP_MEV_DATA_READY,    /* sk_data_ready */
  RSP_MEV_SOCK_STATE,    /* inet_sock_set_state */
  RSP_MEV_FIB,           /* fib_table_lookup: the peer of a send about to happen */
  RSP_MEV_FILE,          /* an event naming the file the task does I/O on (rsp-files.h) */
  RSP_MEV_SAMPLE,        /* cpu-clock */
  RSP_MEV_COMM,          /* PERF_RECORD_COMM */
  RSP_MEV_TASK,          /* PERF_RECORD_FORK: tells a thread's process */
  RSP_MEV_LOST,          /* PERF_RECORD_LOST */
  RSP_MEV_OTHER,         /* any other event: only extends the time range */
} RspModelEventKind;

typedef struct {
  RspModelEventKind kind;
  guint64 time;
  gint32 cpu;
  gint32 pid, tid;              /* context: who was running (0 = idle) */
  const RspModelFrame *frames;  /* context stack, innermost first (SWITCH: prev's; WAKING: waker's; SAMPLE) */
  guint n_frames;
  /* 0, or FRAMES are the decoder's chain number CHAIN - 1: an index into
   * the array given to rsp_assembler_set_chain_stacks(), where the
   * assembler keeps the stack id the frames intern to (interned at most
   * once per distinct callchain instead of per event).  In what was
   * padding: a larger event made a large report 9% slower. */
  guint32 chain;
  union {
    struct { gint32 prev_tid, next_tid; guint32 prev_state; } sw;
    struct { gint32 tid; } wake;
    struct { gint32 parent_tid, child_tid; const char *child_comm; } fork;
    struct { const char *filename; } exec;
    struct { guint32 dev; guint64 sector; guint32 nr_sector; const char *rwbs; } rq;
    struct { const char *name; } irq;
    struct { guint32 vec; } softirq;
    struct { guint64 sk; guint16 protocol; gint32 ret, flags; } sock;
    struct { guint8 proto; guint32 daddr; guint16 dport; } fib; /* daddr as in memory */
    struct { guint64 sk; guint16 family, protocol; guint32 daddr; guint16 sport, dport; gint32 newstate; } state; /* daddr as in memory */
    struct { gint32 pid, tid; const char *comm; gboolean exec; } comm;
    struct { gint32 pid, tid; } task;
    struct { guint64 lost; } lost;
    struct { guint32 dev; guint64 ino; } file; /* dev: kernel encoding, 0 unknown */
    struct { const char *function; gboolean ret; } probe; /* the event's name: lives as long as the reader */
  } u;
} RspModelEvent;

typedef struct _RspAssembler RspAssembler;

/* IGNORED_PIDS (may be NULL): pids whose tasks are marked ignored (rsp
 * record's --keep-awake spinners). */
RspAssembler *rsp_assembler_new (const GArray *ignored_pids);
/* The recording's file names (rsp-files.h), used while feeding; FILES may be
 * NULL (no names: files are named by device and inode). */
void rsp_assembler_set_files (RspAssembler *self, const RspFileTable *files);
/* Whether the recording records block_rq_requeue (RSP's instance does
 * since 2026-11-29): then a request issued at a sector where another is in
 * flight and was not requeued is another request (two flushes on two
 * hardware queues), completed after it; without, it is taken for the same
 * request dispatched again (the device was busy), its issue moved. */
void rsp_assembler_set_requeues_recorded (RspAssembler *self, gboolean recorded);
/* Room, before the first event, for the arrays that grow with each
 * context switch (runs, sleeps, wake-up links), from the number the
 * recording says it holds: grown by doubling, each is copied about once
 * more and leaves its old blocks behind.  Up to 256 MB each, huge pages
 * asked for (rsp-model.c, reserve()). */
void rsp_assembler_reserve (RspAssembler *self, guint64 n_switches);
/* The decoder's array of stack ids (RspStackId, 0: not interned yet) by
 * chain number (RspModelEvent.chain); the decoder grows it and empties it,
 * the assembler fills it in.  NULL: none (events with a chain number must
 * not be fed). */
void rsp_assembler_set_chain_stacks (RspAssembler *self, GArray *stacks);
/* The frames of STACK in the model being built (N_FRAMES of them): valid
 * until the next stack is interned. */
const RspModelFrame *rsp_assembler_stack (RspAssembler *self, RspStackId stack, guint *n_frames);
void rsp_assembler_feed (RspAssembler *self, const RspModelEvent *event);
/* N events the reader stepped over (of a kind the model has no use for:
 * RSP_MEV_OTHER) since the last call, the earliest and latest times of all
 * it stepped over so far (0: none had one): what feeding them would have
 * changed, the time range and the count of events. */
void rsp_assembler_note_unread (RspAssembler *self, guint64 n, guint64 first_time, guint64 last_time);
/* Closes what is still open and returns the model (the assembler is freed). */
RspModel *rsp_assembler_finish (RspAssembler *self);
void rsp_assembler_free (RspAssembler *self);

G_END_DECLS
