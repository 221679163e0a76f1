/* rsp-reader-symbols.h — prepares a symbolizer for a recording: its stored
 * symbols first (an RSP recording carries the ones it used), this machine's
 * kallsyms otherwise, and the build ids from the perf.data header. */
#pragma once

#include "rsp-perf-reader.h"
#include "rsp-symbols.h"

G_BEGIN_DECLS

/* Returns warnings (human-readable, possibly empty; free with
 * g_ptr_array_unref).  OFFLINE: only the symbols stored in the recording,
 * nothing from this machine. */
GPtrArray *rsp_symbolizer_setup_for_reader (RspSymbolizer *symbolizer, RspPerfReader *reader, gboolean offline);

/* Lets the reader's libtraceevent print kernel addresses (%ps, %pS) as
 * function names, as perf script does. */
void rsp_symbolizer_attach_to_tep (RspSymbolizer *symbolizer, RspPerfReader *reader);

G_END_DECLS
