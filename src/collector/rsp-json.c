/* rsp-json.c — JSON text written and read without json-glib (see
 * rsp-json.h). */
#include "rsp-json.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- writing */

typedef struct
{
  gboolean object;
  guint count; /* values written in it so far */
} Frame;

struct _RspJsonWriter
{
  GString *out;
  GArray *frames; /* Frame: the open containers, outermost first */
  char *name;     /* the next member's name */
  gboolean done;  /* a whole top-level value was written */
};

RspJsonWriter *
rsp_json_writer_new (void)
{
  RspJsonWriter *w = g_new0 (RspJsonWriter, 1);
  w->out = g_string_sized_new (4096);
  w->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  return w;
}

void
rsp_json_writer_free (RspJsonWriter *w)
{
  if (w == NULL)
    return;
  g_string_free (w->out, TRUE);
  g_array_unref (w->frames);
  g_free (w->name);
  g_free (w);
}

static void
indent (GString *out, guint level)
{
  for (guint i = 0; i < level; i++)
    g_string_append_len (out, "  ", 2);
}

/* The two-character escapes: the letter after the backslash and the
 * character it stands for. The writer uses all but "\/". */
static const struct
{
  char letter, c;
} short_escapes[] = {
  { '"', '"' }, { '\\', '\\' }, { '/', '/' }, { 'b', '\b' }, { 'f', '\f' }, { 'n', '\n' }, { 'r', '\r' }, { 't', '\t' },
};

/* The letter that escapes C, or 0. */
static char
escape_letter (guchar c)
{
  for (guint i = 0; i < G_N_ELEMENTS (short_escapes); i++)
    if ((guchar) short_escapes[i].c == c && c != '/')
      return short_escapes[i].letter;
  return '\0';
}

/* The character the escape LETTER stands for, or 0. */
static char
escaped_char (char letter)
{
  for (guint i = 0; i < G_N_ELEMENTS (short_escapes); i++)
    if (short_escapes[i].letter == letter)
      return short_escapes[i].c;
  return '\0';
}

void
rsp_json_append_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  const char *p = s;
  const char *end = s + strlen (s);
  while (p < end)
    {
      guchar c = (guchar) *p;
      if (c >= 0x80)
        {
          /* one character as it is when it is UTF-8, else U+FFFD */
          gunichar u = g_utf8_get_char_validated (p, end - p);
          if (u == (gunichar) -1 || u == (gunichar) -2)
            {
              g_string_append_len (out, "\xef\xbf\xbd", 3);
              p++;
              continue;
            }
          const char *next = g_utf8_next_char (p);
          g_string_append_len (out, p, next - p);
          p = next;
          continue;
        }
      char letter = c == '"' || c == '\\' || c < 0x20 ? escape_letter (c) : '\0';
      if (letter != '\0')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, letter);
        }
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
      p++;
    }
  g_string_append_c (out, '"');
}

/* What comes before any value: the separator, the indentation and, in an
 * object, the name. FALSE when a value cannot go here. */
static gboolean
before_value (RspJsonWriter *w)
{
  if (w->frames->len == 0)
    {
      g_return_val_if_fail (!w->done, FALSE);
      return TRUE;
    }
  Frame *f = &g_array_index (w->frames, Frame, w->frames->len - 1);
  g_return_val_if_fail (!f->object || w->name != NULL, FALSE);
  g_string_append_len (w->out, f->count > 0 ? ",\n" : "\n", f->count > 0 ? 2 : 1);
  indent (w->out, w->frames->len);
  if (f->object)
    {
      rsp_json_append_string (w->out, w->name);
      g_string_append_len (w->out, " : ", 3);
      g_clear_pointer (&w->name, g_free);
    }
  f->count++;
  return TRUE;
}

static void
after_value (RspJsonWriter *w)
{
  if (w->frames->len == 0)
    w->done = TRUE;
}

void
rsp_json_writer_set_member_name (RspJsonWriter *w, const char *name)
{
  g_return_if_fail (w->frames->len > 0 && g_array_index (w->frames, Frame, w->frames->len - 1).object);
  g_free (w->name);
  w->name = g_strdup (name);
}

