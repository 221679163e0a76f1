/* rsp-flame-view.c — the chronological flame view (paper §4.2 "Flame View").
 *
 * Each control path is a band; each thread of its lanes (path 0 has one
 * per thread of the process of interest) is drawn as a pseudo-stack over
 * time: a layer per segment depth, each layer the task's name (grey) with
 * the task's frames on top — a run's samples dividing its width equally,
 * a sleep's switch-out stack — and the waker's layer (the sleep's
 * children) on top of that, so one stack of functions stretches across
 * processes.  A sleep's stretches the accounting puts in disk I/O or the
 * network get a green or teal box on top.
 *
 * Adjacent identical frames merge unless a gap of one device pixel or more
 * separates them ("adjacent stack elements are unified so long as there is
 * nothing visible between them", paper "Visualizing"), so the layout depends on the
 * zoom and is rebuilt when it changes (its zoom-independent half is shared
 * between the layouts of one analysis; they are for one thread).  Content
 * grows upwards from the ruler at the bottom: path 0 first, then the
 * others above it.
 */
#include "rsp-flame-view.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rsp-time-axis.h"

#define BAND_GAP 6.0 /* logical px between bands */
#define LANE_GAP 8.0 /* between the lanes (threads) of a band */
#define LINK_MIN_SLEEP_PX 12.0  /* links of narrower sleeps are not drawn */
#define LINK_MIN_SPACING_PX 6.0 /* nor those this close to the previous one */

typedef struct {
  guint32 path;
  gint32 tid;
  guint32 first_row, n_rows;
  GArray *roots; /* RspIdx, root segments in time order */
} Lane;

typedef struct {
  guint32 path;
  double y0, y1; /* content y: bottom of the label strip, top of the band */
  char *label;
} Band;

typedef struct {
  guint64 time;
  guint64 span;           /* the parent sleep's length: a link is drawn when it is visible */
  guint32 row_lo, row_hi; /* the parent's and the child's task rows */
} Link;

typedef struct {
  guint64 start, end;
  guint32 category;
  RspFlameBoxKind kind;
  const char *box; /* the box on top of the sleep's frames, in Flame.names; NULL: none */
} Stretch;

/* What does not depend on the zoom, shared by the layouts of one analysis
 * (reference counted: a GRcBox). */
typedef struct {
  const RspAnalysis *a;
  RspStackNames *stacks;
  gboolean full_stacks;
  double row_height;
  double content_height;
  GArray *row_ys; /* double per row: content y of its bottom edge */
  GArray *lanes;  /* Lane */
  GArray *bands;  /* Band */
  GArray *links;  /* Link, by time */
  GArray *stretches; /* Stretch: the uncovered stretches of the sleep segments */
  guint32 *seg_lane;  /* per segment */
  guint32 *seg_base;  /* per segment: level of its task box in its lane */
  guint32 *seg_frames; /* per segment: frames above the task box (most of a run's samples) */
  guint32 *seg_stretch; /* per segment: first stretch; the next segment's is the end */
  guint16 *seg_cats;  /* per segment: categories of its own stretches */
  guint8 *seg_box;    /* per segment: it has a disk or network box above its frames */
  guint32 *row_lane;  /* per layout row */
  guint64 total;      /* the analysis's total time */
  GStringChunk *names;/* the stretches' box labels */
} Flame;

/* A layout's own part: the zoom its boxes were merged for. */
typedef struct {
  Flame *flame;
  double ns_per_px; /* logical px */
  double scale;
} FlameZoom;

static void
flame_clear (gpointer p)
{
  Flame *f = p;
  rsp_stack_names_free (f->stacks);
  g_array_unref (f->row_ys);
  for (guint i = 0; i < f->lanes->len; i++)
    g_array_unref (g_array_index (f->lanes, Lane, i).roots);
  for (guint i = 0; i < f->bands->len; i++)
    g_free (g_array_index (f->bands, Band, i).label);
  g_array_unref (f->lanes);
  g_array_unref (f->bands);
  g_array_unref (f->links);
  g_array_unref (f->stretches);
  g_free (f->seg_lane);
  g_free (f->seg_base);
  g_free (f->seg_frames);
  g_free (f->seg_stretch);
  g_free (f->seg_cats);
  g_free (f->seg_box);
  g_free (f->row_lane);
  g_string_chunk_free (f->names);
}

static void
flame_zoom_free (gpointer p)
{
  FlameZoom *z = p;
  g_rc_box_release_full (z->flame, flame_clear);
  g_free (z);
}

static const Flame *
flame_of (const RspFlameLayout *l)
{
  return ((const FlameZoom *) l->view_data)->flame;
}

