/* rsp-tep-fields.c — a format's fields read without libtraceevent's parser
 * (rsp-tep-fields.h).  What libtraceevent's event_read_fields() makes of a
 * field line, for the lines this accepts:
 *
 *   type   the words before the name joined by one space ("const char *"),
 *          then the bracket ("char[16]"); "__data_loc char[] name" gives
 *          "__data_loc char[]"
 *   flags  POINTER for a '*' word, ARRAY for a bracket, STRING for an array
 *          whose type contains "char", "u8" or "s8", DYNAMIC for __data_loc,
 *          LONG for a type containing
 *          "long", SIGNED for "signed:1" (a __rel_loc field is left to
 *          libtraceevent)
 *   arraylen  the number in the bracket, 0 for "[]"
 *   elementsize  for an array or a __data_loc field: size / arraylen, or
 *          (no length) the element type's size (u8…s64, char) for
 *          __data_loc "TYPE[]" and 0 for "__data_loc TYPE", 1 for a string,
 *          the long size for a long, else 0; for any other field its size
 *
 * Common fields run to the first empty line, the event's own to the next. */
#include "rsp-tep-fields.h"

#include <stdlib.h>
#include <string.h>

static gboolean
ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* A plain decimal number as strtoul (…, 0) reads it: no leading zero (that
 * would be octal), at most 9 digits. */
static gboolean
read_decimal (const char **p, const char *end, guint64 *value)
{
  const char *s = *p;
  guint64 v = 0;
  guint n = 0;
  while (s < end && g_ascii_isdigit (*s))
    {
      v = v * 10 + (guint64) (*s - '0');
      s++;
      if (++n > 9)
        return FALSE;
    }
  if (n == 0 || (n > 1 && **p == '0'))
    return FALSE;
  *p = s;
  *value = v;
  return TRUE;
}

static gboolean
take (const char **p, const char *end, const char *word)
{
  gsize n = strlen (word);
  if ((gsize) (end - *p) < n || memcmp (*p, word, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* libtraceevent's type_size(): the element size of a __data_loc array */
static unsigned int
element_type_size (const char *name)
{
  static const struct {
    const char *type;
    unsigned int size;
  } table[] = { { "u8", 1 }, { "u16", 2 }, { "u32", 4 }, { "u64", 8 }, { "s8", 1 },
                { "s16", 2 }, { "s32", 4 }, { "s64", 8 }, { "char", 1 } };
  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i].type, name) == 0)
      return table[i].size;
  return 0;
}

static void
field_free (struct tep_format_field *f)
{
  g_free (f->type);
  g_free (f->name);
  g_free (f);
}

static void
fields_free (struct tep_format_field *f)
{
  while (f != NULL)
    {
      struct tep_format_field *next = f->next;
      field_free (f);
      f = next;
    }
}

/* One line "\tfield:TYPE NAME;\toffset:N;\tsize:N;[\tsigned:N;]" (without
 * its newline), or NULL when it is not in the shape accepted here. */
