/* rsp-ordered-queue.h — a binary min-heap of pending records, ordered by
 * (time, file offset).  The reader pushes records as it finds them in the
 * file and pops those that perf's FINISHED_ROUND protocol says are final. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 time;
  guint64 offset; /* file offset of the record: also the tie-breaker */
  guint32 evsel;  /* index of the record's evsel, G_MAXUINT32 if none */
} RspQueuedRecord;

typedef struct {
  RspQueuedRecord *items;
  gsize len;
  gsize capacity;
} RspOrderedQueue;

void rsp_ordered_queue_init (RspOrderedQueue *queue);
void rsp_ordered_queue_clear (RspOrderedQueue *queue);
void rsp_ordered_queue_push (RspOrderedQueue *queue, const RspQueuedRecord *record);
/* The oldest record, or NULL when empty. */
const RspQueuedRecord *rsp_ordered_queue_peek (const RspOrderedQueue *queue);
void rsp_ordered_queue_pop (RspOrderedQueue *queue, RspQueuedRecord *out);
/* Smallest file offset among pending records (G_MAXUINT64 when empty). */
guint64 rsp_ordered_queue_min_offset (const RspOrderedQueue *queue);

G_END_DECLS