void
rsp_flame_options_init (RspFlameOptions *o)
{
  memset (o, 0, sizeof *o);
  o->highlight_category = -1;
}

/* ------------------------------------------------------------------ names */

static gboolean
same_name (const char *a, const char *b)
{
  return a == b || (a != NULL && b != NULL && strcmp (a, b) == 0);
}

/* ------------------------------------------------------------------ structure (zoom-independent) */

static guint
stack_frames (Flame *f, RspStackId stack, gboolean user_only)
{
  guint n, n_user;
  rsp_stack_names_get (f->stacks, stack, &n, &n_user);
  return user_only ? n_user : n;
}

/* Levels, heights and stretches of every segment. */
static void
measure_segments (Flame *f)
{
  const RspAnalysis *a = f->a;
  const RspModel *m = rsp_analysis_model (a);
  guint n = rsp_analysis_n_segments (a);
  f->seg_lane = g_new0 (guint32, MAX (n, 1));
  f->seg_base = g_new0 (guint32, MAX (n, 1));
  f->seg_frames = g_new0 (guint32, MAX (n, 1));
  f->seg_stretch = g_new0 (guint32, n + 1);
  f->seg_cats = g_new0 (guint16, MAX (n, 1));
  f->seg_box = g_new0 (guint8, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      f->seg_stretch[i] = f->stretches->len;
      if (s->kind == RSP_SEG_SLEEP)
        {
          f->seg_frames[i] = stack_frames (f, rsp_model_sleep (m, s->item)->stack, FALSE);
          guint n_st;
          const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n_st);
          for (guint k = 0; k < n_st; k++)
            {
              Stretch copy = { st[k].start, st[k].end, st[k].category };
              copy.box = rsp_flame_stretch_box (a, s, &st[k], f->names, &copy.kind);
              g_array_append_val (f->stretches, copy);
              f->seg_cats[i] |= 1u << copy.category;
              if (copy.box != NULL)
                f->seg_box[i] = 1;
            }
        }
      else
        {
          const RspRun *run = rsp_model_run (m, s->item);
          guint most = stack_frames (f, rsp_model_unsampled_stack (m, run), TRUE);
          for (guint k = 0; k < run->n_samples; k++)
            most = MAX (most, stack_frames (f, rsp_model_sample (m, run->first_sample + k)->stack, FALSE));
          f->seg_frames[i] = most;
          f->seg_cats[i] = 1u << (run->n_samples > 0 ? RSP_CAT_CPU_SAMPLED : RSP_CAT_CPU_UNSAMPLED);
        }
      /* a child's layer stands on its parent's frames; parents come
       * before their children in the segment array */
      if (s->parent != RSP_NONE && s->parent < i)
        f->seg_base[i] = f->seg_base[s->parent] + 1 + f->seg_frames[s->parent];
    }
  f->seg_stretch[n] = f->stretches->len;
}

static gint
compare_roots (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const RspAnalysis *a = data;
  guint64 sa = rsp_analysis_segment (a, *(const RspIdx *) pa)->start;
  guint64 sb = rsp_analysis_segment (a, *(const RspIdx *) pb)->start;
  return sa < sb ? -1 : sa > sb;
}

/* One lane per thread of each path: the roots of a path come per task, and
 * the exec generations of a thread follow each other in one lane. */
static void
make_lanes (Flame *f)
{
  const RspAnalysis *a = f->a;
  const RspModel *m = rsp_analysis_model (a);
  for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
    {
      const RspControlPath *path = rsp_analysis_path (a, p);
      guint first_lane = f->lanes->len;
      for (guint k = 0; k < path->n_roots; k++)
        {
          RspIdx seg = path->first_root + k;
          gint32 tid = rsp_model_task (m, rsp_analysis_segment (a, seg)->task)->tid;
          guint lane = first_lane;
          while (lane < f->lanes->len && g_array_index (f->lanes, Lane, lane).tid != tid)
            lane++;
          if (lane == f->lanes->len)
            {
              Lane l = { p, tid, 0, 0, g_array_new (FALSE, FALSE, sizeof (RspIdx)) };
              g_array_append_val (f->lanes, l);
            }
          g_array_append_val (g_array_index (f->lanes, Lane, lane).roots, seg);
          f->seg_lane[seg] = lane;
        }
      for (guint lane = first_lane; lane < f->lanes->len; lane++)
        g_array_sort_with_data (g_array_index (f->lanes, Lane, lane).roots, compare_roots, (gpointer) a);
    }
  if (f->lanes->len == 0)
    return;
  /* children are in the lane of their root (parents come first) */
  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      if (s->parent != RSP_NONE && s->parent < i)
        f->seg_lane[i] = f->seg_lane[s->parent];
      Lane *lane = &g_array_index (f->lanes, Lane, f->seg_lane[i]);
      guint top = f->seg_base[i] + 1 + f->seg_frames[i] + f->seg_box[i];
      lane->n_rows = MAX (lane->n_rows, top);
    }
}

