/* rsp-time-nav.h — zooming and panning a visible time range inside a
 * bounded one, shared by the time-based widgets (no GTK). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RSP_TIME_NAV_HISTORY 32 /* ranges remembered for going back */

typedef struct {
  guint64 min, max;   /* everything there is */
  guint64 t0, t1;     /* what is visible */
  /* the ranges shown before each jump, newest last (a ring) */
  guint64 back[RSP_TIME_NAV_HISTORY][2];
  guint n_back, back_head;
} RspTimeNav;

#define RSP_TIME_NAV_MIN_SPAN 1000 /* 1 µs across the view at most */

void rsp_time_nav_init (RspTimeNav *nav, guint64 min, guint64 max);
/* Zooms by FACTOR (> 1 zooms in) keeping the time at fraction AT (0..1 of
 * the width) in place. */
void rsp_time_nav_zoom (RspTimeNav *nav, double factor, double at);
/* Pans by FRACTION of the visible span (negative: earlier). */
void rsp_time_nav_pan (RspTimeNav *nav, double fraction);
/* Shows [T0, T1] (clamped, at least the minimum span). */
void rsp_time_nav_show (RspTimeNav *nav, guint64 t0, guint64 t1);
void rsp_time_nav_fit (RspTimeNav *nav);

/* The zoom history.  A jump — fitting, showing a chosen box, finding or
 * range — remembers the range it leaves; zooming and panning step by step
 * do not.  rsp_time_nav_jump shows [T0, T1] as a jump; _fit_jump fits as
 * one; rsp_time_nav_back returns to the range before the last jump (FALSE
 * when there is none).  The oldest of more than RSP_TIME_NAV_HISTORY ranges
 * are forgotten. */
void rsp_time_nav_jump (RspTimeNav *nav, guint64 t0, guint64 t1);
void rsp_time_nav_fit_jump (RspTimeNav *nav);
gboolean rsp_time_nav_back (RspTimeNav *nav);
guint rsp_time_nav_history_length (const RspTimeNav *nav);

G_END_DECLS
