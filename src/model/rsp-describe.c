/* rsp-describe.c — finding sentences (see rsp-describe.h). */
#include "rsp-describe.h"

#include <glib/gi18n-lib.h>
#include <string.h>

/* The messages are looked up only in RSP_DESCRIBE_LOCAL. */
#define T(mode, s) ((mode) == RSP_DESCRIBE_LOCAL ? _(s) : (s))

/* printf for the conversions these sentences use (%s, %.1f, %%), where
 * RSP_DESCRIBE_PLAIN writes numbers with a decimal point whatever
 * LC_NUMERIC says (g_ascii_formatd) instead of switching the locale. */
static char *
compose (RspDescribeMode mode, const char *format, ...)
{
  va_list ap;
  if (mode == RSP_DESCRIBE_LOCAL)
    {
      va_start (ap, format);
      char *out = g_strdup_vprintf (format, ap);
      va_end (ap);
      return out;
    }
  GString *out = g_string_new (NULL);
  va_start (ap, format);
  for (const char *p = format; *p != '\0'; p++)
    {
      if (*p != '%')
        {
          g_string_append_c (out, *p);
          continue;
        }
      if (g_str_has_prefix (p, "%s"))
        {
          g_string_append (out, va_arg (ap, const char *));
          p += 1;
        }
      else if (g_str_has_prefix (p, "%.1f"))
        {
          char number[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (out, g_ascii_formatd (number, sizeof number, "%.1f", va_arg (ap, double)));
          p += 3;
        }
      else if (g_str_has_prefix (p, "%%"))
        {
          g_string_append_c (out, '%');
          p += 1;
        }
      else
        g_assert_not_reached (); /* a conversion the sentences below do not use */
    }
  va_end (ap);
  return g_string_free (out, FALSE);
}

char *
rsp_finding_describe (const RspModel *model, const RspFinding *f, RspDescribeMode mode)
{
  const RspTask *t = rsp_model_task (model, f->task);
  const char *who = t != NULL && t->comm != NULL ? t->comm : "?";
  double ms = (double) f->ns / 1e6;
  /* "[cc1]" names a binary without symbols: no call parentheses */
  const char *parens = f->frame != NULL && (f->frame[0] == '[' || strchr (f->frame, '(') != NULL) ? "" : "()";
  g_autofree char *under = f->frame != NULL ? compose (mode, T (mode, " under %s%s"), f->frame, parens) : g_strdup ("");
  switch (f->category)
    {
    case RSP_CAT_CPU_SAMPLED:
      return compose (mode, T (mode, "%s ran %.1f ms in %s%s%s%s"), who, ms, f->frame != NULL ? f->frame : "?", parens,
                      f->endpoint != NULL ? T (mode, ", answering a request to ") : "",
                      f->endpoint != NULL ? f->endpoint : "");
    case RSP_CAT_CPU_UNSAMPLED:
      return compose (mode, T (mode, "%s ran %.1f ms in short runs that no sample caught%s%s%s"), who, ms,
                      f->frame != NULL ? T (mode, ", each ending in ") : "", f->frame != NULL ? f->frame : "",
                      f->frame != NULL ? parens : "");
    case RSP_CAT_DISK_IO:
      return compose (mode, T (mode, "%s waited %.1f ms for disk%s%s%s"), who, ms, under,
                      f->file != NULL ? T (mode, ", on ") : "", f->file != NULL ? f->file : "");
    case RSP_CAT_IO_QUEUE:
      return compose (mode, T (mode, "%s waited %.1f ms for its disk requests to leave the queue%s%s%s"), who, ms, under,
                      f->file != NULL ? T (mode, ", on ") : "", f->file != NULL ? f->file : "");
    case RSP_CAT_NETWORK:
      return compose (mode, T (mode, "%s waited %.1f ms for the network%s%s%s"), who, ms, under,
                      f->endpoint != NULL ? T (mode, " from ") : "", f->endpoint != NULL ? f->endpoint : "");
    case RSP_CAT_SCHEDULER:
      return compose (mode, T (mode, "%s waited %.1f ms for a CPU after being woken%s"), who, ms, under);
    case RSP_CAT_PREEMPTED:
      return compose (mode, T (mode, "%s was preempted for %.1f ms%s"), who, ms, under);
    case RSP_CAT_HARDWARE:
      return compose (mode, T (mode, "%s waited %.1f ms for hardware (interrupt %s)"), who, ms,
                      f->frame != NULL ? f->frame : "?");
    case RSP_CAT_TIMEOUT:
      return compose (mode, T (mode, "%s waited %.1f ms in waits that timed out%s"), who, ms, under);
    case RSP_CAT_SLEEP:
      return compose (mode, T (mode, "%s slept %.1f ms on purpose%s"), who, ms, under);
    case RSP_CAT_KERNEL_MISC:
      return compose (mode, T (mode, "%s was blocked %.1f ms in the kernel%s"), who, ms, under);
    case RSP_CAT_OTHER_PATH:
      return compose (mode, T (mode, "%s waited %.1f ms for work on another control path%s"), who, ms, under);
    case RSP_CAT_UNACCOUNTED:
    case RSP_CAT_N:
      break;
    }
  return compose (mode, T (mode, "%s: %.1f ms unaccounted%s"), who, ms, under);
}
