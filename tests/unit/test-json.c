/* test-json.c — RSP's own JSON (src/collector/rsp-json.c) against
 * json-glib, which wrote and read RSP's JSON before and which the tests
 * still link:
 *
 *   /json/writer/json-glib   random documents, built with both, the same
 *                            text (where json-glib writes valid JSON)
 *   /json/writer/escapes     what RSP writes where json-glib wrote invalid
 *                            JSON; each output read back by json-glib
 *   /json/parser/json-glib   random documents read by both, the same tree
 *   /json/parser/errors      text that is not JSON: an error, never a tree
 *   /json/parser/damaged     random cuts and byte changes of a document:
 *                            both parsers agree on which are JSON
 *   /json/parser/threads     integers read right in threads started at once
 *                            in a new process (they once depended on errno)
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "rsp-json.h"

/* ------------------------------------------------------------ random documents */

/* A string: ASCII with the characters JSON escapes, and UTF-8 up to four
 * bytes; never U+001F, never invalid UTF-8 (the two places json-glib wrote
 * invalid JSON, tested apart). */
static char *
random_string (GRand *r)
{
  static const gunichar pool[] = { 'a', 'Z', '0', ' ', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0x01, 0x1e,
                                   0x7f, 0xe9, 0x2028, 0x20ac, 0x1f600, ':', ',', '{', '[', '}', ']' };
  GString *s = g_string_new (NULL);
  guint n = g_rand_int_range (r, 0, 12);
  for (guint i = 0; i < n; i++)
    g_string_append_unichar (s, pool[g_rand_int_range (r, 0, G_N_ELEMENTS (pool))]);
  return g_string_free (s, FALSE);
}

static gdouble
random_double (GRand *r)
{
  switch (g_rand_int_range (r, 0, 6))
    {
    case 0:
      return 0.0;
    case 1:
      return (gdouble) g_rand_int_range (r, -1000, 1000);
    case 2:
      return g_rand_int_range (r, 0, 100000000) / 1000.0;
    case 3:
      return -g_rand_double (r);
    case 4:
      return g_rand_double_range (r, -1e15, 1e15);
    default:
      return 1.0 / g_rand_int_range (r, 1, 1000);
    }
}

/* One value, written to both; DEPTH bounds the nesting. */
static void
random_value (GRand *r, guint depth, JsonBuilder *jb, RspJsonWriter *w)
{
  /* json-glib's builder starts with an array or object */
  guint kind = depth == 0 ? (guint) g_rand_int_range (r, 6, 8) : (guint) g_rand_int_range (r, 0, depth < 5 ? 8 : 6);
  switch (kind)
    {
    case 0:
      json_builder_add_null_value (jb);
      rsp_json_writer_add_null_value (w);
      break;
    case 1:
      {
        gboolean v = g_rand_boolean (r);
        json_builder_add_boolean_value (jb, v);
        rsp_json_writer_add_boolean_value (w, v);
        break;
      }
    case 2:
      {
        gint64 v = g_rand_boolean (r) ? g_rand_int_range (r, -100, 100)
                                      : (gint64) (((guint64) g_rand_int (r) << 32) | g_rand_int (r));
        json_builder_add_int_value (jb, v);
        rsp_json_writer_add_int_value (w, v);
        break;
      }
    case 3:
      {
        gdouble v = random_double (r);
        json_builder_add_double_value (jb, v);
        rsp_json_writer_add_double_value (w, v);
        break;
      }
    case 4:
    case 5:
      {
        g_autofree char *v = random_string (r);
        json_builder_add_string_value (jb, v);
        rsp_json_writer_add_string_value (w, v);
        break;
      }
    case 6:
      {
        json_builder_begin_array (jb);
        rsp_json_writer_begin_array (w);
        guint n = g_rand_int_range (r, 0, 5);
        for (guint i = 0; i < n; i++)
          random_value (r, depth + 1, jb, w);
        json_builder_end_array (jb);
        rsp_json_writer_end_array (w);
        break;
      }
    default:
      {
        json_builder_begin_object (jb);
        rsp_json_writer_begin_object (w);
        guint n = g_rand_int_range (r, 0, 5);
        for (guint i = 0; i < n; i++)
          {
            /* distinct names: json-glib's builder replaces a repeated one */
            g_autofree char *s = random_string (r);
            g_autofree char *name = g_strdup_printf ("%u%s", i, s);
            json_builder_set_member_name (jb, name);
            rsp_json_writer_set_member_name (w, name);
            random_value (r, depth + 1, jb, w);
          }
        json_builder_end_object (jb);
        rsp_json_writer_end_object (w);
      }
    }
}

