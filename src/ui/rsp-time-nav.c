/* rsp-time-nav.c — visible time range arithmetic. */
#include "rsp-time-nav.h"

void
rsp_time_nav_init (RspTimeNav *nav, guint64 min, guint64 max)
{
  nav->n_back = nav->back_head = 0;
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

/* Remembers what is shown, unless it is what was remembered last. */
static void
remember (RspTimeNav *nav)
{
  if (nav->n_back > 0)
    {
      guint last = (nav->back_head + RSP_TIME_NAV_HISTORY - 1) % RSP_TIME_NAV_HISTORY;
      if (nav->back[last][0] == nav->t0 && nav->back[last][1] == nav->t1)
        return;
    }
  nav->back[nav->back_head][0] = nav->t0;
  nav->back[nav->back_head][1] = nav->t1;
  nav->back_head = (nav->back_head + 1) % RSP_TIME_NAV_HISTORY;
  nav->n_back = MIN (nav->n_back + 1, RSP_TIME_NAV_HISTORY);
}

void
rsp_time_nav_jump (RspTimeNav *nav, guint64 t0, guint64 t1)
{
  guint64 old0 = nav->t0, old1 = nav->t1;
  rsp_time_nav_show (nav, t0, t1);
  if (nav->t0 == old0 && nav->t1 == old1)
    return; /* nowhere new: nothing to go back from */
  guint64 new0 = nav->t0, new1 = nav->t1;
  nav->t0 = old0, nav->t1 = old1;
  remember (nav);
  nav->t0 = new0, nav->t1 = new1;
}

void
rsp_time_nav_fit_jump (RspTimeNav *nav)
{
  rsp_time_nav_jump (nav, nav->min, nav->max);
}

gboolean
rsp_time_nav_back (RspTimeNav *nav)
{
  if (nav->n_back == 0)
    return FALSE;
  nav->back_head = (nav->back_head + RSP_TIME_NAV_HISTORY - 1) % RSP_TIME_NAV_HISTORY;
  nav->n_back--;
  rsp_time_nav_show (nav, nav->back[nav->back_head][0], nav->back[nav->back_head][1]);
  return TRUE;
}

guint
rsp_time_nav_history_length (const RspTimeNav *nav)
{
  return nav->n_back;
}
