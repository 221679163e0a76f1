/* rsp-ordered-queue.c — binary min-heap keyed by (time, offset). */
#include "rsp-ordered-queue.h"

static inline gboolean
record_before (const RspQueuedRecord *a, const RspQueuedRecord *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  return a->offset < b->offset;
}

void
rsp_ordered_queue_init (RspOrderedQueue *queue)
{
  queue->items = NULL;
  queue->len = 0;
  queue->capacity = 0;
}

void
rsp_ordered_queue_clear (RspOrderedQueue *queue)
{
  g_clear_pointer (&queue->items, g_free);
  queue->len = 0;
  queue->capacity = 0;
}

void
rsp_ordered_queue_push (RspOrderedQueue *queue, const RspQueuedRecord *record)
{
  if (queue->len == queue->capacity)
    {
      queue->capacity = MAX (1024, queue->capacity * 2);
      queue->items = g_renew (RspQueuedRecord, queue->items, queue->capacity);
    }

  gsize i = queue->len++;
  RspQueuedRecord *items = queue->items;
  /* Records mostly arrive nearly sorted: the sift-up usually stops at once. */
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

const RspQueuedRecord *
rsp_ordered_queue_peek (const RspOrderedQueue *queue)
{
  return queue->len > 0 ? &queue->items[0] : NULL;
}

void
rsp_ordered_queue_pop (RspOrderedQueue *queue, RspQueuedRecord *out)
{
  g_assert (queue->len > 0);
  RspQueuedRecord *items = queue->items;
  *out = items[0];
  RspQueuedRecord last = items[--queue->len];
  gsize n = queue->len;
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

guint64
rsp_ordered_queue_min_offset (const RspOrderedQueue *queue)
{
  guint64 min = G_MAXUINT64;
  for (gsize i = 0; i < queue->len; i++)
    min = MIN (min, queue->items[i].offset);
  return min;
}