static char *
json_glib_text (JsonBuilder *jb, gsize *length)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (jb);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, length);
}

static void
test_writer_json_glib (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (20261127);
  for (guint doc = 0; doc < 3000; doc++)
    {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
      random_value (r, 0, jb, w);
      gsize ours_len = 0, theirs_len = 0;
      g_autofree char *ours = rsp_json_writer_finish (w, &ours_len);
      g_autofree char *theirs = json_glib_text (jb, &theirs_len);
      g_assert_cmpstr (ours, ==, theirs);
      g_assert_cmpuint (ours_len, ==, theirs_len);
    }
}

static JsonNode *
json_glib_parse (const char *text, gsize length, GError **error)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  if (!json_parser_load_from_data (p, text, (gssize) length, error))
    return NULL;
  JsonNode *root = json_parser_get_root (p);
  return root != NULL ? json_node_copy (root) : NULL;
}

static void
test_writer_escapes (void)
{
  /* U+001F is escaped (json-glib left it raw, which JSON forbids) */
  {
    g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
    rsp_json_writer_add_string_value (w, "a\x1f" "b\x01");
    g_autofree char *t = rsp_json_writer_finish (w, NULL);
    g_assert_cmpstr (t, ==, "\"a\\u001fb\\u0001\"");
  }
  /* bytes that are not UTF-8 become U+FFFD, in names too */
  {
    g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
    rsp_json_writer_begin_object (w);
    rsp_json_writer_set_member_name (w, "n\xff");
    rsp_json_writer_add_string_value (w, "x\xc3(\xe2\x82y\xf0");
    rsp_json_writer_end_object (w);
    gsize len;
    g_autofree char *t = rsp_json_writer_finish (w, &len);
    g_assert_cmpstr (t, ==, "{\n  \"n\xef\xbf\xbd\" : \"x\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbdy\xef\xbf\xbd\"\n}");
    g_assert_true (g_utf8_validate (t, -1, NULL));
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) back = json_glib_parse (t, len, &error);
    g_assert_no_error (error);
  }
  /* numbers: not finite → null; exponent forms without ".0"; integral → ".0" */
  {
    g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
    rsp_json_writer_begin_array (w);
    rsp_json_writer_add_double_value (w, INFINITY);
    rsp_json_writer_add_double_value (w, NAN);
    rsp_json_writer_add_double_value (w, 1e20);
    rsp_json_writer_add_double_value (w, -0.0);
    rsp_json_writer_add_double_value (w, 2.0);
    rsp_json_writer_add_double_value (w, 1e-7);
    rsp_json_writer_end_array (w);
    gsize len;
    g_autofree char *t = rsp_json_writer_finish (w, &len);
    g_assert_cmpstr (t, ==, "[\n  null,\n  null,\n  1e+20,\n  -0.0,\n  2.0,\n  9.9999999999999995e-08\n]");
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) back = json_glib_parse (t, len, &error);
    g_assert_no_error (error);
    JsonArray *a = json_node_get_array (back);
    g_assert_cmpfloat (json_array_get_double_element (a, 2), ==, 1e20);
    g_assert_cmpfloat (json_array_get_double_element (a, 5), ==, 1e-7);
  }
  /* json_append_string alone */
  {
    g_autoptr (GString) s = g_string_new (NULL);
    rsp_json_append_string (s, "q\"\\\t\x7f");
    g_assert_cmpstr (s->str, ==, "\"q\\\"\\\\\\t\\u007f\"");
  }
  /* the writer is reusable after finish */
  {
    g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
    rsp_json_writer_add_int_value (w, 1);
    g_autofree char *a = rsp_json_writer_finish (w, NULL);
    rsp_json_writer_begin_object (w);
    rsp_json_writer_end_object (w);
    g_autofree char *b = rsp_json_writer_finish (w, NULL);
    g_assert_cmpstr (a, ==, "1");
    g_assert_cmpstr (b, ==, "{}");
  }
}