static char *
band_label (const RspAnalysis *a, guint p)
{
  const RspModel *m = rsp_analysis_model (a);
  const RspControlPath *path = rsp_analysis_path (a, p);
  guint64 origin = rsp_model_start_time (m);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "#%u ", p);
  guint shown = MIN (path->task_time->len, 3);
  for (guint k = 0; k < shown; k++)
    {
      const RspPathTask *pt = &g_array_index (path->task_time, RspPathTask, k);
      const RspTask *t = rsp_model_task (m, pt->task);
      g_string_append_printf (s, "%s%s [%d]", k > 0 ? ", " : "", t->comm != NULL ? t->comm : "?", t->tid);
    }
  if (path->task_time->len > shown)
    g_string_append_printf (s, _(" and %u more"), path->task_time->len - shown);
  g_autofree char *total = rsp_format_duration (path->total);
  g_string_append_printf (s, "   %.2f–%.2f ms, %s", (path->start - origin) / 1e6, (path->end - origin) / 1e6,
                          total);
  return g_string_free (s, FALSE);
}

/* Rows bottom-up: for each path, its label strip, then its lanes. */
static void
place_rows (Flame *f)
{
  GArray *row_ys = f->row_ys;
  double y = 0;
  guint row = 0;
  guint lane = 0;
  for (guint p = 0; p < rsp_analysis_n_paths (f->a); p++)
    {
      if (lane >= f->lanes->len || g_array_index (f->lanes, Lane, lane).path != p)
        continue;
      Band band = { p, y, 0, band_label (f->a, p) };
      y += f->row_height;
      for (; lane < f->lanes->len && g_array_index (f->lanes, Lane, lane).path == p; lane++)
        {
          Lane *ln = &g_array_index (f->lanes, Lane, lane);
          ln->first_row = row;
          for (guint k = 0; k < ln->n_rows; k++, row++)
            {
              double ry = y + k * f->row_height;
              g_array_append_val (row_ys, ry);
            }
          y += ln->n_rows * f->row_height + LANE_GAP;
        }
      y += BAND_GAP - LANE_GAP;
      band.y1 = y;
      g_array_append_val (f->bands, band);
    }
  f->row_lane = g_new0 (guint32, MAX (row, 1));
  for (guint i = 0; i < f->lanes->len; i++)
    {
      const Lane *ln = &g_array_index (f->lanes, Lane, i);
      for (guint k = 0; k < ln->n_rows; k++)
        f->row_lane[ln->first_row + k] = i;
    }
}

static gint
compare_links (gconstpointer pa, gconstpointer pb)
{
  const Link *a = pa, *b = pb;
  return a->time < b->time ? -1 : a->time > b->time;
}

/* Wake-ups that cross layers: the parent's run that set a child going, and
 * the child's run that woke the parent at the end of its sleep. */
static void
make_links (Flame *f)
{
  const RspAnalysis *a = f->a;
  const RspModel *m = rsp_analysis_model (a);
  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      if (s->parent == RSP_NONE)
        continue;
      const RspSegment *parent = rsp_analysis_segment (a, s->parent);
      const Lane *lane = &g_array_index (f->lanes, Lane, f->seg_lane[i]);
      Link link = { 0, parent->end - parent->start, lane->first_row + f->seg_base[s->parent],
                    lane->first_row + f->seg_base[i] };
      if (s->kind == RSP_SEG_RUN)
        {
          const RspRun *run = rsp_model_run (m, s->item);
          const RspLink *wl = run->wake_link != RSP_NONE ? rsp_model_link (m, run->wake_link) : NULL;
          if (wl != NULL && wl->from_run != RSP_NONE && rsp_model_run (m, wl->from_run)->task == parent->task)
            {
              link.time = MAX (wl->time, parent->start);
              g_array_append_val (f->links, link);
            }
        }
      /* the last child segment woke the parent */
      if (i + 1 == parent->first_child + parent->n_children)
        {
          const RspSleep *sl = rsp_model_sleep (m, parent->item);
          if ((sl->reason == RSP_WAKE_RUN || sl->reason == RSP_WAKE_FORK) && sl->runnable_at >= parent->start
              && sl->runnable_at <= parent->end)
            {
              link.time = sl->runnable_at;
              g_array_append_val (f->links, link);
            }
        }
    }
  g_array_sort (f->links, compare_links);
}

