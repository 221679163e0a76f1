/* rsp-ftrace-reader.c — the "ftrace" section: decoding its ring-buffer
 * sub-buffers, and merging its events into perf's by time.  See
 * rsp-ftrace-reader.h for the rules.
 *
 * The sub-buffers are decoded here rather than with libtraceevent's
 * kbuffer, which follows an event's length before checking it against the
 * sub-buffer (a damaged length read far outside it, found by fuzzing).  The
 * layout (the kernel's ring_buffer_event): a u32 header whose low 5 bits are
 * the type_len and high 27 bits the time delta, then
 *   type_len 1..28   data of type_len x 4 bytes
 *   type_len 0       u32 length (of itself and the data), data, padded to 4
 *   29 padding       u32 length of the padding (delta 0: the rest of the sub-buffer)
 *   30 time extend   u32: delta += value << 27
 *   31 time stamp    u32: an absolute time, (value << 27 | delta), its low 59 bits
 * after a sub-buffer header of a u64 timestamp and a commit word (a long). */
#include "rsp-ftrace-reader.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <sys/mman.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "rsp-bytes.h"
#include "rsp-disk-cache.h"
#include "rsp-ftrace-section.h"
#include "rsp-perf-reader.h"
#include "rsp-tep-fields.h"
#include "rsp-tep-guard.h"
#include "rsp-tid-map.h"
#include "rsp-winner-tree.h"

#define MAX_FORMATS 4096
#define MAX_CPUS 8192
#define MAX_TEXT (1u << 20)
/* The ring buffer's sub-buffer header: a u64 timestamp, then the commit
 * word (a long), whose high bits flag lost events. */
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)
#define RB_COMMIT_MASK 0xfffffUL
#define RB_TYPE_PADDING 29
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP 31
#define RB_TS_SHIFT 27
#define RB_TS_MSB_MASK (~((1ULL << 59) - 1))

/* How much of a CPU's sub-buffers read already its cursor gives back at
 * once (release_behind()). */
#define FTRACE_RELEASE_CHUNK (4u << 20)

typedef struct {
  gint32 cpu;
  guint32 index;      /* in the stream's cpus */
  const guint8 *data; /* the CPU's sub-buffers: in the mapped file, or a copy
                       * (see borrow_aligned()) */
  guint8 *owned;      /* DATA when it is a copy */
  guint64 size;
  gboolean partial_tail; /* bytes of an incomplete sub-buffer followed: damage */
  guint64 next_subbuf;  /* offset of the next sub-buffer to load */
  guint64 populated;    /* DATA up to here is mapped in (populate_ahead()) */
  guint64 released;     /* DATA before this is given back (release_behind()) */
  gboolean loaded;      /* a sub-buffer is being read */
  const guint8 *sub;    /* the loaded sub-buffer */
  guint64 sub_end;      /* its header plus committed bytes */
  guint64 pos;          /* offset of the next event header in it */
  guint64 ts;           /* the time of the last event read from it */
  /* the current event, when has_event */
  gboolean has_event;
  guint64 time;
  guint64 pull_limit;   /* perf's events up to here are pulled before it is
                         * delivered: its time, plus the twin window when
                         * perf records its type too */
  const guint8 *payload;
  guint32 payload_size;
} CpuCursor;

/* An event waiting in the merge: perf's (pulled ahead) or delivered (kept
 * for twin matching for a window). */
typedef struct {
  RspEvent event;
  gboolean twin_taken; /* already the twin of an instance event */
} Held;

/* A deque of Held by value, in a ring that grows and is reused: the merge
 * holds every perf event a moment, and allocating each one was a fifth of
 * the time of reading a large recording. */
typedef struct {
  Held *items;
  guint cap, head, len; /* cap is a power of two */
} HeldRing;

static Held *
ring_nth (const HeldRing *r, guint i)
{
  return &r->items[(r->head + i) & (r->cap - 1)];
}

static Held *
ring_peek_head (const HeldRing *r)
{
  return r->len > 0 ? ring_nth (r, 0) : NULL;
}

static Held *
ring_peek_tail (const HeldRing *r)
{
  return r->len > 0 ? ring_nth (r, r->len - 1) : NULL;
}

static void
ring_pop_head (HeldRing *r)
{
  r->head = (r->head + 1) & (r->cap - 1);
  r->len--;
}

/* A new slot at the tail, its event to be written whole by the caller
 * (every filler does: rsp_perf_record_decode() clears the event first);
 * valid until the ring changes. */
static Held *
ring_push_tail (HeldRing *r)
{
  if (r->len == r->cap)
    {
      guint cap = MAX (r->cap * 2, 64);
      Held *items = g_new (Held, cap);
      for (guint i = 0; i < r->len; i++)
        items[i] = *ring_nth (r, i);
      g_free (r->items);
      r->items = items;
      r->cap = cap;
      r->head = 0;
    }
  r->len++;
  Held *h = ring_nth (r, r->len - 1);
  h->twin_taken = FALSE;
  /* while it is filled it holds no record (rsp_ftrace_stream_foreach_held()) */
  h->event.record = NULL;
  return h;
}

static void
ring_clear (HeldRing *r)
{
  r->head = r->len = 0;
}

static void
ring_free (HeldRing *r)
{
  g_clear_pointer (&r->items, g_free);
  r->cap = r->head = r->len = 0;
}

/* What decoding an event of one tracepoint id needs, looked up once. */
typedef struct {
  RspEvsel *evsel;
  const struct tep_format_field *pid_field; /* common_pid, if 4 bytes */
  gboolean skip; /* stepped over, not delivered (rsp_ftrace_stream_set_skipped()) */
} IdEntry;

/* A format parsed when the first event of its type is read, or when its
 * evsel is asked for (rsp_ftrace_stream_ensure_format()): a reader that
 * never prints (the model's) parses only the formats its recording uses.
 * libtraceevent's parse was a fifth of a small recording's report, most of
 * it for events the recording never saw. */
typedef struct {
  char *text;   /* checked by the guard, print fmt emptied */
  char *system;
  char *name;
} PendingFormat;

static void
pending_format_free (gpointer data)
{
  PendingFormat *pf = data;
  if (pf == NULL)
    return;
  g_free (pf->text);
  g_free (pf->system);
  g_free (pf->name);
  g_free (pf);
}

