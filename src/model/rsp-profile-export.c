/* rsp-profile-export.c — folded stacks, speedscope, Chrome trace events and pprof
 * from an analysis (rsp-profile-export.h says what each holds). */
#include "rsp-profile-export.h"

#include <zlib.h>

#include <string.h>

#include "rsp-stack-names.h"

static const char *const format_names[] = { "folded", "speedscope", "chrome", "pprof" };

gboolean
rsp_export_format_parse (const char *name, RspExportFormat *format)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (format_names); i++)
    if (strcmp (name, format_names[i]) == 0)
      {
        *format = (RspExportFormat) i;
        return TRUE;
      }
  return FALSE;
}

const char *
rsp_export_format_name (RspExportFormat format)
{
  return (guint) format < G_N_ELEMENTS (format_names) ? format_names[format] : "?";
}

/* ------------------------------------------------------------------ frames */

/* Frame names as small integers: every export lists each name once. */
typedef struct {
  GHashTable *ids;     /* name -> id + 1 */
  GPtrArray *names;    /* id -> name (owned by the model, the stack names or CHUNK) */
  GStringChunk *chunk; /* names made here: "[In blocking disk I/O]", "network 10.0.0.1:80" */
} Frames;

static guint32
frame_id (Frames *f, const char *name)
{
  if (name == NULL)
    name = "[unknown]";
  gpointer found = g_hash_table_lookup (f->ids, name);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  g_ptr_array_add (f->names, (gpointer) name);
  g_hash_table_insert (f->ids, (gpointer) name, GUINT_TO_POINTER (f->names->len));
  return f->names->len - 1;
}

static const char *
frame_name (const Frames *f, guint32 id)
{
  return g_ptr_array_index (f->names, id);
}

/* ------------------------------------------------------------------ walking */

/* One stretch of time with its pseudo-stack, bottom first, as frame ids;
 * the top one is the category's. */
typedef struct {
  const RspStretch *stretch;
  guint path;
  const guint32 *frames;
  guint n_frames;
} Moment;

typedef struct _Walker Walker;
struct _Walker {
  const RspAnalysis *a;
  const RspModel *m;
  RspStackNames *names;
  Frames frames;
  guint32 category_frame[RSP_CAT_N];
  GArray *stack; /* guint32 frame ids */
  void (*moment) (Walker *w, const Moment *moment);
  gpointer data;
};

static void
walker_init (Walker *w, const RspAnalysis *a, void (*moment) (Walker *, const Moment *), gpointer data)
{
  memset (w, 0, sizeof *w);
  w->a = a;
  w->m = rsp_analysis_model (a);
  w->names = rsp_stack_names_new (w->m, FALSE);
  w->frames.ids = g_hash_table_new (g_str_hash, g_str_equal);
  w->frames.names = g_ptr_array_new ();
  w->frames.chunk = g_string_chunk_new (256);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      g_autofree char *label = g_strdup_printf ("[%s]", rsp_category_label (c));
      w->category_frame[c] = frame_id (&w->frames, g_string_chunk_insert_const (w->frames.chunk, label));
    }
  w->stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  w->moment = moment;
  w->data = data;
}

static void
walker_clear (Walker *w)
{
  rsp_stack_names_free (w->names);
  g_hash_table_unref (w->frames.ids);
  g_ptr_array_unref (w->frames.names);
  g_string_chunk_free (w->frames.chunk);
  g_array_unref (w->stack);
}

static void
push_stack (Walker *w, RspStackId stack, gboolean user_only)
{
  guint n, n_user;
  const char *const *names = rsp_stack_names_get (w->names, stack, &n, &n_user);
  if (user_only)
    n = n_user;
  for (guint k = 0; k < n; k++)
    {
      guint32 id = frame_id (&w->frames, names[k]);
      g_array_append_val (w->stack, id);
    }
}