/* ------------------------------------------------------------------ boxes (per zoom) */

typedef struct {
  Flame *f;
  GArray **rows; /* RspFlameBox per level of the lane being laid out */
  double gap;    /* one device pixel, ns: closer identical boxes merge */
} Builder;

/* Adds a box for [START, END) on LEVEL standing on PARENT (index in the
 * level below), merging it into the last box of the level when it is the
 * same thing on the same parent and no visible gap separates them.
 * Returns the index of the box it landed in. */
static guint32
add_box (Builder *b, guint level, guint64 start, guint64 end, const char *name, RspFlameBoxKind kind,
         guint32 parent, RspIdx seg, RspIdx task, guint16 cats)
{
  GArray *row = b->rows[level];
  if (row->len > 0)
    {
      RspFlameBox *last = &g_array_index (row, RspFlameBox, row->len - 1);
      gboolean same_class = (kind == RSP_FLAME_BOX_TASK) == (last->kind == RSP_FLAME_BOX_TASK)
                            && (kind == RSP_FLAME_BOX_DISK || kind == RSP_FLAME_BOX_NETWORK)
                                   == (last->kind == RSP_FLAME_BOX_DISK || last->kind == RSP_FLAME_BOX_NETWORK);
      gboolean same = same_class && last->parent == parent && same_name (last->name, name)
                      && (kind != RSP_FLAME_BOX_TASK
                          || rsp_analysis_segment (b->f->a, last->ref)->task == task);
      /* merged unless a gap of a device pixel or more shows between them */
      if (same && (start <= last->end || (double) (start - last->end) < b->gap))
        {
          last->end = MAX (last->end, end);
          last->categories |= cats;
          if (last->kind != kind && kind != RSP_FLAME_BOX_TASK)
            last->kind = RSP_FLAME_BOX_BOTH;
          return row->len - 1;
        }
      /* rows never overlap, even on inconsistent input */
      start = MAX (start, last->end);
      if (start >= end)
        return row->len - 1;
    }
  RspFlameBox box = { start, end, name, parent, seg, 0, cats, kind, 0, rsp_flame_name_shade (name) };
  g_array_append_val (row, box);
  return row->len - 1;
}

/* Frames of STACK (its user-space part if USER_ONLY) bottom-up from
 * LEVEL, over [START, END). Returns the top box. */
static guint32
add_stack (Builder *b, guint level, RspStackId stack, gboolean user_only, guint64 start, guint64 end,
           RspFlameBoxKind kind, guint32 parent, RspIdx seg, guint16 cats)
{
  guint n, n_user;
  const char *const *names = rsp_stack_names_get (b->f->stacks, stack, &n, &n_user);
  if (user_only)
    n = n_user;
  for (guint k = 0; k < n; k++)
    parent = add_box (b, level + k, start, end, names[k], kind, parent, seg, RSP_NONE, cats);
  return parent;
}

static void
lay_out_segment (Builder *b, RspIdx i, guint32 parent)
{
  Flame *f = b->f;
  const RspAnalysis *a = f->a;
  const RspModel *m = rsp_analysis_model (a);
  const RspSegment *s = rsp_analysis_segment (a, i);
  guint base = f->seg_base[i];
  const char *comm = rsp_model_task (m, s->task)->comm;
  guint32 task_box = add_box (b, base, s->start, s->end, comm != NULL ? comm : "?", RSP_FLAME_BOX_TASK, parent, i,
                              s->task, f->seg_cats[i]);
  if (s->kind == RSP_SEG_RUN)
    {
      /* each sample's share of the run (paper §4.2), as the accounting
       * divided it: the analysis's table of stretches */
      const RspRun *run = rsp_model_run (m, s->item);
      if (run->n_samples == 0)
        {
          add_stack (b, base + 1, rsp_model_unsampled_stack (m, run), TRUE, s->start, s->end, RSP_FLAME_BOX_RUN,
                     task_box, i, 1u << RSP_CAT_CPU_UNSAMPLED);
          return;
        }
      guint n_st;
      const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n_st);
      for (guint k = 0; k < n_st; k++)
        if (st[k].sample != RSP_NONE)
          add_stack (b, base + 1, rsp_model_sample (m, st[k].sample)->stack, FALSE, st[k].start, st[k].end,
                     RSP_FLAME_BOX_RUN, task_box, i, 1u << RSP_CAT_CPU_SAMPLED);
      return;
    }
  const RspSleep *sl = rsp_model_sleep (m, s->item);
  guint32 top = add_stack (b, base + 1, sl->stack, FALSE, s->start, s->end, RSP_FLAME_BOX_SLEEP, task_box, i,
                          f->seg_cats[i]);
  guint box_level = base + 1 + f->seg_frames[i];
  /* an inferred sleep's innermost frame and its stretches are hatched */
  if (sl->inferred)
    g_array_index (b->rows[box_level - 1], RspFlameBox, top).flags |= RSP_FLAME_BOX_INFERRED;
  for (guint k = f->seg_stretch[i]; k < f->seg_stretch[i + 1]; k++)
    {
      const Stretch *st = &g_array_index (f->stretches, Stretch, k);
      if (st->box != NULL)
        {
          guint32 at = add_box (b, box_level, st->start, st->end, st->box, st->kind, top, i, RSP_NONE,
                                1u << st->category);
          if (sl->inferred)
            g_array_index (b->rows[box_level], RspFlameBox, at).flags |= RSP_FLAME_BOX_INFERRED;
        }
    }
  for (guint k = 0; k < s->n_children; k++)
    lay_out_segment (b, s->first_child + k, top);
}

