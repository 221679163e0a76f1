/* rsp-trace-data.h — loads the HEADER_TRACING_DATA feature of a perf.data
 * file (the tracepoint formats perf copied from tracefs at record time) into
 * a libtraceevent handle, so tracepoints decode as they were on the
 * recording machine, never as this machine's tracefs says. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct tep_handle;

/* Parses DATA (the feature section).  Returns a new handle, or NULL with
 * ERROR set when the section is malformed. */
struct tep_handle *rsp_trace_data_load (const guint8 *data, gsize size, GError **error);

/* libtraceevent's format parser trusts its input and crashes on some
 * damaged formats.  Runs PARSE (DATA) in a child process first: FALSE when
 * the child died or PARSE returned FALSE there; TRUE when it passed, or
 * when no probe could run (then callers parse in-process, as perf does). */
typedef gboolean (*RspTraceDataProbeFunc) (gconstpointer data);
gboolean rsp_trace_data_probe (RspTraceDataProbeFunc parse, gconstpointer data);

G_END_DECLS