static void
emit (Walker *w, const RspSegment *seg, const RspStretch *st)
{
  guint base = w->stack->len;
  if (seg->kind == RSP_SEG_RUN)
    {
      /* a run stands on its sample's stack, or without samples on the
       * user-space part of the stack it blocked with at its end */
      const RspRun *run = rsp_model_run (w->m, seg->item);
      if (st->sample != RSP_NONE)
        push_stack (w, rsp_model_sample (w->m, st->sample)->stack, FALSE);
      else if (run->n_samples == 0)
        push_stack (w, rsp_model_unsampled_stack (w->m, run), TRUE);
    }
  else if (st->category == RSP_CAT_NETWORK && st->endpoint != NULL)
    {
      g_autofree char *label = g_strdup_printf ("network %s", st->endpoint);
      guint32 id = frame_id (&w->frames, g_string_chunk_insert_const (w->frames.chunk, label));
      g_array_append_val (w->stack, id);
    }
  else if (st->file != NULL)
    {
      g_autofree char *label = g_strdup_printf ("file %s", st->file);
      guint32 id = frame_id (&w->frames, g_string_chunk_insert_const (w->frames.chunk, label));
      g_array_append_val (w->stack, id);
    }
  g_array_append_val (w->stack, w->category_frame[MIN (st->category, RSP_CAT_N - 1)]);
  Moment m = { st, seg->path, (const guint32 *) w->stack->data, w->stack->len };
  w->moment (w, &m);
  g_array_set_size (w->stack, base);
}

static gint
compare_by_start (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const RspAnalysis *a = data;
  guint64 sa = rsp_analysis_segment (a, *(const RspIdx *) pa)->start;
  guint64 sb = rsp_analysis_segment (a, *(const RspIdx *) pb)->start;
  return sa < sb ? -1 : sa > sb;
}

/* SEGMENT's stretches and its children's, in time order. */
static void
walk_segment (Walker *w, RspIdx i)
{
  const RspSegment *seg = rsp_analysis_segment (w->a, i);
  guint base = w->stack->len;
  guint32 task = frame_id (&w->frames, rsp_model_task (w->m, seg->task)->comm);
  g_array_append_val (w->stack, task);
  if (seg->kind == RSP_SEG_SLEEP)
    push_stack (w, rsp_model_sleep (w->m, seg->item)->stack, FALSE);

  g_autofree RspIdx *kids = g_new (RspIdx, MAX (seg->n_children, 1));
  for (guint k = 0; k < seg->n_children; k++)
    kids[k] = seg->first_child + k;
  g_qsort_with_data (kids, seg->n_children, sizeof (RspIdx), compare_by_start, (gpointer) w->a);
  guint n_st, s = 0, k = 0;
  const RspStretch *st = rsp_analysis_segment_stretches (w->a, i, &n_st);
  while (s < n_st || k < seg->n_children)
    {
      if (k == seg->n_children
          || (s < n_st && st[s].start <= rsp_analysis_segment (w->a, kids[k])->start))
        emit (w, seg, &st[s++]);
      else
        walk_segment (w, kids[k++]);
    }
  g_array_set_size (w->stack, base);
}

/* Every lane of every path: the roots are the lanes. */
static void
walk (Walker *w, void (*path_begin) (Walker *w, guint path), void (*path_end) (Walker *w, guint path))
{
  for (guint p = 0; p < rsp_analysis_n_paths (w->a); p++)
    {
      const RspControlPath *path = rsp_analysis_path (w->a, p);
      if (path_begin != NULL)
        path_begin (w, p);
      for (guint k = 0; k < path->n_roots; k++)
        walk_segment (w, path->first_root + k);
      if (path_end != NULL)
        path_end (w, p);
    }
}

/* ------------------------------------------------------------------ JSON text */

