/* rsp-reader-symbols.c — symbol sources for one recording. */
#include "rsp-reader-symbols.h"

GPtrArray *
rsp_symbolizer_setup_for_reader (RspSymbolizer *symbolizer, RspPerfReader *reader)
{
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  const RspRecording *rec = rsp_perf_reader_get_recording (reader);
  const RspPerfHeader *h = rsp_perf_reader_get_header (reader);
  gboolean have_kernel = FALSE;
  if (rec != NULL && rec->symbols != NULL)
    {
      g_autoptr (GError) error = NULL;
      if (rsp_symbolizer_load_stored (symbolizer, rec->symbols, rec->symbols_size, &error))
        have_kernel = TRUE;
      else
        g_ptr_array_add (warnings, g_strdup_printf ("the recording's stored symbols are unusable (%s); "
                                                    "using this machine's",
                                                    error->message));
    }
  if (!have_kernel)
    {
      g_autoptr (GError) error = NULL;
      if (!rsp_symbolizer_load_proc_kallsyms (symbolizer, &error))
        g_ptr_array_add (warnings, g_strdup_printf ("kernel frames will show as [unknown]: %s", error->message));
    }
  for (guint i = 0; i < h->build_ids->len; i++)
    {
      const RspBuildId *b = &g_array_index (h->build_ids, RspBuildId, i);
      rsp_symbolizer_add_build_id (symbolizer, b->filename, b->id, b->size);
    }
  return warnings;
}
