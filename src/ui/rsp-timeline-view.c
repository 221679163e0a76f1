/* rsp-timeline-view.c — the process running view: geometry, drawing and
 * hit testing over a layout (rsp-timeline-layout.c).
 *
 * Speed (the bench recording has ~1.6M events and thousands of tasks): a
 * frame touches only the visible rows, and in each only the spans in range
 * (binary search).  It costs O(visible rows × pixel columns × log n) at
 * worst, whatever the zoom: a span narrower than a pixel stands for its
 * whole pixel column, drawn as opaque as the task was busy there (prefix
 * sums), and the walk jumps straight to the next column.  Boxes of one
 * colour are filled with one cairo_fill. */
#include "rsp-timeline-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "rsp-time-axis.h"

/* Typical character width in font sizes, to size the name column without
 * a cairo_t (hit testing has none). */
#define CHAR_WIDTH_EM 0.62
#define HATCH_STEP_PX 5.0 /* spacing of the hatching of inferred sleeps */
#define THREAD_INDENT_PX 12.0
#define NAME_PAD_PX 8.0
#define FOLD_MARK_PX 14.0 /* the fold mark before a multi-threaded process's name */
#define PLOT_RIGHT_PAD_PX 8.0
#define OPS_GAP_PX 6.0
/* Boxes are this much shorter than their row, top and bottom. */
#define BAR_INSET_PX 2.0
/* Things narrower than a pixel are found this far from the pointer. */
#define HIT_SLOP_PX 2.0
/* Arrowheads on links only when so few are drawn that they are told apart:
 * on average at least this far from each other. */
#define ARROW_SPACING_PX 12.0
/* Opacity of a pixel column by the share of it the task ran (quartiles):
 * the faintest level still shows that the task ran there at all. */
static const double run_level_alpha[] = { 0.38, 0.58, 0.8, 1.0 };
#define N_RUN_LEVELS G_N_ELEMENTS (run_level_alpha)

/* ------------------------------------------------------------------ geometry */

void
rsp_timeline_viewport_init (RspTimelineViewport *viewport, const RspTimelineLayout *layout, double width,
                            double height)
{
  memset (viewport, 0, sizeof *viewport);
  viewport->t0 = layout->start;
  viewport->t1 = layout->end;
  viewport->width = width;
  viewport->height = height;
  viewport->highlight_row = -1;
}

void
rsp_timeline_view_geometry (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                            const RspTheme *theme, RspTimelineGeometry *g)
{
  g->ruler_height = rsp_time_axis_height (theme);
  g->row_height = viewport->row_height > 0 ? viewport->row_height : theme->row_height;
  double name = ceil ((double) layout->max_label_chars * CHAR_WIDTH_EM * theme->font_size + THREAD_INDENT_PX
                      + 3 * NAME_PAD_PX);
  name = CLAMP (name, 9 * theme->font_size, 24 * theme->font_size);
  g->name_width = MIN (name, floor (viewport->width / 3));
  guint n_ops = layout->rows->len - layout->n_task_rows;
  g->ops_top = viewport->height - n_ops * g->row_height;
  g->rows_top = g->ruler_height;
  g->rows_bottom = n_ops > 0 ? g->ops_top - OPS_GAP_PX : viewport->height;
  g->plot_x = g->name_width;
  g->plot_width = MAX (1.0, viewport->width - g->name_width - PLOT_RIGHT_PAD_PX);
}

double
rsp_timeline_view_content_height (const RspTimelineLayout *layout, const RspTheme *theme)
{
  return layout->n_task_rows * theme->row_height;
}

double
rsp_timeline_view_fit_row_height (const RspTimelineLayout *layout, const RspTheme *theme, double height)
{
  guint n_ops = layout->rows->len - layout->n_task_rows;
  double area = height - rsp_time_axis_height (theme) - (n_ops > 0 ? OPS_GAP_PX : 0);
  if (layout->rows->len == 0 || area <= 0)
    return theme->row_height;
  double fit = floor (area / layout->rows->len);
  return CLAMP (fit, theme->row_height, floor (theme->row_height * 1.6));
}

static double
row_top (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTimelineGeometry *g, guint row)
{
  if (row < layout->n_task_rows)
    return g->rows_top + row * g->row_height - floor (vp->scroll_y);
  return g->ops_top + (row - layout->n_task_rows) * g->row_height;
}

double
rsp_timeline_view_row_y (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                         const RspTheme *theme, guint row)
{
  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, viewport, theme, &g);
  return row_top (layout, viewport, &g, row);
}

/* Task rows [*first, *last) intersect the task area. */
static void
visible_task_rows (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTimelineGeometry *g,
                   guint *first, guint *last)
{
  double scroll = MAX (0.0, floor (vp->scroll_y));
  double area = MAX (0.0, g->rows_bottom - g->rows_top);
  guint a = (guint) (scroll / g->row_height);
  guint b = (guint) ceil ((scroll + area) / g->row_height);
  *first = MIN (a, layout->n_task_rows);
  *last = MIN (b, layout->n_task_rows);
}

/* ------------------------------------------------------------------ drawing helpers */

typedef struct {
  double x, y, w, h;
} Rect;

/* Rectangles of one colour, filled with one cairo_fill. */
typedef struct {
  GArray *rects;
  RspColor color;
  double alpha;
} Batch;

/* Pixel columns of one colour in one row: contiguous ones become one rect. */
typedef struct {
  double x0, x1;
  gboolean open;
} OpenSpan;

static void
batch_add (Batch *b, double x, double y, double w, double h)
{
  Rect r = { x, y, w, h };
  g_array_append_val (b->rects, r);
}

static void
open_flush (OpenSpan *o, Batch *b, double y, double h)
{
  if (o->open)
    batch_add (b, o->x0, y, o->x1 - o->x0, h);
  o->open = FALSE;
}

