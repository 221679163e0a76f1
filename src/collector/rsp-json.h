/* rsp-json.h — JSON text written and read without json-glib.
 *
 * The command line writes reports, exports and a recording's metadata as
 * JSON and reads the metadata back. json-glib (with GObject and GIO, which
 * it needs) cost a third of the start-up of every command that opens a
 * recording, for two small jobs done here instead:
 *
 *  - RspJsonWriter writes a document as it is built, in the layout
 *    json-glib's pretty generator gave (two spaces per level, `"name" :
 *    value`, an empty array as `[]`, an empty object as `{` and the
 *    level's indentation and `}`), so that reports keep their text. It
 *    differs where json-glib wrote invalid JSON: every control character
 *    is escaped (json-glib left U+001F as it was), bytes that are not
 *    UTF-8 become U+FFFD, numbers that are not finite are written as null
 *    and a number in exponent form gets no ".0" after it.
 *  - rsp_json_parse() reads RFC 8259 JSON into a tree of RspJsonNode:
 *    integers that fit 64 bits are integers, other numbers doubles,
 *    strings must be UTF-8 without NUL, nesting is limited to
 *    RSP_JSON_MAX_DEPTH levels, and an object with a name twice answers
 *    with the last (as json-glib did).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ---------------------------------------------------------------- writing */

typedef struct _RspJsonWriter RspJsonWriter;

RspJsonWriter *rsp_json_writer_new (void);
void rsp_json_writer_free (RspJsonWriter *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspJsonWriter, rsp_json_writer_free)

/* Inside an object every value (scalar or container) is preceded by its
 * name; inside an array, or at the top, it is not. */
void rsp_json_writer_set_member_name (RspJsonWriter *w, const char *name);
void rsp_json_writer_begin_object (RspJsonWriter *w);
void rsp_json_writer_end_object (RspJsonWriter *w);
void rsp_json_writer_begin_array (RspJsonWriter *w);
void rsp_json_writer_end_array (RspJsonWriter *w);
void rsp_json_writer_add_int_value (RspJsonWriter *w, gint64 v);
/* %.17g; ".0" appended to an integral value so that it reads back as a
 * double */
void rsp_json_writer_add_double_value (RspJsonWriter *w, gdouble v);
/* NULL writes null */
void rsp_json_writer_add_string_value (RspJsonWriter *w, const char *v);
void rsp_json_writer_add_boolean_value (RspJsonWriter *w, gboolean v);
void rsp_json_writer_add_null_value (RspJsonWriter *w);
/* The document's text (g_free it), without a final newline; LENGTH, when
 * not NULL, gets its length. The document must be complete. The writer is
 * empty afterwards. */
char *rsp_json_writer_finish (RspJsonWriter *w, gsize *length);

/* Appends S to OUT as a JSON string literal, quotes included, escaped as
 * the writer escapes. */
void rsp_json_append_string (GString *out, const char *s);

/* ---------------------------------------------------------------- reading */

#define RSP_JSON_MAX_DEPTH 256

typedef enum
{
  RSP_JSON_NULL,
  RSP_JSON_BOOLEAN,
  RSP_JSON_INT,
  RSP_JSON_DOUBLE,
  RSP_JSON_STRING,
  RSP_JSON_ARRAY,
  RSP_JSON_OBJECT,
} RspJsonType;

typedef struct _RspJsonNode RspJsonNode;

#define RSP_JSON_ERROR (rsp_json_error_quark ())
GQuark rsp_json_error_quark (void);
enum
{
  RSP_JSON_ERROR_PARSE, /* the message names the line, the column and what is wrong */
};

/* The document in TEXT[0, LENGTH); NULL and ERROR (RSP_JSON_ERROR_PARSE)
 * when it is not JSON. */
RspJsonNode *rsp_json_parse (const char *text, gsize length, GError **error);
void rsp_json_node_free (RspJsonNode *node);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspJsonNode, rsp_json_node_free)

RspJsonType rsp_json_node_get_type (const RspJsonNode *node);
/* The value, or NULL / 0 / FALSE when NODE holds another type. */
const char *rsp_json_node_get_string (const RspJsonNode *node);
gint64 rsp_json_node_get_int (const RspJsonNode *node);
gdouble rsp_json_node_get_double (const RspJsonNode *node);
gboolean rsp_json_node_get_boolean (const RspJsonNode *node);
/* Elements of an array or members of an object; 0 for anything else. */
guint rsp_json_node_get_length (const RspJsonNode *node);
/* The array's element I, or NULL. */
const RspJsonNode *rsp_json_array_get_element (const RspJsonNode *array, guint i);
/* The object's (last) member named NAME, or NULL. */
const RspJsonNode *rsp_json_object_get_member (const RspJsonNode *object, const char *name);
/* The object's member I and its name, or NULL. */
const RspJsonNode *rsp_json_object_get_nth (const RspJsonNode *object, guint i, const char **name);

G_END_DECLS