static void
lay_out_boxes (Flame *f, const FlameZoom *z, RspFlameLayout *l)
{
  GArray *row_ys = f->row_ys;
  Builder b = { f, NULL, z->ns_per_px / z->scale };
  for (guint li = 0; li < f->lanes->len; li++)
    {
      const Lane *lane = &g_array_index (f->lanes, Lane, li);
      b.rows = g_new (GArray *, MAX (lane->n_rows, 1));
      for (guint k = 0; k < lane->n_rows; k++)
        b.rows[k] = g_array_new (FALSE, FALSE, sizeof (RspFlameBox));
      for (guint k = 0; k < lane->roots->len; k++)
        lay_out_segment (&b, g_array_index (lane->roots, RspIdx, k), RSP_FLAME_NO_BOX);
      for (guint k = 0; k < lane->n_rows; k++)
        {
          rsp_flame_layout_add_row (l, g_array_index (row_ys, double, lane->first_row + k),
                                    (const RspFlameBox *) b.rows[k]->data, b.rows[k]->len);
          g_array_unref (b.rows[k]);
        }
      g_free (b.rows);
    }
}

/* ------------------------------------------------------------------ public */

static void
visible_range (const RspAnalysis *a, const RspFlameOptions *o, guint64 *t0, guint64 *t1)
{
  if (o->t1 > o->t0)
    {
      *t0 = o->t0;
      *t1 = o->t1;
    }
  else
    {
      *t0 = rsp_analysis_start (a);
      *t1 = MAX (rsp_analysis_end (a), *t0 + 1);
    }
}

/* The ruler is a row of text with room for its ticks. */
static double
ruler_height (const RspFlameLayout *l)
{
  return l->row_height + 6;
}

static Flame *
flame_new (const RspAnalysis *analysis, gboolean full_stacks, double row_height)
{
  Flame *f = g_rc_box_new0 (Flame);
  f->a = analysis;
  f->full_stacks = full_stacks;
  f->row_height = row_height;
  f->stacks = rsp_stack_names_new (rsp_analysis_model (analysis), full_stacks);
  f->row_ys = g_array_new (FALSE, FALSE, sizeof (double));
  f->lanes = g_array_new (FALSE, FALSE, sizeof (Lane));
  f->bands = g_array_new (FALSE, FALSE, sizeof (Band));
  f->links = g_array_new (FALSE, FALSE, sizeof (Link));
  f->stretches = g_array_new (FALSE, FALSE, sizeof (Stretch));
  f->names = g_string_chunk_new (256);
  f->total = rsp_analysis_total_ns (analysis);
  measure_segments (f);
  make_lanes (f);
  place_rows (f);
  make_links (f);
  if (f->bands->len > 0)
    f->content_height = g_array_index (f->bands, Band, f->bands->len - 1).y1;
  return f;
}

static double
zoom_of (const RspAnalysis *analysis, const RspFlameOptions *options, double width)
{
  guint64 t0, t1;
  visible_range (analysis, options, &t0, &t1);
  return (t1 - t0) / MAX (width, 1.0);
}

/* The boxes of F merged for the zoom of OPTIONS. */
static RspFlameLayout *
flame_layout (Flame *f, const RspFlameOptions *options, const RspTheme *theme, double width)
{
  RspFlameLayout *l = rsp_flame_layout_new (theme);
  FlameZoom *z = g_new0 (FlameZoom, 1);
  z->flame = g_rc_box_acquire (f);
  z->ns_per_px = zoom_of (f->a, options, width);
  z->scale = l->scale;
  l->view_data = z;
  l->view_data_free = flame_zoom_free;
  lay_out_boxes (f, z, l);
  l->content_height = f->content_height;
  return l;
}