static void
open_add (OpenSpan *o, Batch *b, double x0, double x1, double y, double h)
{
  if (o->open && x0 <= o->x1 && x1 >= o->x0)
    {
      o->x0 = MIN (o->x0, x0);
      o->x1 = MAX (o->x1, x1);
      return;
    }
  open_flush (o, b, y, h);
  o->x0 = x0;
  o->x1 = x1;
  o->open = TRUE;
}

static void
batch_fill (cairo_t *cr, const Batch *b)
{
  if (b->rects->len == 0)
    return;
  cairo_new_path (cr);
  for (guint i = 0; i < b->rects->len; i++)
    {
      const Rect *r = &g_array_index (b->rects, Rect, i);
      cairo_rectangle (cr, r->x, r->y, r->w, r->h);
    }
  cairo_set_source_rgba (cr, b->color.r, b->color.g, b->color.b, b->alpha);
  cairo_fill (cr);
}

static RspColor
mix (RspColor a, RspColor b, double t)
{
  RspColor c = { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t };
  return c;
}

/* The faint band behind every other process group, and the operation rows. */
static RspColor
band_color (const RspTheme *theme)
{
  return mix (theme->background, theme->foreground, theme->dark ? 0.05 : 0.035);
}

static void
set_color (cairo_t *cr, RspColor c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

enum {
  B_SLEEP,
  B_SLEEP_WAIT,
  B_RUN0, /* N_RUN_LEVELS batches: run columns by how busy */
  B_DISK_QUEUE = B_RUN0 + N_RUN_LEVELS,
  B_DISK,
  B_NET,
  N_BATCHES
};

typedef struct {
  RspIdx sleep;
  double x, y, w;
} SleepLabel;

/* Everything one frame needs, in one place. */
typedef struct {
  const RspTimelineLayout *layout;
  const RspTimelineViewport *vp;
  const RspTheme *theme;
  RspTimelineGeometry g;
  RspTimeAxis axis;
  double px_per_ns;
  Batch batches[N_BATCHES];
  GArray *labels; /* SleepLabel */
  GArray *hatch;  /* double[4] x, y, w, h: sleeps whose reason was inferred from their stack */
} Frame;

/* x relative to the plot's left edge, clamped well outside it so that huge
 * zooms do not overflow anything downstream. */
static double
rel_x (const Frame *f, guint64 t)
{
  double dt = t >= f->vp->t0 ? (double) (t - f->vp->t0) : -(double) (f->vp->t0 - t);
  return CLAMP (dt * f->px_per_ns, -4.0, f->g.plot_width + 4.0);
}

/* The time at the left edge of pixel column C (relative to the plot). */
static guint64
column_time (const Frame *f, double c)
{
  double t = (double) f->vp->t0 + c / f->px_per_ns;
  return t <= 0 ? 0 : (guint64) t;
}

static guint
run_level (double share)
{
  guint level = (guint) (share * N_RUN_LEVELS);
  return MIN (level, N_RUN_LEVELS - 1);
}

/* Runs of one row.  Runs a pixel or wider are drawn as they are (snapped to
 * pixels); a narrower one stands for its whole pixel column, drawn as opaque
 * as the task was busy there, and the walk jumps to the next column. */
static void
draw_row_runs (Frame *f, const Span *s, guint32 n, double y, double h)
{
  guint64 t0 = f->vp->t0, t1 = f->vp->t1;
  double x0 = f->g.plot_x;
  OpenSpan open[N_RUN_LEVELS] = { 0 };
  double next_free = -1e9; /* columns left of this are drawn */
  guint32 i = first_reaching (s, n, t0);
  while (i < n && s[i].start < t1)
    {
      double a = rel_x (f, s[i].start), b = rel_x (f, s[i].end);
      double xs = MAX (round (a), next_free), xe = round (b);
      if (xe - xs >= 1.0)
        {
          open_add (&open[N_RUN_LEVELS - 1], &f->batches[B_RUN0 + N_RUN_LEVELS - 1], x0 + xs, x0 + xe, y, h);
          next_free = xe;
          i++;
          continue;
        }
      if (b < next_free)
        {
          i++;
          continue;
        }
      double c = MAX (floor (a), next_free);
      c = MAX (c, 0.0);
      if (c >= f->g.plot_width)
        break;
      guint64 ct0 = MAX (column_time (f, c), t0), ct1 = column_time (f, c + 1);
      if (ct1 <= ct0)
        ct1 = ct0 + 1;
      guint64 busy = busy_until (s, n, ct1) - busy_until (s, n, ct0);
      guint level = run_level ((double) busy / (double) (ct1 - ct0));
      open_add (&open[level], &f->batches[B_RUN0 + level], x0 + c, x0 + c + 1, y, h);
      next_free = c + 1;
      guint32 j = first_starting (s, i + 1, n, ct1);
      /* a run that straddles the column's end continues in the next one */
      if (j > i + 1 && s[j - 1].end > ct1)
        j--;
      i = MAX (j, i + 1);
    }
  for (guint l = 0; l < N_RUN_LEVELS; l++)
    open_flush (&open[l], &f->batches[B_RUN0 + l], y, h);
}

/* Sleeps of one row: the blocked part in the sleep colour, the part after
 * the wake-up (waiting for a CPU) lighter; wide ones get their frame as a
 * label.  Narrow ones merge into pixel columns like runs. */
static void
draw_row_sleeps (Frame *f, const Span *s, guint32 n, double y, double h)
{
  guint64 t0 = f->vp->t0, t1 = f->vp->t1;
  double x0 = f->g.plot_x;
  OpenSpan blocked = { 0 }, waiting = { 0 };
  Batch *bb = &f->batches[B_SLEEP], *bw = &f->batches[B_SLEEP_WAIT];
  double next_free = -1e9;
  double min_label = f->theme->font_size * 2.5;
  guint32 i = first_reaching (s, n, t0);
  while (i < n && s[i].start < t1)
    {
      double a = rel_x (f, s[i].start), b = rel_x (f, s[i].end);
      double xs = MAX (round (a), next_free), xe = round (b);
      if (xe - xs >= 1.0)
        {
          double xm = CLAMP (round (rel_x (f, s[i].mid)), xs, xe);
          if (xm > xs)
            open_add (&blocked, bb, x0 + xs, x0 + xm, y, h);
          if (xe > xm)
            open_add (&waiting, bw, x0 + xm, x0 + xe, y, h);
          if (rsp_model_sleep (f->layout->model, s[i].item)->inferred)
            {
              double r[4] = { x0 + xs, y, xe - xs, h };
              g_array_append_vals (f->hatch, r, 4);
            }
          if (xe - xs >= min_label)
            {
              /* the label sits in the visible part of the box */
              double lx = MAX (xs, 0.0), rx = MIN (xe, f->g.plot_width);
              SleepLabel l = { s[i].item, x0 + lx, y, rx - lx };
              if (l.w >= min_label)
                g_array_append_val (f->labels, l);
            }
          next_free = xe;
          i++;
          continue;
        }
      if (b < next_free)
        {
          i++;
          continue;
        }
      double c = MAX (MAX (floor (a), next_free), 0.0);
      if (c >= f->g.plot_width)
        break;
      open_add (&blocked, bb, x0 + c, x0 + c + 1, y, h);
      next_free = c + 1;
      guint64 ct1 = column_time (f, c + 1);
      guint32 j = first_starting (s, i + 1, n, ct1);
      if (j > i + 1 && s[j - 1].end > ct1)
        j--;
      i = MAX (j, i + 1);
    }
  open_flush (&blocked, bb, y, h);
  open_flush (&waiting, bw, y, h);
}

/* Operations of one row (they overlap): the queued part lighter, the
 * serviced part in the row's colour.  Each is at least a pixel wide so that
 * a short request still shows. */
static void
draw_row_ops (Frame *f, RspTimelineRowKind kind, const Span *s, guint32 n, double y, double h)
{
  guint64 t0 = f->vp->t0, t1 = f->vp->t1;
  double x0 = f->g.plot_x;
  OpenSpan queued = { 0 }, served = { 0 };
  Batch *bq = &f->batches[B_DISK_QUEUE], *bs = &f->batches[kind == RSP_TIMELINE_ROW_DISK ? B_DISK : B_NET];
  double covered = -1e9; /* the serviced part is drawn up to here */
  for (guint32 i = first_reaching (s, n, t0); i < n && s[i].start < t1; i++)
    {
      double a = rel_x (f, s[i].start), m = rel_x (f, s[i].mid), b = rel_x (f, s[i].end);
      double xs = floor (a), xm = round (m), xe = MAX (round (b), xm + 1);
      if (xe <= covered && xs >= covered - 1)
        continue;
      if (xm - xs >= 1.0 && kind == RSP_TIMELINE_ROW_DISK)
        open_add (&queued, bq, x0 + xs, x0 + xm, y, h);
      open_add (&served, bs, x0 + xm, x0 + xe, y, h);
      covered = MAX (covered, xe);
    }
  open_flush (&queued, bq, y, h);
  open_flush (&served, bs, y, h);
}

/* Visible position of ROW among the rows drawn, top to bottom, or -1: used
 * to tell whether a link's ends are both on screen and to merge links that
 * cover the same gaps between rows in one pixel column. */
static gint
row_slot (const RspTimelineLayout *layout, guint first, guint last, guint row)
{
  if (row < layout->n_task_rows)
    return row >= first && row < last ? (gint) (row - first) : -1;
  return (gint) (last - first + (row - layout->n_task_rows));
}

/* Links between task rows are vertical lines at the wake-up's time, from
 * the waker's row to the woken row, with a head at the woken end when few
 * enough are drawn to tell them apart.  Links from disk and network
 * operations start on the pinned rows at the bottom, so a line would cross
 * every row in between: they are drawn as a small mark in the operation's
 * colour on top of the woken row instead. */
static void
draw_links (Frame *f, cairo_t *cr, guint first, guint last)
{
  const RspTimelineLayout *layout = f->layout;
  const LinkRef *links = (const LinkRef *) layout->links->data;
  guint n = layout->links->len;
  if (n == 0)
    return;
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (links[mid].time >= f->vp->t0)
        hi = mid;
      else
        lo = mid + 1;
    }
  /* Per pixel column, which gaps between visible rows a line already
   * covers, and which rows have a mark (128 slots; beyond that, no
   * merging). */
  guint n_cols = (guint) ceil (f->g.plot_width) + 1;
  g_autofree guint64 *covered = g_new0 (guint64, 2 * n_cols);
  g_autofree guint64 *marked = g_new0 (guint64, 2 * n_cols);
  const RspModel *m = layout->model;
  g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (double) * 3); /* x, y_from, y_to */
  g_autoptr (GArray) disk_marks = g_array_new (FALSE, FALSE, sizeof (double) * 2); /* x, row top */
  g_autoptr (GArray) net_marks = g_array_new (FALSE, FALSE, sizeof (double) * 2);
  GArray *marks[2] = { disk_marks, net_marks };
  double half = f->g.row_height / 2;
  for (guint i = lo; i < n && links[i].time <= f->vp->t1; i++)
    {
      gint sb = row_slot (layout, first, last, links[i].to_row);
      if (sb < 0)
        continue;
      double rx = floor (rel_x (f, links[i].time));
      if (rx < 0 || rx >= f->g.plot_width)
        continue;
      guint col = (guint) rx;
      double x = f->g.plot_x + rx + 0.5;
      double yb = row_top (layout, f->vp, &f->g, links[i].to_row);
      if (links[i].from_row >= layout->n_task_rows)
        {
          if (sb < 128)
            {
              guint64 bit = G_GUINT64_CONSTANT (1) << (sb % 64);
              if (marked[2 * col + sb / 64] & bit)
                continue;
              marked[2 * col + sb / 64] |= bit;
            }
          RspLinkKind kind = rsp_model_link (m, links[i].link)->kind;
          double mark[2] = { x, yb };
          g_array_append_val (marks[kind == RSP_LINK_NETWORK ? 1 : 0], mark);
          continue;
        }
      gint sa = row_slot (layout, first, last, links[i].from_row);
      if (sa < 0)
        continue;
      gint lo_slot = MIN (sa, sb), hi_slot = MAX (sa, sb);
      if (hi_slot <= 128)
        {
          guint64 mask[2] = { 0, 0 };
          for (gint k = lo_slot; k < hi_slot; k++)
            mask[k / 64] |= G_GUINT64_CONSTANT (1) << (k % 64);
          guint64 *c = &covered[2 * col];
          if ((c[0] & mask[0]) == mask[0] && (c[1] & mask[1]) == mask[1])
            continue;
          c[0] |= mask[0];
          c[1] |= mask[1];
        }
      double seg[3] = { x, row_top (layout, f->vp, &f->g, links[i].from_row) + half, yb + half };
      g_array_append_val (lines, seg);
    }

  const RspColor link = f->theme->link;
  cairo_set_line_width (cr, 1.0);
  if (lines->len > 0)
    {
      cairo_new_path (cr);
      for (guint i = 0; i < lines->len; i++)
        {
          const double *seg = (const double *) lines->data + 3 * i;
          cairo_move_to (cr, seg[0], seg[1]);
          cairo_line_to (cr, seg[0], seg[2]);
        }
      cairo_set_source_rgba (cr, link.r, link.g, link.b, 0.55);
      cairo_stroke (cr);
    }
  if (lines->len > 0 && lines->len * ARROW_SPACING_PX <= f->g.plot_width)
    {
      /* a head at the woken end, touching its bar, and a dot on the waker */
      double tip_off = half - BAR_INSET_PX;
      cairo_new_path (cr);
      for (guint i = 0; i < lines->len; i++)
        {
          const double *seg = (const double *) lines->data + 3 * i;
          double dir = seg[2] > seg[1] ? 1 : -1;
          double tip = seg[2] - dir * tip_off;
          cairo_move_to (cr, seg[0], tip);
          cairo_line_to (cr, seg[0] - 3, tip - dir * 5);
          cairo_line_to (cr, seg[0] + 3, tip - dir * 5);
          cairo_close_path (cr);
          cairo_new_sub_path (cr);
          cairo_arc (cr, seg[0], seg[1], 1.8, 0, 2 * G_PI);
        }
      cairo_set_source_rgba (cr, link.r, link.g, link.b, 0.85);
      cairo_fill (cr);
    }
  const RspColor mark_colors[2] = { f->theme->disk, f->theme->network };
  for (guint k = 0; k < 2; k++)
    {
      if (marks[k]->len == 0)
        continue;
      cairo_new_path (cr);
      for (guint i = 0; i < marks[k]->len; i++)
        {
          const double *mk = (const double *) marks[k]->data + 2 * i;
          /* a small downward triangle in the row's top margin */
          cairo_move_to (cr, mk[0] - 3.5, mk[1]);
          cairo_line_to (cr, mk[0] + 3.5, mk[1]);
          cairo_line_to (cr, mk[0], mk[1] + BAR_INSET_PX + 4);
          cairo_close_path (cr);
        }
      RspColor c = mark_colors[k];
      cairo_set_source_rgb (cr, c.r, c.g, c.b);
      cairo_fill (cr);
    }
}

