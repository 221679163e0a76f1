/* rsp-trace-data.h — loads the HEADER_TRACING_DATA feature of a perf.data
 * file (the tracepoint formats perf copied from tracefs at record time) into
 * a libtraceevent handle, so tracepoints decode as they were on the
 * recording machine, never as this machine's tracefs says.  Every text
 * goes through rsp-tep-guard.h before libtraceevent parses it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct tep_handle;

/* Parses DATA (the feature section).  Returns a new handle, or NULL with
 * ERROR set when the section is malformed.  Without WITH_PRINT the print
 * fmt lines are left out (rsp_tep_check_format_fields()): the fields
 * decode the same, tep_print_event() prints nothing. */
struct tep_handle *rsp_trace_data_load (const guint8 *data, gsize size, gboolean with_print, GError **error);

/* As rsp_trace_data_load() without print fmts, for a reader that never
 * prints.  Where every format has the kernel's shape and no two share an
 * id, the events are made from their fields alone (rsp-tep-fields.h) into
 * *EVENTS (struct tep_event*, sorted by id, freed with the array), and are
 * not in the handle; otherwise *EVENTS is NULL and libtraceevent parsed
 * them into the handle, as rsp_trace_data_load() does. */
struct tep_handle *rsp_trace_data_load_fields (const guint8 *data, gsize size, GPtrArray **events, GError **error);

/* The event of ID: in EVENTS when it is not NULL, else in TEP. */
struct tep_event *rsp_trace_data_find_event (struct tep_handle *tep, GPtrArray *events, int id);

G_END_DECLS