struct _RspFtraceStream {
  struct tep_handle *tep;
  guint32 subbuf_size;
  guint32 long_size;
  GArray *cpus;          /* CpuCursor */
  GPtrArray *evsels;     /* the reader's; ours are appended */
  guint first_evsel;     /* index of our first evsel in evsels */
  guint32 lost_cpus;     /* CPU blocks of the section that could not be read */
  gboolean populate_failed; /* MADV_POPULATE_READ refused: not asked again */
  gboolean releasable;     /* the data is a private mapping of a file: read pages may be given back */
  guint64 release_chunk;   /* release_behind()'s step */
  guint64 max_events;      /* the instance ends after this many delivered (tests) */
  IdEntry *by_id;          /* tracepoint id -> our RspEvsel and its common_pid field */
  guint n_by_id;
  GPtrArray *pending;      /* PendingFormat* by our evsel's index - first_evsel, NULL once parsed */
  GPtrArray *own_events;   /* struct tep_event* made by rsp_tep_fields_event_new(), not in tep */
  /* per evsel index (the reader's numbering): the paired evsel of the other
   * channel, or -1 */
  GArray *twin_of;       /* gint */

  /* merge state */
  /* from CURSORS_IN_TREE_FROM CPUs on, their current events' times in a
   * winner tree (fewer are scanned) */
  RspWinnerTree by_time;
  gboolean in_tree;      /* the cursors are in BY_TIME */
  CpuCursor *oldest;     /* the cursor whose event is the oldest, when OLDEST_KNOWN */
  gboolean oldest_known; /* until a cursor moves */
  HeldRing ahead;        /* perf events pulled, not yet delivered */
  HeldRing recent;       /* perf events delivered within the window, twin candidates */
  gboolean perf_done;
  RspTidMap *tgid_of;    /* tid -> pid (GINT_TO_POINTER), learnt from perf's events */
  RspFtraceStats stats;
  guint n_skip;            /* entries by id with SKIP set */
  RspFtraceSkipped skipped;
  /* what rsp_ftrace_stream_next_ref() returns when the event is not held in
   * a ring: the instance's current event (only the fields fill_event() sets
   * are ever written: the rest stays zero) and perf's once the instance is
   * done */
  RspEvent ours;
  RspEvent direct;
};

typedef struct {
  const guint8 *p, *end;
} Cursor;

static gboolean
take (Cursor *c, guint64 n, const guint8 **out)
{
  if (n > (guint64) (c->end - c->p))
    return FALSE;
  *out = c->p;
  c->p += n;
  return TRUE;
}

static gboolean
take_u32 (Cursor *c, guint32 *v)
{
  const guint8 *p;
  if (!take (c, 4, &p))
    return FALSE;
  *v = rsp_read_u32 (p);
  return TRUE;
}

static gboolean
take_u64 (Cursor *c, guint64 *v)
{
  const guint8 *p;
  if (!take (c, 8, &p))
    return FALSE;
  *v = rsp_read_u64 (p);
  return TRUE;
}

static void
cpu_cursor_clear (gpointer data)
{
  CpuCursor *c = data;
  g_free (c->owned);
}

/* ENTRY's common_pid field, once its evsel has a format. */
static void
entry_set_format (IdEntry *entry)
{
  const struct tep_format_field *f =
    entry->evsel->tp != NULL ? tep_find_common_field (entry->evsel->tp, "common_pid") : NULL;
  entry->pid_field = f != NULL && f->size == 4 ? f : NULL;
}

/* A checked format's name and id (its first two lines: "name: NAME",
 * "ID: DIGITS", as rsp_tep_format_text() ensures). */
static char *
format_name (const char *text)
{
  const char *name = text + strlen ("name: ");
  return g_strndup (name, strcspn (name, "\n"));
}

static gint
format_id (const char *text)
{
  const char *line = strchr (text, '\n');
  return line != NULL ? (gint) g_ascii_strtoll (line + 1 + strlen ("ID: "), NULL, 10) : -1;
}

static gboolean
parse_formats (RspFtraceStream *s, Cursor *c, const guint8 *header_page, gsize header_len, gboolean with_print,
               GError **error)
{
  guint32 n_formats;
  g_autoptr (GPtrArray) systems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) formats = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free); /* each format's event name */
  g_autofree char *header = g_strndup ((const char *) header_page, header_len);
  g_autoptr (GHashTable) evsel_of_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autofree gboolean *chosen = NULL; /* without WITH_PRINT: the formats that make an evsel */
  if (!take_u32 (c, &n_formats) || n_formats > MAX_FORMATS)
    goto damaged;
  for (guint32 i = 0; i < n_formats; i++)
    {
      guint32 system_len;
      guint64 format_len;
      const guint8 *system, *format;
      if (!take_u32 (c, &system_len) || system_len == 0 || system_len > 256 || !take (c, system_len, &system)
          || !take_u64 (c, &format_len) || format_len == 0 || format_len > MAX_TEXT
          || !take (c, format_len, &format))
        goto damaged;
      /* text that is not a format (damage) never reaches libtraceevent,
       * which trusts what it parses (rsp-tep-guard.h); that event's
       * records count as unknown */
      char *text = rsp_tep_format_text ((const char *) format, format_len, with_print);
      if (text == NULL)
        continue;
      g_ptr_array_add (systems, g_strndup ((const char *) system, system_len));
      g_ptr_array_add (formats, text);
      g_ptr_array_add (names, format_name (text));
    }
  if (rsp_tep_check_header_page (header, strlen (header)))
    tep_parse_header_page (s->tep, header, strlen (header), (int) s->long_size);
  if (with_print)
    {
      for (guint i = 0; i < formats->len; i++)
        {
          const char *text = g_ptr_array_index (formats, i);
          tep_parse_event (s->tep, text, strlen (text), g_ptr_array_index (systems, i));
        }
    }
  else
    {
      /* what the parse would find by name (below): per system and name,
       * the format with the lowest id (libtraceevent keeps its events
       * sorted by id), the first of equals */
      g_autoptr (GHashTable) lowest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < formats->len; i++)
        {
          char *key = g_strconcat (g_ptr_array_index (systems, i), "\x1f", g_ptr_array_index (names, i), NULL);
          gpointer best = NULL;
          if (g_hash_table_lookup_extended (lowest, key, NULL, &best)
              && format_id (g_ptr_array_index (formats, GPOINTER_TO_UINT (best)))
                     <= format_id (g_ptr_array_index (formats, i)))
            g_free (key);
          else
            g_hash_table_insert (lowest, key, GUINT_TO_POINTER (i));
        }
      chosen = g_new0 (gboolean, MAX (formats->len, 1));
      GHashTableIter it;
      gpointer best;
      g_hash_table_iter_init (&it, lowest);
      while (g_hash_table_iter_next (&it, NULL, &best))
        chosen[GPOINTER_TO_UINT (best)] = TRUE;
      s->pending = g_ptr_array_new_with_free_func (pending_format_free);
      s->own_events = g_ptr_array_new_with_free_func ((GDestroyNotify) rsp_tep_fields_event_free);
    }
  for (guint i = 0; i < formats->len; i++)
    {
      const char *text = g_ptr_array_index (formats, i);
      const char *sys = g_ptr_array_index (systems, i);
      const char *ev_name = g_ptr_array_index (names, i);
      /* the event parsed above (or to be): found by the name its text gives */
      struct tep_event *event = NULL;
      gint id;
      if (with_print)
        {
          event = tep_find_event_by_name (s->tep, sys, ev_name);
          if (event == NULL)
            continue;
          id = event->id;
        }
      else
        {
          if (!chosen[i])
            continue; /* another format of this name has the lower id: that one is the event */
          id = format_id (text);
        }
      if (g_hash_table_contains (evsel_of_id, GINT_TO_POINTER (id)))
        continue;
      RspEvsel *evsel = g_new0 (RspEvsel, 1);
      evsel->index = s->evsels->len;
      evsel->leader = evsel->index;
      evsel->attr.type = PERF_TYPE_TRACEPOINT;
      evsel->attr.config = (guint64) id;
      evsel->attr.size = sizeof evsel->attr;
      evsel->attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
      evsel->name = g_strdup_printf ("%s:%s", sys, ev_name);
      evsel->tp = event;
      evsel->ftrace = TRUE;
      g_ptr_array_add (s->evsels, evsel);
      g_hash_table_insert (evsel_of_id, GINT_TO_POINTER (id), evsel);
      if (!with_print)
        {
          PendingFormat *pf = g_new0 (PendingFormat, 1);
          pf->text = g_strdup (text);
          pf->system = g_strdup (sys);
          pf->name = g_strdup (ev_name);
          g_ptr_array_add (s->pending, pf);
        }
    }
  /* the ids are the kernel's tracepoint numbers, a few thousand at most;
   * an event's id is 16 bits */
  guint max_id = 0;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, evsel_of_id);
  while (g_hash_table_iter_next (&it, &key, &value))
    max_id = MAX (max_id, (guint) GPOINTER_TO_INT (key));
  s->n_by_id = g_hash_table_size (evsel_of_id) > 0 ? MIN (max_id, (guint) G_MAXUINT16) + 1 : 0;
  s->by_id = g_new0 (IdEntry, MAX (s->n_by_id, 1));
  g_hash_table_iter_init (&it, evsel_of_id);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      guint id = (guint) GPOINTER_TO_INT (key);
      if (id >= s->n_by_id)
        continue;
      s->by_id[id].evsel = value;
      entry_set_format (&s->by_id[id]);
    }
  return TRUE;

