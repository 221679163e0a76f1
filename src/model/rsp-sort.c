/* rsp-sort.c — see rsp-sort.h. */
#include <string.h>

#include "rsp-sort.h"

/* Below this many elements the merge sort: the radix sort's counts cost
 * more than its passes save. */
#define RADIX_MIN 512
#define DIGIT_BITS 11
#define DIGITS (1u << DIGIT_BITS)

/* The merge sort, insertion sort below 17 elements; TMP holds N / 2 + 1.
 * It leaves two halves already in order as they are. */
static void
merge_sort (RspKeyed *v, RspKeyed *tmp, guint n)
{
  if (n <= 16)
    {
      for (guint i = 1; i < n; i++)
        {
          RspKeyed x = v[i];
          guint j = i;
          for (; j > 0 && v[j - 1].key > x.key; j--)
            v[j] = v[j - 1];
          v[j] = x;
        }
      return;
    }
  guint h = n / 2;
  merge_sort (v, tmp, h);
  merge_sort (v + h, tmp, n - h);
  if (v[h - 1].key <= v[h].key)
    return;
  memcpy (tmp, v, h * sizeof *v);
  /* the left half from TMP, the right in place: the write never passes
   * the right half's next element */
  guint i = 0, j = h, k = 0;
  while (i < h && j < n)
    v[k++] = v[j].key < tmp[i].key ? v[j++] : tmp[i++];
  while (i < h)
    v[k++] = tmp[i++];
}

static inline guint64
key_at (const guint8 *base, gsize i, gsize size, gsize key_offset)
{
  guint64 key;
  memcpy (&key, base + i * size + key_offset, sizeof key);
  return key;
}

/* Least significant digit first: each pass a stable counting sort by one
 * digit of (key - lowest), from one array into the other. */
void
rsp_sort_by_key (void *base, gsize n, gsize size, gsize key_offset, void *tmp)
{
  g_return_if_fail (key_offset + sizeof (guint64) <= size);
  if (n < 2)
    return;
  guint8 *v = base;
  guint64 lo = key_at (v, 0, size, key_offset), hi = lo, prev = lo;
  gboolean in_order = TRUE;
  for (gsize i = 1; i < n; i++)
    {
      guint64 key = key_at (v, i, size, key_offset);
      lo = MIN (lo, key);
      hi = MAX (hi, key);
      in_order = in_order && prev <= key;
      prev = key;
    }
  if (in_order)
    return;
  guint64 range = hi - lo;
  guint8 *src = v, *dst = tmp;
  g_autofree gsize *count = g_new (gsize, DIGITS);
  for (guint shift = 0; shift < 64 && (range >> shift) != 0; shift += DIGIT_BITS)
    {
      memset (count, 0, DIGITS * sizeof *count);
      for (gsize i = 0; i < n; i++)
        count[((key_at (src, i, size, key_offset) - lo) >> shift) & (DIGITS - 1)]++;
      /* one digit for all: nothing moves */
      if (count[((key_at (src, 0, size, key_offset) - lo) >> shift) & (DIGITS - 1)] == n)
        continue;
      gsize at = 0;
      for (guint d = 0; d < DIGITS; d++)
        {
          gsize c = count[d];
          count[d] = at;
          at += c;
        }
      /* the common sizes with a copy the compiler inlines */
#define SCATTER(SIZE)                                                                    \
  for (gsize i = 0; i < n; i++)                                                          \
    {                                                                                    \
      gsize d = ((key_at (src, i, (SIZE), key_offset) - lo) >> shift) & (DIGITS - 1);   \
      memcpy (dst + count[d]++ * (SIZE), src + i * (SIZE), (SIZE));                      \
    }
      if (size == 16)
        SCATTER (16)
      else if (size == 24)
        SCATTER (24)
      else
        SCATTER (size)
#undef SCATTER
      guint8 *swap = src;
      src = dst;
      dst = swap;
    }
  if (src != v)
    memcpy (v, src, n * size);
}

void
rsp_sort_keyed (RspKeyed *v, RspKeyed *tmp, guint n)
{
  if (n < RADIX_MIN)
    merge_sort (v, tmp, n);
  else
    rsp_sort_by_key (v, n, sizeof *v, G_STRUCT_OFFSET (RspKeyed, key), tmp);
}
