/* rsp-time-nav.h — zooming and panning a visible time range inside a
 * bounded one, shared by the time-based widgets (no GTK). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 min, max;   /* everything there is */
  guint64 t0, t1;     /* what is visible */
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

G_END_DECLS