static void
json_string (GString *out, const char *s)
{
  g_autofree char *valid = NULL;
  if (s == NULL)
    {
      g_string_append (out, "null");
      return;
    }
  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

/* NS as microseconds with three decimals: exact to the nanosecond. */
static void
json_us (GString *out, guint64 ns)
{
  g_string_append_printf (out, "%" G_GUINT64_FORMAT ".%03u", ns / 1000, (guint) (ns % 1000));
}

/* ------------------------------------------------------------------ aggregated stacks */

/* Distinct stacks with their time: folded and pprof. */
typedef struct {
  GHashTable *index; /* GBytes of guint32 frame ids -> entry + 1 */
  GArray *entries;   /* Entry */
} Stacks;

typedef struct {
  GBytes *frames; /* owned by the index */
  guint64 ns;
  guint category;
} Entry;

static void
stacks_moment (Walker *w, const Moment *m)
{
  Stacks *s = w->data;
  GBytes *key = g_bytes_new (m->frames, m->n_frames * sizeof (guint32));
  gpointer found = g_hash_table_lookup (s->index, key);
  guint i;
  if (found != NULL)
    {
      i = GPOINTER_TO_UINT (found) - 1;
      g_bytes_unref (key);
    }
  else
    {
      Entry e = { key, 0, m->stretch->category };
      g_array_append_val (s->entries, e);
      i = s->entries->len - 1;
      g_hash_table_insert (s->index, key, GUINT_TO_POINTER (i + 1));
    }
  g_array_index (s->entries, Entry, i).ns += m->stretch->end - m->stretch->start;
}

static void
stacks_collect (Walker *w, Stacks *s, const RspAnalysis *a)
{
  s->index = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  s->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  walker_init (w, a, stacks_moment, s);
  walk (w, NULL, NULL);
}

static void
stacks_clear (Walker *w, Stacks *s)
{
  g_hash_table_unref (s->index);
  g_array_unref (s->entries);
  walker_clear (w);
}

static const guint32 *
entry_frames (const Entry *e, guint *n)
{
  gsize size;
  const guint32 *f = g_bytes_get_data (e->frames, &size);
  *n = (guint) (size / sizeof (guint32));
  return f;
}

/* ------------------------------------------------------------------ folded */

typedef struct {
  char *line; /* "a;b;c" */
  guint64 ns;
  guint category;
} FoldedLine;

static gint
compare_folded (gconstpointer pa, gconstpointer pb)
{
  return strcmp (((const FoldedLine *) pa)->line, ((const FoldedLine *) pb)->line);
}

/* A frame as one field of a folded line: no ';' (the separator) and no
 * line breaks. */
static void
folded_frame (GString *out, const char *name)
{
  for (const char *p = name; *p != '\0'; p++)
    g_string_append_c (out, *p == ';' ? ':' : (*p == '\n' || *p == '\r') ? ' ' : *p);
}

static GBytes *
export_folded (const RspAnalysis *a)
{
  Walker w;
  Stacks s;
  stacks_collect (&w, &s, a);
  GArray *lines = g_array_sized_new (FALSE, FALSE, sizeof (FoldedLine), s.entries->len);
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < s.entries->len; i++)
    {
      const Entry *e = &g_array_index (s.entries, Entry, i);
      guint n;
      const guint32 *f = entry_frames (e, &n);
      g_string_truncate (text, 0);
      for (guint k = 0; k < n; k++)
        {
          if (k > 0)
            g_string_append_c (text, ';');
          folded_frame (text, frame_name (&w.frames, f[k]));
        }
      FoldedLine l = { g_strdup (text->str), e->ns, e->category };
      g_array_append_val (lines, l);
    }
  g_array_sort (lines, compare_folded);
  /* Microseconds, rounded so that each category's lines add up to its
   * time rounded: the running sum of each category is rounded, and a line
   * gets the step of its category's rounded sum. */
  guint64 sum[RSP_CAT_N] = { 0 };
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < lines->len; i++)
    {
      FoldedLine *l = &g_array_index (lines, FoldedLine, i);
      guint c = MIN (l->category, RSP_CAT_N - 1);
      guint64 before = (sum[c] + 500) / 1000;
      sum[c] += l->ns;
      guint64 us = (sum[c] + 500) / 1000 - before;
      if (us > 0)
        g_string_append_printf (out, "%s %" G_GUINT64_FORMAT "\n", l->line, us);
      g_free (l->line);
    }
  g_array_unref (lines);
  stacks_clear (&w, &s);
  return g_string_free_to_bytes (out);
}

/* ------------------------------------------------------------------ speedscope */