static PangoLayout *
make_text_layout (cairo_t *cr, const RspTheme *theme, double size, gboolean bold)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (pl, font);
  pango_font_description_free (font);
  return pl;
}

typedef struct {
  PangoLayout *layout;
  int width, height;
} CachedText;

static void
cached_text_free (gpointer data)
{
  CachedText *c = data;
  g_object_unref (c->layout);
  g_free (c);
}

/* A frame as a box label: glibc's internal aliases ("__GI___wait4") and
 * leading underscores say nothing in a box a few characters wide. */
static const char *
label_text (const char *frame)
{
  if (g_str_has_prefix (frame, "__GI_"))
    frame += 5;
  while (frame[0] == '_' && frame[1] != '\0')
    frame++;
  return frame;
}

/* Sleep labels: the describing frame, whole where it fits, else ellipsized
 * where at least a few characters fit.  Frames are interned, so one shaped
 * layout per distinct frame serves the whole frame. */
/* Sleeps explained by inference (no wake-up was recorded; their own stack
 * decided) are hatched over their colour, as in the flame view. */
static void
draw_inferred_hatch (Frame *f, cairo_t *cr)
{
  const double *r = (const double *) f->hatch->data;
  if (f->hatch->len == 0)
    return;
  cairo_save (cr);
  for (guint i = 0; i + 3 < f->hatch->len; i += 4)
    cairo_rectangle (cr, r[i], r[i + 1], r[i + 2], r[i + 3]);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.35);
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i + 3 < f->hatch->len; i += 4)
    for (double x = r[i] - r[i + 3]; x < r[i] + r[i + 2]; x += HATCH_STEP_PX)
      {
        cairo_move_to (cr, x, r[i + 1] + r[i + 3]);
        cairo_line_to (cr, x + r[i + 3], r[i + 1]);
      }
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_sleep_labels (Frame *f, cairo_t *cr)
{
  if (f->labels->len == 0)
    return;
  const RspModel *m = f->layout->model;
  double size = f->theme->font_size - 1;
  g_autoptr (GHashTable) cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, cached_text_free);
  g_autoptr (PangoLayout) scratch = make_text_layout (cr, f->theme, size, FALSE);
  pango_layout_set_ellipsize (scratch, PANGO_ELLIPSIZE_END);
  cairo_set_source_rgb (cr, 1, 1, 1);
  for (guint i = 0; i < f->labels->len; i++)
    {
      const SleepLabel *l = &g_array_index (f->labels, SleepLabel, i);
      const char *frame = rsp_model_sleep_frame (m, l->sleep);
      if (frame == NULL)
        continue;
      CachedText *c = g_hash_table_lookup (cache, frame);
      if (c == NULL)
        {
          c = g_new0 (CachedText, 1);
          c->layout = make_text_layout (cr, f->theme, size, FALSE);
          pango_layout_set_text (c->layout, label_text (frame), -1);
          pango_layout_get_pixel_size (c->layout, &c->width, &c->height);
          g_hash_table_insert (cache, (gpointer) frame, c);
        }
      double avail = l->w - 8;
      PangoLayout *pl = c->layout;
      if (c->width > avail)
        {
          if (avail < 5 * size)
            continue;
          pango_layout_set_text (scratch, label_text (frame), -1);
          pango_layout_set_width (scratch, (int) (avail * PANGO_SCALE));
          pl = scratch;
        }
      cairo_move_to (cr, l->x + 4, l->y + (f->g.row_height - c->height) / 2.0);
      pango_cairo_show_layout (cr, pl);
    }
}

