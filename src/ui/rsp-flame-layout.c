/* rsp-flame-layout.c — rows of boxes: packing, drawing, hit testing and
 * labels, for both flame views (see the header for the coordinates). */
#include "rsp-flame-layout.h"

#include <glib/gi18n-lib.h>
#include "rsp-kernel-sigs.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

/* Labels need room for a few characters to say anything. */
#define LABEL_PAD 4.0
#define LABEL_MIN_CHARS 3.0
/* A box this many device px wide or more gets a one-px seam on its right,
 * so that neighbours read as separate boxes. */
#define SEAM_MIN_DEVICE_PX 4.0
#define HATCH_STEP_PX 5.0 /* spacing of the hatching of inferred boxes */
/* How much the highlight fades what does not match. */
#define FADE 0.72

RspFlameLayout *
rsp_flame_layout_new (const RspTheme *theme)
{
  RspFlameLayout *l = g_new0 (RspFlameLayout, 1);
  l->boxes = g_array_new (FALSE, FALSE, sizeof (RspFlameBox));
  l->row_first = g_array_new (FALSE, FALSE, sizeof (guint32));
  l->row_y = g_array_new (FALSE, FALSE, sizeof (double));
  l->row_height = theme->row_height;
  l->scale = theme->scale;
  l->label_widths = g_hash_table_new (g_str_hash, g_str_equal);
  l->font = pango_font_description_from_string (theme->font);
  pango_font_description_set_absolute_size (l->font, theme->font_size * PANGO_SCALE);
  l->measure = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  guint32 zero = 0;
  g_array_append_val (l->row_first, zero);
  return l;
}

void
rsp_flame_layout_free (RspFlameLayout *l)
{
  if (l == NULL)
    return;
  if (l->view_data_free != NULL)
    l->view_data_free (l->view_data);
  g_array_unref (l->boxes);
  g_array_unref (l->row_first);
  g_array_unref (l->row_y);
  g_hash_table_unref (l->label_widths);
  pango_font_description_free (l->font);
  g_object_unref (l->measure);
  g_free (l);
}

void
rsp_flame_layout_add_row (RspFlameLayout *l, double y, const RspFlameBox *boxes, guint n_boxes)
{
  guint row = l->row_y->len;
  guint32 below = row > 0 ? g_array_index (l->row_first, guint32, row - 1) : 0;
  guint32 first = l->boxes->len;
  g_array_append_vals (l->boxes, boxes, n_boxes);
  RspFlameBox *b = &g_array_index (l->boxes, RspFlameBox, first);
  for (guint i = 0; i < n_boxes; i++)
    {
      b[i].row = row;
      if (b[i].parent != RSP_FLAME_NO_BOX)
        b[i].parent += below;
    }
  g_array_append_val (l->row_y, y);
  guint32 end = l->boxes->len;
  g_array_append_val (l->row_first, end);
  l->content_height = MAX (l->content_height, y + l->row_height);
}

guint
rsp_flame_layout_n_rows (const RspFlameLayout *l)
{
  return l->row_y->len;
}

const RspFlameBox *
rsp_flame_layout_row (const RspFlameLayout *l, guint row, guint *n_boxes)
{
  g_return_val_if_fail (row < l->row_y->len, NULL);
  guint32 first = g_array_index (l->row_first, guint32, row);
  guint32 last = g_array_index (l->row_first, guint32, row + 1);
  *n_boxes = last - first;
  return &g_array_index (l->boxes, RspFlameBox, first);
}

const RspFlameBox *
rsp_flame_layout_box (const RspFlameLayout *l, guint32 box)
{
  g_return_val_if_fail (box < l->boxes->len, NULL);
  return &g_array_index (l->boxes, RspFlameBox, box);
}

double
rsp_flame_layout_content_height (const RspFlameLayout *l)
{
  return l->content_height;
}

/* First box of the row [FIRST, LAST) whose end is after T: boxes of a row
 * do not overlap, so their ends are sorted like their starts. */