typedef struct {
  GString *out;
  GArray *last;     /* guint32: the previous sample's frames, to merge repeats */
  guint64 weight;   /* of the pending sample */
  GString *weights; /* the current profile's weights */
  guint64 path_total;
  gboolean first_sample;
  const char *title;
} Speedscope;

static void
speedscope_flush (Speedscope *sp)
{
  if (sp->weight == 0 && sp->last->len == 0)
    return;
  g_string_append (sp->out, sp->first_sample ? "[" : ",[");
  for (guint k = 0; k < sp->last->len; k++)
    g_string_append_printf (sp->out, k > 0 ? ",%u" : "%u", g_array_index (sp->last, guint32, k));
  g_string_append_c (sp->out, ']');
  g_string_append_printf (sp->weights, sp->first_sample ? "%" G_GUINT64_FORMAT : ",%" G_GUINT64_FORMAT, sp->weight);
  sp->first_sample = FALSE;
  sp->weight = 0;
  g_array_set_size (sp->last, 0);
}

static void
speedscope_moment (Walker *w, const Moment *m)
{
  Speedscope *sp = w->data;
  guint64 ns = m->stretch->end - m->stretch->start;
  sp->path_total += ns;
  if (sp->weight > 0 && sp->last->len == m->n_frames
      && memcmp (sp->last->data, m->frames, m->n_frames * sizeof (guint32)) == 0)
    {
      sp->weight += ns;
      return;
    }
  speedscope_flush (sp);
  g_array_append_vals (sp->last, m->frames, m->n_frames);
  sp->weight = ns;
}

static void
speedscope_path_begin (Walker *w, guint path)
{
  Speedscope *sp = w->data;
  const RspControlPath *p = rsp_analysis_path (w->a, path);
  const RspSegment *root = p->n_roots > 0 ? rsp_analysis_segment (w->a, p->first_root) : NULL;
  const RspTask *t = root != NULL ? rsp_model_task (w->m, root->task) : NULL;
  g_autofree char *name = t != NULL ? g_strdup_printf ("control path %u: %s (%d), %.3f ms", path, t->comm, t->pid,
                                                       (p->end - p->start) / 1e6)
                                    : g_strdup_printf ("control path %u", path);
  g_string_append (sp->out, path > 0 ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":");
  json_string (sp->out, name);
  g_string_append (sp->out, ",\"unit\":\"nanoseconds\",\"startValue\":0,\"samples\":[");
  sp->first_sample = TRUE;
  sp->path_total = 0;
  g_string_truncate (sp->weights, 0);
}

static void
speedscope_path_end (Walker *w, guint path)
{
  (void) path;
  Speedscope *sp = w->data;
  speedscope_flush (sp);
  g_string_append_printf (sp->out, "],\"weights\":[%s],\"endValue\":%" G_GUINT64_FORMAT "}", sp->weights->str,
                          sp->path_total);
}

static GBytes *
export_speedscope (const RspAnalysis *a, const char *title)
{
  Speedscope sp = { 0 };
  sp.out = g_string_new ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
  json_string (sp.out, "rsp " RSP_VERSION);
  g_string_append (sp.out, ",\"name\":");
  json_string (sp.out, title);
  g_string_append (sp.out, ",\"activeProfileIndex\":0,\"profiles\":[");
  sp.last = g_array_new (FALSE, FALSE, sizeof (guint32));
  sp.weights = g_string_new (NULL);
  Walker w;
  walker_init (&w, a, speedscope_moment, &sp);
  walk (&w, speedscope_path_begin, speedscope_path_end);
  g_string_append (sp.out, "],\"shared\":{\"frames\":[");
  for (guint i = 0; i < w.frames.names->len; i++)
    {
      g_string_append (sp.out, i > 0 ? ",{\"name\":" : "{\"name\":");
      json_string (sp.out, frame_name (&w.frames, i));
      g_string_append_c (sp.out, '}');
    }
  g_string_append (sp.out, "]}}\n");
  walker_clear (&w);
  g_array_unref (sp.last);
  g_string_free (sp.weights, TRUE);
  return g_string_free_to_bytes (sp.out);
}

/* ------------------------------------------------------------------ chrome */

/* A slice, an instant or a flow end, sorted by time before writing so that
 * a segment's slice comes before the stretches inside it. */