static void
draw_names (Frame *f, cairo_t *cr, guint first, guint last)
{
  const RspTimelineLayout *layout = f->layout;
  const RspModel *m = layout->model;
  const RspTheme *theme = f->theme;
  g_autoptr (PangoLayout) plain = make_text_layout (cr, theme, theme->font_size, FALSE);
  g_autoptr (PangoLayout) bold = make_text_layout (cr, theme, theme->font_size, TRUE);
  g_autoptr (PangoLayout) small = make_text_layout (cr, theme, theme->font_size - 1, FALSE);
  pango_layout_set_ellipsize (plain, PANGO_ELLIPSIZE_END);
  pango_layout_set_ellipsize (bold, PANGO_ELLIPSIZE_END);
  double right = f->g.name_width - NAME_PAD_PX;
  for (guint r = first; r < last; r++)
    {
      const RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, r);
      double y = row_top (layout, f->vp, &f->g, r);
      char id[32];
      const char *name;
      gboolean is_thread = FALSE, is_target = FALSE, muted = TRUE;
      if (row->kind == RSP_TIMELINE_ROW_TASK)
        {
          const RspTask *task = rsp_model_task (m, row->task);
          name = task->comm != NULL ? task->comm : _("(unnamed)");
          if (row->folded)
            /* TRANSLATORS: the id column of a folded process's row: its pid and how many threads it has */
            g_snprintf (id, sizeof id, _("%d ×%u"), task->pid, row->threads);
          else
            g_snprintf (id, sizeof id, "%d", task->tid);
          is_thread = task->tid != task->pid && !row->folded;
          if (row->threads > 1 && (row->folded || row->first_in_group))
            {
              /* the fold mark: a triangle pointing right (folded) or down */
              double cx = NAME_PAD_PX + FOLD_MARK_PX / 2 - 2, cy = y + f->g.row_height / 2.0, a = 4;
              set_color (cr, theme->muted);
              if (row->folded)
                {
                  cairo_move_to (cr, cx - a / 2, cy - a);
                  cairo_line_to (cr, cx + a, cy);
                  cairo_line_to (cr, cx - a / 2, cy + a);
                }
              else
                {
                  cairo_move_to (cr, cx - a, cy - a / 2);
                  cairo_line_to (cr, cx + a, cy - a / 2);
                  cairo_line_to (cr, cx, cy + a);
                }
              cairo_close_path (cr);
              cairo_fill (cr);
            }
          is_target = layout->options.pid > 0 && task->pid == layout->options.pid;
          muted = task->comm == NULL;
        }
      else if (row->kind == RSP_TIMELINE_ROW_DISK)
        {
          name = _("disk");
          g_snprintf (id, sizeof id, "%u:%u", row->dev >> 20, row->dev & 0xfffff);
        }
      else
        {
          name = _("network");
          id[0] = '\0';
        }
      /* the id right-aligned and muted, a column of its own */
      int iw = 0, ih = 0;
      if (id[0] != '\0')
        {
          pango_layout_set_text (small, id, -1);
          pango_layout_get_pixel_size (small, &iw, &ih);
          set_color (cr, theme->muted);
          cairo_move_to (cr, right - iw, y + (f->g.row_height - ih) / 2.0);
          pango_cairo_show_layout (cr, small);
        }
      double left = NAME_PAD_PX + (is_thread ? THREAD_INDENT_PX : 0)
                    + (row->kind == RSP_TIMELINE_ROW_TASK && row->threads > 1 ? FOLD_MARK_PX : 0);
      PangoLayout *pl = is_target ? bold : plain;
      pango_layout_set_text (pl, name, -1);
      pango_layout_set_width (pl, (int) (MAX (8.0, right - iw - 6 - left) * PANGO_SCALE));
      int nw, nh;
      pango_layout_get_pixel_size (pl, &nw, &nh);
      set_color (cr, muted ? theme->muted : theme->foreground);
      cairo_move_to (cr, left, y + (f->g.row_height - nh) / 2.0);
      pango_cairo_show_layout (cr, pl);
    }
}