/* NODE (json-glib's) and OURS hold the same value. */
static void
assert_same_tree (JsonNode *node, const RspJsonNode *ours)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_NULL:
      g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_NULL);
      break;
    case JSON_NODE_VALUE:
      {
        GType t = json_node_get_value_type (node);
        if (t == G_TYPE_INT64)
          {
            g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_INT);
            g_assert_cmpint (rsp_json_node_get_int (ours), ==, json_node_get_int (node));
          }
        else if (t == G_TYPE_DOUBLE)
          {
            g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_DOUBLE);
            g_assert_cmpfloat (rsp_json_node_get_double (ours), ==, json_node_get_double (node));
          }
        else if (t == G_TYPE_BOOLEAN)
          {
            g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_BOOLEAN);
            g_assert_cmpint (rsp_json_node_get_boolean (ours), ==, json_node_get_boolean (node));
          }
        else
          {
            g_assert_true (t == G_TYPE_STRING);
            g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_STRING);
            g_assert_cmpstr (rsp_json_node_get_string (ours), ==, json_node_get_string (node));
          }
        break;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (node);
        g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_ARRAY);
        g_assert_cmpuint (rsp_json_node_get_length (ours), ==, json_array_get_length (a));
        for (guint i = 0; i < json_array_get_length (a); i++)
          assert_same_tree (json_array_get_element (a, i), rsp_json_array_get_element (ours, i));
        g_assert_null (rsp_json_array_get_element (ours, json_array_get_length (a)));
        break;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *o = json_node_get_object (node);
        g_assert_cmpint (rsp_json_node_get_type (ours), ==, RSP_JSON_OBJECT);
        g_assert_cmpuint (rsp_json_node_get_length (ours), ==, json_object_get_size (o));
        JsonObjectIter it;
        const char *name;
        JsonNode *member;
        guint i = 0;
        json_object_iter_init_ordered (&it, o);
        while (json_object_iter_next_ordered (&it, &name, &member))
          {
            const char *our_name = NULL;
            const RspJsonNode *nth = rsp_json_object_get_nth (ours, i++, &our_name);
            g_assert_cmpstr (our_name, ==, name);
            assert_same_tree (member, nth);
            g_assert_true (rsp_json_object_get_member (ours, name) == nth);
          }
        g_assert_null (rsp_json_object_get_member (ours, "no such member, ever"));
        break;
      }
    }
}

static void
test_parser_json_glib (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (1127);
  for (guint doc = 0; doc < 3000; doc++)
    {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
      random_value (r, 0, jb, w);
      gsize len;
      g_autofree char *text = rsp_json_writer_finish (w, &len);
      /* and the same document compact, with other spacing */
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      g_autoptr (JsonNode) built = json_builder_get_root (jb);
      json_generator_set_root (gen, built);
      gsize compact_len;
      g_autofree char *compact = json_generator_to_data (gen, &compact_len);
      const char *texts[] = { text, compact };
      const gsize lens[] = { len, compact_len };
      for (guint k = 0; k < 2; k++)
        {
          g_autoptr (GError) e1 = NULL, e2 = NULL;
          g_autoptr (JsonNode) theirs = json_glib_parse (texts[k], lens[k], &e1);
          g_autoptr (RspJsonNode) ours = rsp_json_parse (texts[k], lens[k], &e2);
          g_assert_no_error (e1);
          g_assert_no_error (e2);
          assert_same_tree (theirs, ours);
        }
    }
  /* numbers at the edges of 64 bits, exponents, escapes */
  const char *doc = "{\"a\" : 9223372036854775807, \"b\" : -9223372036854775808, \"c\" : 1.5e3, "
                    "\"d\" : -0, \"e\" : 0.25, \"f\" : \"\\u00e9\\ud83d\\ude00\\/\", \"a\" : 7 }";
  g_autoptr (RspJsonNode) n = rsp_json_parse (doc, strlen (doc), NULL);
  g_assert_nonnull (n);
  g_assert_cmpint (rsp_json_node_get_int (rsp_json_object_get_member (n, "b")), ==, G_MININT64);
  g_assert_cmpfloat (rsp_json_node_get_double (rsp_json_object_get_member (n, "c")), ==, 1500.0);
  g_assert_cmpstr (rsp_json_node_get_string (rsp_json_object_get_member (n, "f")), ==, "\xc3\xa9\xf0\x9f\x98\x80/");
  /* a name twice: the last, as json-glib answers */
  g_assert_cmpint (rsp_json_node_get_int (rsp_json_object_get_member (n, "a")), ==, 7);
  /* 2^63 does not fit: a double */
  g_autoptr (RspJsonNode) big = rsp_json_parse ("9223372036854775808", 19, NULL);
  g_assert_cmpint (rsp_json_node_get_type (big), ==, RSP_JSON_DOUBLE);
}