typedef struct {
  guint64 ts, dur;
  gint32 pid, tid;
  guint8 phase;     /* 'X', 's', 'f' */
  guint8 is_stretch;
  guint32 index;    /* segment or stretch index; the flow's id */
} ChromeEvent;

static gint
compare_chrome (gconstpointer pa, gconstpointer pb)
{
  const ChromeEvent *a = pa, *b = pb;
  if (a->ts != b->ts)
    return a->ts < b->ts ? -1 : 1;
  if (a->dur != b->dur)
    return a->dur > b->dur ? -1 : 1; /* the enclosing slice first */
  if (a->is_stretch != b->is_stretch)
    return a->is_stretch - b->is_stretch;
  return a->index < b->index ? -1 : a->index > b->index;
}

typedef struct {
  RspIdx task;
  guint64 end; /* of the last segment placed on it */
  gint32 tid;  /* the track's id in the trace */
} Track;

/* A track to name: "comm tid", or "comm tid (COPY)" for a task's second
 * and later tracks. */
typedef struct {
  RspIdx task;
  gint32 tid;  /* the track's id in the trace */
  guint copy;  /* 1 for a task's first track */
} TrackName;

static gint
compare_segments_by_task (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const RspAnalysis *a = data;
  const RspSegment *x = rsp_analysis_segment (a, *(const RspIdx *) pa);
  const RspSegment *y = rsp_analysis_segment (a, *(const RspIdx *) pb);
  if (x->task != y->task)
    return x->task < y->task ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Tracks so that no two segments of one track overlap: a task's segments
 * on several lanes or paths at once (a server serving two of the threads)
 * get a second track. */
static gint32 *
chrome_tracks (const RspAnalysis *a, GArray *names /* TrackName */)
{
  const RspModel *m = rsp_analysis_model (a);
  guint n = rsp_analysis_n_segments (a);
  gint32 *track_of = g_new0 (gint32, MAX (n, 1));
  g_autofree RspIdx *order = g_new (RspIdx, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (RspIdx), compare_segments_by_task, (gpointer) a);
  g_autoptr (GArray) tracks = g_array_new (FALSE, FALSE, sizeof (Track));
  gint32 next_extra = 1 << 30;
  for (guint k = 0; k < n; k++)
    {
      const RspSegment *s = rsp_analysis_segment (a, order[k]);
      if (k > 0 && rsp_analysis_segment (a, order[k - 1])->task != s->task)
        g_array_set_size (tracks, 0);
      Track *t = NULL;
      for (guint j = 0; j < tracks->len && t == NULL; j++)
        if (g_array_index (tracks, Track, j).end <= s->start)
          t = &g_array_index (tracks, Track, j);
      if (t == NULL)
        {
          const RspTask *task = rsp_model_task (m, s->task);
          Track fresh = { s->task, 0, tracks->len == 0 ? task->tid : next_extra++ };
          g_array_append_val (tracks, fresh);
          t = &g_array_index (tracks, Track, tracks->len - 1);
          TrackName name = { s->task, fresh.tid, tracks->len };
          g_array_append_val (names, name);
        }
      t->end = MAX (t->end, s->end);
      track_of[order[k]] = t->tid;
    }
  return track_of;
}

static GBytes *
export_chrome (const RspAnalysis *a, const char *title)
{
  const RspModel *m = rsp_analysis_model (a);
  guint n = rsp_analysis_n_segments (a);
  guint64 t0 = rsp_analysis_start (a);
  g_autoptr (GArray) names = g_array_new (FALSE, FALSE, sizeof (TrackName));
  g_autofree gint32 *track = chrome_tracks (a, names);
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (ChromeEvent));
  guint32 flows = 0;
  for (guint i = 0; i < n; i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      gint32 pid = rsp_model_task (m, s->task)->pid;
      ChromeEvent e = { s->start, s->end - s->start, pid, track[i], 'X', FALSE, i };
      g_array_append_val (events, e);
      guint n_st;
      const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n_st);
      for (guint k = 0; k < n_st; k++)
        {
          ChromeEvent x = { st[k].start, st[k].end - st[k].start, pid, track[i], 'X', TRUE,
                            (guint32) (&st[k] - rsp_analysis_stretch (a, 0)) };
          g_array_append_val (events, x);
        }
      /* the wake-up: from the last run of the task that ended this sleep */
      if (s->kind != RSP_SEG_SLEEP || s->n_children == 0)
        continue;
      RspIdx waker = RSP_NONE;
      for (guint k = 0; k < s->n_children; k++)
        {
          const RspSegment *c = rsp_analysis_segment (a, s->first_child + k);
          if (c->kind == RSP_SEG_RUN && (waker == RSP_NONE || c->end >= rsp_analysis_segment (a, waker)->end))
            waker = s->first_child + k;
        }
      if (waker == RSP_NONE)
        continue;
      const RspSegment *c = rsp_analysis_segment (a, waker);
      /* each end inside its slice: flow ends bind to the slice enclosing them */
      ChromeEvent from = { c->end > c->start ? c->end - 1 : c->start, 0, rsp_model_task (m, c->task)->pid,
                           track[waker], 's', FALSE, flows };
      ChromeEvent to = { s->end > s->start ? s->end - 1 : s->start, 0, pid, track[i], 'f', FALSE, flows };
      flows++;
      g_array_append_val (events, from);
      g_array_append_val (events, to);
    }
  g_array_sort (events, compare_chrome);

  GString *out = g_string_new ("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":");
  json_string (out, "rsp " RSP_VERSION);
  g_string_append (out, ",\"recording\":");
  json_string (out, title);
  g_string_append_printf (out, ",\"pid\":%d,\"wall_ns\":%" G_GUINT64_FORMAT ",\"total_ns\":%" G_GUINT64_FORMAT "},"
                          "\"traceEvents\":[\n",
                          rsp_analysis_pid (a), rsp_analysis_wall_ns (a), rsp_analysis_total_ns (a));
  gboolean first = TRUE;
  /* the processes and tracks, named */
  g_autoptr (GHashTable) named = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint k = 0; k < names->len; k++)
    {
      const TrackName *track_name = &g_array_index (names, TrackName, k);
      const RspTask *task = rsp_model_task (m, track_name->task);
      gint32 tid = track_name->tid, pid = task->pid;
      guint copy = track_name->copy;
      if (!g_hash_table_contains (named, GINT_TO_POINTER (pid)))
        {
          g_hash_table_add (named, GINT_TO_POINTER (pid));
          g_string_append_printf (out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
                                  first ? "" : ",\n", pid, pid);
          json_string (out, task->comm);
          g_string_append_printf (out, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":%d,"
                                  "\"args\":{\"sort_index\":%d}}",
                                  pid, pid, pid == rsp_analysis_pid (a) ? 0 : 1);
          first = FALSE;
        }
      g_autofree char *label = copy > 1 ? g_strdup_printf ("%s %d (%u)", task->comm, task->tid, copy)
                                        : g_strdup_printf ("%s %d", task->comm, task->tid);
      g_string_append_printf (out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
                              pid, tid);
      json_string (out, label);
      g_string_append (out, "}}");
    }
  for (guint k = 0; k < events->len; k++)
    {
      const ChromeEvent *e = &g_array_index (events, ChromeEvent, k);
      g_string_append (out, first ? "{\"ph\":\"" : ",\n{\"ph\":\"");
      first = FALSE;
      g_string_append_printf (out, "%c\",\"pid\":%d,\"tid\":%d,\"ts\":", e->phase, e->pid, e->tid);
      json_us (out, e->ts - MIN (e->ts, t0));
      if (e->phase != 'X')
        {
          g_string_append_printf (out, ",\"id\":%u,\"name\":\"wake-up\",\"cat\":\"wakeup\"%s}", e->index,
                                  e->phase == 'f' ? ",\"bp\":\"e\"" : "");
          continue;
        }
      g_string_append (out, ",\"dur\":");
      json_us (out, e->dur);
      if (!e->is_stretch)
        {
          const RspSegment *s = rsp_analysis_segment (a, e->index);
          const char *frame = s->kind == RSP_SEG_SLEEP ? rsp_model_sleep_frame (m, s->item) : NULL;
          g_autofree char *name = s->kind == RSP_SEG_RUN ? g_strdup ("run")
                                  : frame != NULL       ? g_strdup_printf ("sleep in %s", frame)
                                                        : g_strdup ("sleep");
          g_string_append (out, ",\"name\":");
          json_string (out, name);
          /* "segment": the stretches' categories are the accounting's ids */
          g_string_append_printf (out, ",\"cat\":\"segment\",\"args\":{\"control_path\":%u,\"depth\":%u}}",
                                  s->path, s->depth);
          continue;
        }
      const RspStretch *st = rsp_analysis_stretch (a, e->index);
      g_string_append (out, ",\"name\":");
      json_string (out, rsp_category_label (st->category));
      g_string_append_printf (out, ",\"cat\":\"%s\",\"args\":{\"category\":\"%s\",\"frame\":",
                              rsp_category_id (st->category), rsp_category_id (st->category));
      json_string (out, st->frame);
      if (st->file != NULL)
        {
          g_string_append (out, ",\"file\":");
          json_string (out, st->file);
        }
      if (st->endpoint != NULL)
        {
          g_string_append (out, ",\"endpoint\":");
          json_string (out, st->endpoint);
        }
      if (st->inferred)
        g_string_append (out, ",\"inferred\":true");
      g_string_append (out, "}}");
    }
  g_string_append (out, "\n]}\n");
  return g_string_free_to_bytes (out);
}

