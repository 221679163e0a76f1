/* fuzz-json.c — libFuzzer target for RSP's JSON (src/collector/rsp-json.c)
 * and the recording metadata read from it.
 *
 * The input is parsed. When it is JSON, the tree is written out with
 * RspJsonWriter and parsed again, and the two trees must be the same (a
 * number that is not finite is written as null); the text written must
 * itself be what the writer writes of the second tree. Then the input is
 * read as a recording's metadata, as a recording's trailer is. Bad input
 * is a GError, never a crash, a sanitizer report or a GLib critical.
 *
 * Built by fuzz/meson.build (-Dfuzz=true, clang).
 */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h" /* LLVMFuzzerInitialize: criticals are fatal */
#include "rsp-json.h"
#include "rsp-recording.h"

static void
write_tree (RspJsonWriter *w, const RspJsonNode *n)
{
  switch (rsp_json_node_get_type (n))
    {
    case RSP_JSON_NULL:
      rsp_json_writer_add_null_value (w);
      break;
    case RSP_JSON_BOOLEAN:
      rsp_json_writer_add_boolean_value (w, rsp_json_node_get_boolean (n));
      break;
    case RSP_JSON_INT:
      rsp_json_writer_add_int_value (w, rsp_json_node_get_int (n));
      break;
    case RSP_JSON_DOUBLE:
      rsp_json_writer_add_double_value (w, rsp_json_node_get_double (n));
      break;
    case RSP_JSON_STRING:
      rsp_json_writer_add_string_value (w, rsp_json_node_get_string (n));
      break;
    case RSP_JSON_ARRAY:
      rsp_json_writer_begin_array (w);
      for (guint i = 0; i < rsp_json_node_get_length (n); i++)
        write_tree (w, rsp_json_array_get_element (n, i));
      rsp_json_writer_end_array (w);
      break;
    case RSP_JSON_OBJECT:
      rsp_json_writer_begin_object (w);
      for (guint i = 0; i < rsp_json_node_get_length (n); i++)
        {
          const char *name = NULL;
          const RspJsonNode *m = rsp_json_object_get_nth (n, i, &name);
          rsp_json_writer_set_member_name (w, name);
          write_tree (w, m);
        }
      rsp_json_writer_end_object (w);
      break;
    }
}

/* A (parsed) and B (A written and parsed again) hold the same values. */
static void
same_tree (const RspJsonNode *a, const RspJsonNode *b)
{
  RspJsonType ta = rsp_json_node_get_type (a), tb = rsp_json_node_get_type (b);
  if (ta == RSP_JSON_DOUBLE && !isfinite (rsp_json_node_get_double (a)))
    {
      if (tb != RSP_JSON_NULL)
        abort ();
      return;
    }
  if (ta != tb || rsp_json_node_get_length (a) != rsp_json_node_get_length (b))
    abort ();
  switch (ta)
    {
    case RSP_JSON_NULL:
      break;
    case RSP_JSON_BOOLEAN:
      if (rsp_json_node_get_boolean (a) != rsp_json_node_get_boolean (b))
        abort ();
      break;
    case RSP_JSON_INT:
      if (rsp_json_node_get_int (a) != rsp_json_node_get_int (b))
        abort ();
      break;
    case RSP_JSON_DOUBLE:
      /* %.17g reads back exactly; -0.0 stays -0.0 */
      if (memcmp (&(double){ rsp_json_node_get_double (a) }, &(double){ rsp_json_node_get_double (b) },
                  sizeof (double))
          != 0)
        abort ();
      break;
    case RSP_JSON_STRING:
      if (strcmp (rsp_json_node_get_string (a), rsp_json_node_get_string (b)) != 0)
        abort ();
      break;
    case RSP_JSON_ARRAY:
      for (guint i = 0; i < rsp_json_node_get_length (a); i++)
        same_tree (rsp_json_array_get_element (a, i), rsp_json_array_get_element (b, i));
      break;
    case RSP_JSON_OBJECT:
      for (guint i = 0; i < rsp_json_node_get_length (a); i++)
        {
          const char *na = NULL, *nb = NULL;
          const RspJsonNode *ma = rsp_json_object_get_nth (a, i, &na);
          const RspJsonNode *mb = rsp_json_object_get_nth (b, i, &nb);
          if (strcmp (na, nb) != 0)
            abort ();
          same_tree (ma, mb);
        }
      break;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = (const char *) data;
  g_autoptr (GError) error = NULL;
  g_autoptr (RspJsonNode) tree = rsp_json_parse (text, size, &error);
  if (tree == NULL)
    {
      if (error == NULL || error->domain != RSP_JSON_ERROR)
        abort ();
    }
  else
    {
      g_autoptr (RspJsonWriter) w = rsp_json_writer_new ();
      write_tree (w, tree);
      gsize len = 0;
      g_autofree char *out = rsp_json_writer_finish (w, &len);
      if (out == NULL || strlen (out) != len)
        abort ();
      g_autoptr (GError) again_error = NULL;
      g_autoptr (RspJsonNode) again = rsp_json_parse (out, len, &again_error);
      if (again == NULL)
        abort ();
      same_tree (tree, again);
      write_tree (w, again);
      g_autofree char *out2 = rsp_json_writer_finish (w, NULL);
      if (strcmp (out, out2) != 0)
        abort ();
    }

  g_autoptr (GError) meta_error = NULL;
  g_autoptr (RspRecordingMeta) meta = rsp_recording_meta_from_json (text, size, &meta_error);
  if ((meta == NULL) == (meta_error == NULL))
    abort ();
  return 0;
}