/* Row backgrounds: alternate process groups get a faint band so that the
 * threads of one process read as a unit; a line above each process. */
static void
draw_row_backgrounds (Frame *f, cairo_t *cr, guint first, guint last)
{
  const RspTimelineLayout *layout = f->layout;
  const RspTheme *theme = f->theme;
  set_color (cr, band_color (theme));
  for (guint r = first; r < last; r++)
    {
      const RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, r);
      if (row->group % 2 == 1)
        cairo_rectangle (cr, 0, row_top (layout, f->vp, &f->g, r), f->vp->width, f->g.row_height);
    }
  cairo_fill (cr);
  if (f->vp->n_marked_rows > 0)
    {
      cairo_set_source_rgba (cr, theme->highlight.r, theme->highlight.g, theme->highlight.b, 0.12);
      for (guint i = 0; i < f->vp->n_marked_rows; i++)
        if (f->vp->marked_rows[i] >= first && f->vp->marked_rows[i] < last)
          cairo_rectangle (cr, 0, row_top (layout, f->vp, &f->g, f->vp->marked_rows[i]), f->vp->width,
                           f->g.row_height);
      cairo_fill (cr);
    }
  if (f->vp->highlight_row >= 0 && (guint) f->vp->highlight_row >= first && (guint) f->vp->highlight_row < last)
    {
      cairo_set_source_rgba (cr, theme->highlight.r, theme->highlight.g, theme->highlight.b, 0.25);
      cairo_rectangle (cr, 0, row_top (layout, f->vp, &f->g, (guint) f->vp->highlight_row), f->vp->width,
                       f->g.row_height);
      cairo_fill (cr);
    }
}

