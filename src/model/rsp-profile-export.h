/* rsp-profile-export.h — an analysis written in the formats other profilers read.
 *
 * Every export is the analysed process's profile as the consolidated flame
 * view shows it: the time of every lane of every control path, on-CPU and
 * off-CPU together, each moment's pseudo-stack bottom-up — a layer's
 * process name (its comm), the layer's frames (a sample's stack where it
 * ran, the switch-out stack where it slept; rsp-stack-names.h names them),
 * the next layer where another task ran on its behalf — and on top one
 * frame naming the accounting's category, "[In blocking disk I/O]".  The
 * unit of an export is the table of stretches (rsp-analysis.h), so its
 * totals are the accounting table's, category by category:
 *
 *   folded      FlameGraph's collapsed stacks, "frame;frame;... weight",
 *               weights in microseconds, rounded per category so that each
 *               category's sum is its time rounded to the microsecond;
 *   speedscope  speedscope's file format: one sampled profile per control
 *               path, its stacks in time order, weights in nanoseconds;
 *   chrome      Chrome's trace-event JSON (chrome://tracing, Perfetto): the
 *               segments of each task as slices on its own track, the
 *               stretches as slices inside them (category, frame, file or
 *               endpoint in args), wake-ups as flow arrows from the waker's
 *               last run to the end of the sleep it ended;
 *   pprof       profile.proto, gzipped: one sample per distinct stack, its
 *               value in nanoseconds of wall time, labelled with the
 *               category's id.
 *
 * Nothing here decides a category: the exports read the analysis.
 */
#pragma once

#include "rsp-analysis.h"

G_BEGIN_DECLS

typedef enum {
  RSP_EXPORT_FOLDED,
  RSP_EXPORT_SPEEDSCOPE,
  RSP_EXPORT_CHROME,
  RSP_EXPORT_PPROF,
} RspExportFormat;

/* "folded", "speedscope", "chrome", "pprof"; FALSE for any other name. */
gboolean rsp_export_format_parse (const char *name, RspExportFormat *format);
const char *rsp_export_format_name (RspExportFormat format);

/* The export of ANALYSIS in FORMAT, as bytes (pprof is binary); TITLE
 * names the profile where the format has a name (the recording's file
 * name). */
GBytes *rsp_export (const RspAnalysis *analysis, RspExportFormat format, const char *title);

G_END_DECLS