RspFlameLayout *
rsp_flame_view_layout (const RspAnalysis *analysis, const RspFlameOptions *options, const RspTheme *theme,
                       double width)
{
  g_return_val_if_fail (analysis != NULL && options != NULL && theme != NULL, NULL);
  Flame *f = flame_new (analysis, options->full_stacks, theme->row_height);
  RspFlameLayout *l = flame_layout (f, options, theme, width);
  g_rc_box_release_full (f, flame_clear);
  return l;
}

RspFlameLayout *
rsp_flame_view_layout_rezoom (const RspFlameLayout *previous, const RspAnalysis *analysis,
                              const RspFlameOptions *options, const RspTheme *theme, double width)
{
  g_return_val_if_fail (analysis != NULL && options != NULL && theme != NULL, NULL);
  if (previous == NULL || previous->view_data_free != flame_zoom_free)
    return rsp_flame_view_layout (analysis, options, theme, width);
  Flame *f = ((const FlameZoom *) previous->view_data)->flame;
  if (f->a != analysis || f->full_stacks != options->full_stacks || f->row_height != theme->row_height)
    return rsp_flame_view_layout (analysis, options, theme, width);
  return flame_layout (f, options, theme, width);
}

gboolean
rsp_flame_view_layout_fits (const RspFlameLayout *l, const RspAnalysis *analysis, const RspFlameOptions *options,
                            const RspTheme *theme, double width)
{
  if (l == NULL || l->view_data_free != flame_zoom_free)
    return FALSE;
  const FlameZoom *z = l->view_data;
  double ns_per_px = zoom_of (analysis, options, width);
  return z->flame->a == analysis && z->flame->full_stacks == options->full_stacks && l->scale == theme->scale
         && l->row_height == theme->row_height && fabs (ns_per_px - z->ns_per_px) <= z->ns_per_px * 1e-9;
}

void
rsp_flame_view_viewport (const RspFlameLayout *l, const RspFlameOptions *o, double width, double height,
                         RspFlameViewport *vp)
{
  const Flame *f = flame_of (l);
  guint64 t0, t1;
  visible_range (f->a, o, &t0, &t1);
  memset (vp, 0, sizeof *vp);
  vp->t0 = t0;
  vp->ns_per_px = (t1 - t0) / MAX (width, 1.0);
  vp->left = 0;
  vp->width = width;
  vp->top = 0;
  vp->bottom = MAX (height - ruler_height (l), 0);
  vp->scroll_y = o->scroll_y;
  vp->search = o->search;
  vp->highlight_category = o->highlight_category;
}

double
rsp_flame_view_content_height (const RspFlameLayout *l)
{
  return l->content_height + ruler_height (l);
}

gint
rsp_flame_view_segment_row (const RspFlameLayout *l, RspIdx segment, guint level)
{
  const Flame *f = flame_of (l);
  if (segment >= rsp_analysis_n_segments (f->a))
    return -1;
  const Lane *lane = &g_array_index (f->lanes, Lane, f->seg_lane[segment]);
  guint row = f->seg_base[segment] + level;
  if (row >= lane->n_rows)
    return -1;
  return (gint) (lane->first_row + row);
}

/* The time ruler under the bands: the timeline's ruler (rsp-time-axis.h),
 * labelled from the recording's start. */
static void
draw_ruler (const RspFlameViewport *vp, const RspTheme *theme, cairo_t *cr, guint64 origin, double y, double height)
{
  rsp_flame_set_color (cr, theme->background, 1.0);
  cairo_rectangle (cr, vp->left, y, vp->width, height);
  cairo_fill (cr);
  RspTimeAxis axis;
  guint64 t1 = vp->t0 + (guint64) MAX (vp->width * vp->ns_per_px, 1.0);
  rsp_time_axis_init (&axis, origin, vp->t0, t1, vp->left, vp->width, theme);
  rsp_time_axis_draw_under (&axis, theme, cr, y, height);
}