static void
test_parser_errors (void)
{
  const char *bad[] = { "",
                        "   ",
                        "{",
                        "[1,]",
                        "{\"a\" 1}",
                        "{\"a\":1,}",
                        "{a:1}",
                        "[1 2]",
                        "01",
                        "1.",
                        "-",
                        ".5",
                        "1e",
                        "+1",
                        "tru",
                        "nul",
                        "\"abc",
                        "\"a\\x\"",
                        "\"\\u12\"",
                        "\"\\ud800\"",
                        "\"\\udc00x\"",
                        "\"\\u0000\"",
                        "\"tab\there\"",
                        "\"\xff\"",
                        "[] []",
                        "{}x",
                        "'a'",
                        "[NaN]",
                        "/* c */ 1" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RspJsonNode) n = rsp_json_parse (bad[i], strlen (bad[i]), &error);
      g_assert_null (n);
      g_assert_error (error, RSP_JSON_ERROR, RSP_JSON_ERROR_PARSE);
      g_assert_true (g_str_has_prefix (error->message, "line "));
    }
  /* a NUL inside the text is not whitespace */
  g_autoptr (RspJsonNode) nul = rsp_json_parse ("1\0", 2, NULL);
  g_assert_null (nul);
  /* the error names the line and column */
  g_autoptr (GError) error = NULL;
  g_autoptr (RspJsonNode) n = rsp_json_parse ("{\n  \"a\" : tx\n}", 14, &error);
  g_assert_null (n);
  g_assert_cmpstr (error->message, ==, "line 2, column 9: an unknown word");
  /* deep nesting is refused, not recursed into */
  GString *deep = g_string_new (NULL);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  g_autoptr (RspJsonNode) d = rsp_json_parse (deep->str, deep->len, NULL);
  g_assert_null (d);
  g_string_truncate (deep, 0);
  for (guint i = 0; i < RSP_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < RSP_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, ']');
  g_autoptr (RspJsonNode) ok = rsp_json_parse (deep->str, deep->len, NULL);
  g_assert_nonnull (ok);
  g_string_free (deep, TRUE);
  /* accessors on the wrong type answer nothing */
  g_assert_null (rsp_json_node_get_string (ok));
  g_assert_null (rsp_json_object_get_member (ok, "a"));
  g_assert_null (rsp_json_array_get_element (NULL, 0));
  g_assert_cmpuint (rsp_json_node_get_length (NULL), ==, 0);
}

/* Cuts and changed bytes of a document: wherever json-glib accepts the
 * text, so do we, with the same tree; where we accept it, json-glib does. */