damaged:
  g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
               _("the ftrace section's event formats are damaged"));
  return FALSE;
}

static void
pair_evsels (RspFtraceStream *s)
{
  s->twin_of = g_array_new (FALSE, FALSE, sizeof (gint));
  for (guint i = 0; i < s->evsels->len; i++)
    {
      gint none = -1;
      g_array_append_val (s->twin_of, none);
    }
  for (guint i = s->first_evsel; i < s->evsels->len; i++)
    {
      const RspEvsel *ours = g_ptr_array_index (s->evsels, i);
      for (guint j = 0; j < s->first_evsel; j++)
        {
          const RspEvsel *perfs = g_ptr_array_index (s->evsels, j);
          if (perfs->attr.type == PERF_TYPE_TRACEPOINT && g_strcmp0 (perfs->name, ours->name) == 0)
            {
              g_array_index (s->twin_of, gint, i) = (gint) j;
              g_array_index (s->twin_of, gint, j) = (gint) i;
              break;
            }
        }
    }
}

/* Whether the sub-buffers at P can be read where they are.  Our own reads
 * of them use memcpy; libtraceevent reads a payload's fields through
 * pointer casts, which x86-64 and arm64 do at any alignment (the kernel's
 * ring buffer itself only aligns payloads to 4 bytes).  A section's CPU
 * blocks sit at any offset of a file. */
static gboolean
borrow_aligned (const guint8 *p)
{
#if defined(__x86_64__) || defined(__aarch64__)
  (void) p;
  return TRUE;
#else
  return (guintptr) p % 8 == 0;
#endif
}

/* The CPU blocks at C, N_CPUS of them (G_MAXUINT32: up to the end):
 * their sub-buffers into S's cursors, read where they are when BORROW (a
 * mapped recording outlives the stream) and borrow_aligned(), else copied.
 * Returns how many are lost (cut or damaged: that one and the ones after). */
static guint32
load_cpu_blocks (RspFtraceStream *s, Cursor *c, guint32 n_cpus, gboolean borrow)
{
  for (guint32 i = 0; i < n_cpus && (n_cpus != G_MAXUINT32 || c->p < c->end); i++)
    {
      guint32 cpu, reserved;
      guint64 len;
      const guint8 *bytes;
      if (!take_u32 (c, &cpu) || !take_u32 (c, &reserved) || !take_u64 (c, &len) || !take (c, len, &bytes)
          || cpu >= MAX_CPUS)
        {
          /* cut or damaged here: the CPUs before are read, this one and
           * the later ones are lost */
          return n_cpus != G_MAXUINT32 ? n_cpus - i : 1;
        }
      CpuCursor cc = { 0 };
      cc.cpu = (gint32) cpu;
      cc.index = s->cpus->len;
      /* whole sub-buffers only: a partial one at the end is damage */
      cc.size = len - len % s->subbuf_size;
      if (cc.size > 0 && borrow && borrow_aligned (bytes))
        cc.data = bytes;
      else if (cc.size > 0)
        cc.data = cc.owned = g_memdup2 (bytes, cc.size);
      cc.partial_tail = len % s->subbuf_size != 0;
      g_array_append_val (s->cpus, cc);
    }
  return 0;
}

gboolean
rsp_ftrace_stream_load_cpus (RspFtraceStream *s, const guint8 *data, gsize size)
{
  g_return_val_if_fail (s != NULL, FALSE);
  g_array_set_size (s->cpus, 0);
  Cursor c = { data, data + size };
  s->lost_cpus = load_cpu_blocks (s, &c, G_MAXUINT32, FALSE);
  rsp_ftrace_stream_rewind (s);
  return s->lost_cpus == 0;
}

