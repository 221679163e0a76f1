/* rsp-sort.h — stable sorts by a 64-bit key, for the arrays the model,
 * the analysis and the views put in order (findings by rank, a finding's
 * stretches and the timeline's wake-up lines by time). */
#pragma once

#include <glib.h>

/* An index with its key. */
typedef struct {
  guint64 key;
  guint32 index;
} RspKeyed;

/* Sorts the N elements of BASE, each SIZE bytes with its guint64 key at
 * byte KEY_OFFSET, by key, equal keys in the order they came (stable, as
 * g_qsort_with_data() is).  TMP holds N elements.  A radix sort over the
 * keys' range (11 bits a pass; a pass where every key has the same digit
 * is skipped, input already in order is found in one look): no
 * comparisons, and no memory but a 16 kB table of counts.  A timeline's
 * 690,000 wake-up lines took 48 ms through g_array_sort(), 19 ms so.
 * KEY_OFFSET + 8 must not pass SIZE. */
void rsp_sort_by_key (void *base, gsize n, gsize size, gsize key_offset, void *tmp);

/* The same for an array of RspKeyed; below a few hundred elements by a
 * merge sort with the comparison inlined.  TMP holds N elements. */
void rsp_sort_keyed (RspKeyed *v, RspKeyed *tmp, guint n);