static void
draw_group_lines (Frame *f, cairo_t *cr, guint first, guint last)
{
  const RspTimelineLayout *layout = f->layout;
  set_color (cr, f->theme->grid);
  cairo_set_line_width (cr, 1.0);
  for (guint r = MAX (first, 1); r < last; r++)
    {
      const RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, r);
      if (!row->first_in_group)
        continue;
      double y = row_top (layout, f->vp, &f->g, r) + 0.5;
      cairo_move_to (cr, 0, y);
      cairo_line_to (cr, f->vp->width, y);
    }
  cairo_stroke (cr);
}

/* Fills the batches with the spans of rows [first, last). */
static void
collect_rows (Frame *f, guint first, guint last)
{
  const RspTimelineLayout *layout = f->layout;
  const Span *runs = (const Span *) layout->spans->data;
  const Span *sleeps = (const Span *) layout->sleep_spans->data;
  double h = f->g.row_height - 2 * BAR_INSET_PX;
  for (guint r = first; r < last; r++)
    {
      const RspTimelineRow *row = &g_array_index (layout->rows, RspTimelineRow, r);
      const RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, r);
      double y = row_top (layout, f->vp, &f->g, r) + BAR_INSET_PX;
      if (row->kind == RSP_TIMELINE_ROW_TASK)
        {
          if (rs->sleeps_n > 0)
            draw_row_sleeps (f, sleeps + rs->sleeps_first, rs->sleeps_n, y, h);
          draw_row_runs (f, runs + rs->first, rs->n, y, h);
        }
      else
        draw_row_ops (f, row->kind, runs + rs->first, rs->n, y, h);
    }
}

static void
draw_header (Frame *f, cairo_t *cr)
{
  const RspTimelineLayout *layout = f->layout;
  char text[96];
  if (layout->n_hidden > 0)
    g_snprintf (text, sizeof text,
                ngettext ("%u of %u task", "%u of %u tasks", layout->n_task_rows + layout->n_hidden),
                layout->n_task_rows, layout->n_task_rows + layout->n_hidden);
  else
    g_snprintf (text, sizeof text, ngettext ("%u task", "%u tasks", layout->n_task_rows), layout->n_task_rows);
  g_autoptr (PangoLayout) pl = make_text_layout (cr, f->theme, f->theme->font_size - 1, FALSE);
  pango_layout_set_text (pl, text, -1);
  pango_layout_set_width (pl, (int) ((f->g.name_width - 2 * NAME_PAD_PX) * PANGO_SCALE));
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  int w, h;
  pango_layout_get_pixel_size (pl, &w, &h);
  set_color (cr, f->theme->muted);
  cairo_move_to (cr, NAME_PAD_PX, (f->g.ruler_height - h) / 2.0 - 1);
  pango_cairo_show_layout (cr, pl);
  set_color (cr, f->theme->grid);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, 0, f->g.ruler_height - 0.5);
  cairo_line_to (cr, f->g.name_width, f->g.ruler_height - 0.5);
  cairo_stroke (cr);
}

