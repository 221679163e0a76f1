/* rsp-time-nav.c — visible time range arithmetic. */
#include "rsp-time-nav.h"

void
rsp_time_nav_init (RspTimeNav *nav, guint64 min, guint64 max)
{
  nav->min = min;
  nav->max = MAX (max, min + RSP_TIME_NAV_MIN_SPAN);
  rsp_time_nav_fit (nav);
}

void
rsp_time_nav_fit (RspTimeNav *nav)
{
  nav->t0 = nav->min;
  nav->t1 = nav->max;
}

void
rsp_time_nav_show (RspTimeNav *nav, guint64 t0, guint64 t1)
{
  if (t1 < t0)
    {
      guint64 tmp = t0;
      t0 = t1;
      t1 = tmp;
    }
  guint64 span = MAX (t1 - t0, (guint64) RSP_TIME_NAV_MIN_SPAN);
  span = MIN (span, nav->max - nav->min);
  t0 = CLAMP (t0, nav->min, nav->max - span);
  nav->t0 = t0;
  nav->t1 = t0 + span;
}

void
rsp_time_nav_zoom (RspTimeNav *nav, double factor, double at)
{
  if (factor <= 0)
    return;
  at = CLAMP (at, 0.0, 1.0);
  double span = (double) (nav->t1 - nav->t0);
  double new_span = span / factor;
  double anchor = nav->t0 + at * span;
  double t0 = anchor - at * new_span;
  if (t0 < (double) nav->min)
    t0 = (double) nav->min;
  rsp_time_nav_show (nav, (guint64) t0, (guint64) (t0 + new_span));
}

void
rsp_time_nav_pan (RspTimeNav *nav, double fraction)
{
  double span = (double) (nav->t1 - nav->t0);
  double t0 = nav->t0 + fraction * span;
  t0 = CLAMP (t0, (double) nav->min, (double) (nav->max - (nav->t1 - nav->t0)));
  rsp_time_nav_show (nav, (guint64) t0, (guint64) t0 + (nav->t1 - nav->t0));
}