void
rsp_flame_view_draw_layout (RspFlameLayout *l, const RspFlameOptions *options, const RspTheme *theme, cairo_t *cr,
                            double width, double height)
{
  g_return_if_fail (l != NULL && options != NULL && theme != NULL && cr != NULL);
  const Flame *f = flame_of (l);
  RspFlameViewport vp;
  rsp_flame_view_viewport (l, options, width, height, &vp);
  double s = l->scale;

  cairo_save (cr);
  rsp_flame_set_color (cr, theme->background, 1.0);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  /* bands: a separator and the path's label under its lanes */
  cairo_save (cr);
  cairo_rectangle (cr, vp.left, vp.top, vp.width, vp.bottom - vp.top);
  cairo_clip (cr);
  for (guint i = 0; i < f->bands->len; i++)
    {
      const Band *band = &g_array_index (f->bands, Band, i);
      double y_bottom = vp.bottom - (band->y0 - vp.scroll_y);
      double y_top = vp.bottom - (band->y1 - vp.scroll_y);
      if (y_top > vp.bottom || y_bottom < vp.top)
        continue;
      if (i > 0)
        {
          rsp_flame_set_color (cr, theme->grid, 1.0);
          cairo_rectangle (cr, vp.left, floor ((y_bottom + BAND_GAP / 2) * s) / s, vp.width, 1.0 / s);
          cairo_fill (cr);
        }
      rsp_flame_set_color (cr, theme->muted, 1.0);
      rsp_flame_layout_text (l, cr, band->label, vp.left + 4, y_bottom - l->row_height + 2, vp.width - 8,
                             PANGO_ELLIPSIZE_END);
    }
  /* the threads of a path are lanes of their own, not layers of a stack */
  rsp_flame_set_color (cr, theme->grid, 1.0);
  for (guint i = 1; i < f->lanes->len; i++)
    {
      const Lane *lane = &g_array_index (f->lanes, Lane, i);
      if (lane->path != g_array_index (f->lanes, Lane, i - 1).path)
        continue;
      double cy = g_array_index (f->row_ys, double, lane->first_row) - LANE_GAP / 2;
      double y = floor ((vp.bottom - (cy - vp.scroll_y)) * s) / s;
      if (y >= vp.top && y <= vp.bottom)
        cairo_rectangle (cr, vp.left, y, vp.width, 1.0 / s);
    }
  cairo_fill (cr);
  cairo_restore (cr);

  rsp_flame_layout_draw (l, &vp, theme, cr);

  /* wake-ups that cross layers: thin lines between the task rows of the
   * parent and the child, where the parent's sleep is wide enough to be
   * seen and the previous line on those rows is a few pixels away (links
   * within a control path "tend to be largely invisible", paper §4.2) */
  guint64 t1 = vp.t0 + (guint64) ceil (vp.width * vp.ns_per_px);
  guint lo = 0, hi = f->links->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (f->links, Link, mid).time < vp.t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  cairo_save (cr);
  cairo_rectangle (cr, vp.left, vp.top, vp.width, vp.bottom - vp.top);
  cairo_clip (cr);
  rsp_flame_set_color (cr, theme->link, 0.5);
  double last_x = -G_MAXDOUBLE;
  guint32 last_lo = G_MAXUINT32;
  for (guint i = lo; i < f->links->len; i++)
    {
      const Link *k = &g_array_index (f->links, Link, i);
      if (k->time > t1)
        break;
      if (k->span < LINK_MIN_SLEEP_PX * vp.ns_per_px)
        continue;
      double x = floor ((vp.left + (double) (k->time - vp.t0) / vp.ns_per_px) * s) / s;
      if (x - last_x < LINK_MIN_SPACING_PX && k->row_lo == last_lo)
        continue;
      last_x = x;
      last_lo = k->row_lo;
      double y0 = rsp_flame_layout_row_top (l, &vp, k->row_lo) + l->row_height / 2;
      double y1 = rsp_flame_layout_row_top (l, &vp, k->row_hi) + l->row_height / 2;
      if (MAX (y0, y1) < vp.top || MIN (y0, y1) > vp.bottom)
        continue;
      cairo_rectangle (cr, x, MIN (y0, y1), 1.0 / s, fabs (y1 - y0));
    }
  cairo_fill (cr);
  cairo_restore (cr);

  draw_ruler (&vp, theme, cr, rsp_model_start_time (rsp_analysis_model (f->a)), vp.bottom, height - vp.bottom);
  cairo_restore (cr);
}

void
rsp_flame_view_draw (const RspAnalysis *analysis, const RspFlameOptions *options, const RspTheme *theme, cairo_t *cr,
                     double width, double height)
{
  g_return_if_fail (analysis != NULL && options != NULL && theme != NULL && cr != NULL);
  g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (analysis, options, theme, width);
  rsp_flame_view_draw_layout (l, options, theme, cr, width, height);
}

/* ------------------------------------------------------------------ hit testing */