/* ------------------------------------------------------------------ pprof */

/* profile.proto, written by hand: the few wire types it uses. */
static void
pb_varint (GByteArray *b, guint64 v)
{
  guint8 buf[10];
  guint n = 0;
  do
    {
      buf[n] = (guint8) (v & 0x7f);
      v >>= 7;
      if (v != 0)
        buf[n] |= 0x80;
      n++;
    }
  while (v != 0);
  g_byte_array_append (b, buf, n);
}

static void
pb_uint (GByteArray *b, guint field, guint64 v)
{
  pb_varint (b, (guint64) field << 3 | 0);
  pb_varint (b, v);
}

static void
pb_bytes (GByteArray *b, guint field, const guint8 *data, gsize size)
{
  pb_varint (b, (guint64) field << 3 | 2);
  pb_varint (b, size);
  g_byte_array_append (b, data, (guint) size);
}

/* a sub-message: written into SUB, then appended as field FIELD; SUB emptied */
static void
pb_message (GByteArray *b, guint field, GByteArray *sub)
{
  pb_bytes (b, field, sub->data, sub->len);
  g_byte_array_set_size (sub, 0);
}

typedef struct {
  GHashTable *index; /* string -> index + 1 */
  GPtrArray *strings;
} StringTable;

static guint64
string_index (StringTable *t, const char *s)
{
  gpointer found = g_hash_table_lookup (t->index, s);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  g_ptr_array_add (t->strings, (gpointer) s);
  g_hash_table_insert (t->index, (gpointer) s, GUINT_TO_POINTER (t->strings->len));
  return t->strings->len - 1;
}