static RspFtraceStream *
stream_new (const guint8 *data, gsize size, GPtrArray *evsels, gboolean borrow, gboolean with_print, GError **error)
{
  g_return_val_if_fail (evsels != NULL, NULL);
  Cursor c = { data, data + size };
  const guint8 *magic;
  guint32 version = 0, subbuf_size = 0, long_size = 0, n_cpus = 0;
  guint64 header_len;
  const guint8 *header_page;

  if (!take (&c, 8, &magic) || memcmp (magic, RSP_FTRACE_SECTION_MAGIC, 8) != 0)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT, _("the ftrace section has no valid header"));
      return NULL;
    }
  if (!take_u32 (&c, &version) || version != RSP_FTRACE_SECTION_VERSION)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_FOREIGN,
                   _("the ftrace section has version %u, this rsp reads version %u"), version,
                   RSP_FTRACE_SECTION_VERSION);
      return NULL;
    }
  if (!take_u32 (&c, &subbuf_size) || !take_u32 (&c, &long_size) || !take_u32 (&c, &n_cpus)
      || subbuf_size < 64 || subbuf_size > (1u << 24) || (subbuf_size & 7) != 0
      || (long_size != 4 && long_size != 8) || n_cpus > MAX_CPUS
      || !take_u64 (&c, &header_len) || header_len > MAX_TEXT || !take (&c, header_len, &header_page))
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT, _("the ftrace section's header is damaged"));
      return NULL;
    }

  RspFtraceStream *s = g_new0 (RspFtraceStream, 1);
  s->release_chunk = FTRACE_RELEASE_CHUNK;
  s->max_events = G_MAXUINT64;
  s->subbuf_size = subbuf_size;
  s->long_size = long_size;
  s->evsels = evsels;
  s->first_evsel = evsels->len;
  s->cpus = g_array_new (FALSE, TRUE, sizeof (CpuCursor));
  g_array_set_clear_func (s->cpus, cpu_cursor_clear);
  s->tgid_of = rsp_tid_map_new ();
  s->tep = tep_alloc ();
  tep_set_file_bigendian (s->tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian (s->tep, G_BYTE_ORDER == G_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size (s->tep, (int) long_size);
  tep_set_page_size (s->tep, (int) subbuf_size);
  if (!parse_formats (s, &c, header_page, header_len, with_print, error))
    goto fail;

  guint32 lost_cpus = load_cpu_blocks (s, &c, n_cpus, borrow);

  if (s->cpus->len == 0 && lost_cpus > 0)
    {
      g_set_error (error, RSP_READER_ERROR, RSP_READER_ERROR_CORRUPT,
                   _("the ftrace section is cut or damaged in the buffers of its first CPU"));
      goto fail;
    }
  pair_evsels (s);
  s->lost_cpus = lost_cpus;
  rsp_ftrace_stream_rewind (s);
  return s;

fail:
  /* our evsels point into the tep: take them back out of the reader's list */
  g_ptr_array_set_size (evsels, s->first_evsel);
  rsp_ftrace_stream_free (s);
  return NULL;
}

RspFtraceStream *
rsp_ftrace_stream_new (const guint8 *data, gsize size, GPtrArray *evsels, GError **error)
{
  return stream_new (data, size, evsels, FALSE, TRUE, error);
}

RspFtraceStream *
rsp_ftrace_stream_new_in_place (const guint8 *data, gsize size, GPtrArray *evsels, gboolean with_print,
                                GError **error)
{
  return stream_new (data, size, evsels, TRUE, with_print, error);
}

void
rsp_ftrace_stream_set_file_mapped (RspFtraceStream *s)
{
  g_return_if_fail (s != NULL);
  s->releasable = TRUE;
}

void
rsp_ftrace_stream_set_release_chunk (RspFtraceStream *s, guint64 bytes)
{
  g_return_if_fail (s != NULL && bytes > 0);
  s->release_chunk = bytes;
}

void
rsp_ftrace_stream_free (RspFtraceStream *s)
{
  if (s == NULL)
    return;
  ring_free (&s->ahead);
  ring_free (&s->recent);
  g_array_unref (s->cpus);
  rsp_winner_tree_clear (&s->by_time);
  g_clear_pointer (&s->twin_of, g_array_unref);
  g_free (s->by_id);
  g_clear_pointer (&s->pending, g_ptr_array_unref);
  g_clear_pointer (&s->own_events, g_ptr_array_unref);
  rsp_tid_map_free (s->tgid_of);
  tep_free (s->tep);
  g_free (s);
}

/* ---------------------------------------------------------------- decoding */

/* How far ahead of the event it reads a CPU's cursor asks for the cache
 * line, in bytes (docs/PERFORMANCE.md, "First touches"). */
#define FTRACE_PREFETCH 512

/* How much of a CPU's sub-buffers in the mapped file its cursor maps in
 * at once, ahead of where it reads: one call instead of a page fault per
 * 16 pages (as the reader does for perf's records). */
#define FTRACE_POPULATE_CHUNK (1u << 20)

static void
populate_ahead (RspFtraceStream *s, CpuCursor *cc)
{
  if (cc->owned != NULL || s->populate_failed || cc->populated >= cc->size
      || cc->next_subbuf + FTRACE_POPULATE_CHUNK / 2 < cc->populated)
    return;
  guint64 from = MAX (cc->populated, cc->next_subbuf);
  guint64 upto = MIN (from + FTRACE_POPULATE_CHUNK, cc->size);
  if (!rsp_disk_cache_populate (cc->data + from, upto - from))
    s->populate_failed = TRUE; /* a kernel before 5.14: the page faults map it in */
  cc->populated = upto;
}

/* Gives back the pages of CC's sub-buffers before the one it has just
 * read to its end, as the reader does behind perf's records: the file's
 * pages stay in the page cache, but mapped they count in the process's
 * memory, the whole section by the end (a fifth of the peak RSS of a
 * report of a 111 MB recording).  The sub-buffer just read stays: the
 * event the stream returns next (its own, filled before the cursor
 * moved on) lies in it.  Nothing points into the ones before; a page
 * touched again all the same is read again from the file, unchanged
 * (the mapping is private and read-only). */
static void
release_behind (RspFtraceStream *s, CpuCursor *cc)
{
  if (!s->releasable || cc->owned != NULL || cc->sub == NULL)
    return;
  guint64 keep_from = (guint64) (cc->sub - cc->data);
  if (keep_from < cc->released + s->release_chunk)
    return;
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr from = ((guintptr) cc->data + cc->released + page - 1) & ~(page - 1);
  guintptr upto = ((guintptr) cc->data + keep_from) & ~(page - 1);
  if (upto <= from)
    return; /* not a whole page yet */
  if (madvise ((void *) from, upto - from, MADV_DONTNEED) == 0)
    s->stats.released += upto - from;
  cc->released = upto - (guintptr) cc->data;
}

/* Loads CPU's next sound sub-buffer; FALSE at the end. */
static gboolean
load_next_subbuf (RspFtraceStream *s, CpuCursor *cc)
{
  guint32 header = 8 + s->long_size;
  release_behind (s, cc);
  populate_ahead (s, cc);
  while (cc->next_subbuf + s->subbuf_size <= cc->size)
    {
      const guint8 *sub = cc->data + cc->next_subbuf;
      cc->next_subbuf += s->subbuf_size;
      s->stats.subbuffers++;
      guint64 commit = s->long_size == 8 ? rsp_read_u64 (sub + 8) : rsp_read_u32 (sub + 8);
      if (commit & (RB_MISSED_EVENTS | RB_MISSED_STORED))
        s->stats.missed_events++;
      guint64 used = commit & RB_COMMIT_MASK;
      if (used == 0)
        continue; /* an empty sub-buffer (a flush with nothing new) */
      if (used > s->subbuf_size - header)
        {
          s->stats.bad_subbuffers++;
          continue;
        }
      cc->sub = sub;
      cc->sub_end = header + used;
      cc->pos = header;
      cc->ts = rsp_read_u64 (sub);
      return TRUE;
    }
  return FALSE;
}

/* The next data event of CC's loaded sub-buffer: its time, payload and
 * size.  FALSE at the end of the sub-buffer, or where it is damaged (then
 * counted): the events before the damage are kept. */
static gboolean
next_in_subbuf (RspFtraceStream *s, CpuCursor *cc, guint64 *time, const guint8 **payload, guint32 *size)
{
  const guint8 *sub = cc->sub;
  while (cc->pos + 4 <= cc->sub_end)
    {
      guint32 header = rsp_read_u32 (sub + cc->pos);
      guint32 type_len = header & 0x1f;
      guint64 delta = header >> 5;
      guint64 p = cc->pos + 4;
      guint32 word = 0;
      if (type_len == 0 || type_len >= RB_TYPE_PADDING)
        {
          if (p + 4 > cc->sub_end)
            break;
          word = rsp_read_u32 (sub + p);
        }
      switch (type_len)
        {
        case RB_TYPE_PADDING:
          if (delta == 0 || word < 4 || p + word > cc->sub_end)
            return FALSE; /* the rest of the sub-buffer is padding */
          cc->pos = p + word;
          continue;
        case RB_TYPE_TIME_EXTEND:
          cc->ts += ((guint64) word << RB_TS_SHIFT) + delta;
          cc->pos = p + 4;
          continue;
        case RB_TYPE_TIME_STAMP:
          cc->ts = (cc->ts & RB_TS_MSB_MASK) | ((((guint64) word << RB_TS_SHIFT) | delta) & ~RB_TS_MSB_MASK);
          cc->pos = p + 4;
          continue;
        case 0:
          {
            /* the length counts its own word */
            if (word < 4 + 2 || p + word > cc->sub_end)
              goto damaged;
            cc->ts += delta;
            *time = cc->ts;
            *payload = sub + p + 4;
            *size = word - 4;
            cc->pos = p + ((word + 3) & ~3u);
            return TRUE;
          }
        default:
          {
            guint32 len = type_len * 4;
            if (p + len > cc->sub_end)
              goto damaged;
            cc->ts += delta;
            *time = cc->ts;
            *payload = sub + p;
            *size = len;
            cc->pos = p + len;
            return TRUE;
          }
        }
    }
  if (cc->pos < cc->sub_end)
    goto damaged;
  return FALSE;

damaged:
  s->stats.bad_subbuffers++;
  cc->pos = cc->sub_end;
  return FALSE;
}

static gboolean may_have_twin (const RspFtraceStream *s, const CpuCursor *cc);
static void ensure_evsel (RspFtraceStream *s, RspEvsel *evsel);

/* Whether the event of PAYLOAD, at TS, is of a type the caller has no use
 * for (rsp_ftrace_stream_set_skipped()): then it is counted and stepped
 * over.  One whose format cannot be parsed is not: delivering it counts
 * it as of unknown type and warns, as before. */
static G_GNUC_NO_INLINE gboolean
skip_event (RspFtraceStream *s, const guint8 *payload, guint64 ts)
{
  guint16 type;
  memcpy (&type, payload, 2);
  if (type >= s->n_by_id || !s->by_id[type].skip)
    return FALSE;
  RspEvsel *evsel = s->by_id[type].evsel;
  if (G_UNLIKELY (evsel->tp == NULL))
    {
      ensure_evsel (s, evsel);
      if (evsel->tp == NULL)
        return FALSE;
    }
  s->skipped.events++;
  if (ts > 0 && (s->skipped.first_time == 0 || ts < s->skipped.first_time))
    s->skipped.first_time = ts;
  if (ts > s->skipped.last_time)
    s->skipped.last_time = ts;
  return TRUE;
}

/* Steps CPU's cursor to its next event. */
static void
advance (RspFtraceStream *s, CpuCursor *cc)
{
  cc->has_event = FALSE;
  for (;;)
    {
      if (!cc->loaded)
        {
          if (!load_next_subbuf (s, cc))
            return;
          cc->loaded = TRUE;
        }
      guint64 ts;
      const guint8 *payload;
      guint32 size;
      if (!next_in_subbuf (s, cc, &ts, &payload, &size))
        {
          cc->loaded = FALSE;
          continue;
        }
      s->stats.events++;
      /* the CPU's sub-buffers lie one after the other: the line a few
       * events on is asked for now, so that it is in the cache when read */
      guint64 ahead = (guint64) (cc->sub - cc->data) + cc->pos + FTRACE_PREFETCH;
      if (ahead < cc->size)
        __builtin_prefetch (cc->data + ahead);
      if (s->n_skip > 0 && skip_event (s, payload, ts))
        continue;
      cc->has_event = TRUE;
      cc->time = ts;
      cc->payload = payload;
      cc->payload_size = size;
      cc->pull_limit = ts + (may_have_twin (s, cc) ? RSP_FTRACE_TWIN_WINDOW_NS : 0);
      return;
    }
}

/* From this many CPUs on, the cursors' tree; below, a scan of their
 * current events, which costs less there (bench/merge-cpus.c: the tree
 * 1.3 times the scan's time per event at 12 CPUs, 1.02 at 20, 0.94 at
 * 24, 0.86 at 32). */
#define CURSORS_IN_TREE_FROM 24

/* CC's current event moved: the oldest is found again, and CC's key in
 * the cursors' tree follows when they have one (its time: at the same
 * time the tree takes the lower CPU, as the scan does). */
static G_GNUC_NO_INLINE void
cursor_key_changed (RspFtraceStream *s, const CpuCursor *cc)
{
  rsp_winner_tree_set (&s->by_time, cc->index, cc->has_event ? (RspWinnerKey){ cc->time, 0 } : RSP_WINNER_NONE);
}

static inline void
cursor_changed (RspFtraceStream *s, const CpuCursor *cc)
{
  s->oldest_known = FALSE;
  if (G_UNLIKELY (s->in_tree))
    cursor_key_changed (s, cc);
}

void
rsp_ftrace_stream_rewind (RspFtraceStream *s)
{
  ring_clear (&s->ahead);
  ring_clear (&s->recent);
  rsp_tid_map_remove_all (s->tgid_of);
  /* found again: the cursor it names may be gone (new CPU blocks, or none) */
  s->oldest_known = FALSE;
  s->oldest = NULL;
  s->perf_done = FALSE;
  memset (&s->stats, 0, sizeof s->stats);
  memset (&s->skipped, 0, sizeof s->skipped);
  s->stats.lost_cpus = s->lost_cpus;
  for (guint i = 0; i < s->cpus->len; i++)
    {
      CpuCursor *cc = &g_array_index (s->cpus, CpuCursor, i);
      cc->next_subbuf = 0;
      /* what was given back is mapped in again as it is read */
      cc->released = 0;
      cc->populated = 0;
      cc->sub = NULL;
      cc->loaded = FALSE;
      cc->has_event = FALSE;
      if (cc->partial_tail)
        s->stats.bad_subbuffers++;
      advance (s, cc);
    }
  s->in_tree = s->cpus->len >= CURSORS_IN_TREE_FROM;
  if (s->in_tree)
    rsp_winner_tree_reset (&s->by_time, s->cpus->len);
  for (guint i = 0; i < s->cpus->len; i++)
    cursor_changed (s, &g_array_index (s->cpus, CpuCursor, i));
}

/* The CPU whose current event is the oldest, or NULL; found again only
 * after a cursor moved. */
static CpuCursor *
oldest_cpu (RspFtraceStream *s)
{
  if (s->oldest_known)
    return s->oldest;
  CpuCursor *best = NULL;
  if (G_UNLIKELY (s->in_tree))
    best = &g_array_index (s->cpus, CpuCursor, rsp_winner_tree_first (&s->by_time));
  else
    for (guint i = 0; i < s->cpus->len; i++)
      {
        CpuCursor *cc = &g_array_index (s->cpus, CpuCursor, i);
        if (cc->has_event && (best == NULL || cc->time < best->time))
          best = cc;
      }
  s->oldest = best != NULL && best->has_event ? best : NULL;
  s->oldest_known = TRUE;
  return s->oldest;
}

/* Parses EVSEL's format if it waits (PendingFormat), and fills in its
 * entry by id.  A format the guard passed and libtraceevent refuses leaves
 * the evsel without one: its events then count as of unknown type, as
 * they did when such an evsel was not made at all. */
static void
ensure_evsel (RspFtraceStream *s, RspEvsel *evsel)
{
  if (s->pending == NULL || evsel->index < s->first_evsel || evsel->index - s->first_evsel >= s->pending->len)
    return;
  guint k = evsel->index - s->first_evsel;
  PendingFormat *pf = g_ptr_array_index (s->pending, k);
  if (pf == NULL)
    return; /* parsed already, or refused */
  /* the fields alone, as libtraceevent would read them, where the text
   * has the kernel's shape (rsp-tep-fields.h); else libtraceevent's parse */
  struct tep_event *event = rsp_tep_fields_event_new (s->tep, pf->text, pf->system);
  if (event != NULL)
    g_ptr_array_add (s->own_events, event);
  else
    {
      tep_parse_event (s->tep, pf->text, strlen (pf->text), pf->system);
      event = tep_find_event_by_name (s->tep, pf->system, pf->name);
    }
  if (event != NULL && (guint64) event->id == evsel->attr.config)
    evsel->tp = event;
  pending_format_free (pf);
  g_ptr_array_index (s->pending, k) = NULL;
  if (evsel->attr.config < s->n_by_id && s->by_id[evsel->attr.config].evsel == evsel)
    entry_set_format (&s->by_id[evsel->attr.config]);
}

void
rsp_ftrace_stream_ensure_format (RspFtraceStream *s, const RspEvsel *evsel)
{
  g_return_if_fail (s != NULL && evsel != NULL);
  if (evsel->tp == NULL && evsel->ftrace)
    ensure_evsel (s, (RspEvsel *) evsel);
}

/* Fills EVENT (the stream's own, s->ours: every field this does not set
 * is zero, and stays so) from CPU's current event; FALSE when its type is
 * unknown.  Clearing the whole 400-byte event each time was a tenth of the
 * time of reading a large recording. */
static gboolean
fill_event (RspFtraceStream *s, const CpuCursor *cc, RspEvent *event)
{
  guint16 type;
  memcpy (&type, cc->payload, 2);
  const IdEntry *entry = type < s->n_by_id ? &s->by_id[type] : NULL;
  if (entry != NULL && entry->evsel != NULL && G_UNLIKELY (entry->evsel->tp == NULL))
    ensure_evsel (s, entry->evsel); /* its format waits (or failed) */
  const RspEvsel *evsel = entry != NULL && entry->evsel != NULL && entry->evsel->tp != NULL ? entry->evsel : NULL;
  if (evsel == NULL)
    {
      s->stats.unknown_ids++;
      return FALSE;
    }
  event->type = PERF_RECORD_SAMPLE;
  event->evsel = evsel;
  event->has_time = TRUE;
  event->time = cc->time;
  event->cpu = cc->cpu;
  event->sample.raw = cc->payload;
  event->sample.raw_size = cc->payload_size;
  gint32 tid = -1;
  const struct tep_format_field *f = entry->pid_field;
  if (f != NULL && (guint64) f->offset + 4 <= cc->payload_size)
    memcpy (&tid, cc->payload + f->offset, 4);
  event->tid = tid;
  gpointer pid = rsp_tid_map_lookup (s->tgid_of, tid);
  event->pid = pid != NULL ? GPOINTER_TO_INT (pid) : tid;
  return TRUE;
}

/* Whether CPU's current event is of a type perf records too (an instance
 * event whose twin perf's stream may hold): only those look at perf's
 * events past their time. */
static gboolean
may_have_twin (const RspFtraceStream *s, const CpuCursor *cc)
{
  guint16 type;
  memcpy (&type, cc->payload, 2);
  const RspEvsel *evsel = type < s->n_by_id ? s->by_id[type].evsel : NULL;
  return evsel != NULL && g_array_index (s->twin_of, gint, evsel->index) >= 0;
}

static void
learn_tgid (RspFtraceStream *s, const RspEvent *ev)
{
  gint32 pid = ev->pid, tid = ev->tid;
  if (ev->type == PERF_RECORD_COMM)
    pid = ev->u.comm.pid, tid = ev->u.comm.tid;
  else if (ev->type == PERF_RECORD_FORK)
    pid = ev->u.fork.pid, tid = ev->u.fork.tid;
  if (tid > 0 && pid > 0 && rsp_tid_map_lookup (s->tgid_of, tid) != GINT_TO_POINTER (pid))
    rsp_tid_map_insert (s->tgid_of, tid, GINT_TO_POINTER (pid));
}

/* The bytes of a dynamic (__data_loc / __rel_loc) field's data in EV. */
static gboolean
dynamic_bytes (const RspEvent *ev, const struct tep_format_field *f, const guint8 **p, guint32 *len)
{
  if ((guint64) f->offset + 4 > ev->sample.raw_size)
    return FALSE;
  guint32 loc;
  memcpy (&loc, ev->sample.raw + f->offset, 4);
  guint64 start = loc & 0xffff;
  if (f->flags & TEP_FIELD_IS_RELATIVE)
    start += (guint64) f->offset + (guint64) f->size;
  *len = loc >> 16;
  if (start + *len > ev->sample.raw_size)
    return FALSE;
  *p = ev->sample.raw + start;
  return TRUE;
}

/* The same event data: every field past the common ones (type, flags,
 * preempt count, pid, which the channels may fill differently) equal, the
 * holes between fields ignored (the channels leave different bytes there),
 * dynamic fields compared by their contents. */
static gboolean
payloads_match (const RspEvent *a, const RspEvent *b)
{
  struct tep_event *tp = (struct tep_event *) b->evsel->tp;
  for (struct tep_format_field *f = tp->format.fields; f != NULL; f = f->next)
    {
      if (f->flags & TEP_FIELD_IS_DYNAMIC)
        {
          const guint8 *pa, *pb;
          guint32 la, lb;
          if (!dynamic_bytes (a, f, &pa, &la) || !dynamic_bytes (b, f, &pb, &lb) || la != lb
              || memcmp (pa, pb, la) != 0)
            return FALSE;
          continue;
        }
      guint64 end = (guint64) f->offset + (guint64) f->size;
      if (end > a->sample.raw_size || end > b->sample.raw_size)
        return FALSE;
      const guint8 *fa = a->sample.raw + f->offset, *fb = b->sample.raw + f->offset;
      guint32 n = (guint32) f->size;
      if (f->flags & TEP_FIELD_IS_STRING)
        {
          /* char rwbs[10]: what follows the terminator is whatever was there */
          guint32 len = (guint32) strnlen ((const char *) fa, n);
          if (len != strnlen ((const char *) fb, n))
            return FALSE;
          n = len;
        }
      if (memcmp (fa, fb, n) != 0)
        return FALSE;
    }
  return TRUE;
}

static gboolean
is_twin (const RspFtraceStream *s, Held *h, const RspEvent *ours, gint perf_index)
{
  const RspEvent *p = &h->event;
  guint64 d = p->time > ours->time ? p->time - ours->time : ours->time - p->time;
  return !h->twin_taken && p->evsel != NULL && (gint) p->evsel->index == perf_index && p->cpu == ours->cpu
         && d <= RSP_FTRACE_TWIN_WINDOW_NS && payloads_match (p, ours);
}

/* Pulls one perf event onto the tail of AHEAD; FALSE (and perf done) at
 * its end. */
static gboolean
pull_one (RspFtraceStream *s, RspFtracePullFunc pull, gpointer source)
{
  Held *h = ring_push_tail (&s->ahead);
  if (!pull (source, &h->event))
    {
      s->ahead.len--;
      s->perf_done = TRUE;
      return FALSE;
    }
  s->stats.max_held = MAX (s->stats.max_held, s->ahead.len + s->recent.len);
  return TRUE;
}

/* Pulls perf events until one is newer than LIMIT (or perf ends). */
static void
pull_until (RspFtraceStream *s, RspFtracePullFunc pull, gpointer source, guint64 limit)
{
  while (!s->perf_done)
    {
      Held *tail = ring_peek_tail (&s->ahead);
      if (tail != NULL && tail->event.has_time && tail->event.time > limit)
        return;
      if (!pull_one (s, pull, source))
        return;
    }
}

/* Whether a later instance event of CC (its CPU: the cursor is on the
 * event after OURS) with OURS's type and payload lies nearer to perf's
 * event at TIME than OURS does: that one is the twin of it.  Without this,
 * where perf lost one of a run of the same event repeated within the
 * window, each instance event took the next one's twin and the last of the
 * run was delivered in place of the lost one, later by the run's length.
 * Reads ahead on a copy of the cursor; the stream's figures (and its
 * count of the events stepped over) stay as they were. */
static gboolean
nearer_twin_ahead (RspFtraceStream *s, const CpuCursor *cc, const RspEvent *ours, guint64 time)
{
  guint64 d = time - ours->time;
  CpuCursor ahead = *cc;
  RspFtraceStats stats = s->stats;
  RspFtraceSkipped skipped = s->skipped;
  gboolean nearer = FALSE;
  while (!nearer && ahead.has_event && ahead.time < time + d)
    {
      guint16 type;
      memcpy (&type, ahead.payload, 2);
      const RspEvsel *evsel = type < s->n_by_id ? s->by_id[type].evsel : NULL;
      if (evsel == ours->evsel)
        {
          RspEvent later = *ours;
          later.time = ahead.time;
          later.sample.raw = ahead.payload;
          later.sample.raw_size = ahead.payload_size;
          guint64 dl = ahead.time > time ? ahead.time - time : time - ahead.time;
          nearer = dl < d && payloads_match (&later, ours);
        }
      advance (s, &ahead);
    }
  s->stats = stats;
  s->skipped = skipped;
  return nearer;
}

/* Finds and takes the twin of OURS (the current event of CC before it
 * moved on) among perf's events in the window: the nearest in time (the
 * first of equals) that is not nearer a later instance event of the same
 * payload.  The first in the window was taken before: an instance event
 * whose perf copy was lost took the next one's, and so on down the run. */
static gboolean
take_twin (RspFtraceStream *s, const CpuCursor *cc, const RspEvent *ours)
{
  gint perf_index = g_array_index (s->twin_of, gint, ours->evsel->index);
  if (perf_index < 0)
    return FALSE;
  HeldRing *rings[2] = { &s->recent, &s->ahead };
  Held *best = NULL;
  guint64 best_d = G_MAXUINT64;
  for (guint q = 0; q < 2; q++)
    for (guint i = 0; i < rings[q]->len; i++)
      {
        Held *h = ring_nth (rings[q], i);
        if (!is_twin (s, h, ours, perf_index))
          continue;
        guint64 t = h->event.time;
        guint64 d = t > ours->time ? t - ours->time : ours->time - t;
        if (d >= best_d || (t > ours->time && nearer_twin_ahead (s, cc, ours, t)))
          continue;
        best = h;
        best_d = d;
      }
  if (best == NULL)
    return FALSE;
  best->twin_taken = TRUE;
  return TRUE;
}

static void
forget_before (RspFtraceStream *s, guint64 time)
{
  for (;;)
    {
      Held *h = ring_peek_head (&s->recent);
      if (h == NULL || (h->event.has_time && h->event.time + RSP_FTRACE_TWIN_WINDOW_NS >= time))
        return;
      ring_pop_head (&s->recent);
    }
}

const RspEvent *
rsp_ftrace_stream_next_ref (RspFtraceStream *s, RspFtracePullFunc pull, gpointer source)
{
  for (;;)
    {
      CpuCursor *cc = G_UNLIKELY (s->stats.delivered >= s->max_events) ? NULL : oldest_cpu (s);
      if (cc == NULL)
        {
          /* the instance is done: perf's events as they come, and none
           * is any more a twin candidate (whose record the reader would
           * keep: rsp_ftrace_stream_foreach_held()) */
          ring_clear (&s->recent);
          Held *h = ring_peek_head (&s->ahead);
          if (h != NULL)
            {
              /* the popped slot is written again only by a later push */
              ring_pop_head (&s->ahead);
              return &h->event;
            }
          if (s->perf_done || !pull (source, &s->direct))
            {
              s->perf_done = TRUE;
              return NULL;
            }
          return &s->direct;
        }
      /* perf's events from before the window of the instance's next one
       * cannot be its twins: delivered as they come, so that a long gap in
       * the instance (its first event, an idle stretch) does not hold all
       * of perf's events of the gap in memory */
      if (s->ahead.len == 0 && !s->perf_done)
        pull_one (s, pull, source);
      Held *first = ring_peek_head (&s->ahead);
      if (first != NULL && (!first->event.has_time || first->event.time + RSP_FTRACE_TWIN_WINDOW_NS < cc->time))
        {
          ring_pop_head (&s->ahead);
          /* the instance's events to come are CC's time or later: those
           * kept before its window can be no one's twins (a long gap in
           * the instance kept them, and the records they point into) */
          forget_before (s, cc->time);
          learn_tgid (s, &first->event);
          return &first->event;
        }
      /* perf's events up to the instance's oldest one; a window past it
       * too when that one may have a twin there */
      pull_until (s, pull, source, cc->pull_limit);
      Held *head = ring_peek_head (&s->ahead);
      if (head != NULL && (!head->event.has_time || head->event.time <= cc->time))
        {
          ring_pop_head (&s->ahead);
          const RspEvent *event = &head->event;
          learn_tgid (s, event);
          if (event->evsel != NULL && event->type == PERF_RECORD_SAMPLE
              && g_array_index (s->twin_of, gint, event->evsel->index) >= 0)
            {
              /* kept a while: an instance event may still find its twin in it */
              gboolean twin_taken = head->twin_taken;
              Held *kept = ring_push_tail (&s->recent);
              kept->event = *event;
              kept->twin_taken = twin_taken;
              forget_before (s, kept->event.has_time ? kept->event.time : 0);
              return &kept->event;
            }
          return event;
        }
      gboolean known = fill_event (s, cc, &s->ours);
      advance (s, cc);
      cursor_changed (s, cc);
      if (!known)
        continue;
      forget_before (s, s->ours.time);
      if (take_twin (s, cc, &s->ours))
        {
          s->stats.twins++;
          continue;
        }
      s->stats.delivered++;
      return &s->ours;
    }
}

void
rsp_ftrace_stream_set_max_events (RspFtraceStream *s, guint64 n)
{
  s->max_events = n;
}

void
rsp_ftrace_stream_foreach_held (RspFtraceStream *s, void (*func) (const RspEvent *event, gpointer data), gpointer data)
{
  const HeldRing *rings[] = { &s->ahead, &s->recent };
  for (guint k = 0; k < G_N_ELEMENTS (rings); k++)
    for (guint i = 0; i < rings[k]->len; i++)
      func (&ring_nth (rings[k], i)->event, data);
}

gboolean
rsp_ftrace_stream_next (RspFtraceStream *s, RspFtracePullFunc pull, gpointer source, RspEvent *event)
{
  const RspEvent *next = rsp_ftrace_stream_next_ref (s, pull, source);
  if (next == NULL)
    return FALSE;
  *event = *next;
  return TRUE;
}

const RspFtraceStats *
rsp_ftrace_stream_get_stats (const RspFtraceStream *s)
{
  return &s->stats;
}

gboolean
rsp_ftrace_stream_set_skipped (RspFtraceStream *s, const RspEvsel *evsel, gboolean skip)
{
  g_return_val_if_fail (s != NULL && evsel != NULL, FALSE);
  if (!evsel->ftrace || evsel->attr.config >= s->n_by_id || s->by_id[evsel->attr.config].evsel != evsel)
    return FALSE;
  /* perf records it too: its events are matched with perf's (twins) */
  if (evsel->index < s->twin_of->len && g_array_index (s->twin_of, gint, evsel->index) >= 0)
    return FALSE;
  IdEntry *entry = &s->by_id[evsel->attr.config];
  if (entry->skip != skip)
    {
      entry->skip = skip;
      s->n_skip = skip ? s->n_skip + 1 : s->n_skip - 1;
    }
  return skip;
}

const RspFtraceSkipped *
rsp_ftrace_stream_get_skipped (const RspFtraceStream *s)
{
  return &s->skipped;
}

guint
rsp_ftrace_stream_get_n_cpus (const RspFtraceStream *s)
{
  return s->cpus->len;
}
