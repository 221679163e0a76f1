/* rsp-ordered-queue.c — pending records ordered by (time, offset).
 *
 * perf writes each CPU's ring buffer in time order, so records arrive as a
 * few sorted runs, one per CPU, interleaved.  Each CPU gets a FIFO lane; a
 * record older than its lane's tail (or without a CPU) goes to a binary
 * heap.  The oldest record is the first of the lane heads and the heap
 * top: a k-way merge that touches a handful of cache lines instead of a
 * big heap's levels, its sources in a winner tree (rsp-winner-tree.h), so
 * that a pop compares log2(CPUs + 1) heads, not all of them.
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

/* Lane I's head changed: its key in the lanes' tree follows. */
static inline void
lane_changed (RspOrderedQueue *queue, guint i)
{
  const RspQueueLane *lane = &queue->lanes[i];
  if (lane_empty (lane))
    rsp_winner_tree_set (&queue->by_lane, i, RSP_WINNER_NONE);
  else
    rsp_winner_tree_set (&queue->by_lane, i,
                         (RspWinnerKey){ lane->items[lane->head].time, lane->items[lane->head].offset });
}

/* Where the oldest record is: the first lane's head, or the heap's top
 * when older; found again only after the queue changed. */
static inline const RspQueuedRecord *
oldest (RspOrderedQueue *queue)
{
  if (queue->oldest != NULL)
    return queue->oldest;
  const RspQueuedRecord *best = NULL;
  if (queue->n_lanes > 0)
    {
      guint i = rsp_winner_tree_first (&queue->by_lane);
      const RspQueueLane *lane = &queue->lanes[i];
      if (!lane_empty (lane))
        best = &lane->items[lane->head];
    }
  if (queue->heap_len > 0 && (best == NULL || record_before (&queue->heap[0], best)))
    best = &queue->heap[0];
  queue->oldest = best;
  return best;
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
          /* the lanes' tree made again, their heads put back */
          rsp_winner_tree_reset (&queue->by_lane, n);
          for (guint i = 0; i < n; i++)
            lane_changed (queue, i);
        }
      RspQueueLane *lane = &queue->lanes[cpu];
      if (lane_empty (lane))
        {
          /* a new head: it may be the oldest */
          lane_push (lane, record);
          lane_changed (queue, (guint) cpu);
          queue->oldest = NULL;
          return;
        }
      if (!record_before (record, &lane->items[lane->tail - 1]))
        {
          /* behind the lane's head: the oldest stays, but where it is
           * moves if the lane's items did (to grow, or to the front) */
          const RspQueuedRecord *items = lane->items;
          gsize head = lane->head;
          lane_push (lane, record);
          if (lane->items != items || lane->head != head)
            queue->oldest = NULL;
          return;
        }
    }
  heap_push (queue, record);
  queue->oldest = NULL;
}

const RspQueuedRecord *
rsp_ordered_queue_peek (RspOrderedQueue *queue)
{
  if (queue->len == 0)
    return NULL;
  return oldest (queue);
}

void
rsp_ordered_queue_pop (RspOrderedQueue *queue, RspQueuedRecord *out)
{
  g_assert (queue->len > 0);
  const RspQueuedRecord *top = oldest (queue);
  *out = *top;
  queue->len--;
  queue->oldest = NULL;
  if (queue->heap_len > 0 && top == &queue->heap[0])
    heap_pop (queue);
  else
    {
      guint i = rsp_winner_tree_first (&queue->by_lane);
      RspQueueLane *lane = &queue->lanes[i];
      lane->head++;
      if (lane_empty (lane))
        lane->head = lane->tail = 0;
      lane_changed (queue, i);
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