/* DATA in the gzip format at level 6, as pprof's files are. */
static GBytes *
gzip (const guint8 *data, gsize size)
{
  z_stream zs = { 0 };
  if (deflateInit2 (&zs, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("zlib: %s", zs.msg != NULL ? zs.msg : "deflateInit2 failed");
  GByteArray *out = g_byte_array_sized_new (size / 4 + 64);
  zs.next_in = (Bytef *) data;
  int r;
  do
    {
      guint8 buf[65536];
      /* at most 1 GB in at a time: avail_in is 32 bits */
      gsize in_now = MIN (size - (gsize) ((const guint8 *) zs.next_in - data), (gsize) 1 << 30);
      zs.avail_in = (uInt) in_now;
      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      gboolean last = (gsize) ((const guint8 *) zs.next_in - data) + in_now == size;
      r = deflate (&zs, last ? Z_FINISH : Z_NO_FLUSH);
      /* zlib in memory fails only without memory */
      if (r == Z_STREAM_ERROR)
        g_error ("zlib: deflate failed");
      g_byte_array_append (out, buf, (guint) (sizeof buf - zs.avail_out));
    }
  while (r != Z_STREAM_END);
  deflateEnd (&zs);
  return g_byte_array_free_to_bytes (out);
}

static GBytes *
export_pprof (const RspAnalysis *a)
{
  Walker w;
  Stacks s;
  stacks_collect (&w, &s, a);
  StringTable strings = { g_hash_table_new (g_str_hash, g_str_equal), g_ptr_array_new () };
  string_index (&strings, ""); /* string 0 is "" */
  g_autoptr (GByteArray) p = g_byte_array_new ();
  g_autoptr (GByteArray) sub = g_byte_array_new ();
  g_autoptr (GByteArray) packed = g_byte_array_new ();

  guint64 wall = string_index (&strings, "wall"), nanoseconds = string_index (&strings, "nanoseconds");
  pb_uint (sub, 1, wall);
  pb_uint (sub, 2, nanoseconds);
  pb_message (p, 1, sub); /* sample_type */

  guint64 category_key = string_index (&strings, "category");
  for (guint i = 0; i < s.entries->len; i++)
    {
      const Entry *e = &g_array_index (s.entries, Entry, i);
      guint n;
      const guint32 *f = entry_frames (e, &n);
      /* locations leaf first; location and function ids are frame ids + 1 */
      for (guint k = n; k > 0; k--)
        pb_varint (packed, (guint64) f[k - 1] + 1);
      pb_bytes (sub, 1, packed->data, packed->len);
      g_byte_array_set_size (packed, 0);
      pb_varint (packed, e->ns);
      pb_bytes (sub, 2, packed->data, packed->len);
      g_byte_array_set_size (packed, 0);
      /* label { key: "category" str: "disk_io" } */
      pb_uint (packed, 1, category_key);
      pb_uint (packed, 2, string_index (&strings, rsp_category_id (e->category)));
      pb_bytes (sub, 3, packed->data, packed->len);
      g_byte_array_set_size (packed, 0);
      pb_message (p, 2, sub); /* sample */
    }
  for (guint i = 0; i < w.frames.names->len; i++)
    {
      pb_uint (packed, 1, i + 1);
      pb_uint (sub, 1, i + 1);
      pb_bytes (sub, 4, packed->data, packed->len); /* line { function_id } */
      g_byte_array_set_size (packed, 0);
      pb_message (p, 4, sub); /* location */
    }
  for (guint i = 0; i < w.frames.names->len; i++)
    {
      guint64 name = string_index (&strings, frame_name (&w.frames, i));
      pb_uint (sub, 1, i + 1);
      pb_uint (sub, 2, name);
      pb_uint (sub, 3, name);
      pb_message (p, 5, sub); /* function */
    }
  guint64 duration = rsp_analysis_wall_ns (a);
  /* period_type and period: each sample is its own time, one nanosecond a unit */
  pb_uint (sub, 1, wall);
  pb_uint (sub, 2, nanoseconds);
  for (guint i = 0; i < strings.strings->len; i++)
    {
      const char *str = g_ptr_array_index (strings.strings, i);
      pb_bytes (p, 6, (const guint8 *) str, strlen (str));
    }
  pb_uint (p, 10, duration);
  pb_message (p, 11, sub);
  pb_uint (p, 12, 1);
  g_hash_table_unref (strings.index);
  g_ptr_array_unref (strings.strings);
  stacks_clear (&w, &s);
  return gzip (p->data, p->len);
}

GBytes *
rsp_export (const RspAnalysis *analysis, RspExportFormat format, const char *title)
{
  g_return_val_if_fail (analysis != NULL, NULL);
  switch (format)
    {
    case RSP_EXPORT_FOLDED:
      return export_folded (analysis);
    case RSP_EXPORT_SPEEDSCOPE:
      return export_speedscope (analysis, title);
    case RSP_EXPORT_CHROME:
      return export_chrome (analysis, title);
    case RSP_EXPORT_PPROF:
      return export_pprof (analysis);
    }
  g_return_val_if_reached (NULL);
}
