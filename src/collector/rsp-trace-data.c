/* rsp-trace-data.c — parse perf's tracing-data blob into libtraceevent.
 *
 * Layout (perf's trace-event-info.c, version "0.6"):
 *   "\027\010\104tracing"  version string NUL  endian u8  long-size u8  page-size u32
 *   "header_page\0" u64 size, data        "header_event\0" u64 size, data
 *   u32 n ftrace formats: { u64 size, data }
 *   u32 n systems: { system NUL, u32 n events: { u64 size, data } }
 *   u32 size, kallsyms text      u32 size, printk formats
 *   (version >= 0.6) u64 size, saved cmdlines (not read)
 * Integers are in the recording machine's byte order.
 */
#include "rsp-trace-data.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "rsp-perf-reader.h"
#include "rsp-tep-fields.h"
#include "rsp-tep-guard.h"

typedef struct {
  const guint8 *data;
  gsize size;
  gsize pos;
  gboolean big_endian;
} Cursor;

static gboolean
cursor_take (Cursor *c, gsize n, const guint8 **out)
{
  if (n > c->size - c->pos)
    return FALSE;
  *out = c->data + c->pos;
  c->pos += n;
  return TRUE;
}

static gboolean
cursor_u32 (Cursor *c, guint32 *out)
{
  const guint8 *p;
  if (!cursor_take (c, 4, &p))
    return FALSE;
  guint32 v;
  memcpy (&v, p, 4);
  *out = c->big_endian ? GUINT32_FROM_BE (v) : GUINT32_FROM_LE (v);
  return TRUE;
}

static gboolean
cursor_u64 (Cursor *c, guint64 *out)
{
  const guint8 *p;
  if (!cursor_take (c, 8, &p))
    return FALSE;
  guint64 v;
  memcpy (&v, p, 8);
  *out = c->big_endian ? GUINT64_FROM_BE (v) : GUINT64_FROM_LE (v);
  return TRUE;
}

static gboolean
cursor_string (Cursor *c, const char **out)
{
  const guint8 *start = c->data + c->pos;
  const guint8 *nul = memchr (start, 0, c->size - c->pos);
  if (nul == NULL)
    return FALSE;
  *out = (const char *) start;
  c->pos += (gsize) (nul - start) + 1;
  return TRUE;
}

static gboolean
expect_bytes (Cursor *c, const char *bytes, gsize n)
{
  const guint8 *p;
  return cursor_take (c, n, &p) && memcmp (p, bytes, n) == 0;
}

/* A format waiting to be parsed (rsp_trace_data_load_fields()). */
typedef struct {
  char *text;
  const char *system; /* in the blob's memory or a literal */
} Waiting;

static void
waiting_clear (gpointer data)
{
  g_free (((Waiting *) data)->text);
}

/* WAITING: NULL, each format is parsed at once; else each is added there. */
static gboolean
parse_formats (struct tep_handle *tep, Cursor *c, const char *system, gboolean with_print, GArray *waiting,
               GError **error)
{
  guint32 count;
  if (!cursor_u32 (c, &count))
    return FALSE;
  for (guint32 i = 0; i < count; i++)
    {
      guint64 size;
      const guint8 *p;
      if (!cursor_u64 (c, &size) || size > c->size - c->pos || !cursor_take (c, size, &p))
        return FALSE;
      /* Only a format that passes the guard reaches libtraceevent (which
       * trusts what it parses); a damaged one loses that event's fields,
       * and the reader then reports its samples as undecodable, as perf
       * does.  A sound format with a print fmt libtraceevent cannot take
       * keeps its fields and prints nothing. */
      char *text = rsp_tep_format_text ((const char *) p, size, with_print);
      if (text == NULL)
        continue;
      if (waiting != NULL)
        {
          Waiting w = { text, system };
          g_array_append_val (waiting, w);
          continue;
        }
      tep_parse_event (tep, text, strlen (text), system);
      g_free (text);
    }
  (void) error;
  return TRUE;
}

