/* rsp-theme.h — colours and sizes shared by every renderer (no GTK).
 * The paper's palette (§4.2): runs red, sleeps blue, frames that both run
 * and sleep purple, task names grey, blocking disk I/O green; network has a
 * colour of its own.  Light and dark variants; SCALE is the HiDPI factor. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double r, g, b;
} RspColor;

typedef struct {
  gboolean dark;
  double scale;        /* device pixels per logical pixel */
  const char *font;    /* Pango font family */
  double font_size;    /* logical px */
  double row_height;   /* logical px: one task row / one flame layer */
  RspColor background;
  RspColor foreground; /* text */
  RspColor muted;      /* secondary text, ruler ticks */
  RspColor grid;
  RspColor run;        /* red */
  RspColor sleep;      /* blue */
  RspColor both;       /* purple */
  RspColor task;       /* grey: task-name layers */
  RspColor disk;       /* green */
  RspColor network;    /* teal */
  RspColor link;       /* wake-up lines */
  RspColor highlight;  /* search and selection */
  RspColor selection;  /* range selection fill (drawn translucent) */
  RspColor waiting;    /* light blue: woken, waiting for a CPU (timeline) */
  RspColor disk_queue; /* light green: a disk request queued, not yet issued */
  RspColor diff_more;  /* differential flame: more time in B (red) */
  RspColor diff_less;  /* ... less time in B (blue) */
  RspColor diff_same;  /* ... unchanged (light grey) */
} RspTheme;

void rsp_theme_init (RspTheme *theme, gboolean dark, double scale);

G_END_DECLS