void
rsp_timeline_view_draw (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                        const RspTheme *theme, cairo_t *cr)
{
  g_return_if_fail (layout != NULL && viewport != NULL && theme != NULL && cr != NULL);
  Frame f = { 0 };
  f.layout = layout;
  f.vp = viewport;
  f.theme = theme;
  rsp_timeline_view_geometry (layout, viewport, theme, &f.g);
  guint64 t0 = viewport->t0, t1 = MAX (viewport->t1, viewport->t0 + 1);
  rsp_time_axis_init (&f.axis, rsp_model_start_time (layout->model), t0, t1, f.g.plot_x, f.g.plot_width, theme);
  f.px_per_ns = f.g.plot_width / (double) (t1 - t0);
  RspTimelineViewport vp = *viewport;
  vp.t1 = t1;
  f.vp = &vp;

  RspColor colors[N_BATCHES];
  double alphas[N_BATCHES];
  for (guint b = 0; b < N_BATCHES; b++)
    alphas[b] = 1.0;
  colors[B_SLEEP] = theme->sleep;
  colors[B_SLEEP_WAIT] = theme->waiting;
  for (guint l = 0; l < N_RUN_LEVELS; l++)
    {
      colors[B_RUN0 + l] = theme->run;
      alphas[B_RUN0 + l] = run_level_alpha[l];
    }
  colors[B_DISK_QUEUE] = theme->disk_queue;
  colors[B_DISK] = theme->disk;
  colors[B_NET] = theme->network;
  for (guint b = 0; b < N_BATCHES; b++)
    f.batches[b] = (Batch) { g_array_new (FALSE, FALSE, sizeof (Rect)), colors[b], alphas[b] };
  f.labels = g_array_new (FALSE, FALSE, sizeof (SleepLabel));
  f.hatch = g_array_new (FALSE, FALSE, sizeof (double));

  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  set_color (cr, theme->background);
  cairo_rectangle (cr, 0, 0, viewport->width, viewport->height);
  cairo_fill (cr);

  guint first, last;
  visible_task_rows (layout, &vp, &f.g, &first, &last);
  guint n_rows = layout->rows->len;

  /* task rows, clipped to their area */
  cairo_save (cr);
  cairo_rectangle (cr, 0, f.g.rows_top, viewport->width, MAX (0.0, f.g.rows_bottom - f.g.rows_top));
  cairo_clip (cr);
  draw_row_backgrounds (&f, cr, first, last);
  rsp_time_axis_draw_grid (&f.axis, theme, cr, f.g.rows_top, f.g.rows_bottom);
  draw_group_lines (&f, cr, first, last);
  draw_names (&f, cr, first, last);
  cairo_restore (cr);

  /* operation rows, pinned at the bottom */
  if (n_rows > layout->n_task_rows)
    {
      set_color (cr, band_color (theme));
      cairo_rectangle (cr, 0, f.g.ops_top - OPS_GAP_PX, viewport->width, viewport->height - f.g.ops_top + OPS_GAP_PX);
      cairo_fill (cr);
      set_color (cr, theme->grid);
      cairo_set_line_width (cr, 1.0);
      cairo_move_to (cr, 0, f.g.ops_top - OPS_GAP_PX + 0.5);
      cairo_line_to (cr, viewport->width, f.g.ops_top - OPS_GAP_PX + 0.5);
      cairo_stroke (cr);
      draw_names (&f, cr, layout->n_task_rows, n_rows);
    }

  /* everything on the time axis, clipped to the plot */
  cairo_save (cr);
  cairo_rectangle (cr, f.g.plot_x, f.g.rows_top, f.g.plot_width, viewport->height - f.g.rows_top);
  cairo_clip (cr);
  cairo_save (cr);
  cairo_rectangle (cr, f.g.plot_x, f.g.rows_top, f.g.plot_width, MAX (0.0, f.g.rows_bottom - f.g.rows_top));
  cairo_rectangle (cr, f.g.plot_x, f.g.ops_top, f.g.plot_width, viewport->height - f.g.ops_top);
  cairo_clip (cr);
  collect_rows (&f, first, last);
  collect_rows (&f, layout->n_task_rows, n_rows);
  /* the boxes are pixel-aligned: no antialiasing keeps them crisp and lets
   * cairo take its fast path for rectangles */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint b = 0; b < N_BATCHES; b++)
    batch_fill (cr, &f.batches[b]);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  draw_inferred_hatch (&f, cr);
  draw_sleep_labels (&f, cr);
  cairo_restore (cr);
  if (layout->options.show_links)
    draw_links (&f, cr, first, last);
  if (viewport->select_t1 > viewport->select_t0)
    {
      double sx0 = rsp_time_axis_x (&f.axis, viewport->select_t0), sx1 = rsp_time_axis_x (&f.axis, viewport->select_t1);
      cairo_set_source_rgba (cr, theme->selection.r, theme->selection.g, theme->selection.b, 0.18);
      cairo_rectangle (cr, sx0, f.g.rows_top, sx1 - sx0, viewport->height - f.g.rows_top);
      cairo_fill (cr);
    }
  cairo_restore (cr);

  /* the ruler and the column edge */
  rsp_time_axis_draw (&f.axis, theme, cr, 0, f.g.ruler_height);
  draw_header (&f, cr);
  set_color (cr, theme->grid);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, f.g.name_width - 0.5, 0);
  cairo_line_to (cr, f.g.name_width - 0.5, viewport->height);
  cairo_stroke (cr);
  cairo_restore (cr);

  for (guint b = 0; b < N_BATCHES; b++)
    g_array_unref (f.batches[b].rects);
  g_array_unref (f.labels);
  g_array_unref (f.hatch);
}

/* ------------------------------------------------------------------ hit testing */

/* The span of S[0, n) containing T, else the nearest one within SLOP, else
 * RSP_NONE.  Among overlapping spans, the shortest (the most specific). */
static guint32
span_at (const Span *s, guint32 n, guint64 t, guint64 slop)
{
  guint64 lo_t = t > slop ? t - slop : 0;
  guint32 best = G_MAXUINT32;
  guint64 best_dist = G_MAXUINT64, best_len = G_MAXUINT64;
  for (guint32 i = first_reaching (s, n, lo_t); i < n && s[i].start <= t + slop; i++)
    {
      guint64 dist = t < s[i].start ? s[i].start - t : t > s[i].end ? t - s[i].end : 0;
      if (dist > slop)
        continue;
      guint64 len = s[i].end - s[i].start;
      if (dist < best_dist || (dist == best_dist && len < best_len))
        {
          best = i;
          best_dist = dist;
          best_len = len;
        }
    }
  return best;
}