static void
begin (RspJsonWriter *w, gboolean object)
{
  if (!before_value (w))
    return;
  g_string_append_c (w->out, object ? '{' : '[');
  Frame f = { object, 0 };
  g_array_append_val (w->frames, f);
}

static void
end (RspJsonWriter *w, gboolean object)
{
  g_return_if_fail (w->frames->len > 0);
  Frame f = g_array_index (w->frames, Frame, w->frames->len - 1);
  g_return_if_fail (f.object == object);
  g_array_set_size (w->frames, w->frames->len - 1);
  if (f.count > 0)
    {
      g_string_append_c (w->out, '\n');
      indent (w->out, w->frames->len);
    }
  else if (object)
    indent (w->out, w->frames->len); /* json-glib's "{  }" */
  g_string_append_c (w->out, object ? '}' : ']');
  after_value (w);
}

void
rsp_json_writer_begin_object (RspJsonWriter *w)
{
  begin (w, TRUE);
}

void
rsp_json_writer_end_object (RspJsonWriter *w)
{
  end (w, TRUE);
}

void
rsp_json_writer_begin_array (RspJsonWriter *w)
{
  begin (w, FALSE);
}

void
rsp_json_writer_end_array (RspJsonWriter *w)
{
  end (w, FALSE);
}

static void
scalar (RspJsonWriter *w, const char *text)
{
  if (!before_value (w))
    return;
  g_string_append (w->out, text);
  after_value (w);
}

void
rsp_json_writer_add_int_value (RspJsonWriter *w, gint64 v)
{
  char buf[24];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, v);
  scalar (w, buf);
}

void
rsp_json_writer_add_double_value (RspJsonWriter *w, gdouble v)
{
  if (!isfinite (v))
    {
      scalar (w, "null");
      return;
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 2];
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.17g", v);
  if (strpbrk (buf, ".e") == NULL)
    strcat (buf, ".0");
  scalar (w, buf);
}

void
rsp_json_writer_add_string_value (RspJsonWriter *w, const char *v)
{
  if (v == NULL)
    {
      scalar (w, "null");
      return;
    }
  if (!before_value (w))
    return;
  rsp_json_append_string (w->out, v);
  after_value (w);
}

void
rsp_json_writer_add_boolean_value (RspJsonWriter *w, gboolean v)
{
  scalar (w, v ? "true" : "false");
}

void
rsp_json_writer_add_null_value (RspJsonWriter *w)
{
  scalar (w, "null");
}

char *
rsp_json_writer_finish (RspJsonWriter *w, gsize *length)
{
  g_return_val_if_fail (w->done && w->frames->len == 0, NULL);
  if (length != NULL)
    *length = w->out->len;
  char *text = g_string_free (w->out, FALSE);
  w->out = g_string_sized_new (4096);
  w->done = FALSE;
  return text;
}

/* ---------------------------------------------------------------- reading */

G_DEFINE_QUARK (rsp-json-error-quark, rsp_json_error)

struct _RspJsonNode
{
  RspJsonType type;
  union
  {
    gboolean boolean;
    gint64 integer;
    gdouble number;
    char *string;
    struct
    {
      RspJsonNode **items;
      char **names; /* objects only */
      guint n;
    } c;
  } v;
};

typedef struct
{
  const char *start, *p, *end;
  GError **error;
} Parser;

G_GNUC_PRINTF (2, 3)
static void
fail (Parser *ps, const char *format, ...)
{
  if (ps->error == NULL || *ps->error != NULL)
    return;
  guint line = 1, column = 1;
  for (const char *q = ps->start; q < ps->p && q < ps->end; q++)
    {
      if (*q == '\n')
        line++, column = 1;
      else
        column++;
    }
  va_list ap;
  va_start (ap, format);
  g_autofree char *what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (ps->error, RSP_JSON_ERROR, RSP_JSON_ERROR_PARSE, "line %u, column %u: %s", line, column, what);
}