static gint
compare_event_ids (gconstpointer a, gconstpointer b)
{
  const struct tep_event *x = *(struct tep_event *const *) a, *y = *(struct tep_event *const *) b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The waiting formats made from their fields alone when every one has the
 * kernel's shape and no two share an id (so that a lookup by id finds
 * what libtraceevent's would); NULL otherwise. */
static GPtrArray *
fields_events (struct tep_handle *tep, GArray *waiting)
{
  GPtrArray *events = g_ptr_array_new_full (waiting->len, (GDestroyNotify) rsp_tep_fields_event_free);
  for (guint i = 0; i < waiting->len; i++)
    {
      const Waiting *w = &g_array_index (waiting, Waiting, i);
      struct tep_event *event = rsp_tep_fields_event_new (tep, w->text, w->system);
      if (event == NULL)
        {
          g_ptr_array_unref (events);
          return NULL;
        }
      g_ptr_array_add (events, event);
    }
  g_ptr_array_sort (events, compare_event_ids);
  for (guint i = 1; i < events->len; i++)
    if (((struct tep_event *) g_ptr_array_index (events, i - 1))->id
        == ((struct tep_event *) g_ptr_array_index (events, i))->id)
      {
        g_ptr_array_unref (events);
        return NULL;
      }
  return events;
}

/* Parses the blob into a new handle; NULL when its structure is damaged.
 * OWN: NULL, every format goes to libtraceevent; else (no print fmts) the
 * events made from their fields alone, or NULL when libtraceevent had to
 * parse them. */
static struct tep_handle *
parse_blob (const guint8 *data, gsize size, gboolean with_print, GPtrArray **own, gsize *error_pos)
{
  g_autoptr (GArray) waiting = NULL;
  if (own != NULL)
    {
      *own = NULL;
      waiting = g_array_new (FALSE, FALSE, sizeof (Waiting));
      g_array_set_clear_func (waiting, waiting_clear);
    }
  Cursor c = { data, size, 0, FALSE };
  struct tep_handle *tep = NULL;
  GError **error = NULL;
  const char *version;
  const guint8 *p;

  if (!expect_bytes (&c, "\027\010\104tracing", 10) || !cursor_string (&c, &version))
    goto bad;
  if (!cursor_take (&c, 1, &p))
    goto bad;
  c.big_endian = p[0] != 0;
  guint8 long_size;
  if (!cursor_take (&c, 1, &p))
    goto bad;
  long_size = p[0];
  guint32 page_size;
  if (!cursor_u32 (&c, &page_size))
    goto bad;
  if (long_size != 4 && long_size != 8)
    goto bad;

  tep = tep_alloc ();
  tep_set_file_bigendian (tep, c.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian (tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size (tep, long_size);
  tep_set_page_size (tep, (int) page_size);

  guint64 header_size;
  if (!expect_bytes (&c, "header_page\0", 12) || !cursor_u64 (&c, &header_size)
      || !cursor_take (&c, header_size, &p))
    goto bad;
  {
    /* without a sound header page libtraceevent uses its defaults */
    g_autofree char *header_page = g_strndup ((const char *) p, header_size);
    if (rsp_tep_check_header_page (header_page, strlen (header_page)))
      tep_parse_header_page (tep, header_page, strlen (header_page), long_size);
  }

  if (!expect_bytes (&c, "header_event\0", 13) || !cursor_u64 (&c, &header_size)
      || !cursor_take (&c, header_size, &p))
    goto bad;

  if (!parse_formats (tep, &c, "ftrace", with_print, waiting, error))
    goto bad;

  guint32 n_systems;
  if (!cursor_u32 (&c, &n_systems))
    goto bad;
  for (guint32 i = 0; i < n_systems; i++)
    {
      const char *system;
      if (!cursor_string (&c, &system) || !parse_formats (tep, &c, system, with_print, waiting, error))
        goto bad;
    }

  /* kallsyms: perf writes none; kernel symbols come from elsewhere. */
  guint32 blob_size;
  if (!cursor_u32 (&c, &blob_size) || !cursor_take (&c, blob_size, &p))
    goto bad;

  if (!cursor_u32 (&c, &blob_size) || !cursor_take (&c, blob_size, &p))
    goto bad;
  /* perf's printk formats (the texts of trace_printk() and the like, by
   * address) serve only to print an event: without its print fmt nothing
   * reads them.  Checking and parsing them was a tenth of a report of a
   * 0.2 MB recording. */
  if (blob_size > 0 && with_print)
    {
      g_autofree char *printk = g_strndup ((const char *) p, blob_size);
      g_autofree char *clean = rsp_tep_clean_printk (printk, strlen (printk));
      if (clean != NULL)
        tep_parse_printk_formats (tep, clean);
    }

  /* The saved command lines (version 0.6 and later: u64 size, then lines
   * of "PID COMM") are the last part and are not read: libtraceevent uses
   * them only to print a comm for a pid (TEP_PRINT_COMM,
   * tep_data_comm_from_pid), which RSP never asks for (comms come from
   * perf's COMM records and the payloads).  Parsing them was a twelfth of
   * a report of a small recording. */
  if (waiting != NULL)
    {
      *own = fields_events (tep, waiting);
      for (guint i = 0; *own == NULL && i < waiting->len; i++)
        {
          const Waiting *w = &g_array_index (waiting, Waiting, i);
          tep_parse_event (tep, w->text, strlen (w->text), w->system);
        }
    }
  return tep;

bad:
  if (tep != NULL)
    tep_free (tep);
  *error_pos = c.pos;
  return NULL;
}

static struct tep_handle *
load (const guint8 *data, gsize size, gboolean with_print, GPtrArray **own, GError **error)
{
  gsize pos = 0;
  struct tep_handle *tep = parse_blob (data, size, with_print, own, &pos);
  if (tep == NULL)
    g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                 _("the tracing data (tracepoint formats) is damaged at byte %llu of %llu"),
                 (unsigned long long) pos, (unsigned long long) size);
  return tep;
}

struct tep_handle *
rsp_trace_data_load (const guint8 *data, gsize size, gboolean with_print, GError **error)
{
  return load (data, size, with_print, NULL, error);
}

struct tep_handle *
rsp_trace_data_load_fields (const guint8 *data, gsize size, GPtrArray **events, GError **error)
{
  g_return_val_if_fail (events != NULL, NULL);
  return load (data, size, FALSE, events, error);
}

struct tep_event *
rsp_trace_data_find_event (struct tep_handle *tep, GPtrArray *events, int id)
{
  if (events == NULL)
    return tep != NULL ? tep_find_event (tep, id) : NULL;
  guint lo = 0, hi = events->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      struct tep_event *event = g_ptr_array_index (events, mid);
      if (event->id == id)
        return event;
      if (event->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}