static guint32
first_ending_after (const RspFlameLayout *l, guint32 first, guint32 last, guint64 t)
{
  const RspFlameBox *b = (const RspFlameBox *) l->boxes->data;
  while (first < last)
    {
      guint32 mid = first + (last - first) / 2;
      if (b[mid].end <= t)
        first = mid + 1;
      else
        last = mid;
    }
  return first;
}

/* The same, searching forward from FROM: the box wanted is usually close,
 * so gallop first (few cache lines touched), then bisect. */
static guint32
next_ending_after (const RspFlameLayout *l, guint32 from, guint32 last, guint64 t)
{
  const RspFlameBox *b = (const RspFlameBox *) l->boxes->data;
  if (from >= last)
    return last;
  guint32 lo = from, step = 1;
  while (lo + step < last && b[lo + step].end <= t)
    {
      lo += step;
      step *= 2;
    }
  if (b[lo].end > t)
    return lo;
  return first_ending_after (l, lo + 1, MIN (lo + step + 1, last), t);
}

guint32
rsp_flame_layout_find (const RspFlameLayout *l, guint row, guint64 t, guint64 slop)
{
  if (row >= l->row_y->len)
    return RSP_FLAME_NO_BOX;
  guint32 first = g_array_index (l->row_first, guint32, row);
  guint32 last = g_array_index (l->row_first, guint32, row + 1);
  const RspFlameBox *b = (const RspFlameBox *) l->boxes->data;
  guint32 i = first_ending_after (l, first, last, t);
  if (i < last && b[i].start <= t)
    return i;
  /* between boxes: the nearer neighbour, if close enough to be meant */
  guint64 best_d = G_MAXUINT64;
  guint32 best = RSP_FLAME_NO_BOX;
  if (i < last && b[i].start - t <= slop)
    best_d = b[i].start - t, best = i;
  if (i > first && t - b[i - 1].end < best_d && t - b[i - 1].end <= slop)
    best = i - 1;
  return best;
}

gint
rsp_flame_layout_row_at (const RspFlameLayout *l, double content_y)
{
  const double *ry = (const double *) l->row_y->data;
  guint lo = 0, hi = l->row_y->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (ry[mid] + l->row_height <= content_y)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < l->row_y->len && ry[lo] <= content_y)
    return (gint) lo;
  return -1;
}

/* Screen y of content y CY (its bottom edge in content terms). */
static double
screen_y (const RspFlameViewport *vp, double cy)
{
  return vp->bottom - (cy - vp->scroll_y);
}

double
rsp_flame_layout_row_top (const RspFlameLayout *l, const RspFlameViewport *vp, guint row)
{
  return screen_y (vp, g_array_index (l->row_y, double, row) + l->row_height);
}

static double
axis_x (const RspFlameViewport *vp, guint64 t)
{
  return vp->left + (double) (gint64) (t - vp->t0) / vp->ns_per_px;
}

/* The axis value at device column D (clamped at 0). */
static guint64
device_time (const RspFlameViewport *vp, double s, double d)
{
  double dt = (d / s - vp->left) * vp->ns_per_px;
  if (dt >= 0)
    return vp->t0 + (guint64) dt;
  return (guint64) -dt >= vp->t0 ? 0 : vp->t0 - (guint64) -dt;
}

void
rsp_flame_layout_box_rect (const RspFlameLayout *l, const RspFlameViewport *vp, const RspFlameBox *box, double *x,
                           double *y, double *width, double *height)
{
  double x0 = MAX (axis_x (vp, box->start), vp->left);
  double x1 = MIN (axis_x (vp, box->end), vp->left + vp->width);
  *x = x0;
  *width = MAX (x1 - x0, 0);
  *y = rsp_flame_layout_row_top (l, vp, box->row);
  *height = l->row_height;
}

/* ------------------------------------------------------------------ colours */

