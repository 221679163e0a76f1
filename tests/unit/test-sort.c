/* test-sort.c — rsp_sort_keyed() and rsp_sort_by_key() against GLib's
 * stable sort, on the sizes where each of its two ways is taken, with
 * ties, narrow and full 64-bit key ranges, input already in order and
 * in reverse, a key that is not the element's first field, and elements
 * of odd sizes with the key unaligned. */
#include <glib.h>
#include <string.h>

#include "rsp-sort.h"

static gint
compare_keyed (gconstpointer a, gconstpointer b)
{
  const RspKeyed *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

typedef enum { NARROW, WIDE, EXTREMES, SORTED, REVERSED, EQUAL } Shape;

static guint64
key_of (GRand *rand, Shape shape, guint i, guint n)
{
  switch (shape)
    {
    case NARROW: /* many ties */
      return 1000 + (guint64) g_rand_int_range (rand, 0, 7);
    case WIDE:
      return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    case EXTREMES: /* the whole range, 0 and G_MAXUINT64 among them */
      return g_rand_boolean (rand) ? G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 3)
                                   : (guint64) g_rand_int_range (rand, 0, 3);
    case SORTED:
      return (guint64) i * 3 / 2;
    case REVERSED:
      return (guint64) (n - i) * 1000003;
    case EQUAL:
    default:
      return 42;
    }
}

static void
check_keyed (guint n, Shape shape, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GArray) want = g_array_sized_new (FALSE, FALSE, sizeof (RspKeyed), n);
  g_autofree RspKeyed *got = g_new (RspKeyed, MAX (n, 1));
  g_autofree RspKeyed *tmp = g_new (RspKeyed, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      got[i] = (RspKeyed){ key_of (rand, shape, i, n), i };
      g_array_append_val (want, got[i]);
    }
  g_array_sort (want, compare_keyed); /* stable since GLib 2.32 */
  rsp_sort_keyed (got, tmp, n);
  for (guint i = 0; i < n; i++)
    {
      const RspKeyed *w = &g_array_index (want, RspKeyed, i);
      if (got[i].key != w->key || got[i].index != w->index)
        g_error ("n %u, shape %d: element %u is (%" G_GUINT64_FORMAT ", %u), not (%" G_GUINT64_FORMAT ", %u)", n,
                 shape, i, got[i].key, got[i].index, w->key, w->index);
    }
}

static void
test_keyed (void)
{
  static const guint sizes[] = { 0, 1, 2, 16, 17, 100, 511, 512, 513, 4096, 100000 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (Shape shape = NARROW; shape <= EQUAL; shape++)
      check_keyed (sizes[s], shape, 7 + s * 31 + shape);
}

/* 24 bytes with the key in the middle, as the timeline's wake-up lines */
typedef struct {
  guint32 before;
  guint64 key;
  guint32 from, to;
} Wide;

static gint
compare_wide (gconstpointer a, gconstpointer b)
{
  const Wide *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

static void
test_by_key (void)
{
  G_STATIC_ASSERT (sizeof (Wide) == 24);
  static const guint sizes[] = { 0, 1, 3, 700, 50000 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (Shape shape = NARROW; shape <= EQUAL; shape++)
      {
        guint n = sizes[s];
        g_autoptr (GRand) rand = g_rand_new_with_seed (99 + s * 7 + shape);
        g_autoptr (GArray) want = g_array_sized_new (FALSE, FALSE, sizeof (Wide), n);
        g_autofree Wide *got = g_new0 (Wide, MAX (n, 1));
        g_autofree Wide *tmp = g_new0 (Wide, MAX (n, 1));
        for (guint i = 0; i < n; i++)
          {
            got[i] = (Wide){ i, key_of (rand, shape, i, n), i * 2, i * 3 };
            g_array_append_val (want, got[i]);
          }
        g_array_sort (want, compare_wide);
        rsp_sort_by_key (got, n, sizeof (Wide), G_STRUCT_OFFSET (Wide, key), tmp);
        if (n > 0) /* an empty GArray's data is NULL */
          g_assert_cmpint (memcmp (got, want->data, n * sizeof (Wide)), ==, 0);
      }
}

/* Elements of sizes the sort has no copy of its own for, the key where it
 * lies unaligned: 12 bytes with the key at byte 4, 40 with it at 32. */
static void
check_bytes (gsize size, gsize key_offset, guint n, Shape shape)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1234 + (guint32) size + n + shape);
  g_autofree guint8 *got = g_malloc0 (MAX (n, 1) * size);
  g_autofree guint8 *tmp = g_malloc0 (MAX (n, 1) * size);
  g_autofree RspKeyed *want = g_new (RspKeyed, MAX (n, 1));
  g_autofree RspKeyed *want_tmp = g_new (RspKeyed, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      guint64 key = key_of (rand, shape, i, n);
      memset (got + i * size, (int) (i & 0xff), size);
      memcpy (got + i * size, &i, sizeof i);
      memcpy (got + i * size + key_offset, &key, sizeof key);
      want[i] = (RspKeyed){ key, i };
    }
  rsp_sort_keyed (want, want_tmp, n);
  rsp_sort_by_key (got, n, size, key_offset, tmp);
  for (guint i = 0; i < n; i++)
    {
      guint64 key;
      guint32 index;
      memcpy (&key, got + i * size + key_offset, sizeof key);
      memcpy (&index, got + i * size, sizeof index);
      g_assert_cmpuint (key, ==, want[i].key);
      g_assert_cmpuint (index, ==, want[i].index);
      /* the element moved whole: every other byte is its index's */
      for (gsize j = sizeof index; j < size; j++)
        if (j < key_offset || j >= key_offset + sizeof key)
          g_assert_cmpuint (got[i * size + j], ==, index & 0xff);
    }
}

static void
test_sizes (void)
{
  static const guint sizes[] = { 0, 2, 600, 20000 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (Shape shape = NARROW; shape <= EQUAL; shape++)
      {
        check_bytes (12, 4, sizes[s], shape);
        check_bytes (40, 32, sizes[s], shape);
        check_bytes (40, 16, sizes[s], shape);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sort/keyed", test_keyed);
  g_test_add_func ("/sort/by-key", test_by_key);
  g_test_add_func ("/sort/sizes", test_sizes);
  return g_test_run ();
}