static struct tep_format_field *
read_field (struct tep_event *event, const char *line, const char *end)
{
  const char *p = line;
  if (!take (&p, end, "\tfield:"))
    return NULL;
  const char *semi = memchr (p, ';', (gsize) (end - p));
  if (semi == NULL)
    return NULL;

  /* words: identifiers and '*', spaces between them as libtraceevent's
   * tokenizer skips them; the last identifier before the bracket or the
   * end is the name.  "**" is refused (how the tokenizer reads a run of
   * operator characters is not followed here). */
  const char *words[32];
  gsize lens[32];
  guint n = 0;
  const char *bracket = NULL, *after = NULL;
  while (p < semi)
    {
      if (*p == ' ')
        {
          p++;
          continue;
        }
      if (*p == '[')
        {
          if (n == 0)
            return NULL;
          bracket = p;
          p = memchr (p, ']', (gsize) (semi - p));
          if (p == NULL)
            return NULL;
          p++;
          while (p < semi && *p == ' ')
            p++;
          if (p == semi)
            break;
          /* "__data_loc TYPE[] NAME" */
          after = p;
          while (p < semi && ident_char (*p))
            p++;
          if (p != semi)
            return NULL;
          break;
        }
      const char *w = p;
      if (ident_char (*p))
        while (p < semi && ident_char (*p))
          p++;
      else if (*p == '*')
        {
          p++;
          if (p < semi && *p == '*')
            return NULL;
        }
      else
        return NULL;
      if (n == G_N_ELEMENTS (words))
        return NULL;
      words[n] = w;
      lens[n] = (gsize) (p - w);
      n++;
    }
  /* a type and a name, the name an identifier */
  if (n < 2 || !ident_char (words[0][0]) || !ident_char (words[n - 1][0]))
    return NULL;

  struct tep_format_field *f = g_new0 (struct tep_format_field, 1);
  f->event = event;
  GString *type = g_string_sized_new (32);
  for (guint i = 0; i + 1 < n; i++)
    {
      if (i > 0)
        g_string_append_c (type, ' ');
      g_string_append_len (type, words[i], (gssize) lens[i]);
      if (words[i][0] == '*')
        f->flags |= TEP_FIELD_IS_POINTER;
    }
  const char *name = words[n - 1];
  gsize name_len = lens[n - 1];
  unsigned int size_dynamic = 0;
  if (bracket != NULL)
    {
      f->flags |= TEP_FIELD_IS_ARRAY;
      const char *q = bracket + 1;
      const char *close = memchr (q, ']', (gsize) (semi - q));
      if (close != q)
        {
          guint64 len;
          if (!read_decimal (&q, close, &len) || q != close)
            goto refuse;
          f->arraylen = (unsigned int) len;
        }
      if (after != NULL)
        {
          /* the word before the bracket joins the type; the name follows */
          g_string_append_c (type, ' ');
          g_string_append_len (type, name, (gssize) name_len);
          g_string_append (type, "[]");
          if (close != bracket + 1)
            goto refuse;
          char *element = g_strndup (name, name_len);
          size_dynamic = element_type_size (element);
          g_free (element);
          name = after;
          name_len = (gsize) (semi - after);
        }
      else
        g_string_append_len (type, bracket, close - bracket + 1);
    }
  f->type = g_string_free (type, FALSE);
  type = NULL;
  /* __rel_loc: libtraceevent 1.7.1 gives such a field flags of its own
   * (found by fuzz-trace-data), and the kernel's formats use none */
  if (strncmp (f->type, "__rel_loc", 9) == 0)
    goto refuse;
  f->name = f->alias = g_strndup (name, name_len);

  if (f->flags & TEP_FIELD_IS_ARRAY
      && (strstr (f->type, "char") != NULL || strstr (f->type, "u8") != NULL || strstr (f->type, "s8") != NULL))
    f->flags |= TEP_FIELD_IS_STRING;
  if (strncmp (f->type, "__data_loc", 10) == 0)
    f->flags |= TEP_FIELD_IS_DYNAMIC;
  if (strstr (f->type, "long") != NULL)
    f->flags |= TEP_FIELD_IS_LONG;

  p = semi + 1;
  guint64 offset, size;
  if (!take (&p, end, "\toffset:") || !read_decimal (&p, end, &offset) || !take (&p, end, ";")
      || !take (&p, end, "\tsize:") || !read_decimal (&p, end, &size) || !take (&p, end, ";"))
    goto refuse;
  f->offset = (int) offset;
  f->size = (int) size;
  if (p < end)
    {
      if (!take (&p, end, "\tsigned:") || p >= end || (*p != '0' && *p != '1'))
        goto refuse;
      if (*p == '1')
        f->flags |= TEP_FIELD_IS_SIGNED;
      p++;
      if (!take (&p, end, ";") || p != end)
        goto refuse;
    }

  if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
    {
      if (f->arraylen != 0)
        f->elementsize = (unsigned int) f->size / f->arraylen;
      else if (f->flags & TEP_FIELD_IS_DYNAMIC)
        f->elementsize = size_dynamic;
      else if (f->flags & TEP_FIELD_IS_STRING)
        f->elementsize = 1;
      else if (f->flags & TEP_FIELD_IS_LONG)
        f->elementsize = (unsigned int) (event->tep != NULL ? tep_get_long_size (event->tep) : (int) sizeof (long));
    }
  else
    f->elementsize = (unsigned int) f->size;
  return f;

refuse:
  if (type != NULL)
    g_string_free (type, TRUE);
  field_free (f);
  return NULL;
}

/* The field lines from *P to the next empty line (consumed), at least one;
 * FALSE when a line is not a field line in the accepted shape. */
static gboolean
read_fields (struct tep_event *event, const char **p, const char *end, struct tep_format_field **list, int *count)
{
  struct tep_format_field **tail = list;
  *count = 0;
  while (*p < end)
    {
      const char *nl = memchr (*p, '\n', (gsize) (end - *p));
      if (nl == NULL)
        return FALSE;
      if (nl == *p)
        {
          *p = nl + 1;
          return *count > 0;
        }
      struct tep_format_field *f = read_field (event, *p, nl);
      if (f == NULL)
        return FALSE;
      *tail = f;
      tail = &f->next;
      (*count)++;
      *p = nl + 1;
    }
  return FALSE;
}

struct tep_event *
rsp_tep_fields_event_new (struct tep_handle *tep, const char *text, const char *system)
{
  g_return_val_if_fail (text != NULL && system != NULL, NULL);
  /* libtraceevent treats the ftrace system's events apart ("special"
   * fields, '.' in types, print and bprint) */
  if (strcmp (system, "ftrace") == 0)
    return NULL;
  const char *end = text + strlen (text);
  const char *p = text;
  const char *nl;

  /* name: IDENT */
  if (!take (&p, end, "name: ") || (nl = memchr (p, '\n', (gsize) (end - p))) == NULL || nl == p)
    return NULL;
  for (const char *q = p; q < nl; q++)
    if (!ident_char (*q))
      return NULL;
  const char *name = p;
  gsize name_len = (gsize) (nl - p);
  p = nl + 1;

  /* ID: N */
  guint64 id;
  if (!take (&p, end, "ID: ") || !read_decimal (&p, end, &id) || id > G_MAXINT32 || !take (&p, end, "\n")
      || !take (&p, end, "format:\n"))
    return NULL;

  struct tep_event *event = g_new0 (struct tep_event, 1);
  event->tep = tep;
  event->id = (int) id;
  if (!read_fields (event, &p, end, &event->format.common_fields, &event->format.nr_common)
      || !read_fields (event, &p, end, &event->format.fields, &event->format.nr_fields)
      /* what the guard leaves of the print fmt for a reader that never
       * prints */
      || strcmp (p, "print fmt: \"\"\n") != 0)
    {
      rsp_tep_fields_event_free (event);
      return NULL;
    }
  event->name = g_strndup (name, name_len);
  event->system = g_strdup (system);
  event->print_fmt.format = g_strdup ("");
  return event;
}

void
rsp_tep_fields_event_free (struct tep_event *event)
{
  if (event == NULL)
    return;
  fields_free (event->format.common_fields);
  fields_free (event->format.fields);
  g_free (event->name);
  g_free (event->system);
  g_free (event->print_fmt.format);
  g_free (event);
}