void
rsp_flame_set_color (cairo_t *cr, RspColor c, double alpha)
{
  if (alpha >= 1.0)
    cairo_set_source_rgb (cr, c.r, c.g, c.b);
  else
    cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

static RspColor
mix (RspColor a, RspColor b, double t)
{
  RspColor c = { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t };
  return c;
}

static double
luminance (RspColor c)
{
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

RspColor
rsp_flame_box_color (const RspTheme *theme, const RspFlameBox *box)
{
  RspColor base;
  switch ((RspFlameBoxKind) box->kind)
    {
    case RSP_FLAME_BOX_TASK:
      return theme->task;
    case RSP_FLAME_BOX_RUN:
      base = theme->run;
      break;
    case RSP_FLAME_BOX_SLEEP:
      base = theme->sleep;
      break;
    case RSP_FLAME_BOX_BOTH:
      base = theme->both;
      break;
    case RSP_FLAME_BOX_DISK:
      base = theme->disk;
      break;
    case RSP_FLAME_BOX_NETWORK:
      base = theme->network;
      break;
    default:
      base = theme->task;
      break;
    }
  /* neighbours with different names differ a little in lightness, as in
   * Brendan Gregg's flame graphs, so that a row of same-coloured boxes
   * still reads as separate functions; the hue stays the category's */
  double t = (box->shade / 255.0 - 0.5) * 0.30;
  RspColor white = { 1, 1, 1 }, black = { 0, 0, 0 };
  return t > 0 ? mix (base, white, t) : mix (base, black, -t);
}

gboolean
rsp_flame_name_matches (const char *name, const char *search)
{
  if (search == NULL || search[0] == '\0')
    return TRUE;
  return name != NULL && strcasestr (name, search) != NULL;
}

static gboolean
highlight_active (const RspFlameViewport *vp)
{
  return (vp->search != NULL && vp->search[0] != '\0') || vp->highlight_category >= 0;
}

static gboolean
box_matches (const RspFlameViewport *vp, const RspFlameBox *box)
{
  if (vp->highlight_category >= 0 && !(box->categories & (1u << vp->highlight_category)))
    return FALSE;
  return rsp_flame_name_matches (box->name, vp->search);
}

/* ------------------------------------------------------------------ text */

static PangoLayout *
text_layout (RspFlameLayout *l, cairo_t *cr)
{
  PangoLayout *pl = pango_cairo_create_layout (cr);
  pango_layout_set_font_description (pl, l->font);
  return pl;
}

static double
measure (RspFlameLayout *l, PangoLayout *pl, const char *text)
{
  /* names are few and come back on every redraw: measure each once */
  gpointer cached = g_hash_table_lookup (l->label_widths, text);
  if (cached != NULL)
    return (GPOINTER_TO_UINT (cached) - 1) / (double) PANGO_SCALE;
  pango_layout_set_width (pl, -1);
  pango_layout_set_text (pl, text, -1);
  int w, h;
  pango_layout_get_size (pl, &w, &h);
  g_hash_table_insert (l->label_widths, (gpointer) text, GUINT_TO_POINTER ((guint) w + 1));
  return w / (double) PANGO_SCALE;
}

double
rsp_flame_layout_text_width (const RspFlameLayout *l, const char *text)
{
  g_autoptr (PangoLayout) pl = pango_layout_new (l->measure);
  pango_layout_set_font_description (pl, l->font);
  pango_layout_set_text (pl, text, -1);
  int w, h;
  pango_layout_get_size (pl, &w, &h);
  return w / (double) PANGO_SCALE;
}

static double
draw_text (PangoLayout *pl, cairo_t *cr, const char *text, double x, double y, double max_width,
           PangoEllipsizeMode mode)
{
  pango_layout_set_text (pl, text, -1);
  if (max_width > 0)
    {
      pango_layout_set_width (pl, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (pl, mode);
    }
  else
    {
      pango_layout_set_width (pl, -1);
      pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_NONE);
    }
  int w, h;
  pango_layout_get_size (pl, &w, &h);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, pl);
  return w / (double) PANGO_SCALE;
}

double
rsp_flame_layout_text (RspFlameLayout *l, cairo_t *cr, const char *text, double x, double y, double max_width,
                       PangoEllipsizeMode mode)
{
  g_autoptr (PangoLayout) pl = text_layout (l, cr);
  return draw_text (pl, cr, text, x, y, max_width, mode);
}

/* ------------------------------------------------------------------ drawing */

typedef struct {
  guint32 box;
  double x0, x1, y;
  gboolean faded;
} Label;

/* Paints B over device columns [D0, D1) of a row; returns D1.  Boxes
 * wide enough to be told apart get a one-pixel seam on their right. */
static double
paint_box (cairo_t *cr, const RspTheme *theme, const RspFlameViewport *vp, const RspFlameBox *b, gboolean active,
           double s, double d0, double d1, double y_top, double h, gboolean *faded)
{
  *faded = active && !box_matches (vp, b);
  RspColor c = rsp_flame_box_color (theme, b);
  if (vp->box_delta != NULL)
    {
      /* gain red, loss blue, the square root so that small changes show */
      double d = vp->box_delta[b - vp->box_base];
      c = mix (theme->diff_same, d > 0 ? theme->diff_more : theme->diff_less, sqrt (fabs (CLAMP (d, -1.0, 1.0))));
    }
  if (*faded)
    c = mix (c, theme->background, FADE);
  double seam = (d1 - d0 >= SEAM_MIN_DEVICE_PX) ? 1.0 : 0.0;
  rsp_flame_set_color (cr, c, 1.0);
  cairo_rectangle (cr, d0 / s, y_top, (d1 - d0 - seam) / s, h);
  if (b->flags & RSP_FLAME_BOX_INFERRED)
    {
      /* inferred: diagonal hatching over the colour */
      cairo_fill_preserve (cr);
      cairo_save (cr);
      cairo_clip (cr);
      double x0 = d0 / s, x1 = (d1 - seam) / s;
      cairo_set_source_rgba (cr, 0, 0, 0, *faded ? 0.12 : 0.35);
      cairo_set_line_width (cr, 1.0);
      for (double x = x0 - h; x < x1; x += HATCH_STEP_PX)
        {
          cairo_move_to (cr, x, y_top + h);
          cairo_line_to (cr, x + h, y_top);
        }
      cairo_stroke (cr);
      cairo_restore (cr);
      return d1;
    }
  cairo_fill (cr);
  return d1;
}

static double
paint (cairo_t *cr, const RspTheme *theme, const RspFlameViewport *vp, const RspFlameBox *b, gboolean active,
       double s, double d0, double d1, double y_top, double h)
{
  gboolean faded;
  return paint_box (cr, theme, vp, b, active, s, d0, d1, y_top, h, &faded);
}

void
rsp_flame_layout_draw (RspFlameLayout *l, const RspFlameViewport *vp, const RspTheme *theme, cairo_t *cr)
{
  guint n_rows = l->row_y->len;
  if (n_rows == 0 || vp->width <= 0 || vp->bottom <= vp->top)
    return;
  const double s = l->scale > 0 ? l->scale : 1.0;
  const double rh = l->row_height;
  const RspFlameBox *boxes = (const RspFlameBox *) l->boxes->data;
  const guint32 *row_first = (const guint32 *) l->row_first->data;
  const double *row_y = (const double *) l->row_y->data;
  guint64 t1 = vp->t0 + (guint64) ceil (vp->width * vp->ns_per_px);
  gboolean active = highlight_active (vp);

  cairo_save (cr);
  cairo_rectangle (cr, vp->left, vp->top, vp->width, vp->bottom - vp->top);
  cairo_clip (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);

  /* rows whose content band meets the visible part */
  double cy0 = vp->scroll_y, cy1 = vp->scroll_y + (vp->bottom - vp->top);
  guint r = 0, hi = n_rows;
  while (r < hi)
    {
      guint mid = (r + hi) / 2;
      if (row_y[mid] + rh <= cy0)
        r = mid + 1;
      else
        hi = mid;
    }

  g_autoptr (GArray) labels = g_array_new (FALSE, FALSE, sizeof (Label));
  double min_label = LABEL_MIN_CHARS * theme->font_size * 0.6 + 2 * LABEL_PAD;
  for (; r < n_rows && row_y[r] < cy1; r++)
    {
      double y_top = screen_y (vp, row_y[r] + rh);
      /* one device px of seam between rows */
      double h = rh - 1.0 / s;
      guint32 last = row_first[r + 1];
      guint32 i = first_ending_after (l, row_first[r], last, vp->t0);
      /* Boxes of a device pixel or more are snapped to device pixels.
       * Narrower ones are pooled per pixel: the pixel is painted, in the
       * colour of the widest of them, when together they cover half of it
       * — so a row that alternates faster than the eye can follow still
       * reads as occupied, and a lone sliver (under a quarter pixel, as
       * Sysprof skips) does not show.  What falls in a pixel already
       * painted on this row cannot be told apart from it. */
      double covered = -G_MAXDOUBLE;
      double pool_px = -G_MAXDOUBLE, pool_cover = 0, pool_widest = 0;
      guint32 pool_box = RSP_FLAME_NO_BOX;
      for (; i < last && boxes[i].start < t1; i++)
        {
          const RspFlameBox *b = &boxes[i];
          double x0 = axis_x (vp, b->start) * s, x1 = axis_x (vp, b->end) * s;
          if (x1 - x0 < 1.0)
            {
              double px = floor ((x0 + x1) / 2);
              if (px < covered)
                {
                  /* zoomed out, most boxes fall in painted pixels: skip
                   * to the first that reaches past them */
                  i = next_ending_after (l, i + 1, last, device_time (vp, s, covered)) - 1;
                  continue;
                }
              if (px != pool_px)
                {
                  if (pool_cover >= 0.5 && pool_px >= covered)
                    covered = paint (cr, theme, vp, &boxes[pool_box], active, s, pool_px, pool_px + 1, y_top, h);
                  pool_px = px;
                  pool_cover = 0;
                  pool_widest = 0;
                }
              pool_cover += x1 - x0;
              if (x1 - x0 > pool_widest)
                pool_widest = x1 - x0, pool_box = i;
              if (pool_cover >= 0.5)
                {
                  /* decided: paint it now and skip the rest of the pixel */
                  covered = paint (cr, theme, vp, &boxes[pool_box], active, s, pool_px, pool_px + 1, y_top, h);
                  pool_cover = 0;
                  pool_px = -G_MAXDOUBLE;
                  i = next_ending_after (l, i + 1, last, device_time (vp, s, covered)) - 1;
                }
              continue;
            }
          double d0 = floor (x0 + 0.5), d1 = floor (x1 + 0.5);
          if (pool_cover >= 0.5 && pool_px >= covered && pool_px < d0)
            covered = paint (cr, theme, vp, &boxes[pool_box], active, s, pool_px, pool_px + 1, y_top, h);
          pool_cover = 0;
          pool_px = -G_MAXDOUBLE;
          d0 = MAX (d0, covered);
          if (d1 <= d0)
            continue;
          gboolean faded = FALSE;
          covered = paint_box (cr, theme, vp, b, active, s, d0, d1, y_top, h, &faded);
          double vx0 = MAX (x0 / s, vp->left), vx1 = MIN (x1 / s, vp->left + vp->width);
          if (vx1 - vx0 >= min_label)
            {
              Label lab = { i, vx0, vx1, y_top, faded };
              g_array_append_val (labels, lab);
            }
        }
      if (pool_cover >= 0.5 && pool_px >= covered)
        paint (cr, theme, vp, &boxes[pool_box], active, s, pool_px, pool_px + 1, y_top, h);
    }

  if (labels->len > 0)
    {
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
      g_autoptr (PangoLayout) pl = text_layout (l, cr);
      int text_h = 0;
      pango_layout_set_text (pl, "Ag", -1);
      pango_layout_get_pixel_size (pl, NULL, &text_h);
      RspColor dark = theme->dark ? theme->background : theme->foreground;
      RspColor light = { 1, 1, 1 };
      for (guint k = 0; k < labels->len; k++)
        {
          const Label *lab = &g_array_index (labels, Label, k);
          const RspFlameBox *b = &boxes[lab->box];
          if (b->name == NULL)
            continue;
          double avail = lab->x1 - lab->x0 - 2 * LABEL_PAD;
          double full = measure (l, pl, b->name);
          RspColor bg = rsp_flame_box_color (theme, b);
          if (lab->faded)
            bg = mix (bg, theme->background, FADE);
          RspColor fg = luminance (bg) > 0.5 ? dark : light;
          /* faded labels stay legible, but recede with their box */
          if (lab->faded)
            fg = mix (fg, bg, 0.45);
          rsp_flame_set_color (cr, fg, 1.0);
          double ty = lab->y + floor ((rh - 1.0 / s - text_h) / 2);
          draw_text (pl, cr, b->name, lab->x0 + LABEL_PAD, ty, full <= avail ? -1 : avail, PANGO_ELLIPSIZE_END);
        }
    }
  cairo_restore (cr);
}

gboolean
rsp_flame_layout_hit (const RspFlameLayout *l, const RspFlameViewport *vp, double x, double y, RspFlameHit *hit)
{
  if (x < vp->left || x >= vp->left + vp->width || y < vp->top || y >= vp->bottom)
    return FALSE;
  double cy = (vp->bottom - y) + vp->scroll_y;
  gint row = rsp_flame_layout_row_at (l, cy);
  if (row < 0)
    return FALSE;
  double dt = (x - vp->left) * vp->ns_per_px;
  guint64 t = vp->t0 + (guint64) MAX (dt, 0);
  /* half a device pixel of slop, so that boxes drawn one pixel wide can
   * be pointed at */
  guint64 slop = (guint64) (vp->ns_per_px / (2 * l->scale));
  guint32 i = rsp_flame_layout_find (l, (guint) row, t, slop);
  if (i == RSP_FLAME_NO_BOX)
    return FALSE;
  const RspFlameBox *b = &g_array_index (l->boxes, RspFlameBox, i);
  hit->what = RSP_FLAME_HIT_BOX;
  hit->box = i;
  hit->kind = b->kind;
  hit->name = b->name;
  hit->start = b->start;
  hit->end = b->end;
  hit->ns = b->end - b->start;
  hit->categories = b->categories;
  rsp_flame_layout_box_rect (l, vp, b, &hit->x, &hit->y, &hit->width, &hit->height);
  return TRUE;
}

guint8
rsp_flame_name_shade (const char *name)
{
  /* the top bits of a multiplicative hash spread similar names apart */
  return name != NULL ? (guint8) ((g_str_hash (name) * 2654435761u) >> 24) : 128;
}

const char *
rsp_flame_stretch_box (const RspAnalysis *a, const RspSegment *seg, const RspStretch *st, GStringChunk *names,
                       RspFlameBoxKind *kind)
{
  RspCategory cat = st->category;
  *kind = RSP_FLAME_BOX_DISK;
  if ((cat == RSP_CAT_DISK_IO || cat == RSP_CAT_IO_QUEUE) && st->file != NULL)
    {
      g_autofree char *label = g_strdup_printf (cat == RSP_CAT_DISK_IO ? _("disk I/O on %s") : _("I/O queue on %s"),
                                                st->file);
      return g_string_chunk_insert_const (names, label);
    }
  if (cat == RSP_CAT_DISK_IO)
    return _("disk I/O");
  if (cat == RSP_CAT_IO_QUEUE)
    return _("I/O queue");
  if (cat != RSP_CAT_NETWORK)
    return NULL;
  *kind = RSP_FLAME_BOX_NETWORK;
  const RspModel *m = rsp_analysis_model (a);
  const RspSleep *s = seg->kind == RSP_SEG_SLEEP ? rsp_model_sleep (m, seg->item) : NULL;
  if (s != NULL && s->net_op != RSP_NONE && rsp_model_net_op (m, s->net_op)->endpoint != NULL)
    {
      g_autofree char *label = g_strdup_printf (_("network %s"), rsp_model_net_op (m, s->net_op)->endpoint);
      return g_string_chunk_insert_const (names, label);
    }
  return _("network");
}

void
rsp_flame_hit_init (RspFlameHit *hit)
{
  memset (hit, 0, sizeof *hit);
  hit->box = RSP_FLAME_NO_BOX;
  hit->task = RSP_NONE;
  hit->segment = RSP_NONE;
  hit->node = G_MAXUINT32;
  hit->category = RSP_CAT_UNACCOUNTED;
}