static void
test_parser_damaged (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  const char *doc = "{\n  \"rsp_version\" : \"0.1.0\",\n  \"command\" : [\n    \"/bin/ls\",\n    \"-l\"\n  ],\n"
                    "  \"target_pid\" : 1234,\n  \"start_ns\" : \"5\",\n  \"x\" : [ 1.5, -2e3, true, false, null, {} ]\n}";
  gsize len = strlen (doc);
  guint agreed = 0, accepted = 0;
  for (guint round = 0; round < 20000; round++)
    {
      g_autofree char *t = g_strndup (doc, len);
      gsize tlen = len;
      if (round % 2 == 0)
        tlen = g_rand_int_range (r, 0, (gint32) len + 1);
      else
        {
          static const char chars[] = "{}[],:\"\\ 0123456789.eE+-truefalsn\x01\xff";
          for (guint k = 0, n = g_rand_int_range (r, 1, 3); k < n; k++)
            t[g_rand_int_range (r, 0, (gint32) len)] = chars[g_rand_int_range (r, 0, sizeof chars - 1)];
        }
      g_autoptr (GError) e1 = NULL;
      g_autoptr (JsonNode) theirs = json_glib_parse (t, tlen, &e1);
      g_autoptr (RspJsonNode) ours = rsp_json_parse (t, tlen, NULL);
      if (ours != NULL)
        {
          /* ours is strict RFC 8259; json-glib reads all of that */
          g_assert_nonnull (theirs);
          assert_same_tree (theirs, ours);
          accepted++;
        }
      if ((ours != NULL) == (theirs != NULL))
        agreed++;
    }
  /* json-glib accepts a little more than RFC 8259 (a top-level value with
   * text after it in some cases, raw control characters); nearly always
   * the two agree */
  g_test_message ("damaged documents: %u of 20000 accepted, the parsers agree on %u", accepted, agreed);
  g_assert_cmpuint (accepted, >, 1000);
  g_assert_cmpuint (agreed, >, 19000);
}

/* Integers do not depend on errno: the parser once read them with
 * g_ascii_strtoll and errno, and the first calls of GLib's C-locale
 * functions in two threads at once (the viewer's loading thread and GTK's
 * start-up) can leave errno set on success (measured: 13 processes of
 * 500), so that the metadata's first integer, the process of interest,
 * read as a double now and then. Each round is a process forked before
 * anything in it used those functions (main() runs the rounds before
 * g_test_init), whose threads parse while its main thread calls
 * g_ascii_strtod for the first time. */
static gint threads_go;

static gpointer
parse_in_thread (gpointer data)
{
  /* all at once, with the main thread's first g_ascii_strtod */
  while (data != NULL && !g_atomic_int_get (&threads_go))
    ;
  const char *doc = "{\"target_pid\" : 23763, \"n\" : -9223372036854775808}";
  g_autoptr (RspJsonNode) n = rsp_json_parse (doc, strlen (doc), NULL);
  gboolean ok = n != NULL && rsp_json_node_get_type (rsp_json_object_get_member (n, "target_pid")) == RSP_JSON_INT
                && rsp_json_node_get_int (rsp_json_object_get_member (n, "target_pid")) == 23763
                && rsp_json_node_get_int (rsp_json_object_get_member (n, "n")) == G_MININT64;
  return GINT_TO_POINTER (ok);
}

#define THREAD_ROUNDS 300
static guint thread_rounds_failed;

static void
run_thread_rounds (void)
{
  for (guint round = 0; round < THREAD_ROUNDS; round++)
    {
      pid_t pid = fork ();
      if (pid == 0)
        {
          GThread *threads[4];
          for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
            threads[i] = g_thread_new ("parse", parse_in_thread, &threads_go);
          g_usleep (1000);
          g_atomic_int_set (&threads_go, 1);
          gdouble sum = 0;
          for (guint i = 0; i < 100; i++)
            sum += g_ascii_strtod ("1.5", NULL);
          gboolean ok = sum == 150.0;
          for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
            ok &= GPOINTER_TO_INT (g_thread_join (threads[i]));
          errno = EAGAIN; /* and with errno set before */
          ok &= GPOINTER_TO_INT (parse_in_thread (NULL));
          _exit (ok ? 0 : 1);
        }
      int status = 0;
      if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        thread_rounds_failed++;
    }
}

static void
test_parser_threads (void)
{
  g_test_message ("%u of %u processes read an integer wrong", thread_rounds_failed, THREAD_ROUNDS);
  g_assert_cmpuint (thread_rounds_failed, ==, 0);
}

int
main (int argc, char **argv)
{
  run_thread_rounds (); /* before GLib's C locale is set up: see above */
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json/writer/json-glib", test_writer_json_glib);
  g_test_add_func ("/json/writer/escapes", test_writer_escapes);
  g_test_add_func ("/json/parser/json-glib", test_parser_json_glib);
  g_test_add_func ("/json/parser/errors", test_parser_errors);
  g_test_add_func ("/json/parser/damaged", test_parser_damaged);
  g_test_add_func ("/json/parser/threads", test_parser_threads);
  return g_test_run ();
}
