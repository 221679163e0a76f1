/* rsp-timeline-private.h — what the timeline's layout
 * (rsp-timeline-layout.c) hands to its drawing and hit testing
 * (rsp-timeline-view.c).
 *
 * Per row, the spans drawing needs are copied into one flat array sorted by
 * start, with two prefix values: REACH (the latest end so far, so "the first
 * span that ends after t" is a binary search even when spans overlap, as disk
 * requests do) and BUSY_BEFORE (CPU time of the row's earlier runs, so the
 * share of a pixel column a task ran is two binary searches). */
#pragma once

#include "rsp-timeline-view.h"

G_BEGIN_DECLS

typedef struct {
  guint64 start, end;
  guint64 mid;         /* sleeps: when woken (waiting for a CPU after); disk: issue; else start */
  guint64 reach;       /* max end over this and every earlier span of the row */
  guint64 busy_before; /* runs: summed length of the row's earlier runs */
  RspIdx item;         /* run, sleep, disk or network operation index */
} Span;

typedef struct {
  guint32 first, n;               /* runs (task rows) or operations, in spans */
  guint32 sleeps_first, sleeps_n; /* in sleep_spans */
} RowSpans;

typedef struct {
  guint64 time;
  guint32 from_row, to_row;
  RspIdx link;
} LinkRef;

struct _RspTimelineLayout {
  const RspModel *model;
  RspTimelineOptions options;
  guint64 start, end;
  GArray *rows;        /* RspTimelineRow */
  GArray *row_spans;   /* RowSpans, parallel to rows */
  guint n_task_rows;
  GArray *spans;       /* Span */
  GArray *sleep_spans; /* Span */
  GArray *links;       /* LinkRef, by time */
  gint *task_row;      /* model task -> row, -1 when hidden */
  guint n_tasks;
  guint n_hidden;
  guint max_label_chars;
};

/* ------------------------------------------------------------------ span search */

/* The first span of S[0, n) whose reach passes T: every span before it
 * ends at or before T. */
static inline guint32
first_reaching (const Span *s, guint32 n, guint64 t)
{
  guint32 lo = 0, hi = n;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (s[mid].reach > t)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

/* The first span of S[lo, n) starting at or after T. */
static inline guint32
first_starting (const Span *s, guint32 lo, guint32 n, guint64 t)
{
  guint32 hi = n;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (s[mid].start >= t)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

/* CPU time of the runs S[0, n) before T (a task's runs do not overlap). */
static inline guint64
busy_until (const Span *s, guint32 n, guint64 t)
{
  guint32 k = first_starting (s, 0, n, t);
  if (k == 0)
    return 0;
  const Span *last = &s[k - 1];
  return last->busy_before + (MIN (last->end, t) - last->start);
}

G_END_DECLS
