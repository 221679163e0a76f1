/* rsp-ordered-queue.h — pending records, ordered by (time, file offset).
 * The reader pushes records as it finds them in the file and pops those that
 * perf's FINISHED_ROUND protocol says are final.  One FIFO lane per CPU
 * (perf's per-CPU buffers are time-ordered) and a heap for the rest. */
#pragma once

#include <glib.h>

#include "rsp-winner-tree.h"

G_BEGIN_DECLS

typedef struct {
  guint64 time;
  guint64 offset; /* file offset of the record: also the tie-breaker */
  guint32 evsel;  /* index of the record's evsel, G_MAXUINT32 if none */
  guint32 size;   /* the record's size in bytes */
} RspQueuedRecord;

#define RSP_ORDERED_QUEUE_MAX_LANES 4096

typedef struct {
  RspQueuedRecord *items;
  gsize head, tail, capacity;
} RspQueueLane;

typedef struct {
  RspQueueLane *lanes; /* one per CPU */
  guint n_lanes;
  RspQueuedRecord *heap; /* records that fit no lane */
  gsize heap_len, heap_capacity;
  gsize len;             /* all pending records */
  /* where the oldest record is (a lane, or n_lanes for the heap), while
   * best_known: the reader peeks, pops and peeks again for each record, and
   * a record pushed behind a lane's tail changes nothing */
  guint best;
  gboolean best_known;
  /* from 12 lanes on (rsp-ordered-queue.c), their heads' keys in a winner
   * tree, set again for a lane whose head changed; fewer are scanned */
  RspWinnerTree by_lane;
} RspOrderedQueue;

void rsp_ordered_queue_init (RspOrderedQueue *queue);
void rsp_ordered_queue_clear (RspOrderedQueue *queue);
/* CPU: the CPU whose buffer the record came from, -1 if unknown. */
void rsp_ordered_queue_push (RspOrderedQueue *queue, const RspQueuedRecord *record, gint32 cpu);
/* The oldest record, or NULL when empty. */
const RspQueuedRecord *rsp_ordered_queue_peek (RspOrderedQueue *queue);
void rsp_ordered_queue_pop (RspOrderedQueue *queue, RspQueuedRecord *out);
/* Smallest file offset among pending records (G_MAXUINT64 when empty). */
guint64 rsp_ordered_queue_min_offset (const RspOrderedQueue *queue);

G_END_DECLS