/* The segment of [FIRST, FIRST + N) (time-ordered) whose span contains T. */
static RspIdx
segment_at (const RspAnalysis *a, const RspIdx *segs, RspIdx first, guint n, guint64 t)
{
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      RspIdx idx = segs != NULL ? segs[mid] : first + mid;
      if (rsp_analysis_segment (a, idx)->end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == n)
    return RSP_NONE;
  RspIdx idx = segs != NULL ? segs[lo] : first + lo;
  return rsp_analysis_segment (a, idx)->start <= t ? idx : RSP_NONE;
}

static RspCategory
category_at (const Flame *f, RspIdx seg, guint64 t)
{
  const RspSegment *s = rsp_analysis_segment (f->a, seg);
  if (s->kind == RSP_SEG_RUN)
    return (f->seg_cats[seg] & (1u << RSP_CAT_CPU_SAMPLED)) ? RSP_CAT_CPU_SAMPLED : RSP_CAT_CPU_UNSAMPLED;
  for (guint k = f->seg_stretch[seg]; k < f->seg_stretch[seg + 1]; k++)
    {
      const Stretch *st = &g_array_index (f->stretches, Stretch, k);
      if (t >= st->start && t < st->end)
        return st->category;
    }
  return RSP_CAT_UNACCOUNTED;
}

gboolean
rsp_flame_view_hit_test (const RspFlameLayout *l, const RspFlameOptions *options, double width, double height,
                         double x, double y, RspFlameHit *hit)
{
  g_return_val_if_fail (l != NULL && options != NULL && hit != NULL, FALSE);
  const Flame *f = flame_of (l);
  RspFlameViewport vp;
  rsp_flame_view_viewport (l, options, width, height, &vp);
  rsp_flame_hit_init (hit);
  if (!rsp_flame_layout_hit (l, &vp, x, y, hit))
    {
      /* a label strip names its path */
      if (x < vp.left || x >= vp.left + vp.width || y < vp.top || y >= vp.bottom)
        return FALSE;
      double cy = (vp.bottom - y) + vp.scroll_y;
      for (guint i = 0; i < f->bands->len; i++)
        {
          const Band *band = &g_array_index (f->bands, Band, i);
          if (cy >= band->y0 && cy < band->y0 + l->row_height)
            {
              const RspControlPath *path = rsp_analysis_path (f->a, band->path);
              hit->what = RSP_FLAME_HIT_BAND;
              hit->path = band->path;
              hit->name = band->label;
              hit->start = path->start;
              hit->end = path->end;
              hit->ns = path->total;
              hit->percent = f->total > 0 ? 100.0 * path->total / f->total : 0;
              hit->x = vp.left;
              hit->width = vp.width;
              hit->y = vp.bottom - (band->y0 + l->row_height - vp.scroll_y);
              hit->height = l->row_height;
              return TRUE;
            }
        }
      return FALSE;
    }
  const RspFlameBox *box = rsp_flame_layout_box (l, hit->box);
  const Lane *lane = &g_array_index (f->lanes, Lane, f->row_lane[box->row]);
  guint level = box->row - lane->first_row;
  /* the time under the pointer, inside the box (it may have been found by
   * its slop) */
  guint64 t = vp.t0 + (guint64) MAX ((x - vp.left) * vp.ns_per_px, 0);
  t = CLAMP (t, box->start, box->end > box->start ? box->end - 1 : box->start);
  /* walk up the pseudo-stack at T to the layer that owns LEVEL, then on
   * to the top for the category of the moment */
  RspIdx seg = segment_at (f->a, (const RspIdx *) lane->roots->data, 0, lane->roots->len, t);
  RspIdx owner = RSP_NONE;
  while (seg != RSP_NONE)
    {
      const RspSegment *s = rsp_analysis_segment (f->a, seg);
      gboolean stretch_box = box->kind == RSP_FLAME_BOX_DISK || box->kind == RSP_FLAME_BOX_NETWORK;
      if (owner == RSP_NONE && level <= f->seg_base[seg] + f->seg_frames[seg] + (stretch_box ? 1 : 0))
        owner = seg;
      RspIdx child = s->n_children > 0 ? segment_at (f->a, NULL, s->first_child, s->n_children, t) : RSP_NONE;
      if (child == RSP_NONE)
        {
          hit->category = category_at (f, seg, t);
          break;
        }
      seg = child;
    }
  if (owner == RSP_NONE)
    owner = box->ref;
  const RspSegment *os = rsp_analysis_segment (f->a, owner);
  hit->segment = owner;
  hit->task = os->task;
  hit->path = os->path;
  hit->depth = level - f->seg_base[owner];
  const RspControlPath *path = rsp_analysis_path (f->a, os->path);
  hit->percent = path->total > 0 ? 100.0 * hit->ns / path->total : 0;
  return TRUE;
}
