/* test-interner.c — RspInterner: one pointer per text, as
 * g_string_chunk_insert_const() gave. */
#include "rsp-interner.h"

#include <string.h>

/* Equal text gives the pointer it gave first, whatever the argument's
 * address; different text a different pointer; every pointer keeps its
 * text while the table grows (20,000 strings, the lengths around the
 * hash's eight-byte steps among them). */
static void
test_interner_same_pointer (void)
{
  g_autoptr (RspInterner) in = rsp_interner_new ();
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < 20000; i++)
    {
      /* "cc1+0x..." labels, and prefixes of one long text of 0..40 bytes */
      char *t = i % 2 == 0 ? g_strdup_printf ("cc1+0x%x", i * 16)
                           : g_strndup ("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH", (i / 2) % 41);
      g_ptr_array_add (texts, t);
    }
  for (guint round = 0; round < 2; round++)
    for (guint i = 0; i < texts->len; i++)
      {
        const char *t = texts->pdata[i];
        g_autofree char *copy = g_strdup (t);
        const char *kept = rsp_interner_intern (in, copy);
        g_assert_cmpstr (kept, ==, t);
        g_assert_true (kept != copy);
        const char *before = g_hash_table_lookup (first, t);
        if (before == NULL)
          g_hash_table_insert (first, g_strdup (t), (gpointer) kept);
        else
          g_assert_true (kept == before);
      }
  /* distinct text, distinct pointers; all still hold their text */
  g_assert_cmpuint (rsp_interner_size (in), ==, g_hash_table_size (first));
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, first);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      g_assert_cmpstr (value, ==, key);
      g_assert_false (g_hash_table_contains (seen, value));
      g_hash_table_add (seen, value);
    }
  g_assert_null (rsp_interner_intern (in, NULL));
}

/* A length counts the bytes before a NUL at most, as the C strings made
 * from them do; text of a length with the NUL after it is the same text. */
static void
test_interner_len (void)
{
  g_autoptr (RspInterner) in = rsp_interner_new ();
  const char *whole = rsp_interner_intern (in, "schedule");
  g_assert_true (rsp_interner_intern_len (in, "schedule_timeout", 8) == whole);
  g_assert_true (rsp_interner_intern_len (in, "schedule\0junk", 13) == whole);
  const char *part = rsp_interner_intern_len (in, "schedule", 5);
  g_assert_cmpstr (part, ==, "sched");
  g_assert_true (part != whole);
  g_assert_cmpstr (rsp_interner_intern_len (in, "x", 0), ==, "");
  g_assert_true (rsp_interner_intern (in, "") == rsp_interner_intern_len (in, "x", 0));
  g_assert_cmpuint (rsp_interner_size (in), ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/interner/same-pointer", test_interner_same_pointer);
  g_test_add_func ("/interner/len", test_interner_len);
  return g_test_run ();
}
