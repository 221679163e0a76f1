/* rsp-ordered-queue.c — pending records ordered by (time, offset).
 *
 * perf writes each CPU's ring buffer in time order, so records arrive as a
 * few sorted runs, one per CPU, interleaved.  Each CPU gets a FIFO lane; a
 * record older than its lane's tail (or without a CPU) goes to a binary
 * heap.  Popping compares the lane heads and the heap top: a k-way merge
 * that touches a handful of cache lines instead of a big heap's levels.
 * From LANES_IN_TREE_FROM CPUs on, the lanes' heads are kept in a winner
 * tree (rsp-winner-tree.h), so that a pop compares log2(CPUs) heads, not
 * all of them.
 */
#include "rsp-ordered-queue.h"

#include <string.h>

static inline gboolean
record_before (const RspQueuedRecord *a, const RspQueuedRecord *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  return a->offset < b->offset;
}

/* ---------------------------------------------------------------- lanes */

static void
lane_push (RspQueueLane *lane, const RspQueuedRecord *record)
{
  if (lane->tail == lane->capacity)
    {
      if (lane->head > 0 && lane->head >= lane->capacity / 2)
        {
          /* slide the live part to the front instead of growing */
          memmove (lane->items, lane->items + lane->head, (lane->tail - lane->head) * sizeof *lane->items);
          lane->tail -= lane->head;
          lane->head = 0;
        }
      else
        {
          lane->capacity = MAX (256, lane->capacity * 2);
          lane->items = g_renew (RspQueuedRecord, lane->items, lane->capacity);
        }
    }
  lane->items[lane->tail++] = *record;
}

static inline gboolean
lane_empty (const RspQueueLane *lane)
{
  return lane->head == lane->tail;
}

/* ---------------------------------------------------------------- heap */

static void
heap_push (RspOrderedQueue *queue, const RspQueuedRecord *record)
{
  if (queue->heap_len == queue->heap_capacity)
    {
      queue->heap_capacity = MAX (256, queue->heap_capacity * 2);
      queue->heap = g_renew (RspQueuedRecord, queue->heap, queue->heap_capacity);
    }
  gsize i = queue->heap_len++;
  RspQueuedRecord *items = queue->heap;
  while (i > 0)
    {
      gsize parent = (i - 1) / 2;
      if (!record_before (record, &items[parent]))
        break;
      items[i] = items[parent];
      i = parent;
    }
  items[i] = *record;
}

static void
heap_pop (RspOrderedQueue *queue)
{
  RspQueuedRecord *items = queue->heap;
  RspQueuedRecord last = items[--queue->heap_len];
  gsize n = queue->heap_len;
  gsize i = 0;
  for (;;)
    {
      gsize child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && record_before (&items[child + 1], &items[child]))
        child++;
      if (!record_before (&items[child], &last))
        break;
      items[i] = items[child];
      i = child;
    }
  if (n > 0)
    items[i] = last;
}

/* ---------------------------------------------------------------- queue */

/* From this many lanes on, their tree; below, a scan of their heads,
 * which costs less there (bench/merge-cpus.c: the tree 1.45 times the
 * scan's time per record at 8 CPUs, 0.85 at 12, 0.8 at 16). */
#define LANES_IN_TREE_FROM 12

/* Whether the lanes are many enough for their tree. */
static inline gboolean
lanes_in_tree (const RspOrderedQueue *queue)
{
  return queue->n_lanes >= LANES_IN_TREE_FROM;
}

/* Lane I's key in the lanes' tree (lane_changed()). */
static G_GNUC_NO_INLINE void
lane_key_changed (RspOrderedQueue *queue, guint i)
{
  const RspQueueLane *lane = &queue->lanes[i];
  if (lane_empty (lane))
    rsp_winner_tree_set (&queue->by_lane, i, RSP_WINNER_NONE);
  else
    rsp_winner_tree_set (&queue->by_lane, i,
                         (RspWinnerKey){ lane->items[lane->head].time, lane->items[lane->head].offset });
}

/* Lane I's head changed: the oldest is looked for again, and the lane's
 * key in the lanes' tree follows when they have one. */
static inline void
lane_changed (RspOrderedQueue *queue, guint i)
{
  queue->best_known = FALSE;
  if (G_UNLIKELY (lanes_in_tree (queue)))
    lane_key_changed (queue, i);
}

void
rsp_ordered_queue_init (RspOrderedQueue *queue)
{
  memset (queue, 0, sizeof *queue);
}

void
rsp_ordered_queue_clear (RspOrderedQueue *queue)
{
  for (guint i = 0; i < queue->n_lanes; i++)
    g_free (queue->lanes[i].items);
  g_free (queue->lanes);
  g_free (queue->heap);
  rsp_winner_tree_clear (&queue->by_lane);
  memset (queue, 0, sizeof *queue);
}