static gboolean
hit_link (const RspTimelineLayout *layout, const RspTimelineViewport *vp, const RspTimelineGeometry *g,
          const RspTimeAxis *axis, double x, double y, RspTimelineHit *hit)
{
  const LinkRef *links = (const LinkRef *) layout->links->data;
  guint n = layout->links->len;
  guint64 slop = (guint64) (HIT_SLOP_PX * rsp_time_axis_ns_per_px (axis)) + 1;
  guint64 t = hit->time, lo_t = t > slop ? t - slop : 0;
  guint lo = 0, hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (links[mid].time >= lo_t)
        hi = mid;
      else
        lo = mid + 1;
    }
  guint first, last;
  visible_task_rows (layout, vp, g, &first, &last);
  double best = HIT_SLOP_PX + 0.5;
  gboolean found = FALSE;
  for (guint i = lo; i < n && links[i].time <= t + slop; i++)
    {
      if (row_slot (layout, first, last, links[i].from_row) < 0 || row_slot (layout, first, last, links[i].to_row) < 0)
        continue;
      double ya = row_top (layout, vp, g, links[i].from_row) + g->row_height / 2;
      double yb = row_top (layout, vp, g, links[i].to_row) + g->row_height / 2;
      if (y < MIN (ya, yb) || y > MAX (ya, yb))
        continue;
      double lx = floor (rsp_time_axis_x (axis, links[i].time)) + 0.5;
      double d = fabs (lx - x);
      if (d < best)
        {
          best = d;
          hit->kind = RSP_TIMELINE_HIT_LINK;
          hit->item = links[i].link;
          found = TRUE;
        }
    }
  return found;
}

gboolean
rsp_timeline_view_hit_test (const RspTimelineLayout *layout, const RspTimelineViewport *viewport,
                            const RspTheme *theme, double x, double y, RspTimelineHit *hit)
{
  g_return_val_if_fail (layout != NULL && viewport != NULL && theme != NULL && hit != NULL, FALSE);
  memset (hit, 0, sizeof *hit);
  hit->kind = RSP_TIMELINE_HIT_NONE;
  hit->row = -1;
  hit->task = RSP_NONE;
  hit->item = RSP_NONE;
  if (x < 0 || y < 0 || x >= viewport->width || y >= viewport->height)
    return FALSE;

  RspTimelineGeometry g;
  rsp_timeline_view_geometry (layout, viewport, theme, &g);
  RspTimeAxis axis;
  rsp_time_axis_init (&axis, rsp_model_start_time (layout->model), viewport->t0,
                      MAX (viewport->t1, viewport->t0 + 1), g.plot_x, g.plot_width, theme);
  gboolean in_plot = x >= g.plot_x && x < g.plot_x + g.plot_width;
  if (in_plot)
    hit->time = rsp_time_axis_time (&axis, x);

  if (y < g.ruler_height)
    {
      hit->kind = in_plot ? RSP_TIMELINE_HIT_RULER : RSP_TIMELINE_HIT_NONE;
      return in_plot;
    }
  guint n_ops = layout->rows->len - layout->n_task_rows;
  gint row = -1;
  if (n_ops > 0 && y >= g.ops_top)
    row = (gint) layout->n_task_rows + (gint) ((y - g.ops_top) / g.row_height);
  else if (y >= g.rows_top && y < g.rows_bottom)
    {
      double content_y = y - g.rows_top + floor (MAX (0.0, viewport->scroll_y));
      guint r = (guint) (content_y / g.row_height);
      if (r < layout->n_task_rows)
        row = (gint) r;
    }
  if (row < 0 || (guint) row >= layout->rows->len)
    return FALSE;
  const RspTimelineRow *r = &g_array_index (layout->rows, RspTimelineRow, row);
  const RowSpans *rs = &g_array_index (layout->row_spans, RowSpans, row);
  hit->row = row;
  hit->task = r->task;
  if (x < g.plot_x)
    {
      hit->kind = r->kind == RSP_TIMELINE_ROW_TASK && r->threads > 1 && (r->folded || r->first_in_group)
                          && x < NAME_PAD_PX + FOLD_MARK_PX
                      ? RSP_TIMELINE_HIT_FOLD
                      : RSP_TIMELINE_HIT_NAME;
      return TRUE;
    }
  if (!in_plot)
    return FALSE;

  const Span *spans = (const Span *) layout->spans->data + rs->first;
  guint64 slop = (guint64) (HIT_SLOP_PX * rsp_time_axis_ns_per_px (&axis));
  hit->kind = RSP_TIMELINE_HIT_ROW;
  if (r->kind != RSP_TIMELINE_ROW_TASK)
    {
      guint32 i = span_at (spans, rs->n, hit->time, slop);
      if (i != G_MAXUINT32)
        {
          hit->kind = r->kind == RSP_TIMELINE_ROW_DISK ? RSP_TIMELINE_HIT_DISK_OP : RSP_TIMELINE_HIT_NET_OP;
          hit->item = spans[i].item;
        }
      else if (layout->options.show_links)
        hit_link (layout, viewport, &g, &axis, x, y, hit);
      return TRUE;
    }
  /* A run right under the point wins; then a link line; then a run within
   * reach (narrow ones are drawn a pixel wide); then the sleep. */
  guint32 i = span_at (spans, rs->n, hit->time, 0);
  if (i != G_MAXUINT32)
    {
      hit->kind = RSP_TIMELINE_HIT_RUN;
      hit->item = spans[i].item;
      return TRUE;
    }
  if (layout->options.show_links && hit_link (layout, viewport, &g, &axis, x, y, hit))
    return TRUE;
  i = span_at (spans, rs->n, hit->time, slop);
  if (i != G_MAXUINT32)
    {
      hit->kind = RSP_TIMELINE_HIT_RUN;
      hit->item = spans[i].item;
      return TRUE;
    }
  if (rs->sleeps_n > 0)
    {
      const Span *sleeps = (const Span *) layout->sleep_spans->data + rs->sleeps_first;
      i = span_at (sleeps, rs->sleeps_n, hit->time, slop);
      if (i != G_MAXUINT32)
        {
          hit->kind = RSP_TIMELINE_HIT_SLEEP;
          hit->item = sleeps[i].item;
        }
    }
  return TRUE;
}