static void
skip_space (Parser *ps)
{
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static RspJsonNode *
node_new (RspJsonType type)
{
  RspJsonNode *n = g_new0 (RspJsonNode, 1);
  n->type = type;
  return n;
}

void
rsp_json_node_free (RspJsonNode *node)
{
  if (node == NULL)
    return;
  if (node->type == RSP_JSON_STRING)
    g_free (node->v.string);
  else if (node->type == RSP_JSON_ARRAY || node->type == RSP_JSON_OBJECT)
    {
      for (guint i = 0; i < node->v.c.n; i++)
        {
          rsp_json_node_free (node->v.c.items[i]);
          if (node->v.c.names != NULL)
            g_free (node->v.c.names[i]);
        }
      g_free (node->v.c.items);
      g_free (node->v.c.names);
    }
  g_free (node);
}

static int
hex4 (const char *p)
{
  int v = 0;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p[i]);
      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

/* A string literal at ps->p (its opening quote); NULL on error. */
static char *
parse_string (Parser *ps)
{
  g_assert (ps->p < ps->end && *ps->p == '"');
  ps->p++;
  GString *s = g_string_new (NULL);
  for (;;)
    {
      if (ps->p >= ps->end)
        {
          fail (ps, "the text ends inside a string");
          goto bad;
        }
      guchar c = (guchar) *ps->p;
      if (c == '"')
        {
          ps->p++;
          break;
        }
      if (c < 0x20)
        {
          fail (ps, "a control character in a string");
          goto bad;
        }
      if (c != '\\')
        {
          /* a run of plain bytes, checked as UTF-8 below */
          const char *run = ps->p;
          while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' && (guchar) *ps->p >= 0x20)
            ps->p++;
          g_string_append_len (s, run, ps->p - run);
          continue;
        }
      if (ps->end - ps->p < 2)
        {
          fail (ps, "the text ends inside a string");
          goto bad;
        }
      char e = ps->p[1];
      ps->p += 2;
      char plain = escaped_char (e);
      if (plain != '\0')
        {
          g_string_append_c (s, plain);
          continue;
        }
      switch (e)
        {
        case 'u':
          {
            int u = ps->end - ps->p >= 4 ? hex4 (ps->p) : -1;
            if (u < 0)
              {
                fail (ps, "a \\u escape without four hexadecimal digits");
                goto bad;
              }
            ps->p += 4;
            gunichar ch = (gunichar) u;
            if (u >= 0xd800 && u < 0xdc00)
              {
                int lo = ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u' ? hex4 (ps->p + 2) : -1;
                if (lo < 0xdc00 || lo >= 0xe000)
                  {
                    fail (ps, "a \\u escape of half a surrogate pair");
                    goto bad;
                  }
                ps->p += 6;
                ch = 0x10000 + (((gunichar) u - 0xd800) << 10) + ((gunichar) lo - 0xdc00);
              }
            else if (u >= 0xdc00 && u < 0xe000)
              {
                fail (ps, "a \\u escape of half a surrogate pair");
                goto bad;
              }
            else if (u == 0)
              {
                fail (ps, "a NUL character (\\u0000) in a string");
                goto bad;
              }
            g_string_append_unichar (s, ch);
            break;
          }
        default:
          ps->p -= 2;
          fail (ps, "an invalid escape in a string");
          goto bad;
        }
    }
  if (!g_utf8_validate_len (s->str, s->len, NULL))
    {
      fail (ps, "a string that is not UTF-8");
      goto bad;
    }
  return g_string_free (s, FALSE);
bad:
  g_string_free (s, TRUE);
  return NULL;
}

/* The integer in [P, END) (an optional '-', then digits, as checked by
 * parse_number) when it fits 64 bits. Not g_ascii_strtoll: its result
 * needs errno, which the first call in a process can leave set on
 * success (GLib opens the C locale then), and the metadata's first integer
 * (the process of interest) then read as a double, now and then, in the
 * viewer, whose loading thread parses it first. */
static gboolean
parse_int64 (const char *p, const char *end, gint64 *out)
{
  gboolean negative = p < end && *p == '-';
  if (negative)
    p++;
  guint64 v = 0;
  for (; p < end; p++)
    {
      guint d = (guint) (*p - '0');
      if (v > (G_MAXUINT64 - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  if (negative)
    {
      if (v > (guint64) G_MAXINT64 + 1)
        return FALSE;
      *out = v == (guint64) G_MAXINT64 + 1 ? G_MININT64 : -(gint64) v;
    }
  else
    {
      if (v > (guint64) G_MAXINT64)
        return FALSE;
      *out = (gint64) v;
    }
  return TRUE;
}

static RspJsonNode *
parse_number (Parser *ps)
{
  const char *start = ps->p;
  const char *q = ps->p;
  gboolean integral = TRUE;
  if (q < ps->end && *q == '-')
    q++;
  if (q >= ps->end || !g_ascii_isdigit (*q))
    {
      fail (ps, "an invalid number");
      return NULL;
    }
  if (*q == '0')
    q++;
  else
    while (q < ps->end && g_ascii_isdigit (*q))
      q++;
  if (q < ps->end && *q == '.')
    {
      integral = FALSE;
      q++;
      if (q >= ps->end || !g_ascii_isdigit (*q))
        {
          ps->p = q;
          fail (ps, "an invalid number");
          return NULL;
        }
      while (q < ps->end && g_ascii_isdigit (*q))
        q++;
    }
  if (q < ps->end && (*q == 'e' || *q == 'E'))
    {
      integral = FALSE;
      q++;
      if (q < ps->end && (*q == '+' || *q == '-'))
        q++;
      if (q >= ps->end || !g_ascii_isdigit (*q))
        {
          ps->p = q;
          fail (ps, "an invalid number");
          return NULL;
        }
      while (q < ps->end && g_ascii_isdigit (*q))
        q++;
    }
  ps->p = q;
  gint64 v;
  if (integral && parse_int64 (start, q, &v))
    {
      RspJsonNode *n = node_new (RSP_JSON_INT);
      n->v.integer = v;
      return n;
    }
  /* the number's text, terminated, for g_ascii_strtod */
  char buf[64];
  g_autofree char *big = NULL;
  gsize len = q - start;
  char *text = len < sizeof buf ? buf : (big = g_malloc (len + 1));
  memcpy (text, start, len);
  text[len] = '\0';
  RspJsonNode *n = node_new (RSP_JSON_DOUBLE);
  n->v.number = g_ascii_strtod (text, NULL);
  return n;
}

static gboolean
literal (Parser *ps, const char *word)
{
  gsize len = strlen (word);
  if ((gsize) (ps->end - ps->p) >= len && memcmp (ps->p, word, len) == 0)
    {
      ps->p += len;
      return TRUE;
    }
  return FALSE;
}

static RspJsonNode *parse_value (Parser *ps, guint depth);

static void
container_add (RspJsonNode *n, guint *alloc, RspJsonNode *item, char *name)
{
  if (n->v.c.n == *alloc)
    {
      *alloc = MAX (4, *alloc * 2);
      n->v.c.items = g_renew (RspJsonNode *, n->v.c.items, *alloc);
      if (n->type == RSP_JSON_OBJECT)
        n->v.c.names = g_renew (char *, n->v.c.names, *alloc);
    }
  n->v.c.items[n->v.c.n] = item;
  if (n->type == RSP_JSON_OBJECT)
    n->v.c.names[n->v.c.n] = name;
  n->v.c.n++;
}

/* An array or object at ps->p (its opening bracket). */
static RspJsonNode *
parse_container (Parser *ps, guint depth, gboolean object)
{
  if (depth >= RSP_JSON_MAX_DEPTH)
    {
      fail (ps, "more than %d levels of nesting", RSP_JSON_MAX_DEPTH);
      return NULL;
    }
  char close = object ? '}' : ']';
  RspJsonNode *n = node_new (object ? RSP_JSON_OBJECT : RSP_JSON_ARRAY);
  guint alloc = 0;
  ps->p++;
  skip_space (ps);
  if (ps->p < ps->end && *ps->p == close)
    {
      ps->p++;
      return n;
    }
  for (;;)
    {
      char *name = NULL;
      if (object)
        {
          skip_space (ps);
          if (ps->p >= ps->end || *ps->p != '"')
            {
              fail (ps, "a member's name was expected");
              goto bad;
            }
          if ((name = parse_string (ps)) == NULL)
            goto bad;
          skip_space (ps);
          if (ps->p >= ps->end || *ps->p != ':')
            {
              g_free (name);
              fail (ps, "':' was expected after a member's name");
              goto bad;
            }
          ps->p++;
        }
      RspJsonNode *item = parse_value (ps, depth + 1);
      if (item == NULL)
        {
          g_free (name);
          goto bad;
        }
      container_add (n, &alloc, item, name);
      skip_space (ps);
      if (ps->p < ps->end && *ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (ps->p < ps->end && *ps->p == close)
        {
          ps->p++;
          return n;
        }
      fail (ps, object ? "',' or '}' was expected" : "',' or ']' was expected");
      goto bad;
    }
bad:
  rsp_json_node_free (n);
  return NULL;
}

static RspJsonNode *
parse_value (Parser *ps, guint depth)
{
  skip_space (ps);
  if (ps->p >= ps->end)
    {
      fail (ps, "a value was expected");
      return NULL;
    }
  switch (*ps->p)
    {
    case '{':
      return parse_container (ps, depth, TRUE);
    case '[':
      return parse_container (ps, depth, FALSE);
    case '"':
      {
        char *s = parse_string (ps);
        if (s == NULL)
          return NULL;
        RspJsonNode *n = node_new (RSP_JSON_STRING);
        n->v.string = s;
        return n;
      }
    case 't':
    case 'f':
    case 'n':
      {
        RspJsonNode *n = NULL;
        gboolean truth = literal (ps, "true");
        if (truth || literal (ps, "false"))
          {
            n = node_new (RSP_JSON_BOOLEAN);
            n->v.boolean = truth;
          }
        else if (literal (ps, "null"))
          n = node_new (RSP_JSON_NULL);
        else
          fail (ps, "an unknown word");
        return n;
      }
    default:
      if (*ps->p == '-' || g_ascii_isdigit (*ps->p))
        return parse_number (ps);
      fail (ps, "an unexpected character");
      return NULL;
    }
}

RspJsonNode *
rsp_json_parse (const char *text, gsize length, GError **error)
{
  g_autoptr (GError) local = NULL;
  Parser ps = { text, text, text + length, error != NULL ? error : &local };
  RspJsonNode *root = parse_value (&ps, 0);
  if (root == NULL)
    return NULL;
  skip_space (&ps);
  if (ps.p < ps.end)
    {
      fail (&ps, "text after the document's end");
      rsp_json_node_free (root);
      return NULL;
    }
  return root;
}

RspJsonType
rsp_json_node_get_type (const RspJsonNode *node)
{
  return node != NULL ? node->type : RSP_JSON_NULL;
}

const char *
rsp_json_node_get_string (const RspJsonNode *node)
{
  return node != NULL && node->type == RSP_JSON_STRING ? node->v.string : NULL;
}

gint64
rsp_json_node_get_int (const RspJsonNode *node)
{
  return node != NULL && node->type == RSP_JSON_INT ? node->v.integer : 0;
}

gdouble
rsp_json_node_get_double (const RspJsonNode *node)
{
  if (node != NULL && node->type == RSP_JSON_DOUBLE)
    return node->v.number;
  if (node != NULL && node->type == RSP_JSON_INT)
    return (gdouble) node->v.integer;
  return 0.0;
}

gboolean
rsp_json_node_get_boolean (const RspJsonNode *node)
{
  return node != NULL && node->type == RSP_JSON_BOOLEAN && node->v.boolean;
}

guint
rsp_json_node_get_length (const RspJsonNode *node)
{
  return node != NULL && (node->type == RSP_JSON_ARRAY || node->type == RSP_JSON_OBJECT) ? node->v.c.n : 0;
}

const RspJsonNode *
rsp_json_array_get_element (const RspJsonNode *array, guint i)
{
  if (array == NULL || array->type != RSP_JSON_ARRAY || i >= array->v.c.n)
    return NULL;
  return array->v.c.items[i];
}

const RspJsonNode *
rsp_json_object_get_member (const RspJsonNode *object, const char *name)
{
  if (object == NULL || object->type != RSP_JSON_OBJECT)
    return NULL;
  for (guint i = object->v.c.n; i-- > 0;)
    if (strcmp (object->v.c.names[i], name) == 0)
      return object->v.c.items[i];
  return NULL;
}

const RspJsonNode *
rsp_json_object_get_nth (const RspJsonNode *object, guint i, const char **name)
{
  if (object == NULL || object->type != RSP_JSON_OBJECT || i >= object->v.c.n)
    return NULL;
  if (name != NULL)
    *name = object->v.c.names[i];
  return object->v.c.items[i];
}