void
rsp_ordered_queue_push (RspOrderedQueue *queue, const RspQueuedRecord *record, gint32 cpu)
{
  queue->len++;
  if (cpu >= 0 && cpu < RSP_ORDERED_QUEUE_MAX_LANES)
    {
      if ((guint) cpu >= queue->n_lanes)
        {
          /* twice as many at least: perf's first round brings the CPUs
           * one by one, and each growth sets every lane's key again */
          guint n = MIN (MAX ((guint) cpu + 1, 2 * queue->n_lanes), RSP_ORDERED_QUEUE_MAX_LANES);
          queue->lanes = g_renew (RspQueueLane, queue->lanes, n);
          memset (queue->lanes + queue->n_lanes, 0, (n - queue->n_lanes) * sizeof *queue->lanes);
          queue->n_lanes = n;
          queue->best_known = FALSE; /* n_lanes named the heap */
          if (lanes_in_tree (queue))
            {
              rsp_winner_tree_reset (&queue->by_lane, n);
              for (guint i = 0; i < n; i++)
                lane_changed (queue, i);
            }
        }
      RspQueueLane *lane = &queue->lanes[cpu];
      if (lane_empty (lane))
        {
          /* a new head: it may be the oldest */
          lane_push (lane, record);
          lane_changed (queue, (guint) cpu);
          return;
        }
      if (!record_before (record, &lane->items[lane->tail - 1]))
        {
          lane_push (lane, record); /* behind the lane's head: the oldest stays */
          return;
        }
    }
  queue->best_known = FALSE;
  heap_push (queue, record);
}

/* oldest_source() from the lanes' tree: the heap's top unless the first
 * lane's head is before it, as the scan finds.  Apart, so that the scan
 * of a few lanes stays inlined where it is asked for. */
static G_GNUC_NO_INLINE guint
oldest_source_in_tree (const RspOrderedQueue *queue)
{
  guint i = rsp_winner_tree_first (&queue->by_lane);
  const RspQueueLane *lane = &queue->lanes[i];
  if (lane_empty (lane))
    return queue->n_lanes;
  if (queue->heap_len > 0 && !record_before (&lane->items[lane->head], &queue->heap[0]))
    return queue->n_lanes;
  return i;
}

/* Where the oldest record is: a lane index, or n_lanes for the heap.  The
 * queue is not empty.  Inlined in both callers: the reader peeks, pops and
 * peeks again for each record. */
static inline G_ALWAYS_INLINE guint
oldest_source (RspOrderedQueue *queue)
{
  if (queue->best_known)
    return queue->best;
  guint source = queue->n_lanes;
  if (lanes_in_tree (queue))
    source = oldest_source_in_tree (queue);
  else
    {
      const RspQueuedRecord *best = queue->heap_len > 0 ? &queue->heap[0] : NULL;
      for (guint i = 0; i < queue->n_lanes; i++)
        {
          const RspQueueLane *lane = &queue->lanes[i];
          if (lane_empty (lane))
            continue;
          const RspQueuedRecord *head = &lane->items[lane->head];
          if (best == NULL || record_before (head, best))
            {
              best = head;
              source = i;
            }
        }
    }
  queue->best = source;
  queue->best_known = TRUE;
  return source;
}

static inline const RspQueuedRecord *
source_head (const RspOrderedQueue *queue, guint source)
{
  return source == queue->n_lanes ? &queue->heap[0] : &queue->lanes[source].items[queue->lanes[source].head];
}

const RspQueuedRecord *
rsp_ordered_queue_peek (RspOrderedQueue *queue)
{
  if (queue->len == 0)
    return NULL;
  return source_head (queue, oldest_source (queue));
}

void
rsp_ordered_queue_pop (RspOrderedQueue *queue, RspQueuedRecord *out)
{
  g_assert (queue->len > 0);
  guint source = oldest_source (queue);
  *out = *source_head (queue, source);
  queue->best_known = FALSE;
  queue->len--;
  if (source == queue->n_lanes)
    heap_pop (queue);
  else
    {
      RspQueueLane *lane = &queue->lanes[source];
      lane->head++;
      if (lane_empty (lane))
        lane->head = lane->tail = 0;
      lane_changed (queue, source);
    }
}

guint64
rsp_ordered_queue_min_offset (const RspOrderedQueue *queue)
{
  guint64 min = G_MAXUINT64;
  /* a lane holds records in file order: its head has its smallest offset */
  for (guint i = 0; i < queue->n_lanes; i++)
    if (!lane_empty (&queue->lanes[i]))
      min = MIN (min, queue->lanes[i].items[queue->lanes[i].head].offset);
  for (gsize i = 0; i < queue->heap_len; i++)
    min = MIN (min, queue->heap[i].offset);
  return min;
}
